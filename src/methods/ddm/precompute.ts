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
 * Where a vertex's rest covariance (what the run time's polar factor sees at the bind pose) is
 * not safely positive definite, its eigenvalues are lifted to a floor (`covariance.ts`), so the
 * bind pose gives back the bind mesh on every mesh, whatever its triangles.
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
import { CorskinError } from '../../core/errors.js';
import { DEFAULT_DDM_THRESHOLD, resolveDdmParameters, type DdmParameters } from './parameters.js';
import { solveDdmInThread } from './solves.js';
import { finishDirectDeltaMush, setupDirectDeltaMush } from './stages.js';

/** Options of {@link computeDirectDeltaMush}. */
export interface DdmOptions extends DdmParameters {
  /** `full` (variant 0, default) or `compact` (one moment matrix per vertex). */
  variant?: DdmVariant;
  /** Drop a joint from a vertex when its share of Q₃₃ is below this; default 1e-4 (0 keeps all). */
  threshold?: number;
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
  /** `full` (an Ω' per entry) or `compact` (a Π' per vertex and an ω per entry). */
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
  /**
   * Welded vertices given the fallback Ω_ij = w_ij·I (the LBS position, turned by the polar
   * factor of their joints' blended rotation) because their smoothed total cancelled out or no
   * joint passed the threshold — libigl's operator does that, the default one does not; absent
   * on a model read back from a file.
   */
  fallbacks?: number;
  /**
   * The mesh's resolution ρ (edges across a joint region, `resolution.ts`) when λ and κ were
   * scaled to it (the `adaptive` resolution); absent on a model read back from a file.
   */
  edgesPerRegion?: number;
}

/**
 * Checks the options of {@link computeDirectDeltaMush} before any work: the parameters
 * ({@link resolveDdmParameters}), the variant and the threshold; fills in their defaults.
 * @throws CorskinError naming the parameter
 */
export function checkDdmOptions(options: DdmOptions): { variant: DdmVariant; threshold: number } {
  resolveDdmParameters(options);
  const variant = options.variant ?? 'full';
  const threshold = options.threshold ?? DEFAULT_DDM_THRESHOLD;
  if (variant !== 'full' && variant !== 'compact')
    throw new CorskinError(`DDM variant must be "full" or "compact" (got "${String(variant)}")`);
  if (!(threshold >= 0 && threshold < 1)) throw new CorskinError(`DDM threshold must lie in [0, 1) (got ${threshold})`);
  return { variant, threshold };
}

/**
 * Precomputes Direct Delta Mush (Le & Lewis 2019, Eq. 11; see the module comment).
 * @param mesh rest positions, triangles and influences (weights as given: not renormalised)
 * @returns the `full` or `compact` model, vertex order as `mesh`
 * @throws CorskinError for bad parameters (naming the parameter; also a `variant` other than
 *   `full` and `compact`, a `threshold` outside [0, 1)), a mesh without triangles, or a
 *   mesh whose extent 32-bit floats cannot hold squared (outside 1e-12 … 1e12 units);
 *   the signal's reason when aborted
 */
export function computeDirectDeltaMush(mesh: DdmInput, options: DdmOptions = {}): DdmModel {
  const setup = setupDirectDeltaMush(mesh, resolveDdmParameters(options), checkDdmOptions(options));
  let done = 0;
  const solved = solveDdmInThread(setup, mesh, options, (work) =>
    options.onProgress?.((done += work), setup.totalWork),
  );
  return finishDirectDeltaMush(setup, mesh, solved);
}

/** Bytes per vertex of a model (the stored arrays as float32/uint32, plus the offsets). */
export function ddmBytesPerVertex(model: DdmModel): number {
  const n = model.offsets.length - 1;
  const e = model.offsets[n];
  const floats = model.matrices.length + (model.weights?.length ?? 0);
  return (4 * (floats + e) + 4 * (n + 1)) / n;
}
