/**
 * The stages of the Direct Delta Mush precomputation (Le & Lewis 2019, Eq. 11; the equations are
 * in `precompute.ts`) around its solves (`solves.ts`): the set-up (the mesh welded by position,
 * the smoothing systems, the connected pieces, the solves split into independent tasks — a piece
 * and a block of its joints — that worker threads can share, `parallel.ts`), and the finish (the
 * entries kept in task order, the rest covariances lifted, the fallbacks, the per-vertex layout).
 * The result does not depend on which thread solved which task.
 *
 * @module
 */
import { CorskinError } from '../../core/errors.js';
import { boundingBoxDiagonal } from '../../core/mesh.js';
import { weldedVertices } from '../../metrics/weld.js';
import { addToBlock, covarianceFloor } from './covariance.js';
import { cotangentLaplacian, smoothingSystem, type SymmetricCsr } from './laplacian.js';
import type { DdmParameters } from './parameters.js';
import type { DdmInput, DdmModel, DdmVariant } from './precompute.js';
import { meshResolution, smoothingScale } from './resolution.js';

/**
 * One unit of the precomputation's solves: connected piece `piece`, and the block of `bones` of
 * its joints from its `first`. Tasks are independent given their piece's factorisations and
 * shared solves (`factorDdmPiece`); `work` estimates their solves.
 */
export interface DdmTask {
  /** Index of the connected piece (in `DdmSetup.pieces`). */
  piece: number;
  /** First of the block's joints, an index into the piece's joints (`DdmSetup.jointsOf[piece]`). */
  first: number;
  /** Number of joints in the block. */
  bones: number;
  /** Estimated cost of the task's solves (relative units, for load balancing). */
  work: number;
}

/** What every stage of the precomputation shares (see {@link setupDirectDeltaMush}). */
export interface DdmSetup {
  /** The parameters solved with: λ and κ as scaled to the mesh (`resolution` then `fixed`). */
  parameters: Required<DdmParameters>;
  /** With the `adaptive` resolution: the mesh's ρ (`meshResolution`), when it has one. */
  edgesPerRegion?: number;
  variant: DdmVariant;
  threshold: number;
  /** Vertices n, welded vertices m, the welded vertex of each vertex and the first vertex of each welded one. */
  n: number;
  m: number;
  repOf: Uint32Array;
  firstOf: Int32Array;
  /** Welded positions about the box centre, 3·m. */
  x: Float64Array;
  sysK: ReturnType<typeof smoothingSystem>;
  sysL: ReturnType<typeof smoothingSystem>;
  /** Connected pieces (their welded rows) and the joints weighing on each. */
  pieces: Int32Array[];
  jointsOf: Int32Array[];
  tasks: DdmTask[];
  /** Per piece: whether its tasks are meant to be split between threads (see `threads` below). */
  split: boolean[];
  totalWork: number;
}

/**
 * The precomputation's set-up: the mesh welded by position, the smoothing systems, the connected
 * pieces and the tasks of `solves.ts`.
 * @param parameters resolved parameters, variant and threshold checked (`checkDdmOptions`)
 * @param threads the threads that will share the tasks: a piece's joints are blocked so that its
 *   tasks come in a multiple of them (the blocking does not change the result)
 * @throws CorskinError for a mesh without triangles or outside 1e-12 … 1e12 units
 */
