/**
 * The Direct Delta Mush precomputation (Binh Huy Le and J. P. Lewis, "Direct Delta Mush Skinning
 * and Variants", ACM TOG 38(4), SIGGRAPH 2019, Sec. 3–4): per vertex i and joint j the 4×4
 * symmetric matrix
 *
 *   Ω_ij = (1 − α)·Ψ_ij + α·w̃_ij·P_i                                            (Eq. 11)
 *
 * where Ψ_ij = Σ_k [(I + λL̃)^{-p}]_ik · w_kj · u_k u_kᵀ (u_k = (x_k, 1), the moments of the
 * smoothed weights), w̃ = (I + κL̃)^{-p} w (the κ-smoothed weights) and P_i = [p_i; 1][p_i; 1]ᵀ
 * with p_i = Σ_j Ψ_ij[0:3, 3] / Σ_j Ψ_ij[3, 3], the smoothed rest position. L̃ is the cotangent
 * Laplacian normalised by its diagonal (see `laplacian.ts`), on the mesh welded by position so
 * UV seams do not tear.
 *
 * Two forms are produced:
 * - `full` (the paper's variant 0, as libigl's `direct_delta_mush`): Ω_ij for every joint whose
 *   share Ω_ij[3,3] / Σ_j Ω_ij[3,3] is at least `threshold` — 10 numbers and a joint index each;
 * - `compact`: Ω_ij ≈ ω_ij·Π_i with one per-vertex moment matrix Π_i = Σ_j Ω_ij / Σ_j ω_ij and
 *   per-joint scalars ω_ij = Ω_ij[3,3] — 10 numbers per vertex and a weight and joint index per
 *   influence. Q = (Σ_j ω_ij M_j)·Π_i: a linear blend of the skinning matrices times Π_i, as the
 *   paper's cheaper variants (Sec. 4) fold the joints' moments into one per vertex. Exact where
 *   the joints' moments are proportional; the rotation is then the polar factor of the blended
 *   matrix times the vertex's smoothed covariance.
 *
 * Matrices are stored about the vertex's own rest position (Ω' = T·Ω·Tᵀ, T the translation by
 * −x_i), which gives the same skinned positions (the fit is translation-covariant) without the
 * float32 cancellation of moments taken about a far origin.
 *
 * The 10 numbers of a symmetric 4×4 X are its upper triangle, row-major:
 * X00 X01 X02 X03 X11 X12 X13 X22 X23 X33.
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';
import { weldByPosition } from '../metrics/weld.js';
import { cotangentLaplacian, smoothingSystem, type DdmSmoothing, type SymmetricCsr } from './laplacian.js';
import { solveBlock } from './solve.js';

/** Default smoothing iterations p (libigl tutorial 408). */
export const DEFAULT_DDM_ITERATIONS = 20;
/** Default rotational smoothing λ (libigl tutorial 408). */
export const DEFAULT_DDM_LAMBDA = 3;
/** Default translational smoothing κ (libigl tutorial 408). */
export const DEFAULT_DDM_KAPPA = 1;
/** Default blend α between the rotational and translational terms (libigl tutorial 408). */
export const DEFAULT_DDM_ALPHA = 0.8;
/** Default share below which a joint's Ω is dropped from a vertex (its effect on Q is that fraction). */
export const DEFAULT_DDM_THRESHOLD = 1e-4;

/** The parameters of the precomputation, named as the paper and libigl. */
export interface DdmParameters {
  /** Smoothing iterations p ≥ 1 (integer); default 20. */
  iterations?: number;
  /** Rotational smoothing λ > 0; default 3. */
  lambda?: number;
  /** Translational smoothing κ, 0 < κ < λ; default 1. */
  kappa?: number;
  /** Blend α ∈ [0, 1) of the translational term (Eq. 11); default 0.8. */
  alpha?: number;
  /** Laplacian normalisation (see {@link DdmSmoothing}); default `normalized`. */
  smoothing?: DdmSmoothing;
}

/** Options of {@link computeDirectDeltaMush}. */
export interface DdmOptions extends DdmParameters {
  /** `full` (variant 0, default) or `compact` (one moment matrix per vertex). */
  variant?: DdmVariant;
  /** Drop a joint from a vertex when its share of Q₃₃ is below this; default 1e-4 (0 keeps all). */
  threshold?: number;
  /** Relative residual of each smoothing solve; default 1e-10. */
  tolerance?: number;
  /** Called now and then with (solves done, total). */
  onProgress?: (done: number, total: number) => void;
  /** Aborts the computation (throws the signal's reason). */
  signal?: AbortSignal;
}

/** The two stored forms (see the module comment). */
export type DdmVariant = 'full' | 'compact';

