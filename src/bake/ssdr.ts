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
 *   affinity constraint Σ w = 1 as a heavily weighted row, then the K largest kept and solved
 *   again.
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

/** 4×4 column-major affine map applied to (x, y, z) at `p[i..]`, into out[0..2]. */
function apply(M: Float64Array, o: number, p: ArrayLike<number>, i: number, out: Float64Array): void {
  const x = p[i], y = p[i + 1], z = p[i + 2]; // prettier-ignore
  out[0] = M[o] * x + M[o + 4] * y + M[o + 8] * z + M[o + 12];
  out[1] = M[o + 1] * x + M[o + 5] * y + M[o + 9] * z + M[o + 13];
  out[2] = M[o + 2] * x + M[o + 6] * y + M[o + 10] * z + M[o + 14];
}

/**
 * Writes influence k's image of the point at `p[i..]` at sample t into out: a fixed joint's
 * matrix (k < J) or helper k − J's.
 */
function applyInfluence(
  problem: SsdrProblem,
  model: SsdrModel,
  t: number,
  k: number,
  p: ArrayLike<number>,
  i: number,
  out: Float64Array,
): void {
  const fixed = problem.fixed[t];
  const J = fixed.length >> 4;
  if (k < J) apply(fixed, k << 4, p, i, out);
  else apply(model.transforms[t], (k - J) << 4, p, i, out);
}

/**
 * Weighted rigid fit: the rotation R and translation T minimising Σ u_i ‖r_i − (R p_i + T)‖²
 * (Kabsch; Horn 1987). Writes R | T as a 4×4 column-major matrix at out[o..].
 * @param P bind positions, 3 per point; R targets, 3 per point; u weights (≥ 0), one per point
 * @param mirrored fit R among the orthogonal matrices of determinant −1 instead (a rotation
 *   times the mirroring diag(−1, 1, 1)), for targets mirrored by the rig
 */
export function rigidFit(
  P: Float64Array,
  Q: Float64Array,
  u: Float64Array,
  count: number,
  out: Float64Array,
  o: number,
  mirrored = false,
): void {
  let su = 0;
  const pc = [0, 0, 0];
  const qc = [0, 0, 0];
  for (let i = 0; i < count; i++) {
    su += u[i];
    for (let c = 0; c < 3; c++) {
      pc[c] += u[i] * P[3 * i + c];
      qc[c] += u[i] * Q[3 * i + c];
    }
  }
  const M = new Float64Array(9); // Σ u (q − q̄)(p − p̄)ᵀ, row-major
  if (su > 0) {
    for (let c = 0; c < 3; c++) {
      pc[c] /= su;
      qc[c] /= su;
    }
    for (let i = 0; i < count; i++) {
      for (let r = 0; r < 3; r++) {
        const q = u[i] * (Q[3 * i + r] - qc[r]);
        for (let c = 0; c < 3; c++) M[3 * r + c] += q * (P[3 * i + c] - pc[c]);
      }
    }
  }
  const R = new Float64Array(9);
  // Mirrored: R = R'·F with F = diag(−1, 1, 1), and tr(Rᵀ M) = tr(R'ᵀ M F): R' the rotation of M·F.
  if (mirrored) for (let r = 0; r < 3; r++) M[3 * r] = -M[3 * r];
  if (su > 0) polarFactor(M, R, new Float64Array(18), true);
  else R.set([1, 0, 0, 0, 1, 0, 0, 0, 1]);
  if (mirrored) for (let r = 0; r < 3; r++) R[3 * r] = -R[3 * r];
  out.fill(0, o, o + 16);
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 3; c++) out[o + 4 * c + r] = R[3 * r + c];
    out[o + 12 + r] = qc[r] - (R[3 * r] * pc[0] + R[3 * r + 1] * pc[1] + R[3 * r + 2] * pc[2]);
  }
  out[o + 15] = 1;
}

/**
 * Bone update (Le & Deng 2012, Sec. 3.3): each helper's transform at every sample, weights fixed.
 * @param members per helper, the vertices with a positive weight on it
 */
export function updateHelpers(problem: SsdrProblem, model: SsdrModel, members: Int32Array[]): void {
  const { influences: K, joints, weights } = model;
  const J = problem.fixed[0].length >> 4;
  const v = new Float64Array(3);
  for (let h = 0; h < model.helpers; h++) {
    const list = members[h];
    const count = list.length;
    if (!count) continue;
    const P = new Float64Array(3 * count);
    const Q = new Float64Array(3 * count);
    const u = new Float64Array(count);
    const wh = new Float64Array(count);
    for (let a = 0; a < count; a++) {
      const i = list[a];
      for (let k = K * i; k < K * i + K; k++) if (joints[k] === J + h) wh[a] = weights[k];
      u[a] = wh[a] * wh[a];
    }
    for (let t = 0; t < problem.targets.length; t++) {
      const rest = problem.rest[t];
      const y = problem.targets[t];
      for (let a = 0; a < count; a++) {
        const i = list[a];
        // q = y − Σ_{k ≠ h} w_k M_k p, then the target of the fit is q / w_h
        let qx = y[3 * i], qy = y[3 * i + 1], qz = y[3 * i + 2]; // prettier-ignore
        for (let k = K * i; k < K * i + K; k++) {
          const w = weights[k];
          if (w === 0 || joints[k] === J + h) continue;
          applyInfluence(problem, model, t, joints[k], rest, 3 * i, v);
          qx -= w * v[0];
          qy -= w * v[1];
          qz -= w * v[2];
        }
        const inv = 1 / wh[a];
        Q[3 * a] = qx * inv;
        Q[3 * a + 1] = qy * inv;
        Q[3 * a + 2] = qz * inv;
        P[3 * a] = rest[3 * i];
        P[3 * a + 1] = rest[3 * i + 1];
        P[3 * a + 2] = rest[3 * i + 2];
      }
      const mirrored = problem.helperJoints !== undefined && mirrors(problem.fixed[t], problem.helperJoints[h]);
      rigidFit(P, Q, u, count, model.transforms[t], h << 4, mirrored);
    }
  }
}

