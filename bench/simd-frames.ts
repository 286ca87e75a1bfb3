/**
 * Methods per frame — linear blend skinning, dual quaternion skinning (Kavan et al. 2008),
 * spherical blend skinning (Kavan & Žára 2005), log-matrix skinning (Alexa 2002), Delta Mush
 * (Mancewicz et al. 2014, its default parameters), stretch skinning (Yang & Zhang 2006) and
 * skinning templates (Ju et al. 2008, the rig built around the skeleton) — as JavaScript
 * deformers and as WebAssembly SIMD kernels (asm/) on the same mesh and frames in the same run,
 * for the SIMD/JavaScript ratios, and each SIMD time over LBS SIMD's (templates: over DQS
 * SIMD's, the method they correct), paired frame by frame (`pairedRatio`). Medians over 20
 * frames of each asset's first clip × repetitions, positions and normals. CesiumMan subdivided
 * ×3 (157K vertices) is left out by `--quick`. Then the per-vertex two-phase path on CesiumMan
 * with every joint stretched by 1.3 along its bind x axis, µs per vertex: in JavaScript
 * (`deformStretchedVertices`, every vertex) and on the SIMD two-phase kernels (`createSimdDeformer`),
 * for DQS, SBS, LMS and CoR.
 *
 * Run: npm run bench:simd-frames [-- --quick]
 */
import { join } from 'node:path';
import type { SkinnedMesh } from '../src/core/mesh.js';
import type { Deformer } from '../src/deformers/contract.js';
import { deformers } from '../src/deformers/index.js';
import { createStretchDeformer, stretchRigFromSkeleton, type StretchRig } from '../src/deformers/stretch.js';
import { createDeltaMushDeformer } from '../src/methods/dm/deformer.js';
import { prepareMethod } from '../src/methods/index.js';
import type { Skeleton } from '../src/core/skeleton.js';
import { createSimdDeformer } from '../src/wasm/simd-skinning.js';
import { meshTemplateRig } from '../src/methods/templates/data.js';
import { createCageCorrection, templateCageMesh } from '../src/methods/templates/deformer.js';
import { deformStretchedVertices, splitScale } from '../src/deformers/two-phase.js';
import { dqsRigid, dqsRigidVertex } from '../src/deformers/dqs.js';
import { sbsRigid } from '../src/deformers/sbs.js';
import { lmsRigid } from '../src/deformers/lms.js';
import { corRigid, corRigidVertex } from '../src/deformers/cor.js';
import { computeCentersOfRotation } from '../src/cor/precompute.js';
import { benchAsset, DATA, frameMs, pairedRatio, printTable } from './frames.js';

const quick = process.argv.includes('--quick');
const REPS = quick ? 2 : 5;
const METHODS = ['lbs', 'dqs', 'sbs', 'lms', 'dm', 'stretch', 'templates'] as const;

const ASSETS: [string, string, number][] = [
  ['CesiumMan', join(DATA, 'gltf', 'CesiumMan.glb'), 0],
  ['Soldier', join(DATA, 'characters', 'Soldier.glb'), 0],
  ['Ybot', join(DATA, 'characters', 'Ybot.glb'), 0],
  ['rpm-avatar', join(DATA, 'characters', 'rpm-avatar.glb'), 0],
  ...(quick ? [] : ([['CesiumMan ×3', join(DATA, 'gltf', 'CesiumMan.glb'), 3]] as [string, string, number][])),
];

/**
 * The method's JavaScript deformer on `mesh` (Delta Mush prepared with its defaults; stretch on
 * `rig`; the templates' rig built and left on the mesh for the SIMD kernels).
 */
const jsDeformer = (
  method: (typeof METHODS)[number],
  mesh: SkinnedMesh,
  skeleton: Skeleton,
  rig: StretchRig,
): Deformer =>
  method === 'dm'
    ? createDeltaMushDeformer(mesh)
    : method === 'stretch'
      ? createStretchDeformer(rig)
      : method === 'templates'
        ? prepareMethod('templates', { mesh, skeleton })
        : deformers[method];

