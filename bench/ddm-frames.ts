/**
 * Direct Delta Mush per frame (Le & Lewis 2019): the JavaScript deformer against the WebAssembly
 * SIMD kernel (asm/ddm.ts), full and compact variants, with LBS (JavaScript and SIMD) on the
 * same mesh and frames in the same run, for the ratios. Medians over 20 frames of each asset's
 * first clip × repetitions; DDM SIMD/LBS SIMD is the median of the two timed one after the other
 * on each frame (`pairedRatio`). CesiumMan subdivided ×3 (157,070 vertices) has its model computed
 * on 2 worker threads first (a few minutes); `--quick` leaves it out.
 *
 * Run: npm run bench:ddm-frames [-- --quick]
 */
import { join } from 'node:path';
import { deformers } from '../src/deformers/index.js';
import { withDdmModel } from '../src/methods/ddm/data.js';
import { computeDirectDeltaMushParallel } from '../src/methods/ddm/parallel.js';
import { createSimdDeformer } from '../src/wasm/simd-skinning.js';
import { benchAsset, DATA, frameMs, pairedRatio, printTable } from './frames.js';

const quick = process.argv.includes('--quick');
const REPS = quick ? 2 : 5;

const ASSETS: [string, string, number][] = [
  ['CesiumMan', join(DATA, 'gltf', 'CesiumMan.glb'), 0],
  ['Soldier', join(DATA, 'characters', 'Soldier.glb'), 0],
  ['rpm-avatar', join(DATA, 'characters', 'rpm-avatar.glb'), 0],
  ['Ybot', join(DATA, 'characters', 'Ybot.glb'), 0],
  ...(quick ? [] : ([['CesiumMan ×3', join(DATA, 'gltf', 'CesiumMan.glb'), 3]] as [string, string, number][])),
];

const rows: string[][] = [];
for (const [name, file, subdivisions] of ASSETS) {
  const { mesh, frames, n, out } = await benchAsset(file, subdivisions);
  const full = withDdmModel(mesh, await computeDirectDeltaMushParallel(mesh, { threads: 2 }));
  const compact = withDdmModel(mesh, await computeDirectDeltaMushParallel(mesh, { threads: 2, variant: 'compact' }));
  const [fullSimd, compactSimd, lbsSimd] = await Promise.all([
    createSimdDeformer(full, 'ddm'),
    createSimdDeformer(compact, 'ddm'),
    createSimdDeformer(mesh, 'lbs'),
  ]);
  const ms = {
    full: frameMs(frames, (S) => deformers.ddm(full, S, out), REPS),
    compact: frameMs(frames, (S) => deformers.ddm(compact, S, out), REPS),
    fullSimd: frameMs(frames, (S) => fullSimd.deform(S), REPS),
    compactSimd: frameMs(frames, (S) => compactSimd.deform(S), REPS),
    lbs: frameMs(frames, (S) => deformers.lbs(mesh, S, out), REPS),
    lbsSimd: frameMs(frames, (S) => lbsSimd.deform(S), REPS),
    pairedSimd: pairedRatio(
      frames,
      (S) => lbsSimd.deform(S),
      (S) => fullSimd.deform(S),
      REPS,
    ),
  };
  const f = (x: number, d = 2) => x.toFixed(d);
  rows.push([
    name,
    String(n),
    f(ms.full),
    f(ms.fullSimd, 3),
    f(ms.full / ms.fullSimd, 1),
    f(ms.compact),
    f(ms.compactSimd, 3),
    f(ms.compact / ms.compactSimd, 1),
    f(ms.lbsSimd, 3),
    f(ms.pairedSimd, 2),
    f(ms.lbs / ms.lbsSimd, 1),
  ]);
  console.error(`${name}: done`);
}
const head = [
  'asset',
  'vertices',
  'DDM JS ms',
  'DDM SIMD ms',
  'JS/SIMD',
  'compact JS ms',
  'compact SIMD ms',
  'JS/SIMD',
  'LBS SIMD ms',
  'DDM SIMD/LBS SIMD (paired)',
  'LBS JS/SIMD',
];
printTable(head, rows);
console.log('\nmedians of one frame (positions + normals); ratios from the same run');
