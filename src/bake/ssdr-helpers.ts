/**
 * The bone update of the smooth skinning decomposition (Binh Huy Le and Zhigang Deng, "Smooth
 * Skinning Decomposition with Rigid Bones", ACM TOG 31(6), SIGGRAPH Asia 2012, Sec. 3.3; see
 * `ssdr.ts`): weights fixed, each helper's rigid transform per sample by the weighted Procrustes
 * fit of the residual its vertices leave (Kabsch; Horn 1987), per sample or, where every sample
 * has the same rest positions, from sums over each helper's members made once.
 *
 * @module
 */
import { mat4LinearDeterminant } from '../core/math.js';
import { polarFactor } from '../methods/ddm/polar.js';
import { jointScale, type SsdrModel, type SsdrNormals, type SsdrProblem } from './ssdr.js';

/** Scratch of {@link rigidFit}: the cross-covariance, the rotation and the polar factor's room. */
export interface RigidFitScratch {
  M: Float64Array;
  R: Float64Array;
  work: Float64Array;
  /** The centroids p̄ and q̄. */
  p: Float64Array;
  q: Float64Array;
}

/** Room for {@link rigidFit}'s intermediate values, reused across calls. */
export function rigidFitScratch(): RigidFitScratch {
  return { M: new Float64Array(9), R: new Float64Array(9), work: new Float64Array(18), p: new Float64Array(3), q: new Float64Array(3) }; // prettier-ignore
}

/**
 * Weighted rigid fit at a given scale: the rotation R and translation T minimising
 * Σ u_i ‖q_i − (s R p_i + T)‖² (Kabsch; Horn 1987; for a fixed s > 0 the best R does not depend
 * on s). Writes s R | T as a 4×4 column-major matrix at out[o..].
 * @param P bind positions, 3 per point; Q targets, 3 per point; u weights (≥ 0), one per point
 * @param scale s; negative: R among the orthogonal matrices of determinant −1 instead (a rotation
 *   times the mirroring diag(−1, 1, 1)) at scale |s|, for targets mirrored by the rig
 * @param scratch room reused across calls ({@link rigidFitScratch}); a new one when absent
 * @param prior where given, the column-major 4×4 at `prior[priorOffset..]` whose linear part (÷ its
 *   uniform scale) the rotation leans towards where the points leave it free: `λ·prior` is added
 *   to the cross-covariance, λ = `priorStrength` · s · Σ u_i‖p_i − p̄‖² (a Tikhonov term
 *   s·λ‖R − R₀‖² in the minimisation, small beside any direction the points fix; 0 where the
 *   points coincide, whose rotation then stays the polar factor's start)
 */
export function rigidFit(
  P: Float64Array,
  Q: Float64Array,
  u: Float64Array,
  count: number,
  out: Float64Array,
  o: number,
  scale = 1,
  scratch: RigidFitScratch = rigidFitScratch(),
  prior?: Float64Array,
  priorOffset = 0,
  priorStrength = 0,
): void {
  let su = 0;
  let px = 0, py = 0, pz = 0, qx = 0, qy = 0, qz = 0; // prettier-ignore
  for (let i = 0; i < count; i++) {
    const w = u[i];
    su += w;
    px += w * P[3 * i];
    py += w * P[3 * i + 1];
    pz += w * P[3 * i + 2];
    qx += w * Q[3 * i];
    qy += w * Q[3 * i + 1];
    qz += w * Q[3 * i + 2];
  }
  const { M } = scratch;
  M.fill(0); // Σ u (q − q̄)(p − p̄)ᵀ, row-major
  let spread = 0;
  if (su > 0) {
    px /= su;
    py /= su;
    pz /= su;
    qx /= su;
    qy /= su;
    qz /= su;
    let m0 = 0, m1 = 0, m2 = 0, m3 = 0, m4 = 0, m5 = 0, m6 = 0, m7 = 0, m8 = 0; // prettier-ignore
    for (let i = 0; i < count; i++) {
      const w = u[i];
      const ax = w * (Q[3 * i] - qx), ay = w * (Q[3 * i + 1] - qy), az = w * (Q[3 * i + 2] - qz); // prettier-ignore
      const bx = P[3 * i] - px, by = P[3 * i + 1] - py, bz = P[3 * i + 2] - pz; // prettier-ignore
      spread += w * (bx * bx + by * by + bz * bz);
      m0 += ax * bx;
      m1 += ax * by;
      m2 += ax * bz;
      m3 += ay * bx;
      m4 += ay * by;
      m5 += ay * bz;
      m6 += az * bx;
      m7 += az * by;
      m8 += az * bz;
    }
    M[0] = m0;
    M[1] = m1;
    M[2] = m2;
    M[3] = m3;
    M[4] = m4;
    M[5] = m5;
    M[6] = m6;
    M[7] = m7;
    M[8] = m8;
  }
  scratch.p[0] = px;
  scratch.p[1] = py;
  scratch.p[2] = pz;
  scratch.q[0] = qx;
  scratch.q[1] = qy;
  scratch.q[2] = qz;
  rigidFromCovariance(scratch, su, spread, out, o, scale, prior, priorOffset, priorStrength);
}

