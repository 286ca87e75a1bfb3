/**
 * Batch runs for pipelines: `corskin precompute|deform|bake A.glb B.glb … --out-dir DIR [--jobs N]`
 * processes every input — N files at a time on worker threads — continuing past a failing file,
 * with a line per file (each file's own output printed together when it finishes) and a summary;
 * any failure makes the run fail (exit 1).
 *
 * @module
 */
import { existsSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { CorskinError } from '../core/errors.js';
import { nodeWorkerScript } from '../core/node-worker.js';
import { makeFolder, trackOutputWrittenElsewhere } from '../io/files.js';
import { warnIgnored, type Io } from './ui.js';
import { methodModule } from '../methods/index.js';
import { moduleParameters } from './options.js';

/** Bad usage found after commander's parsing (the CLI exits with 2). */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * The parameters of the method module `o.method` names (DDM's --iterations, --alpha, …), checked
 * before any file is read: out of range is bad usage, whatever the file.
 * @throws UsageError with the module's message
 */
function checkMethodParameters(o: Record<string, unknown>): void {
  const module = typeof o.method === 'string' ? methodModule(o.method) : undefined;
  if (!module) return;
  try {
    module.check(moduleParameters(module, o));
  } catch (e) {
    throw e instanceof CorskinError ? new UsageError(e.message) : e;
  }
}

/** One file of a batch: the command, its input and output, and the command's options. */
export interface BatchJob {
  command: 'precompute' | 'deform' | 'bake';
  input: string;
  output: string;
  /** The command's parsed options (plain data: they cross to worker threads). */
  opts: Record<string, unknown>;
}

/** Runs one {@link BatchJob} in this thread. @throws CorskinError on bad input */
export async function runBatchCommand(io: Io, job: BatchJob): Promise<void> {
  const opts = { ...job.opts, output: job.output };
  if (job.command === 'precompute') {
    const { precomputeCommand } = await import('./precompute.js');
    return precomputeCommand(io, job.input, opts as unknown as Parameters<typeof precomputeCommand>[2]);
  }
  if (job.command === 'bake') {
    const { bakeCommand } = await import('./bake.js');
    return bakeCommand(io, job.input, opts as unknown as Parameters<typeof bakeCommand>[2]);
  }
  const { deformCommand } = await import('./deform.js');
  return deformCommand(io, job.input, opts as unknown as Parameters<typeof deformCommand>[2]);
}

/** Runs `job` on a worker thread; its output lines are returned, not printed. */
function onWorker(job: BatchJob): Promise<{ out: string[]; err: string[]; error?: string; input?: boolean }> {
  return new Promise((resolve, reject) => {
    const result: { out: string[]; err: string[]; error?: string; input?: boolean } = { out: [], err: [] };
    const worker = new Worker(nodeWorkerScript('cli/batch-worker.js'), { workerData: job });
    worker.on('message', (m: { out?: string; err?: string; done?: boolean; error?: string; input?: boolean }) => {
      if (m.out !== undefined) result.out.push(m.out);
      if (m.err !== undefined) result.err.push(m.err);
      if (m.error !== undefined) Object.assign(result, { error: m.error, input: m.input });
    });
    worker.on('error', reject);
    worker.on('exit', () => resolve(result));
  });
}

/**
 * Runs `command` for each input. With one input and `-o`, just that; otherwise every output goes
 * to `outDir` under its input's file name (`extension`, when given, replaces it), `jobs` files at
 * a time (default: the number of cores; 1 runs them in this thread, one after the other); a
 * missing `outDir` is made.
 * @throws UsageError for neither or both of -o and --out-dir, -o with several inputs, an
 *   `outDir` that is a file, or two inputs whose outputs would share a name (one given twice)
 * @throws CorskinError after the batch when any file failed
 */
export async function runBatch(
  io: Io,
  inputs: string[],
  command: BatchJob['command'],
  o: { output?: string; outDir?: string; jobs?: number } & Record<string, unknown>,
  extension?: string,
): Promise<void> {
  if (o.output !== undefined && o.outDir !== undefined) throw new UsageError('give either -o or --out-dir, not both');
  checkMethodParameters(o);
  const { output, outDir, jobs, ...opts } = o;
  const single = (output: string) => {
    if (jobs !== undefined) warnIgnored(io, '--jobs', 'files written with --out-dir', 'for one file');
    return runBatchCommand(io, { command, input: inputs[0], output, opts });
  };
  if (output !== undefined) {
    if (inputs.length !== 1) throw new UsageError(`-o names one output for ${inputs.length} inputs; use --out-dir DIR`);
    return single(output);
  }
  if (outDir === undefined) {
    // `corskin precompute in.glb out.glb` (glTF-Transform's positional output): a second path
    // that does not exist is the output; one that exists is ambiguous (an input to overwrite?).
    if (inputs.length === 2 && !existsSync(inputs[1])) {
      io.err(`corskin: note: writing ${inputs[1]} (the second path does not exist: taken as the output, as -o)`);
      return single(inputs[1]);
    }
    const hint = inputs.length === 2 ? `; both paths exist, so "${inputs[1]}" was taken as a second input` : '';
    throw new UsageError(`give -o OUTPUT (one input) or --out-dir DIR${hint}`);
  }
  if (existsSync(outDir) && !statSync(outDir).isDirectory())
    throw new UsageError(`--out-dir ${outDir} is a file, not a folder`);
  if (!outDir) throw new UsageError('--out-dir needs a folder');
  const outputName = (input: string) =>
    extension ? basename(input).replace(/\.[^.]*$/, '') + extension : basename(input);
  // Two inputs of one name would write one output, the second over the first (names compared
  // without case: one file on case-insensitive file systems).
  const byName = new Map<string, string>();
  for (const input of inputs) {
    const name = outputName(input);
    const other = byName.get(name.toLowerCase());
    if (other !== undefined)
      throw new UsageError(
        resolve(other) === resolve(input)
          ? `${input} is given twice`
          : `${other} and ${input} would both be written to ${join(outDir, name)}; give them different names or run them apart`,
      );
    byName.set(name.toLowerCase(), input);
  }
  makeFolder(outDir, 'the --out-dir folder');
  const parallel = Math.min(jobs ?? availableParallelism(), inputs.length);
  const failed: string[] = [];
  // With --json, stdout holds the JSON lines alone: the batch's own lines go to stderr.
  const say = opts.json ? io.err : io.out;
  const run = async (input: string) => {
    const name = outputName(input);
    // Files in parallel: each helper bake fits on one thread unless told otherwise (the cores are taken).
    const threads = command === 'bake' && opts.as !== 'morphs' && parallel > 1 ? { threads: opts.threads ?? 1 } : {};
    const job: BatchJob = { command, input, output: join(outDir, name), opts: { ...opts, ...threads } };
    const start = performance.now();
    let error: string | undefined;
    if (parallel > 1) {
      trackOutputWrittenElsewhere(job.output, true);
      const r = await onWorker(job).finally(() => trackOutputWrittenElsewhere(job.output, false));
      r.out.forEach(io.out);
      r.err.forEach(io.err);
      if (r.error !== undefined && !r.input) throw new Error(`${input}: ${r.error}`);
      error = r.error;
    } else {
      try {
        await runBatchCommand(io, job);
      } catch (e) {
        if (!(e instanceof CorskinError)) throw e;
        error = e.message;
      }
    }
    if (error === undefined)
      say(`ok      ${input} → ${job.output} (${((performance.now() - start) / 1000).toFixed(2)} s)`);
    else {
      failed.push(input);
      io.err(`corskin: error: failed: ${error}`);
    }
  };
  const queue = [...inputs];
  await Promise.all(
    Array.from({ length: Math.max(1, parallel) }, async () => {
      for (let input = queue.shift(); input !== undefined; input = queue.shift()) await run(input);
    }),
  );
  say(
    `${inputs.length - failed.length} of ${inputs.length} files done${failed.length ? `, ${failed.length} failed` : ''}`,
  );
  if (failed.length) throw new CorskinError(`${failed.length} of ${inputs.length} files failed: ${failed.join(', ')}`);
}
