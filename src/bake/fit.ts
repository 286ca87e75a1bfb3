/**
 * The helper bake's fit (Le & Deng 2012's alternation, `ssdr.ts`) on the vertices it solves
 * only: their bind and target positions at every sample, the joints' matrices, the helpers'
 * transforms and the vertices' influences in flat arrays ({@link FitData}) — in
 * SharedArrayBuffers when worker threads share the work — and the three tasks the alternation is
 * made of ({@link FitTask}), each split over vertices or samples: every vertex's weights and
 * every sample's helpers are independent, so any split gives the same bits.
 *
 * @module
 */
import type { SsdrModel, SsdrProblem } from './ssdr.js';
import { updateHelpers } from './ssdr-helpers.js';
import type { MethodSamples } from './sampling.js';
import { addPairProduct, rightHandSides, storedInfluenceProducts } from './ssdr-normal-equations.js';
import { updateVertexWeights, weightScratch } from './ssdr-weights.js';

/** The fit's data: n vertices (the ones it solves), T samples, J fixed joints, H helpers, K influences. */
export interface FitData {
  n: number;
  T: number;
  J: number;
  H: number;
  K: number;
  /** The samples the alternation fits (ascending; see `io/helper-bake.ts`), the others only at the end. */
  fitSamples: Int32Array;
  /**
   * The samples the helpers are keyed at (ascending; all but the half-way check times,
   * `bakeCheckTimes`): the bone updates over every sample run on these; the others play the
   * interpolation of their keys (`key-reduction.ts`).
   */
  keyed: Int32Array;
  /** Bind-space positions: 3·n, or 3·n per sample (T·3·n) where morph targets move them (`restPerSample`). */
  rest: Float32Array;
  restPerSample: boolean;
  /** Target posed positions, 3·n per sample (T·3·n). */
  targets: Float32Array;
  /** The fixed joints' skinning matrices, 16·J per sample (4×4 column-major). */
  fixed: Float64Array;
  /**
   * The normals the fit matches besides the positions (`SsdrProblem.normals`), or empty arrays
   * (none; always with morph targets): bind-space unit normals 3·n, and the target normals 3·n
   * per sample (T·3·n); λ_i² per vertex, their weight (posed units², n).
   */
  restNormals: Float32Array;
  targetNormals: Float32Array;
  normalWeights: Float32Array;
  /**
   * Per vertex, Σ_t ‖y_i(t)‖² + λ_i² Σ_t ‖m_i(t)‖² over {@link fitSamples} (posed units²): the
   * term of its error that no weight changes, which the `weights` task adds to the quadratic form
   * to give each vertex's error (`updateVertexWeights`' `constant`).
   */
  targetNorms: Float64Array;
  /** The helpers' skinning matrices, 16·H per sample (written by the fit). */
  transforms: Float64Array;
  /** K influences per vertex (< J a fixed joint, J + h helper h) and their weights (written by the fit). */
  joints: Uint32Array;
  weights: Float32Array;
  /** Candidate influences of vertex i: `candidates[candidateStart[i] … candidateStart[i + 1])`. */
  candidates: Int32Array;
  candidateStart: Int32Array;
  /** The fixed joint each helper hangs from (`SsdrProblem.helperJoints`). */
  helperJoints: Int32Array;
  /** How much the bone updates lean a helper towards its joint's rotation (`updateHelpers`; 0 none). */
  priorStrength: number;
  /**
   * The start's influences and weights (K per vertex), which each helper takes its weight from
   * (`SsdrProblem.anchor`; `HelperBakeOptions.beyondClips` 'lbs'), or empty arrays.
   */
  anchorJoints: Uint32Array;
  anchorWeights: Float32Array;
  /**
   * Without morph targets (`restPerSample` false): the pairs of influences (p, q), p ≤ q, that
   * some vertex has both as candidates, 2 per pair; else empty.
   */
  pairs: Int32Array;
  /** Each pair's number in {@link pairs} at p·(J + H) + q, p ≤ q (−1 for the others). */
  pairIndex: Int32Array;
  /**
   * Each pair's products over the fit's samples (16 per pair, `addPairProduct`), written by the
   * `products` task before each `weights` task, which reads them.
   */
  products: Float64Array;
  /**
   * Without morph targets, the weight update's right-hand-side entries of the fixed joints among
   * each vertex's candidates (indexed as {@link candidates}; `rightHandSides`' `fixedTerms`):
   * the fit does not change them, so the first weight update sums them and the others read them.
   * NaN until then, and for the helpers' entries.
   */
  fixedTerms: Float64Array;
}

