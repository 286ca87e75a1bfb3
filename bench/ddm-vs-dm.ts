/**
 * How closely Direct Delta Mush (Le & Lewis 2019) approximates the Delta Mush it was derived from
 * (Mancewicz et al. 2014; `dm`, Blender's Corrective Smooth defaults: 5 passes of step 0.5,
 * uniform) over the evaluation's pose battery of every shared character: the distance between
 * the two, per vertex, as a fraction of the bounding-box diagonal — with DDM's defaults (libigl's
 * p = 20, λ = 3: far more smoothing) and with a matched smoothing (p = 5, λ = 0.5: one implicit
 * step (I + λL)⁻¹ ≈ one explicit step I − λL), next to LBS's distance from DM.
 *
 * Run: npx tsx bench/ddm-vs-dm.ts (about a minute). Figures: docs/dm.md.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { skinningMatrices } from '../src/core/pose.js';
import { computeDirectDeltaMush } from '../src/methods/ddm/precompute.js';
import type { DdmParameters } from '../src/methods/ddm/parameters.js';
import { deform } from '../src/deformers/index.js';
import { poseBattery } from '../src/evaluation/character.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { createDeltaMushDeformer } from '../src/methods/dm/deformer.js';
import { withDdmModel } from '../src/methods/ddm/data.js';

const SHARED = join(import.meta.dirname, '../../shared/data');
const files = [
  join(import.meta.dirname, '../assets/arm.glb'),
  join(SHARED, 'gltf/CesiumMan.glb'),
  ...readdirSync(join(SHARED, 'characters'))
    .filter((f) => /\.(glb|gltf)$/.test(f))
    .map((f) => join(SHARED, 'characters', f)),
];
const SETTINGS: [string, DdmParameters][] = [
  ['defaults', {}],
  ['matched', { iterations: 5, lambda: 0.5, kappa: 0.25, alpha: 0 }],
];

console.log('| character | DDM defaults – DM: mean, max | DDM matched – DM: mean, max | LBS – DM: mean, max |');
console.log('| --- | --- | --- | --- |');
for (const file of files) {
  const sums = new Map<string, { mean: number; max: number; poses: number }>();
  for (const model of extractSkinnedModels(await readDocument(file), file)) {
    const diagonal = boundingBoxDiagonal(model.mesh.positions);
    const dm = createDeltaMushDeformer(model.mesh);
    const ddm = SETTINGS.map(
      ([name, p]) => [name, withDdmModel(model.mesh, computeDirectDeltaMush(model.mesh, p))] as const,
    );
    for (const { pose } of poseBattery(model.skeleton, model.animations)) {
      const S = skinningMatrices(model.skeleton, pose);
      const reference = { positions: new Float32Array(model.mesh.positions.length) };
      dm(model.mesh, S, reference);
      const others = [
        ...ddm.map(([name, mesh]) => [name, deform('ddm', mesh, S).positions] as const),
        ['lbs', deform('lbs', model.mesh, S).positions] as const,
      ];
      for (const [name, a] of others) {
        let max = 0, sum = 0; // prettier-ignore
        for (let i = 0; i < a.length; i += 3) {
          const d = Math.hypot(
            a[i] - reference.positions[i],
            a[i + 1] - reference.positions[i + 1],
            a[i + 2] - reference.positions[i + 2],
          );
          max = Math.max(max, d);
          sum += d;
        }
        const s = sums.get(name) ?? { mean: 0, max: 0, poses: 0 };
        s.mean += (3 * sum) / a.length / diagonal;
        s.max = Math.max(s.max, max / diagonal);
        s.poses++;
        sums.set(name, s);
      }
    }
  }
  const cell = (name: string) => {
    const s = sums.get(name)!;
    return `${(s.mean / s.poses).toExponential(1)}, ${s.max.toExponential(1)}`;
  };
  console.log(`| ${file.split('/').pop()} | ${cell('defaults')} | ${cell('matched')} | ${cell('lbs')} |`);
}