const rows: string[][] = [];
for (const [name, file, subdivisions] of ASSETS) {
  const { mesh, skeleton, frames, n, out } = await benchAsset(file, subdivisions);
  const rig = stretchRigFromSkeleton(skeleton);
  const row = [name, n.toLocaleString('en-US')];
  const simd: Partial<Record<(typeof METHODS)[number], { deform(S: Float64Array): void }>> = {};
  const ratios: string[] = [];
  for (const method of METHODS) {
    const deform = jsDeformer(method, mesh, skeleton, rig);
    const kernels = (simd[method] = await createSimdDeformer(mesh, method, method === 'stretch' ? { rig } : undefined));
    const js = frameMs(frames, (S) => deform(mesh, S, out), REPS);
    const wasm = frameMs(frames, (S) => kernels.deform(S), REPS);
    row.push(js.toFixed(3), wasm.toFixed(3), (js / wasm).toFixed(1));
    // Over LBS SIMD (templates: DQS SIMD), paired frame by frame (see pairedRatio).
    const base = simd[method === 'templates' ? 'dqs' : 'lbs']!;
    if (method !== 'lbs' && method !== 'dqs')
      ratios.push(
        pairedRatio(
          frames,
          (S) => base.deform(S),
          (S) => kernels.deform(S),
          REPS,
        ).toFixed(1),
      );
  }
  row.push(...ratios);
  rows.push(row);
  console.error(`${name}: done`);
}
const head = [
  'asset',
  'vertices',
  ...METHODS.flatMap((m) => [`${m} JS ms`, `${m} SIMD ms`, 'JS/SIMD']),
  ...METHODS.slice(2).map((m) => `${m}/${m === 'templates' ? 'dqs' : 'lbs'} SIMD`),
];
printTable(head, rows);
console.log(
  '\nmedians of one frame (positions + normals); X/lbs and templates/dqs: the median over frames of the ratio of the two timed one after the other',
);

// Where a templates frame goes (SIMD): DQS of the skin, the cage's correction (posing the template
// cages, Eq. 1–4, and each ring's rotation: JavaScript, the same for any skin size) and what is
// left (DQS of the cage, the corrective blend kernel over the bound vertices): the correction and
// the blend are over DQS's time whatever the skin.
{
  const rows: string[][] = [];
  for (const [name, file] of ASSETS.filter(([, , s]) => s === 0)) {
    const { mesh, skeleton, frames } = await benchAsset(file, 0);
    prepareMethod('templates', { mesh, skeleton });
    const rig = meshTemplateRig(mesh)!;
    const dqs = await createSimdDeformer(mesh, 'dqs');
    const templates = await createSimdDeformer(mesh, 'templates');
    const cage = await createSimdDeformer(templateCageMesh(rig), 'dqs');
    const correction = createCageCorrection(rig, (S, out) => (cage.deform(S), out.set(cage.output.positions)));
    const [d, c, t] = [(S: Float64Array) => dqs.deform(S), (S: Float64Array) => correction.update(S), (S: Float64Array) => templates.deform(S)].map((f) => frameMs(frames, f, REPS)); // prettier-ignore
    rows.push([name, String(rig.cage.positions.length / 3), d.toFixed(3), c.toFixed(3), Math.max(0, t - d - c).toFixed(3), t.toFixed(3), (t / d).toFixed(1), ((t - c) / d).toFixed(1)]); // prettier-ignore
  }
  if (rows.length) {
    console.log(
      '\nskinning templates SIMD per frame, ms (medians): the correction is JavaScript; "without it" is the time over DQS the rest takes',
    );
    printTable(
      ['asset', 'cage vertices', 'DQS', 'correction', 'cage DQS + blend', 'templates', '/DQS', 'without it /DQS'],
      rows,
    );
  }
}

// The per-vertex two-phase path: every joint stretched, every vertex through it.
{
  const { mesh, frames, n, out } = await benchAsset(join(DATA, 'gltf', 'CesiumMan.glb'), 0);
  mesh.centersOfRotation = computeCentersOfRotation(mesh).centers;
  const stretched = frames.map((S) => S.map((x, k) => (k % 16 < 3 ? 1.3 * x : x)));
  const row = ['CesiumMan', n.toLocaleString('en-US')];
  const perVertex = (ms: number) => ((1000 * ms) / n).toFixed(2);
  for (const [rigid, center, rigidVertex] of [
    [dqsRigid, 'vertex', dqsRigidVertex],
    [sbsRigid, 'vertex', undefined],
    [lmsRigid, 'vertex', undefined],
    [corRigid, 'cor', corRigidVertex],
  ] as const) {
    const ms = frameMs(
      stretched,
      (S) => deformStretchedVertices(mesh, S, splitScale(S)!, out, rigid, center, 'all', rigidVertex),
      REPS,
    );
    row.push(perVertex(ms));
  }
  for (const method of ['dqs', 'sbs', 'lms', 'cor'] as const) {
    const simd = await createSimdDeformer(mesh, method);
    row.push(perVertex(frameMs(stretched, (S) => simd.deform(S), REPS)));
  }
  console.log('\ntwo-phase skinning, every vertex on the per-vertex path, µs per vertex (median frame)');
  printTable(
    ['asset', 'vertices', 'dqs JS', 'sbs JS', 'lms JS', 'cor JS', 'dqs SIMD', 'sbs SIMD', 'lms SIMD', 'cor SIMD'],
    [row],
  );
}
