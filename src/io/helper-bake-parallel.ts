/**
 * The helper-joint bake (Le & Deng 2012, "Smooth Skinning Decomposition with Rigid Bones", ACM
 * TOG 31(6), SIGGRAPH Asia 2012; `helper-bake.ts`) with its fit on worker threads (workerpool):
 * each of the alternation's tasks — every pair of influences' products, every vertex's weight
 * update (and the error it leaves), every sample's bone update — split into ranges over the
 * threads, the fit's data in SharedArrayBuffers. Each
 * item is computed as on one thread, so the file is byte-identical whatever the number of
 * threads. Node only.
 *
 * @module
 */
import { availableParallelism } from 'node:os';
import type { Document } from '@gltf-transform/core';
import { taskItems, type FitErrors } from '../bake/fit.js';
import { checkThreads, startWorkerPool, type WorkerThreadPool } from '../core/node-worker.js';
import type { Deformer } from '../deformers/contract.js';
import type { SkinnedModel } from './gltf.js';
import { bakeHelperJoints, helperBakeSteps, type HelperBakeOptions, type HelperBakeResult } from './helper-bake.js';

/** Options of {@link bakeHelperJointsParallel}. */
export interface ParallelHelperBakeOptions extends HelperBakeOptions {
  /** Worker threads; 1 runs in this thread. Default: every core (or the pool's size). */
  threads?: number;
  /**
   * A pool from {@link createHelperBakeWorkerPool} to reuse across calls (the skins of a file: a
   * fresh pool per skin made the skeleton's 40 skins 1.5× slower on 2 threads than on 1); the
   * caller terminates it (an abort during the call terminates it too).
   */
  pool?: WorkerThreadPool;
}

/**
 * Starts `threads` worker threads for the helper bake's fit (default: every core), for several
 * {@link bakeHelperJointsParallel} calls in a row.
 * @throws RangeError as `checkThreads`
 */
export function createHelperBakeWorkerPool(threads = availableParallelism()): WorkerThreadPool {
  return startWorkerPool('bake/fit-worker.js', threads);
}

/**
 * Ranges per thread of a task: more than one, so that a thread done early takes another — but
 * one for the bone updates, whose samples cost alike and whose every range first sums over all
 * of each helper's members (`updateHelpers`: 4 ms a range on Ybot, as long as 12 of its samples).
 */
const RANGES_PER_THREAD = 4;

/**
 * {@link bakeHelperJoints} with its fit on `threads` worker threads (byte-identical result).
 * @throws as {@link bakeHelperJoints}; RangeError when threads < 1; the signal's reason when
 *   aborted (the workers are stopped)
 */
export async function bakeHelperJointsParallel(
  document: Document,
  model: SkinnedModel,
  deform: Deformer,
  options: ParallelHelperBakeOptions = {},
): Promise<HelperBakeResult> {
  const threads = options.threads ?? options.pool?.threads ?? availableParallelism();
  checkThreads(threads);
  if (threads === 1) return bakeHelperJoints(document, model, deform, options);
  const steps = helperBakeSteps(document, model, deform, options, true);
  let step = steps.next();
  if (step.done) return step.value;
  const owned = options.pool ? undefined : createHelperBakeWorkerPool(threads);
  const { pool } = options.pool ?? owned!;
  const stop = () => void pool.terminate(true).catch(() => undefined); // stopping: a failure to stop is not the error to report
  options.signal?.addEventListener('abort', stop);
  try {
    for (;;) {
      const { data, task } = step.value;
      const items = taskItems(data, task);
      const ranges = Math.min(items, threads * (task.kind === 'helpers' ? 1 : RANGES_PER_THREAD));
      const parts = await Promise.all(
        Array.from(
          { length: ranges },
          (_, r) =>
            pool.exec('run', [
              data,
              task,
              Math.floor((r * items) / ranges),
              Math.floor(((r + 1) * items) / ranges),
            ]) as Promise<FitErrors | null>,
        ),
      );
      let errors: FitErrors | undefined;
      if (task.kind === 'weights') {
        errors = new Float64Array(items);
        let o = 0;
        for (const part of parts) {
          errors.set(part!, o);
          o += part!.length;
        }
      }
      step = steps.next(errors);
      if (step.done) return step.value;
    }
  } catch (e) {
    options.signal?.throwIfAborted();
    throw e;
  } finally {
    options.signal?.removeEventListener('abort', stop);
    await owned?.terminate();
  }
}
