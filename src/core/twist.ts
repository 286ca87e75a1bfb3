/**
 * Twist joints (Le & Hodgins 2016, Sec. 4, Fig. 5): a bone j → c split by a mid joint j' that takes half
 * of the bone's twist, so a twist is spread along the bone instead of happening at the joint.
 *
 * Pose side ({@link distributeTwist}): with `a` the bone axis (unit direction of the child's
 * offset in j's local frame) and `τ` the twist of j's local rotation relative to its rest
 * rotation about `a` (swing–twist decomposition), j keeps `R_j · Rot(a, −τ/2)` and j' (at half
 * the bone, identity rest) gets `Rot(a, τ/2)`. Since rotations about `a` commute with the
 * translation along `a`, j·j' = the old j, so the child and everything below it is unchanged:
 * j carries half the twist, j' the whole.
 *
 * @module
 */
import { quatFromAxisAngle, quatMultiply } from './math.js';
import type { Pose } from './pose.js';
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
 * The twist of unit quaternion q (x, y, z, w) about unit axis a, radians in (−π, π]: the angle of
 * its swing–twist decomposition `q = swing ⊗ twist(a)`.
 */
export function twistAngle(q: ArrayLike<number>, o: number, a: ArrayLike<number>): number {
  const d = q[o] * a[0] + q[o + 1] * a[1] + q[o + 2] * a[2];
  const w = q[o + 3];
  return w < 0 ? 2 * Math.atan2(-d, -w) : 2 * Math.atan2(d, w);
}

/**
 * Moves half of each split joint's twist (relative to its rest rotation) to its twist joint, in
 * place. The twist joints' own rotations are overwritten.
 */
export function distributeTwist(skeleton: Skeleton, pose: Pose, twists: readonly TwistJoint[]): void {
  const rel = new Float64Array(4);
  const rest = new Float64Array(4);
  const half = new Float64Array(4);
  for (const { joint: j, twist: t, axis } of twists) {
    // Δ = R_rest⁻¹ ⊗ R
    const r = skeleton.restRotations;
    rest.set([-r[4 * j], -r[4 * j + 1], -r[4 * j + 2], r[4 * j + 3]]);
    quatMultiply(rel, 0, rest, 0, pose.rotations, 4 * j);
    const tau = twistAngle(rel, 0, axis);
    quatFromAxisAngle(half, 0, axis[0], axis[1], axis[2], -tau / 2);
    quatMultiply(pose.rotations, 4 * j, pose.rotations, 4 * j, half, 0);
    quatFromAxisAngle(pose.rotations, 4 * t, axis[0], axis[1], axis[2], tau / 2);
  }
}
