/**
 * The `corskin` process: the command runs on a worker thread while the main thread stays free
 * to answer signals. A command's work is long and synchronous (a bake, a precomputation), so on
 * the main thread no signal handler could run until it ended — Ctrl+C would be ignored and the
 * output written anyway. Here SIGINT, SIGTERM or SIGHUP stops the worker at once (V8 stops even a
 * running loop), removes the temporary files of writes in progress (outputs are renamed into
 * place only when complete: nothing partial is left, and an input is never replaced), says so on
 * stderr (not with `-q`), and exits with 128 + the signal number (130, 143, 129), within a fraction of a second.
 *
 * `corskin view` (a server until Ctrl+C) runs on the main thread; `corskin bake` first starts
 * again in a child process on huge pages where it can (`huge-pages.ts`).
 *
 * @module
 */
import { rmSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { Worker } from 'node:worker_threads';
import { nodeWorkerScript } from '../core/node-worker.js';
import { installSignalCleanup, main } from './main.js';
import { processIo, progress, quietFlag, type ProgressBar } from './ui.js';
import { removeEmptyFolders, removeTempFilesOf, type TempFileKind } from '../io/files.js';
import { stopChromiumIn, waitGone } from './chromium-profile.js';
import { relaunchOnHugePages, stopsWithParent, wantsHugePages } from './huge-pages.js';

/** What the command's worker thread posts. */
export type WorkerMessage =
  | { out: string }
  | { err: string }
  | { bar: string; done: number; total: number }
  | { bar: string; stop: true }
  | { tmp: string; active: boolean; kind: TempFileKind }
  | { code: number };

/** How long the worker may take to stop after a signal before the process exits regardless. */
const STOP_GRACE_MS = 1000;

/**
 * Runs the command line `argv` (as `process.argv`) as the `corskin` process does.
 * @returns the exit code
 */
export async function runProcess(argv: string[]): Promise<number> {
  // The start-up's handlers (bin/corskin.js: exit at once) give way to these once they are in
  // place, in the same synchronous run: never no listener at all (a signal pending then would be
  // dropped, or one arriving met by the default action).
  const startup = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((s) => [s, process.listeners(s)] as const);
  const handOver = () => {
    for (const [s, listeners] of startup) for (const l of listeners) process.removeListener(s, l as () => void);
  };
  const command = argv.slice(2).find((a) => !a.startsWith('-'));
  if (command === 'view') {
    installSignalCleanup();
    handOver();
    return main(argv);
  }
  // A bake holds every sample in memory: on huge pages where the platform offers them.
  if (command === 'bake' && wantsHugePages()) {
    const exited = relaunchOnHugePages(argv);
    handOver();
    return exited;
  }
  const worker = new Worker(nodeWorkerScript('cli/process-worker.js'), {
    workerData: { argv, tty: processIo.tty },
  });
  const temporary = new Set<string>();
  const writtenElsewhere = new Set<string>(); // a parallel batch's outputs, written by nested threads
  const madeFolders = new Set<string>(); // folders made for outputs: removed on a stop if still empty
  const bars = new Map<string, ProgressBar>();
  let code: number | undefined;
  let stdoutClosed = false;
  worker.on('message', (m: WorkerMessage) => {
    if ('out' in m) {
      if (!stdoutClosed) processIo.out(m.out);
    } else if ('err' in m) processIo.err(m.err);
    else if ('tmp' in m) {
      const set = m.kind === 'temporary' ? temporary : m.kind === 'new-folder' ? madeFolders : writtenElsewhere;
      if (m.active) set.add(m.tmp);
      else set.delete(m.tmp);
    } else if ('bar' in m) {
      if (!bars.has(m.bar)) bars.set(m.bar, progress(processIo, m.bar));
      if ('stop' in m) {
        bars.get(m.bar)!.stop();
        bars.delete(m.bar);
      } else bars.get(m.bar)!.update(m.done, m.total);
    } else {
      code = m.code; // done: a signal from now on changes nothing
      // Whatever the command left open (a server, a timer) does not keep the process alive.
      setTimeout(() => void worker.terminate(), STOP_GRACE_MS).unref();
    }
  });
  const stopped = new Promise<number>((resolve) => {
    worker.on('error', (e) => {
      processIo.err(`corskin: internal error: ${e.stack ?? e}`);
      resolve(1);
    });
    worker.on('exit', () => resolve(code ?? 1));
  });
  // Stops the command (once, whatever asks again), cleans up, says so (not with -q) and exits with 128 + the signal number.
  const quiet = quietFlag(argv);
  let stopping = false;
  const stop = (signal: NodeJS.Signals, why: string = signal) => {
    if (stopping || code !== undefined) return; // finished: the command exits with its own code
    stopping = true;
    const exitCode = 128 + osConstants.signals[signal]; // 130, 143, 129
    // `terminated`: the worker thread is gone. Where it is not within the grace (its teardown
    // waits for a file-system request still pending in libuv's thread pool, as the open of a
    // FIFO that no process writes, which never ends), `process.exit` would wait for it forever,
    // so the process ends by the signal's default action instead (the shell then sees the same
    // 128 + signal number).
    let exiting = false;
    const exit = (terminated: boolean) => {
      if (exiting) return;
      exiting = true;
      // First the Chromium a render started, alive until this process exits, which would write
      // on into its profile there: killed (found from its start, before it locks its profile)
      // and waited for, up to a second; the removal is retried (for about a second) while a
      // folder still fills, and what still fails to go is left, not an error.
      waitGone([...temporary].flatMap(stopChromiumIn), 1000);
      for (const tmp of temporary)
        try {
          rmSync(tmp, { recursive: true, force: true, maxRetries: 8, retryDelay: 30 });
        } catch {
          // left in the temporary folder
        }
      for (const output of writtenElsewhere) removeTempFilesOf(output);
      removeEmptyFolders(madeFolders);
      for (const bar of bars.values()) bar.stop();
      if (process.stderr.isTTY) process.stderr.write('\x1b[?25h\x1b[?7h\n');
      if (!quiet) process.stderr.write(`corskin: stopped (${why}); no file was left partly written\n`);
      if (terminated) process.exit(exitCode);
      for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.removeAllListeners(s);
      try {
        process.kill(process.pid, signal);
      } catch {
        process.kill(process.pid, 'SIGKILL'); // a signal the platform cannot send itself (SIGHUP on Windows)
      }
    };
    setTimeout(() => exit(false), STOP_GRACE_MS).unref();
    void worker.terminate().then(
      () => exit(true),
      () => exit(true),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGHUP', () => stop('SIGHUP')); // its terminal closed
  handOver();
  stopsWithParent(() => stop('SIGTERM', 'the parent process is gone'));
  // `corskin info x.glb | head` closes the pipe early: not an error. The command goes on without
  // its printed lines: its file (`bake … -o out.glb | head -1`) is still written, and the exit code
  // is its own. Another failure to print (a full disk) is said once, on stderr.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (!stdoutClosed && e.code !== 'EPIPE')
      processIo.err(`corskin: cannot write to standard output (${e.code ?? e.message}); the command goes on without printing`); // prettier-ignore
    stdoutClosed = true;
  });
  // A closed stderr (`bake … 2>&1 | head -3`) likewise: its warnings and progress are lost, not
  // the command (an EPIPE there ended the process after the file was written, before it was
  // moved into place). There is nowhere left to say anything.
  process.stderr.on('error', () => {});
  return stopped;
}
