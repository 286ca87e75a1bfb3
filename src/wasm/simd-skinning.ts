/**
 * CPU skinning with WebAssembly SIMD: LBS, DQS, SBS, LMS and CoR kernels (asm/kernels.ts) on
 * one mesh, prepared once; stretch skinning's (`stretch.ts`, asm/stretch.ts) with its rig; a
 * method module's kernel (Direct Delta Mush: `methods/ddm/simd.ts`, asm/ddm.ts; Delta Mush:
 * `methods/dm/simd.ts`, asm/dm.ts; skinning templates: `methods/templates/simd.ts`, the DQS
 * kernel and asm/templates.ts) through its module's `simd`. The same equations as the
 * JavaScript deformers (`src/deformers`) in 32-bit floats, 4 lanes per operation: a vertex's
 * position, normal and matrix columns are one 128-bit register each (the two-phase kernels of
 * SBS and LMS form their positions in f64, asm/two-phase.ts).
 *
 * Memory: one WebAssembly.Memory per prepared mesh, holding the bind-space data (positions,
 * normals, tangents, centers of rotation as 4 floats each; influences packed per vertex:
 * distinct joints, non-zero weights), the per-frame joint data and the outputs. Nothing is
 * allocated per frame but the joint data's small arrays (and, for joints that stretch, the
 * rotation/stretch split of `splitScale`). Works in Node and in browsers (WebAssembly SIMD: Node ≥ 16.4, Chrome
 * 91, Firefox 89, Safari 16.4).
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';
import { jointsUsed, type SkinnedMesh } from '../core/mesh.js';
import type { DeformTarget } from '../deformers/contract.js';
import { jointQuaternions } from '../deformers/joint-rotations.js';
import { SIMD_METHODS, type SimdMethodId } from '../deformers/registry.js';
import type { StretchRig } from '../deformers/stretch.js';
import { commonScale, splitScale, uniformScale, type ScaleSplit } from '../deformers/two-phase.js';
import { mirrorPosed, unmirroredSkinning } from '../deformers/mirror.js';
import { createStretchSimdDeformer } from './stretch.js';
import { methodModule } from '../methods/index.js';
import { jointDualQuaternions } from '../deformers/dqs.js';
import { lmsPairs, writePairLogarithms, writePairTwists } from './lms-pairs.js';
import * as wasm from './instance.js';
import {
  runKernelRange,
  type KernelExports,
  type SkinningKernelCall,
  type SkinningKernelMethod,
} from './kernel-range.js';

/** Methods with a SIMD kernel: the registry's methods with `simd: true` ({@link SIMD_METHODS}). */
export type SimdSkinningMethod = SimdMethodId;

/** A mesh prepared for one skinning method on the SIMD kernels. */
export interface SimdDeformer {
  /** The skinning method the deformer runs. */
  readonly method: SimdSkinningMethod;
  /**
   * The posed arrays of the last {@link SimdDeformer.deform}, as views of the kernels' memory
   * (no copy: upload them, or read them, before the next call): positions (3·n), normals (3·n)
   * and tangents (4·n) when the mesh has them. Valid for the deformer's lifetime.
   */
  readonly output: DeformTarget;
  /**
   * Deforms the prepared mesh into {@link SimdDeformer.output}, and with `out` also copies the
   * result there (the shared deformer contract of `src/deformers`). Skinning matrices that all
   * carry one uniform scale (a rig under a scaled node) run on the kernels, divided by it; for
   * any other scale, shear or reflection, the vertices bound to such joints take the per-vertex
   * two-phase path (as `deformTwoPhase` in JavaScript) on their method's two-phase kernel
   * (`asm/two-phase.ts`); the others stay on the kernels.
   * @param skinning skinning matrices, 4×4 column-major, length ≥ 16·J (bind → posed space)
   * @throws CorskinError when `skinning` has fewer joints than the mesh uses, or `out` is too small
   */
  deform(skinning: Float64Array, out?: DeformTarget): void;
}

