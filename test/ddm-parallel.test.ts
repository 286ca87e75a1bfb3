/**
 * Direct Delta Mush's precomputation on Node worker threads (`computeDirectDeltaMushParallel`):
 * every variant gives exactly `computeDirectDeltaMush`'s model (the entries are kept in task
 * order) on CesiumMan (one piece), the chicken (many pieces) and the Fox mirrored (a rig of
 * negative determinant), with progress reaching the total exactly; every task goes to one unit of
 * work, a whole piece's together; one fill-reducing ordering per piece serves both its systems;
 * a pool stopped during a call makes it reject; an abort rejects with the signal's reason; and
 * `corskin precompute --method ddm --threads 2` writes the file `--threads 1` writes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { computeDirectDeltaMush, type DdmModel } from '../src/methods/ddm/precompute.js';
import { computeDirectDeltaMushParallel, createDdmWorkerPool, ddmWorkUnits } from '../src/methods/ddm/parallel.js';
import { resolveDdmParameters } from '../src/methods/ddm/parameters.js';
import { setupDirectDeltaMush } from '../src/methods/ddm/stages.js';
import { factorDdmPiece, pieceOrdering } from '../src/methods/ddm/solves.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { runCli } from './helpers/cli.js';
import { CESIUM_MAN, scratch, SHARED } from './helpers/data.js';
import { subdivideMidpoint } from '../bench/subdivide-mesh.js';

const load = async (file: string) => extractSkinnedModels(await readDocument(file), file)[0].mesh;
const same = (a: DdmModel, b: DdmModel) => {
  expect(b.variant).toBe(a.variant);
  expect(b.offsets).toEqual(a.offsets);
  expect(b.joints).toEqual(a.joints);
  expect(b.matrices).toEqual(a.matrices);
  expect(b.weights).toEqual(a.weights);
  expect(b.fallbacks).toBe(a.fallbacks);
};

describe('Direct Delta Mush on worker threads', () => {
  const tmp = scratch();
  afterAll(() => tmp.cleanup());

  it.each([
    ['CesiumMan', CESIUM_MAN],
    ['the chicken', join(SHARED, 'characters', 'chicken.glb')],
  ])(
    '%s: 2 threads give the one-thread model exactly, full and compact, with progress',
    async (_, file) => {
      const mesh = await load(file);
      for (const variant of ['full', 'compact'] as const) {
        const progress: [number, number][] = [];
        const parallel = await computeDirectDeltaMushParallel(mesh, {
          variant,
          threads: 2,
          onProgress: (d, t) => progress.push([d, t]),
        });
        same(computeDirectDeltaMush(mesh, { variant }), parallel);
        // Every solve is counted once, on whichever thread: the count ends at the total, never past it.
        expect(progress.length).toBeGreaterThan(0);
        expect(progress.at(-1)![0]).toBe(progress.at(-1)![1]);
        for (const [d, t] of progress) expect(d).toBeLessThanOrEqual(t);
      }
    },
    360_000,
  );

  it('the skeleton, 40 skins with pieces of fewer joints than threads: 2 and 3 threads give the one-thread models exactly', async () => {
    const skeleton = join(SHARED, 'characters', 'skeleton.glb');
    const pool = createDdmWorkerPool(3);
    try {
      for (const { mesh } of extractSkinnedModels(await readDocument(skeleton), skeleton)) {
        const one = computeDirectDeltaMush(mesh);
        for (const threads of [2, 3]) same(one, await computeDirectDeltaMushParallel(mesh, { pool, threads }));
      }
    } finally {
      await pool.terminate();
    }
  }, 360_000);

  it('the Fox mirrored (x → −x, triangles flipped), libigl smoothing, threshold 0: the same exactly', async () => {
    const mesh = await load(join(SHARED, 'characters', 'Fox.glb'));
    const positions = Float32Array.from(mesh.positions, (v, i) => (i % 3 === 0 ? -v : v));
    const triangles = Uint32Array.from(mesh.triangles, (v, i) =>
      i % 3 === 1 ? mesh.triangles[i + 1] : i % 3 === 2 ? mesh.triangles[i - 1] : v,
    );
    const mirrored = { ...mesh, positions, triangles };
    const options = { smoothing: 'libigl', threshold: 0 } as const;
    same(
      computeDirectDeltaMush(mirrored, options),
      await computeDirectDeltaMushParallel(mirrored, { ...options, threads: 3 }),
    );
  }, 360_000);

  it('puts every task in one unit: whole pieces together, largest first, a split piece in a unit per thread', async () => {
    const skeleton = join(SHARED, 'characters', 'skeleton.glb');
    const meshes = [
      await load(join(SHARED, 'characters', 'chicken.glb')),
      // The skeleton's skins: split pieces weighted to fewer joints than there are threads.
      ...extractSkinnedModels(await readDocument(skeleton), skeleton).map((m) => m.mesh),
    ];
    for (const mesh of meshes)
      for (const threads of [2, 3, 8]) {
        const setup = setupDirectDeltaMush(
          mesh,
          resolveDdmParameters({}),
          { variant: 'full', threshold: 1e-4 },
          threads,
        );
        const { whole, split } = ddmWorkUnits(setup, threads);
        const units = [...whole, ...[...split.values()].flat()];
        expect(units.flatMap((u) => u.tasks).sort((a, b) => a - b)).toEqual(setup.tasks.map((_, t) => t));
        for (const u of units) expect(u.tasks).toEqual([...u.tasks].sort((a, b) => a - b));
        const pieceOf = (t: number) => setup.tasks[t].piece;
        // A whole piece's tasks all in one unit; a split piece's only in its own units, one per thread.
        for (const u of whole) for (const t of u.tasks) expect(setup.split[pieceOf(t)]).toBe(false);
        const homes = new Map<number, Set<number>>();
        whole.forEach((u, k) =>
          u.tasks.forEach((t) => homes.set(pieceOf(t), (homes.get(pieceOf(t)) ?? new Set()).add(k))),
        );
        for (const h of homes.values()) expect(h.size).toBe(1);
        expect(split.size).toBe(setup.split.filter(Boolean).length);
        for (const [c, us] of split) {
          expect(us.length).toBe(Math.min(threads, setup.tasks.filter((t) => t.piece === c).length));
          for (const u of us) for (const t of u.tasks) expect(pieceOf(t)).toBe(c);
        }
        // Units of about a sixteenth of a thread's share of the whole pieces' work, largest first.
        const total = whole.reduce((w, u) => w + u.work, 0);
        for (const u of whole.slice(0, -1)) expect(u.work).toBeGreaterThanOrEqual(total / (16 * threads));
        expect(whole.length).toBeLessThanOrEqual(16 * threads + 1);
      }
  });

  it('one fill-reducing ordering per piece serves both systems: pieceOrdering is each factor’s own ordering, small pieces and large', async () => {
    // CesiumMan subdivided twice: one piece of 37,000 rows (nested dissection); the chicken: many small pieces (minimum degree).
    for (const mesh of [
      subdivideMidpoint(subdivideMidpoint(await load(CESIUM_MAN))),
      await load(join(SHARED, 'characters', 'chicken.glb')),
    ]) {
      const setup = setupDirectDeltaMush(mesh, resolveDdmParameters({}), { variant: 'full', threshold: 1e-4 }, 2);
      const pieces = [...setup.pieces.keys()]
        .sort((a, b) => setup.pieces[b].length - setup.pieces[a].length)
        .slice(0, 3);
      for (const c of pieces) {
        const ordering = pieceOrdering(setup, c);
        expect([...ordering].sort((a, b) => a - b)).toEqual([...setup.pieces[c].keys()]);
        for (const system of ['kappa', 'lambda'] as const) {
          const own = factorDdmPiece(setup, mesh, c, system); // its ordering computed from its own matrix
          expect(own.factor.perm).toEqual(ordering);
          own.smoother?.release();
        }
      }
    }
  });

  it('a warm pool serves several meshes (the one-thread models exactly) and stays up; blocks of joints split per thread', async () => {
    const pool = createDdmWorkerPool(2);
    try {
      for (const file of [join(SHARED, 'characters', 'rpm-avatar.glb'), CESIUM_MAN]) {
        const mesh = await load(file);
        same(computeDirectDeltaMush(mesh), await computeDirectDeltaMushParallel(mesh, { pool }));
        // CesiumMan's one piece: its joints in as many blocks as a multiple of the threads.
        const setup = setupDirectDeltaMush(mesh, resolveDdmParameters({}), { variant: 'full', threshold: 1e-4 }, 2);
        const big = setup.pieces.findIndex((rows) => 4 * rows.length >= setup.m);
        const blocks = setup.tasks.filter((t) => t.piece === big);
        expect(blocks.length % 2).toBe(0);
        expect(blocks.reduce((s, t) => s + t.bones, 0)).toBe(setup.jointsOf[big].length);
      }
    } finally {
      await pool.terminate();
    }
  }, 360_000);

  it('a pool stopped during the call: the call rejects (no hang), and a new pool then gives the one-thread model', async () => {
    const mesh = subdivideMidpoint(await load(CESIUM_MAN)); // ~1 s on two threads: stopped mid-way
    const pool = createDdmWorkerPool(2);
    const run = computeDirectDeltaMushParallel(mesh, { pool });
    setTimeout(() => void pool.pool.terminate(true), 100);
    await expect(run).rejects.toThrow();
    const fresh = createDdmWorkerPool(2);
    try {
      same(computeDirectDeltaMush(mesh), await computeDirectDeltaMushParallel(mesh, { pool: fresh }));
    } finally {
      await fresh.terminate();
    }
  }, 360_000);

  it('an abort rejects with the signal’s reason', async () => {
    const mesh = await load(CESIUM_MAN);
    const controller = new AbortController();
    const run = computeDirectDeltaMushParallel(mesh, { threads: 2, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop')), 50);
    await expect(run).rejects.toThrow('stop');
  }, 180_000);

  it('corskin precompute --method ddm --threads 2 writes what --threads 1 writes', async () => {
    const outs = [1, 2].map((t) => join(tmp.dir, `cm-ddm-${t}.glb`));
    for (const [k, out] of outs.entries()) {
      const r = await runCli('precompute', CESIUM_MAN, '--method', 'ddm', '--threads', String(k + 1), '-o', out);
      expect(r.code, r.stderr).toBe(0);
    }
    expect(readFileSync(outs[1]).equals(readFileSync(outs[0]))).toBe(true);
  }, 360_000);
});
