/**
 * The Direct Delta Mush precomputation (Le & Lewis 2019) on worker threads (workerpool), in the
 * two phases of `solves.ts`: the pieces' factorisations (two per piece, one per smoothing
 * system), then the tasks (a connected piece and a block of its joints), each phase shared
 * between the threads by its estimated work, largest first; the factors go from one phase to the
 * next in shared memory. The entries are kept in task order, so the result is bit-identical to
 * {@link computeDirectDeltaMush} whatever the number of threads. Node only.
 *
 * @module
 */
import { availableParallelism } from 'node:os';
import { checkThreads, startWorkerPool, type WorkerThreadPool } from '../../core/node-worker.js';
import { resolveDdmParameters } from './parameters.js';
import { checkDdmOptions, computeDirectDeltaMush } from './precompute.js';
import type { DdmInput, DdmModel, DdmOptions } from './precompute.js';
import { solveDdmInThread, type DdmPieceFactor, type DdmSystem } from './solves.js';
import { finishDirectDeltaMush, setupDirectDeltaMush, type DdmTask, type DdmTaskEntries } from './stages.js';

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
 * {@link computeDirectDeltaMushParallel} calls in a row.
 * @throws RangeError when threads < 1
 */
export function createDdmWorkerPool(threads = availableParallelism()): DdmWorkerPool {
  return startWorkerPool('methods/ddm/worker.js', threads);
}

/**
 * Below this many weighted influences one thread is as fast: on the 2-core reference machine a
 * 7,400-vertex character (the Soldier, rpm-avatar: 0.25–0.35 s on one thread) takes 0.5 s on two
 * fresh workers (starting them, and their code running cold) and 0.2–0.25 s on a warm pool, while
 * CesiumMan subdivided twice (41,154 vertices, 7.2 s) takes 0.63–0.66× on two fresh workers and
 * subdivided three times (157,070 vertices, 42.6 s) 0.59× (see the bench's DDM rows).
 */
const AUTO_THREADS_FROM = 60_000;

/** The default thread count for `mesh`: every core from 60,000 weighted influences up, else 1. */
export function autoDdmThreads(mesh: DdmInput): number {
  let entries = 0;
  for (let k = 0; k < mesh.weights.length; k++) if (mesh.weights[k] !== 0) entries++;
  return entries >= AUTO_THREADS_FROM ? availableParallelism() : 1;
}

/**
 * The tasks of each thread: largest first, each to the thread with the least work so far; every
 * thread's list in ascending order.
 */
export function shareDdmTasks(tasks: readonly Pick<DdmTask, 'work'>[], threads: number): number[][] {
  const groups: number[][] = Array.from({ length: threads }, () => []);
  const load = new Float64Array(threads);
  const order = tasks.map((_, t) => t).sort((a, b) => tasks[b].work - tasks[a].work || a - b);
  for (const t of order) {
    let w = 0;
    for (let k = 1; k < threads; k++) if (load[k] < load[w]) w = k;
    groups[w].push(t);
    load[w] += tasks[t].work;
  }
  return groups.filter((g) => g.length).map((g) => g.sort((a, b) => a - b));
}

/**
 * {@link computeDirectDeltaMush} on `threads` worker threads (bit-identical result): first the
 * two factorisations and shared solves (`factorDdmPiece`, in SharedArrayBuffers) of every piece
 * large enough to be split between threads, then the tasks' solves (`solveDdmTasks`) with them,
 * the smaller pieces each whole on one thread; each phase shared out by its estimated work.
 * @throws as {@link computeDirectDeltaMush}; RangeError when threads < 1; the signal's reason
 *   when aborted (the workers are stopped)
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
  // Phase 2's units: each task of a split piece alone, every other piece whole (with its
  // factorisations and shared solves, done by the thread that solves its tasks).
  const units: { tasks: number[]; work: number }[] = [];
  const whole = new Map<number, { tasks: number[]; work: number }>();
  setup.tasks.forEach((t, k) => {
    if (setup.split[t.piece]) return void units.push({ tasks: [k], work: t.work });
    let unit = whole.get(t.piece);
    if (!unit) {
      unit = { tasks: [], work: setup.parameters.iterations * setup.pieces[t.piece].length * 11 };
      whole.set(t.piece, unit);
      units.push(unit);
    }
    unit.tasks.push(k);
    unit.work += t.work;
  });
  const groups = shareDdmTasks(units, threads).map((g) => g.flatMap((u) => units[u].tasks).sort((a, b) => a - b));
  let done = 0;
  const onWork = (work: number) => options.onProgress?.((done += work), setup.totalWork);
  if (groups.length <= 1) return finishDirectDeltaMush(setup, mesh, solveDdmInThread(setup, mesh, options, onWork));
  const weights = { influences: mesh.influences, joints: mesh.joints, weights: mesh.weights };
  // Phase 1's jobs: both systems of every split piece, their work ~ rows^1.5 (the factorisation).
  const jobs: { piece: number; system: DdmSystem; work: number }[] = [];
  for (const c of new Set(setup.tasks.map((t) => t.piece)))
    if (setup.split[c])
      for (const system of ['lambda', 'kappa'] as const)
        jobs.push({ piece: c, system, work: setup.pieces[c].length ** 1.5 });
  const owned = options.pool ? undefined : createDdmWorkerPool(groups.length);
  const { pool } = options.pool ?? owned!;
  const stop = () => void pool.terminate(true).catch(() => undefined); // stopping: a failure to stop is not the error to report
  options.signal?.addEventListener('abort', stop);
  try {
    options.signal?.throwIfAborted();
    const factored = await Promise.all(
      shareDdmTasks(jobs, groups.length).map(
        (g) =>
          pool.exec('factor', [setup, weights, g.map((k) => [jobs[k].piece, jobs[k].system])], {
            on: onWork,
          }) as Promise<DdmPieceFactor[]>,
      ),
    );
    const factors = new Map(factored.flat().map((f) => [`${f.piece} ${f.system}`, f]));
    const solved = await Promise.all(
      groups.map((g) => {
        const pieces = [...new Set(g.map((t) => setup.tasks[t].piece))].filter((c) => setup.split[c]);
        const mine = pieces.flatMap((c) => [factors.get(`${c} kappa`)!, factors.get(`${c} lambda`)!]);
        return pool.exec('solve', [setup, weights, g, mine], { on: onWork }) as Promise<DdmTaskEntries[]>;
      }),
    );
    return finishDirectDeltaMush(setup, mesh, solved.flat());
  } catch (e) {
    options.signal?.throwIfAborted();
    throw e;
  } finally {
    options.signal?.removeEventListener('abort', stop);
    await owned?.terminate();
  }
}
