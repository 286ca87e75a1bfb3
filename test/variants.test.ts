/**
 * Variants of real characters made with glTF-Transform's own functions (Draco, meshopt,
 * quantization, unwelding) and by editing the node tree (a mirrored copy, the whole rig
 * translated, the armature scaled by 0.01 and 100): centers of rotation and deformations agree
 * with the original's within the compression's quantisation error (Direct Delta Mush included:
 * its Laplacian is taken on the mesh welded by position), mirrored copies give the
 * mirror image, translated and scaled ones the translated and scaled result. The skinning
 * templates, whose cage is fitted to the skin, are built again on each variant and held to the
 * same tolerances (on three of the characters, for time).
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Transform } from '@gltf-transform/core';
import { draco, meshopt, quantize, unweld } from '@gltf-transform/functions';
import { MeshoptEncoder } from 'meshoptimizer';
import { samplePose } from '../src/core/animation.js';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { applyMorphTargets, sampleMorphWeights } from '../src/core/morph.js';
import { restPose, skinningMatrices } from '../src/core/pose.js';
import { computeCentersOfRotation } from '../src/cor/precompute.js';
import { computeDirectDeltaMush } from '../src/methods/ddm/precompute.js';
import { deform } from '../src/deformers/index.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { createIO, readDocument } from '../src/io/node-io.js';
import { buildTemplateRig } from '../src/methods/templates/rig.js';
import { createTemplateDeformer } from '../src/methods/templates/deformer.js';
import { scratch, SHARED } from './helpers/data.js';
import { underRoot } from './helpers/gltf.js';
import { setDdmModel } from '../src/methods/ddm/data.js';

const tmp = scratch();
afterAll(tmp.cleanup);
const METHODS = ['lbs', 'dqs', 'cor', 'ddm', 'templates'] as const;
type Method = (typeof METHODS)[number];
/** The characters whose variants are also checked with templates (a rig built per variant). */
const TEMPLATED = new Set(['gltf/CesiumMan.glb', 'characters/Soldier.glb', 'characters/Fox.glb']);
const methodsOf = (file: string) => METHODS.filter((m) => m !== 'templates' || TEMPLATED.has(file));

/** {@link posed}, kept per original file (each variant is compared with it). */
const originals = new Map<string, Promise<Float32Array>>();
function posedOriginal(path: string, method: Method, time: number): Promise<Float32Array> {
  const key = `${path}|${method}|${time}`;
  if (!originals.has(key)) originals.set(key, posed(path, method, time));
  return originals.get(key)!;
}

