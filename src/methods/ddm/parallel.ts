/**
 * The Direct Delta Mush precomputation (Le & Lewis 2019) on worker threads (workerpool), in the
 * two phases of `solves.ts`: the factorisations of the pieces split between threads (two per
 * piece, one per smoothing system), then the tasks (a connected piece and a block of its
 * joints), in units the threads take in turn as they finish the last; the factors and the set-up
 * go to them in shared memory. The entries are kept in task order, so the result is bit-identical to
 * {@link computeDirectDeltaMush} whatever the number of threads. Node only.
 *
 * @module
 */
import { availableParallelism } from 'node:os';
import { checkThreads, startWorkerPool, type WorkerThreadPool } from '../../core/node-worker.js';
import { resolveDdmParameters } from './parameters.js';
import { checkDdmOptions, computeDirectDeltaMush } from './precompute.js';
import type { DdmInput, DdmModel, DdmOptions } from './precompute.js';
import { sharedCopy, toShared } from '../../core/shared-memory.js';
import { solveDdmInThread, type DdmPieceFactor } from './solves.js';
import {
  finishDirectDeltaMush,
  setupDirectDeltaMush,
  sharedWork,
  type DdmSetup,
  type DdmTask,
  type DdmTaskEntries,
} from './stages.js';

/** Options of {@link computeDirectDeltaMushParallel}. */
export interface ParallelDdmOptions extends DdmOptions {
  /** Worker threads; 1 runs in this thread. Default: every core (or the pool's size). */
  threads?: number;
  /**
   * A pool from {@link createDdmWorkerPool} to reuse across calls (its workers stay started and
   * their code compiled: a fresh worker runs its first second or so slower); when given,
   * `threads` defaults to its size and the caller terminates it (an abort during the call
   * terminates it too).
   */
  pool?: DdmWorkerPool;
}

/** A pool of Direct Delta Mush worker threads (workerpool), owned by whoever created it. */
export type DdmWorkerPool = WorkerThreadPool;

/**
 * Starts `threads` Direct Delta Mush worker threads (default: every core), for several
 * {@link computeDirectDeltaMushParallel} calls in a row. Each thread keeps its WebAssembly kernel
 * memory from call to call (about as large as the largest piece it solved; such memory never
 * shrinks): terminate the pool to give it back.
 * @throws RangeError as `checkThreads` (threads from 1 to 256)
 */
export function createDdmWorkerPool(threads = availableParallelism()): DdmWorkerPool {
  return startWorkerPool('methods/ddm/worker.js', threads);
}

/**
 * Below this many weighted influences one thread is as fast: on the 2-core reference machine
 * `corskin precompute --method ddm` on a 7,400-vertex character (the Soldier: 0.12 s of
 * precomputation on one thread) takes 0.68 s with one thread and 0.78 s with two fresh workers
 * (starting them, their code running cold), while CesiumMan subdivided twice (41,154 vertices,
 * 4.3 s on one thread) takes 0.63–0.64× on two and subdivided three times (157,070 vertices,
 * 24.3 s) 0.58–0.62× (see docs/ddm.md).
 */
const AUTO_THREADS_FROM = 60_000;

/** The default thread count for `mesh`: every core from 60,000 weighted influences up, else 1. */
export function autoDdmThreads(mesh: DdmInput): number {
  let entries = 0;
  for (let k = 0; k < mesh.weights.length; k++) if (mesh.weights[k] !== 0) entries++;
  return entries >= AUTO_THREADS_FROM ? availableParallelism() : 1;
}

/** One call on a worker thread: tasks to solve, of one split piece or of whole pieces. */
export interface DdmWorkUnit {
  /** Indices into the set-up's tasks, ascending. */
  tasks: number[];
  /** The estimated work: the tasks' `work`, plus each whole piece's factorisations and shared solves (values smoothed). */
  work: number;
}

/**
 * The solves of `setup` in units for worker threads to take in turn: every piece not split
 * between threads whole (its factorisations and shared solves with it, done by the thread that
 * solves its tasks), grouped largest first into units of about `1 / (16 · threads)` of their work
 * (a larger piece alone); the tasks of a split piece, which wait for its factors, in
 * min(threads, its tasks) units of consecutive tasks. Whole pieces come first, largest first.
 * @param setup from `setupDirectDeltaMush` for `threads`: its tasks, which pieces are split, the
 *   pieces' rows and p
 * @param threads the threads that will share the units
 * @returns the whole pieces' units, and each split piece's units by piece
 */