/**
 * Prepares `mesh` for `method` on the WebAssembly SIMD kernels: 'lbs' is linear blend skinning
 * (Magnenat-Thalmann et al. 1988), 'dqs' dual quaternion skinning (Kavan et al. 2008), 'cor' skinning with optimized
 * centers of rotation (Le & Hodgins 2016, Algorithm 1: QLERP rotation, t = LBS(p*) − R p*), 'sbs'
 * spherical blend skinning (Kavan & Žára 2005: QLERP rotation about a center solved per vertex
 * from its influences' transforms, in double precision), 'lms' log-matrix skinning (Alexa 2002:
 * the exponential of the blended se(3) twists, relative to each vertex's pivot), and a
 * method module's kernel (its `simd` hook: Direct Delta Mush, Le & Lewis 2019, on the mesh with
 * its model, see `createDdmSimdDeformer`; Delta Mush, Mancewicz et al. 2014, prepared from the
 * mesh with `parameters`, see `createDeltaMushSimdDeformer`; skinning templates, Ju et al. 2008,
 * with the template rig `prepareMethod` left on the mesh, see `createTemplateSimdDeformer`). Inputs are in bind space, outputs in the skinning matrices' posed
 * space, both in asset units.
 * @param mesh bind-space mesh; for 'cor' it must carry `centersOfRotation` (3·n, bind space).
 *   Up to 255 influences per vertex. The kernels work on a copy of its arrays. A vertex with no
 *   non-zero weight follows joint 0 rigidly ('dm' and 'stretch': it goes to the origin, as in
 *   their JavaScript deformers).
 * @param parameters the method module's parameters, as its `prepare` takes them (Delta Mush's
 *   iterations, step, …; defaults where absent); for 'stretch' (Yang & Zhang 2006, see
 *   `createStretchSimdDeformer`) its `rig` (`stretchRigFromSkeleton`) and `twistCompensation`
 * @throws CorskinError when 'cor' has no centers of rotation, 'stretch' no rig, a method module's mesh lacks its
 *   data (Direct Delta Mush's model), or the runtime has no WebAssembly SIMD
 */
export async function createSimdDeformer(
  mesh: SkinnedMesh,
  method: SimdSkinningMethod,
  parameters?: Record<string, unknown>,
): Promise<SimdDeformer> {
  if (!(SIMD_METHODS as readonly string[]).includes(method)) {
    throw new CorskinError(`no SIMD kernel for skinning method "${method}" (expected ${SIMD_METHODS.join(', ')})`);
  }
  // A method module's kernel lives with its method.
  const module = methodModule(method);
  if (module?.simd) return module.simd(mesh, parameters);
  if (method === 'stretch') {
    const rig = parameters?.rig as StretchRig | undefined;
    if (!rig)
      throw new CorskinError(
        "stretch skinning needs its rig: createSimdDeformer(mesh, 'stretch', { rig: stretchRigFromSkeleton(skeleton) })",
      );
    const twistCompensation = parameters?.twistCompensation;
    if (twistCompensation !== undefined && typeof twistCompensation !== 'boolean')
      throw new CorskinError(`twistCompensation must be true or false, got ${JSON.stringify(twistCompensation)}`);
    return createStretchSimdDeformer(mesh, rig, { twistCompensation });
  }
  const kernels = await createSkinningKernels(mesh, method as SkinningKernelMethod, () => undefined);
  return wasm.simdDeformer(
    method,
    mesh,
    kernels.memory,
    kernels.at,
    { J: kernels.J, owner: 'a mesh', M: 0 },
    kernels.run,
  );
}

/**
 * Packs a mesh's influences as asm/kernels.ts reads them: K slots per vertex (K = the mesh's
 * influences), of which `counts[i]` are used — distinct joints, the pivot of the quaternion signs
 * first (the largest weight, ties to the smaller joint index, as in every corskin kernel), then
 * the mesh's order; weights of repeated joints summed, zero weights dropped; a vertex with one
 * joint (or none) gets weight exactly 1 on it (it moves rigidly).
 * @param joints out: K·n joint indices (zeroed by the caller)
 * @param weights out: K·n weights (zeroed by the caller)
 * @param counts out: n used slot counts
 */
