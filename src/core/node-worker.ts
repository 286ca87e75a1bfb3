/**
 * Where a Node worker-thread script is, and a started pool of them: the helpers behind the CoR,
 * Direct Delta Mush and cage worker pools and the CLI's batch runs. Node only (the browser's workers are Blob URLs, `web-worker.ts`).
 *
 * @module
 */
// Node-only like its importers (cor/parallel.ts, cage/parallel.ts, cli/batch.ts); nothing browser-safe imports it.
import { fileURLToPath } from 'node:url';
import workerpool from 'workerpool';

/**
 * Path of the compiled worker script `script`, given relative to `dist/` (`'cor/worker.js'`):
 * beside the compiled modules when corskin runs from `dist/`, and their built copy in `dist/`
 * when it runs from the TypeScript sources (tests, tsx), which cannot start a `.ts` worker.
 */
export function nodeWorkerScript(script: string): string {
  const fromSources = fileURLToPath(import.meta.url).endsWith('.ts');
  return fileURLToPath(new URL(`${fromSources ? '../../dist' : '..'}/${script}`, import.meta.url));
}

/**
 * The most worker threads a pool takes: each is a V8 instance of its own (4,096 of them ran a
 * 2-core machine with 24 GB out of memory; 1,024 took 28 s to start for a 0.5 s precomputation),
 * and threads beyond the cores only add their start.
 */
export const MAX_THREADS = 256;

/**
 * `threads` checked as the worker-pool functions take it (CoR, cage binding, Direct Delta Mush,
 * the helper bake).
 * @throws RangeError when it is not a whole number from 1 to {@link MAX_THREADS}
 */
export function checkThreads(threads: number): void {
  if (!(Number.isInteger(threads) && threads >= 1 && threads <= MAX_THREADS))
    throw new RangeError(
      `threads must be a whole number from 1 to ${MAX_THREADS}, got ${typeof threads === 'number' ? threads : JSON.stringify(threads)}`,
    );
}

/** A pool of worker threads (workerpool) running one script, owned by whoever created it. */
export interface WorkerThreadPool {
  /** Number of worker threads, all started. */
  readonly threads: number;
  /** The workerpool pool running the script. */
  readonly pool: workerpool.Pool;
  /** Stops the workers. */
  terminate(): Promise<void>;
}

/**
 * Starts `threads` worker threads of `script` ({@link nodeWorkerScript}'s form), kept started
 * until terminated.
 * @throws RangeError when threads < 1
 */
export function startWorkerPool(script: string, threads: number): WorkerThreadPool {
  checkThreads(threads);
  const pool = workerpool.pool(nodeWorkerScript(script), {
    maxWorkers: threads,
    minWorkers: threads,
    workerType: 'thread',
  });
  return { threads, pool, terminate: async () => void (await pool.terminate()) };
}
