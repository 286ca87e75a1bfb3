/**
 * Methods per frame — linear blend skinning, dual quaternion skinning (Kavan et al. 2008),
 * spherical blend skinning (Kavan & Žára 2005), log-matrix skinning (Alexa 2002), Delta Mush
 * (Mancewicz et al. 2014, its default parameters) and stretch skinning (Yang & Zhang 2006) — as JavaScript deformers and as WebAssembly
 * SIMD kernels (asm/kernels.ts, asm/dm.ts, asm/stretch.ts) on the same mesh and frames in the same run, for the
 * SIMD/JavaScript ratios. Medians over 20 frames of each asset's first clip × repetitions,
 * positions and normals. CesiumMan subdivided ×3 (209K vertices) is left out by `--quick`.
 *
 * Run: npm run bench:simd-frames [-- --quick]
 */
import { join } from 'node:path';
import type { SkinnedMesh } from '../src/core/mesh.js';
import type { Deformer } from '../src/deformers/contract.js';
import { deformers } from '../src/deformers/index.js';
import { createStretchDeformer, stretchRigFromSkeleton, type StretchRig } from '../src/deformers/stretch.js';
import { createDeltaMushDeformer } from '../src/methods/dm/deformer.js';
import { createSimdDeformer } from '../src/wasm/simd-skinning.js';
import { benchAsset, DATA, frameMs, printTable } from './frames.js';

const quick = process.argv.includes('--quick');
const REPS = quick ? 2 : 5;
const METHODS = ['lbs', 'dqs', 'sbs', 'lms', 'dm', 'stretch'] as const;

const ASSETS: [string, string, number][] = [
  ['CesiumMan', join(DATA, 'gltf', 'CesiumMan.glb'), 0],
  ['Soldier', join(DATA, 'characters', 'Soldier.glb'), 0],
  ['Ybot', join(DATA, 'characters', 'Ybot.glb'), 0],
  ...(quick ? [] : ([['CesiumMan ×3', join(DATA, 'gltf', 'CesiumMan.glb'), 3]] as [string, string, number][])),
];

/** The method's JavaScript deformer on `mesh` (Delta Mush prepared with its defaults; stretch on `rig`). */
const jsDeformer = (method: (typeof METHODS)[number], mesh: SkinnedMesh, rig: StretchRig): Deformer =>
  method === 'dm'
    ? createDeltaMushDeformer(mesh)
    : method === 'stretch'
      ? createStretchDeformer(rig)
      : deformers[method];

const rows: string[][] = [];
for (const [name, file, subdivisions] of ASSETS) {
  const { mesh, skeleton, frames, n, out } = await benchAsset(file, subdivisions);
  const rig = stretchRigFromSkeleton(skeleton);
  const row = [name, n.toLocaleString('en-US')];
  const simdMs: number[] = [];
  for (const method of METHODS) {
    const simd = await createSimdDeformer(mesh, method, method === 'stretch' ? { rig } : undefined);
    const deform = jsDeformer(method, mesh, rig);
    const js = frameMs(frames, (S) => deform(mesh, S, out), REPS);
    const wasm = frameMs(frames, (S) => simd.deform(S), REPS);
    simdMs.push(wasm);
    row.push(js.toFixed(3), wasm.toFixed(3), (js / wasm).toFixed(1));
  }
  row.push(...simdMs.slice(2).map((ms) => (ms / simdMs[0]).toFixed(1)));
  rows.push(row);
  console.error(`${name}: done`);
}
const head = [
  'asset',
  'vertices',
  ...METHODS.flatMap((m) => [`${m} JS ms`, `${m} SIMD ms`, 'JS/SIMD']),
  ...METHODS.slice(2).map((m) => `${m}/lbs SIMD`),
];
printTable(head, rows);
console.log('\nmedians of one frame (positions + normals); ratios from the same run');