export function packInfluences(
  mesh: SkinnedMesh,
  joints: Uint16Array,
  weights: Float32Array,
  counts: Uint8Array,
): void {
  const { joints: mj, weights: mw, influences: K } = mesh;
  const n = mesh.positions.length / 3;
  for (let i = 0; i < n; i++) {
    const o = K * i;
    let pivot = -1;
    for (let k = o; k < o + K; k++) {
      const w = mw[k];
      if (w > 0 && (pivot < 0 || w > mw[pivot] || (w === mw[pivot] && mj[k] < mj[pivot]))) pivot = k;
    }
    let c = 0;
    for (let r = -1; r < K; r++) {
      const k = r < 0 ? pivot : o + r;
      if (k < 0 || (r >= 0 && k === pivot)) continue;
      const w = mw[k];
      if (w === 0) continue;
      let m = 0;
      while (m < c && joints[o + m] !== mj[k]) m++;
      if (m === c) {
        joints[o + c] = mj[k];
        weights[o + c++] = w;
      } else weights[o + m] += w;
    }
    if (c <= 1) {
      weights[o] = 1;
      c = 1;
    }
    counts[i] = c;
  }
}

export type { SkinningKernelMethod } from './kernel-range.js';

/** {@link createSkinningKernels}' result: a prepared mesh on one of asm/kernels.ts' kernels. */
export interface SkinningKernels<Extra> {
  /** The kernels' memory (see `instantiateKernels`). */
  memory: WebAssembly.Memory;
  /** The compiled module. */
  module: WebAssembly.Module;
  /** Every kernel of the module by name (functions taking byte offsets in `memory`). */
  exports: KernelExports;
  /** The mesh's kernel and where its arrays are (what worker threads run it on). */
  call: SkinningKernelCall;
  /** Where the mesh's vertex arrays and the posed ones are in it. */
  at: wasm.VertexArrays;
  /** The joints the mesh uses (1 + its largest joint of non-zero weight). */
  J: number;
  /** What the caller took room for. */
  extra: Extra;
  /**
   * Deforms the mesh by the skinning matrices (16·J or more, checked by the caller) into
   * `output` (the posed arrays in the memory, {@link vertexArrays}): the frame's joint data into
   * the memory, then `kernels(s)` — by default the kernel on every vertex, positions times s
   * ({@link runKernelRange}) — then, where joints stretch, the two-phase kernel on this thread.
   */
  run(skinning: Float64Array, output: DeformTarget, kernels?: (s: number) => void): void;
}

/**
 * Lays out and fills a kernel memory for `mesh` on `method`'s kernel of asm/kernels.ts, with room
 * for what `more` takes (a method that builds on one of them, as the skinning templates on DQS).
 * @param sharedBinary as `instantiateKernels`' (a shared memory, for worker threads)
 * @throws CorskinError as {@link createSimdDeformer}
 */