/**
 * The tail of {@link rigidFit}: from the weighted cross-covariance `scratch.M` (Σ u (q − q̄)(p − p̄)ᵀ,
 * row-major), the centroids `scratch.p` (p̄) and `scratch.q` (q̄), the weights' sum `su` and the
 * points' weighted spread Σ u ‖p − p̄‖², writes s R | T at out[o..] as `rigidFit` does (`scale`,
 * `prior` as there). Overwrites `scratch.M`.
 */
function rigidFromCovariance(
  scratch: RigidFitScratch,
  su: number,
  spread: number,
  out: Float64Array,
  o: number,
  scale: number,
  prior: Float64Array | undefined,
  priorOffset: number,
  priorStrength: number,
): void {
  const mirrored = scale < 0;
  const s = Math.abs(scale);
  const { M, R, work } = scratch;
  const px = scratch.p[0], py = scratch.p[1], pz = scratch.p[2]; // prettier-ignore
  const qx = scratch.q[0], qy = scratch.q[1], qz = scratch.q[2]; // prettier-ignore
  if (su > 0 && prior && priorStrength > 0) {
    const lambda = (priorStrength * s * spread) / (Math.cbrt(Math.abs(mat4LinearDeterminant(prior, priorOffset))) || 1);
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) M[3 * r + c] += lambda * prior[priorOffset + 4 * c + r];
  }
  // Mirrored: R = R'·F with F = diag(−1, 1, 1), and tr(Rᵀ M) = tr(R'ᵀ M F): R' the rotation of M·F.
  if (mirrored) for (let r = 0; r < 3; r++) M[3 * r] = -M[3 * r];
  if (su > 0) polarFactor(M, R, work, true);
  else R.set(IDENTITY3);
  if (mirrored) for (let r = 0; r < 3; r++) R[3 * r] = -R[3 * r];
  out.fill(0, o, o + 16);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) out[o + 4 * c + r] = s * R[3 * r + c];
  out[o + 12] = qx - s * (R[0] * px + R[1] * py + R[2] * pz);
  out[o + 13] = qy - s * (R[3] * px + R[4] * py + R[5] * pz);
  out[o + 14] = qz - s * (R[6] * px + R[7] * py + R[8] * pz);
  out[o + 15] = 1;
}

const IDENTITY3 = [1, 0, 0, 0, 1, 0, 0, 0, 1];

/**
 * How strongly a helper's rotation leans towards its joint's where its vertices leave it free
 * (`rigidFit`'s prior) in a bake guarded half-way between its samples too (`HelperBakeOptions.guard`),
 * relative to their weighted spread: a helper whose vertices lie on a line or near one point is
 * free to turn about it, and each sample's fit then lands anywhere on that freedom, up to 180°
 * from the last sample's, which a player interpolates between samples. Measured on the Fox (DQS,
 * 4 influences, `--guard between`): the share of LBS's p99 distance removed at the samples 69.8%
 * without, 80.1% at 1e-4, 82.2% at 1e-3, 83.3% at 1e-2 (but a max 1.00 of LBS's); half-way
 * 68.4%, 77.5%, 79.3%, 80.7%. Not with the guard at the samples alone:
 * there it changes which least-squares minimum a sample lands in more than how far the bake
 * comes (ShibaInu CoR: max 0.33 of LBS's without, 0.99 at 1e-4, 0.54 at 1e-3; the Fox 94.7% →
 * 94.6%). Where the points fix the rotation, it moves it by about 4e-3 rad at most (10 points in
 * a cube, a prior anywhere).
 */
