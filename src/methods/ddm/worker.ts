/**
 * Worker-thread side of {@link computeDirectDeltaMushParallel}: the two phases of the Direct
 * Delta Mush precomputation (`solves.ts`) for one unit of its work — a split piece's ordering or
 * factorisation, or tasks to solve — callable through workerpool. The set-up, the weights and
 * the split pieces' factors come in SharedArrayBuffers (no structured-clone copy between
 * threads; each call's SIMD kernels copy the factors they solve with into their own memory);
 * the entries go back as transferred buffers, and the solves done as workerpool events for the
 * caller's progress.
 *
 * @module
 */
import workerpool from 'workerpool';
import {
  factorDdmPiece,
  factorDdmPieceSystems,
  pieceOrdering,
  solveDdmTasks,
  type DdmPieceFactor,
  type DdmSystem,
  type DdmWeights,
} from './solves.js';
import type { DdmSetup } from './stages.js';
import { SmootherKernels } from './smoother.js';

/** Solves reported at most this often (events cost a message each). */
const PROGRESS_EVERY = 1 << 16;

/** Runs `f` with a progress callback that emits workerpool events now and then. */
function withProgress<T>(f: (onWork: (work: number) => void) => T): T {
  let pending = 0;
  const out = f((work) => {
    pending += work;
    if (pending >= PROGRESS_EVERY) {
      workerpool.workerEmit(pending);
      pending = 0;
    }
  });
  if (pending) workerpool.workerEmit(pending);
  return out;
}

/**
 * This thread's kernel instances, reused from piece to piece and call to call: a fresh instance
 * (a fresh WebAssembly memory) per piece made each of two threads run slower than one alone.
 */
const kernels = new SmootherKernels();

workerpool.worker({
  order(setup: DdmSetup, c: number): Int32Array {
    return pieceOrdering(setup, c);
  },
  factor(setup: DdmSetup, mesh: DdmWeights, c: number, system: DdmSystem, ordering?: Int32Array): DdmPieceFactor {
    // Factor and shared solve in SharedArrayBuffers; the smoother is not sent (the solving
    // threads make their own from the shared factor).
    const f = withProgress((onWork) => factorDdmPiece(setup, mesh, c, system, { kernels }, onWork, true, ordering));
    f.smoother?.release();
    return { piece: f.piece, system: f.system, factor: f.factor, sums: f.sums };
  },
  solve(setup: DdmSetup, mesh: DdmWeights, taskIds: number[], factors: DdmPieceFactor[]) {
    const byKey = new Map(factors.map((f) => [`${f.piece} ${f.system}`, f]));
    // A piece not factorised in phase 1 is this thread's alone: factorised here (both systems with
    // one ordering), kept while its tasks are solved.
    let own: { piece: number; factors: [DdmPieceFactor, DdmPieceFactor] } | undefined;
    const release = () => own?.factors.forEach((f) => f.smoother?.release());
    const solved = withProgress((onWork) =>
      solveDdmTasks(
        setup,
        mesh,
        { kernels },
        taskIds,
        (c, system) => {
          const f = byKey.get(`${c} ${system}`);
          if (f) return f;
          if (own?.piece !== c) {
            release();
            own = { piece: c, factors: factorDdmPieceSystems(setup, mesh, c, { kernels }, onWork) };
          }
          return own.factors[system === 'kappa' ? 0 : 1];
        },
        onWork,
      ),
    );
    release();
    const buffers = solved.flatMap((s) => [
      s.rows.buffer,
      s.joints.buffer,
      s.values.buffer,
      ...(s.moments ? [s.moments.buffer] : []),
    ]);
    return new workerpool.Transfer(solved, buffers as ArrayBuffer[]);
  },
});
