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
import { cappedVolume } from '../metrics/volume.js';
import { weldByPosition } from '../metrics/weld.js';
import { jointChain } from './standard-poses.js';

/** Quality of a posed mesh around one joint. */
export interface JointQuality {
  /**
   * Volume posed / rest of the mesh welded by position with its open boundaries capped
   * ({@link cappedVolume}); NaN when the mesh is not an oriented 2-manifold (not comparable).
   */
  volumeRatio: number;
  /** Open boundary loops capped for the volume (0: closed mesh). */
  cappedBoundaries: number;
  /** Cross-section radius about each ring's centroid near the joint, posed / rest, 5th percentile (→ 0: collapse). */
  minRadiusRatio: number;
  /** Distance to the bones near the joint, posed / rest, 95th percentile (> 1: bulge). */
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
  const restChain = jointChain(skeleton, restPose(skeleton), joint);
  const posedChain = jointChain(skeleton, pose, joint);
  const c = restChain.child,
    j = restChain.joint;
  const boneLength = Math.hypot(c[0] - j[0], c[1] - j[1], c[2] - j[2]);
  const cs = jointCrossSection(rest, posed, restChain, posedChain, slabFraction * boneLength);
  const weld = weldByPosition(rest);
  const v0 = cappedVolume(rest, mesh.triangles, weld);
  const v1 = v0 && cappedVolume(posed, mesh.triangles, weld);
  return {
    volumeRatio: v0 && v1 ? v1.volume / v0.volume : NaN,
    cappedBoundaries: v0?.capped ?? 0,
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

/** A ratio with 3 decimals, or `n/a` when it is not defined (NaN: not comparable). */
export function formatRatio(x: number): string {
  return Number.isFinite(x) ? x.toFixed(3) : 'n/a';
}

/** What the quality columns mean, printed under tables and in the report. */
export const QUALITY_LEGEND =
  "volume: mesh welded by position, open boundaries capped (n/a: not a 2-manifold); min radius: 5th percentile of per-vertex ring radii about each ring's own centroid, posed / rest; max radius: 95th percentile of per-vertex distances to the bones, posed / rest; self-intersections: triangle pairs after welding";
