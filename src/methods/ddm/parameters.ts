/**
 * The parameters of Direct Delta Mush (Le & Lewis 2019), named as the paper and libigl, with
 * libigl's tutorial defaults, their checks, and the options every surface offers for them. No
 * computation here: the CLI reads it at start-up.
 *
 * @module
 */
import { CorskinError } from '../../core/errors.js';
import type { MethodParameter } from '../parameter.js';
import type { DdmSmoothing } from './laplacian.js';

/**
 * How λ and κ meet the mesh: `adaptive` scales both to the mesh's resolution (`resolution.ts`:
 * by min(1, (ρ/ρ₀)²), the same reach in joint regions as libigl's parameters on its elephant);
 * `fixed` uses them as given, as libigl does.
 */
export type DdmResolution = 'adaptive' | 'fixed';

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

/**
 * Most smoothing iterations p: the precomputation's time grows linearly with p (20 is libigl's
 * default; the paper's figures use up to a few hundred).
 */
export const MAX_DDM_ITERATIONS = 1000;
/**
 * Largest λ and κ: beyond this, (I + λL̃) is numerically singular (its identity part vanishes
 * in double rounding) and the smoothing a projection onto constants.
 */
export const MAX_DDM_SMOOTHING = 1e6;

/** The parameters of the precomputation, named as the paper and libigl. */
export interface DdmParameters {
  /** Smoothing iterations p ≥ 1 (integer); default 20. */
  iterations?: number;
  /**
   * Rotational smoothing λ > 0; default 3 (libigl's), which the default `adaptive` resolution
   * then scales to the mesh (CesiumMan: 0.483; the model records the λ it was solved with).
   */
  lambda?: number;
  /** Translational smoothing κ, 0 < κ < λ; default 1, scaled with λ (CesiumMan: 0.161). */
  kappa?: number;
  /** Blend α ∈ [0, 1) of the translational term (Eq. 11); default 0.8. */
  alpha?: number;
  /** Laplacian normalisation (see {@link DdmSmoothing}); default `normalized`. */
  smoothing?: DdmSmoothing;
  /**
   * λ and κ scaled to the mesh's resolution or as given (see {@link DdmResolution}); default
   * `adaptive` with the `normalized` smoothing, `fixed` with `libigl` (to reproduce libigl). A
   * model holds the λ and κ it was solved with, and `fixed`.
   */
  resolution?: DdmResolution;
}

/**
 * Checks the parameters and fills in the defaults.
 * @throws CorskinError naming the parameter: p not a whole number in [1, {@link MAX_DDM_ITERATIONS}];
 *   λ or κ not in (0, {@link MAX_DDM_SMOOTHING}]; κ ≥ λ;
 *   α outside [0, 1)
 */
export function resolveDdmParameters(options: DdmParameters = {}): Required<DdmParameters> {
  const p = options.iterations ?? DEFAULT_DDM_ITERATIONS;
  const lambda = options.lambda ?? DEFAULT_DDM_LAMBDA;
  const kappa = options.kappa ?? DEFAULT_DDM_KAPPA;
  const alpha = options.alpha ?? DEFAULT_DDM_ALPHA;
  const smoothing = options.smoothing ?? 'normalized';
  const resolution = options.resolution ?? (smoothing === 'libigl' ? 'fixed' : 'adaptive');
  if (!Number.isInteger(p) || p < 1 || p > MAX_DDM_ITERATIONS)
    throw new CorskinError(
      `DDM iterations p (--iterations) must be a whole number from 1 to ${MAX_DDM_ITERATIONS} (got ${p}): the precomputation's time grows with p`,
    );
  if (!(lambda > 0) || !(lambda <= MAX_DDM_SMOOTHING))
    throw new CorskinError(`DDM lambda must be a positive number up to ${MAX_DDM_SMOOTHING} (got ${lambda})`);
  if (!(kappa > 0) || !(kappa <= MAX_DDM_SMOOTHING))
    throw new CorskinError(`DDM kappa must be a positive number up to ${MAX_DDM_SMOOTHING} (got ${kappa})`);
  if (!(kappa < lambda))
    throw new CorskinError(`DDM kappa must be smaller than lambda (got kappa ${kappa}, lambda ${lambda})`);
  if (!(alpha >= 0 && alpha < 1)) throw new CorskinError(`DDM alpha must lie in [0, 1) (got ${alpha})`);
  if (smoothing !== 'normalized' && smoothing !== 'libigl') {
    throw new CorskinError(`DDM smoothing must be "normalized" or "libigl" (got "${smoothing}")`);
  }
  if (resolution !== 'adaptive' && resolution !== 'fixed')
    throw new CorskinError(`DDM resolution must be "adaptive" or "fixed" (got "${resolution}")`);
  return { iterations: p, lambda, kappa, alpha, smoothing, resolution };
}

/**
 * Direct Delta Mush's parameters as every surface offers them (`corskin precompute --method ddm
 * --lambda 3`, and `deform`/`bake`/`evaluate` when the file lacks the data): those of
 * {@link DdmParameters}, the stored variant and the drop threshold.
 */
export const DDM_PARAMETERS: readonly MethodParameter[] = [
  { key: 'iterations', flag: 'iterations', kind: 'integer', default: DEFAULT_DDM_ITERATIONS, description: `smoothing iterations p, 1 to ${MAX_DDM_ITERATIONS} (default ${DEFAULT_DDM_ITERATIONS}, as libigl)` },
  { key: 'lambda', flag: 'lambda', kind: 'number', default: DEFAULT_DDM_LAMBDA, description: `rotational smoothing λ > 0 (default ${DEFAULT_DDM_LAMBDA})` },
  { key: 'kappa', flag: 'kappa', kind: 'number', default: DEFAULT_DDM_KAPPA, description: `translational smoothing κ, 0 < κ < λ (default ${DEFAULT_DDM_KAPPA})` },
  { key: 'alpha', flag: 'alpha', kind: 'number', default: DEFAULT_DDM_ALPHA, description: `blend α of the translational term, in [0, 1) (default ${DEFAULT_DDM_ALPHA})` },
  { key: 'variant', flag: 'variant', kind: 'choice', choices: ['full', 'compact'], default: 'full', description: 'full (variant 0, Ω per joint; default) or compact (one moment matrix per vertex)' },
  { key: 'smoothing', flag: 'smoothing', kind: 'choice', choices: ['normalized', 'libigl'], default: 'normalized', description: "Laplacian normalisation: normalized (D⁻¹L; default) or libigl (libigl's operator, to reproduce it)" },
  { key: 'resolution', flag: 'resolution', kind: 'choice', choices: ['adaptive', 'fixed'], default: 'adaptive', description: "adaptive (default; fixed with --smoothing libigl): λ and κ scaled to the mesh's resolution, the same reach in joint regions as libigl's parameters on its elephant; fixed: as given" },
  { key: 'threshold', flag: 'threshold', kind: 'number', default: DEFAULT_DDM_THRESHOLD, description: `drop a joint from a vertex below this share of Q₃₃, in [0, 1) (default ${DEFAULT_DDM_THRESHOLD})` },
]; // prettier-ignore
