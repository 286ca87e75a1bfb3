/**
 * The lattice of the fast CoR evaluation (`fast.ts`): a pair's similarity sums G tabulated on a
 * regular (α, s) lattice from its weight-space bins, and the Catmull-Rom weights that interpolate
 * it (Le & Hodgins 2016, Eq. 4, evaluated by binning; see `fast.ts`).
 *
 * @module
 */
import type { Lattice } from './fast.js';

/** Numbers per bin (see `PairPlan.bins` in `fast.ts`). */
export const BIN = 12;

/**
 * Tabulates G and its centroid sums from the bins on the lattice (filled in place). A bin adds,
 * at node (α, s), `g = exp(−c·s̄²·d²)` (c = s²/σ², d = α − ξ̄) times its mass, and times its
 * centroid sums corrected to first order, `Mc + 2c·s̄²·d·P − c·d²·Q` (P, Q the moments in ξ and
 * s²: the derivatives of g in ξ and s² times them).
 */
export function tabulate(bins: Float64Array, sigma: number, lat: Lattice): Lattice {
  const { a0, ha: h, na, s0, hs, ns, values: grid } = lat;
  const inv2 = 1 / (sigma * sigma);
  const A = new Float64Array(9);
  for (let b = 0; b < bins.length; b += BIN) {
    const xi = bins[b];
    const K = bins[b + 1] * inv2; // exponent = s²·K·(α − ξ)² on lattice row s
    const M = bins[b + 2];
    // Along α, start at the node nearest the peak and walk outwards in both directions, with
    // E1 = e^(−c·d0²), E2 = e^(−2c·d0·h), E3 = e^(−c·h²), c = s²K, |d0| ≤ h/2 (no overflow):
    // up: g(i+1)/g(i) = e^(−c(2·d·h + h²)), down: g(i−1)/g(i) = e^(−c(−2·d·h + h²)),
    // each ratio changing by the factor E3² per step.
    const i0 = Math.min(na - 1, Math.max(0, Math.round((xi - a0) / h)));
    const d0 = a0 + i0 * h - xi;
    // Each E = e^(−K·X·s²) is a Gaussian in s = s0 + l·hs too: from row to row it changes by a
    // factor F that itself changes by e^(−2K·X·hs²) (the same walk, no exp per row).
    const X1 = K * d0 * d0, X2 = 2 * K * d0 * h, X3 = K * h * h; // prettier-ignore
    let E1 = Math.exp(-X1 * s0 * s0), E2 = Math.exp(-X2 * s0 * s0), E3 = Math.exp(-X3 * s0 * s0); // prettier-ignore
    let F1 = Math.exp(-X1 * hs * (2 * s0 + hs)), F2 = Math.exp(-X2 * hs * (2 * s0 + hs)), F3 = Math.exp(-X3 * hs * (2 * s0 + hs)); // prettier-ignore
    const Q1 = Math.exp(-2 * X1 * hs * hs), Q2 = Math.exp(-2 * X2 * hs * hs), Q3 = Math.exp(-2 * X3 * hs * hs); // prettier-ignore
    for (let l = 0, row = 0; l < ns; l++, row += 4 * na) {
      const sl = s0 + l * hs;
      const c = sl * sl * inv2;
      // The centroid sums as a quadratic in d: Mc + d·(2c·s̄²·P) + d²·(−c·Q).
      for (let k = 0; k < 3; k++) {
        A[k] = bins[b + 3 + k];
        A[3 + k] = 2 * c * bins[b + 1] * bins[b + 6 + k];
        A[6 + k] = -c * bins[b + 9 + k];
      }
      const q = E3 * E3;
      walk(grid, row + 4 * i0, 4, na - i0, E1, E2 * E3, q, M, A, d0, h);
      walk(grid, row + 4 * (i0 - 1), -4, i0, (E1 * E3) / E2, (E3 * E3 * E3) / E2, q, M, A, d0 - h, -h);
      E1 *= F1; F1 *= Q1; E2 *= F2; F2 *= Q2; E3 *= F3; F3 *= Q3; // prettier-ignore
    }
  }
  return lat;
}

/**
 * Adds `count` lattice nodes from `grid[o]` on, `step` numbers apart, of one bin's Gaussian:
 * node value g times the bin's mass M and its centroid sums `A[0..3) + d·A[3..6) + d²·A[6..9)`
 * (d = α − ξ̄ at the node, from `d` in steps of `dh`), then g ← g·r, r ← r·q.
 */
function walk(grid: Float64Array, o: number, step: number, count: number, g: number, r: number, q: number, M: number, A: Float64Array, d: number, dh: number): void {
  for (let k = 0; k < count; k++, o += step, d += dh) {
    grid[o] += g * M;
    grid[o + 1] += g * (A[0] + d * (A[3] + d * A[6]));
    grid[o + 2] += g * (A[1] + d * (A[4] + d * A[7]));
    grid[o + 3] += g * (A[2] + d * (A[5] + d * A[8]));
    g *= r;
    r *= q;
  }
}

/** Catmull–Rom weights for parameter t ∈ [0, 1] between nodes 1 and 2 of four. */
export function catmullRom(t: number, w: Float64Array): void {
  const t2 = t * t, t3 = t2 * t; // prettier-ignore
  w[0] = 0.5 * (-t3 + 2 * t2 - t);
  w[1] = 0.5 * (3 * t3 - 5 * t2 + 2);
  w[2] = 0.5 * (-3 * t3 + 4 * t2 + t);
  w[3] = 0.5 * (t3 - t2);
}
