/**
 * Portable Web Worker runner: starts a self-contained worker script (a string, bundled into the
 * package at build time) from a Blob URL, so the page needs no worker file and no bundler
 * configuration; falls back to computing in the calling thread where workers are unavailable.
 *
 * Protocol: the worker receives one message, may post `{ done, total }` progress messages, and
 * ends with `{ result }` or `{ error }` (a message string).
 *
 * @module
 */

/** Options of {@link runWorkerScript}. */
export interface WorkerScriptOptions<T> {
  /** What the worker computes, for messages ("centers of rotation"). */
  label: string;
  /** The same computation in the calling thread, used where no worker can start. */
  fallback: () => T;
  /** Progress, `done` of `total` units. */
  onProgress?: (done: number, total: number) => void;
  /** Stops the worker; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Buffers of `message` to transfer rather than copy (they become unusable here). */
  transfer?: Transferable[];
  /**
   * Applied to the worker's result before it resolves (not to the fallback's, which never left
   * this thread): to rebuild what a structured clone gives back differently, e.g. objects whose
   * numbers come back boxed.
   */
  revive?: (result: T) => T;
}

const warnedLabels = new Set<string>();

/**
 * Runs `source` (classic worker script) on a Web Worker with `message`, resolving with its
 * `result`. Where `Worker` or Blob URLs do not exist (Node, some embedded browsers) the
 * `fallback` runs in this thread; where a worker cannot start (a Content-Security-Policy without
 * `worker-src blob:`, an error while loading) the fallback runs too and a single console warning
 * per label says why.
 * @throws Error (rejection) with the worker's message when the computation itself fails; the
 * signal's reason when aborted
 */
export function runWorkerScript<T>(source: string, message: unknown, options: WorkerScriptOptions<T>): Promise<T> {
  const { label, fallback, onProgress, signal, transfer = [], revive } = options;
  const here = () => new Promise<T>((resolve) => resolve(fallback()));
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (typeof Worker === 'undefined' || typeof Blob === 'undefined' || typeof URL.createObjectURL !== 'function') {
    return here();
  }
  return new Promise<T>((resolve, reject) => {
    let worker: Worker;
    const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
    const finish = () => {
      worker?.terminate();
      URL.revokeObjectURL(url);
      signal?.removeEventListener('abort', abort);
    };
    const abort = () => {
      finish();
      reject(signal!.reason);
    };
    const fallBack = (reason: unknown) => {
      finish();
      if (!warnedLabels.has(label)) {
        warnedLabels.add(label);
        const why = reason ? ` (${String(reason)})` : '';
        console.warn(`corskin: the ${label} worker could not start${why}; computing on the main thread instead.`);
      }
      here().then(resolve, reject);
    };
    try {
      worker = new Worker(url);
    } catch (e) {
      return fallBack((e as Error).message ?? e);
    }
    signal?.addEventListener('abort', abort, { once: true });
    worker.onmessage = (e: MessageEvent<{ done?: number; total?: number; result?: T; error?: string }>) => {
      const data = e.data;
      if (data.error !== undefined) {
        finish();
        reject(new Error(`corskin: computing the ${label} failed: ${data.error}`));
      } else if (data.result !== undefined) {
        finish();
        try {
          resolve(revive ? revive(data.result) : data.result);
        } catch (e) {
          reject(e);
        }
      } else if (data.done !== undefined) onProgress?.(data.done, data.total!);
    };
    worker.onerror = (e) => {
      e.preventDefault?.();
      fallBack(e.message);
    };
    worker.postMessage(message, transfer);
  });
}
