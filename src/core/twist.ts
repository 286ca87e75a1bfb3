/**
 * Twist joints (Le & Hodgins 2016, Sec. 4, Fig. 5): a bone j → c split by a mid joint j' that takes half
 * of the bone's twist, so a twist is spread along the bone instead of happening at the joint.
 *
 * Pose side ({@link distributeTwist}): with `a` the bone axis (unit direction of the child's
 * offset in j's local frame) and `τ` the twist of j's local rotation relative to its rotation in
 * the bind pose (swing–twist decomposition), j keeps `R_j · Rot(a, −τ/2)` and j' (at half the
 * bone, identity in the bind pose) gets `Rot(a, τ/2)`. Since rotations about `a` commute with
 * the translation along `a`, j·j' = the old j, so the child and everything below it is
 * unchanged: j carries half the twist, j' the whole. The reference is the bind pose, where the
 * skin is undeformed, not the nodes' rest rotations: in real files they differ (the Soldier's
 * arm by 65°), and a twist measured from the rest pose would deform the skin at the bind pose.
 *
 * @module
 */
import { mat4Invert, mat4Multiply, quatFromAxisAngle, quatMultiply, quatRotationPart, type NumArray } from './math.js';
import { CorskinError } from './errors.js';
import { globalMatrices, restPose, type Pose } from './pose.js';
import type { Skeleton } from './skeleton.js';

/** A twist joint: `twist` splits the bone from `joint` to its child, along local `axis`. */
export interface TwistJoint {
  /** The split joint j. */
  joint: number;
  /** The mid joint j'. */
  twist: number;
  /** Unit bone axis in j's local frame (the child's offset direction). */
  axis: [number, number, number];
}

/**
 * The twist of unit quaternion q (x, y, z, w) about unit axis a, radians in [−π, π] (±π both for
 * a half turn): the angle of its swing–twist decomposition `q = swing ⊗ twist(a)`. A quaternion
 * knows a rotation, not how it was reached: a twist of 200° reads as −160°.
 */
export function twistAngle(q: ArrayLike<number>, o: number, a: ArrayLike<number>): number {
  const d = q[o] * a[0] + q[o + 1] * a[1] + q[o + 2] * a[2];
  const w = q[o + 3];
  return w < 0 ? 2 * Math.atan2(-d, -w) : 2 * Math.atan2(d, w);
}

/**
 * Joint j's local rotation in the bind pose (where the inverse bind matrices put the joints): the
 * rotation part of `(B_p · P_j)⁻¹ · B_j`, with `B_j = IBM_j⁻¹` and `B_p` the parent joint's (a
 * parent that is not one of the skin's joints — an armature node animations move — at its rest
 * global matrix; a root's parent is in `P_j`). Writes a unit quaternion (x, y, z, w) to `out[o..]`.
 * @param restGlobals {@link globalMatrices} of the rest pose, needed only when j's parent is not a
 *   skin joint
 */
export function bindLocalRotation(
  out: Float64Array,
  o: number,
  skeleton: Skeleton,
  j: number,
  restGlobals?: Float64Array,
): void {
  const m = new Float64Array(48);
  const p = skeleton.parents[j];
  if (p < 0) m.set(skeleton.preTransforms.subarray(16 * j, 16 * j + 16));
  else {
    if (p < skeleton.skinJoints) mat4Invert(m, 16, skeleton.inverseBindMatrices, 16 * p);
    else m.set((restGlobals ?? globalMatrices(skeleton, restPose(skeleton))).subarray(16 * p, 16 * p + 16), 16);
    mat4Multiply(m, 0, m, 16, skeleton.preTransforms, 16 * j);
  }
  mat4Invert(m, 16, m, 0); // (B_p · P_j)⁻¹
  mat4Invert(m, 32, skeleton.inverseBindMatrices, 16 * j); // B_j
  mat4Multiply(m, 0, m, 16, m, 32);
  quatRotationPart(out, o, m, 0);
}

/**
 * Spreads each split joint's twist over it and its twist joint, in place: the two together hold
 * the rotation `R = R_j ⊗ R_j'` (a pose of the unsplit rig has R_j' = identity; a rest pose or a
 * clip frame of a file `addTwistJoints` wrote, the two halves), and afterwards j' holds half of
 * R's twist relative to j's rotation in the bind pose ({@link bindLocalRotation}) and j the rest,
 * so calling it again changes nothing. At the bind pose nothing moves: the skin is the bind mesh.
 * @throws CorskinError when a twist joint or its split joint is not a joint of the skeleton
 */
export function distributeTwist(skeleton: Skeleton, pose: Pose, twists: readonly TwistJoint[]): void {
  const bind = new Float64Array(4);
  let restGlobals: Float64Array | undefined;
  const J = skeleton.parents.length;
  for (const { joint: j, twist: t, axis } of twists) {
    if (!(Number.isInteger(j) && Number.isInteger(t) && j >= 0 && j < J && t >= 0 && t < J))
      throw new CorskinError(`twist joint ${t} of joint ${j}: not joints of the skeleton (0..${J - 1})`);
    const p = skeleton.parents[j];
    if (p >= skeleton.skinJoints) restGlobals ??= globalMatrices(skeleton, restPose(skeleton));
    // R = R_j ⊗ R_j' (exact for a twist about the bone: it commutes with the half bone between)
    quatMultiply(pose.rotations, 4 * j, pose.rotations, 4 * j, pose.rotations, 4 * t);
    bindLocalRotation(bind, 0, skeleton, j, restGlobals);
    splitTwist(pose.rotations, 4 * j, bind, axis, pose.rotations, 4 * t);
  }
}

/**
 * Splits the rotation `q[o..o+4)` (x, y, z, w) of a split joint between it and its twist joint:
 * with τ the twist of `bind⁻¹ ⊗ q` about the unit bone `axis` ({@link twistAngle}; `bind` the
 * joint's rotation in the bind pose), `q ← q ⊗ Rot(axis, −τ/2)` in place and
 * `twist[to..to+4) = Rot(axis, τ/2)`: their product is q.
 */
export function splitTwist(
  q: NumArray,
  o: number,
  bind: ArrayLike<number>,
  axis: ArrayLike<number>,
  twist: NumArray,
  to: number,
): void {
  const rel = [-bind[0], -bind[1], -bind[2], bind[3]]; // bind⁻¹
  quatMultiply(rel, 0, rel, 0, q, o);
  const tau = twistAngle(rel, 0, axis);
  const half = new Float64Array(4);
  quatFromAxisAngle(half, 0, axis[0], axis[1], axis[2], -tau / 2);
  quatMultiply(q, o, q, o, half, 0);
  quatFromAxisAngle(twist, to, axis[0], axis[1], axis[2], tau / 2);
}
