/**
 * Smooth skinning decomposition with rigid bones (Binh Huy Le and Zhigang Deng, "Smooth Skinning
 * Decomposition with Rigid Bones", ACM TOG 31(6), SIGGRAPH Asia 2012), specialised to helper
 * joints: the skeleton's own joints keep their animation (fixed transforms), and a few rigid
 * helper joints are added so that linear blend skinning reproduces a target deformation (the
 * posed meshes of another skinning method) over sampled poses.
 *
 * The alternation of the paper (Sec. 3):
 * - **bone update** (Sec. 3.3): weights fixed, each helper's rigid transform per sample is the
 *   weighted Procrustes fit of the residual its vertices leave — minimise
 *   Σ_i ‖q_i − w_ih (R p_i + T)‖², q_i the target less the other influences' contributions —
 *   closed form: the Kabsch rotation of the w²-weighted cross-covariance, then T;
 * - **weight update** (Sec. 3.2): transforms fixed, each active vertex's weights over its
 *   candidates (its joints and the helpers of its region) by non-negative least squares with the
 *   affinity constraint Σ w = 1 as a heavily weighted row; where more than K are in use, the
 *   best K-subset (every one of up to 9 candidates, else the K heaviest) solved again.
 *
 * All positions are in bind space (in) and posed space (targets), the asset's units.
 *
 * @module
 */
import { mat4LinearDeterminant } from '../core/math.js';
import { polarFactor } from '../methods/ddm/polar.js';

/** The data of a decomposition: T samples of n vertices. */
export interface SsdrProblem {
  /** Vertices n. */
  n: number;
  /** Bind-space positions at sample t (the same array for every t without morph targets), length 3·n each. */
  rest: Float32Array[];
  /** Target posed positions at sample t, length 3·n each. */
  targets: Float32Array[];
  /** The fixed joints' skinning matrices at sample t, 4×4 column-major, length 16·J each. */
  fixed: Float64Array[];
  /**
   * The fixed joint each helper hangs from: at a sample where that joint's skinning matrix
   * mirrors (negative determinant: a mirrored rig), the helper is fitted mirrored too, so that
   * its transform relative to the joint stays a rotation. Absent: every helper is a rotation.
   */
  helperJoints?: readonly number[];
}

/** Whether joint `j`'s skinning matrix in `fixed` (16·J, column-major) mirrors (negative determinant). */
export function mirrors(fixed: Float64Array, j: number): boolean {
  return mat4LinearDeterminant(fixed, j << 4) < 0;
}

/** The unknowns: helper transforms and the weights. */
export interface SsdrModel {
  /** Helpers H. */
  helpers: number;
  /** Each helper's skinning matrix at sample t (rigid, bind → posed), 4×4 column-major, length 16·H each. */
  transforms: Float64Array[];
  /** Influences per vertex K. */
  influences: number;
  /** Influence indices: < J a fixed joint, J + h helper h; length K·n. */
  joints: Uint32Array;
  /** Weights, length K·n, summing to 1 per vertex. */
  weights: Float32Array;
}

/** Scratch of {@link rigidFit}: the cross-covariance, the rotation and the polar factor's room. */
export interface RigidFitScratch {
  M: Float64Array;
  R: Float64Array;
  work: Float64Array;
}

/** Room for {@link rigidFit}'s intermediate values, reused across calls. */
export function rigidFitScratch(): RigidFitScratch {
  return { M: new Float64Array(9), R: new Float64Array(9), work: new Float64Array(18) };
}

/**
 * Weighted rigid fit: the rotation R and translation T minimising Σ u_i ‖r_i − (R p_i + T)‖²
 * (Kabsch; Horn 1987). Writes R | T as a 4×4 column-major matrix at out[o..].
 * @param P bind positions, 3 per point; Q targets, 3 per point; u weights (≥ 0), one per point
 * @param mirrored fit R among the orthogonal matrices of determinant −1 instead (a rotation
 *   times the mirroring diag(−1, 1, 1)), for targets mirrored by the rig
 * @param scratch room reused across calls ({@link rigidFitScratch}); a new one when absent
 */
