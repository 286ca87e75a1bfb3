/**
 * Measures of a deformed skin against a reference deformation and its rest shape — what
 * `corskin evaluate --character` prints for every method over the pose battery: triangles
 * flipped against the reference (DQS), edges whose dihedral angle changes by more than 30°
 * (creases the deformation makes), and the largest distance from the reference on the skin's
 * rigid pieces.
 *
 * @module
 */
import { weldByPosition } from '../metrics/weld.js';

/**
 * Triangles whose normal under `posed` points away from their normal under `reference`
 * (negative dot product): folds a method makes that the reference does not. Degenerate
 * triangles (zero area in either) are not counted.
 * @param triangles vertex indices, 3·t
 * @param reference, posed positions, 3·n each (same space)
 */
export function flippedTriangles(
  triangles: ArrayLike<number>,
  reference: ArrayLike<number>,
  posed: ArrayLike<number>,
): number {
  let count = 0;
  const a = new Float64Array(3), b = new Float64Array(3); // prettier-ignore
  for (let f = 0; f < triangles.length; f += 3) {
    triangleNormal(reference, triangles, f, a);
    triangleNormal(posed, triangles, f, b);
    if (a[0] * b[0] + a[1] * b[1] + a[2] * b[2] < 0) count++;
  }
  return count;
}

/** The (area-weighted, unnormalised) normal of triangle f (its first index at `f`) into `out`. */
function triangleNormal(p: ArrayLike<number>, tri: ArrayLike<number>, f: number, out: Float64Array): void {
  const i = 3 * tri[f], j = 3 * tri[f + 1], k = 3 * tri[f + 2]; // prettier-ignore
  const ux = p[j] - p[i], uy = p[j + 1] - p[i + 1], uz = p[j + 2] - p[i + 2]; // prettier-ignore
  const vx = p[k] - p[i], vy = p[k + 1] - p[i + 1], vz = p[k + 2] - p[i + 2]; // prettier-ignore
  out[0] = uy * vz - uz * vy;
  out[1] = uz * vx - ux * vz;
  out[2] = ux * vy - uy * vx;
}

/** The interior edges of a surface (welded by position): pairs of triangles sharing an edge. */
export interface EdgePairs {
  /** Per interior edge, its two triangles (2·e, triangle indices). */
  faces: Uint32Array;
}

/**
 * The surface's interior edges: the triangles are welded by rest position (UV seams and split
 * normals join), and every edge with exactly two triangles is kept (boundary and non-manifold
 * edges are left out).
 * @param triangles 3·t; @param rest rest positions, 3·n
 */
export function edgePairs(triangles: ArrayLike<number>, rest: ArrayLike<number>): EdgePairs {
  const weld = weldByPosition(rest);
  const seen = new Map<number, number>(); // edge key → first triangle, or −1 once it has more than two
  const pairs: number[] = [];
  const n = rest.length / 3;
  const where = new Map<number, number>(); // edge key → index into pairs
  for (let f = 0; f < triangles.length / 3; f++)
    for (let c = 0; c < 3; c++) {
      const a = weld[triangles[3 * f + c]], b = weld[triangles[3 * f + ((c + 1) % 3)]]; // prettier-ignore
      if (a === b) continue;
      const key = a < b ? a * n + b : b * n + a;
      const first = seen.get(key);
      if (first === undefined) seen.set(key, f);
      else if (first >= 0 && !where.has(key)) {
        where.set(key, pairs.length);
        pairs.push(first, f);
      } else if (where.has(key)) {
        // A third triangle: the edge is not manifold, drop it.
        pairs[where.get(key)!] = pairs[where.get(key)! + 1] = 0xffffffff;
        seen.set(key, -1);
      }
    }
  return { faces: Uint32Array.from(pairs.filter((_, i) => pairs[i - (i % 2)] !== 0xffffffff)) };
}

/**
 * Interior edges whose dihedral angle (between the normals of its two triangles) differs between
 * `rest` and `posed` by more than `threshold` radians: creases a deformation makes (or smooths
 * away).
 * @param edges from {@link edgePairs}; @param triangles 3·t; @param rest, posed 3·n each
 */
export function creasedEdges(
  edges: EdgePairs,
  triangles: ArrayLike<number>,
  rest: ArrayLike<number>,
  posed: ArrayLike<number>,
  threshold = Math.PI / 6,
): number {
  const a = new Float64Array(3), b = new Float64Array(3); // prettier-ignore
  const angle = (p: ArrayLike<number>, f: number, g: number) => {
    triangleNormal(p, triangles, 3 * f, a);
    triangleNormal(p, triangles, 3 * g, b);
    const la = Math.hypot(a[0], a[1], a[2]), lb = Math.hypot(b[0], b[1], b[2]); // prettier-ignore
    if (!(la > 0 && lb > 0)) return 0;
    return Math.acos(Math.max(-1, Math.min(1, (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / (la * lb))));
  };
  let count = 0;
  const { faces } = edges;
  for (let e = 0; e < faces.length; e += 2)
    if (Math.abs(angle(posed, faces[e], faces[e + 1]) - angle(rest, faces[e], faces[e + 1])) > threshold) count++;
  return count;
}

/**
 * The largest distance between `posed` and `reference` over the vertices `mask` marks (rigid
 * pieces, say), or 0 when none is marked.
 * @param mask per vertex, non-zero to include; @param reference, posed 3·n each
 */
export function largestGap(mask: ArrayLike<number>, reference: ArrayLike<number>, posed: ArrayLike<number>): number {
  let gap = 0;
  for (let i = 0; i < mask.length; i++)
    if (mask[i])
      gap = Math.max(
        gap,
        Math.hypot(
          posed[3 * i] - reference[3 * i],
          posed[3 * i + 1] - reference[3 * i + 1],
          posed[3 * i + 2] - reference[3 * i + 2],
        ),
      );
  return gap;
}