export function ddmWorkUnits(
  setup: {
    tasks: readonly DdmTask[];
    split: readonly boolean[];
    pieces: readonly ArrayLike<number>[];
    parameters: { iterations: number };
  },
  threads: number,
): {
  /** Units of whole pieces, largest first. */
  whole: DdmWorkUnit[];
  /** Per split piece (by piece index), its tasks in consecutive units. */
  split: Map<number, DdmWorkUnit[]>;
} {
  const pieces = new Map<number, DdmWorkUnit>();
  setup.tasks.forEach((t, k) => {
    let unit = pieces.get(t.piece);
    if (!unit) {
      const own = setup.split[t.piece] ? 0 : sharedWork(setup.parameters.iterations, setup.pieces[t.piece].length);
      pieces.set(t.piece, (unit = { tasks: [], work: own }));
    }
    unit.tasks.push(k);
    unit.work += t.work;
  });
  const split = new Map<number, DdmWorkUnit[]>();
  const whole: DdmWorkUnit[] = [];
  for (const [c, unit] of pieces) {
    if (!setup.split[c]) {
      whole.push(unit);
      continue;
    }
    const count = Math.min(threads, unit.tasks.length);
    const shares = Array.from({ length: count }, (_, q) =>
      unit.tasks.slice(Math.floor((q * unit.tasks.length) / count), Math.floor(((q + 1) * unit.tasks.length) / count)),
    );
    split.set(
      c,
      shares.map((tasks) => ({ tasks, work: tasks.reduce((w, t) => w + setup.tasks[t].work, 0) })),
    );
  }
  whole.sort((a, b) => b.work - a.work || a.tasks[0] - b.tasks[0]);
  const grain = whole.reduce((w, u) => w + u.work, 0) / (16 * threads);
  const grouped: DdmWorkUnit[] = [];
  for (const unit of whole) {
    const last = grouped.at(-1);
    if (last && last.work < grain) {
      last.tasks.push(...unit.tasks);
      last.work += unit.work;
    } else grouped.push({ tasks: [...unit.tasks], work: unit.work });
  }
  for (const unit of grouped) unit.tasks.sort((a, b) => a - b);
  return { whole: grouped, split };
}

/**
 * {@link computeDirectDeltaMush} on `threads` worker threads (bit-identical result). The set-up
 * goes to the threads in SharedArrayBuffers; the threads take units of work in turn
 * ({@link ddmWorkUnits}): first, for every piece large enough to be split between threads, its
 * fill-reducing ordering (`pieceOrdering`, once for both systems) while the other threads take
 * whole pieces, then its two factorisations and shared solves (`factorDdmPiece`, in
 * SharedArrayBuffers; λ's, ten columns, first, κ's as soon as a thread is free); the whole pieces largest first, and a split
 * piece's tasks as soon as both its factors are done, ahead of the whole pieces left — so a
 * thread waits only while a split piece is being ordered or factorised and no whole piece is left.
 * @throws as {@link computeDirectDeltaMush}; RangeError when threads < 1; the signal's reason
 *   when aborted (the workers are stopped); a worker's error, once the calls running with it
 *   end (an owned pool is stopped at once)
 */
