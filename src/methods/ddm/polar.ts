/**
 * The orthogonal polar factor of a 3×3 matrix, R = U·Vᵀ from S = U·Σ·Vᵀ — the rotation fit of
 * Direct Delta Mush (Le & Lewis 2019, Eq. 6 and Alg. 1), with a fixed amount of work so the
 * GPU shaders run the same steps:
 *
 * 1. Sᵀ·S = V·Λ·Vᵀ by cyclic Jacobi rotations ({@link POLAR_JACOBI_SWEEPS} sweeps);
 * 2. with the eigenvalues in descending order a, b, c: u_a = S·v_a normalised, u_b = S·v_b made
 *    orthogonal to u_a and normalised, u_c = ±u_a × u_b with the sign of (S·v_c)·(u_a × u_b);
 * 3. R = Σ u_k v_kᵀ.
 *
 * Like libigl's `direct_delta_mush` (an SVD without a determinant correction), R is a
 * reflection when det S < 0; that keeps mirrored rigs right. Where S is rank-deficient (its
 * third singular value below 1e-9 of the first: a flat neighbourhood), the sign makes R a
 * rotation, and where it has rank ≤ 1 the missing directions come from V. With `rotation`, R is
 * always the closest proper rotation (Kabsch), as the skinning decomposition's bone fits need.
 *
 * @module
 */

/** Jacobi sweeps of {@link polarFactor}: 3×3 Jacobi converges quadratically; five sweeps reach double rounding. */
export const POLAR_JACOBI_SWEEPS = 5;

/**
 * The orthogonal polar factor of S.
 * @param S row-major 3×3, length 9 (read only)
 * @param R row-major 3×3, length 9, written (may not alias S)
 * @param work scratch, length ≥ 18 (reused to avoid allocation per call)
 * @param rotation true: the closest proper rotation instead (det R = +1 always; the Kabsch /
 *   orthogonal Procrustes solution when S is a cross-covariance)
 */