/**
 * Weight update (Le & Deng 2012, Sec. 3.2) of one vertex: non-negative least squares over its
 * candidate influences with Σ w = 1 as a row of weight `affinity`·(the problem's scale), keeping
 * the K largest. Writes the vertex's K slots of `model` — unless that is worse than what they
 * hold (the truncation to K can be), so the alternation never raises the error.
 * @param candidates influence indices (fixed joints < J, helpers J + h)
 */
export function updateVertexWeights(problem: SsdrProblem, model: SsdrModel, i: number, candidates: number[]): void {
  const c = candidates.length;
  const K = model.influences;
  const before = vertexError(problem, model, i);
  const oldJoints = model.joints.slice(K * i, K * i + K);
  const oldWeights = model.weights.slice(K * i, K * i + K);
  const G = new Float64Array(c * c);
  const b = new Float64Array(c);
  const cols = new Float64Array(3 * c);
  const v = new Float64Array(3);
  for (let t = 0; t < problem.targets.length; t++) {
    const rest = problem.rest[t];
    const y = problem.targets[t];
    for (let a = 0; a < c; a++) {
      applyInfluence(problem, model, t, candidates[a], rest, 3 * i, v);
      cols[3 * a] = v[0];
      cols[3 * a + 1] = v[1];
      cols[3 * a + 2] = v[2];
    }
    for (let a = 0; a < c; a++) {
      const ax = cols[3 * a], ay = cols[3 * a + 1], az = cols[3 * a + 2]; // prettier-ignore
      b[a] += ax * y[3 * i] + ay * y[3 * i + 1] + az * y[3 * i + 2];
      for (let d = a; d < c; d++) G[a * c + d] += ax * cols[3 * d] + ay * cols[3 * d + 1] + az * cols[3 * d + 2];
    }
  }
  for (let a = 0; a < c; a++) for (let d = 0; d < a; d++) G[a * c + d] = G[d * c + a];
  // Affinity: ρ (Σ w − 1)² with ρ large against the data term.
  let trace = 0;
  for (let a = 0; a < c; a++) trace += G[a * c + a];
  const rho = 1e3 * (trace / c || 1);
  for (let a = 0; a < c; a++) {
    b[a] += rho;
    for (let d = 0; d < c; d++) G[a * c + d] += rho;
  }
  const scratch = { A: new Float64Array(c * c), x: new Float64Array(c), set: new Int32Array(c) };
  const w = new Float64Array(c);
  let active = Array.from(scratch.set.subarray(0, nnls(G, b, c, candidates.keys(), w, scratch)));
  if (active.length > K) {
    // More than K in use: the best K-subset (every subset of up to 9 candidates, else the K
    // heaviest of the unconstrained solution).
    const subsets = c <= 9 ? kSubsets(c, K) : Int32Array.from(active.sort((x, y) => w[y] - w[x]).slice(0, K));
    const trial = new Float64Array(c);
    let best = Infinity;
    for (let o = 0; o < subsets.length; o += K) {
      const m = nnls(G, b, c, subsets.subarray(o, o + K), trial, scratch);
      const f = objective(G, b, c, trial);
      if (f < best) {
        best = f;
        w.set(trial);
        active = Array.from(scratch.set.subarray(0, m));
      }
    }
  }
  let sum = 0;
  for (const a of active) sum += Math.max(0, w[a]);
  const order = active.filter((a) => w[a] > 0).sort((x, y) => w[y] - w[x]);
  for (let k = 0; k < K; k++) {
    const a = order[k];
    model.joints[K * i + k] = a === undefined ? 0 : candidates[a];
    model.weights[K * i + k] = a === undefined || sum <= 0 ? 0 : w[a] / sum;
  }
  if (sum <= 0) model.weights[K * i] = 1; // degenerate: the first candidate (the vertex's own joint)
  if (vertexError(problem, model, i) > before) {
    model.joints.set(oldJoints, K * i);
    model.weights.set(oldWeights, K * i);
  }
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

/** Every k-element subset of 0 … c − 1 in lexicographic order, k numbers each, one after the other. */
function kSubsets(c: number, k: number): Int32Array {
  const out: number[] = [];
  const pick = (from: number, chosen: number[]) => {
    if (chosen.length === k) return void out.push(...chosen);
    for (let a = from; a <= c - (k - chosen.length); a++) pick(a + 1, [...chosen, a]);
  };
  pick(0, []);
  return Int32Array.from(out);
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
  const v = new Float64Array(3);
  let e = 0;
  let max = 0;
  for (let t = 0; t < problem.targets.length; t++) {
    let x = 0, y = 0, z = 0; // prettier-ignore
    for (let k = K * i; k < K * i + K; k++) {
      const w = model.weights[k];
      if (w === 0) continue;
      applyInfluence(problem, model, t, model.joints[k], problem.rest[t], 3 * i, v);
      x += w * v[0];
      y += w * v[1];
      z += w * v[2];
    }
    const Y = problem.targets[t];
    const d = (x - Y[3 * i]) ** 2 + (y - Y[3 * i + 1]) ** 2 + (z - Y[3 * i + 2]) ** 2;
    e += d;
    if (d > max) max = d;
  }
  return { sum: e, max };
}
