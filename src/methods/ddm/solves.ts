/**
 * The solves of the Direct Delta Mush precomputation (Binh Huy Le and J. P. Lewis, "Direct Delta
 * Mush Skinning and Variants", ACM TOG 38(4), SIGGRAPH 2019, Eq. 11; the equations are in
 * `precompute.ts`), in two phases that worker threads can share (`parallel.ts`):
 *
 * 1. {@link factorDdmPiece}: one smoothing system of one connected piece factorised — κ's
 *    (I + κL̃) or λ's (I + λL̃) — with the piece's shared solve on it: Σ_j w̃_ij = (I + κL̃)^-p s or
 *    Σ_j Ψ_ij = (I + λL̃)^-p (s ∘ uu), s the weight sums (the smoothing is linear);
 * 2. {@link solveDdmTasks}: each task's block of joints smoothed with its piece's two factors, and
 *    its entries Ω' (full) or ω (compact).
 *
 * Every column of a block is solved on its own (the same operations whatever the block), so the
 * result does not depend on how the joints are blocked or which thread solved what.
 *
 * @module
 */
import { factorLdlt, fillReducingOrdering, type LdltFactor } from './ldlt.js';
import type { SymmetricCsr } from './laplacian.js';
import { createSmoother, SmootherKernels, type Smoother } from './smoother.js';
import type { DdmInput, DdmOptions } from './precompute.js';
import type { DdmSetup, DdmTaskEntries } from './stages.js';

/** What the solves read of the mesh: its influences (the rest is in the set-up). */
export type DdmWeights = Pick<DdmInput, 'influences' | 'joints' | 'weights'>;

/**
 * The solves' options: the abort signal, and the kernel instances the smoothers take and give
 * back (one thread's, reused from piece to piece; default: a new instance per smoother).
 */
export type DdmSolveOptions = Pick<DdmOptions, 'signal'> & { kernels?: SmootherKernels };

/** Which smoothing system: κ's (for w̃) or λ's (for Ψ). */
export type DdmSystem = 'kappa' | 'lambda';

/** Phase 1's result for one piece and system (see {@link factorDdmPiece}). */
export interface DdmPieceFactor {
  piece: number;
  system: DdmSystem;
  factor: LdltFactor;
  /** The shared solve: κ: Σ_j w̃_ij (one per row of the piece); λ: Σ_j Ψ_ij (10 per row). */
  sums: Float64Array;
  /** The smoothing steps with `factor`, in the thread that factorised it (not sent to others). */
  smoother?: Smoother;
}

/**
 * The weights of a piece's rows on its joints, row-major rows × joints; or, with `sums`, only each
 * row's sum over its joints (summed as the full matrix's row would be), without the matrix.
 */
function pieceWeights(setup: DdmSetup, mesh: DdmWeights, c: number, sums = false): Float64Array {
  const rows = setup.pieces[c];
  const jointOf = setup.jointsOf[c];
  const J = jointOf.length;
  const K = mesh.influences;
  const col = new Map<number, number>();
  jointOf.forEach((j, q) => col.set(j, q));
  const W = new Float64Array(sums ? J : rows.length * J);
  const out = sums ? new Float64Array(rows.length) : W;
  rows.forEach((r, a) => {
    const i = setup.firstOf[r];
    const o = sums ? 0 : a * J;
    for (let k = K * i; k < K * i + K; k++)
      if (mesh.weights[k] !== 0) W[o + col.get(mesh.joints[k])!] += mesh.weights[k];
    if (!sums) return;
    let sum = 0;
    for (let j = 0; j < J; j++) sum += W[j];
    out[a] = sum;
    W.fill(0);
  });
  return out;
}

/** New smoothing steps with a piece's factor (rows in the piece's order), on a kernel from `kernels`. */
function pieceSmoother(setup: DdmSetup, f: Omit<DdmPieceFactor, 'sums'>, kernels?: SmootherKernels): Smoother {
  const sys = f.system === 'kappa' ? setup.sysK : setup.sysL;
  return createSmoother(
    f.factor,
    Float64Array.from(setup.pieces[f.piece], (r) => sys.scale[r]),
    true,
    kernels,
  );
}

/** p smoothing steps of X (rows × cols), with abort checks and progress after each. */
function smoothWith(
  setup: DdmSetup,
  smoother: Smoother,
  X: Float64Array,
  cols: number,
  options: DdmSolveOptions,
  onWork?: (work: number) => void,
): Float64Array {
  options.signal?.throwIfAborted();
  const rows = X.length / cols;
  return smoother.smooth(X, cols, setup.parameters.iterations, () => {
    options.signal?.throwIfAborted();
    onWork?.(rows * cols);
  });
}

