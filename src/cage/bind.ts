/**
 * Binding a skin to a cage: per skin vertex, the cage vertices that move it and their weights
 * (positive mean value coordinates by default), kept sparse. The binding is used in displacement
 * form, `x′ = x + Σ_k w_k (c′_k − c_k)` (Ju, Zhou, van de Panne, Cohen-Or, Neumann, "Reusable
 * Skinning Templates Using Cage-based Deformations", ACM TOG 27(5), SIGGRAPH Asia 2008), so the
 * bind pose is reproduced exactly whatever the truncation.
 *
 * Truncation: each vertex keeps its `influences` largest coordinates, soft-thresholded (Donoho,
 * "De-noising by soft-thresholding", IEEE Trans. Information Theory 41(3), 1995): each kept
 * coordinate is moved toward zero by the largest dropped one's magnitude, so a cage vertex enters
 * or leaves the kept set at weight 0 and the weights stay continuous over the skin (plain top-k
 * jumps where the k-th and (k+1)-th largest swap, and the deformed skin creases along those
 * lines). When some were dropped the kept ones are corrected by the smallest change, relative to
 * each weight, that restores Σw = 1 and linear precision Σ w_k c_k = x, so rigid and affine
 * motions of the cage still move the skin exactly with the cage. For PMVC the correction keeps
 * the weights ≥ 0 (an active set: weights that would go negative are dropped and the rest solved
 * again) whenever the point lies in the convex hull of its kept cage vertices — unless asked for
 * the plain (linear) correction, which may leave weights < 0 but varies continuously over the
 * skin (where its 4×4 system is regular) instead of jumping as weights are dropped.
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';
import { checkCage, type Cage } from './cage.js';
import { meanValueCoordinates } from './mvc.js';
import {
  createCubeMap,
  createPmvcScratch,
  DEFAULT_PMVC_RESOLUTION,
  positiveMeanValueCoordinates,
  prepareCage,
} from './pmvc.js';
import { windingNumber } from './winding-number.js';

/** The generalised barycentric coordinates a binding uses. */
export type CageCoordinates = 'pmvc' | 'mvc';

/** Default number of cage vertices kept per skin vertex. */
export const DEFAULT_CAGE_INFLUENCES = 24;

/** Options of {@link bindToCage}. */
export interface CageBindOptions {
  /**
   * `pmvc` (default): positive mean value coordinates (Lipman et al. 2007), ≥ 0, each vertex moved
   * by the cage it sees; `mvc`: mean value coordinates (Ju, Schaefer, Warren 2005), smooth but
   * negative in places of a non-convex cage.
   */
  method?: CageCoordinates;
  /** PMVC cube-map resolution (texels per face side); default 32. */
  resolution?: number;
  /** Cage vertices kept per skin vertex (k); default 24, at most the cage's vertex count. */
  influences?: number;
  /**
   * How the kept weights are corrected where truncation dropped some (see the module comment):
   * `positive` (the default for PMVC) keeps them ≥ 0; `linear` (always for MVC) takes the smallest
   * relative change even where it leaves weights < 0 — it varies continuously over the skin, where
   * the positive one drops weights and jumps; template rigs use it.
   */
  correction?: 'positive' | 'linear';
  /** Called now and then with (vertices done, total). */
  onProgress?: (done: number, total: number) => void;
  /** Stops the binding (throws the signal's reason). */
  signal?: AbortSignal;
  /** File named in error messages. */
  file?: string;
}

/** A skin bound to a cage (see the module comment for the deformation it drives). */
export interface CageBinding {
  /** The coordinates used: `pmvc` (positive mean value coordinates) or `mvc`. */
  method: CageCoordinates;
  /** PMVC resolution used (0 for MVC). */
  resolution: number;
  /** k: slots per skin vertex (unused slots: index 0, weight 0). */
  influences: number;
  /** Cage vertex of each slot, k·n. */
  indices: Uint32Array;
  /** Weight of each slot, k·n, summing to 1 per vertex. */
  weights: Float32Array;
}