/** What the precomputation needs of a skinned mesh (a `SkinnedMesh` has it). */
export interface DdmInput {
  /** Rest (bind-space) positions, length 3·n. */
  positions: ArrayLike<number>;
  /** Triangles, length 3·t. */
  triangles: ArrayLike<number>;
  /** Influences per vertex K. */
  influences: number;
  /** Joint of each influence, length K·n. */
  joints: ArrayLike<number>;
  /** Weight of each influence, length K·n. */
  weights: ArrayLike<number>;
}

/**
 * Precomputed Direct Delta Mush data, n vertices, e = `offsets[n]` (vertex, joint) entries in
 * vertex order. Matrices are 10-number symmetric 4×4s about the vertex's rest position, in the
 * rest pose's units.
 */
export interface DdmModel {
  variant: DdmVariant;
  /** Entry range of vertex i: `[offsets[i], offsets[i+1])`, length n + 1. */
  offsets: Uint32Array;
  /** Joint of each entry, length e. */
  joints: Uint32Array;
  /** `full`: Ω' of each entry, length 10·e. `compact`: Π' of each vertex, length 10·n. */
  matrices: Float32Array | Float64Array;
  /** `compact` only: ω of each entry, length e. */
  weights?: Float32Array | Float64Array;
  /** The parameters used (defaults filled in). */
  parameters: Required<DdmParameters>;
}

/**
 * Checks the parameters and fills in the defaults.
 * @throws CorskinError naming the parameter: p not an integer ≥ 1; λ or κ not positive; κ ≥ λ;
 *   α outside [0, 1)
 */
export function resolveDdmParameters(options: DdmParameters = {}): Required<DdmParameters> {
  const p = options.iterations ?? DEFAULT_DDM_ITERATIONS;
  const lambda = options.lambda ?? DEFAULT_DDM_LAMBDA;
  const kappa = options.kappa ?? DEFAULT_DDM_KAPPA;
  const alpha = options.alpha ?? DEFAULT_DDM_ALPHA;
  const smoothing = options.smoothing ?? 'normalized';
  if (!Number.isInteger(p) || p < 1) throw new CorskinError(`DDM iterations p must be an integer ≥ 1 (got ${p})`);
  if (!(lambda > 0) || !Number.isFinite(lambda)) throw new CorskinError(`DDM lambda must be a positive number (got ${lambda})`);
  if (!(kappa > 0) || !Number.isFinite(kappa)) throw new CorskinError(`DDM kappa must be a positive number (got ${kappa})`);
  if (!(kappa < lambda)) throw new CorskinError(`DDM kappa must be smaller than lambda (got kappa ${kappa}, lambda ${lambda})`);
  if (!(alpha >= 0 && alpha < 1)) throw new CorskinError(`DDM alpha must lie in [0, 1) (got ${alpha})`);
  if (smoothing !== 'normalized' && smoothing !== 'libigl') {
    throw new CorskinError(`DDM smoothing must be "normalized" or "libigl" (got "${smoothing}")`);
  }
  return { iterations: p, lambda, kappa, alpha, smoothing };
}

/**
 * Precomputes Direct Delta Mush (Le & Lewis 2019, Eq. 11; see the module comment).
 * @param mesh rest positions, triangles and influences (weights as given: not renormalised)
 * @returns the `full` or `compact` model, vertex order as `mesh`
 * @throws CorskinError for bad parameters (naming the parameter) or a mesh without triangles;
 *   the signal's reason when aborted
 */
