/**
 * The worker thread a `corskin` command runs on (see `process.ts`): runs {@link main} on the
 * command line it is given, posting its output lines, progress and temporary files to the main
 * thread, then its exit code.
 *
 * @module
 */
import { parentPort, workerData } from 'node:worker_threads';
import { observeTempFiles } from '../io/files.js';
import { main } from './main.js';
import type { WorkerMessage } from './process.js';

const { argv, tty } = workerData as { argv: string[]; tty: boolean };
const post = (m: WorkerMessage) => parentPort!.postMessage(m);
observeTempFiles((tmp, active, kind) => post({ tmp, active, kind }));
const code = await main(argv, {
  out: (out) => post({ out }),
  err: (err) => post({ err }),
  tty,
  bar: (bar) => ({
    update: (done, total) => post({ bar, done, total }),
    stop: () => post({ bar, stop: true }),
  }),
});
post({ code });