export async function computeDirectDeltaMushParallel(
  mesh: DdmInput,
  options: ParallelDdmOptions = {},
): Promise<DdmModel> {
  const threads = options.threads ?? options.pool?.threads ?? availableParallelism();
  checkThreads(threads);
  const parameters = resolveDdmParameters(options);
  const checked = checkDdmOptions(options);
  if (threads === 1) return computeDirectDeltaMush(mesh, options);
  const setup = setupDirectDeltaMush(mesh, parameters, checked, threads);
  const { whole, split } = ddmWorkUnits(setup, threads);
  let done = 0;
  const onWork = (work: number) => options.onProgress?.((done += work), setup.totalWork);
  if (split.size === 0 && whole.length <= 1)
    return finishDirectDeltaMush(setup, mesh, solveDdmInThread(setup, mesh, options, onWork));
  const shared = sharedSetup(setup);
  const weights = {
    influences: mesh.influences,
    joints: sharedCopy(Uint32Array, mesh.joints),
    weights: sharedCopy(Float64Array, mesh.weights),
  };
  // As many threads as there are calls to take at once (a split piece: its two factorisations, then its units).
  let calls = whole.length;
  for (const units of split.values()) calls += Math.max(2, units.length);
  const owned = options.pool ? undefined : createDdmWorkerPool(Math.min(threads, calls));
  const { pool } = options.pool ?? owned!;
  const width = Math.min(threads, options.pool?.threads ?? threads);
  const stop = () => void pool.terminate(true).catch(() => undefined); // stopping: a failure to stop is not the error to report
  options.signal?.addEventListener('abort', stop);
  const solved: DdmTaskEntries[] = [];
  const solve =
    (unit: DdmWorkUnit, factors: DdmPieceFactor[] = []) =>
    async () =>
      void solved.push(
        ...((await pool.exec('solve', [shared, weights, unit.tasks, factors], { on: onWork })) as DdmTaskEntries[]),
      );
  // A split piece: its fill-reducing ordering (one for both systems, as on one thread) while the
  // other threads take whole pieces, then its two factorisations (λ's first: ten columns to its
  // shared solve; κ's as soon as a thread is free); the second to finish makes the piece's tasks
  // ready, ahead of the whole pieces left.
  const factorJobs = [...split].map(([c, units]): Job => async () => {
    const ordering = (await pool.exec('order', [shared, c])) as Int32Array;
    const factors: DdmPieceFactor[] = [];
    return (['lambda', 'kappa'] as const).map((system) => async () => {
      const args = [shared, weights, c, system, ordering];
      factors.push((await pool.exec('factor', args, { on: onWork })) as DdmPieceFactor);
      return factors.length === 2 ? units.map((unit) => solve(unit, factors)) : [];
    });
  });
  try {
    options.signal?.throwIfAborted();
    await runInTurn(width, [...factorJobs, ...whole.map((unit) => solve(unit))]);
    return finishDirectDeltaMush(setup, mesh, solved);
  } catch (e) {
    options.signal?.throwIfAborted();
    await owned?.pool.terminate(true); // the calls still running are of no use now
    throw e;
  } finally {
    options.signal?.removeEventListener('abort', stop);
    await owned?.terminate();
  }
}

/** A call to a worker thread; it may make others ready (run before those waiting). */
type Job = () => Promise<Job[] | void>;

/**
 * Runs `jobs` with at most `width` at a time, in order, each job's follow-ups ahead of the jobs
 * still waiting; resolves when all have run, rejects with the first failure (starting no more).
 */
function runInTurn(width: number, jobs: Job[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const ready = [...jobs];
    let running = 0;
    let failed = false;
    const next = () => {
      if (failed) return;
      if (running === 0 && ready.length === 0) return resolve();
      while (running < width && ready.length) {
        running++;
        ready.shift()!().then(
          (more) => {
            running--;
            if (more) ready.unshift(...more);
            next();
          },
          (e: unknown) => {
            failed = true;
            reject(e);
          },
        );
      }
    };
    next();
  });
}

/**
 * `setup` with its arrays in SharedArrayBuffers (the pieces' rows one buffer, their joints
 * another), so that each call to a worker thread copies only its small objects (the tasks, the
 * split flags, the parameters).
 */
function sharedSetup(setup: DdmSetup): DdmSetup {
  const copies = new Map<unknown, unknown>();
  const share = <T extends Float64Array | Int32Array | Uint32Array>(a: T): T => {
    if (!copies.has(a)) copies.set(a, toShared(a));
    return copies.get(a) as T;
  };
  const system = ({ matrix, scale }: DdmSetup['sysK']) => ({
    matrix: {
      n: matrix.n,
      offsets: share(matrix.offsets),
      columns: share(matrix.columns),
      values: share(matrix.values),
    },
    scale: share(scale),
  });
  /** The arrays as views of one SharedArrayBuffer. */
  const together = (arrays: Int32Array[]) => {
    const all = new Int32Array(new SharedArrayBuffer(4 * arrays.reduce((t, a) => t + a.length, 0)));
    let at = 0;
    return arrays.map((a) => {
      all.set(a, at);
      return all.subarray(at, (at += a.length));
    });
  };
  return {
    ...setup,
    repOf: share(setup.repOf),
    firstOf: share(setup.firstOf),
    x: share(setup.x),
    sysK: system(setup.sysK),
    sysL: system(setup.sysL),
    pieces: together(setup.pieces),
    jointsOf: together(setup.jointsOf),
  };
}
