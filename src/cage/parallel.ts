/**
 * Cage binding on worker threads (workerpool): the skin's vertices split into ranges bound in
 * parallel, the results put together in order — identical to {@link bindToCage} for any number of
 * threads.
 *
 * @module
 */
import { availableParallelism } from 'node:os';
import workerpool from 'workerpool';
import { checkThreads, nodeWorkerScript } from '../core/node-worker.js';
import { toShared } from '../core/shared-memory.js';
import { bindParameters, bindToCage, checkInside, type CageBindOptions, type CageBinding } from './bind.js';
import { checkCage, type Cage } from './cage.js';

/** Options of {@link bindToCageParallel}. */
export interface ParallelCageBindOptions extends CageBindOptions {
  /** Worker threads; 1 binds in this thread. Default: all cores from 2,000 vertices up, else 1. */
  threads?: number;
}

/**
 * {@link bindToCage} on `threads` worker threads; progress as ranges finish; `signal` terminates
 * the workers and rejects with its reason.
 * @throws CorskinError for a bad cage or skin vertices outside it; RangeError for bad options
 */
export async function bindToCageParallel(positions: Float32Array, cage: Cage, options: ParallelCageBindOptions = {}): Promise<CageBinding> {
  const n = positions.length / 3;
  const threads = options.threads ?? (n >= 2000 ? availableParallelism() : 1);
  checkThreads(threads);
  if (threads === 1) return bindToCage(positions, cage, options);
  checkCage(cage, options.file);
  const params = bindParameters(cage, options);
  options.signal?.throwIfAborted();
  const k = params.influences;
  const binding: CageBinding = { ...params, indices: new Uint32Array(k * n), weights: new Float32Array(k * n) };
  const pool = workerpool.pool(nodeWorkerScript('cage/worker.js'), { maxWorkers: threads, workerType: 'thread' });
  const onAbort = () => void pool.terminate(true).catch(() => undefined); // stopping: a failure to stop is not the error to report
  options.signal?.addEventListener('abort', onAbort);
  try {
    const shared = toShared(positions);
    const sharedCage = { positions: toShared(Float64Array.from(cage.positions)), triangles: toShared(cage.triangles) };
    // Small ranges balance the load (vertices in the cage's kernel are much cheaper).
    const size = Math.max(64, Math.ceil(n / (threads * 16)));
    const outside: number[] = [];
    let done = 0;
    const tasks: Promise<void>[] = [];
    for (let begin = 0; begin < n; begin += size) {
      const end = Math.min(n, begin + size);
      tasks.push(
        pool
          .exec('bind', [shared, sharedCage, params, begin, end, options.correction])
          .then((r: { indices: Uint32Array; weights: Float32Array; outside: number[] }) => {
            binding.indices.set(r.indices, k * begin);
            binding.weights.set(r.weights, k * begin);
            outside.push(...r.outside);
            done += end - begin;
            options.onProgress?.(done, n);
          }),
      );
    }
    await Promise.all(tasks);
    options.signal?.throwIfAborted();
    checkInside(outside.sort((a, b) => a - b), positions, options.file);
    return binding;
  } catch (e) {
    options.signal?.throwIfAborted();
    throw e;
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    await pool.terminate();
  }
}
