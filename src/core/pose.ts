/**
 * Poses and forward kinematics: local joint transforms → global matrices → skinning matrices.
 *
 * @module
 */
import { CorskinError } from './errors.js';
import { mat4FromTRS, mat4LinearDeterminant, mat4Multiply, quatFromAxisAngle, quatMultiply } from './math.js';
import { jointCount, type Skeleton } from './skeleton.js';

/**
 * Local transforms of every joint (relative to the parent, after the pre-transform), J joints.
 * Same layout as the skeleton's rest arrays.
 */
export interface Pose {
  /** Local translations, length 3·J, asset units. */
  translations: Float64Array;
  /** Local rotations as unit quaternions (x, y, z, w), length 4·J. */
  rotations: Float64Array;
  /** Local scales, length 3·J. */
  scales: Float64Array;
}

/** A fresh copy of the skeleton's rest pose (its joints' own transforms; not always the bind pose). */
export function restPose(skeleton: Skeleton): Pose {
  return {
    translations: skeleton.restTranslations.slice(),
    rotations: skeleton.restRotations.slice(),
    scales: skeleton.restScales.slice(),
  };
}

/**
 * Forward kinematics: global (world) matrix of every joint.
 * @param out 4×4 column-major matrices, length 16·J (allocated when omitted)
 * @returns `out`
 */
export function globalMatrices(skeleton: Skeleton, pose: Pose, out?: Float64Array): Float64Array {
  const J = jointCount(skeleton);
  const g = out ?? new Float64Array(16 * J);
  const local = new Float64Array(16);
  const { order, parents, preTransforms } = skeleton;
  for (let n = 0; n < J; n++) {
    const j = order[n];
    mat4FromTRS(local, 0, pose.translations, 3 * j, pose.rotations, 4 * j, pose.scales, 3 * j);
    const p = parents[j];
    mat4Multiply(g, 16 * j, preTransforms, 16 * j, local, 0);
    if (p >= 0) mat4Multiply(g, 16 * j, g, 16 * p, g, 16 * j);
  }
  return g;
}

/**
 * Skinning matrices `S_j = G_j · IBM_j` (bind space → posed space), the per-frame input of every
 * deformer. Checked in one pass over the J matrices: a non-finite matrix would give every vertex
 * it moves a NaN or infinite position. A singular but finite one (a joint scaled to zero, as glTF
 * hides a part) is valid, and every deformer handles it.
 * @param out 4×4 column-major matrices, length 16·J (allocated when omitted)
 * @returns `out`
 * @throws CorskinError naming the joint when a skinning matrix is not finite: a NaN or infinite
 *   value in the pose (the joint's own or an ancestor's), in a pre-transform or inverse bind
 *   matrix, or transforms along the joint's chain that overflow
 */
export function skinningMatrices(skeleton: Skeleton, pose: Pose, out?: Float64Array): Float64Array {
  const g = globalMatrices(skeleton, pose, out);
  const J = jointCount(skeleton);
  for (let j = 0; j < J; j++) mat4Multiply(g, 16 * j, g, 16 * j, skeleton.inverseBindMatrices, 16 * j);
  // x − x is NaN exactly for NaN and ±Infinity: one sum tells whether every entry is finite.
  let check = 0;
  for (let k = 0; k < 16 * J; k++) check += g[k] - g[k];
  if (check !== 0) throw nonFiniteSkinning(skeleton, pose, g);
  return g;
}