export async function createSkinningKernels<Extra>(
  mesh: SkinnedMesh,
  method: SkinningKernelMethod,
  more: (take: (bytes: number) => number) => Extra,
  sharedBinary?: Parameters<typeof wasm.instantiateKernels>[1],
): Promise<SkinningKernels<Extra>> {
  const { positions, influences: K } = mesh;
  const n = positions.length / 3;
  const C = mesh.centersOfRotation;
  if (method === 'cor' && (!C || C.length !== 3 * n)) {
    throw new CorskinError('CoR skinning needs centers of rotation (run the CoR precomputation first)');
  }
  if (K > 255) throw new CorskinError(`the SIMD kernels take at most 255 influences per vertex, got ${K}`);
  const J = Math.max(1, jointsUsed(mesh));
  if (J > 65536) throw new CorskinError(`the SIMD kernels take at most 65,536 joints, the mesh uses ${J}`);

  const layout = wasm.kernelLayout();
  const take = layout.take;
  const V = wasm.takeVertexArrays(layout, mesh);
  const { P, N, T, OP, ON, OT } = V;
  const Cp = method === 'cor' ? take(12 * n + 4) : 0;
  const packed = { joints: new Uint16Array(K * n), weights: new Float32Array(K * n), counts: new Uint8Array(n) };
  packInfluences(mesh, packed.joints, packed.weights, packed.counts);
  const JI = take(2 * K * n);
  const W = take(4 * K * n);
  const CNT = take(n);
  const M = take(64 * J);
  // LMS: its (pivot, joint) pairs, each slot's pair, and per frame each pair's logarithm.
  const pairs = method === 'lms' ? lmsPairs(packed.joints, packed.counts, K) : undefined;
  const PR = pairs ? take(4 * K * n) : 0;
  const Q = pairs ? take(32 * pairs.pivot.length) : method === 'dqs' ? take(32 * J) : method === 'lbs' ? 0 : take(16 * J); // prettier-ignore
  // The two-phase kernels (asm/two-phase.ts): per joint its rotation (DQS, CoR) and stretch, and
  // whether it is rigid.
  const twoPhase = method !== 'lbs';
  const QK = twoPhase ? take(64 * J) : 0;
  // In f64: SBS's rotations (quaternion and matrix), LMS's rotation matrices and its pairs'
  // logarithms with their V⁻¹ coefficients.
  const RM = method === 'sbs' || method === 'lms' ? take(128 * J) : 0;
  const PL = pairs ? take(32 * pairs.pivot.length) : 0;
  const RIGID = twoPhase ? take(J) : 0;
  const extra = more(take);
  const { memory, module, exports } = await wasm.instantiateKernels(layout.size, sharedBinary);
  const call: SkinningKernelCall = { method, n, K, P, N, T, C: Cp, JI, W, CNT, M, Q, PR, OP, ON, OT };
  const f32 = new Float32Array(memory.buffer);
  const u8 = new Uint8Array(memory.buffer);
  const f64 = new Float64Array(memory.buffer);
  if (C && Cp) f32.set(C, Cp >> 2);
  new Uint16Array(memory.buffer).set(packed.joints, JI >> 1);
  f32.set(packed.weights, W >> 2);
  u8.set(packed.counts, CNT);
  if (pairs) new Uint32Array(memory.buffer).set(pairs.slotPair, PR >> 2);

  // LMS's per-frame scratch: the matrices' quaternions and one pair's twist.
  const lmsScratch = { rotations: new Float64Array(pairs ? 4 * J : 0), twist: new Float64Array(6) };
  const jointData = f32.subarray(Q >> 2, (Q >> 2) + (pairs ? 8 * pairs.pivot.length : (method === 'dqs' ? 8 : 4) * J)); // prettier-ignore
  // The matrices go in below (divided by a uniform scale where there is one).
  const all = (s: number) => runKernelRange(exports, call, 0, n, s, 0, f32);
  // LMS and SBS of a mirrored rig: the unmirrored skeleton posed and the result mirrored back, as
  // their JavaScript deformers do (deformers/mirror.ts).
  const unmirrors = method === 'lms' || method === 'sbs';
  let scratch = new Float64Array(0);
  const run = (matrices: Float64Array, output: DeformTarget, kernels = all): void => {
    if (unmirrors && scratch.length < matrices.length) scratch = new Float64Array(matrices.length);
    const { skinning, mirrored } = unmirrors ? unmirroredSkinning(matrices, scratch) : { skinning: matrices, mirrored: false }; // prettier-ignore
    pose(skinning, kernels);
    if (mirrored) mirrorPosed({ positions: output.positions, normals: call.N ? output.normals : undefined, tangents: call.T ? output.tangents : undefined }, n); // prettier-ignore
  };
  /** The kernels for `skinning` (see run). */
  const pose = (skinning: Float64Array, kernels: typeof all): void => {
    // A rig under one uniformly scaled node: the kernels on the matrices divided by s, the
    // positions times s (exact, see uniformScale; commonScale finds it without the split, the
    // split's uniformScale where commonScale's test, about a different reference, does not).
    // Other scale, shear or reflection: the kernels for the vertices bound to rigid joints only,
    // the method's two-phase kernel for the others — as deformRigidOrTwoPhase in JavaScript.
    let s = method === 'lbs' ? 1 : commonScale(skinning);
    const split = s ? null : splitScale(skinning)!;
    if (split) s = uniformScale(split);
    if (split && !s) {
      if (split.rigidJoints.includes(1)) runKernels(skinning, 1, kernels);
      else storeMatrices(skinning); // every vertex takes the two-phase kernel
      stretchedKernel(split);
    } else runKernels(skinning, s, kernels);
  };
  return { memory, module, exports, call, at: V, J, extra, run };

  /** The frame's data for the matrices divided by s, then `kernels(s)` (the posed positions times s). */
  function runKernels(skinning: Float64Array, s: number, kernels: (s: number) => void): void {
    const S = s === 1 ? skinning : skinning.map((x, k) => (k % 16 === 15 ? x : x / s));
    storeMatrices(S);
    if (method === 'cor' || method === 'sbs') jointQuaternions(S.subarray(0, 16 * J), jointData);
    else if (method === 'dqs') jointDualQuaternions(S.subarray(0, 16 * J), jointData);
    else if (pairs) writePairTwists(pairs, S, jointQuaternions(S.subarray(0, 16 * J), lmsScratch.rotations), jointData, lmsScratch.twist); // prettier-ignore
    kernels(s);
  }

  /** The frame's first J skinning matrices into the memory (f32, at M). */
  function storeMatrices(S: Float64Array): void {
    for (let j = 0; j < 16 * J; j++) f32[(M >> 2) + j] = S[j];
  }

  /**
   * The method's two-phase kernel on this thread for the vertices bound to a joint that
   * stretches (the frame's matrices already in the memory, the others already posed).
   */
  function stretchedKernel(split: ScaleSplit): void {
    const { rotations, stretch, rigidJoints } = split;
    for (let j = 0; j < J; j++) {
      const g = (QK >> 2) + 16 * j;
      const h = (RM >> 3) + 16 * j;
      if (method === 'dqs' || method === 'cor') for (let e = 0; e < 4; e++) f32[g + e] = rotations[4 * j + e];
      else if (method === 'sbs') {
        f64.set(rotations.subarray(4 * j, 4 * j + 4), h);
        f64.set(split.rotationMatrices.subarray(9 * j, 9 * j + 9), h + 4);
      } else for (let e = 0; e < 9; e++) f64[h + e] = split.rotationMatrices[9 * j + e]; // LMS
      // K_j's columns; their padding lanes 0 (the kernels' 4-lane sums read them).
      for (let c = 0; c < 3; c++) for (let r = 0; r < 4; r++) f32[g + 4 + 4 * c + r] = r < 3 ? stretch[9 * j + 3 * c + r] : 0; // prettier-ignore
    }
    u8.set(rigidJoints.subarray(0, J), RIGID);
    const { P, N, T, C, JI, W, CNT, M, OP, ON, OT } = call;
    if (method === 'cor') exports.corStretched(n, K, P, N, T, C, JI, W, CNT, M, QK, RIGID, OP, ON, OT);
    else if (method === 'sbs') exports.sbsStretched(n, K, P, N, T, JI, W, CNT, M, QK, RM, RIGID, OP, ON, OT);
    else if (pairs) {
      writePairLogarithms(pairs, rotations, f64, PL >> 3);
      exports.lmsStretched(n, K, P, N, T, JI, W, CNT, M, QK, RM, PL, PR, RIGID, OP, ON, OT);
    } else exports.dqsStretched(n, K, P, N, T, JI, W, CNT, M, QK, RIGID, OP, ON, OT);
  }
}
