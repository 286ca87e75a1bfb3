/**
 * Compressed inputs through the CLI: a Draco and a meshopt copy of a real character are read,
 * precomputed and written back with the same compression (or without, on request).
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { draco, meshopt, quantize } from '@gltf-transform/functions';
import { MeshoptEncoder } from 'meshoptimizer';
import { createIO, readDocument } from '../src/io/node-io.js';
import { readCageRig } from '../src/io/cage-gltf.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { runCli } from './helpers/cli.js';
import { scratch, SHARED } from './helpers/data.js';
import { validate } from './helpers/gltf.js';

const tmp = scratch();
afterAll(tmp.cleanup);

describe.each([
  ['KHR_draco_mesh_compression', () => draco()],
  ['EXT_meshopt_compression', () => meshopt({ encoder: MeshoptEncoder })],
] as const)('a %s copy of the Fox', (extension, transform) => {
  it('precomputes and keeps the compression, or drops it with --no-compress; outputs validate', async () => {
    await MeshoptEncoder.ready;
    const io = await createIO([extension]);
    const doc = await io.read(join(SHARED, 'characters/Fox.glb'));
    await doc.transform(transform());
    const input = join(tmp.dir, `fox-${extension}.glb`);
    await io.write(input, doc);
    const kept = join(tmp.dir, `kept-${extension}.glb`);
    const plain = join(tmp.dir, `plain-${extension}.glb`);
    expect((await runCli('precompute', input, '-o', kept)).code).toBe(0);
    expect((await runCli('precompute', input, '-o', plain, '--no-compress')).code).toBe(0);
    const used = async (p: string) =>
      (await (await createIO([extension])).read(p))
        .getRoot()
        .listExtensionsUsed()
        .map((e) => e.extensionName);
    expect(await used(kept)).toContain(extension);
    expect(await used(plain)).not.toContain(extension);
    for (const p of [kept, plain]) expect((await validate(p)).issues.numErrors).toBe(0);
    const deformed = join(tmp.dir, `deformed-${extension}.glb`);
    const r = await runCli('deform', kept, '--method', 'cor', '--time', '1', '-o', deformed);
    expect(r.code).toBe(0);
    expect(await used(deformed)).toContain(extension);
  }, 180_000);
});

/**
 * Method data survives every codec exactly: a compressed copy of the Fox, each vertex tagged
 * with its index in an integer attribute (which every codec keeps exactly), is precomputed once
 * keeping its compression and once with `--no-compress` (plain floats): both start from the same
 * decoded geometry, so every method attribute must read back the same per tagged vertex, to
 * float32 rounding. (Before corskin wrote Draco's GENERIC attributes unquantised, Draco rounded
 * Direct Delta Mush matrices to 12 bits: the bind pose came back 3e-2 of the diagonal off.)
 */