/**
 * One task of the alternation: `products` makes each pair of influences' products over the
 * subset of samples ({@link FitData.products}: where no vertex moves with morph targets, the
 * Gram matrices of the weight update that follows); `weights` updates every vertex's weights over
 * the subset of samples (Sec. 3.2); `helpers` every helper's transform at each sample of the
 * subset or every keyed one (`full`), `passes` sweeps (Sec. 3.3).
 */
export type FitTask = { kind: 'products' } | { kind: 'weights' } | { kind: 'helpers'; full: boolean; passes: number };

/**
 * What a `weights` task gives: per vertex, its squared error summed over the subset's samples
 * with the weights the update leaves (posed units², positions and normals as `verticesErrors`
 * measures it); nothing for the others.
 */
export type FitErrors = Float64Array;

/** A typed array of `length`, in a SharedArrayBuffer when `shared`. */
export function allocate<T extends Float32Array | Float64Array | Int32Array | Uint32Array>(
  Type: { new (length: number): T; new (buffer: ArrayBufferLike): T; BYTES_PER_ELEMENT: number },
  length: number,
  shared: boolean,
): T {
  return shared ? new Type(new SharedArrayBuffer(length * Type.BYTES_PER_ELEMENT)) : new Type(length);
}

/** The samples of the alternation's subset, or all. */
function sampleList(data: FitData, full: boolean): number[] {
  return full ? Array.from({ length: data.T }, (_, t) => t) : Array.from(data.fitSamples);
}

/** The decomposition's problem and model over `data`'s samples (the subset or all), as views. */
export function fitViews(data: FitData, full: boolean): { problem: SsdrProblem; model: SsdrModel } {
  return fitViewsAt(data, sampleList(data, full));
}

/**
 * The decomposition's problem and model over the listed samples of `data`, as views (a sample
 * listed m times weighs m times in the least squares).
 */
export function fitViewsAt(data: FitData, samples: readonly number[]): { problem: SsdrProblem; model: SsdrModel } {
  const { n, J, H, K } = data;
  const part = <A extends Float32Array | Float64Array>(a: A, size: number, t: number) =>
    a.subarray(size * t, size * t + size) as A;
  const problem: SsdrProblem = {
    n,
    rest: samples.map((t) => (data.restPerSample ? part(data.rest, 3 * n, t) : data.rest)),
    targets: samples.map((t) => part(data.targets, 3 * n, t)),
    fixed: samples.map((t) => part(data.fixed, 16 * J, t)),
    helperJoints: Array.from(data.helperJoints),
    ...(data.anchorWeights.length && { anchor: { joints: data.anchorJoints, weights: data.anchorWeights } }),
    ...(data.restNormals.length && {
      normals: {
        rest: data.restNormals,
        targets: samples.map((t) => part(data.targetNormals, 3 * n, t)),
        weights: data.normalWeights,
      },
    }),
  };
  const model: SsdrModel = {
    helpers: H,
    transforms: samples.map((t) => part(data.transforms, 16 * H, t)),
    influences: K,
    joints: data.joints,
    weights: data.weights,
  };
  return { problem, model };
}

/** The samples a bone update runs on: the alternation's subset, or every keyed one. */
function helperSamples(data: FitData, full: boolean): number[] {
  return Array.from(full ? data.keyed : data.fitSamples);
}

/** How many independent items a task splits into: pairs (products), vertices (weights) or samples (helpers). */
export function taskItems(data: FitData, task: FitTask): number {
  if (task.kind === 'products') return data.pairs.length / 2;
  return task.kind === 'helpers' ? helperSamples(data, task.full).length : data.n;
}

/** Per helper, the vertices with a positive weight on it (indices into the fit's vertices). */
export function helperMembers(data: FitData): Int32Array[] {
  const { n, K, J, H, joints, weights } = data;
  const members: number[][] = Array.from({ length: H }, () => []);
  for (let i = 0; i < n; i++)
    for (let k = K * i; k < K * i + K; k++) if (weights[k] > 0 && joints[k] >= J) members[joints[k] - J].push(i);
  return members.map((m) => Int32Array.from(m));
}

/**
 * Runs items [from, to) of `task` on `data` (see {@link taskItems}), writing the weights or
 * transforms it updates into `data`. Calls that run at once on one task (worker threads on
 * shared `data`) must take disjoint ranges, and no call may run another task meanwhile: each
 * item writes only its own vertex's weights or its own sample's transforms, but reads the others'.
 * @returns for `weights`, the items' errors ({@link FitErrors}, to − from)
 */