export function setupDirectDeltaMush(
  mesh: DdmInput,
  parameters: Required<DdmParameters>,
  { variant, threshold }: { variant: DdmVariant; threshold: number },
  threads = 1,
): DdmSetup {
  const { iterations: p, smoothing } = parameters;
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
  const { vertexOf: repOf, first } = weldedVertices(positions);
  const firstOf = Int32Array.from(first);
  const m = firstOf.length;
  const L = cotangentLaplacian(positions, mesh.triangles, repOf, m, smoothing === 'normalized');
  // λ and κ scaled to the mesh's resolution (`resolution.ts`), both by the same factor.
  const edgesPerRegion =
    parameters.resolution === 'adaptive' ? meshResolution(mesh, { vertexOf: repOf, first }) : undefined;
  const scale = smoothingScale(edgesPerRegion);
  const solved = { ...parameters, lambda: parameters.lambda * scale, kappa: parameters.kappa * scale, resolution: 'fixed' as const }; // prettier-ignore
  const sysK = smoothingSystem(L, solved.kappa, smoothing);
  const sysL = smoothingSystem(L, solved.lambda, smoothing);
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
  // Tasks: a piece's joints in blocks of at most BONES_PER_BLOCK — for a piece of at least half
  // a thread's share of the rows, as many as a multiple of the threads — (full: Ψ's 10 columns
  // and w̃'s one per joint; compact: Ψ[3,3]'s and w̃'s one each per joint); the shared solves of
  // each piece (Σ_j Ψ_ij, 10 columns, and Σ_j w̃_ij, one) counted once.
  const perJoint = variant === 'full' ? 11 : 2;
  const tasks: DdmTask[] = [];
  const split = pieces.map((rows) => threads > 1 && 2 * threads * rows.length >= m);
  pieces.forEach((rows, piece) => {
    const J = jointsOf[piece].length;
    const ways = split[piece] ? threads : 1;
    const blocks = Math.min(J, ways * Math.ceil(J / (BONES_PER_BLOCK * ways)));
    for (let b = 0; b < blocks; b++) {
      const first = Math.floor((b * J) / blocks);
      const bones = Math.floor(((b + 1) * J) / blocks) - first;
      tasks.push({ piece, first, bones, work: p * rows.length * perJoint * bones });
    }
  });
  const shared = pieces.reduce((t, rows, piece) => t + (jointsOf[piece].length ? sharedWork(p, rows.length) : 0), 0);
  const totalWork = shared + tasks.reduce((t, task) => t + task.work, 0);
  return {
    parameters: solved,
    ...(edgesPerRegion !== undefined && { edgesPerRegion }),
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
    split,
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
 * The model from every task's entries (`solveDdmTasks` in `solves.ts`, in any order): the entries kept in
 * task order (so the result does not depend on who solved what), the rest covariances lifted, the
 * fallbacks, the per-vertex layout.
 */
export function finishDirectDeltaMush(setup: DdmSetup, mesh: DdmInput, solved: readonly DdmTaskEntries[]): DdmModel {
  const { parameters, variant, n, m, repOf, firstOf, pieces, edgesPerRegion } = setup;
  const K = mesh.influences;
  const moments = variant === 'compact' ? new Float64Array(10 * m) : undefined;
  const width = variant === 'full' ? 10 : 1;
  // The entries of welded row r, in task order: [start[r], start[r + 1]) of jointAt, valueAt (width each).
  const ordered = [...solved].sort((a, b) => a.task - b.task);
  if (ordered.length !== setup.tasks.length || ordered.some((s, k) => s.task !== k))
    throw new Error(
      `internal error: the Direct Delta Mush solves returned ${ordered.length} tasks for ${setup.tasks.length} (each must come once)`,
    );
  const start = new Uint32Array(m + 1);
  for (const s of ordered) for (const r of s.rows) start[r + 1]++;
  for (let r = 0; r < m; r++) start[r + 1] += start[r];
  const fill = start.slice(0, m);
  const jointAt = new Uint32Array(start[m]);
  const valueAt = new Float64Array(width * start[m]);
  for (const s of ordered) {
    const { rows, joints, values } = s;
    for (let q = 0; q < rows.length; q++) {
      const k = fill[rows[q]]++;
      jointAt[k] = joints[q];
      for (let e = 0; e < width; e++) valueAt[width * k + e] = values[width * q + e];
    }
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
  const fallback = new Map<number, { joints: number[]; values: number[] }>();
  for (let r = 0; r < m; r++) {
    const k0 = start[r];
    const k1 = start[r + 1];
    // Row r's entries are valueAt[width·k0, width·k1), its moments (compact) moments[10r, 10r + 10).
    const single = k1 - k0 === 1 && (!moments || storable(moments, 10 * r, 10 * r + 10));
    if (single && storable(valueAt, width * k0, width * k1)) continue; // moved rigidly by its one joint (its matrix is not used, but must be stored)
    let c = 0;
    let cAbs = 0;
    for (let k = k0; k < k1; k++) {
      const w = valueAt[width * k + (moments ? 0 : 9)];
      c += w;
      cAbs += Math.abs(w);
    }
    let healthy = k1 - k0 > 1 && c > TOTAL_CANCELLATION * cAbs;
    if (healthy && moments) {
      if (covarianceFloor(moments, D, 10 * r)) addToBlock(moments, 10 * r, D, 1);
      healthy = storable(moments, 10 * r, 10 * r + 10) && storable(valueAt, width * k0, width * k1);
    } else if (healthy) {
      sum.fill(0);
      for (let k = 10 * k0; k < 10 * k1; k += 10) for (let e = 0; e < 10; e++) sum[e] += valueAt[k + e];
      if (covarianceFloor(sum, D))
        for (let k = 10 * k0; k < 10 * k1; k += 10) addToBlock(valueAt, k, D, valueAt[k + 9]);
      healthy = storable(valueAt, 10 * k0, 10 * k1);
    }
    if (healthy) continue;
    const i = firstOf[r];
    const own = { joints: [] as number[], values: [] as number[] };
    for (let k = K * i; k < K * i + K; k++) {
      const w = mesh.weights[k];
      if (w > 0) {
        own.joints.push(mesh.joints[k]);
        own.values.push(...(moments ? [w] : [w, 0, 0, 0, w, 0, 0, w, 0, w]));
      }
    }
    fallback.set(r, own);
    if (moments) moments.set(IDENTITY_10, 10 * r);
  }

  // Per input vertex (welded duplicates share their data), in vertex order.
  const offsets = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) {
    const r = repOf[i];
    offsets[i + 1] = offsets[i] + (fallback.get(r)?.joints.length ?? start[r + 1] - start[r]);
  }
  const e = offsets[n];
  const joints = new Uint32Array(e);
  const values = new Float64Array(width * e);
  for (let i = 0; i < n; i++) {
    const r = repOf[i];
    const own = fallback.get(r);
    if (own) {
      joints.set(own.joints, offsets[i]);
      values.set(own.values, width * offsets[i]);
      continue;
    }
    // Plain loops: a view per vertex cost more than the copy.
    for (let k = start[r], o = offsets[i]; k < start[r + 1]; k++, o++) joints[o] = jointAt[k];
    for (let k = width * start[r], o = width * offsets[i]; k < width * start[r + 1]; k++, o++) values[o] = valueAt[k];
  }
  const common = { variant, offsets, joints, parameters, fallbacks: fallback.size, ...(edgesPerRegion !== undefined && { edgesPerRegion }) }; // prettier-ignore
  if (!moments) return { ...common, matrices: values };
  const matrices = new Float64Array(10 * n);
  for (let i = 0; i < n; i++) for (let e = 0; e < 10; e++) matrices[10 * i + e] = moments[10 * repOf[i] + e];
  return { ...common, matrices, weights: values };
}

/** The connected pieces of the Laplacian's graph, each its rows in ascending order. */
function connectedPieces(L: SymmetricCsr): Int32Array[] {
  const label = new Int32Array(L.n).fill(-1);
  const pieces: Int32Array[] = [];
  const stack = new Int32Array(L.n);
  const rows = new Int32Array(L.n);
  for (let s = 0; s < L.n; s++) {
    if (label[s] >= 0) continue;
    let count = 0;
    let top = 0;
    label[s] = pieces.length;
    stack[top++] = s;
    while (top) {
      const r = stack[--top];
      rows[count++] = r;
      for (let q = L.offsets[r]; q < L.offsets[r + 1]; q++) {
        const k = L.columns[q];
        if (label[k] < 0) {
          label[k] = pieces.length;
          stack[top++] = k;
        }
      }
    }
    pieces.push(rows.slice(0, count).sort());
  }
  return pieces;
}

/** A vertex whose total c = Σ_j Ω_ij[3,3] is below this fraction of Σ_j |Ω_ij[3,3]| falls back (see above). */
const TOTAL_CANCELLATION = 1e-2;
/** The symmetric 4×4 identity as 10 numbers. */
const IDENTITY_10 = [1, 0, 0, 0, 1, 0, 0, 1, 0, 1];

/** Whether values[from, to) are finite and stay finite (with room for the run time's sums) in float32. */
function storable(values: ArrayLike<number>, from: number, to: number): boolean {
  for (let e = from; e < to; e++) if (!(Math.abs(values[e]) < 1e30)) return false;
  return true;
}

/**
 * The work of a piece's shared solves (Σ_j Ψ_ij, 10 columns, and Σ_j w̃_ij, one) in values
 * smoothed: 11 columns of `rows` values, p steps. (Its factorisations come with them.)
 */
export const sharedWork = (p: number, rows: number): number => p * rows * 11;

/** Joints whose Ψ columns are smoothed together at most (10 columns each). */
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
