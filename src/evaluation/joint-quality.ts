/**
 * The two numbers the candy-wrapper and collapse/bulge claims are argued with, for one posed
 * mesh: enclosed-volume ratio to rest and the cross-section radius ratios at a joint.
 *
 * @module
 */
import type { SkinnedMesh } from '../core/mesh.js';
import { restPose, skinningMatrices, type Pose } from '../core/pose.js';
import type { Skeleton } from '../core/skeleton.js';
import { deformLbs } from '../deformers/lbs.js';
import { jointCrossSection } from '../metrics/cross-section.js';
import { enclosedVolume } from '../metrics/volume.js';
import { jointChain } from './standard-poses.js';

/** Quality of a posed mesh around one joint. */
export interface JointQuality {
  /** Enclosed volume posed / rest (see {@link enclosedVolume}). */
  volumeRatio: number;
  /** Smallest cross-section radius near the joint, posed / rest (→ 0: collapse). */
  minRadiusRatio: number;
  /** Largest cross-section radius near the joint, posed / rest (> 1: bulge). */
  maxRadiusRatio: number;
}

/**
 * Measures `posed` (positions of `mesh` deformed to `pose`, world space, length 3·n) against the
 * mesh in the skeleton's rest pose, around joint `joint`: the cross-section slab has half-width
 * `slabFraction` × the length of the bone that starts at the joint.
 * @param rest the mesh deformed to the rest pose (computed when omitted; pass it when measuring
 *   many poses)
 * @throws CorskinError when the joint has no parent or child joint
 */
export function measureJointQuality(
  mesh: SkinnedMesh,
  skeleton: Skeleton,
  pose: Pose,
  posed: Float32Array,
  joint: number,
  slabFraction = 0.1,
  rest: Float32Array = restPositions(mesh, skeleton),
): JointQuality {
  const rest0 = restPose(skeleton);
  const restChain = jointChain(skeleton, rest0, joint);
  const posedChain = jointChain(skeleton, pose, joint);
  const c = restChain.child,
    j = restChain.joint;
  const boneLength = Math.hypot(c[0] - j[0], c[1] - j[1], c[2] - j[2]);
  const cs = jointCrossSection(rest, posed, restChain, posedChain, slabFraction * boneLength);
  return {
    volumeRatio: enclosedVolume(posed, mesh.triangles) / enclosedVolume(rest, mesh.triangles),
    minRadiusRatio: cs.minRadiusRatio,
    maxRadiusRatio: cs.maxRadiusRatio,
  };
}

/** The mesh deformed to the skeleton's rest pose (bind pose up to the rig's root transform). */
export function restPositions(mesh: SkinnedMesh, skeleton: Skeleton): Float32Array {
  const rest = new Float32Array(mesh.positions.length);
  deformLbs(mesh, skinningMatrices(skeleton, restPose(skeleton)), { positions: rest });
  return rest;
}