/** Why a skinning matrix is not finite: the first such joint (in parent-first order) and the cause. */
function nonFiniteSkinning(skeleton: Skeleton, pose: Pose, g: Float64Array): CorskinError {
  const { order, parents, jointNames, preTransforms, inverseBindMatrices } = skeleton;
  const finite = (a: ArrayLike<number>, o: number, n: number) => {
    for (let k = o; k < o + n; k++) if (!Number.isFinite(a[k])) return false;
    return true;
  };
  const name = (j: number) => `"${jointNames[j] || `joint ${j}`}"`;
  /** What is not finite in joint j's own data, or undefined. */
  const own = (j: number): string | undefined => {
    if (!finite(pose.translations, 3 * j, 3)) return 'translation';
    if (!finite(pose.rotations, 4 * j, 4)) return 'rotation';
    if (!finite(pose.scales, 3 * j, 3)) return 'scale';
    if (!finite(preTransforms, 16 * j, 16)) return 'pre-transform (the nodes between it and its parent joint)';
    return undefined;
  };
  for (const j of order) {
    if (finite(g, 16 * j, 16)) continue;
    // The cause nearest the root: the joint's own data, or an ancestor's (root first).
    let reason: string | undefined;
    const chain: number[] = [];
    for (let a = j; a >= 0; a = parents[a]) chain.push(a);
    for (let k = chain.length - 1; k >= 0 && reason === undefined; k--) {
      const what = own(chain[k]);
      if (what !== undefined)
        reason = k === 0 ? `its ${what} is not finite` : `the ${what} of its ancestor ${name(chain[k])} is not finite`;
    }
    reason ??= finite(inverseBindMatrices, 16 * j, 16)
      ? 'the transforms along its chain overflow'
      : 'its inverse bind matrix is not finite';
    return new CorskinError(`the pose gives joint ${name(j)} a non-finite skinning matrix (${reason})`);
  }
  return new CorskinError('the pose gives a joint a non-finite skinning matrix');
}

/**
 * Skinning matrices of the bind pose: every joint where its inverse bind matrix puts it, so every
 * skinning matrix is the identity and the bind-space mesh is the result. (The *rest* pose — the
 * joints' node transforms, {@link restPose} — often differs from it in real files.)
 * @returns 16·J numbers
 */
export function bindPoseSkinningMatrices(skeleton: Skeleton): Float64Array {
  const J = jointCount(skeleton);
  const out = new Float64Array(16 * J);
  for (let j = 0; j < J; j++) out[16 * j] = out[16 * j + 5] = out[16 * j + 10] = out[16 * j + 15] = 1;
  return out;
}

/**
 * Rotates joint `joint` of `pose` (in place) by `angle` radians about a world-space `axis`
 * through the joint's own position: its subtree follows rigidly (forward kinematics). This is
 * how the standard test poses (twist about a bone's axis, bend about a world axis) are made.
 * @param axis world-space direction (need not be unit length)
 * @throws CorskinError when the joint is not an index of the skeleton, the axis has zero or
 *   non-finite length, or the angle is not finite
 */
export function rotateJointWorld(
  skeleton: Skeleton,
  pose: Pose,
  joint: number,
  axis: ArrayLike<number>,
  angle: number,
): void {
  const J = jointCount(skeleton);
  if (!(Number.isInteger(joint) && joint >= 0 && joint < J))
    throw new CorskinError(`joint index ${joint} is not a whole number in 0..${J - 1}`);
  const length = Math.hypot(axis[0], axis[1], axis[2]);
  if (!(length > 0 && Number.isFinite(length))) throw new CorskinError(`rotation axis must have a finite, non-zero length, got ${length}`); // prettier-ignore
  if (!Number.isFinite(angle))
    throw new CorskinError(`rotation angle must be a finite number of radians, got ${angle}`);
  // The joint's local rotation acts in the frame F = G_parent · P_joint; the world axis seen in
  // that frame is F⁻¹·axis (linear part; exact for rotations and uniform scale). A frame that
  // reflects (an armature under a mirroring node) turns a local rotation by θ into a world one
  // by −θ (F R(b, θ) F⁻¹ = R(F b, −θ) for a reflection F), so the angle is negated there.
  const g = globalMatrices(skeleton, pose);
  const frame = skeleton.preTransforms.slice(16 * joint, 16 * joint + 16);
  const p = skeleton.parents[joint];
  if (p >= 0) mat4Multiply(frame, 0, g, 16 * p, frame, 0);
  const inv = solve3(frame, axis);
  const q = new Float64Array(4);
  quatFromAxisAngle(q, 0, inv[0], inv[1], inv[2], mat4LinearDeterminant(frame, 0) < 0 ? -angle : angle);
  quatMultiply(pose.rotations, 4 * joint, q, 0, pose.rotations, 4 * joint);
}