/** Validated options with their defaults. */
export function bindParameters(
  cage: Cage,
  o: CageBindOptions,
): {
  /** The coordinates; default `pmvc`. */
  method: CageCoordinates;
  /** PMVC cube-map resolution; default 32, 0 for MVC. */
  resolution: number;
  /** Cage vertices kept per skin vertex (k); default 24, at most the cage's vertex count. */
  influences: number;
} {
  const method = o.method ?? 'pmvc';
  if (method !== 'pmvc' && method !== 'mvc') throw new RangeError(`cage coordinates must be "pmvc" or "mvc", got "${method}"`);
  const m = cage.positions.length / 3;
  const influences = Math.min(o.influences ?? DEFAULT_CAGE_INFLUENCES, m);
  if (!(Number.isInteger(influences) && influences >= 4)) throw new RangeError(`cage influences must be a whole number ≥ 4, got ${o.influences}`);
  const resolution = method === 'pmvc' ? (o.resolution ?? DEFAULT_PMVC_RESOLUTION) : 0;
  return { method, resolution, influences };
}

/**
 * Binds skin positions (bind space, 3·n) to `cage` (same space). Checks the cage first
 * ({@link checkCage}) and that every vertex is inside it (generalised winding number ≥ ½).
 * Cost: n × (MVC's m + f) for points that see the whole cage, n × ~6R² ray tests elsewhere; for
 * big meshes use `bindToCageParallel` (corskin/node) or {@link bindToCageOnWorker} (browsers).
 * @throws CorskinError for a bad cage, or skin vertices outside it (how many, which)
 * @throws RangeError for bad options; the signal's reason when aborted
 */
export function bindToCage(positions: ArrayLike<number>, cage: Cage, options: CageBindOptions = {}): CageBinding {
  checkCage(cage, options.file);
  const params = bindParameters(cage, options);
  const n = positions.length / 3;
  const binding: CageBinding = {
    ...params,
    indices: new Uint32Array(params.influences * n),
    weights: new Float32Array(params.influences * n),
  };
  const outside: number[] = [];
  const bind = createCageBinder(cage, params, options.correction);
  const step = 256;
  for (let begin = 0; begin < n; begin += step) {
    options.signal?.throwIfAborted();
    outside.push(...bind(positions, begin, Math.min(n, begin + step), binding.indices, binding.weights));
    options.onProgress?.(Math.min(n, begin + step), n);
  }
  checkInside(outside, positions, options.file);
  return binding;
}

/**
 * The check {@link bindToCage} ends with: every skin vertex must lie inside the cage (generalised
 * winding number ≥ ½; Jacobson, Kavan, Sorkine-Hornung, "Robust Inside-Outside Segmentation
 * using Generalized Winding Numbers", ACM TOG 32(4), SIGGRAPH 2013), as positive mean value
 * coordinates (Lipman et al. 2007) bind only the points a cage encloses. For callers that bind
 * in parts (a worker pool's ranges) and check once.
 * @param outside indices of the vertices found outside (any order; shown as given)
 * @param positions the skin's positions, 3·n (the space the cage was given in), to show the first five
 * @param file the input named in the error
 * @throws CorskinError when `outside` is not empty: how many, the first five with their positions
 */
export function checkInside(outside: number[], positions: ArrayLike<number>, file?: string): void {
  if (!outside.length) return;
  const show = outside
    .slice(0, 5)
    .map((i) => `${i} (${[0, 1, 2].map((k) => Number(positions[3 * i + k]).toPrecision(4)).join(', ')})`)
    .join(', ');
  throw new CorskinError(
    `${outside.length} skin vertex(es) lie outside the cage (generalised winding number < ½): ${show}${outside.length > 5 ? ', …' : ''}; enlarge the cage around them`,
    file,
  );
}

/**
 * The per-vertex binding of {@link bindToCage} with its set-up (prepared cage, cube map, scratch)
 * done once: returns `bind(positions, begin, end, indices, weights, outOffset)`, which binds
 * vertices [begin, end) (the cage must have passed {@link checkCage}), writes their slots from
 * vertex `begin − outOffset` of `indices`/`weights`, and returns the vertices of the range that
 * are outside the cage (their slots stay empty). Thread-safe per binder.
 * @param correction as {@link CageBindOptions}' (default: `positive` for PMVC)
 */
