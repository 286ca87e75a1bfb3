/**
 * Skinning templates on the WebAssembly SIMD kernels (DQS kernel + asm/templates.ts, 32-bit
 * floats) against the JavaScript deformer (64-bit; itself tested in templates*.test.ts): every
 * skin of every shared character with its rig built around its skeleton, at a clip pose and at a
 * stress pose beyond the clips; a mirrored rig; the errors.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { samplePose } from '../src/core/animation.js';
import { CorskinError } from '../src/core/errors.js';
import { boundingBoxDiagonal, type SkinnedMesh } from '../src/core/mesh.js';
import { skinningMatrices } from '../src/core/pose.js';
import { stressPose } from '../src/evaluation/stress-pose.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { prepareMethod } from '../src/methods/index.js';
import { meshTemplateRig } from '../src/methods/templates/data.js';
import { createSimdDeformer } from '../src/wasm/simd-skinning.js';
import { CESIUM_MAN, SHARED } from './helpers/data.js';
import { simdDifferences } from './helpers/simd-compare.js';

const FILES = [
  CESIUM_MAN,
  ...['Fox.glb', 'ShibaInu.gltf', 'Soldier.glb', 'Ybot.glb', 'chicken.glb', 'rpm-avatar.glb', 'skeleton.glb'].map((f) =>
    join(SHARED, 'characters', f),
  ),
];

/** Largest SIMD − JavaScript differences (see simdDifferences) for the templates of `mesh`'s rig. */
async function compare(mesh: SkinnedMesh, deform: ReturnType<typeof prepareMethod>, skinning: Float64Array) {
  return simdDifferences(mesh, deform, await createSimdDeformer(mesh, 'templates'), skinning);
}

describe('skinning templates on the SIMD kernels', () => {
  it('every skin of every shared character, at a clip pose and a stress pose: within 1e-5 of the diagonal, normals within 1e-3', async () => {
    const corrected = new Set<string>();
    for (const file of FILES)
      for (const model of extractSkinnedModels(await readDocument(file), file)) {
        const { mesh, skeleton } = model;
        const deform = prepareMethod('templates', { mesh, skeleton });
        if (meshTemplateRig(mesh)!.limbs.length) corrected.add(file);
        const clip = model.animations[0];
        const poses = [
          skinningMatrices(skeleton, samplePose(skeleton, clip, 0.37 * (clip?.duration ?? 0))),
          skinningMatrices(skeleton, stressPose(skeleton)),
        ];
        for (const S of poses) {
          const e = await compare(mesh, deform, S);
          expect(e.position, `${file} ${model.name}`).toBeLessThan(1e-5); // measured ≤ 3.7e-6 here; ≤ 5.4e-6 at three other clip times
          expect(e.normal, `${file} ${model.name}`).toBeLessThan(1e-3); // measured ≤ 4.7e-5
          expect(e.tangent, `${file} ${model.name}`).toBeLessThan(1e-3);
        }
      }
    // The templates correct DQS on the humanoids and animals (not only DQS everywhere).
    expect(corrected.size).toBeGreaterThanOrEqual(5);
  }, 900_000);

  it('a mirrored rig (every matrix times diag(−1, 1, 1) in posed space): the same deformation, mirrored, as in JavaScript', async () => {
    const file = join(SHARED, 'characters/Fox.glb');
    const [{ mesh, skeleton, animations }] = extractSkinnedModels(await readDocument(file), file);
    const deform = prepareMethod('templates', { mesh, skeleton });
    const S = skinningMatrices(skeleton, samplePose(skeleton, animations[0], 0.5 * animations[0].duration));
    const mirrored = S.map((x, k) => (k % 4 === 0 ? -x : x));
    const e = await compare(mesh, deform, mirrored);
    expect(e.position).toBeLessThan(1e-5);
    // The mirror image of the unmirrored result (not the kernels' DQS of reflected matrices).
    const simd = await createSimdDeformer(mesh, 'templates');
    simd.deform(S);
    const plain = simd.output.positions.slice();
    simd.deform(mirrored);
    const diag = boundingBoxDiagonal(plain);
    let e2 = 0;
    for (let k = 0; k < plain.length; k++)
      e2 = Math.max(e2, Math.abs(simd.output.positions[k] - (k % 3 === 0 ? -plain[k] : plain[k])));
    expect(e2 / diag).toBeLessThan(1e-6);
  });

  it('needs the mesh’s template rig, built for its vertices', async () => {
    const [{ mesh, skeleton }] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
    await expect(createSimdDeformer({ ...mesh, methodData: {} }, 'templates')).rejects.toThrow(
      /template rig.*prepare the method first/,
    );
    prepareMethod('templates', { mesh, skeleton });
    const fewer = { ...mesh, positions: mesh.positions.subarray(0, mesh.positions.length - 3) };
    await expect(createSimdDeformer(fewer, 'templates')).rejects.toThrow(CorskinError);
    await expect(createSimdDeformer(mesh, 'templates', { choices: 'x=y' })).rejects.toThrow(/applied by prepareMethod/);
    await expect(createSimdDeformer(fewer, 'templates')).rejects.toThrow(/built for \d+ vertices, the mesh has \d+/);
  });
});
