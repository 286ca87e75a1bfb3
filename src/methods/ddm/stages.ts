/**
 * The stages of the Direct Delta Mush precomputation (Le & Lewis 2019, Eq. 11; the equations are
 * in `precompute.ts`): the set-up (the mesh welded by position, the smoothing systems, the
 * connected pieces), the solves split into independent tasks (a piece and a block of its joints)
 * so that worker threads can share them (`parallel.ts`), and the finish (the entries kept in task
 * order, the rest covariances lifted, the fallbacks, the per-vertex layout). The result does not
 * depend on which thread solved which task.
 *
 * @module
 */
import { CorskinError } from '../../core/errors.js';
import { boundingBoxDiagonal } from '../../core/mesh.js';
import { weldByPosition } from '../../metrics/weld.js';
import { addToBlock, covarianceFloor } from './covariance.js';
import { cotangentLaplacian, smoothingSystem, type SymmetricCsr } from './laplacian.js';
import { factorLdlt } from './ldlt.js';
import type { DdmParameters } from './parameters.js';
import { createSmoother, type Smoother } from './smoother.js';
import type { DdmInput, DdmModel, DdmOptions, DdmVariant } from './precompute.js';

/**
 * One unit of the precomputation's solves: connected piece `piece`, and for the `full` variant
 * the block of joints from its `first` (the compact variant's tasks are whole pieces). Tasks
 * are independent given their piece's factorisation; `work` estimates their solves.
 */
export interface DdmTask {
  piece: number;
  first: number;
  work: number;
}

/** What every stage of the precomputation shares (see {@link setupDirectDeltaMush}). */
export interface DdmSetup {
  parameters: Required<DdmParameters>;
  variant: DdmVariant;
  threshold: number;
  /** Vertices n, welded vertices m, the welded vertex of each vertex and the first vertex of each welded one. */
  n: number;
  m: number;
  repOf: Int32Array;
  firstOf: number[];
  /** Welded positions about the box centre, 3·m. */
  x: Float64Array;
  sysK: ReturnType<typeof smoothingSystem>;
  sysL: ReturnType<typeof smoothingSystem>;
  /** Connected pieces (their welded rows) and the joints weighing on each. */
  pieces: Int32Array[];
  jointsOf: Int32Array[];
  tasks: DdmTask[];
  totalWork: number;
}

/**
 * The precomputation's set-up: the mesh welded by position, the smoothing systems, the connected
 * pieces and the tasks of {@link solveDdmTasks}.
 * @param parameters resolved parameters, variant and threshold checked (`checkDdmOptions`)
 * @throws CorskinError for a mesh without triangles or outside 1e-12 … 1e12 units
 */
export function setupDirectDeltaMush(
  mesh: DdmInput,
  parameters: Required<DdmParameters>,
  { variant, threshold }: { variant: DdmVariant; threshold: number },
): DdmSetup {
  const { iterations: p, lambda, kappa, smoothing } = parameters;
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
  // Tasks: a piece's joints in blocks (full: Ψ's 10 columns and w̃'s one per joint; compact:
  // Ψ[3,3]'s and w̃'s one each per joint); the shared solves of each piece (Σ_j Ψ_ij, 10
  // columns, and Σ_j w̃_ij, one) counted once.
  const perJoint = variant === 'full' ? 11 : 2;
  const tasks: DdmTask[] = [];
  pieces.forEach((rows, piece) => {
    const J = jointsOf[piece].length;
    for (let first = 0; first < J; first += BONES_PER_BLOCK)
      tasks.push({ piece, first, work: p * rows.length * perJoint * Math.min(BONES_PER_BLOCK, J - first) });
  });
  const shared = pieces.reduce((t, rows) => t + p * rows.length * 11, 0);
  const totalWork = shared + tasks.reduce((t, task) => t + task.work, 0);
  return {
    parameters,
    variant,
    threshold,
    n,
    m,
    repOf,
    firstOf,
    x,
    sysK,
    sysL,
    pieces,
    jointsOf,
    tasks,
    totalWork,
  };
}

/** The entries tasks found, per task in task order: the welded row, joint and values of each. */
export interface DdmTaskEntries {
  task: number;
  rows: Int32Array;
  joints: Int32Array;
  /** Ω' (10 each, full) or ω (1 each, compact). */
  values: Float64Array;
  /** compact: Π' (10 numbers) of each row of the piece, rows in the piece's order. */
  moments?: Float64Array;
}

/**
 * Solves tasks `taskIds` (ascending) of `setup`: per piece the factorisations and shared solves
 * once, then each task's joints.
 * @param onWork called with the solves done since the last call
 * @throws the signal's reason when aborted
 */
