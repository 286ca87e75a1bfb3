/**
 * Worker thread of a parallel batch run (`--jobs`): runs one command on one file and posts its
 * output lines, then `{ done }` or `{ error, input: true }` (a CorskinError: bad input) /
 * `{ error }` (anything else).
 * @module
 */
import { parentPort, workerData } from 'node:worker_threads';
import { CorskinError } from '../core/errors.js';
import { runBatchCommand, type BatchJob } from './batch.js';

const job = workerData as BatchJob;
const post = (m: unknown) => parentPort!.postMessage(m);
try {
  // Its lines are printed when the file is done: no progress lines (they would say what is over).
  const io = { out: (line: string) => post({ out: line }), err: (line: string) => post({ err: line }), tty: false, progressLines: false }; // prettier-ignore
  await runBatchCommand(io, job);
  post({ done: true });
} catch (e) {
  post({ error: (e as Error).message, input: e instanceof CorskinError });
}