export const BETWEEN_PRIOR_STRENGTH = 1e-3;

/**
 * Bone update (Le & Deng 2012, Sec. 3.3): each helper's transform at every sample, weights fixed.
 * The samples are independent: at each, `passes` sweeps over the helpers in order (each fit sees
 * the others' latest transforms; every fit is an exact block minimisation, so the error over the
 * members never rises), the fixed joints' share of every member computed once per sample —
 * or, where every sample has the same rest positions (no morph targets), each fit's
 * cross-covariance assembled from sums over the helper's members made once
 * (`updateHelpersAtOneRest`; the same fits up to rounding). `problem.normals` is matched only on
 * that one-rest path: where the rest positions differ per sample the bind normals would too, and
 * `fitData` leaves the normals out of such a problem, so this path fits positions alone.
 * @param members per helper, the vertices with a positive weight on it
 * @param passes sweeps over the helpers at each sample (≥ 1)
 * @param samples the samples to update, default all
 * @param priorStrength how much each helper leans towards its joint's rotation where its vertices
 *   leave it free (`rigidFit`'s prior; default 0, none)
 */
export function updateHelpers(
  problem: SsdrProblem,
  model: SsdrModel,
  members: Int32Array[],
  passes = 1,
  samples: Iterable<number> = problem.targets.keys(),
  priorStrength = 0,
): void {
  if (problem.rest.every((r) => r === problem.rest[0]))
    return updateHelpersAtOneRest(problem, model, members, passes, samples, priorStrength);
  const { influences: K, joints, weights } = model;
  const H = model.helpers;
  const J = problem.fixed[0].length >> 4;
  // Every member once (slot g of `union`), and per helper its members' slots and weights.
  const slot = new Map<number, number>();
  const union: number[] = [];
  const slotsOf: Int32Array[] = [];
  const u: Float64Array[] = [];
  const inverse: Float64Array[] = [];
  let most = 0;
  for (let h = 0; h < H; h++) {
    const list = members[h];
    const slots = new Int32Array(list.length);
    const wh = new Float64Array(list.length);
    list.forEach((i, a) => {
      let g = slot.get(i);
      if (g === undefined) slot.set(i, (g = union.push(i) - 1));
      slots[a] = g;
      for (let k = K * i; k < K * i + K; k++) if (joints[k] === J + h) wh[a] = weights[k];
    });
    slotsOf.push(slots);
    u.push(wh.map((w) => w * w));
    inverse.push(wh.map((w) => 1 / w));
    most = Math.max(most, list.length);
  }
  const U = union.length;
  if (!U) return;
  const residual = new Float64Array(3 * U); // target − the fixed joints' share, per member
  const P = new Float64Array(3 * most);
  const Q = new Float64Array(3 * most);
  const scratch = rigidFitScratch();
  for (const t of samples) {
    const rest = problem.rest[t];
    const y = problem.targets[t];
    const F = problem.fixed[t];
    const X = model.transforms[t];
    for (let g = 0; g < U; g++) {
      const i = union[g];
      const x0 = rest[3 * i], x1 = rest[3 * i + 1], x2 = rest[3 * i + 2]; // prettier-ignore
      let rx = y[3 * i], ry = y[3 * i + 1], rz = y[3 * i + 2]; // prettier-ignore
      for (let k = K * i; k < K * i + K; k++) {
        const w = weights[k];
        const j = joints[k];
        if (w === 0 || j >= J) continue;
        const o = j << 4;
        rx -= w * (F[o] * x0 + F[o + 4] * x1 + F[o + 8] * x2 + F[o + 12]);
        ry -= w * (F[o + 1] * x0 + F[o + 5] * x1 + F[o + 9] * x2 + F[o + 13]);
        rz -= w * (F[o + 2] * x0 + F[o + 6] * x1 + F[o + 10] * x2 + F[o + 14]);
      }
      residual[3 * g] = rx;
      residual[3 * g + 1] = ry;
      residual[3 * g + 2] = rz;
    }
    for (let pass = 0; pass < passes; pass++) {
      for (let h = 0; h < H; h++) {
        const list = members[h];
        const count = list.length;
        if (!count) continue;
        const slots = slotsOf[h];
        const inv = inverse[h];
        for (let a = 0; a < count; a++) {
          const i = list[a];
          const g = slots[a];
          const x0 = rest[3 * i], x1 = rest[3 * i + 1], x2 = rest[3 * i + 2]; // prettier-ignore
          // q = y − Σ_{k ≠ h} w_k M_k p, then the target of the fit is q / w_h
          let qx = residual[3 * g], qy = residual[3 * g + 1], qz = residual[3 * g + 2]; // prettier-ignore
          for (let k = K * i; k < K * i + K; k++) {
            const w = weights[k];
            const j = joints[k];
            if (w === 0 || j < J || j === J + h) continue;
            const o = (j - J) << 4;
            qx -= w * (X[o] * x0 + X[o + 4] * x1 + X[o + 8] * x2 + X[o + 12]);
            qy -= w * (X[o + 1] * x0 + X[o + 5] * x1 + X[o + 9] * x2 + X[o + 13]);
            qz -= w * (X[o + 2] * x0 + X[o + 6] * x1 + X[o + 10] * x2 + X[o + 14]);
          }
          Q[3 * a] = qx * inv[a];
          Q[3 * a + 1] = qy * inv[a];
          Q[3 * a + 2] = qz * inv[a];
          P[3 * a] = x0;
          P[3 * a + 1] = x1;
          P[3 * a + 2] = x2;
        }
        const scale = problem.helperJoints ? jointScale(F, problem.helperJoints[h]) : 1;
        const joint = problem.helperJoints?.[h];
        rigidFit(P, Q, u[h], count, X, h << 4, scale, scratch, joint === undefined ? undefined : F, 16 * (joint ?? 0), priorStrength); // prettier-ignore
      }
    }
  }
}