export function rigidFit(
  P: Float64Array,
  Q: Float64Array,
  u: Float64Array,
  count: number,
  out: Float64Array,
  o: number,
  mirrored = false,
  scratch: RigidFitScratch = rigidFitScratch(),
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
  const { M, R, work } = scratch;
  M.fill(0); // Σ u (q − q̄)(p − p̄)ᵀ, row-major
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
  // Mirrored: R = R'·F with F = diag(−1, 1, 1), and tr(Rᵀ M) = tr(R'ᵀ M F): R' the rotation of M·F.
  if (mirrored) for (let r = 0; r < 3; r++) M[3 * r] = -M[3 * r];
  if (su > 0) polarFactor(M, R, work, true);
  else R.set(IDENTITY3);
  if (mirrored) for (let r = 0; r < 3; r++) R[3 * r] = -R[3 * r];
  out.fill(0, o, o + 16);
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) out[o + 4 * c + r] = R[3 * r + c];
  out[o + 12] = qx - (R[0] * px + R[1] * py + R[2] * pz);
  out[o + 13] = qy - (R[3] * px + R[4] * py + R[5] * pz);
  out[o + 14] = qz - (R[6] * px + R[7] * py + R[8] * pz);
  out[o + 15] = 1;
}

const IDENTITY3 = [1, 0, 0, 0, 1, 0, 0, 0, 1];

/**
 * Bone update (Le & Deng 2012, Sec. 3.3): each helper's transform at every sample, weights fixed.
 * The samples are independent: at each, `passes` sweeps over the helpers in order (each fit sees
 * the others' latest transforms; every fit is an exact block minimisation, so the error over the
 * members never rises), the fixed joints' share of every member computed once per sample.
 * @param members per helper, the vertices with a positive weight on it
 * @param passes sweeps over the helpers at each sample (≥ 1)
 * @param samples the samples to update, default all
 */
export function updateHelpers(
  problem: SsdrProblem,
  model: SsdrModel,
  members: Int32Array[],
  passes = 1,
  samples: Iterable<number> = problem.targets.keys(),
): void {
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
        const mirrored = problem.helperJoints !== undefined && mirrors(F, problem.helperJoints[h]);
        rigidFit(P, Q, u[h], count, X, h << 4, mirrored, scratch);
      }
    }
  }
}

/** Room for {@link updateVertexWeights}, reused across vertices (sized for up to `c` candidates as it grows). */
export interface WeightScratch {
  /** The K-subsets of c candidates, by `${c},${K}`. */
  subsets: Map<string, Int32Array>;
  G: Float64Array;
  /** The Gram matrix G without the affinity row (c × c), and b likewise (c). */
  gram: Float64Array;
  bGram: Float64Array;
  b: Float64Array;
  cols: Float64Array;
  w: Float64Array;
  trial: Float64Array;
  before: Float64Array;
  after: Float64Array;
  nnls: { A: Float64Array; x: Float64Array; set: Int32Array };
}

/** A fresh {@link WeightScratch}. */
export function weightScratch(): WeightScratch {
  const room = (c: number) => new Float64Array(c);
  return {
    subsets: new Map(),
    G: room(0),
    gram: room(0),
    bGram: room(0),
    b: room(0),
    cols: room(0),
    w: room(0),
    trial: room(0),
    before: room(0),
    after: room(0),
    nnls: { A: room(0), x: room(0), set: new Int32Array(0) },
  };
}

/** Grows `s` to hold c candidates. */
function growWeightScratch(s: WeightScratch, c: number): void {
  if (s.b.length >= c) return;
  for (const key of ['b', 'bGram', 'w', 'trial', 'before', 'after'] as const) s[key] = new Float64Array(c);
  s.G = new Float64Array(c * c);
  s.gram = new Float64Array(c * c);
  s.cols = new Float64Array(3 * c);
  s.nnls = { A: new Float64Array(c * c), x: new Float64Array(c), set: new Int32Array(c) };
}

