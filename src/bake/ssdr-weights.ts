/**
 * The weight update of the smooth skinning decomposition (Binh Huy Le and Zhigang Deng, "Smooth
 * Skinning Decomposition with Rigid Bones", ACM TOG 31(6), SIGGRAPH Asia 2012, Sec. 3.2; see
 * `ssdr.ts`): transforms fixed, each vertex's weights over its candidate influences by sparse
 * non-negative least squares — the least error over w ≥ 0 with at most K weights in use, every
 * support of at most K candidates solved (of the 9 heaviest of a drop-only active-set solve, after
 * Lawson & Hanson 1974, where a vertex has more) — with the affinity constraint Σ w = 1 as a
 * heavily weighted row. With an anchor (`SsdrProblem.anchor`, the helper bake's `beyondClips:
 * 'lbs'`), one more heavily weighted row per joint holds the weight a vertex gives the joint and
 * the helpers that hang from it at the anchor's (and past 9 candidates the drop-only solve and a
 * few K-subsets, the anchor's own joints among them).
 *
 * @module
 */
import { vertexError, type SsdrModel, type SsdrNormals, type SsdrProblem } from './ssdr.js';
import type { InfluenceProducts } from './ssdr-normal-equations.js';
import { roundToStoredWeightsBest, storedWeightRoom, type StoredWeightRoom } from '../core/weight-quantization.js';
import {
  nnls,
  objective,
  quadraticChange,
  solveRoom,
  sparseLeastSquares,
  type SolveRoom,
} from './small-least-squares.js';

/** Room for {@link updateVertexWeights}, reused across vertices (sized for up to `c` candidates as it grows). */
export interface WeightScratch {
  G: Float64Array;
  /** The Gram matrix G without the affinity row (c × c), and b likewise (c). */
  gram: Float64Array;
  bGram: Float64Array;
  b: Float64Array;
  cols: Float64Array;
  w: Float64Array;
  best: Float64Array;
  before: Float64Array;
  after: Float64Array;
  /** Room for the small solves (`small-least-squares.ts`), and the candidates they search (c). */
  solve: SolveRoom;
  pool: Int32Array;
  /** Room for rounding a vertex's K weights as the file stores them. */
  stored: StoredWeightRoom;
}

/** A fresh {@link WeightScratch}. */
export function weightScratch(): WeightScratch {
  const room = (c: number) => new Float64Array(c);
  return {
    G: room(0),
    gram: room(0),
    bGram: room(0),
    b: room(0),
    cols: room(0),
    w: room(0),
    best: room(0),
    before: room(0),
    after: room(0),
    solve: solveRoom(0),
    pool: new Int32Array(0),
    stored: storedWeightRoom(8),
  };
}

/** Grows `s` to hold c candidates. */
function growWeightScratch(s: WeightScratch, c: number): void {
  if (s.b.length >= c) return;
  for (const key of ['b', 'bGram', 'w', 'best', 'before', 'after'] as const) s[key] = new Float64Array(c);
  s.G = new Float64Array(c * c);
  s.gram = new Float64Array(c * c);
  s.cols = new Float64Array(3 * c);
  s.solve = solveRoom(c);
  s.pool = new Int32Array(c);
}

/**
 * The normals' rows of vertex i at sample t (`SsdrProblem.normals`) added to the normal
 * equations in `scratch` (b, and G's upper triangle where `gram`), weighed by λ_i² times `s`:
 * columns L_a n_i (L_a candidate a's linear part), target m_i.
 */
function addNormalRows(
  normals: SsdrNormals,
  t: number,
  F: Float64Array,
  X: Float64Array,
  J: number,
  i: number,
  candidates: readonly number[],
  s: number,
  gram: boolean,
  scratch: WeightScratch,
): void {
  const { G, b, cols } = scratch;
  const c = candidates.length;
  const n = normals.rest, m = normals.targets[t]; // prettier-ignore
  const n0 = n[3 * i], n1 = n[3 * i + 1], n2 = n[3 * i + 2]; // prettier-ignore
  const f = normals.weights[i] * s;
  const m0 = f * m[3 * i], m1 = f * m[3 * i + 1], m2 = f * m[3 * i + 2]; // prettier-ignore
  for (let a = 0; a < c; a++) {
    const j = candidates[a];
    const M = j < J ? F : X;
    const o = j < J ? j << 4 : (j - J) << 4;
    cols[3 * a] = M[o] * n0 + M[o + 4] * n1 + M[o + 8] * n2;
    cols[3 * a + 1] = M[o + 1] * n0 + M[o + 5] * n1 + M[o + 9] * n2;
    cols[3 * a + 2] = M[o + 2] * n0 + M[o + 6] * n1 + M[o + 10] * n2;
  }
  for (let a = 0; a < c; a++) {
    const ax = cols[3 * a], ay = cols[3 * a + 1], az = cols[3 * a + 2]; // prettier-ignore
    b[a] += ax * m0 + ay * m1 + az * m2;
    if (gram)
      for (let d = a; d < c; d++) G[a * c + d] += f * (ax * cols[3 * d] + ay * cols[3 * d + 1] + az * cols[3 * d + 2]);
  }
}

