/**
 * The weight update's normal equations (Binh Huy Le and Zhigang Deng, "Smooth Skinning
 * Decomposition with Rigid Bones", ACM TOG 31(6), SIGGRAPH Asia 2012, Sec. 3.2;
 * `ssdr-weights.ts`) made without summing each vertex's samples where the rest positions are the
 * same at every sample (no morph targets): the Gram matrices from per-pair products of the
 * influences' matrices, shared by every vertex, and the right-hand sides summed sample by sample
 * across many vertices.
 *
 * @module
 */
import type { SsdrModel, SsdrProblem } from './ssdr.js';

/**
 * Per pair of influences (p, q), P_pq = Σ_t Σ_r M_p(t)[r, k] · M_q(t)[r, l] over a problem's
 * samples (4×4, k and l the homogeneous rest coordinates; M a fixed joint's skinning matrix or a
 * helper's transform, rows 0–2), made on first use and kept. Where a vertex's rest position
 * x̃ = (x, 1) is the same at every sample (no morph targets), its Gram matrix entry over the
 * samples is the quadratic form x̃ᵀ P_pq x̃ — one product for every vertex that has both
 * influences, instead of a sum over the samples per vertex. Valid while the helpers' transforms
 * stay as they were.
 */
export interface InfluenceProducts {
  /** x̃ᵀ P_pq x̃ with x̃ = (x0, x1, x2, 1), bind space (asset units). */
  form(p: number, q: number, x0: number, x1: number, x2: number): number;
  /**
   * nᵀ (Σ_t L_pᵀ L_q) n, L the matrices' linear parts (P_pq's upper-left 3×3): the Gram matrix
   * entry of a bind-space normal n (`SsdrProblem.normals`).
   */
  linearForm(p: number, q: number, n0: number, n1: number, n2: number): number;
}

/**
 * {@link InfluenceProducts} of `problem` and `model` over every sample of the problem, each pair's
 * made on first use (all pairs in one growing array).
 * @throws RangeError when the rest positions differ between samples (morph targets)
 */
export function influenceProducts(problem: SsdrProblem, model: SsdrModel): InfluenceProducts {
  if (problem.rest.some((r) => r !== problem.rest[0]))
    throw new RangeError('influenceProducts: the rest positions differ between samples');
  const J = problem.fixed[0].length >> 4;
  const N = J + model.helpers;
  const offsets = new Map<number, number>();
  let store = new Float64Array(16 * 64);
  /** P_pq's offset in `store`, p ≤ q (the quadratic form of P_qp = P_pqᵀ is the same). */
  const offset = (p: number, q: number): number => {
    const key = p * N + q;
    let o = offsets.get(key);
    if (o !== undefined) return o;
    o = 16 * offsets.size;
    if (o + 16 > store.length) {
      const grown = new Float64Array(2 * store.length);
      grown.set(store);
      store = grown;
    }
    addPairProduct(problem, model, p, q, store, o);
    offsets.set(key, o);
    return o;
  };
  return {
    form: (p, q, x0, x1, x2) => quadraticForm(store, p <= q ? offset(p, q) : offset(q, p), x0, x1, x2),
    linearForm: (p, q, n0, n1, n2) => linearForm(store, p <= q ? offset(p, q) : offset(q, p), n0, n1, n2),
  };
}

/**
 * {@link InfluenceProducts} made beforehand ({@link addPairProduct} over the same problem and
 * model): P_pq at `16 · index[p·N + q]` of `store` for p ≤ q.
 * @param N fixed joints and helpers (J + H)
 */
export function storedInfluenceProducts(store: Float64Array, index: Int32Array, N: number): InfluenceProducts {
  const at = (p: number, q: number) => 16 * index[p <= q ? p * N + q : q * N + p];
  return {
    form: (p, q, x0, x1, x2) => quadraticForm(store, at(p, q), x0, x1, x2),
    linearForm: (p, q, n0, n1, n2) => linearForm(store, at(p, q), n0, n1, n2),
  };
}

/**
 * Adds P_pq of {@link InfluenceProducts} (influences p and q: < J a fixed joint, J + h helper h)
 * over the problem's samples, in order, to `store` at `o` (16 entries, P[k][l] at o + 4k + l).
 */
export function addPairProduct(
  problem: SsdrProblem,
  model: SsdrModel,
  p: number,
  q: number,
  store: Float64Array,
  o: number,
): void {
  const J = problem.fixed[0].length >> 4;
  for (let t = 0; t < problem.fixed.length; t++) {
    const [A, a] = p < J ? [problem.fixed[t], p << 4] : [model.transforms[t], (p - J) << 4];
    const [B, b] = q < J ? [problem.fixed[t], q << 4] : [model.transforms[t], (q - J) << 4];
    for (let k = 0; k < 4; k++)
      for (let l = 0; l < 4; l++)
        store[o + 4 * k + l] +=
          A[a + 4 * k] * B[b + 4 * l] + A[a + 4 * k + 1] * B[b + 4 * l + 1] + A[a + 4 * k + 2] * B[b + 4 * l + 2];
  }
}

