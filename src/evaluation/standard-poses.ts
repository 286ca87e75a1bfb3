/**
 * The standard joint manipulations of the evaluation: a twist of a bone about its own axis and
 * a bend about a world axis, each at the bone's base joint, its subtree following rigidly
 * (the libigl dual-quaternion tutorial's arm poses; Le & Hodgins 2016, Fig. 2).
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';
import { globalMatrices, restPose, rotateJointWorld, type Pose } from '../core/pose.js';
import { jointCount, type Skeleton } from '../core/skeleton.js';

/** Moved to `core/skeleton.ts`; re-exported here for the modules that import it from this one. */
export { findJoint } from '../core/skeleton.js';

/** World positions of all joints in `pose` (x, y, z per joint), length 3·J. */
export function jointPositions(skeleton: Skeleton, pose: Pose): Float64Array {
  const g = globalMatrices(skeleton, pose);
  const J = jointCount(skeleton);
  const out = new Float64Array(3 * J);
  for (let j = 0; j < J; j++) out.set(g.subarray(16 * j + 12, 16 * j + 15), 3 * j);
  return out;
}

/** The first child joint of joint j (the end of the bone that starts at j), or −1. */
export function firstChildJoint(skeleton: Skeleton, j: number): number {
  return skeleton.parents.indexOf(j);
}

/**
 * World-space unit direction, in the bind pose, of the bone that starts at joint j (towards its
 * first child joint).
 * @throws CorskinError when the joint has no child joint
 */
export function boneAxis(skeleton: Skeleton, j: number): [number, number, number] {
  const c = firstChildJoint(skeleton, j);
  if (c < 0) throw new CorskinError(`joint ${skeleton.jointNames[j]} has no child joint, its bone axis is unknown`);
  const p = jointPositions(skeleton, restPose(skeleton));
  const d = [p[3 * c] - p[3 * j], p[3 * c + 1] - p[3 * j + 1], p[3 * c + 2] - p[3 * j + 2]];
  const l = Math.hypot(d[0], d[1], d[2]);
  if (l === 0)
    throw new CorskinError(`joint ${skeleton.jointNames[j]} coincides with its child, its bone axis is unknown`);
  return [d[0] / l, d[1] / l, d[2] / l];
}

/** The bind pose with joint j twisted by `angle` radians about its bone's own axis. */
export function twistPose(skeleton: Skeleton, j: number, angle: number): Pose {
  const pose = restPose(skeleton);
  rotateJointWorld(skeleton, pose, j, boneAxis(skeleton, j), angle);
  return pose;
}

/** The bind pose with joint j bent by `angle` radians about the world-space `axis`. */
export function bendPose(skeleton: Skeleton, j: number, axis: ArrayLike<number>, angle: number): Pose {
  const pose = restPose(skeleton);
  rotateJointWorld(skeleton, pose, j, axis, angle);
  return pose;
}

/**
 * Joint chain (parent, joint, first child) of joint j in world space of `pose`, the input of
 * `jointCrossSection` (corskin/evaluation).
 * @throws CorskinError when the joint has no parent or no child joint
 */
export function jointChain(skeleton: Skeleton, pose: Pose, j: number) {
  const p = skeleton.parents[j];
  const c = firstChildJoint(skeleton, j);
  if (p < 0 || c < 0) throw new CorskinError(`joint ${skeleton.jointNames[j]} needs a parent and a child joint`);
  const x = jointPositions(skeleton, pose);
  return {
    /** The parent joint's position (x, y, z). */
    parent: x.slice(3 * p, 3 * p + 3),
    /** Joint j's position (x, y, z). */
    joint: x.slice(3 * j, 3 * j + 3),
    /** The first child joint's position (x, y, z). */
    child: x.slice(3 * c, 3 * c + 3),
  };
}
