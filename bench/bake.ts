/**
 * Time of the helper-joint bake (`corskin bake --as helpers`, Le & Deng 2012's skinning
 * decomposition): the whole command in fresh processes, its fit in the command's own thread
 * (`--threads 1`) and on two worker threads, and on two without huge pages
 * (`GLIBC_TUNABLES=glibc.malloc.hugetlb=0`: the command's memory in 4 KB pages, `src/cli/huge-pages.ts`),
 * the runs alternated so that the machine's drift falls on every side; medians.
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
  /** The same on 2 threads without huge pages (where the platform offers them: else as on them). */
  smallPagesSeconds: number;
  /** Whether the files are byte-identical (they must be). */
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
  const runs = [
    { name: 'one', threads: 1, env: process.env },
    { name: 'two', threads: 2, env: process.env },
    { name: 'small', threads: 2, env: { ...process.env, GLIBC_TUNABLES: 'glibc.malloc.hugetlb=0' } },
  ];
  const seconds: Record<string, number[]> = { one: [], two: [], small: [] };
  let samples = 0;
  for (let r = 0; r < reps; r++)
    for (const { name, threads, env } of runs) {
      const out = join(tmp, `bake-${name}.glb`);
      const start = performance.now();
      const report = execFileSync(
        'node',
        [bin, 'bake', file, '--method', method, '--as', 'helpers', '--threads', String(threads), '-o', out, '--force'],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], env },
      );
      seconds[name].push((performance.now() - start) / 1000);
      samples = Number(/([\d,]+) samples/.exec(report)?.[1].replace(/,/g, '') ?? 0);
    }
  const first = readFileSync(join(tmp, 'bake-one.glb'));
  const identical = runs.every(({ name }) => readFileSync(join(tmp, `bake-${name}.glb`)).equals(first));
  return {
    asset,
    method,
    samples,
    oneThreadSeconds: median(seconds.one),
    twoThreadSeconds: median(seconds.two),
    smallPagesSeconds: median(seconds.small),
    identical,
  };
}