export function computeDirectDeltaMush(mesh: DdmInput, options: DdmOptions = {}): DdmModel {
  const parameters = resolveDdmParameters(options);
  const { iterations: p, lambda, kappa, alpha, smoothing } = parameters;
  const variant = options.variant ?? 'full';
  const threshold = options.threshold ?? DEFAULT_DDM_THRESHOLD;
  const tolerance = options.tolerance ?? 1e-10;
  const { positions, influences: K } = mesh;
  const n = positions.length / 3;
  if (mesh.triangles.length === 0) throw new CorskinError('Direct Delta Mush needs a triangle mesh (this one has no triangles)');

  // Weld by position: the Laplacian and the smoothing live on the welded vertices.
  const weld = weldByPosition(positions);
  const repOf = new Int32Array(n);
  const firstOf: number[] = [];
  for (let i = 0; i < n; i++) {
    if (weld[i] === i) {
      repOf[i] = firstOf.length;
      firstOf.push(i);
    } else repOf[i] = repOf[weld[i]];
  }
  const m = firstOf.length;
  const L = cotangentLaplacian(positions, mesh.triangles, repOf, m);
  const sysK = smoothingSystem(L, kappa, smoothing);
  const sysL = smoothingSystem(L, lambda, smoothing);

  // Joints used, as dense columns.
  const used = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    for (let k = K * i; k < K * i + K; k++) if (mesh.weights[k] !== 0 && !used.has(mesh.joints[k])) used.set(mesh.joints[k], used.size);
  }
  const jointOf = Int32Array.from([...used.keys()]);
  const J = jointOf.length;
  const W = new Float64Array(m * J);
  for (let r = 0; r < m; r++) {
    const i = firstOf[r];
    for (let k = K * i; k < K * i + K; k++) if (mesh.weights[k] !== 0) W[r * J + used.get(mesh.joints[k])!] += mesh.weights[k];
  }
  // Coordinates about the box centre (the result does not depend on it; the moments stay small).
  const centre = boxCentre(positions);
  const x = new Float64Array(3 * m);
  for (let r = 0; r < m; r++) for (let c = 0; c < 3; c++) x[3 * r + c] = positions[3 * firstOf[r] + c] - centre[c];

  const total = p * (variant === 'full' ? 2 + Math.ceil(J / BONES_PER_BLOCK) : 3);
  let done = 0;
  const smooth = (sys: ReturnType<typeof smoothingSystem>, X: Float64Array, c: number) => {
    const B = new Float64Array(X.length);
    for (let it = 0; it < p; it++) {
      options.signal?.throwIfAborted();
      for (let r = 0; r < m; r++) for (let col = 0, k = r * c; col < c; col++, k++) B[k] = sys.scale[r] * X[k];
      solveBlock(sys.matrix, B, X, c, { tolerance });
      options.onProgress?.(++done, total);
    }
    return X;
  };

  // w̃ = (I + κL̃)^-p w
  const Wk = smooth(sysK, W.slice(), J);
  // Σ_j Ψ_ij = (I + λL̃)^-p (s ∘ uu), s the weight sums: p_i and ℓ_i = Σ_j Ψ_ij[3,3].
  const sumPsi = new Float64Array(10 * m);
  for (let r = 0; r < m; r++) {
    let s = 0;
    for (let j = 0; j < J; j++) s += W[r * J + j];
    outer(x, r, s, sumPsi, 10 * r);
  }
  smooth(sysL, sumPsi, 10);
  const P = new Float64Array(10 * m);
  for (let r = 0; r < m; r++) {
    const o = 10 * r;
    const l = sumPsi[o + 9];
    const pp = [sumPsi[o + 3] / l, sumPsi[o + 6] / l, sumPsi[o + 8] / l];
    outer(pp, 0, 1, P, o);
  }

  const omegaOf = (psi: ArrayLike<number>, po: number, wk: number, r: number, out: Float64Array, oo: number) => {
    for (let e = 0; e < 10; e++) out[oo + e] = (1 - alpha) * psi[po + e] + alpha * wk * P[10 * r + e];
  };

  const offsets = new Uint32Array(n + 1);
  if (variant === 'compact') {
    // Ψ_ij[3,3] = (I + λL̃)^-p w
    const W33 = smooth(sysL, W.slice(), J);
    const entries: { j: number; w: number }[][] = [];
    const moments = new Float64Array(10 * m);
    let total33 = 0;
    for (let r = 0; r < m; r++) {
      const list: { j: number; w: number }[] = [];
      let sum = 0;
      let wkSum = 0;
      for (let j = 0; j < J; j++) {
        const w = (1 - alpha) * W33[r * J + j] + alpha * Wk[r * J + j];
        sum += w;
        wkSum += Wk[r * J + j];
        list.push({ j, w });
      }
      const kept = list.filter((e) => e.w >= threshold * sum && e.w !== 0);
      entries.push(kept);
      total33 += kept.length;
      omegaOf(sumPsi, 10 * r, wkSum, r, moments, 10 * r);
      const o = 10 * r;
      for (let e = 0; e < 10; e++) moments[o + e] /= moments[o + 9];
      shiftToVertex(moments, o, x, r);
    }
    void total33;
    const perVertex = (i: number) => entries[repOf[i]];
    for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i] + perVertex(i).length;
    const joints = new Uint32Array(offsets[n]);
    const weights = new Float64Array(offsets[n]);
    const matrices = new Float64Array(10 * n);
    for (let i = 0; i < n; i++) {
      const list = perVertex(i);
      for (let q = 0; q < list.length; q++) {
        joints[offsets[i] + q] = jointOf[list[q].j];
        weights[offsets[i] + q] = list[q].w;
      }
      matrices.set(moments.subarray(10 * repOf[i], 10 * repOf[i] + 10), 10 * i);
    }
    return { variant, offsets, joints, matrices, weights, parameters };
  }

  // Full: Ψ for blocks of joints, Ω per (vertex, joint), shares against Σ_j Ω_ij[3,3].
  const sum33 = new Float64Array(m);
  for (let r = 0; r < m; r++) {
    let s = 0;
    for (let j = 0; j < J; j++) s += Wk[r * J + j];
    sum33[r] = (1 - alpha) * sumPsi[10 * r + 9] + alpha * s;
  }
  const kept: { j: number; omega: Float64Array }[][] = Array.from({ length: m }, () => []);
  const omega = new Float64Array(10);
  for (let j0 = 0; j0 < J; j0 += BONES_PER_BLOCK) {
    const nb = Math.min(BONES_PER_BLOCK, J - j0);
    const c = 10 * nb;
    const psi = new Float64Array(m * c);
    for (let r = 0; r < m; r++) for (let b = 0; b < nb; b++) outer(x, r, W[r * J + j0 + b], psi, r * c + 10 * b);
    smooth(sysL, psi, c);
    for (let r = 0; r < m; r++) {
      for (let b = 0; b < nb; b++) {
        omegaOf(psi, r * c + 10 * b, Wk[r * J + j0 + b], r, omega, 0);
        if (omega[9] === 0 || omega[9] < threshold * sum33[r]) continue;
        const o = omega.slice();
        shiftToVertex(o, 0, x, r);
        kept[r].push({ j: j0 + b, omega: o });
      }
    }
  }
  for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i] + kept[repOf[i]].length;
  const joints = new Uint32Array(offsets[n]);
  const matrices = new Float64Array(10 * offsets[n]);
  for (let i = 0; i < n; i++) {
    const list = kept[repOf[i]];
    for (let q = 0; q < list.length; q++) {
      joints[offsets[i] + q] = jointOf[list[q].j];
      matrices.set(list[q].omega, 10 * (offsets[i] + q));
    }
  }
  return { variant, offsets, joints, matrices, parameters };
}