export function runFitTask(data: FitData, task: FitTask, from: number, to: number): FitErrors | undefined {
  if (task.kind === 'helpers') {
    const { problem, model } = fitViewsAt(data, helperSamples(data, task.full));
    const samples = Array.from({ length: to - from }, (_, s) => from + s);
    updateHelpers(problem, model, helperMembers(data), task.passes, samples, data.priorStrength);
    return undefined;
  }
  const { problem, model } = fitViews(data, false);
  if (task.kind === 'products') {
    for (let k = from; k < to; k++) {
      data.products.fill(0, 16 * k, 16 * k + 16);
      addPairProduct(problem, model, data.pairs[2 * k], data.pairs[2 * k + 1], data.products, 16 * k);
    }
    return undefined;
  }
  const scratch = weightScratch();
  // Without morph targets, the Gram matrices from the pairs' products (the task before), and
  // the right-hand sides summed sample by sample across the range.
  const { candidates, candidateStart } = data;
  const products = data.restPerSample
    ? undefined
    : storedInfluenceProducts(data.products, data.pairIndex, data.J + data.H);
  const rhs = products && rightHandSides(problem, model, from, to, candidates, candidateStart, data.fixedTerms);
  const errors = new Float64Array(to - from);
  for (let i = from; i < to; i++) {
    const [start, end] = [candidateStart[i], candidateStart[i + 1]];
    const list = Array.from(candidates.subarray(start, end));
    const b = rhs?.subarray(start - candidateStart[from], end - candidateStart[from]);
    errors[i - from] = updateVertexWeights(problem, model, i, list, scratch, undefined, products, b, data.targetNorms[i]); // prettier-ignore
  }
  return errors;
}

/** Runs the whole of `task` in this thread. */
export function runFitTaskHere(data: FitData, task: FitTask): FitErrors | undefined {
  return runFitTask(data, task, 0, taskItems(data, task));
}

/**
 * Samples the alternation sees at most, with 4 influences per vertex: 120 (more takes longer for
 * little: ShibaInu DQS, 645 samples, every one: 82% → 84% of the gap, max 0.38 of LBS's either
 * way, 9 → 32 s).
 */
const FIT_SAMPLES = 120;
/**
 * With 8: 960. Weights spread over 8 joints and helpers, fitted to every sixth sample, follow the
 * others worse (ShibaInu DQS at 120 samples: 85% of the gap but a max 0.77 of LBS's; at 240, 0.70;
 * at all 645, 92% and 0.20, 13 → 48 s).
 */
const FIT_SAMPLES_WIDE = 960;
/** At most {@link FIT_SAMPLES} (K = 4) or {@link FIT_SAMPLES_WIDE} (K = 8) evenly spaced samples of T, ascending. */
export function fitSamples(T: number, K: number): Int32Array {
  const step = Math.ceil(T / (K > 4 ? FIT_SAMPLES_WIDE : FIT_SAMPLES));
  return Int32Array.from({ length: Math.ceil(T / step) }, (_, k) => k * step);
}

/**
 * The fit's data ({@link FitData}) over the `active` vertices, gathered from the whole mesh's.
 * @param samples the method and LBS at every sample, whole mesh (`sampleMethod`)
 * @param model the whole mesh's start: K weights per vertex, the helpers' transforms per sample
 * @param active the vertices solved, ascending
 * @param candidates per active vertex, its candidate influences (< J a joint, J + h helper h)
 * @param helperJoints per helper, the fixed joint it hangs from
 * @param fitted the samples the alternation fits ({@link fitSamples})
 * @param options `shared`: in SharedArrayBuffers (for worker threads); `keyed`: the samples the
 *   helpers are keyed at (default all); `priorStrength`: `FitData.priorStrength` (default 0);
 *   `anchored`: each helper takes its weight from its joint's in `model` (`FitData.anchorWeights`);
 *   `normals`: the whole mesh's bind normals (3 per vertex), its target normals at sample t (read
 *   once per sample, in order) and λ_i² per vertex, read after them (`FitData.restNormals`;
 *   ignored with morph targets)
 */
