/**
 * Cross-section radius at a joint: how far the skin near a joint stays from the bones. It falls
 * towards 0 where LBS collapses (candy wrapper, bent elbow) and grows where DQS bulges.
 *
 * @module
 */

/** Three points of a joint: the parent joint, the joint itself, the child joint (x, y, z each). */
export interface JointChain {
  parent: ArrayLike<number>;
  joint: ArrayLike<number>;
  child: ArrayLike<number>;
}

/** Result of {@link jointCrossSection}. */
export interface CrossSection {
  /** Vertices in the slab around the joint that were measured. */
  vertices: number;
  /** Smallest posed radius / smallest rest radius (collapse, candy wrapper: → 0). */
  minRadiusRatio: number;
  /** Largest posed radius / largest rest radius (bulge: > 1). */
  maxRadiusRatio: number;
  /** Smallest and largest rest radius, asset units. */
  restMinRadius: number;
  restMaxRadius: number;
  /** Smallest and largest posed radius, asset units. */
  posedMinRadius: number;
  posedMaxRadius: number;
}

/**
 * Radius of a vertex = its distance to the polyline parent → joint → child (the two bone
 * segments meeting at the joint). The vertices measured are those whose rest position lies in
 * the slab `|(v − joint)·â| ≤ halfWidth`, â the unit rest direction joint → child, and within
 * `maxRadius` of the rest polyline (the same vertices in both poses). The cross-section's
 * smallest and largest radius are compared with the rest pose's.
 * @param rest bind-space positions, length 3·n; @param posed posed positions, length 3·n
 * @param restChain joint chain in bind space; @param posedChain the same joints posed
 * @param halfWidth slab half-width, asset units
 * @param maxRadius ignore vertices farther than this from the rest polyline (default: no limit)
 * @throws RangeError when no vertex lies in the slab
 */
export function jointCrossSection(
  rest: ArrayLike<number>,
  posed: ArrayLike<number>,
  restChain: JointChain,
  posedChain: JointChain,
  halfWidth: number,
  maxRadius = Infinity,
): CrossSection {
  const j = restChain.joint;
  let ax = restChain.child[0] - j[0], ay = restChain.child[1] - j[1], az = restChain.child[2] - j[2];
  const l = Math.hypot(ax, ay, az) || 1;
  ax /= l;
  ay /= l;
  az /= l;
  let count = 0;
  let restMin = Infinity, restMax = 0, posedMin = Infinity, posedMax = 0;
  for (let i = 0; i < rest.length; i += 3) {
    const s = (rest[i] - j[0]) * ax + (rest[i + 1] - j[1]) * ay + (rest[i + 2] - j[2]) * az;
    if (Math.abs(s) > halfWidth) continue;
    const r0 = polylineDistance(rest, i, restChain);
    if (!(r0 > 0) || r0 > maxRadius) continue;
    const r1 = polylineDistance(posed, i, posedChain);
    count++;
    restMin = Math.min(restMin, r0);
    restMax = Math.max(restMax, r0);
    posedMin = Math.min(posedMin, r1);
    posedMax = Math.max(posedMax, r1);
  }
  if (count === 0) throw new RangeError('no vertex lies in the slab around the joint');
  return {
    vertices: count,
    minRadiusRatio: posedMin / restMin,
    maxRadiusRatio: posedMax / restMax,
    restMinRadius: restMin,
    restMaxRadius: restMax,
    posedMinRadius: posedMin,
    posedMaxRadius: posedMax,
  };
}

function polylineDistance(p: ArrayLike<number>, i: number, c: JointChain): number {
  return Math.min(segmentDistance(p, i, c.parent, c.joint), segmentDistance(p, i, c.joint, c.child));
}

/** Distance from point p[i..i+3) to segment [a, b]. */
export function segmentDistance(p: ArrayLike<number>, i: number, a: ArrayLike<number>, b: ArrayLike<number>): number {
  const dx = b[0] - a[0], dy = b[1] - a[1], dz = b[2] - a[2];
  const px = p[i] - a[0], py = p[i + 1] - a[1], pz = p[i + 2] - a[2];
  const len2 = dx * dx + dy * dy + dz * dz;
  const t = len2 > 0 ? Math.min(1, Math.max(0, (px * dx + py * dy + pz * dz) / len2)) : 0;
  return Math.hypot(px - t * dx, py - t * dy, pz - t * dz);
}
