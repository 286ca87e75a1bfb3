/**
 * Worker-thread side of {@link bakeHelperJointsParallel}: a range of one fit task's items
 * (`fit.ts`), on the fit's data in SharedArrayBuffers, callable through workerpool.
 *
 * @module
 */
import workerpool from 'workerpool';
import { runFitTask, type FitData, type FitTask } from './fit.js';

workerpool.worker({
  run(data: FitData, task: FitTask, from: number, to: number) {
    const errors = runFitTask(data, task, from, to);
    return errors ? new workerpool.Transfer(errors, [errors.buffer] as ArrayBuffer[]) : null;
  },
});
