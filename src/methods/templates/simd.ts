/**
 * Skinning templates (Ju, Zhou, van de Panne, Cohen-Or & Neumann, "Reusable Skinning Templates
 * Using Cage-based Deformations", SIGGRAPH Asia 2008) on the WebAssembly SIMD kernels: DQS of the
 * skin and of the cage on the `dqs` kernel, the cage's corrections computed as the JavaScript
 * deformer computes them (`deformer.ts`: the posed template cages, a few hundred vertices, in
 * 64-bit floats), and
 * each bound vertex's corrective dual quaternion blend on the `templates` kernel (asm/templates.ts)
 * in 32-bit floats, in place on DQS's result.
 *
 * @module
 */
import { CorskinError } from '../../core/errors.js';
import type { SkinnedMesh } from '../../core/mesh.js';
import { createSimdDeformer, createSkinningKernels, type SimdDeformer } from '../../wasm/simd-skinning.js';
import { simdDeformer } from '../../wasm/instance.js';
import { meshTemplateRig } from './data.js';
import { mirrorPosed, unmirroredSkinning } from '../../deformers/mirror.js';
import { compactBinding, createCageCorrection, templateCageMesh } from './deformer.js';

/**
 * Prepares skinning templates for `mesh` on the SIMD kernels, with the template rig the mesh
 * carries (read from its file or built by the method's `prepare`, template choices applied).
 * Inputs in bind space, outputs in the skinning matrices' posed space, asset units; within 1e-5
 * of the bounding-box diagonal of {@link createTemplateDeformer} (float32 instead of float64;
 * measured ≤ 5.4e-6 on the shared characters).
 * @param mesh bind-space mesh with its template rig; the kernels work on a copy of its arrays
 * @throws CorskinError when the mesh has no template rig or one built for another vertex count,
 *   or as `createSimdDeformer` for DQS (influences, joints, no WebAssembly SIMD)
 */
export async function createTemplateSimdDeformer(mesh: SkinnedMesh): Promise<SimdDeformer> {
  const rig = meshTemplateRig(mesh);
  if (!rig)
    throw new CorskinError(
      "skinning templates need the mesh's template rig: read a file that stores one, or prepare the method first (prepareMethod('templates', …))",
    );
  const n = mesh.positions.length / 3;
  const { bound, start, cage, weight } = compactBinding(rig, n);
  const m = rig.cage.positions.length / 3;
  // DQS of the cage on the kernels too (its own instance: a few hundred vertices).
  const cageDqs = m ? await createSimdDeformer(templateCageMesh(rig), 'dqs') : undefined;
  const correction = createCageCorrection(rig, cageDqs && ((S, out) => (cageDqs.deform(S), out.set(cageDqs.output.positions))));
  const E = cage.length;
  const nb = bound.length;
  const dqs = await createSkinningKernels(mesh, 'dqs', (take) => ({
    BND: take(4 * nb),
    ST: take(4 * (nb + 1)),
    EN: take(8 * E),
    ID: take(4 * nb),
    DQ: take(32 * m),
  }));
  const { BND, ST, EN, ID, DQ } = dqs.extra;
  const u32 = new Uint32Array(dqs.memory.buffer);
  const f32 = new Float32Array(dqs.memory.buffer);
  u32.set(bound, BND >> 2);
  u32.set(start, ST >> 2);
  for (let b = 0; b < nb; b++) {
    let share = 0;
    for (let e = start[b]; e < start[b + 1]; e++) {
      u32[(EN >> 2) + 2 * e] = cage[e];
      f32[(EN >> 2) + 2 * e + 1] = weight[e];
      share += weight[e];
    }
    f32[(ID >> 2) + b] = Math.max(0, 1 - share);
  }
  const corrections = f32.subarray(DQ >> 2, (DQ >> 2) + 8 * m);
  // The joints the rig poses, besides those the skin uses.
  let J = dqs.J;
  for (const limb of rig.limbs) for (const j of limb.chain) J = Math.max(J, j + 1);
  for (const j of rig.cageSkin.joints) J = Math.max(J, j + 1);
  let scratch = new Float64Array(16 * J);
  const { OP, ON, OT } = dqs.at;
  return simdDeformer('templates', mesh, dqs.memory, dqs.at, { J, owner: 'a template rig', M: 0 }, (matrices, output) => {
    if (scratch.length < matrices.length) scratch = new Float64Array(matrices.length);
    const { skinning, mirrored } = unmirroredSkinning(matrices, scratch);
    dqs.run(skinning, output);
    if (nb) {
      correction.update(skinning);
      corrections.set(correction.dualQuaternions);
      dqs.exports.templates(nb, BND, ST, EN, ID, DQ, OP, ON, OT);
    }
    if (mirrored) mirrorPosed(output, n);
  });
}