export function createCageBinder(
  cage: Cage,
  params: { method: CageCoordinates; resolution: number; influences: number },
  correction?: CageBindOptions['correction'],
): (positions: ArrayLike<number>, begin: number, end: number, indices: Uint32Array, weights: Float32Array, outOffset?: number) => number[] {
  const m = cage.positions.length / 3;
  const k = params.influences;
  const positive = params.method === 'pmvc' && correction !== 'linear';
  const coords = new Float64Array(m);
  const mvcScratch = new Float64Array(4 * m);
  const prepared = params.method === 'pmvc' ? prepareCage(cage) : undefined;
  const scratch = prepared ? createPmvcScratch(createCubeMap(params.resolution), cage) : undefined;
  const order = new Int32Array(m);
  const kept = new Int32Array(k);
  const w = new Float64Array(k);
  return (positions, begin, end, indices, weights, outOffset = 0) => {
    const outside: number[] = [];
    for (let i = begin; i < end; i++) {
      if (!(windingNumber(cage, positions, 3 * i) >= 0.5)) {
        outside.push(i);
        continue;
      }
      if (prepared) positiveMeanValueCoordinates(prepared, positions, 3 * i, coords, scratch!);
      else meanValueCoordinates(cage, positions, 3 * i, coords, mvcScratch);
      const nonZero = sortByWeight(coords, order);
      const count = Math.min(nonZero, k);
      for (let s = 0; s < count; s++) kept[s] = order[s];
      for (let s = 0; s < count; s++) w[s] = coords[kept[s]];
      if (nonZero > k) truncate(cage, positions, 3 * i, coords, order, nonZero, kept, w, count, positive);
      const o = k * (i - outOffset);
      for (let s = 0; s < k; s++) {
        indices[o + s] = s < count ? kept[s] : 0;
        weights[o + s] = s < count ? w[s] : 0;
      }
    }
    return outside;
  };
}

/**
 * Binds vertices [begin, end) in one call (see {@link createCageBinder}).
 * @param correction as {@link CageBindOptions}' (default: `positive` for PMVC)
 * @returns the vertices of the range that are outside the cage
 */
export function bindRange(
  positions: ArrayLike<number>,
  cage: Cage,
  params: { method: CageCoordinates; resolution: number; influences: number },
  begin: number,
  end: number,
  indices: Uint32Array,
  weights: Float32Array,
  outOffset = 0,
  correction?: CageBindOptions['correction'],
): number[] {
  return createCageBinder(cage, params, correction)(positions, begin, end, indices, weights, outOffset);
}

/** Sorts the indices of the non-zero coordinates by decreasing |coordinate| into `order`; returns how many. */
function sortByWeight(coords: Float64Array, order: Int32Array): number {
  let n = 0;
  for (let i = 0; i < coords.length; i++) if (coords[i] !== 0) order[n++] = i;
  order.subarray(0, n).sort((a, b) => Math.abs(coords[b]) - Math.abs(coords[a]) || a - b);
  return n;
}

/**
 * Corrects the `count` kept weights (of cage vertices `kept`) for what truncation dropped (see the
 * module comment). When the kept vertices are coplanar (no correction exists) the smallest kept
 * one is swapped for the next largest dropped one until it does (for PMVC, until a correction
 * with no negative weight exists); failing that, the first correction found, or else the
 * renormalised weights.
 */
function truncate(
  cage: Cage,
  x: ArrayLike<number>,
  xo: number,
  coords: Float64Array,
  order: Int32Array,
  nonZero: number,
  kept: Int32Array,
  w: Float64Array,
  count: number,
  positive: boolean,
): void {
  // The kept set, soft-thresholded (see the module comment); then, while no (positive) correction
  // exists, the smallest kept vertex swapped for each of the next largest dropped ones in turn.
  const tau = Math.abs(coords[order[count]]);
  const soft = (v: number) => Math.sign(v) * Math.max(0, Math.abs(v) - tau);
  let fallback: { kept: Int32Array; w: Float64Array } | undefined;
  for (let next = count; next <= Math.min(nonZero, 2 * count); next++) {
    if (next > count) kept[count - 1] = order[next - 1];
    for (let s = 0; s < count; s++) w[s] = next === count ? soft(coords[kept[s]]) : coords[kept[s]];
    const result = correct(cage, x, xo, kept, w, count, positive);
    if (result === 'exact') return;
    if (result === 'negative') fallback ??= { kept: kept.slice(), w: w.slice() };
  }
  if (fallback) {
    kept.set(fallback.kept);
    w.set(fallback.w);
    return;
  }
  // Renormalised; plain top-k where the soft-thresholded weights sum to zero (k + 1 equal ones).
  for (let s = 0; s < count; s++) kept[s] = order[s];
  let sum = 0;
  for (let s = 0; s < count; s++) sum += (w[s] = soft(coords[kept[s]]));
  if (!(sum > 0)) {
    sum = 0;
    for (let s = 0; s < count; s++) sum += (w[s] = coords[kept[s]]);
  }
  for (let s = 0; s < count; s++) w[s] /= sum;
}

