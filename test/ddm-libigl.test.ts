/**
 * Direct Delta Mush against libigl's `direct_delta_mush` (fixtures made once with libigl; see
 * test/fixtures/ddm/README.md): same weights and parameters, libigl's smoothing operator.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { computeDirectDeltaMush } from '../src/methods/ddm/precompute.js';
import { deformDdm } from '../src/methods/ddm/deformer.js';
import type { SkinnedMesh } from '../src/core/mesh.js';
import { buildSkinnedDocument } from '../src/io/convert.js';
import { directDeltaMush } from '../src/methods/ddm/transform.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDmat } from '../src/io/libigl.js';
import { readDocument, writeDocument } from '../src/io/node-io.js';
import { validate } from './helpers/gltf.js';
import { scratch } from './helpers/data.js';
import { ddmModelOf } from '../src/methods/ddm/data.js';

const FIX = join(__dirname, 'fixtures/ddm');
const LIBIGL = join(__dirname, '../../shared/data/libigl');

/** OBJ `v`/`f` lines in double precision (libigl reads doubles). */
function readObjDouble(path: string): { positions: Float64Array; triangles: Uint32Array } {
  const v: number[] = [];
  const f: number[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const t = line.trim().split(/\s+/);
    if (t[0] === 'v') v.push(+t[1], +t[2], +t[3]);
    else if (t[0] === 'f') f.push(...t.slice(1, 4).map((s) => parseInt(s, 10) - 1));
  }
  return { positions: Float64Array.from(v), triangles: Uint32Array.from(f) };
}

/** A DMAT (ASCII or binary, libigl's reader's format) as row-major n × m. */
async function readWeights(path: string): Promise<{ rows: number; cols: number; rowMajor: Float64Array }> {
  const m = await readDmat(path);
  const out = new Float64Array(m.rows * m.cols);
  for (let c = 0; c < m.cols; c++) for (let r = 0; r < m.rows; r++) out[r * m.cols + c] = m.data[r + m.rows * c];
  return { rows: m.rows, cols: m.cols, rowMajor: out };
}

/** Tutorial 408's stress test: 1 at each row's first largest weight, 0 elsewhere. */
function oneHot(W: { rows: number; cols: number; rowMajor: Float64Array }) {
  const out = new Float64Array(W.rowMajor.length);
  for (let r = 0; r < W.rows; r++) {
    let best = 0;
    for (let c = 1; c < W.cols; c++) if (W.rowMajor[r * W.cols + c] > W.rowMajor[r * W.cols + best]) best = c;
    out[r * W.cols + best] = 1;
  }
  return { ...W, rowMajor: out };
}

function skinningOf(transforms: number[][]): Float64Array {
  const S = new Float64Array(16 * transforms.length);
  transforms.forEach((t, j) => {
    // [R | t] row-major → 4×4 column-major
    for (let r = 0; r < 3; r++) {
      for (let c = 0; c < 3; c++) S[16 * j + 4 * c + r] = t[4 * r + c];
      S[16 * j + 12 + r] = t[4 * r + 3];
    }
    S[16 * j + 15] = 1;
  });
  return S;
}

function diagonal(p: ArrayLike<number>): number {
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < p.length; i++) {
    lo[i % 3] = Math.min(lo[i % 3], p[i]);
    hi[i % 3] = Math.max(hi[i % 3], p[i]);
  }
  return Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
}

/** Precomputes with libigl's operator and the manifest's parameters (threshold 0), then {@link compare}. */
function check(name: string, obj: string, W: { rows: number; cols: number; rowMajor: Float64Array }) {
  const manifest = JSON.parse(readFileSync(join(FIX, `${name}.json`), 'utf8'));
  const { positions, triangles } = readObjDouble(join(LIBIGL, obj));
  const n = positions.length / 3;
  expect(W.rows).toBe(n);
  const m = W.cols;
  const joints = new Uint32Array(n * m);
  for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) joints[i * m + j] = j;
  const { p, lambda, kappa, alpha } = manifest.parameters;
  const model = computeDirectDeltaMush(
    { positions, triangles, influences: m, joints, weights: W.rowMajor },
    { iterations: p, lambda, kappa, alpha, smoothing: 'libigl', threshold: 0 },
  );
  const mesh = {
    positions,
    triangles,
    influences: m,
    joints,
    weights: W.rowMajor,
    methodData: { ddm: model },
  } as unknown as SkinnedMesh;
  return compare(name, mesh, diagonal(positions));
}

/** Largest distance to the fixture's positions over every pose, ÷ the rest mesh's diagonal. */
function compare(name: string, mesh: SkinnedMesh, diag: number): Record<string, number> {
  const manifest = JSON.parse(readFileSync(join(FIX, `${name}.json`), 'utf8'));
  const n = mesh.positions.length / 3;
  const errors: Record<string, number> = {};
  for (const pose of manifest.poses) {
    const expected = new Float64Array(new Uint8Array(readFileSync(join(FIX, pose.file))).buffer);
    const out = { positions: new Float32Array(3 * n) };
    deformDdm(mesh, skinningOf(pose.transforms), out);
    let worst = 0;
    for (let k = 0; k < 3 * n; k++) worst = Math.max(worst, Math.abs(out.positions[k] - expected[k]));
    errors[pose.name] = worst / diag;
  }
  return errors;
}

const tmp = scratch();
afterAll(tmp.cleanup);

describe('Direct Delta Mush = libigl (Le & Lewis 2019, variant 0)', () => {
  it.each([
    ['arm', 'arm', false],
    ['elephant', 'elephant', true],
    ['elephant-smooth', 'elephant', false],
  ] as const)(
    "%s: every pose within 1e-5 of the diagonal (the arm's twist 180° with its reflected fits)",
    async (name, mesh, hot) => {
      const W = await readWeights(join(LIBIGL, `${mesh}-weights.dmat`));
      const errors = check(name, `${mesh}.obj`, hot ? oneHot(W) : W);
      for (const [pose, e] of Object.entries(errors)) expect(e, pose).toBeLessThan(1e-5);
    },
  );

  it('the arm after the glTF round trip (precompute → .glb → read back) within 1e-4, validator-clean', async () => {
    const { positions, triangles } = readObjDouble(join(LIBIGL, 'arm.obj'));
    const W = await readDmat(join(LIBIGL, 'arm-weights.dmat'));
    const { document } = buildSkinnedDocument({
      mesh: { positions: Float32Array.from(positions), triangles },
      weights: W,
      name: 'arm',
    });
    await document.transform(directDeltaMush({ smoothing: 'libigl', threshold: 0 }));
    const path = join(tmp.dir, 'arm-ddm.glb');
    await writeDocument(document, path);
    const report = await validate(path);
    expect(report.issues.numErrors).toBe(0);
    const [model] = extractSkinnedModels(await readDocument(path), path);
    expect(ddmModelOf(model.mesh)?.variant).toBe('full');
    expect(ddmModelOf(model.mesh)?.parameters).toMatchObject({
      iterations: 20,
      lambda: 3,
      kappa: 1,
      alpha: 0.8,
      smoothing: 'libigl',
    });
    const errors = compare('arm', model.mesh, diagonal(positions));
    for (const [pose, e] of Object.entries(errors)) expect(e, pose).toBeLessThan(1e-4);
  });
});