/** Piece `c`'s rows of a smoothing system (no entry leaves the piece) and their welded positions. */
function pieceSystem(setup: DdmSetup, c: number, system: DdmSystem): { matrix: SymmetricCsr; xyz: Float64Array } {
  const rows = setup.pieces[c];
  const nb = rows.length;
  const { offsets, columns, values } = (system === 'kappa' ? setup.sysK : setup.sysL).matrix;
  const local = new Map<number, number>();
  rows.forEach((r, a) => local.set(r, a));
  const o = new Int32Array(nb + 1);
  for (let a = 0; a < nb; a++) o[a + 1] = o[a] + offsets[rows[a] + 1] - offsets[rows[a]];
  const col = new Int32Array(o[nb]);
  const val = new Float64Array(o[nb]);
  const xyz = new Float64Array(3 * nb);
  rows.forEach((r, a) => {
    for (let q = offsets[r], t = o[a]; q < offsets[r + 1]; q++, t++) {
      col[t] = local.get(columns[q])!;
      val[t] = values[q];
    }
    xyz.set(setup.x.subarray(3 * r, 3 * r + 3), 3 * a);
  });
  return { matrix: { n: nb, offsets: o, columns: col, values: val }, xyz };
}

/**
 * The fill-reducing ordering of piece `c`'s systems (both have the Laplacian's pattern, so one
 * ordering serves both: pass it to {@link factorDdmPiece}).
 */
export function pieceOrdering(setup: DdmSetup, c: number): Int32Array {
  const { matrix, xyz } = pieceSystem(setup, c, 'kappa');
  return fillReducingOrdering(matrix, xyz);
}

/**
 * Phase 1 for piece `c` and `system`: the system restricted to the piece's rows (no entry leaves
 * the piece), factorised, and the piece's shared solve on it.
 * @param onWork called with the solves done since the last call
 * @param shared the factor's arrays and the shared solve in SharedArrayBuffers (for other worker
 *   threads to read)
 * @param ordering the fill-reducing ordering: {@link pieceOrdering}'s, or the `perm` of the
 *   piece's other system's factor (both systems have the Laplacian's pattern, so it is the
 *   ordering computed here; see {@link factorLdlt}); default: computed
 * @throws the signal's reason when aborted; RangeError when the system is singular
 */
export function factorDdmPiece(
  setup: DdmSetup,
  mesh: DdmWeights,
  c: number,
  system: DdmSystem,
  options: DdmSolveOptions = {},
  onWork?: (work: number) => void,
  shared = false,
  ordering?: Int32Array,
): DdmPieceFactor {
  const rows = setup.pieces[c];
  const nb = rows.length;
  const { matrix, xyz } = pieceSystem(setup, c, system);
  options.signal?.throwIfAborted();
  const factor = factorLdlt(matrix, xyz, shared, ordering);
  const weightSums = pieceWeights(setup, mesh, c, true);
  const count = system === 'kappa' ? nb : 10 * nb;
  const sums = shared ? new Float64Array(new SharedArrayBuffer(8 * count)) : new Float64Array(count);
  rows.forEach((r, a) => {
    if (system === 'kappa') sums[a] = weightSums[a];
    else outer(setup.x, r, weightSums[a], sums, 10 * a);
  });
  const smoother = pieceSmoother(setup, { piece: c, system, factor }, options.kernels);
  smoothWith(setup, smoother, sums, system === 'kappa' ? 1 : 10, options, onWork);
  return { piece: c, system, factor, sums, smoother };
}

/**
 * Both systems of piece `c` in this thread ({@link factorDdmPiece}), κ's then λ's with κ's
 * ordering (one fill-reducing ordering per piece: its cost was about a third of the Soldier's
 * solves).
 * @throws as {@link factorDdmPiece}
 */
export function factorDdmPieceSystems(
  setup: DdmSetup,
  mesh: DdmWeights,
  c: number,
  options: DdmSolveOptions = {},
  onWork?: (work: number) => void,
): [kappa: DdmPieceFactor, lambda: DdmPieceFactor] {
  const fK = factorDdmPiece(setup, mesh, c, 'kappa', options, onWork);
  return [fK, factorDdmPiece(setup, mesh, c, 'lambda', options, onWork, false, fK.factor.perm)];
}

/**
 * Phase 2: solves tasks `taskIds` (ascending) of `setup` with their pieces' factors and shared
 * solves (phase 1).
 * @param factorOf the phase-1 result of a piece and system
 * @param onWork called with the solves done since the last call
 * @throws the signal's reason when aborted
 */