/**
 * Weight update (Le & Deng 2012, Sec. 3.2) of one vertex: non-negative least squares over its
 * candidate influences with Σ w = 1 as a row of weight `affinity`·(the problem's scale), keeping
 * the K largest. Writes the vertex's K slots of `model` — unless that is worse than what they
 * hold (the truncation to K can be), so the alternation never raises the error. Both errors come
 * from the normal equations' quadratic form (exact: the error is wᵀGw − 2bᵀw + Σ‖y‖²).
 * @param candidates influence indices (fixed joints < J, helpers J + h)
 * @param scratch room reused across vertices ({@link weightScratch}); a new one when absent
 */
export function updateVertexWeights(
  problem: SsdrProblem,
  model: SsdrModel,
  i: number,
  candidates: readonly number[],
  scratch: WeightScratch = weightScratch(),
): void {
  const c = candidates.length;
  const K = model.influences;
  const J = problem.fixed[0].length >> 4;
  growWeightScratch(scratch, c);
  const { G, gram, bGram, b, cols, w, trial } = scratch;
  G.fill(0, 0, c * c);
  b.fill(0, 0, c);
  for (let t = 0; t < problem.targets.length; t++) {
    const rest = problem.rest[t];
    const y = problem.targets[t];
    const F = problem.fixed[t];
    const X = model.transforms[t];
    const x0 = rest[3 * i], x1 = rest[3 * i + 1], x2 = rest[3 * i + 2]; // prettier-ignore
    for (let a = 0; a < c; a++) {
      const j = candidates[a];
      const M = j < J ? F : X;
      const o = j < J ? j << 4 : (j - J) << 4;
      cols[3 * a] = M[o] * x0 + M[o + 4] * x1 + M[o + 8] * x2 + M[o + 12];
      cols[3 * a + 1] = M[o + 1] * x0 + M[o + 5] * x1 + M[o + 9] * x2 + M[o + 13];
      cols[3 * a + 2] = M[o + 2] * x0 + M[o + 6] * x1 + M[o + 10] * x2 + M[o + 14];
    }
    const y0 = y[3 * i], y1 = y[3 * i + 1], y2 = y[3 * i + 2]; // prettier-ignore
    for (let a = 0; a < c; a++) {
      const ax = cols[3 * a], ay = cols[3 * a + 1], az = cols[3 * a + 2]; // prettier-ignore
      b[a] += ax * y0 + ay * y1 + az * y2;
      for (let d = a; d < c; d++) G[a * c + d] += ax * cols[3 * d] + ay * cols[3 * d + 1] + az * cols[3 * d + 2];
    }
  }
  for (let a = 0; a < c; a++) for (let d = 0; d < a; d++) G[a * c + d] = G[d * c + a];
  gram.set(G.subarray(0, c * c));
  bGram.set(b.subarray(0, c));
  // The error before, from the quadratic form below, or directly when a joint of the vertex is
  // not a candidate (a caller's start; the update itself writes candidates only).
  const before = weightsOver(model, i, candidates, scratch.before);
  const errorBefore = before ? 0 : vertexError(problem, model, i);
  // Affinity: ρ (Σ w − 1)² with ρ large against the data term.
  let trace = 0;
  for (let a = 0; a < c; a++) trace += G[a * c + a];
  const rho = 1e3 * (trace / c || 1);
  for (let a = 0; a < c; a++) {
    b[a] += rho;
    for (let d = 0; d < c; d++) G[a * c + d] += rho;
  }
  const all = scratch.nnls.set;
  const m = nnls(G, b, c, candidates.keys(), w, scratch.nnls);
  if (m > K) {
    // More than K in use: the best K-subset (every subset of up to 9 candidates, else the K
    // heaviest of the unconstrained solution).
    const heaviest = () =>
      Int32Array.from(all.subarray(0, m))
        .sort((x, y) => w[y] - w[x])
        .subarray(0, K);
    const subsets = c <= 9 ? kSubsets(scratch.subsets, c, K) : heaviest();
    const best = new Float64Array(c);
    let bestValue = Infinity;
    for (let o = 0; o < subsets.length; o += K) {
      nnls(G, b, c, subsets.subarray(o, o + K), trial, scratch.nnls);
      const f = objective(G, b, c, trial);
      if (f < bestValue) {
        bestValue = f;
        best.set(trial.subarray(0, c));
      }
    }
    w.set(best);
  }
  const oldJoints = model.joints.slice(K * i, K * i + K);
  const oldWeights = model.weights.slice(K * i, K * i + K);
  let sum = 0;
  const order: number[] = [];
  for (let a = 0; a < c; a++)
    if (w[a] > 0) {
      sum += w[a];
      order.push(a);
    }
  order.sort((x, y) => w[y] - w[x]);
  for (let k = 0; k < K; k++) {
    const a = order[k];
    model.joints[K * i + k] = a === undefined ? 0 : candidates[a];
    model.weights[K * i + k] = a === undefined || sum <= 0 ? 0 : w[a] / sum;
  }
  if (sum <= 0) {
    // Degenerate: the first candidate (the vertex's own heaviest joint) alone.
    model.joints[K * i] = candidates[0];
    model.weights[K * i] = 1;
  }
  weightsOver(model, i, candidates, scratch.after);
  // f(w₁) − f(w₀) = (w₁ − w₀)ᵀ G (w₁ + w₀) − 2 bᵀ (w₁ − w₀), G and b without the affinity row.
  const worse = before
    ? quadraticChange(gram, bGram, c, scratch.before, scratch.after) > 0
    : vertexError(problem, model, i) > errorBefore;
  if (worse) {
    model.joints.set(oldJoints, K * i);
    model.weights.set(oldWeights, K * i);
  }
}