/**
 * {@link updateHelpers} where every sample has the same rest positions (no morph targets): the
 * same fits, each helper's cross-covariance and centroid assembled from sums over its members
 * made once for all samples. With d_i = p_i − p̄ (p̄ the members' centroid, weights u_i = w_ih²),
 * Σ_i u_i q_i d_iᵀ / w_ih = Σ_i w_ih y_i(t) d_iᵀ − Σ_k M_k(t) Σ_i w_ih w_ik p̃_i d_iᵀ over the other
 * influences k of the members (p̃ = (p, 1), M_k(t) a fixed joint's skinning matrix or another
 * helper's latest transform): per sample one pass over the members for the targets' term, and one
 * 3×4 by 4×3 product per (helper, influence) pair, instead of every influence of every member.
 */
function updateHelpersAtOneRest(
  problem: SsdrProblem,
  model: SsdrModel,
  members: Int32Array[],
  passes: number,
  samples: Iterable<number>,
  priorStrength: number,
): void {
  const { influences: K, joints, weights } = model;
  const H = model.helpers;
  const J = problem.fixed[0].length >> 4;
  const rest = problem.rest[0];
  const { normals } = problem;
  // Each other influence's slot in the helper's sums while they are made (−1: none yet).
  const slotOf = new Int32Array(J + H).fill(-1);
  /**
   * Per helper: its members' weight on it and offsets d (3 each), Σ u, p̄, the spread, and per
   * other influence its sums (and its normals' sums).
   */
  const helpers = members.map((list, h) => {
    const count = list.length;
    const wh = new Float64Array(count);
    let su = 0;
    const p = [0, 0, 0];
    for (let a = 0; a < count; a++) {
      const i = list[a];
      for (let k = K * i; k < K * i + K; k++) if (joints[k] === J + h) wh[a] = weights[k];
      const u = wh[a] * wh[a];
      su += u;
      for (let c = 0; c < 3; c++) p[c] += u * rest[3 * i + c];
    }
    if (su > 0) for (let c = 0; c < 3; c++) p[c] /= su;
    const d = new Float64Array(3 * count);
    let spread = 0;
    for (let a = 0; a < count; a++) {
      const i = list[a];
      for (let c = 0; c < 3; c++) d[3 * a + c] = rest[3 * i + c] - p[c];
      spread += wh[a] * wh[a] * (d[3 * a] ** 2 + d[3 * a + 1] ** 2 + d[3 * a + 2] ** 2);
    }
    // Per other influence j (slot e, in the order the members first name them): C = Σ w_ih w_ij
    // p̃_i d_iᵀ (4×3, row k of p̃) and c = Σ w_ih w_ij p̃_i (4), at 16·e of `sums`.
    const others: number[] = [];
    for (let a = 0; a < count; a++)
      for (let k = K * list[a]; k < K * list[a] + K; k++) {
        const j = joints[k];
        if (weights[k] !== 0 && j !== J + h && slotOf[j] < 0) slotOf[j] = others.push(j) - 1;
      }
    const sums = new Float64Array(16 * others.length);
    // With normals: per other influence, Σ λ_i² w_ih w_ij n_i n_iᵀ (3×3 row-major) at 9·e.
    const normalSums = new Float64Array(normals ? 9 * others.length : 0);
    for (let a = 0; a < count; a++) {
      const i = list[a];
      for (let k = K * i; k < K * i + K; k++) {
        const j = joints[k];
        if (weights[k] === 0 || j === J + h) continue;
        const at = 16 * slotOf[j];
        const f = wh[a] * weights[k];
        for (let r = 0; r < 4; r++) {
          const x = r < 3 ? rest[3 * i + r] : 1;
          for (let c = 0; c < 3; c++) sums[at + 3 * r + c] += f * x * d[3 * a + c];
          sums[at + 12 + r] += f * x;
        }
        if (!normals) continue;
        const n = normals.rest;
        const g = normals.weights[i] * wh[a] * weights[k];
        const N = 9 * slotOf[j];
        for (let r = 0; r < 3; r++)
          for (let c = 0; c < 3; c++) normalSums[N + 3 * r + c] += g * n[3 * i + r] * n[3 * i + c];
      }
    }
    for (const j of others) slotOf[j] = -1;
    return { list, wh, su, p, d, spread, others: Int32Array.from(others), sums, normalSums };
  });
  const Y = new Float64Array(12 * H); // per helper at a sample: Σ w_ih y_i d_iᵀ (row-major 3×3), Σ w_ih y_i (3)
  const scratch = rigidFitScratch();
  const { M } = scratch;
  for (const t of samples) {
    const y = problem.targets[t];
    const F = problem.fixed[t];
    const X = model.transforms[t];
    for (let h = 0; h < H; h++) {
      const { list, wh, d } = helpers[h];
      let m0 = 0, m1 = 0, m2 = 0, m3 = 0, m4 = 0, m5 = 0, m6 = 0, m7 = 0, m8 = 0, s0 = 0, s1 = 0, s2 = 0; // prettier-ignore
      for (let a = 0; a < list.length; a++) {
        const i = list[a];
        const w = wh[a];
        const y0 = w * y[3 * i], y1 = w * y[3 * i + 1], y2 = w * y[3 * i + 2]; // prettier-ignore
        const d0 = d[3 * a], d1 = d[3 * a + 1], d2 = d[3 * a + 2]; // prettier-ignore
        m0 += y0 * d0;
        m1 += y0 * d1;
        m2 += y0 * d2;
        m3 += y1 * d0;
        m4 += y1 * d1;
        m5 += y1 * d2;
        m6 += y2 * d0;
        m7 += y2 * d1;
        m8 += y2 * d2;
        s0 += y0;
        s1 += y1;
        s2 += y2;
      }
      Y.set([m0, m1, m2, m3, m4, m5, m6, m7, m8, s0, s1, s2], 12 * h);
      if (normals) addTargetNormals(Y, 12 * h, list, wh, normals, t);
    }
    for (let pass = 0; pass < passes; pass++) {
      for (let h = 0; h < H; h++) {
        const { list, su, p, spread, others, sums, normalSums } = helpers[h];
        if (!list.length) continue;
        for (let e = 0; e < 9; e++) M[e] = Y[12 * h + e];
        let q0 = Y[12 * h + 9], q1 = Y[12 * h + 10], q2 = Y[12 * h + 11]; // prettier-ignore
        for (let e = 0; e < others.length; e++) {
          const j = others[e];
          const [A, o] = j < J ? [F, j << 4] : [X, (j - J) << 4];
          const S = 16 * e;
          // M −= A (rows 0–2, 3×4) · C (4×3); q −= A · c.
          for (let r = 0; r < 3; r++) {
            const a0 = A[o + r], a1 = A[o + 4 + r], a2 = A[o + 8 + r], a3 = A[o + 12 + r]; // prettier-ignore
            for (let c = 0; c < 3; c++)
              M[3 * r + c] -= a0 * sums[S + c] + a1 * sums[S + 3 + c] + a2 * sums[S + 6 + c] + a3 * sums[S + 9 + c];
          }
          const c0 = sums[S + 12], c1 = sums[S + 13], c2 = sums[S + 14], c3 = sums[S + 15]; // prettier-ignore
          q0 -= A[o] * c0 + A[o + 4] * c1 + A[o + 8] * c2 + A[o + 12] * c3;
          q1 -= A[o + 1] * c0 + A[o + 5] * c1 + A[o + 9] * c2 + A[o + 13] * c3;
          q2 -= A[o + 2] * c0 + A[o + 6] * c1 + A[o + 10] * c2 + A[o + 14] * c3;
          // With normals: M −= L (A's linear part) · N.
          if (normals) {
            const N = 9 * e;
            for (let r = 0; r < 3; r++)
              for (let c = 0; c < 3; c++)
                M[3 * r + c] -= (A[o + r] * normalSums[N + c] + A[o + 4 + r] * normalSums[N + 3 + c] + A[o + 8 + r] * normalSums[N + 6 + c]); // prettier-ignore
          }
        }
        scratch.p.set(p);
        scratch.q[0] = su > 0 ? q0 / su : 0;
        scratch.q[1] = su > 0 ? q1 / su : 0;
        scratch.q[2] = su > 0 ? q2 / su : 0;
        const scale = problem.helperJoints ? jointScale(F, problem.helperJoints[h]) : 1;
        const joint = problem.helperJoints?.[h];
        rigidFromCovariance(scratch, su, spread, X, h << 4, scale, joint === undefined ? undefined : F, 16 * (joint ?? 0), priorStrength); // prettier-ignore
      }
    }
  }
}