export function polarFactor(S: ArrayLike<number>, R: Float64Array, work: Float64Array, rotation = false): void {
  // A = SᵀS (symmetric): a00 a01 a02 a11 a12 a22
  let a00 = S[0] * S[0] + S[3] * S[3] + S[6] * S[6];
  let a01 = S[0] * S[1] + S[3] * S[4] + S[6] * S[7];
  let a02 = S[0] * S[2] + S[3] * S[5] + S[6] * S[8];
  let a11 = S[1] * S[1] + S[4] * S[4] + S[7] * S[7];
  let a12 = S[1] * S[2] + S[4] * S[5] + S[7] * S[8];
  let a22 = S[2] * S[2] + S[5] * S[5] + S[8] * S[8];
  // V row-major, columns are eigenvectors.
  const V = work;
  V.fill(0, 0, 9);
  V[0] = V[4] = V[8] = 1;
  for (let sweep = 0; sweep < POLAR_JACOBI_SWEEPS; sweep++) {
    for (let pair = 0; pair < 3; pair++) {
      const p = pair === 2 ? 1 : 0;
      const q = pair === 0 ? 1 : 2;
      const apq = p === 0 ? (q === 1 ? a01 : a02) : a12;
      if (apq === 0) continue;
      const app = p === 0 ? a00 : a11;
      const aqq = q === 1 ? a11 : a22;
      // Rotation zeroing a_pq (Golub & Van Loan, Alg. 8.4.1).
      const tau = (aqq - app) / (2 * apq);
      const t = (tau >= 0 ? 1 : -1) / (Math.abs(tau) + Math.sqrt(1 + tau * tau));
      const c = 1 / Math.sqrt(1 + t * t);
      const s = t * c;
      // Update A = Jᵀ A J on the rows/columns p, q; r is the third index.
      const r = 3 - p - q;
      const apr = r === 0 ? a01 : r === 1 ? (p === 0 ? a01 : a12) : p === 0 ? a02 : a12;
      const aqr = r === 0 ? a02 : a12;
      const nApp = app - t * apq;
      const nAqq = aqq + t * apq;
      const nApr = c * apr - s * aqr;
      const nAqr = s * apr + c * aqr;
      // Write back (p, q, r) is one of (0,1,2), (0,2,1), (1,2,0).
      if (p === 0 && q === 1) {
        a00 = nApp;
        a11 = nAqq;
        a01 = 0;
        a02 = nApr;
        a12 = nAqr;
      } else if (p === 0) {
        a00 = nApp;
        a22 = nAqq;
        a02 = 0;
        a01 = nApr;
        a12 = nAqr;
      } else {
        a11 = nApp;
        a22 = nAqq;
        a12 = 0;
        a01 = nApr;
        a02 = nAqr;
      }
      for (let k = 0; k < 3; k++) {
        const vp = V[3 * k + p];
        const vq = V[3 * k + q];
        V[3 * k + p] = c * vp - s * vq;
        V[3 * k + q] = s * vp + c * vq;
      }
    }
  }
  // Descending eigenvalue order a, b, c: a sorting network's three compare-and-swaps (no
  // arrays: this runs once per vertex per frame).
  const swap01 = a00 < a11;
  let ia = swap01 ? 1 : 0;
  let ib = 1 - ia;
  let ic = 2;
  let ea = swap01 ? a11 : a00;
  const eb = swap01 ? a00 : a11;
  let ec = a22;
  if (ea < ec) {
    const t = ia;
    ia = ic;
    ic = t;
    ec = ea;
    ea = a22;
  }
  if (eb < ec) {
    const t = ib;
    ib = ic;
    ic = t;
  }
  const U = work; // U at [9, 18)
  // u_a = S v_a / |S v_a|
  let ux = S[0] * V[ia] + S[1] * V[3 + ia] + S[2] * V[6 + ia];
  let uy = S[3] * V[ia] + S[4] * V[3 + ia] + S[5] * V[6 + ia];
  let uz = S[6] * V[ia] + S[7] * V[3 + ia] + S[8] * V[6 + ia];
  let l = Math.hypot(ux, uy, uz);
  if (l > 0) {
    U[9] = ux / l;
    U[10] = uy / l;
    U[11] = uz / l;
  } else {
    // S = 0: R = I
    U[9] = V[ia];
    U[10] = V[3 + ia];
    U[11] = V[6 + ia];
  }
  // u_b ⟂ u_a
  ux = S[0] * V[ib] + S[1] * V[3 + ib] + S[2] * V[6 + ib];
  uy = S[3] * V[ib] + S[4] * V[3 + ib] + S[5] * V[6 + ib];
  uz = S[6] * V[ib] + S[7] * V[3 + ib] + S[8] * V[6 + ib];
  let d = ux * U[9] + uy * U[10] + uz * U[11];
  ux -= d * U[9];
  uy -= d * U[10];
  uz -= d * U[11];
  l = Math.hypot(ux, uy, uz);
  if (!(l > 1e-12 * Math.sqrt(ea))) {
    // Rank ≤ 1: any unit vector orthogonal to u_a.
    const ax = Math.abs(U[9]) < 0.6 ? 1 : 0;
    const ay = ax ? 0 : 1;
    ux = ay * U[11];
    uy = -ax * U[11];
    uz = ax * U[10] - ay * U[9];
    l = Math.hypot(ux, uy, uz);
  }
  U[12] = ux / l;
  U[13] = uy / l;
  U[14] = uz / l;
  // u_c = ±u_a × u_b
  const wx = U[10] * U[14] - U[11] * U[13];
  const wy = U[11] * U[12] - U[9] * U[14];
  const wz = U[9] * U[13] - U[10] * U[12];
  const cx = S[0] * V[ic] + S[1] * V[3 + ic] + S[2] * V[6 + ic];
  const cy = S[3] * V[ic] + S[4] * V[3 + ic] + S[5] * V[6 + ic];
  const cz = S[6] * V[ic] + S[7] * V[3 + ic] + S[8] * V[6 + ic];
  d = cx * wx + cy * wy + cz * wz;
  let sign: number;
  if (!rotation && Math.abs(d) > 1e-9 * Math.sqrt(ea)) sign = d > 0 ? 1 : -1;
  else {
    // det[v_a v_b v_c] = ±1 (the order's parity); make det R = +1.
    const vx = V[3 + ia] * V[6 + ib] - V[6 + ia] * V[3 + ib];
    const vy = V[6 + ia] * V[ib] - V[ia] * V[6 + ib];
    const vz = V[ia] * V[3 + ib] - V[3 + ia] * V[ib];
    sign = vx * V[ic] + vy * V[3 + ic] + vz * V[6 + ic] > 0 ? 1 : -1;
  }
  U[15] = sign * wx;
  U[16] = sign * wy;
  U[17] = sign * wz;
  // R = u_a v_aᵀ + u_b v_bᵀ + u_c v_cᵀ
  for (let r = 0; r < 3; r++) {
    const ua = U[9 + r], ub = U[12 + r], uc = U[15 + r]; // prettier-ignore
    for (let c = 0; c < 3; c++) R[3 * r + c] = ua * V[3 * c + ia] + ub * V[3 * c + ib] + uc * V[3 * c + ic];
  }
}