export function fitData(
  samples: MethodSamples,
  model: SsdrModel,
  active: readonly number[],
  candidates: readonly number[][],
  helperJoints: readonly number[],
  fitted: Int32Array,
  options: {
    shared?: boolean;
    keyed?: Int32Array;
    priorStrength?: number;
    anchored?: boolean;
    normals?: { rest: Float32Array; targets: (t: number) => Float32Array; weights: Float32Array };
  } = {},
): FitData {
  const { shared = false, keyed, priorStrength = 0, anchored = false } = options;
  const { rest, targets, fixed } = samples;
  const T = targets.length;
  const n = active.length;
  const { helpers: H, influences: K } = model;
  const J = fixed[0].length >> 4;
  const restPerSample = rest.some((r) => r !== rest[0]);
  const normals = restPerSample ? undefined : options.normals;
  const entries = candidates.reduce((s, c) => s + c.length, 0);
  // The pairs of candidates the weight update's Gram matrices take, where they come from products.
  const N = J + H;
  const pairIndex = new Int32Array(restPerSample ? 0 : N * N).fill(-1);
  const pairs: number[] = [];
  if (!restPerSample)
    for (const list of candidates)
      for (const p of list)
        for (const q of list)
          if (p <= q && pairIndex[p * N + q] < 0) {
            pairIndex[p * N + q] = pairs.length / 2;
            pairs.push(p, q);
          }
  const data: FitData = {
    n,
    T,
    J,
    H,
    K,
    fitSamples: fitted,
    keyed: allocate(Int32Array, keyed?.length ?? T, shared),
    rest: allocate(Float32Array, (restPerSample ? T : 1) * 3 * n, shared),
    restPerSample,
    targets: allocate(Float32Array, T * 3 * n, shared),
    fixed: allocate(Float64Array, T * 16 * J, shared),
    restNormals: allocate(Float32Array, normals ? 3 * n : 0, shared),
    targetNormals: allocate(Float32Array, normals ? T * 3 * n : 0, shared),
    normalWeights: allocate(Float32Array, normals ? n : 0, shared),
    targetNorms: allocate(Float64Array, n, shared),
    transforms: allocate(Float64Array, T * 16 * H, shared),
    joints: allocate(Uint32Array, K * n, shared),
    weights: allocate(Float32Array, K * n, shared),
    candidates: allocate(Int32Array, entries, shared),
    candidateStart: allocate(Int32Array, n + 1, shared),
    helperJoints: allocate(Int32Array, H, shared),
    priorStrength,
    anchorJoints: allocate(Uint32Array, anchored ? K * n : 0, shared),
    anchorWeights: allocate(Float32Array, anchored ? K * n : 0, shared),
    pairs: allocate(Int32Array, pairs.length, shared),
    pairIndex: allocate(Int32Array, pairIndex.length, shared),
    products: allocate(Float64Array, 8 * pairs.length, shared),
    fixedTerms: allocate(Float64Array, restPerSample ? 0 : entries, shared).fill(NaN),
  };
  data.pairs.set(pairs);
  data.pairIndex.set(pairIndex);
  const gather = (from: ArrayLike<number>, to: Float32Array, o: number) =>
    active.forEach((i, a) => {
      to[o + 3 * a] = from[3 * i];
      to[o + 3 * a + 1] = from[3 * i + 1];
      to[o + 3 * a + 2] = from[3 * i + 2];
    });
  if (normals) gather(normals.rest, data.restNormals, 0);
  for (let t = 0; t < T; t++) {
    if (restPerSample || t === 0) gather(rest[t], data.rest, restPerSample ? 3 * n * t : 0);
    gather(targets[t], data.targets, 3 * n * t);
    if (normals) gather(normals.targets(t), data.targetNormals, 3 * n * t);
    data.fixed.set(fixed[t], 16 * J * t);
    data.transforms.set(model.transforms[t], 16 * H * t);
  }
  if (normals) active.forEach((i, a) => (data.normalWeights[a] = normals.weights[i]));
  const { targetNorms, normalWeights, targetNormals } = data;
  for (const t of fitted)
    for (let a = 0; a < n; a++)
      for (let c = 3 * n * t + 3 * a; c < 3 * n * t + 3 * a + 3; c++)
        targetNorms[a] += data.targets[c] ** 2 + (normals ? normalWeights[a] * targetNormals[c] ** 2 : 0);
  active.forEach((i, a) => {
    data.joints.set(model.joints.subarray(K * i, K * i + K), K * a);
    data.weights.set(model.weights.subarray(K * i, K * i + K), K * a);
    data.candidates.set(candidates[a], data.candidateStart[a]);
    data.candidateStart[a + 1] = data.candidateStart[a] + candidates[a].length;
  });
  data.helperJoints.set(helperJoints);
  if (anchored) {
    data.anchorJoints.set(data.joints);
    data.anchorWeights.set(data.weights);
  }
  if (keyed) data.keyed.set(keyed);
  else for (let t = 0; t < T; t++) data.keyed[t] = t;
  return data;
}