/**
 * w ← w + δ, δ = D Cᵀ (C D Cᵀ)⁻¹ r over the active weights, D = diag(|w|), C the 4×count matrix
 * of [c_k − x; 1], r = [0; 1] − C w: the smallest change relative to each weight with Σw = 1 and
 * Σ w_k c_k = x. With `positive`, weights that would go negative leave the active set and the
 * rest is solved again (the unconstrained solution is kept when that fails).
 * @returns 'exact' (and `w` corrected), 'negative' (`w` corrected with a weight < 0 although
 * `positive`), or 'none' (no correction: the kept vertices are coplanar; `w` unchanged)
 */
function correct(cage: Cage, x: ArrayLike<number>, xo: number, kept: Int32Array, w: Float64Array, count: number, positive: boolean): 'exact' | 'negative' | 'none' {
  const p = cage.positions;
  const w0 = Float64Array.from(w.subarray(0, count));
  const active = new Uint8Array(count).fill(1);
  let first: Float64Array | undefined;
  for (let round = 0; round < count; round++) {
    // Cage positions relative to x (better conditioned): the targets are Σ w (c − x) = 0, Σ w = 1.
    const r = [0, 0, 0, 1];
    const A = new Float64Array(16);
    for (let s = 0; s < count; s++) {
      if (!active[s]) continue;
      const c = [p[3 * kept[s]] - x[xo], p[3 * kept[s] + 1] - x[xo + 1], p[3 * kept[s] + 2] - x[xo + 2], 1];
      const d = Math.abs(w0[s]);
      for (let a = 0; a < 4; a++) {
        r[a] -= c[a] * w0[s];
        for (let b = 0; b < 4; b++) A[4 * a + b] += d * c[a] * c[b];
      }
    }
    const lambda = solve4(A, r);
    if (!lambda) break;
    const next = new Float64Array(count);
    let negative = false;
    for (let s = 0; s < count; s++) {
      if (!active[s]) continue;
      const c0 = p[3 * kept[s]] - x[xo], c1 = p[3 * kept[s] + 1] - x[xo + 1], c2 = p[3 * kept[s] + 2] - x[xo + 2];
      next[s] = w0[s] + Math.abs(w0[s]) * (c0 * lambda[0] + c1 * lambda[1] + c2 * lambda[2] + lambda[3]);
      if (next[s] < 0) negative = true;
    }
    first ??= next;
    if (!positive || !negative) {
      w.set(next);
      return 'exact';
    }
    for (let s = 0; s < count; s++) if (active[s] && next[s] < 0) active[s] = 0;
  }
  if (!first) return 'none';
  w.set(first);
  return 'negative';
}

/** Solves the 4×4 system A y = b (Gaussian elimination, partial pivoting); undefined when singular. */
function solve4(A: Float64Array, b: number[]): number[] | undefined {
  const M = Array.from({ length: 4 }, (_, i) => [A[4 * i], A[4 * i + 1], A[4 * i + 2], A[4 * i + 3], b[i]]);
  let norm = 0;
  for (let i = 0; i < 16; i++) norm = Math.max(norm, Math.abs(A[i]));
  for (let col = 0; col < 4; col++) {
    let piv = col;
    for (let row = col + 1; row < 4; row++) if (Math.abs(M[row][col]) > Math.abs(M[piv][col])) piv = row;
    if (!(Math.abs(M[piv][col]) > 1e-12 * norm)) return undefined;
    [M[col], M[piv]] = [M[piv], M[col]];
    for (let row = 0; row < 4; row++) {
      if (row === col) continue;
      const f = M[row][col] / M[col][col];
      for (let k = col; k < 5; k++) M[row][k] -= f * M[col][k];
    }
  }
  return M.map((row, i) => row[4] / row[i]);
}
