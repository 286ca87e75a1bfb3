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
import { boundingBoxDiagonal } from '../../core/mesh.js';
import { weldByPosition } from '../../metrics/weld.js';
import { cotangentLaplacian, smoothingSystem, type SymmetricCsr } from './laplacian.js';
import { DEFAULT_DDM_THRESHOLD, resolveDdmParameters, type DdmParameters } from './parameters.js';
import { factorLdlt, solveLdlt, type LdltFactor } from './ldlt.js';
import { addToBlock, covarianceFloor } from './covariance.js';

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
  const parameters = resolveDdmParameters(options);
  const { iterations: p, lambda, kappa, alpha, smoothing } = parameters;
  const { variant, threshold } = checkDdmOptions(options);
  const { positions, influences: K } = mesh;
  const n = positions.length / 3;
  if (mesh.triangles.length === 0)
    throw new CorskinError('Direct Delta Mush needs a triangle mesh (this one has no triangles)');

  // The stored matrices hold squared distances in float32 (range 1e-38 … 3e38).
  const extent = boundingBoxDiagonal(positions);
  if (!(extent >= 1e-12 && extent <= 1e12))
    throw new CorskinError(
      `the mesh spans ${extent.toPrecision(3)} units: Direct Delta Mush stores squared distances as 32-bit floats, which hold meshes from 1e-12 to 1e12 units across (rescale the asset)`,
    );

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
  const L = cotangentLaplacian(positions, mesh.triangles, repOf, m, smoothing === 'normalized');
  const sysK = smoothingSystem(L, kappa, smoothing);
  const sysL = smoothingSystem(L, lambda, smoothing);
  // Coordinates about the box centre (the result does not depend on it; the moments stay small).
  const centre = boxCentre(positions);
  const x = new Float64Array(3 * m);
  for (let r = 0; r < m; r++) for (let c = 0; c < 3; c++) x[3 * r + c] = positions[3 * firstOf[r] + c] - centre[c];

  // Smoothing never crosses from one connected piece to another: each is solved alone, with
  // only the joints that weigh on it.
  const pieces = connectedPieces(L);
  const jointsOf = pieces.map((rows) => {
    const set = new Set<number>();
    for (const r of rows) {
      const i = firstOf[r];
      for (let k = K * i; k < K * i + K; k++) if (mesh.weights[k] !== 0) set.add(mesh.joints[k]);
    }
    return Int32Array.from([...set].sort((a, b) => a - b));
  });
  const columnsPer = (J: number) => (variant === 'full' ? 11 * J + 10 : 2 * J + 10);
  const totalWork = pieces.reduce((t, rows, c) => t + p * rows.length * columnsPer(jointsOf[c].length), 0);
  let workDone = 0;
  const kept: Entry[][] = Array.from({ length: m }, () => []);
  const moments = variant === 'compact' ? new Float64Array(10 * m) : undefined;

  pieces.forEach((rows, c) => {
    const jointOf = jointsOf[c];
    const J = jointOf.length;
    const nb = rows.length;
    const col = new Map<number, number>();
    jointOf.forEach((j, q) => col.set(j, q));
    const W = new Float64Array(nb * J);
    rows.forEach((r, a) => {
      const i = firstOf[r];
      for (let k = K * i; k < K * i + K; k++)
        if (mesh.weights[k] !== 0) W[a * J + col.get(mesh.joints[k])!] += mesh.weights[k];
    });
    const xyz = new Float64Array(3 * nb);
    rows.forEach((r, a) => xyz.set(x.subarray(3 * r, 3 * r + 3), 3 * a));
    const localK = factorPiece(sysK, rows, xyz);
    const localL = factorPiece(sysL, rows, xyz);
    const smooth = (sys: ReturnType<typeof factorPiece>, X: Float64Array, cols: number) => {
      const work = new Float64Array(X.length);
      for (let it = 0; it < p; it++) {
        options.signal?.throwIfAborted();
        for (let a = 0; a < nb; a++) for (let q = 0, k = a * cols; q < cols; q++, k++) X[k] *= sys.scale[a];
        solveLdlt(sys.factor, X, X, cols, work);
        workDone += nb * cols;
        options.onProgress?.(workDone, totalWork);
      }
      return X;
    };

    // w̃ = (I + κL̃)^-p w
    const Wk = smooth(localK, W.slice(), J);
    // Σ_j Ψ_ij = (I + λL̃)^-p (s ∘ uu), s the weight sums: gives p_i, P_i and Σ_j Ψ_ij[3,3].
    const sumPsi = new Float64Array(10 * nb);
    rows.forEach((r, a) => {
      let sum = 0;
      for (let j = 0; j < J; j++) sum += W[a * J + j];
      outer(x, r, sum, sumPsi, 10 * a);
    });
    smooth(localL, sumPsi, 10);
    const P = new Float64Array(10 * nb);
    for (let a = 0; a < nb; a++) {
      const o = 10 * a;
      const l = sumPsi[o + 9];
      outer([sumPsi[o + 3] / l, sumPsi[o + 6] / l, sumPsi[o + 8] / l], 0, 1, P, o);
    }
    // Ω = (1 − α) Ψ + α w̃ P (Eq. 11), and Σ_j Ω_ij[3,3] for the shares.
    const omegaOf = (psi: ArrayLike<number>, po: number, wk: number, a: number, out: Float64Array, oo: number) => {
      for (let e = 0; e < 10; e++) out[oo + e] = (1 - alpha) * psi[po + e] + alpha * wk * P[10 * a + e];
    };
    const wkSum = new Float64Array(nb);
    for (let a = 0; a < nb; a++) for (let j = 0; j < J; j++) wkSum[a] += Wk[a * J + j];

    if (moments) {
      // Ψ_ij[3,3] = (I + λL̃)^-p w; Π_i = Σ_j Ω_ij normalised, ω_ij = Ω_ij[3,3].
      const W33 = smooth(localL, W.slice(), J);
      rows.forEach((r, a) => {
        omegaOf(sumPsi, 10 * a, wkSum[a], a, moments, 10 * r);
        const total = moments[10 * r + 9];
        for (let e = 0; e < 10; e++) moments[10 * r + e] /= total;
        shiftToVertex(moments, 10 * r, x, r);
        for (let j = 0; j < J; j++) {
          const w = (1 - alpha) * W33[a * J + j] + alpha * Wk[a * J + j];
          if (w !== 0 && w >= threshold * total) kept[r].push({ joint: jointOf[j], values: [w] });
        }
      });
      return;
    }
    const omega = new Float64Array(10);
    for (let j0 = 0; j0 < J; j0 += BONES_PER_BLOCK) {
      const bones = Math.min(BONES_PER_BLOCK, J - j0);
      const cols = 10 * bones;
      const psi = new Float64Array(nb * cols);
      rows.forEach((r, a) => {
        for (let b = 0; b < bones; b++) outer(x, r, W[a * J + j0 + b], psi, a * cols + 10 * b);
      });
      smooth(localL, psi, cols);
      rows.forEach((r, a) => {
        const total = (1 - alpha) * sumPsi[10 * a + 9] + alpha * wkSum[a];
        for (let b = 0; b < bones; b++) {
          omegaOf(psi, a * cols + 10 * b, Wk[a * J + j0 + b], a, omega, 0);
          if (omega[9] === 0 || omega[9] < threshold * total) continue;
          shiftToVertex(omega, 0, x, r);
          kept[r].push({ joint: jointOf[j0 + b], values: Array.from(omega) });
        }
      });
    }
  });

  // The rest covariance of every vertex with two or more entries (a vertex with one moves
  // rigidly) lifted to positive definite, so the bind pose gives back the bind mesh. Where the
  // smoothing cancelled the vertex's total (libigl's operator does not keep constants: c ≈ 0,
  // so p = b / c is meaningless, or every joint fell under the threshold), the vertex falls back
  // to Ω_ij = w_ij·I: the LBS position, turned by the polar factor of the blended rotations.
  const D = new Float64Array(6);
  const sum = new Float64Array(10);
  let fallbacks = 0;
  for (let r = 0; r < m; r++) {
    const entries = kept[r];
    if (
      entries.length === 1 &&
      (!moments || storable(moments.subarray(10 * r, 10 * r + 10))) &&
      entries.every((entry) => storable(entry.values))
    )
      continue; // moved rigidly by its one joint (its matrix is not used, but must be stored)
    let c = 0;
    let cAbs = 0;
    for (const entry of entries) {
      const w = entry.values[moments ? 0 : 9];
      c += w;
      cAbs += Math.abs(w);
    }
    let healthy = entries.length > 1 && c > TOTAL_CANCELLATION * cAbs;
    if (healthy && moments) {
      if (covarianceFloor(moments.subarray(10 * r, 10 * r + 10), D)) addToBlock(moments, 10 * r, D, 1);
      healthy = storable(moments.subarray(10 * r, 10 * r + 10)) && entries.every((entry) => storable(entry.values));
    } else if (healthy) {
      sum.fill(0);
      for (const entry of entries) for (let e = 0; e < 10; e++) sum[e] += entry.values[e];
      if (covarianceFloor(sum, D)) for (const entry of entries) addToBlock(entry.values, 0, D, entry.values[9]);
      healthy = entries.every((entry) => storable(entry.values));
    }
    if (healthy) continue;
    fallbacks++;
    const i = firstOf[r];
    entries.length = 0;
    for (let k = K * i; k < K * i + K; k++) {
      const w = mesh.weights[k];
      if (w > 0) entries.push({ joint: mesh.joints[k], values: moments ? [w] : [w, 0, 0, 0, w, 0, 0, w, 0, w] });
    }
    if (moments) moments.set(IDENTITY_10, 10 * r);
  }

  // Per input vertex (welded duplicates share their data), in vertex order.
  const offsets = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i] + kept[repOf[i]].length;
  const e = offsets[n];
  const joints = new Uint32Array(e);
  const values = new Float64Array((variant === 'full' ? 10 : 1) * e);
  const width = variant === 'full' ? 10 : 1;
  for (let i = 0; i < n; i++) {
    kept[repOf[i]].forEach((entry, q) => {
      joints[offsets[i] + q] = entry.joint;
      values.set(entry.values, width * (offsets[i] + q));
    });
  }
  if (!moments) return { variant, offsets, joints, matrices: values, parameters, fallbacks };
  const matrices = new Float64Array(10 * n);
  for (let i = 0; i < n; i++) matrices.set(moments.subarray(10 * repOf[i], 10 * repOf[i] + 10), 10 * i);
  return { variant, offsets, joints, matrices, weights: values, parameters, fallbacks };
}