describe('method data under compression', () => {
  const CODECS = [
    ['KHR_draco_mesh_compression', () => draco()],
    ['EXT_meshopt_compression', () => meshopt({ encoder: MeshoptEncoder })],
    ['KHR_mesh_quantization', () => quantize()],
  ] as const;
  const METHODS = [
    ['centers of rotation', ['precompute']],
    ['Direct Delta Mush, full', ['precompute', '--method', 'ddm']],
    ['Direct Delta Mush, compact', ['precompute', '--method', 'ddm', '--variant', 'compact']],
    ['a cage binding', ['bind-cage', '--cage', 'auto', '--resolution', '12']],
  ] as const;
  const METHOD_ATTRIBUTE = /^_(CENTER_OF_ROTATION|DDM_|CAGE_)/;

  /** Per tagged vertex, every method attribute's values, of every primitive (in order). */
  async function methodData(path: string, extension: string) {
    const doc = await (await createIO([extension])).read(path);
    const byVertex = new Map<string, number[]>();
    let names = 0;
    doc
      .getRoot()
      .listMeshes()
      .flatMap((m) => m.listPrimitives())
      .forEach((p, pi) => {
        const id = p.getAttribute('_VERTEX_ID');
        if (!id) return;
        const semantics = p
          .listSemantics()
          .filter((s) => METHOD_ATTRIBUTE.test(s))
          .sort();
        names += semantics.length;
        const el: number[] = [];
        for (let v = 0; v < id.getCount(); v++) {
          const values: number[] = [];
          for (const s of semantics) values.push(...p.getAttribute(s)!.getElement(v, el));
          byVertex.set(`${pi}:${id.getElement(v, el)[0]}`, values);
        }
      });
    return { byVertex, names };
  }

  it.each(CODECS)(
    '%s: CoRs, DDM (both variants) and cage bindings read back exactly',
    async (extension, transform) => {
      await MeshoptEncoder.ready;
      const io = await createIO([extension]);
      const doc = await io.read(join(SHARED, 'characters/Fox.glb'));
      for (const p of doc
        .getRoot()
        .listMeshes()
        .flatMap((m) => m.listPrimitives())) {
        const count = p.getAttribute('POSITION')!.getCount();
        const ids = Uint16Array.from({ length: count }, (_, i) => i);
        p.setAttribute('_VERTEX_ID', doc.createAccessor().setType('SCALAR').setArray(ids));
      }
      await doc.transform(transform());
      const input = join(tmp.dir, `tagged-${extension}.glb`);
      await io.write(input, doc);
      for (const [method, command] of METHODS) {
        const kept = join(tmp.dir, `kept.glb`);
        const plain = join(tmp.dir, `plain.glb`);
        const [name, ...options] = command;
        for (const [out, extra] of [
          [kept, []],
          [plain, ['--no-compress']],
        ] as const) {
          const r = await runCli(name, input, ...options, ...extra, '-o', out, '--force');
          expect(r.code, `${method}: ${r.stderr}`).toBe(0);
        }
        const a = await methodData(kept, extension);
        const b = await methodData(plain, extension);
        expect(a.names, method).toBeGreaterThan(0);
        expect(a.names, method).toBe(b.names);
        expect(a.byVertex.size, method).toBe(b.byVertex.size);
        let worst = 0;
        for (const [key, values] of a.byVertex) {
          const other = b.byVertex.get(key)!;
          expect(other, `${method}: vertex ${key}`).toBeDefined();
          for (let k = 0; k < values.length; k++)
            worst = Math.max(worst, Math.abs(values[k] - other[k]) / Math.max(1e-30, Math.abs(other[k])));
        }
        expect(worst, method).toBeLessThanOrEqual(1.2e-7); // float32 rounding
        if (name === 'bind-cage') {
          // The binding's indices name the same cage vertices: the cage kept in its order (Draco's
          // edgebreaker reorders a mesh's vertices; the skin's travel with their binding, the
          // cage's must not move), its positions within the codec's quantisation.
          const [cageA, cageB] = await Promise.all([kept, plain].map(async (f) => { const d = await readDocument(f); return readCageRig(d, extractSkinnedModels(d, f)[0], f)!.cage; })); // prettier-ignore
          // Each triangle from its smallest index (meshopt's index codec may rotate one; the same triangle).
          const rotated = (t: Uint32Array) => Array.from({ length: t.length / 3 }, (_, f) => { const [a, b, c] = t.subarray(3 * f, 3 * f + 3); return a <= b && a <= c ? [a, b, c] : b <= c ? [b, c, a] : [c, a, b]; }); // prettier-ignore
          expect(rotated(cageA.triangles), extension).toEqual(rotated(cageB.triangles));
          let far = 0;
          for (let i = 0; i < cageA.positions.length; i += 3)
            far = Math.max(far, Math.hypot(cageA.positions[i] - cageB.positions[i], cageA.positions[i + 1] - cageB.positions[i + 1], cageA.positions[i + 2] - cageB.positions[i + 2])); // prettier-ignore
          expect(far / boundingBoxDiagonal(Float32Array.from(cageB.positions)), extension).toBeLessThan(2e-4);
        }
      }
    },
    360_000,
  );
});

describe('a helper bake of a Draco copy of the Fox', () => {
  it("Draco's edgebreaker welds and reorders the baked vertices: the bake says so and measures before compression, as --no-compress writes it; the file validates", async () => {
    const extension = 'KHR_draco_mesh_compression';
    const io = await createIO([extension]);
    const doc = await io.read(join(SHARED, 'characters/Fox.glb'));
    await doc.transform(draco());
    const input = join(tmp.dir, 'fox-draco-for-bake.glb');
    await io.write(input, doc);
    const [kept, plain] = ['kept', 'plain'].map((k) => join(tmp.dir, `fox-draco-helpers-${k}.glb`));
    const args = ['bake', input, '--method', 'dqs', '--as', 'helpers', '--rate', '5'];
    const a = await runCli(...args, '-o', kept);
    const b = await runCli(...args, '--no-compress', '-o', plain);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(a.stderr).toMatch(/its compression welded \d+ vertices and reordered them: measured before compression/);
    const report = (out: string) => out.split('\n').filter((l) => /baked file by LBS vs|removes/.test(l));
    // At the samples, the share removed, half-way between the samples, and beyond the clips.
    expect(report(a.stdout).length).toBe(4);
    expect(report(a.stdout)).toEqual(report(b.stdout));
    // Both validate: --no-compress shows the weights Draco quantised, given back to the vertices
    // the helpers would not improve (sums off by ~1e-4), as normalised integers summing to 65535.
    expect((await validate(kept)).issues.numErrors).toBe(0);
    expect((await validate(plain)).issues.numErrors).toBe(0);
  }, 180_000);
});