/** The posed world positions of every skin of a file (first clip at `time`), all influences. */
async function posed(path: string, method: Method, time: number): Promise<Float32Array> {
  const doc = await readDocument(path);
  const clip0 = doc.getRoot().listAnimations()[0];
  const name = clip0 ? clip0.getName() || 'animation 0' : undefined;
  const parts: Float32Array[] = [];
  for (const model of extractSkinnedModels(doc, path)) {
    if (method === 'cor') model.mesh.centersOfRotation = computeCentersOfRotation(model.mesh).centers;
    if (method === 'ddm') setDdmModel(model.mesh, computeDirectDeltaMush(model.mesh));
    const clip = model.animations.find((c) => c.name === name);
    const pose = clip ? samplePose(model.skeleton, clip, time) : restPose(model.skeleton);
    const mesh = applyMorphTargets(
      model.mesh,
      model.morphGroups,
      sampleMorphWeights(model.morphGroups, clip?.morphChannels ?? [], time),
    );
    const S = skinningMatrices(model.skeleton, pose);
    if (method === 'templates') {
      const out = { positions: new Float32Array(mesh.positions.length) };
      createTemplateDeformer(buildTemplateRig(model.mesh, model.skeleton))(mesh, S, out);
      parts.push(out.positions);
    } else parts.push(deform(method, mesh, S).positions);
  }
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** Largest distance from a point of `a` to its nearest point of `b` (uniform grid, cell h). */
function oneSided(a: Float32Array, b: Float32Array, h: number): number {
  const grid = new Map<string, number[]>();
  const key = (x: number, y: number, z: number) => `${Math.floor(x / h)},${Math.floor(y / h)},${Math.floor(z / h)}`;
  for (let i = 0; i < b.length; i += 3) {
    const k = key(b[i], b[i + 1], b[i + 2]);
    (grid.get(k) ?? grid.set(k, []).get(k)!).push(i);
  }
  let worst = 0;
  for (let i = 0; i < a.length; i += 3) {
    let best = Infinity;
    const [cx, cy, cz] = [a[i], a[i + 1], a[i + 2]].map((v) => Math.floor(v / h));
    for (let dx = -1; dx <= 1; dx++)
      for (let dy = -1; dy <= 1; dy++)
        for (let dz = -1; dz <= 1; dz++)
          for (const j of grid.get(`${cx + dx},${cy + dy},${cz + dz}`) ?? [])
            best = Math.min(best, Math.hypot(a[i] - b[j], a[i + 1] - b[j + 1], a[i + 2] - b[j + 2]));
    worst = Math.max(worst, best);
  }
  return worst;
}

/** Symmetric Hausdorff distance of two point sets, relative to `diag` (∞ beyond 1% of it). */
function hausdorff(a: Float32Array, b: Float32Array, diag: number): number {
  const h = diag * 0.01;
  return Math.max(oneSided(a, b, h), oneSided(b, a, h)) / diag;
}

async function variant(file: string, name: string, transform: Transform): Promise<string> {
  const io = await createIO(['KHR_draco_mesh_compression', 'EXT_meshopt_compression']);
  const doc = await io.read(join(SHARED, file));
  await doc.transform(transform);
  const out = join(tmp.dir, `${file.replace(/\W/g, '_')}-${name}.glb`);
  await io.write(out, doc);
  return out;
}

const CHARACTERS: [string, number][] = [
  ['gltf/CesiumMan.glb', 1.2],
  ['characters/Soldier.glb', 0.9],
  ['characters/chicken.glb', 0.5],
  ['characters/Fox.glb', 0.7],
];

describe.each(CHARACTERS)('variants of %s', (file, time) => {
  const original = join(SHARED, file);

  // Measured on these characters: Draco 1.1e-4 to 6e-4, meshopt and quantize (8-bit weights) up
  // to 2.3e-3 of the diagonal — the quantisation steps of positions (14 bits) and weights.
  it.each([
    ['unwelded', unweld(), 1e-5],
    ['Draco', draco(), 2e-3],
    ['meshopt', meshopt({ encoder: MeshoptEncoder }), 4e-3],
    ['quantized', quantize(), 4e-3],
  ] as const)(
    '%s: every method agrees with the original within the quantisation error',
    async (name, transform, tolerance) => {
      await MeshoptEncoder.ready;
      const path = await variant(file, name, transform);
      for (const method of methodsOf(file)) {
        const a = await posedOriginal(original, method, time);
        const b = await posed(path, method, time);
        expect(hausdorff(a, b, boundingBoxDiagonal(a)), `${method}`).toBeLessThan(tolerance);
      }
    },
    180_000,
  );

  it.each([
    ['mirrored (scale −1 on a new top node)', { scale: [-1, 1, 1] }, (p: number[], _d: number) => [-p[0], p[1], p[2]]],
    [
      'translated by 3 diagonals',
      { translation: [3, -2, 1] },
      (p: number[], d: number) => [p[0] + 3 * d, p[1] - 2 * d, p[2] + d],
    ],
    ['scaled by 0.01', { scale: [0.01, 0.01, 0.01] }, (p: number[]) => p.map((x) => 0.01 * x)],
    ['scaled by 100', { scale: [100, 100, 100] }, (p: number[]) => p.map((x) => 100 * x)],
  ] as const)(
    '%s: the same deformation, transformed',
    async (name, t, map) => {
      const a0 = await posedOriginal(original, 'lbs', 0);
      const d = boundingBoxDiagonal(a0);
      const spec =
        'translation' in t
          ? { translation: t.translation.map((x) => x * d) as [number, number, number] }
          : { scale: [...t.scale] as [number, number, number] };
      const path = await variant(file, name.split(' ')[0], underRoot(spec));
      for (const method of methodsOf(file)) {
        const a = await posedOriginal(original, method, time);
        const b = await posed(path, method, time);
        const diag = boundingBoxDiagonal(a);
        const scale = 'scale' in t ? Math.abs(t.scale[1]) : 1;
        let worst = 0;
        for (let i = 0; i < a.length; i += 3) {
          const e = map([a[i], a[i + 1], a[i + 2]], d);
          worst = Math.max(worst, Math.hypot(b[i] - e[0], b[i + 1] - e[1], b[i + 2] - e[2]) / (diag * scale));
        }
        expect(worst, method).toBeLessThan(1e-5);
      }
    },
    180_000,
  );
});