/** One (vertex, joint) entry: Ω' (full) or ω (compact). */
interface Entry {
  joint: number;
  values: number[];
}

/** The connected pieces of the Laplacian's graph, each its rows in ascending order. */
function connectedPieces(L: SymmetricCsr): Int32Array[] {
  const label = new Int32Array(L.n).fill(-1);
  const pieces: Int32Array[] = [];
  const stack: number[] = [];
  for (let s = 0; s < L.n; s++) {
    if (label[s] >= 0) continue;
    const rows: number[] = [];
    label[s] = pieces.length;
    stack.push(s);
    while (stack.length) {
      const r = stack.pop()!;
      rows.push(r);
      for (let q = L.offsets[r]; q < L.offsets[r + 1]; q++) {
        const k = L.columns[q];
        if (label[k] < 0) {
          label[k] = pieces.length;
          stack.push(k);
        }
      }
    }
    pieces.push(Int32Array.from(rows.sort((a, b) => a - b)));
  }
  return pieces;
}

/** The smoothing system restricted to one connected piece's rows (no entry leaves the piece), factorised. */
function factorPiece(
  sys: { matrix: SymmetricCsr; scale: Float64Array },
  rows: Int32Array,
  xyz: Float64Array,
): { factor: LdltFactor; scale: Float64Array } {
  const { offsets, columns, values } = sys.matrix;
  const local = new Map<number, number>();
  rows.forEach((r, a) => local.set(r, a));
  const o = new Int32Array(rows.length + 1);
  for (let a = 0; a < rows.length; a++) o[a + 1] = o[a] + offsets[rows[a] + 1] - offsets[rows[a]];
  const c = new Int32Array(o[rows.length]);
  const v = new Float64Array(o[rows.length]);
  rows.forEach((r, a) => {
    for (let q = offsets[r], t = o[a]; q < offsets[r + 1]; q++, t++) {
      c[t] = local.get(columns[q])!;
      v[t] = values[q];
    }
  });
  const scale = Float64Array.from(rows, (r) => sys.scale[r]);
  return { factor: factorLdlt({ n: rows.length, offsets: o, columns: c, values: v }, xyz), scale };
}

/** A vertex whose total c = Σ_j Ω_ij[3,3] is below this fraction of Σ_j |Ω_ij[3,3]| falls back (see above). */
const TOTAL_CANCELLATION = 1e-2;
/** The symmetric 4×4 identity as 10 numbers. */
const IDENTITY_10 = [1, 0, 0, 0, 1, 0, 0, 1, 0, 1];

/** Whether every number is finite and stays finite (with room for the run time's sums) in float32. */
function storable(values: ArrayLike<number>): boolean {
  for (let e = 0; e < values.length; e++) if (!(Math.abs(values[e]) < 1e30)) return false;
  return true;
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
