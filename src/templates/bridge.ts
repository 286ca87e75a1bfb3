/**
 * Bridging two rings of a template cage with the minimal-area triangulation (Fuchs, Kedem,
 * Uselton, "Optimal Surface Reconstruction from Planar Contours", Communications of the ACM 20(10),
 * 1977), as Ju et al. 2008 (§5) join neighbouring templates.
 *
 * A band between closed rings A (a_0 … a_{m−1}) and B (b_0 … b_{n−1}), both running the same way
 * about their common axis, is a closed path in the toroidal m × n grid: from the edge a_i b_j a
 * triangle either advances on A, (a_i, a_{i+1}, b_j), or on B, (a_i, b_{j+1}, b_j); m + n
 * triangles return to the start. Fixing a_0's partner b_o, the cheapest path is a dynamic program
 * over (i, j); the minimum over all n starting partners is the optimum (a plain search over the
 * starts: FKU's divide and conquer saves work that rings of 8 vertices do not need).
 *
 * @module
 */

/** The area of triangle (p, q, r), positions 3·count. */
function area(positions: ArrayLike<number>, p: number, q: number, r: number): number {
  const ux = positions[3 * q] - positions[3 * p], uy = positions[3 * q + 1] - positions[3 * p + 1], uz = positions[3 * q + 2] - positions[3 * p + 2]; // prettier-ignore
  const vx = positions[3 * r] - positions[3 * p], vy = positions[3 * r + 1] - positions[3 * p + 1], vz = positions[3 * r + 2] - positions[3 * p + 2]; // prettier-ignore
  return 0.5 * Math.hypot(uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx);
}

/**
 * The minimal-area band between rings `a` and `b` (vertex indices into `positions`, 3 numbers per
 * vertex; both rings in the same rotational order): m + n triangles, each ring edge in exactly one,
 * wound as (a_i, a_{i+1}, b_j) and (a_i, b_{j+1}, b_j).
 * @returns the triangles, 3·(m + n) vertex indices, and their total area (positions' units²)
 * @throws RangeError when a ring has fewer than 3 vertices
 */
export function minimalAreaBridge(
  positions: ArrayLike<number>,
  a: readonly number[],
  b: readonly number[],
): { triangles: number[]; area: number } {
  const m = a.length, n = b.length; // prettier-ignore
  if (m < 3 || n < 3) throw new RangeError(`rings to bridge need at least 3 vertices, got ${m} and ${n}`);
  const A = (i: number) => a[i % m];
  let best = { triangles: [] as number[], area: Infinity };
  const cost = new Float64Array((m + 1) * (n + 1));
  const fromA = new Uint8Array((m + 1) * (n + 1)); // 1: reached by advancing on A
  for (let o = 0; o < n; o++) {
    const B = (j: number) => b[(o + j) % n];
    cost[0] = 0;
    for (let i = 0; i <= m; i++)
      for (let j = 0; j <= n; j++) {
        if (i === 0 && j === 0) continue;
        const viaA = i > 0 ? cost[(i - 1) * (n + 1) + j] + area(positions, A(i - 1), A(i), B(j)) : Infinity;
        const viaB = j > 0 ? cost[i * (n + 1) + j - 1] + area(positions, A(i), B(j), B(j - 1)) : Infinity;
        cost[i * (n + 1) + j] = Math.min(viaA, viaB);
        fromA[i * (n + 1) + j] = viaA <= viaB ? 1 : 0;
      }
    const total = cost[m * (n + 1) + n];
    if (!(total < best.area)) continue;
    const triangles: number[] = [];
    for (let i = m, j = n; i > 0 || j > 0; ) {
      if (fromA[i * (n + 1) + j]) {
        triangles.push(A(i - 1), A(i), B(j));
        i--;
      } else {
        triangles.push(A(i), B(j), B(j - 1));
        j--;
      }
    }
    best = { triangles, area: total };
  }
  return best;
}