/**
 * Weight update (Le & Deng 2012, Sec. 3.2) of one vertex: the least-squares weights over its
 * candidate influences, ≥ 0 and at most K of them (`sparseLeastSquares`, see the module comment),
 * with Σ w = 1 as a heavily weighted row, rounded as the file stores them (normalised 16-bit
 * steps: of the roundings next to the solution, the one of least error, `roundToStoredWeightsBest`).
 * Writes the vertex's K slots of `model` — unless that is worse than what they hold (the rounding,
 * or a start outside the candidates searched, can be), so the alternation never raises the error. Both errors come
 * from the normal equations' quadratic form (exact: the error is wᵀGw − 2bᵀw + Σ‖y‖²). With
 * `problem.normals`, the vertex's normal rows join its position rows (the error is theirs summed).
 * With `problem.anchor`, each joint's share is held at the anchor's (`holdJointShares`), and past 9
 * candidates the anchor's own joints are tried among a few K-subsets.
 * @param candidates influence indices (fixed joints < J, helpers J + h)
 * @param scratch room reused across vertices ({@link weightScratch}); a new one when absent
 * @param sampleWeights where given, each sample's squared error weighs this much (≥ 0, one per
 *   sample of `problem`; a weighted least squares). The update is kept if it lowers that weighted
 *   error — but where an influence the vertex holds is not a candidate, the error before is
 *   measured unweighted and compared with the unweighted error after.
 * @param products where given, the Gram matrix from these (`influenceProducts` (`ssdr-normal-equations.ts`) of the same
 *   problem and model: the same sums, each in another order) instead of summed per vertex
 * @param rhs with `products`, the normal equations' right-hand side over the candidates (c,
 *   `rightHandSides` of the same problem and model) instead of summed here: then the
 *   update reads no sample
 * @param constant where given, the vertex's Σ_t ‖y_i(t)‖² over the samples of `problem` (plus
 *   λ_i² Σ_t ‖m_i(t)‖² with `problem.normals`), the error's term no weight changes
 *   (`FitData.targetNorms`)
 * @returns with `constant`, the vertex's squared error over the samples with the weights it leaves
 *   (posed units², as `vertexError` measures it, from the quadratic form: no sample read where
 *   `rhs` is given); else NaN
 * @throws RangeError when given `sampleWeights` with `products` or `constant`, or `rhs` without
 *   `products`, or no candidate
 */