/**
 * Adds Σ_a λ_i² w_a m_i(t) n_iᵀ (row-major 3×3; i = list[a], w_a its weight on the helper, m the
 * target normals at sample t, n the bind normals: `SsdrProblem.normals`) to Y[o..o + 9], a
 * helper's cross-covariance term from its targets at the sample.
 */
function addTargetNormals(
  Y: Float64Array,
  o: number,
  list: Int32Array,
  wh: Float64Array,
  normals: SsdrNormals,
  t: number,
): void {
  const n = normals.rest;
  const m = normals.targets[t];
  for (let a = 0; a < list.length; a++) {
    const i = list[a];
    const f = normals.weights[i] * wh[a];
    const m0 = f * m[3 * i], m1 = f * m[3 * i + 1], m2 = f * m[3 * i + 2]; // prettier-ignore
    const n0 = n[3 * i], n1 = n[3 * i + 1], n2 = n[3 * i + 2]; // prettier-ignore
    Y[o] += m0 * n0;
    Y[o + 1] += m0 * n1;
    Y[o + 2] += m0 * n2; // prettier-ignore
    Y[o + 3] += m1 * n0;
    Y[o + 4] += m1 * n1;
    Y[o + 5] += m1 * n2; // prettier-ignore
    Y[o + 6] += m2 * n0;
    Y[o + 7] += m2 * n1;
    Y[o + 8] += m2 * n2; // prettier-ignore
  }
}
