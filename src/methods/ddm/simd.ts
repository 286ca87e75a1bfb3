/**
 * Direct Delta Mush on the WebAssembly SIMD kernels (Binh Huy Le and J. P. Lewis, "Direct Delta
 * Mush Skinning and Variants", ACM TOG 38(4), SIGGRAPH 2019, Alg. 1): the memory layout and
 * driver of the `ddm` kernel (asm/ddm.ts) — the JavaScript deformer's steps (`deformer.ts`) in
 * 32-bit floats, Q's columns one 128-bit register each, the polar factor four vertices at a time,
 * one per lane, by Higham's scaled Newton iteration; where S is too near singular or rank 1 for
 * it, the vertex by the JavaScript deformer's own steps in 64-bit floats.
 *
 * @module
 */
import { CorskinError } from '../../core/errors.js';
import type { SkinnedMesh } from '../../core/mesh.js';
import * as wasm from '../../wasm/instance.js';
import type { SimdDeformer } from '../../wasm/simd-skinning.js';
import { ddmModelOf } from './data.js';

/**
 * The kernel's scratch: two batches of four vertices, 34 slots of 16 bytes each, the group's
 * eight vertices staged, 6 vectors of 16 bytes each, and the float64 path's 51 doubles (asm/ddm.ts,
 * whose `ddmScratchBytes` is checked against it).
 */
const SCRATCH_BYTES = 2 * 34 * 16 + 8 * 6 * 16 + 51 * 8;

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
  const { positions } = mesh;
  const n = positions.length / 3;
  const { offsets, joints, matrices, weights } = model;
  if (offsets.length !== n + 1)
    throw new CorskinError(`the Direct Delta Mush data is for ${offsets.length - 1} vertices, the mesh has ${n}`);
  const E = offsets[n];
  const compact = model.variant === 'compact';
  let J = 1;
  for (let e = 0; e < E; e++) J = Math.max(J, joints[e] + 1);
  if (J > 65536) throw new CorskinError(`the SIMD kernels take at most 65,536 joints, the model uses ${J}`);

  const layout = wasm.kernelLayout();
  const { take } = layout;
  const V = wasm.takeVertexArrays(layout, mesh);
  const { P, N, T, OP, ON, OT } = V;
  const OFF = take(4 * (n + 1));
  const JI = take(2 * E);
  const X = take(4 * matrices.length);
  const WE = compact ? take(4 * E) : 0;
  const M = take(64 * J);
  const SC = take(4 * J);
  const BUF = take(SCRATCH_BYTES);
  const { memory, exports: kernels } = await wasm.instantiateKernels(layout.size);
  const scratch = (kernels.ddmScratchBytes as unknown as () => number)();
  if (scratch > SCRATCH_BYTES)
    throw new Error(`the ddm kernel needs ${scratch} bytes of scratch, ${SCRATCH_BYTES} laid out`); // a build out of step with asm/ddm.ts
  const f32 = new Float32Array(memory.buffer);
  new Uint32Array(memory.buffer).set(offsets, OFF >> 2);
  new Uint16Array(memory.buffer).set(joints.subarray(0, E), JI >> 1);
  f32.set(matrices, X >> 2);
  if (weights && WE) f32.set(weights.subarray(0, E), WE >> 2);

  return wasm.simdDeformer('ddm', mesh, memory, V, { J, owner: 'a model', M }, (skinning) => {
    wasm.storeJointScales(f32, SC, skinning, J, false); // σ's per-joint |det L_j|^(1/3) (deformer.ts)
    kernels.ddm(n, compact ? 1 : 0, P, N, T, OFF, JI, X, WE, M, SC, BUF, OP, ON, OT);
  });
}
