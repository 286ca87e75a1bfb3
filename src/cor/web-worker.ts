/**
 * Centers of rotation on a Web Worker, for browsers: the portable counterpart of the Node worker
 * pool (`corskin/node`'s `computeCentersOfRotationParallel`). The worker script is bundled into the
 * package (no file to serve, no bundler configuration).
 *
 * @module
 */
import { runWorkerScript } from '../core/web-worker.js';
import type { SkinnedMesh } from '../core/mesh.js';
import { computeCentersOfRotation, type CorOptions } from './precompute.js';
import { COR_WORKER_SOURCE } from './web-worker-source.js';

/** Options of {@link computeCentersOfRotationOnWorker}: {@link CorOptions} without callbacks crossing threads. */
export type WorkerCorOptions = Omit<CorOptions, 'onProgress' | 'signal'>;

/** The message the CoR worker receives. */
export interface CorWorkerRequest {
  /** The skinned mesh, bind space. */
  mesh: SkinnedMesh;
  /** CoR options (no callbacks). */
  options: WorkerCorOptions;
}

/**
 * Computes the centers of rotation of `mesh` (Le & Hodgins 2016, Eq. 4; see
 * {@link computeCentersOfRotation}) on a Web Worker started from a bundled script, so the page
 * stays responsive; in this thread where workers are unavailable, and with one console warning
 * where one cannot start (e.g. a Content-Security-Policy without `worker-src blob:`).
 * @param mesh a skinned mesh in bind space (its arrays are copied to the worker)
 * @returns bind-space centers, 3·n
 * @throws Error (rejection) for an invalid mesh, or the signal's reason when aborted
 */
export function computeCentersOfRotationOnWorker(
  mesh: SkinnedMesh,
  options: WorkerCorOptions & { onProgress?: CorOptions['onProgress']; signal?: AbortSignal } = {},
): Promise<Float32Array> {
  const { onProgress, signal, ...rest } = options;
  const request: CorWorkerRequest = { mesh, options: rest };
  return runWorkerScript(COR_WORKER_SOURCE, request, {
    label: 'centers of rotation',
    fallback: () => computeCentersOfRotation(mesh, { ...rest, onProgress, signal }).centers,
    onProgress,
    signal,
  });
}