/** x̃ᵀ P x̃ with x̃ = (x0, x1, x2, 1), P the 4×4 at `o` of `P`. */
function quadraticForm(P: Float64Array, o: number, x0: number, x1: number, x2: number): number {
  const r = (k: number) => P[o + 4 * k] * x0 + P[o + 4 * k + 1] * x1 + P[o + 4 * k + 2] * x2 + P[o + 4 * k + 3];
  return x0 * r(0) + x1 * r(1) + x2 * r(2) + r(3);
}

/** nᵀ P₃ n, P₃ the upper-left 3×3 of the 4×4 at `o` of `P`. */
function linearForm(P: Float64Array, o: number, n0: number, n1: number, n2: number): number {
  const r = (k: number) => P[o + 4 * k] * n0 + P[o + 4 * k + 1] * n1 + P[o + 4 * k + 2] * n2;
  return n0 * r(0) + n1 * r(1) + n2 * r(2);
}

/**
 * The weight update's right-hand sides b_a = Σ_t (M_a(t) x̃_i) · y_i(t) (Sec. 3.2's normal
 * equations, M_a the skinning matrix or transform of candidate a) of vertices `from`…`to − 1`,
 * each over its candidates, where the rest positions x̃ are the same at every sample (no morph
 * targets). Summed sample by sample across the vertices, each sample's targets read in order
 * (per vertex they lie a sample's 3·n floats apart): the same sums, term for term in the same
 * order, as {@link updateVertexWeights} makes them for one vertex. With `problem.normals`, each
 * entry adds λ_i² Σ_t (L_a(t) n_i) · m_i(t) (`SsdrProblem.normals`).
 * @param candidates vertex i's candidate influences at `candidates[candidateStart[i] … candidateStart[i + 1])`
 * @param fixedTerms where given (indexed as `candidates`), the entries of fixed joints, which
 *   stay as they are while the helpers' transforms change: read where known (not NaN), else
 *   summed and written there
 * @returns vertex i's c entries from `candidateStart[i] − candidateStart[from]`
 * @throws RangeError when the rest positions differ between samples (morph targets)
 */
export function rightHandSides(
  problem: SsdrProblem,
  model: SsdrModel,
  from: number,
  to: number,
  candidates: Int32Array,
  candidateStart: Int32Array,
  fixedTerms?: Float64Array,
): Float64Array {
  if (problem.rest.some((r) => r !== problem.rest[0]))
    throw new RangeError('rightHandSides: the rest positions differ between samples');
  const J = problem.fixed[0].length >> 4;
  const rest = problem.rest[0];
  const base = candidateStart[from];
  const out = new Float64Array(candidateStart[to] - base);
  // The entries summed here: all but the fixed joints' that `fixedTerms` holds.
  const known = new Uint8Array(out.length);
  for (let e = base; fixedTerms && e < candidateStart[to]; e++)
    if (candidates[e] < J && !Number.isNaN(fixedTerms[e])) {
      known[e - base] = 1;
      out[e - base] = fixedTerms[e];
    }
  const { normals } = problem;
  for (let t = 0; t < problem.targets.length; t++) {
    const y = problem.targets[t];
    const F = problem.fixed[t];
    const X = model.transforms[t];
    const m = normals?.targets[t];
    for (let i = from; i < to; i++) {
      const x0 = rest[3 * i], x1 = rest[3 * i + 1], x2 = rest[3 * i + 2]; // prettier-ignore
      const y0 = y[3 * i], y1 = y[3 * i + 1], y2 = y[3 * i + 2]; // prettier-ignore
      for (let e = candidateStart[i]; e < candidateStart[i + 1]; e++) {
        if (known[e - base]) continue;
        const j = candidates[e];
        const M = j < J ? F : X;
        const o = j < J ? j << 4 : (j - J) << 4;
        const ax = M[o] * x0 + M[o + 4] * x1 + M[o + 8] * x2 + M[o + 12];
        const ay = M[o + 1] * x0 + M[o + 5] * x1 + M[o + 9] * x2 + M[o + 13];
        const az = M[o + 2] * x0 + M[o + 6] * x1 + M[o + 10] * x2 + M[o + 14];
        out[e - base] += ax * y0 + ay * y1 + az * y2;
        if (m) out[e - base] += normals.weights[i] * normalTerm(M, o, normals.rest, m, i);
      }
    }
  }
  for (let e = base; fixedTerms && e < candidateStart[to]; e++) if (candidates[e] < J) fixedTerms[e] = out[e - base];
  return out;
}

/** (L n_i) · m_i, L the linear part of the 4×4 at `o` of `M` (see {@link rightHandSides}). */
export function normalTerm(M: Float64Array, o: number, n: Float32Array, m: Float32Array, i: number): number {
  const n0 = n[3 * i], n1 = n[3 * i + 1], n2 = n[3 * i + 2]; // prettier-ignore
  return (
    (M[o] * n0 + M[o + 4] * n1 + M[o + 8] * n2) * m[3 * i] +
    (M[o + 1] * n0 + M[o + 5] * n1 + M[o + 9] * n2) * m[3 * i + 1] +
    (M[o + 2] * n0 + M[o + 6] * n1 + M[o + 10] * n2) * m[3 * i + 2]
  );
}