/**
 * Vertex i's weights in `model` as a vector over `candidates` (into `out`, length ≥ c);
 * false when one of its joints is not a candidate (the vector then is not its weights).
 */
function weightsOver(model: SsdrModel, i: number, candidates: readonly number[], out: Float64Array): boolean {
  const K = model.influences;
  out.fill(0, 0, candidates.length);
  for (let k = K * i; k < K * i + K; k++) {
    const w = model.weights[k];
    if (w === 0) continue;
    const a = candidates.indexOf(model.joints[k]);
    if (a < 0) return false;
    out[a] += w;
  }
  return true;
}

/** (w₁ − w₀)ᵀ G (w₁ + w₀) − 2 bᵀ (w₁ − w₀): the change of wᵀGw − 2bᵀw from w₀ to w₁ (G symmetric c × c). */
function quadraticChange(G: Float64Array, b: Float64Array, c: number, w0: Float64Array, w1: Float64Array): number {
  let f = 0;
  for (let a = 0; a < c; a++) {
    const d = w1[a] - w0[a];
    if (d === 0) continue;
    let g = 0;
    for (let e = 0; e < c; e++) g += G[a * c + e] * (w1[e] + w0[e]);
    f += d * (g - 2 * b[a]);
  }
  return f;
}

/** wᵀGw − 2bᵀw: the least-squares objective up to a constant. */
function objective(G: Float64Array, b: Float64Array, c: number, w: Float64Array): number {
  let f = 0;
  for (let a = 0; a < c; a++) {
    if (w[a] === 0) continue;
    let g = 0;
    for (let d = 0; d < c; d++) g += G[a * c + d] * w[d];
    f += w[a] * (g - 2 * b[a]);
  }
  return f;
}

/**
 * Every k-element subset of 0 … c − 1 in lexicographic order, k numbers each, one after the
 * other (computed once per (c, k) into `cache`).
 */
function kSubsets(cache: Map<string, Int32Array>, c: number, k: number): Int32Array {
  const key = `${c},${k}`;
  let subsets = cache.get(key);
  if (subsets) return subsets;
  const out: number[] = [];
  const pick = (from: number, chosen: number[]) => {
    if (chosen.length === k) return void out.push(...chosen);
    for (let a = from; a <= c - (k - chosen.length); a++) pick(a + 1, [...chosen, a]);
  };
  pick(0, []);
  cache.set(key, (subsets = Int32Array.from(out)));
  return subsets;
}

/**
 * Non-negative least squares of the normal equations G w = b restricted to `active` (Lawson &
 * Hanson's active set, small systems): solve on the passive set, drop the most negative, repeat.
 * Writes w (length c; zero outside the final passive set) and that set into `scratch.set`.
 * @param scratch room for c numbers (`x`, `set`) and a c × c system (`A`)
 * @returns the size of the final passive set
 */
