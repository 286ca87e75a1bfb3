/**
 * Cross-section radius at a joint: how far the skin near a joint stays from its own middle. It
 * falls towards 0 where LBS collapses (candy wrapper, bent elbow) and grows where DQS bulges.
 *
 * @module
 */
import { segmentDistance } from '../core/math.js';

/** Three points of a joint: the parent joint, the joint itself, the child joint (x, y, z each). */
export interface JointChain {
  /** The parent joint's position. */
  parent: ArrayLike<number>;
  /** The joint's position. */
  joint: ArrayLike<number>;
  /** The child joint's position. */
  child: ArrayLike<number>;
}

/** Result of {@link jointCrossSection}. */
export interface CrossSection {
  /** Vertices measured (in rings of at least 3). */
  vertices: number;
  /** Rings measured. */
  rings: number;
  /**
   * 5th percentile of the per-vertex ratios posed / rest of the radius about the ring's own
   * centroid (collapse, candy wrapper: → 0).
   */
  minRadiusRatio: number;
  /** Median of the same ratios. */
  medianRadiusRatio: number;
  /**
   * 95th percentile of the per-vertex ratios posed / rest of the distance to the bones parent →
   * joint → child (bulge: > 1). A ring that moves as a whole away from the joint keeps its own
   * radius — DQS maps a ring of equal weights rigidly — so the bulge is measured from the bones.
   */
  maxRadiusRatio: number;
}

/** Options of {@link jointCrossSection}. */
export interface CrossSectionOptions {
  /** Ignore vertices farther than this from the rest bones, asset units (default: no limit). */
  maxRadius?: number;
  /** Rings across the slab (default 8). */
  rings?: number;
}

/**
 * Cross-section of the skin around a joint, ring by ring (collapse) and from the bones (bulge). The vertices measured are those whose
 * rest position lies in the slab `|(v − joint)·â| ≤ halfWidth` (â the unit rest direction joint
 * → child), within `maxRadius` of the rest bones parent → joint → child. They are grouped into
 * rings by that rest axial coordinate; a vertex's radius is its distance to its ring's centroid,
 * taken in the rest and in the posed mesh (each ring about its own posed centroid, so a ring
 * that moves or bends as a whole is not read as collapse), and the per-vertex ratios posed /
 * rest are summarised by percentiles (a few folded inner-crease vertices do not decide it).
 * The bulge compares each vertex's distance to the posed bones with its rest distance.
 * @param rest rest positions, length 3·n; @param posed posed positions of the same vertices
 * @param restChain the joint chain in the rest positions' space; @param posedChain posed
 * @param halfWidth slab half-width, asset units
 * @throws RangeError when no ring of at least 3 vertices lies in the slab
 */
export function jointCrossSection(
  rest: ArrayLike<number>,
  posed: ArrayLike<number>,
  restChain: JointChain,
  posedChain: JointChain,
  halfWidth: number,
  options: CrossSectionOptions = {},
): CrossSection {
  const { maxRadius = Infinity, rings = 8 } = options;
  const j = restChain.joint;
  let ax = restChain.child[0] - j[0], ay = restChain.child[1] - j[1], az = restChain.child[2] - j[2];
  const l = Math.hypot(ax, ay, az) || 1;
  ax /= l;
  ay /= l;
  az /= l;
  const bones = (p: ArrayLike<number>, i: number, c: JointChain) =>
    Math.min(segmentDistance(p, i, c.parent, c.joint), segmentDistance(p, i, c.joint, c.child));
  const members: number[][] = Array.from({ length: rings }, () => []);
  for (let i = 0; i < rest.length; i += 3) {
    const s = (rest[i] - j[0]) * ax + (rest[i + 1] - j[1]) * ay + (rest[i + 2] - j[2]) * az;
    if (Math.abs(s) > halfWidth) continue;
    if (bones(rest, i, restChain) > maxRadius) continue;
    members[Math.min(rings - 1, Math.floor(((s + halfWidth) / (2 * halfWidth)) * rings))].push(i);
  }
  const ratios: number[] = [];
  const bulge: number[] = [];
  let used = 0;
  const centroid = (p: ArrayLike<number>, ring: number[]) => {
    const c = [0, 0, 0];
    for (const i of ring) for (let d = 0; d < 3; d++) c[d] += p[i + d];
    return c.map((x) => x / ring.length);
  };
  for (const ring of members) {
    if (ring.length < 3) continue;
    used++;
    const c0 = centroid(rest, ring);
    const c1 = centroid(posed, ring);
    for (const i of ring) {
      const r0 = Math.hypot(rest[i] - c0[0], rest[i + 1] - c0[1], rest[i + 2] - c0[2]);
      const b0 = bones(rest, i, restChain);
      if (b0 > 0) bulge.push(bones(posed, i, posedChain) / b0);
      if (!(r0 > 0)) continue;
      ratios.push(Math.hypot(posed[i] - c1[0], posed[i + 1] - c1[1], posed[i + 2] - c1[2]) / r0);
    }
  }
  if (!ratios.length) throw new RangeError('no ring of at least 3 vertices lies in the slab around the joint');
  const at = (v: number[], p: number) => v.sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor(p * v.length))];
  return {
    vertices: ratios.length,
    rings: used,
    minRadiusRatio: at(ratios, 0.05),
    medianRadiusRatio: at(ratios, 0.5),
    maxRadiusRatio: bulge.length ? at(bulge, 0.95) : 1,
  };
}
