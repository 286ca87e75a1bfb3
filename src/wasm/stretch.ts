/**
 * Stretch smooth skinning (Yang & Zhang 2006, "Stretch It") on the WebAssembly SIMD kernels: the
 * memory layout and driver of the `stretch` kernel (asm/stretch.ts) — the JavaScript deformer's
 * steps (`deformers/stretch.ts`: twist compensation, LBS of the influences' maps, collapse
 * compensation) in 32-bit floats.
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';
import type { SkinnedMesh } from '../core/mesh.js';
import { jointQuaternions } from '../deformers/joint-rotations.js';
import { mirrorPosed, unmirroredSkinning } from '../deformers/mirror.js';
import type { StretchOptions, StretchRig } from '../deformers/stretch.js';
import * as wasm from './instance.js';
import type { SimdDeformer } from './simd-skinning.js';

/**
 * Prepares `mesh` for stretch smooth skinning on `rig` on the SIMD kernels. Inputs in bind space,
 * outputs in the skinning matrices' posed space, asset units; within about 1e-6 of the
 * bounding-box diagonal of {@link createStretchDeformer} (float32 instead of float64).
 * @param mesh bind-space mesh; the kernel works on a copy of its arrays
 * @param rig joint positions, bone axes and stretch joints (bind space; see {@link stretchRigFromSkeleton})
 * @throws CorskinError when a vertex's influence or a stretch joint names a joint the rig lacks,
 *   the rig has more than 65,536 joints, or the runtime has no WebAssembly SIMD
 */
export async function createStretchSimdDeformer(
  mesh: SkinnedMesh,
  rig: StretchRig,
  options: StretchOptions = {},
): Promise<SimdDeformer> {
  const twist = options.twistCompensation ?? true;
  const J = rig.jointPositions.length / 3;
  if (J > 65536) throw new CorskinError(`the SIMD kernels take at most 65,536 joints, the rig has ${J}`);
  const { positions, joints, weights, influences: K } = mesh;
  const n = positions.length / 3;
  // Slots of zero weight are never read; their joint is set to 0 so that no index leaves the rig.
  const slots = new Uint16Array(joints.length);
  for (let k = 0; k < joints.length; k++) {
    if (weights[k] === 0) continue;
    if (joints[k] >= J)
      throw new CorskinError(`vertex ${Math.floor(k / K)} is bound to joint ${joints[k]}; the stretch rig has ${J}`);
    slots[k] = joints[k];
  }

  const layout = wasm.kernelLayout();
  const { take } = layout;
  const V = wasm.takeVertexArrays(layout, mesh);
  const { P, N, T, OP, ON, OT } = V;
  const JI = take(2 * K * n);
  const W = take(4 * K * n);
  const M = take(64 * J);
  const Q = take(16 * J);
  const JP = take(16 * J);
  const AX = take(16 * J);
  const CE = take(16 * J);
  const ST = take(4 * J);
  const IMG = take(16 * K);
  const AL = take(4 * K);
  const { memory, exports: kernels } = await wasm.instantiateKernels(layout.size);
  const f32 = new Float32Array(memory.buffer);
  new Uint16Array(memory.buffer).set(slots, JI >> 1);
  f32.set(weights, W >> 2);
  for (let j = 0; j < J; j++) {
    f32.set(rig.jointPositions.subarray(3 * j, 3 * j + 3), (JP >> 2) + 4 * j);
    f32.set(rig.boneAxes.subarray(3 * j, 3 * j + 3), (AX >> 2) + 4 * j);
  }
  const isStretch = new Int32Array(memory.buffer, ST, J);
  rig.stretchJoints.forEach((j, s) => {
    if (!(j >= 0 && j < J)) throw new CorskinError(`stretch joint ${j} out of range 0..${J - 1}`);
    isStretch[j] = s + 1; // the rig's order, which the compensation follows
  });
  const quaternions = new Float64Array(4 * J);

  const JPos = rig.jointPositions;
  let scratch = new Float64Array(16 * J);
  // A mirrored rig: the unmirrored skeleton posed and the result mirrored back, as the JavaScript
  // deformer does (the twists of reflections are not defined); the matrices copied in here.
  return wasm.simdDeformer('stretch', mesh, memory, V, { J, owner: 'a stretch rig', M: 0 }, (matrices, output) => {
    if (scratch.length < matrices.length) scratch = new Float64Array(matrices.length);
    const { skinning: S, mirrored } = unmirroredSkinning(matrices, scratch);
    f32.set(S.subarray(0, 16 * J), M >> 2);
    jointQuaternions(S.subarray(0, 16 * J), quaternions);
    for (let j = 0; j < J; j++) f32.set(quaternions.subarray(4 * j, 4 * j + 4), (Q >> 2) + 4 * j);
    // the stretch joints' posed centres
    for (const j of rig.stretchJoints) {
      const m = 16 * j, x = JPos[3 * j], y = JPos[3 * j + 1], z = JPos[3 * j + 2]; // prettier-ignore
      for (let r = 0; r < 3; r++)
        f32[(CE >> 2) + 4 * j + r] = S[m + r] * x + S[m + 4 + r] * y + S[m + 8 + r] * z + S[m + 12 + r];
    }
    kernels.stretch(n, K, twist ? 1 : 0, P, N, T, JI, W, M, Q, JP, AX, CE, ST, IMG, AL, OP, ON, OT);
    if (mirrored) mirrorPosed(output, n);
  });
}
