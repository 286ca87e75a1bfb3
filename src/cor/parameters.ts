/**
 * The CoR precomputation's parameters in one place: their defaults, each a named constant, and the
 * one function that fills them into options and checks them ({@link resolveCorOptions}), used by
 * the precomputation, the incremental session, the glTF-Transform bake and the CLI.
 *
 * @module
 */

/** Default kernel width σ of the similarity (Le & Hodgins 2016, Eq. 1): the paper's 0.1 (Sec. 5). */
export const DEFAULT_SIGMA = 0.1;

/** Default weight-space edge length bound ε of the subdivision: the paper's 0.1 (Le & Hodgins 2016, Sec. 5). */
export const DEFAULT_EPSILON = 0.1;

/**
 * Default limit on the sub-triangles the weight-space subdivision may make, 5·10⁷ (about 1 µs
 * each to subdivide and bin, ≈ 1 minute; the exact algorithm also holds about 120 bytes each,
 * ≈ 6 GB): the precomputation estimates the count before subdividing and refuses above it (a
 * tiny ε is the usual cause). CLI `--max-subdivided`.
 */
export const DEFAULT_MAX_SUBDIVIDED_TRIANGLES = 5e7;

/**
 * Default number of influences per vertex `corskin deform` keeps (the largest, renormalised;
 * CLI `--influences`): 16, as many as corskin/three's GPU path reads (`MAX_INFLUENCE_SETS`).
 */
export const DEFAULT_INFLUENCES = 16;

/** The CoR parameters {@link resolveCorOptions} fills in. */
export interface CorParameterOptions {
  /** Kernel width σ; default {@link DEFAULT_SIGMA}. */
  sigma?: number;
  /** Subdivision bound ε; default {@link DEFAULT_EPSILON}. */
  epsilon?: number;
  /** Sub-triangle limit; default {@link DEFAULT_MAX_SUBDIVIDED_TRIANGLES}. */
  maxSubdividedTriangles?: number;
}

/**
 * `options`' σ, ε and sub-triangle limit with the defaults filled in, σ and ε checked.
 * @throws RangeError for σ or ε ≤ 0 (or not a number)
 */
export function resolveCorOptions(options: CorParameterOptions): Required<CorParameterOptions> {
  const sigma = options.sigma ?? DEFAULT_SIGMA;
  const epsilon = options.epsilon ?? DEFAULT_EPSILON;
  checkSigma(sigma);
  if (!(epsilon > 0)) throw new RangeError(`epsilon must be > 0, got ${epsilon}`);
  return { sigma, epsilon, maxSubdividedTriangles: options.maxSubdividedTriangles ?? DEFAULT_MAX_SUBDIVIDED_TRIANGLES };
}

/**
 * Checks a kernel width σ already filled in (as an evaluation plan carries it).
 * @throws RangeError for σ ≤ 0 (or not a number)
 */
export function checkSigma(sigma: number): void {
  if (!(sigma > 0)) throw new RangeError(`sigma must be > 0, got ${sigma}`);
}

/** The CoR algorithm of `options`: `algorithm`, else the deprecated `method`, else `fast`. */
export function corAlgorithm(options: { algorithm?: 'fast' | 'exact'; method?: 'fast' | 'exact' }): 'fast' | 'exact' {
  return options.algorithm ?? options.method ?? 'fast';
}