/** Joints whose Ψ columns are smoothed together (10 columns each). */
const BONES_PER_BLOCK = 8;

function boxCentre(positions: ArrayLike<number>): number[] {
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < positions.length; i += 3) {
    for (let c = 0; c < 3; c++) {
      lo[c] = Math.min(lo[c], positions[i + c]);
      hi[c] = Math.max(hi[c], positions[i + c]);
    }
  }
  return lo.map((l, c) => (l + hi[c]) / 2);
}

/** out[o … o+9] = s · (u uᵀ) for u = (x[3r … 3r+2], 1), as 10 numbers. */
function outer(x: ArrayLike<number>, r: number, s: number, out: Float64Array, o: number): void {
  const a = x[3 * r];
  const b = x[3 * r + 1];
  const c = x[3 * r + 2];
  out[o] = s * a * a;
  out[o + 1] = s * a * b;
  out[o + 2] = s * a * c;
  out[o + 3] = s * a;
  out[o + 4] = s * b * b;
  out[o + 5] = s * b * c;
  out[o + 6] = s * b;
  out[o + 7] = s * c * c;
  out[o + 8] = s * c;
  out[o + 9] = s;
}

/** X ← T X Tᵀ with T the translation by −x_r: the moments about vertex r's position. */
function shiftToVertex(X: Float64Array, o: number, x: ArrayLike<number>, r: number): void {
  const v = [x[3 * r], x[3 * r + 1], x[3 * r + 2]];
  const b = [X[o + 3], X[o + 6], X[o + 8]];
  const c = X[o + 9];
  // A' = A − v bᵀ − b vᵀ + c v vᵀ ; b' = b − c v
  const A = [0, 1, 2, 4, 5, 7];
  const rc = [
    [0, 0],
    [0, 1],
    [0, 2],
    [1, 1],
    [1, 2],
    [2, 2],
  ];
  for (let e = 0; e < 6; e++) {
    const [p, q] = rc[e];
    X[o + A[e]] += -v[p] * b[q] - b[p] * v[q] + c * v[p] * v[q];
  }
  X[o + 3] = b[0] - c * v[0];
  X[o + 6] = b[1] - c * v[1];
  X[o + 8] = b[2] - c * v[2];
}

/** Bytes per vertex of a model (the stored arrays as float32/uint32, plus the offsets). */
export function ddmBytesPerVertex(model: DdmModel): number {
  const n = model.offsets.length - 1;
  const e = model.offsets[n];
  const floats = model.matrices.length + (model.weights?.length ?? 0);
  return (4 * (floats + e) + 4 * (n + 1)) / n;
}

export type { SymmetricCsr };