export function updateVertexWeights(
  problem: SsdrProblem,
  model: SsdrModel,
  i: number,
  candidates: readonly number[],
  scratch: WeightScratch = weightScratch(),
  sampleWeights?: ArrayLike<number>,
  products?: InfluenceProducts,
  rhs?: ArrayLike<number>,
  constant?: number,
): number {
  if (sampleWeights && (products || constant !== undefined))
    throw new RangeError('updateVertexWeights: sample weights with influence products or an error to return');
  if (rhs && !products) throw new RangeError('updateVertexWeights: right-hand sides without influence products');
  if (!candidates.length) throw new RangeError('updateVertexWeights: a vertex without candidates');
  const c = candidates.length;
  const K = model.influences;
  const J = problem.fixed[0].length >> 4;
  growWeightScratch(scratch, c);
  const { G, gram, bGram, b, cols, w } = scratch;
  const { normals } = problem;
  G.fill(0, 0, c * c);
  b.fill(0, 0, c);
  for (let a = 0; rhs && a < c; a++) b[a] = rhs[a];
  for (let t = 0; !rhs && t < problem.targets.length; t++) {
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
    const s = sampleWeights ? sampleWeights[t] : 1;
    const y0 = s * y[3 * i], y1 = s * y[3 * i + 1], y2 = s * y[3 * i + 2]; // prettier-ignore
    for (let a = 0; a < c; a++) {
      const ax = cols[3 * a], ay = cols[3 * a + 1], az = cols[3 * a + 2]; // prettier-ignore
      b[a] += ax * y0 + ay * y1 + az * y2;
      if (!products)
        for (let d = a; d < c; d++)
          G[a * c + d] += s * (ax * cols[3 * d] + ay * cols[3 * d + 1] + az * cols[3 * d + 2]);
    }
    if (normals) addNormalRows(normals, t, F, X, J, i, candidates, s, !products, scratch);
  }
  if (products) {
    const rest = problem.rest[0];
    const x0 = rest[3 * i], x1 = rest[3 * i + 1], x2 = rest[3 * i + 2]; // prettier-ignore
    for (let a = 0; a < c; a++)
      for (let d = a; d < c; d++) G[a * c + d] = products.form(candidates[a], candidates[d], x0, x1, x2);
    if (normals) {
      const { rest: nr } = normals;
      const weight = normals.weights[i];
      const n0 = nr[3 * i], n1 = nr[3 * i + 1], n2 = nr[3 * i + 2]; // prettier-ignore
      for (let a = 0; a < c; a++)
        for (let d = a; d < c; d++)
          G[a * c + d] += weight * products.linearForm(candidates[a], candidates[d], n0, n1, n2);
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
  if (problem.anchor) holdJointShares(problem, i, K, J, candidates, G, b, (TRANSFER_WEIGHT * trace) / c || 1);
  if (c <= EXACT_FROM || !problem.anchor) {
    // The exact minimum over every support of at most K candidates (of the EXACT_FROM heaviest
    // of the drop-only solve where there are more).
    let pool = scratch.pool.subarray(0, c);
    for (let a = 0; a < c; a++) pool[a] = a;
    if (c > EXACT_FROM) {
      nnls(G, b, c, candidates.keys(), w, scratch.solve);
      pool = pool.sort((x, y) => w[y] - w[x] || x - y).subarray(0, EXACT_FROM);
    }
    sparseLeastSquares(G, b, c, pool, K, w, scratch.solve);
  } else anchoredWeights(G, b, candidates, w, scratch, problem, i, K, J);
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
  // As the file stores them (16-bit steps): what is measured, kept or compared is what plays.
  if (scratch.stored.q.length < K) scratch.stored = storedWeightRoom(K);
  const rounded = () => (weightsOver(model, i, candidates, scratch.after), objective(gram, bGram, c, scratch.after));
  roundToStoredWeightsBest(model.weights, K * i, K, rounded, scratch.stored);
  weightsOver(model, i, candidates, scratch.after);
  // f(w₁) − f(w₀) = (w₁ − w₀)ᵀ G (w₁ + w₀) − 2 bᵀ (w₁ − w₀), G and b without the affinity row.
  const errorAfter = before ? 0 : vertexError(problem, model, i);
  const worse = before ? quadraticChange(gram, bGram, c, scratch.before, scratch.after) > 0 : errorAfter > errorBefore;
  if (worse) {
    model.joints.set(oldJoints, K * i);
    model.weights.set(oldWeights, K * i);
  }
  if (constant === undefined) return NaN;
  if (!before) return worse ? errorBefore : errorAfter;
  return objective(gram, bGram, c, worse ? scratch.before : scratch.after) + constant;
}

/**
 * How heavily, against the data term (relative to the mean of its Gram matrix's diagonal, as the
 * affinity row), the rows of {@link holdJointShares} weigh: enough that a vertex's joint shares
 * are its anchor's within the written 16-bit weights' precision (CesiumMan and the Fox:
 * `test/bake-beyond-clips.test.ts`). 1e3 let a CesiumMan hip vertex's shares slip by 0.03 once
 * the alternation stopped a few rounds later (the data term pulling hard there); 1e6 holds them
 * to 1e-4, the normal equations still far from double precision's limit.
 */
const TRANSFER_WEIGHT = 1e6;

/**
 * Adds to the normal equations (G, b over `candidates`), for each fixed joint r among the
 * candidates or that a candidate helper hangs from, the row ρ·(w_r + Σ_{h on r} w_h − a_r)² with
 * a_r vertex i's weight on r in `problem.anchor` (0 where it has none): each helper takes its
 * weight from its own joint, and the sum the vertex gives r and its helpers stays r's weight.
 */
function holdJointShares(
  problem: SsdrProblem,
  i: number,
  K: number,
  J: number,
  candidates: readonly number[],
  G: Float64Array,
  b: Float64Array,
  rho: number,
): void {
  const { anchor, helperJoints } = problem;
  if (!anchor || !helperJoints)
    throw new Error('updateVertexWeights: an anchor needs the joints the helpers hang from (helperJoints)');
  const c = candidates.length;
  const jointOf = candidateJoint(candidates, J, helperJoints);
  for (let a = 0; a < c; a++) {
    const r = jointOf(a);
    // Each joint's row once: at its first candidate.
    let first = 0;
    while (jointOf(first) !== r) first++;
    if (first !== a) continue;
    let share = 0;
    for (let k = K * i; k < K * i + K; k++) if (anchor.joints[k] === r) share += anchor.weights[k];
    for (let d = a; d < c; d++) {
      if (jointOf(d) !== r) continue;
      b[d] += rho * share;
      for (let e = a; e < c; e++) if (jointOf(e) === r) G[d * c + e] += rho;
    }
  }
}

/** Candidate a's joint: itself for a fixed joint (< J), the joint it hangs from for a helper. */
function candidateJoint(candidates: readonly number[], J: number, helperJoints: readonly number[]) {
  return (a: number): number => (candidates[a] < J ? candidates[a] : helperJoints[candidates[a] - J]);
}

/**
 * The weights of an anchored vertex with more than {@link EXACT_FROM} candidates (into w): the
 * drop-only solve over all of them; where it uses more than K, the best of the K-subsets
 * {@link anchorSubsets} gives for its K heaviest (vertex i of `problem`), each solved drop-only.
 */
function anchoredWeights(
  G: Float64Array,
  b: Float64Array,
  candidates: readonly number[],
  w: Float64Array,
  scratch: WeightScratch,
  problem: SsdrProblem,
  i: number,
  K: number,
  J: number,
): void {
  const c = candidates.length;
  const room = scratch.solve;
  const m = nnls(G, b, c, candidates.keys(), w, room);
  if (m <= K) return;
  const heaviest = Int32Array.from(room.set.subarray(0, m))
    .sort((x, y) => w[y] - w[x])
    .subarray(0, K);
  const subsets = anchorSubsets(heaviest, w, problem, i, K, J, candidates);
  const { best } = scratch;
  const { trial } = room;
  best.fill(0, 0, c);
  let bestValue = Infinity;
  for (let o = 0; o < subsets.length; o += K) {
    nnls(G, b, c, subsets.subarray(o, o + K), trial, room);
    const f = objective(G, b, c, trial);
    if (f < bestValue) {
      bestValue = f;
      best.set(trial.subarray(0, c));
    }
  }
  w.set(best.subarray(0, c));
}

/**
 * K-subsets of the candidates to try where there are too many to try all, for a vertex with an
 * anchor (`SsdrProblem.anchor`): `heaviest` (the K heaviest of the unconstrained solution `w`);
 * the anchor's own joints (the start, which keeps each joint's share exactly); and per anchor
 * joint, heaviest share first, the heaviest in `w` of the joint and the helpers that hang from it
 * (a helper that takes the whole of its joint's share frees no slot but moves otherwise) —
 * each padded with the heaviest of `heaviest` not in it. K indices each, one after the other.
 */
function anchorSubsets(
  heaviest: Int32Array,
  w: Float64Array,
  problem: SsdrProblem,
  i: number,
  K: number,
  J: number,
  candidates: readonly number[],
): Int32Array {
  const { anchor, helperJoints } = problem;
  const jointOf = candidateJoint(candidates, J, helperJoints!);
  const own: { r: number; share: number }[] = [];
  for (let k = K * i; k < K * i + K; k++) if (anchor!.weights[k] > 0) own.push({ r: anchor!.joints[k], share: anchor!.weights[k] }); // prettier-ignore
  own.sort((x, y) => y.share - x.share);
  const pad = (chosen: number[]) => {
    for (const a of heaviest) if (chosen.length < K && !chosen.includes(a)) chosen.push(a);
    for (let a = 0; chosen.length < K; a++) if (!chosen.includes(a)) chosen.push(a);
    return chosen;
  };
  const start = pad(own.map(({ r }) => candidates.indexOf(r)).filter((a) => a >= 0));
  const groups: number[] = [];
  for (const { r } of own) {
    let best = -1;
    for (let a = 0; a < candidates.length; a++) if (jointOf(a) === r && (best < 0 || w[a] > w[best])) best = a;
    if (best >= 0) groups.push(best);
  }
  return Int32Array.from([...heaviest, ...start, ...pad(groups)]);
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

/**
 * Candidates up to which the weight update tries every support of at most K of them (255 for 9
 * and K = 4); where a vertex has more, the supports among the 9 heaviest of the drop-only solve.
 */
const EXACT_FROM = 9;
