/**
 * Time of the helper-joint bake (`corskin bake --as helpers`, Le & Deng 2012's skinning
 * decomposition): the whole command in fresh processes, its fit in the command's own thread
 * (`--threads 1`) and on two worker threads,
 * the runs alternated so that the machine's drift falls on both sides; medians.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { median } from './frames.js';

/** One character's bake times. */
export interface BakeRow {
  asset: string;
  method: string;
  /** Samples fitted (from the command's report). */
  samples: number;
  /** Median wall time of the command, s, with its fit on 1 and on 2 threads. */
  oneThreadSeconds: number;
  twoThreadSeconds: number;
  /** Whether the two files are byte-identical (they must be). */
  identical: boolean;
}

/**
 * Bakes `file` with `method` as helpers `reps` times per thread count, alternating.
 * @param bin the corskin CLI script; tmp a folder for the outputs
 */
export function measureHelperBake(
  asset: string,
  file: string,
  method: string,
  reps: number,
  bin: string,
  tmp: string,
): BakeRow {
  const seconds: Record<number, number[]> = { 1: [], 2: [] };
  let samples = 0;
  for (let r = 0; r < reps; r++)
    for (const threads of [1, 2]) {
      const out = join(tmp, `bake-${threads}.glb`);
      const start = performance.now();
      const report = execFileSync(
        'node',
        [bin, 'bake', file, '--method', method, '--as', 'helpers', '--threads', String(threads), '-o', out, '--force'],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
      );
      seconds[threads].push((performance.now() - start) / 1000);
      samples = Number(/([\d,]+) samples/.exec(report)?.[1].replace(/,/g, '') ?? 0);
    }
  const identical = readFileSync(join(tmp, 'bake-1.glb')).equals(readFileSync(join(tmp, 'bake-2.glb')));
  return {
    asset,
    method,
    samples,
    oneThreadSeconds: median(seconds[1]),
    twoThreadSeconds: median(seconds[2]),
    identical,
  };
}
