/**
 * The CoR precomputation end to end (Le & Hodgins 2016, Sec. 3.2): subdivide in weight space, bucket the
 * sub-triangles by joint pair, plan each pair (exact, binned or tabulated), evaluate Eq. 4 per
 * vertex — in this thread ({@link computeCentersOfRotation}) or on a pool of worker threads
 * ({@link computeCentersOfRotationParallel}), with bit-identical results either way.
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';
import { checkMeshShape, checkTriangles, type SkinnedMesh } from '../core/mesh.js';
import { centersOfRotationPlanned, fastResolution, type FastCorResolution } from './fast.js';
import { corAlgorithm, resolveCorOptions } from './parameters.js';
import { binChunk, chunkRanges, PairSums, vertexPairs } from './stream.js';
import { estimateSubdividedTriangles } from './subdivide.js';

/**
 * Name of the glTF vertex attribute holding the centers of rotation (VEC3 float, bind space;
 * GLTFLoader exposes it as `_center_of_rotation`).
 */
export { COR_ATTRIBUTE } from '../io/schema.js';

/** Options of {@link computeCentersOfRotation}. */
export interface CorOptions {
  /** Kernel width σ of the similarity (Eq. 1); default 0.1 (`DEFAULT_SIGMA`). */
  sigma?: number;
  /** Weight-space edge length bound ε of the subdivision; default 0.1 (`DEFAULT_EPSILON`). */
  epsilon?: number;
  /** Called now and then with (vertices done, total), and once at the end. */
  onProgress?: (done: number, total: number) => void;
  /** Aborts the computation (throws, or rejects with, the signal's reason). */
  signal?: AbortSignal;
  /**
   * `fast` (default): per joint pair, the sub-triangles are binned in the pair's weight space
   * and the similarity sums tabulated (see `cor/fast.ts`); measured error ≤ 1e-3 of the
   * bounding-box diagonal. `exact`: Eq. 4 to rounding, cost vertices × sub-triangles per pair.
   */
  algorithm?: 'fast' | 'exact';
  /** @deprecated the old name of {@link CorOptions.algorithm}, read when that is not given; removed in the next release */
  method?: 'fast' | 'exact';
  /** Resolution of the fast method (defaults measured on the shared assets). */
  resolution?: FastCorResolution;
  /**
   * Refuse (before subdividing) when the subdivision would make more sub-triangles than this
   * (estimated; about 1 µs each, and about 120 bytes each held by the exact algorithm);
   * default 5·10⁷ (`DEFAULT_MAX_SUBDIVIDED_TRIANGLES`). A tiny ε is the usual cause.
   */
  maxSubdividedTriangles?: number;
}

/** What {@link computeCentersOfRotation} returns. */
export interface CorResult {
  /** Bind-space centers of rotation, length 3·n. */
  centers: Float32Array;
  /** Input vertices n. */
  vertices: number;
  /** Vertices with two or more influences (the others keep their bind position). */
  blendedVertices: number;
  /** Input triangles. */
  triangles: number;
  /** Sub-triangles after the weight-space subdivision. */
  subdividedTriangles: number;
  /** Wall time, seconds. */
  seconds: number;
}

const CHUNK = 4096;

/**
 * Validated parameters and mesh arrays.
 * @throws RangeError for σ or ε ≤ 0; CorskinError for an empty mesh, arrays whose lengths do not
 *   fit (positions 3·n, joints and weights K·n, triangles 3·t) or a triangle index ≥ n
 */
export function corParameters(mesh: SkinnedMesh, options: CorOptions): { sigma: number; epsilon: number; J: number } {
  const { sigma, epsilon, maxSubdividedTriangles: limit } = resolveCorOptions(options);
  if (mesh.positions.length === 0) throw new CorskinError('the mesh has no vertices');
  checkMeshShape(mesh);
  checkTriangles(mesh);
  const estimate = estimateSubdividedTriangles(mesh, epsilon);
  if (estimate > limit) {
    throw new CorskinError(
      `subdividing to ε = ${epsilon} would make up to ${estimate.toExponential(1)} sub-triangles (with the exact algorithm ≈ ${aboutSeconds(estimate / 1e6)} and ≈ ${((estimate * 120) / 1e9).toFixed(1)} GB); use a larger ε or raise the limit (${limit.toExponential(1)}, --max-subdivided)`,
    );
  }
  let J = 0;
  for (let i = 0; i < mesh.joints.length; i++) if (mesh.joints[i] >= J) J = mesh.joints[i] + 1;
  return { sigma, epsilon, J };
}

/**
 * Computes the optimized center of rotation of every vertex of `mesh` (Eq. 4 of Le & Hodgins 2016) over
 * the mesh's own triangles, after subdividing them to weight-space edge length ≤ ε, in this
 * thread.
 * @param mesh bind-space mesh with weights summing to 1 per vertex; every triangle primitive
 *   bound to the same skin belongs in it (that is the integration domain: a mesh without
 *   triangles has none, and every vertex keeps its bind position)
 * @throws RangeError for σ or ε ≤ 0; the abort reason when `signal` aborts
 * @throws CorskinError when the mesh has no vertices, or its arrays do not fit (see corParameters)
 */
export function computeCentersOfRotation(mesh: SkinnedMesh, options: CorOptions = {}): CorResult {
  const { sigma, epsilon, J } = corParameters(mesh, options);
  const n = mesh.positions.length / 3;
  const start = performance.now();
  options.signal?.throwIfAborted();
  // Subdivided and binned chunk by chunk (cor/stream.ts): the sub-triangles are never all held.
  const exact = corAlgorithm(options) === 'exact';
  const pairs = vertexPairs(mesh, J);
  const resolution = fastResolution(options.resolution);
  const sums = new PairSums(pairs, resolution, exact);
  for (const [a, b] of chunkRanges(mesh.triangles.length / 3)) {
    options.signal?.throwIfAborted();
    sums.add(binChunk(mesh, pairs, epsilon, resolution, exact, a, b));
  }
  const plan = sums.plan(sigma, exact);
  const subTriangles = sums.subTriangles;
  const centers = new Float32Array(3 * n);
  let blended = 0;
  // At least ~100 progress steps: an exact evaluation can spend seconds on a few thousand vertices.
  const chunk = Math.max(16, Math.min(CHUNK, Math.ceil(n / 100)));
  for (let begin = 0; begin < n; begin += chunk) {
    options.signal?.throwIfAborted();
    const end = Math.min(n, begin + chunk);
    blended += centersOfRotationPlanned(plan, mesh, begin, end, centers);
    options.onProgress?.(end, n);
  }
  return {
    centers,
    vertices: n,
    blendedVertices: blended,
    triangles: mesh.triangles.length / 3,
    subdividedTriangles: subTriangles,
    seconds: (performance.now() - start) / 1000,
  };
}

/** A duration for a message: whole seconds up to 90 s, else whole minutes. */
function aboutSeconds(seconds: number): string {
  return seconds < 90 ? `${Math.max(1, Math.round(seconds))} s` : `${Math.round(seconds / 60)} min`;
}
