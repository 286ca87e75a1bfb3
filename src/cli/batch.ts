/**
 * Batch runs for pipelines: `corskin precompute|deform A.glb B.glb … --out-dir DIR` processes
 * every input, one after the other, continuing past a failing file, with a line per file and a
 * summary; any failure makes the run fail (exit 1).
 *
 * @module
 */
import { basename, join } from 'node:path';
import { CorskinError } from '../core/errors.js';
import type { Io } from './ui.js';

/** Bad usage found after commander's parsing (the CLI exits with 2). */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * Runs `job(input, output)` for each input. With one input and `-o`, just that; otherwise every
 * output goes to `outDir` under its input's file name (`extension`, when given, replaces it).
 * @throws UsageError for neither or both of -o and --out-dir, or -o with several inputs
 * @throws CorskinError after the batch when any file failed
 */
export async function runBatch(
  io: Io,
  inputs: string[],
  o: { output?: string; outDir?: string },
  job: (input: string, output: string) => Promise<void>,
  extension?: string,
): Promise<void> {
  if (o.output !== undefined && o.outDir !== undefined) throw new UsageError('give either -o or --out-dir, not both');
  if (o.output !== undefined) {
    if (inputs.length !== 1) throw new UsageError(`-o names one output for ${inputs.length} inputs; use --out-dir DIR`);
    return job(inputs[0], o.output);
  }
  if (o.outDir === undefined) throw new UsageError('give -o OUTPUT (one input) or --out-dir DIR');
  const failed: string[] = [];
  for (const input of inputs) {
    const name = extension ? basename(input).replace(/\.[^.]*$/, '') + extension : basename(input);
    const output = join(o.outDir, name);
    const start = performance.now();
    try {
      await job(input, output);
      io.out(`ok      ${input} → ${output} (${((performance.now() - start) / 1000).toFixed(2)} s)`);
    } catch (e) {
      if (!(e instanceof CorskinError)) throw e;
      failed.push(input);
      io.err(`failed  ${e.message}`);
    }
  }
  io.out(
    `${inputs.length - failed.length} of ${inputs.length} files done${failed.length ? `, ${failed.length} failed` : ''}`,
  );
  if (failed.length) throw new CorskinError(`${failed.length} of ${inputs.length} files failed: ${failed.join(', ')}`);
}