function nnls(
  G: Float64Array,
  b: Float64Array,
  c: number,
  active: Iterable<number>,
  w: Float64Array,
  scratch: { A: Float64Array; x: Float64Array; set: Int32Array },
): number {
  const { A, x: sol, set } = scratch;
  let m = 0;
  for (const a of active) set[m++] = a;
  w.fill(0);
  while (m) {
    for (let x = 0; x < m; x++) {
      sol[x] = b[set[x]];
      for (let y = 0; y < m; y++) A[x * m + y] = G[set[x] * c + set[y]];
    }
    solveInPlace(A, sol, m);
    let worst = -1;
    for (let x = 0; x < m; x++) if (!(sol[x] >= 0) && (worst < 0 || sol[x] < sol[worst])) worst = x;
    if (worst < 0) {
      for (let x = 0; x < m; x++) w[set[x]] = sol[x];
      break;
    }
    set.copyWithin(worst, worst + 1, m--);
  }
  return m;
}

/**
 * Solves the small symmetric system a x = r, m × m (row-major, the first m² numbers of `a`), by
 * Gaussian elimination with partial pivoting, in place: `a` is overwritten, `x` holds r in and the
 * solution out.
 */
function solveInPlace(a: Float64Array, x: Float64Array, m: number): void {
  for (let k = 0; k < m; k++) {
    let p = k;
    for (let i = k + 1; i < m; i++) if (Math.abs(a[i * m + k]) > Math.abs(a[p * m + k])) p = i;
    if (p !== k) {
      for (let j = 0; j < m; j++) {
        const t = a[k * m + j];
        a[k * m + j] = a[p * m + j];
        a[p * m + j] = t;
      }
      const t = x[k];
      x[k] = x[p];
      x[p] = t;
    }
    const d = a[k * m + k];
    if (Math.abs(d) < 1e-300) continue;
    for (let i = k + 1; i < m; i++) {
      const f = a[i * m + k] / d;
      if (f === 0) continue;
      for (let j = k; j < m; j++) a[i * m + j] -= f * a[k * m + j];
      x[i] -= f * x[k];
    }
  }
  for (let k = m - 1; k >= 0; k--) {
    let s = x[k];
    for (let j = k + 1; j < m; j++) s -= a[k * m + j] * x[j];
    const d = a[k * m + k];
    x[k] = Math.abs(d) < 1e-300 ? 0 : s / d;
  }
}

/**
 * Squared error of the model at vertex i summed over the samples (posed units²).
 */
export function vertexError(problem: SsdrProblem, model: SsdrModel, i: number): number {
  return vertexErrors(problem, model, i).sum;
}

/**
 * Squared error of the model at vertex i over the samples (posed units²): summed, and the
 * largest at one sample.
 */
export function vertexErrors(problem: SsdrProblem, model: SsdrModel, i: number): { sum: number; max: number } {
  const K = model.influences;
  const J = problem.fixed[0].length >> 4;
  let e = 0;
  let max = 0;
  for (let t = 0; t < problem.targets.length; t++) {
    const rest = problem.rest[t];
    const F = problem.fixed[t];
    const X = model.transforms[t];
    const x0 = rest[3 * i], x1 = rest[3 * i + 1], x2 = rest[3 * i + 2]; // prettier-ignore
    let x = 0, y = 0, z = 0; // prettier-ignore
    for (let k = K * i; k < K * i + K; k++) {
      const w = model.weights[k];
      if (w === 0) continue;
      const j = model.joints[k];
      const M = j < J ? F : X;
      const o = j < J ? j << 4 : (j - J) << 4;
      x += w * (M[o] * x0 + M[o + 4] * x1 + M[o + 8] * x2 + M[o + 12]);
      y += w * (M[o + 1] * x0 + M[o + 5] * x1 + M[o + 9] * x2 + M[o + 13]);
      z += w * (M[o + 2] * x0 + M[o + 6] * x1 + M[o + 10] * x2 + M[o + 14]);
    }
    const Y = problem.targets[t];
    const d = (x - Y[3 * i]) ** 2 + (y - Y[3 * i + 1]) ** 2 + (z - Y[3 * i + 2]) ** 2;
    e += d;
    if (d > max) max = d;
  }
  return { sum: e, max };
}