/** Solves `M₃ x = b` for the upper-left 3×3 of a column-major 4×4 `M` (Cramer's rule). */
function solve3(m: Float64Array, b: ArrayLike<number>): number[] {
  const [a, d, g, , bb, e, h, , c, f, i] = m;
  const det = a * (e * i - f * h) - bb * (d * i - f * g) + c * (d * h - e * g);
  if (!det) throw new CorskinError('joint frame is singular (zero scale)');
  const [x, y, z] = [b[0], b[1], b[2]];
  return [
    (x * (e * i - f * h) - bb * (y * i - f * z) + c * (y * h - e * z)) / det,
    (a * (y * i - f * z) - x * (d * i - f * g) + c * (d * z - y * g)) / det,
    (a * (e * z - y * h) - bb * (d * z - y * g) + x * (d * h - e * g)) / det,
  ];
}

/**
 * Skinning matrices of `pose` (16·J, column-major, bind space → posed space, asset units) posed
 * about the first joint where the character lies far from the origin: `skinningMatrices`, then
 * moved by {@link farShift}'s translation where there is one. The shape is the same (every method
 * moves with a rigid motion of the whole skeleton, weights summing to 1), the positions resolved
 * by 32-bit floats as near the origin. The bake samples this way (CesiumMan animated 10,000 units
 * from the origin was otherwise sampled to about 3e-4 of its diagonal, and its morph targets
 * stored that rounding; helper keys are relative to their joints and the corrections lie in bind
 * space, so neither sees the move), as does the character evaluation. Near the origin nothing
 * moves (bit for bit as `skinningMatrices`).
 * @param extent the mesh's size (its bind-space bounding-box diagonal), the same for every
 *   skeleton compared at one pose
 */
export function nearOriginSkinningMatrices(skeleton: Skeleton, pose: Pose, extent: number): Float64Array {
  const S = skinningMatrices(skeleton, pose);
  return shiftSkinning(S, farShift(S, extent));
}

/**
 * Where posed positions would lose their precision in 32-bit floats, the move that brings them back near the origin, for skinning matrices `S` (16·J): the first joint's
 * image of the bind-space origin, where that is more than {@link FAR_FROM_ORIGIN} times the mesh's
 * posed size from the origin — `extent` (bind space) times the first joint's largest scale, for a
 * mesh stored in other units than it plays in (the chicken: centimetres under a 0.01 root); else
 * undefined (no move). Every method moves with a rigid motion of the whole skeleton (weights
 * summing to 1), so posing with {@link shiftSkinning}`(S, shift)` and adding `shift` back in 64-bit
 * floats gives the same pose, resolved finely (`corskin bake` samples this way, `corskin deform`
 * writes the shift as its node's translation, the character evaluation measures about it). A
 * comparison of two skeletons at one pose takes the first's move for both.
 */
export function farShift(S: Float64Array, extent: number): [number, number, number] | undefined {
  const [x, y, z] = [S[12], S[13], S[14]];
  const scale = Math.max(Math.hypot(S[0], S[1], S[2]), Math.hypot(S[4], S[5], S[6]), Math.hypot(S[8], S[9], S[10]));
  return Math.hypot(x, y, z) > FAR_FROM_ORIGIN * extent * scale ? [x, y, z] : undefined;
}

/** Skinning matrices `S` (16·J) moved by −`shift` in posed space, in place (none: as they are). */
export function shiftSkinning(S: Float64Array, shift: readonly number[] | undefined): Float64Array {
  if (!shift) return S;
  for (let o = 0; o < S.length; o += 16) {
    S[o + 12] -= shift[0];
    S[o + 13] -= shift[1];
    S[o + 14] -= shift[2];
  }
  return S;
}

/**
 * How many times its own size from the origin a posed character is posed about its first joint
 * instead ({@link farShift}): there 32-bit floats resolve about 4e-6 of its size, near
 * the share of the morph bake's 1e-5 tolerance that the targets hold.
 */
export const FAR_FROM_ORIGIN = 64;
