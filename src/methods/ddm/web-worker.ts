/**
 * Direct Delta Mush precomputation on a Web Worker, for browsers: the counterpart of
 * `computeCentersOfRotationOnWorker` for `'ddm'`. The worker script is bundled into the
 * package (no file to serve, no bundler configuration).
 *
 * @module
 */
import { runWorkerScript } from '../../core/web-worker.js';
import { computeDirectDeltaMush, type DdmInput, type DdmModel, type DdmOptions } from './precompute.js';
import { DDM_WORKER_SOURCE } from './web-worker-source.js';

/** Options of {@link computeDirectDeltaMushOnWorker}: {@link DdmOptions} without callbacks crossing threads. */
export type WorkerDdmOptions = Omit<DdmOptions, 'onProgress' | 'signal'>;

/** The message the DDM worker receives. */
export interface DdmWorkerRequest {
  /** Rest positions, triangles and influences (only these arrays are sent). */
  mesh: DdmInput;
  /** Precomputation options (no callbacks). */
  options: WorkerDdmOptions;
}

/**
 * Precomputes Direct Delta Mush (Binh Huy Le and J. P. Lewis, "Direct Delta Mush Skinning and
 * Variants", ACM TOG 38(4), SIGGRAPH 2019, Eq. 11; see {@link computeDirectDeltaMush}) on a Web
 * Worker started from a bundled script, so the page stays responsive; in this thread where
 * workers are unavailable (Node), and with one console warning where one cannot start (e.g. a
 * Content-Security-Policy without `worker-src blob:`). The result equals
 * {@link computeDirectDeltaMush}'s.
 * @param mesh rest positions (3·n), triangles (3·t), `influences` K and joints and weights (K·n
 *   each); only these arrays are copied to the worker
 * @returns the `full` or `compact` {@link DdmModel}, n vertices in `mesh`'s order: `offsets`
 *   (n + 1), `joints` (e entries), `matrices` (10·e for `full`, 10·n for `compact`) and, for
 *   `compact`, `weights` (e)
 * @throws CorskinError (rejection, in this thread) or Error (rejection, from the worker, with
 *   its message) for bad parameters or a mesh without triangles; the signal's reason when aborted
 */
export function computeDirectDeltaMushOnWorker(
  mesh: DdmInput,
  options: WorkerDdmOptions & { onProgress?: DdmOptions['onProgress']; signal?: AbortSignal } = {},
): Promise<DdmModel> {
  const { onProgress, signal, ...rest } = options;
  const { positions, triangles, influences, joints, weights } = mesh;
  const request: DdmWorkerRequest = { mesh: { positions, triangles, influences, joints, weights }, options: rest };
  return runWorkerScript(DDM_WORKER_SOURCE, request, {
    label: 'Direct Delta Mush',
    fallback: () => computeDirectDeltaMush(mesh, { ...rest, onProgress, signal }),
    onProgress,
    signal,
  });
}
