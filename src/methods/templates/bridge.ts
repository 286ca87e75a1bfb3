/**
 * Bridging two rings of a template cage with the minimal-area triangulation (Fuchs, Kedem,
 * Uselton, "Optimal Surface Reconstruction from Planar Contours", Communications of the ACM 20(10),
 * 1977), as Ju et al. 2008 (§5) join neighbouring templates.
 *
 * A band between closed rings A (a_0 … a_{m−1}) and B (b_0 … b_{n−1}), both running the same way
 * about their common axis, is a closed path in the toroidal m × n grid: from the edge a_i b_j a
 * triangle either advances on A, (a_i, a_{i+1}, b_j), or on B, (a_i, b_{j+1}, b_j); m + n
 * triangles return to the start, each edge in two of them (a path that fans one ring to a single
 * vertex of the other and back is not a band). Fixing a_0's partner b_o, the cheapest path is a dynamic program
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
  // Each band has a start edge a_0 b_o after which a_0 takes no more of B: the path leaves (0, 0)
  // on A, to (e, 0), and meets row n only after column e (else an edge a_i b_o, or a_0 b_j, would
  // lie in four triangles — one ring fanned to a vertex of the other and back, a band of zero
  // width that crossing rings at a sharply bent joint would make cheapest).
  for (let o = 0; o < n; o++) {
    const B = (j: number) => b[(o + j) % n];
    for (let e = 1; e < m; e++) {
      for (let i = 0; i <= m; i++)
        for (let j = 0; j <= n; j++) {
          const c = i * (n + 1) + j;
          if ((j === 0 && i > e) || (i === 0 && j > 0) || (j === n && i <= e)) cost[c] = Infinity;
          else if (i === 0) cost[c] = 0;
          else {
            const viaA = cost[c - (n + 1)] + area(positions, A(i - 1), A(i), B(j));
            const viaB = j > 0 ? cost[c - 1] + area(positions, A(i), B(j), B(j - 1)) : Infinity;
            cost[c] = Math.min(viaA, viaB);
            fromA[c] = viaA <= viaB ? 1 : 0;
          }
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
  }
  return best;
}
