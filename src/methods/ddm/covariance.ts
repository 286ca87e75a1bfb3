/**
 * The rest covariance of a Direct Delta Mush vertex and its floor. At the bind pose every
 * skinning matrix is the identity, so the run time's S (Le & Lewis 2019, Alg. 1) is the rest
 * covariance C = Σ_j Ω_ij[0:3,0:3] / c − p pᵀ (c = Σ_j Ω_ij[3,3], p = Σ_j Ω_ij[0:3,3] / c) and
 * the fitted rotation is polar(C). That is the identity only when C is positive definite. In
 * exact arithmetic with non-negative smoothing C is positive semi-definite, but a flat
 * neighbourhood (a card, a single triangle) leaves it singular, float32 storage leaves it
 * indefinite by rounding, and libigl's smoothing operator (or any operator with negative
 * weights) can make it indefinite outright: polar(C) is then a reflection or an arbitrary
 * rotation, and the vertex leaves its bind position before anything moves.
 *
 * corskin therefore raises C's eigenvalues to at least {@link COVARIANCE_FLOOR} of its largest
 * (C ← C + D, D = V·diag(max(λ_k, f) − λ_k)·Vᵀ, f = floor·max_k |λ_k|), spreading D over
 * the vertex's joints in proportion to their Ω_ij[3,3]. A vertex whose C is already well
 * conditioned is untouched; for the others the directions C lacks come at run time from the
 * linear blend of their joints' rotations, so the bind pose gives back the bind mesh and a rigid
 * motion of the whole skeleton stays rigid.
 *
 * @module
 */

/** Smallest eigenvalue of the rest covariance, as a fraction of its largest, after the floor. */
export const COVARIANCE_FLOOR = 1e-4;

/**
 * The correction D that lifts the covariance of a summed moment matrix to the floor.
 * @param sum the 10-number symmetric 4×4 Σ_j Ω_ij (upper triangle, row-major: X00 X01 X02 X03
 *   X11 X12 X13 X22 X23 X33), about any origin
 * @param out written: D's 6 numbers D00 D01 D02 D11 D12 D22 (zeros when none is needed)
 * @param o where the 10 numbers start in `sum`
 * @returns true when D is not zero
 */
export function covarianceFloor(sum: ArrayLike<number>, out: Float64Array, o = 0): boolean {
  out.fill(0, 0, 6);
  const c = sum[o + 9];
  if (!(Math.abs(c) > 0) || !Number.isFinite(c)) return false;
  const px = sum[o + 3] / c;
  const py = sum[o + 6] / c;
  const pz = sum[o + 8] / c;
  // Symmetric C (row-major 3×3, A[3r + c]) and its eigenvectors V (columns) by cyclic Jacobi.
  // Flat arrays: this runs once per vertex of the precomputation.
  const a01 = sum[o + 1] / c - px * py, a02 = sum[o + 2] / c - px * pz, a12 = sum[o + 5] / c - py * pz; // prettier-ignore
  const A = [sum[o] / c - px * px, a01, a02, a01, sum[o + 4] / c - py * py, a12, a02, a12, sum[o + 7] / c - pz * pz]; // prettier-ignore
  const V = [1, 0, 0, 0, 1, 0, 0, 0, 1];
  for (let sweep = 0; sweep < 12; sweep++) {
    const off = Math.abs(A[1]) + Math.abs(A[2]) + Math.abs(A[5]);
    if (off <= 1e-30 * (Math.abs(A[0]) + Math.abs(A[4]) + Math.abs(A[8]))) break;
    for (let pair = 0; pair < 6; pair += 2) {
      const p = PAIRS[pair];
      const q = PAIRS[pair + 1];
      const apq = A[3 * p + q];
      if (apq === 0) continue;
      const tau = (A[3 * q + q] - A[3 * p + p]) / (2 * apq);
      const t = (tau >= 0 ? 1 : -1) / (Math.abs(tau) + Math.sqrt(1 + tau * tau));
      const cs = 1 / Math.sqrt(1 + t * t);
      const sn = t * cs;
      for (let k = 0; k < 3; k++) {
        const akp = A[3 * k + p];
        const akq = A[3 * k + q];
        A[3 * k + p] = cs * akp - sn * akq;
        A[3 * k + q] = sn * akp + cs * akq;
      }
      for (let k = 0; k < 3; k++) {
        const apk = A[3 * p + k];
        const aqk = A[3 * q + k];
        A[3 * p + k] = cs * apk - sn * aqk;
        A[3 * q + k] = sn * apk + cs * aqk;
        const vkp = V[3 * k + p];
        const vkq = V[3 * k + q];
        V[3 * k + p] = cs * vkp - sn * vkq;
        V[3 * k + q] = sn * vkp + cs * vkq;
      }
    }
  }
  // The eigenvalues are A's diagonal (A[4k]), the eigenvectors V's columns.
  const floor = COVARIANCE_FLOOR * Math.max(Math.abs(A[0]), Math.abs(A[4]), Math.abs(A[8]));
  if (!(floor > 0)) return false;
  let any = false;
  for (let k = 0; k < 3; k++) {
    const lift = floor - A[4 * k];
    if (!(lift > 0)) continue;
    any = true;
    const x = V[k];
    const y = V[3 + k];
    const z = V[6 + k];
    // D's 6 numbers: (0,0) (0,1) (0,2) (1,1) (1,2) (2,2).
    out[0] += lift * x * x;
    out[1] += lift * x * y;
    out[2] += lift * x * z;
    out[3] += lift * y * y;
    out[4] += lift * y * z;
    out[5] += lift * z * z;
  }
  return any;
}

/** The Jacobi sweep's pairs (p, q): (0, 1), (0, 2), (1, 2). */
const PAIRS = [0, 1, 0, 2, 1, 2];

/**
 * Adds `scale`·D (from {@link covarianceFloor}) to the 3×3 block of a 10-number symmetric 4×4.
 * @param X the matrices, modified at [o, o + 10)
 */
export function addToBlock(X: Float64Array | number[], o: number, D: Float64Array, scale: number): void {
  X[o] += scale * D[0];
  X[o + 1] += scale * D[1];
  X[o + 2] += scale * D[2];
  X[o + 4] += scale * D[3];
  X[o + 5] += scale * D[4];
  X[o + 7] += scale * D[5];
}
