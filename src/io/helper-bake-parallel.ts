/**
 * The helper-joint bake (Le & Deng 2012, "Smooth Skinning Decomposition with Rigid Bones", ACM
 * TOG 31(6), SIGGRAPH Asia 2012; `helper-bake.ts`) with its fit on worker threads (workerpool):
 * each of the alternation's tasks — every vertex's weight update, every sample's bone update,
 * the errors — split into ranges over the threads, the fit's data in SharedArrayBuffers. Each
 * item is computed as on one thread, so the file is byte-identical whatever the number of
 * threads. Node only.
 *
 * @module
 */
import { availableParallelism } from 'node:os';
import type { Document } from '@gltf-transform/core';
import workerpool from 'workerpool';
import { taskItems, type FitErrors } from '../bake/fit.js';
import { checkThreads, nodeWorkerScript } from '../core/node-worker.js';
import type { Deformer } from '../deformers/contract.js';
import type { SkinnedModel } from './gltf.js';
import { bakeHelperJoints, helperBakeSteps, type HelperBakeOptions, type HelperBakeResult } from './helper-bake.js';

/** Options of {@link bakeHelperJointsParallel}. */
export interface ParallelHelperBakeOptions extends HelperBakeOptions {
  /** Worker threads; 1 runs in this thread. Default: every core. */
  threads?: number;
}

/** Ranges per thread of a task: more than one, so that a thread done early takes another. */
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
  const threads = options.threads ?? availableParallelism();
  checkThreads(threads);
  if (threads === 1) return bakeHelperJoints(document, model, deform, options);
  const steps = helperBakeSteps(document, model, deform, options, true);
  let step = steps.next();
  if (step.done) return step.value;
  const pool = workerpool.pool(nodeWorkerScript('bake/fit-worker.js'), {
    maxWorkers: threads,
    minWorkers: threads,
    workerType: 'thread',
  });
  const stop = () => void pool.terminate(true).catch(() => undefined); // stopping: a failure to stop is not the error to report
  options.signal?.addEventListener('abort', stop);
  try {
    for (;;) {
      const { data, task } = step.value;
      const items = taskItems(data, task);
      const ranges = Math.min(items, threads * RANGES_PER_THREAD);
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
      if (task.kind === 'errors') {
        errors = { sum: new Float64Array(items), max: new Float64Array(items) };
        let o = 0;
        for (const part of parts) {
          errors.sum.set(part!.sum, o);
          errors.max.set(part!.max, o);
          o += part!.sum.length;
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
    await pool.terminate();
  }
}
