/**
 * Direct Delta Mush on the WebAssembly SIMD kernels (Binh Huy Le and J. P. Lewis, "Direct Delta
 * Mush Skinning and Variants", ACM TOG 38(4), SIGGRAPH 2019, Alg. 1): the memory layout and
 * driver of the `ddm` kernel (asm/ddm.ts) — the JavaScript deformer's steps (`deformer.ts`) in
 * 32-bit floats, Q's columns one 128-bit register each, the polar factor (`polar.ts`'s fixed
 * steps) four vertices at a time, one per lane.
 *
 * @module
 */
import { CorskinError } from '../../core/errors.js';
import { mat4LinearDeterminant } from '../../core/math.js';
import type { SkinnedMesh } from '../../core/mesh.js';
import { checkDeformArgs, skinningArray, type DeformTarget } from '../../deformers/contract.js';
import { instantiateKernels, kernelLayout } from '../../wasm/instance.js';
import type { SimdDeformer } from '../../wasm/simd-skinning.js';
import { ddmModelOf } from './data.js';
import { POLAR_JACOBI_SWEEPS } from './polar.js';

/**
 * Prepares `mesh` for Direct Delta Mush on the SIMD kernels. Inputs in bind space, outputs in
 * the skinning matrices' posed space, asset units; within about 1e-6 of the bounding-box
 * diagonal of the JavaScript deformer (float32 instead of float64).
 * @param mesh bind-space mesh carrying its model (`ddmModelOf`: `prepareMethod('ddm', …)` or
 *   `setDdmModel`); the kernel works on a copy of its arrays and the model's
 * @throws CorskinError when the mesh has no model, the model is for another vertex count or names
 *   more than 65,536 joints, or the runtime has no WebAssembly SIMD
 */
export async function createDdmSimdDeformer(mesh: SkinnedMesh): Promise<SimdDeformer> {
  const model = ddmModelOf(mesh);
  if (!model)
    throw new CorskinError(
      'Direct Delta Mush needs its model on the mesh (computeDirectDeltaMush and setDdmModel, or prepareMethod)',
    );
  const { positions, normals, tangents } = mesh;
  const n = positions.length / 3;
  const { offsets, joints, matrices, weights } = model;
  if (offsets.length !== n + 1)
    throw new CorskinError(`the Direct Delta Mush data is for ${offsets.length - 1} vertices, the mesh has ${n}`);
  const E = offsets[n];
  const compact = model.variant === 'compact';
  let J = 1;
  for (let e = 0; e < E; e++) J = Math.max(J, joints[e] + 1);
  if (J > 65536) throw new CorskinError(`the SIMD kernels take at most 65,536 joints, the model uses ${J}`);

  const layout = kernelLayout();
  const { take } = layout;
  const P = take(12 * n + 4);
  const N = normals ? take(12 * n + 4) : 0;
  const T = tangents ? take(16 * n) : 0;
  const OFF = take(4 * (n + 1));
  const JI = take(2 * E);
  const X = take(4 * matrices.length);
  const WE = compact ? take(4 * E) : 0;
  const M = take(64 * J);
  const SC = take(4 * J);
  const BUF = take(48 * 16);
  const OP = take(12 * n + 16);
  const ON = normals ? take(12 * n + 16) : 0;
  const OT = tangents ? take(16 * n) : 0;
  const { memory, exports: kernels } = await instantiateKernels(layout.size);
  const f32 = new Float32Array(memory.buffer);
  f32.set(positions, P >> 2);
  if (normals) f32.set(normals, N >> 2);
  if (tangents) f32.set(tangents, T >> 2);
  new Uint32Array(memory.buffer).set(offsets, OFF >> 2);
  new Uint16Array(memory.buffer).set(joints.subarray(0, E), JI >> 1);
  f32.set(matrices, X >> 2);
  if (weights && WE) f32.set(weights.subarray(0, E), WE >> 2);

  const output: DeformTarget = {
    positions: f32.subarray(OP >> 2, (OP >> 2) + 3 * n),
    normals: ON ? f32.subarray(ON >> 2, (ON >> 2) + 3 * n) : undefined,
    tangents: OT ? f32.subarray(OT >> 2, (OT >> 2) + 4 * n) : undefined,
  };
  return {
    method: 'ddm',
    output,
    deform(matrices: Float64Array, out?: DeformTarget): void {
      const skinning = skinningArray(matrices);
      checkDeformArgs(mesh, skinning, out ?? output);
      if (skinning.length < 16 * J)
        throw new CorskinError(`${skinning.length / 16} skinning matrices for a model that uses ${J} joints`);
      f32.set(skinning.subarray(0, 16 * J), M >> 2);
      // σ's per-joint uniform scale |det L_j|^(1/3) (deformer.ts)
      for (let j = 0; j < J; j++) f32[(SC >> 2) + j] = Math.cbrt(Math.abs(mat4LinearDeterminant(skinning, 16 * j)));
      kernels.ddm(n, compact ? 1 : 0, POLAR_JACOBI_SWEEPS, P, N, T, OFF, JI, X, WE, M, SC, BUF, OP, ON, OT);
      if (!out) return;
      out.positions.set(output.positions);
      if (output.normals && out.normals) out.normals.set(output.normals);
      if (output.tangents && out.tangents) out.tangents.set(output.tangents);
    },
  };
}
