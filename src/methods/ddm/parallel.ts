/**
 * The Direct Delta Mush precomputation (Le & Lewis 2019) on worker threads (workerpool): the
 * tasks of `stages.ts` (a connected piece and a block of its joints) shared between the threads
 * by their estimated solves, largest first; each thread factorises the pieces it touches. The
 * entries are kept in task order, so the result is bit-identical to
 * {@link computeDirectDeltaMush} whatever the number of threads. Node only.
 *
 * @module
 */
import { availableParallelism } from 'node:os';
import workerpool from 'workerpool';
import { checkThreads, nodeWorkerScript } from '../../core/node-worker.js';
import { resolveDdmParameters } from './parameters.js';
import { checkDdmOptions, computeDirectDeltaMush } from './precompute.js';
import type { DdmInput, DdmModel, DdmOptions } from './precompute.js';
import { finishDirectDeltaMush, setupDirectDeltaMush, type DdmTask, type DdmTaskEntries } from './stages.js';

/** Options of {@link computeDirectDeltaMushParallel}. */
export interface ParallelDdmOptions extends DdmOptions {
  /** Worker threads; 1 runs in this thread. Default: every core. */
  threads?: number;
}

/**
 * Below this many weighted influences one thread is as fast: on the 2-core reference machine
 * starting the workers costs ~0.8 s and the two threads share the memory bandwidth, so a
 * 3,000–7,500-vertex character (2–3 s on one thread) gains 0–10 %, while CesiumMan subdivided
 * twice (41,154 vertices, 84 s) takes 0.65× (see the bench's DDM rows).
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
 * thread's list in ascending order (it then factorises each piece once).
 */
export function shareDdmTasks(tasks: readonly DdmTask[], threads: number): number[][] {
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
 * {@link computeDirectDeltaMush} on `threads` worker threads (bit-identical result).
 * @throws as {@link computeDirectDeltaMush}; RangeError when threads < 1; the signal's reason
 *   when aborted (the workers are stopped)
 */
export async function computeDirectDeltaMushParallel(
  mesh: DdmInput,
  options: ParallelDdmOptions = {},
): Promise<DdmModel> {
  const threads = options.threads ?? availableParallelism();
  checkThreads(threads);
  const parameters = resolveDdmParameters(options);
  const checked = checkDdmOptions(options);
  if (threads === 1) return computeDirectDeltaMush(mesh, options);
  const setup = setupDirectDeltaMush(mesh, parameters, checked);
  const groups = shareDdmTasks(setup.tasks, threads);
  if (groups.length <= 1) return computeDirectDeltaMush(mesh, options);
  const input: DdmInput = {
    positions: mesh.positions,
    triangles: mesh.triangles,
    influences: mesh.influences,
    joints: mesh.joints,
    weights: mesh.weights,
  };
  const pool = workerpool.pool(nodeWorkerScript('methods/ddm/worker.js'), {
    maxWorkers: groups.length,
    workerType: 'thread',
  });
  const stop = () => void pool.terminate(true).catch(() => undefined); // stopping: a failure to stop is not the error to report
  options.signal?.addEventListener('abort', stop);
  try {
    options.signal?.throwIfAborted();
    let done = 0;
    const solved = await Promise.all(
      groups.map(
        (g) =>
          pool.exec('solve', [input, parameters, checked, g], {
            // A piece's shared solves run on every thread that has some of its tasks: the count
            // can pass the total, which counts them once.
            on: (work: number) => options.onProgress?.(Math.min((done += work), setup.totalWork), setup.totalWork),
          }) as Promise<DdmTaskEntries[]>,
      ),
    );
    return finishDirectDeltaMush(setup, mesh, solved.flat());
  } catch (e) {
    options.signal?.throwIfAborted();
    throw e;
  } finally {
    options.signal?.removeEventListener('abort', stop);
    await pool.terminate();
  }
}
