/**
 * Cage binding on a Web Worker, for browsers (the worker script is bundled into the package).
 *
 * @module
 */
import { runWorkerScript } from '../core/web-worker.js';
import { bindToCage, type CageBindOptions, type CageBinding } from './bind.js';
import type { Cage } from './cage.js';
import { CAGE_WORKER_SOURCE } from './web-worker-source.js';

/** {@link CageBindOptions} without the callbacks and signal, which stay in this thread. */
export type WorkerCageBindOptions = Omit<CageBindOptions, 'onProgress' | 'signal'>;

/** The message the cage worker receives. */
export interface CageWorkerRequest {
  /** Skin positions to bind, bind space, 3·n. */
  positions: ArrayLike<number>;
  /** The cage, same space. */
  cage: Cage;
  /** Binding options (no callbacks). */
  options: WorkerCageBindOptions;
}

/**
 * {@link bindToCage} on a Web Worker started from a bundled script, so the page stays responsive;
 * in this thread where workers are unavailable (one console warning where one cannot start).
 * @throws CorskinError (as the rejection's message) for a bad cage or skin vertices outside it
 */
export function bindToCageOnWorker(
  positions: Float32Array,
  cage: Cage,
  options: CageBindOptions = {},
): Promise<CageBinding> {
  const { onProgress, signal, ...rest } = options;
  const request: CageWorkerRequest = { positions, cage, options: rest };
  return runWorkerScript(CAGE_WORKER_SOURCE, request, {
    label: 'cage binding',
    fallback: () => bindToCage(positions, cage, options),
    onProgress,
    signal,
  });
}
