/**
 * Worker-thread side of {@link computeDirectDeltaMushParallel}: a share of the Direct Delta Mush
 * precomputation's tasks (`stages.ts`), callable through workerpool. The set-up is recomputed
 * here (it is cheap beside the solves); the entries go back as transferred buffers, and the
 * solves done as workerpool events for the caller's progress.
 *
 * @module
 */
import workerpool from 'workerpool';
import type { DdmParameters } from './parameters.js';
import type { DdmInput, DdmVariant } from './precompute.js';
import { setupDirectDeltaMush, solveDdmTasks, type DdmTaskEntries } from './stages.js';

/** Solves reported at most this often (events cost a message each). */
const PROGRESS_EVERY = 1 << 16;

workerpool.worker({
  solve(
    mesh: DdmInput,
    parameters: Required<DdmParameters>,
    checked: { variant: DdmVariant; threshold: number },
    taskIds: number[],
  ) {
    const setup = setupDirectDeltaMush(mesh, parameters, checked);
    let pending = 0;
    const solved: DdmTaskEntries[] = solveDdmTasks(setup, mesh, {}, taskIds, (work) => {
      pending += work;
      if (pending >= PROGRESS_EVERY) {
        workerpool.workerEmit(pending);
        pending = 0;
      }
    });
    if (pending) workerpool.workerEmit(pending);
    const buffers = solved.flatMap((s) => [
      s.rows.buffer,
      s.joints.buffer,
      s.values.buffer,
      ...(s.moments ? [s.moments.buffer] : []),
    ]);
    return new workerpool.Transfer(solved, buffers as ArrayBuffer[]);
  },
});