export function solveDdmTasks(
  setup: DdmSetup,
  mesh: DdmWeights,
  options: DdmSolveOptions,
  taskIds: readonly number[],
  factorOf: (piece: number, system: DdmSystem) => DdmPieceFactor,
  onWork?: (work: number) => void,
): DdmTaskEntries[] {
  const { parameters, variant, threshold, x, pieces, jointsOf, tasks } = setup;
  const { alpha } = parameters;
  const out: DdmTaskEntries[] = [];
  // The entries tasks find, in room kept from task to task (at most one per row and joint).
  const width = variant === 'compact' ? 1 : 10;
  let room = entryRoom(0, width);
  for (let t0 = 0; t0 < taskIds.length;) {
    const c = tasks[taskIds[t0]].piece;
    let t1 = t0;
    while (t1 < taskIds.length && tasks[taskIds[t1]].piece === c) t1++;
    const rows = pieces[c];
    const jointOf = jointsOf[c];
    const J = jointOf.length;
    const nb = rows.length;
    const W = pieceWeights(setup, mesh, c);
    const fK = factorOf(c, 'kappa');
    const fL = factorOf(c, 'lambda');
    // The factors' own smoothers, or new ones (given back after the piece's tasks).
    const localK = fK.smoother ?? pieceSmoother(setup, fK, options.kernels);
    const localL = fL.smoother ?? pieceSmoother(setup, fL, options.kernels);
    const wkSum = fK.sums;
    const sumPsi = fL.sums;
    // p_i, P_i and the totals Σ_j Ω_ij[3,3] every task's shares are taken of.
    const P = new Float64Array(10 * nb);
    const total = new Float64Array(nb);
    for (let a = 0; a < nb; a++) {
      const o = 10 * a;
      const l = sumPsi[o + 9];
      outer([sumPsi[o + 3] / l, sumPsi[o + 6] / l, sumPsi[o + 8] / l], 0, 1, P, o);
      total[a] = (1 - alpha) * sumPsi[o + 9] + alpha * wkSum[a];
    }
    // Ω = (1 − α) Ψ + α w̃ P (Eq. 11).
    const omegaOf = (psi: ArrayLike<number>, po: number, wk: number, a: number, o: Float64Array, oo: number) => {
      for (let e = 0; e < 10; e++) o[oo + e] = (1 - alpha) * psi[po + e] + alpha * wk * P[10 * a + e];
    };

    for (let t = t0; t < t1; t++) {
      const { first: j0, bones } = tasks[taskIds[t]];
      if (room.rows.length < nb * bones) room = entryRoom(nb * bones, width);
      let count = 0;
      const result: DdmTaskEntries = {
        task: taskIds[t],
        rows: new Int32Array(0),
        joints: new Int32Array(0),
        values: new Float64Array(0),
      };
      // The block's weights, and w̃ = (I + κL̃)^-p w for them.
      const Wb = new Float64Array(nb * bones);
      for (let a = 0; a < nb; a++) for (let b = 0; b < bones; b++) Wb[a * bones + b] = W[a * J + j0 + b];
      const Wk = smoothWith(setup, localK, Wb.slice(), bones, options, onWork);
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
        const W33 = smoothWith(setup, localL, Wb, bones, options, onWork);
        rows.forEach((r, a) => {
          for (let b = 0; b < bones; b++) {
            const w = (1 - alpha) * W33[a * bones + b] + alpha * Wk[a * bones + b];
            if (w === 0 || w < threshold * total[a]) continue;
            room.rows[count] = r;
            room.joints[count] = jointOf[j0 + b];
            room.values[count++] = w;
          }
        });
      } else {
        const cols = 10 * bones;
        const psi = new Float64Array(nb * cols);
        rows.forEach((r, a) => {
          for (let b = 0; b < bones; b++) outer(x, r, Wb[a * bones + b], psi, a * cols + 10 * b);
        });
        smoothWith(setup, localL, psi, cols, options, onWork);
        const omega = new Float64Array(10);
        rows.forEach((r, a) => {
          for (let b = 0; b < bones; b++) {
            omegaOf(psi, a * cols + 10 * b, Wk[a * bones + b], a, omega, 0);
            if (omega[9] === 0 || omega[9] < threshold * total[a]) continue;
            shiftToVertex(omega, 0, x, r);
            room.rows[count] = r;
            room.joints[count] = jointOf[j0 + b];
            room.values.set(omega, 10 * count++);
          }
        });
      }
      result.rows = room.rows.slice(0, count);
      result.joints = room.joints.slice(0, count);
      result.values = room.values.slice(0, width * count);
      out.push(result);
    }
    if (localK !== fK.smoother) localK.release();
    if (localL !== fL.smoother) localL.release();
    t0 = t1;
  }
  return out;
}

/**
 * Both phases in this thread, piece by piece (each piece's factors dropped once its tasks are
 * solved).
 * @throws as {@link factorDdmPiece} and {@link solveDdmTasks}
 */
export function solveDdmInThread(
  setup: DdmSetup,
  mesh: DdmWeights,
  options: Pick<DdmOptions, 'signal'>,
  onWork?: (work: number) => void,
): DdmTaskEntries[] {
  const out: DdmTaskEntries[] = [];
  const { tasks } = setup;
  const solve = { signal: options.signal, kernels: new SmootherKernels() };
  for (let t0 = 0; t0 < tasks.length;) {
    const c = tasks[t0].piece;
    let t1 = t0;
    while (t1 < tasks.length && tasks[t1].piece === c) t1++;
    const [fK, fL] = factorDdmPieceSystems(setup, mesh, c, solve, onWork);
    const ids = Array.from({ length: t1 - t0 }, (_, k) => t0 + k);
    out.push(...solveDdmTasks(setup, mesh, solve, ids, (_, system) => (system === 'kappa' ? fK : fL), onWork));
    fK.smoother?.release();
    fL.smoother?.release();
    t0 = t1;
  }
  return out;
}

/** Room for `count` entries of `width` values each. */
const entryRoom = (count: number, width: number) => ({
  rows: new Int32Array(count),
  joints: new Int32Array(count),
  values: new Float64Array(width * count),
});

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