export function solveDdmTasks(
  setup: DdmSetup,
  mesh: DdmInput,
  options: Pick<DdmOptions, 'signal'>,
  taskIds: readonly number[],
  onWork?: (work: number) => void,
): DdmTaskEntries[] {
  const { parameters, variant, threshold, firstOf, x, pieces, jointsOf, tasks } = setup;
  const { iterations: p, alpha } = parameters;
  const K = mesh.influences;
  const out: DdmTaskEntries[] = [];
  for (let t0 = 0; t0 < taskIds.length;) {
    const c = tasks[taskIds[t0]].piece;
    let t1 = t0;
    while (t1 < taskIds.length && tasks[taskIds[t1]].piece === c) t1++;
    const rows = pieces[c];
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
    const localK = factorPiece(setup.sysK, rows, xyz);
    const localL = factorPiece(setup.sysL, rows, xyz);
    const smooth = (sys: Smoother, X: Float64Array, cols: number) => {
      options.signal?.throwIfAborted();
      return sys.smooth(X, cols, p, () => {
        options.signal?.throwIfAborted();
        onWork?.(nb * cols);
      });
    };

    // Σ_j Ψ_ij = (I + λL̃)^-p (s ∘ uu) and Σ_j w̃_ij = (I + κL̃)^-p s, s the weight sums (the
    // smoothing is linear): p_i, P_i, and the totals every task's shares are taken of.
    const sumPsi = new Float64Array(10 * nb);
    const wkSum = new Float64Array(nb);
    rows.forEach((r, a) => {
      let sum = 0;
      for (let j = 0; j < J; j++) sum += W[a * J + j];
      outer(x, r, sum, sumPsi, 10 * a);
      wkSum[a] = sum;
    });
    smooth(localL, sumPsi, 10);
    smooth(localK, wkSum, 1);
    const P = new Float64Array(10 * nb);
    const total = new Float64Array(nb);
    for (let a = 0; a < nb; a++) {
      const o = 10 * a;
      const l = sumPsi[o + 9];
      outer([sumPsi[o + 3] / l, sumPsi[o + 6] / l, sumPsi[o + 8] / l], 0, 1, P, o);
      total[a] = (1 - alpha) * sumPsi[o + 9] + alpha * wkSum[a]; // Σ_j Ω_ij[3,3]
    }
    // Ω = (1 − α) Ψ + α w̃ P (Eq. 11).
    const omegaOf = (psi: ArrayLike<number>, po: number, wk: number, a: number, o: Float64Array, oo: number) => {
      for (let e = 0; e < 10; e++) o[oo + e] = (1 - alpha) * psi[po + e] + alpha * wk * P[10 * a + e];
    };

    for (let t = t0; t < t1; t++) {
      const eRows: number[] = [];
      const eJoints: number[] = [];
      const eValues: number[] = [];
      const result: DdmTaskEntries = {
        task: taskIds[t],
        rows: new Int32Array(0),
        joints: new Int32Array(0),
        values: new Float64Array(0),
      };
      const j0 = tasks[taskIds[t]].first;
      const bones = Math.min(BONES_PER_BLOCK, J - j0);
      // The block's weights, and w̃ = (I + κL̃)^-p w for them.
      const Wb = new Float64Array(nb * bones);
      for (let a = 0; a < nb; a++) for (let b = 0; b < bones; b++) Wb[a * bones + b] = W[a * J + j0 + b];
      const Wk = smooth(localK, Wb.slice(), bones);
      if (variant === 'compact') {
        // Π_i = Σ_j Ω_ij normalised (stored once per piece, with its first block); ω_ij = Ω_ij[3,3]
        // with Ψ_ij[3,3] = (I + λL̃)^-p w.
        if (j0 === 0) {
          const moments = new Float64Array(10 * nb);
          rows.forEach((r, a) => {
            omegaOf(sumPsi, 10 * a, wkSum[a], a, moments, 10 * a);
            for (let e = 0; e < 10; e++) moments[10 * a + e] /= total[a];
            shiftToVertex(moments, 10 * a, x, r);
          });
          result.moments = moments;
        }
        const W33 = smooth(localL, Wb, bones);
        rows.forEach((r, a) => {
          for (let b = 0; b < bones; b++) {
            const w = (1 - alpha) * W33[a * bones + b] + alpha * Wk[a * bones + b];
            if (w === 0 || w < threshold * total[a]) continue;
            eRows.push(r);
            eJoints.push(jointOf[j0 + b]);
            eValues.push(w);
          }
        });
      } else {
        const cols = 10 * bones;
        const psi = new Float64Array(nb * cols);
        rows.forEach((r, a) => {
          for (let b = 0; b < bones; b++) outer(x, r, Wb[a * bones + b], psi, a * cols + 10 * b);
        });
        smooth(localL, psi, cols);
        const omega = new Float64Array(10);
        rows.forEach((r, a) => {
          for (let b = 0; b < bones; b++) {
            omegaOf(psi, a * cols + 10 * b, Wk[a * bones + b], a, omega, 0);
            if (omega[9] === 0 || omega[9] < threshold * total[a]) continue;
            shiftToVertex(omega, 0, x, r);
            eRows.push(r);
            eJoints.push(jointOf[j0 + b]);
            for (let e = 0; e < 10; e++) eValues.push(omega[e]);
          }
        });
      }
      result.rows = Int32Array.from(eRows);
      result.joints = Int32Array.from(eJoints);
      result.values = Float64Array.from(eValues);
      out.push(result);
    }
    t0 = t1;
  }
  return out;
}

/**
 * The model from every task's entries ({@link solveDdmTasks}, in any order): the entries kept in
 * task order (so the result does not depend on who solved what), the rest covariances lifted, the
 * fallbacks, the per-vertex layout.
 */
export function finishDirectDeltaMush(setup: DdmSetup, mesh: DdmInput, solved: readonly DdmTaskEntries[]): DdmModel {
  const { parameters, variant, n, m, repOf, firstOf, pieces } = setup;
  const K = mesh.influences;
  const kept: Entry[][] = Array.from({ length: m }, () => []);
  const moments = variant === 'compact' ? new Float64Array(10 * m) : undefined;
  const width = variant === 'full' ? 10 : 1;
  for (const s of [...solved].sort((a, b) => a.task - b.task)) {
    s.rows.forEach((r, q) =>
      kept[r].push({ joint: s.joints[q], values: Array.from(s.values.subarray(width * q, width * q + width)) }),
    );
    if (moments && s.moments)
      pieces[setup.tasks[s.task].piece].forEach((r, a) =>
        moments.set(s.moments!.subarray(10 * a, 10 * a + 10), 10 * r),
      );
  }
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
  const values = new Float64Array(width * e);
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
): Smoother {
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
  return createSmoother(factorLdlt({ n: rows.length, offsets: o, columns: c, values: v }, xyz), scale);
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
