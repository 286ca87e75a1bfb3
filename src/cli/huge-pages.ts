/**
 * The bake on transparent huge pages. A helper bake holds every sample of every clip (Ybot's
 * 811 samples and as many half-way: 1.6 GB of posed positions and distances), and touching that
 * much fresh memory in 4 KB pages costs a page fault each — about 2.7 ns a byte on this project's
 * 2-core Linux VMs, 5–7 s of Ybot's bake — and TLB misses after. glibc's malloc, which Node's
 * array buffers come from, asks the kernel for huge pages on its own mappings when its
 * `glibc.malloc.hugetlb=1` tunable is set (glibc ≥ 2.35, Linux with transparent huge pages in
 * `madvise` or `always` mode); a tunable is read only as the process starts, so the command runs
 * again in a child process with it set (not where transparent huge pages are off, nor under
 * `--inspect` or a profiler's flag, which belong to the process the user started). Measured,
 * Ybot's CoR helper bake on 2 threads: 14.7 s against 17.7 s in 4 KB pages (medians of 3,
 * alternated; docs/bake.md).
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';

/** The environment variable glibc reads its tunables from, and the one set. */
const VARIABLE = 'GLIBC_TUNABLES';
const TUNABLE = 'glibc.malloc.hugetlb=1';
/** Set in the child (so that it stops with its parent, {@link stopsWithParent}). */
const CHILD = 'CORSKIN_HUGE_PAGES_CHILD';

/**
 * Whether to run the command again on huge pages: on Linux with glibc 2.35 or later and
 * transparent huge pages in `always` or `madvise` mode, without `--inspect` or a profiler's flag,
 * and where `GLIBC_TUNABLES` does not set `glibc.malloc.hugetlb` already (the user's own value,
 * 0 among them, is kept: `GLIBC_TUNABLES=glibc.malloc.hugetlb=0` runs without).
 */
export function wantsHugePages(env: NodeJS.ProcessEnv = process.env): boolean {
  if (process.platform !== 'linux' || /(^|:)glibc\.malloc\.hugetlb=/.test(env[VARIABLE] ?? '')) return false;
  if (process.execArgv.some((a) => /^--(inspect|cpu-prof|heap-prof|prof)/.test(a))) return false;
  if (!['always', 'madvise'].includes(transparentHugePages() ?? '')) return false;
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  const [major, minor] = (header?.glibcVersionRuntime ?? '0.0').split('.').map(Number);
  return major > 2 || (major === 2 && minor >= 35);
}

/** The kernel's transparent huge pages mode (`always`, `madvise`, `never`), or undefined where it has none. */
export function transparentHugePages(): string | undefined {
  try {
    return /\[(\w+)\]/.exec(readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

/**
 * Runs the command line `argv` (as `process.argv`) in a child Node process with
 * `glibc.malloc.hugetlb=1` added to `GLIBC_TUNABLES`, its standard streams this process's;
 * SIGINT, SIGTERM and SIGHUP are passed on (the child stops as the command does, `process.ts`), and the
 * child stops too if this process is killed outright (the IPC channel closes).
 * @returns the child's exit code (128 + the signal number where a signal ended it)
 */
export function relaunchOnHugePages(argv: string[]): Promise<number> {
  const tunables = [process.env[VARIABLE], TUNABLE].filter(Boolean).join(':');
  const child = spawn(process.execPath, [...process.execArgv, ...argv.slice(1)], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, [VARIABLE]: tunables, [CHILD]: '1' },
  });
  let passedOn = false;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
    process.on(signal, () => {
      passedOn = true;
      child.kill(signal);
    });
  return new Promise((resolve) => {
    child.on('error', (e) => {
      process.stderr.write(`corskin: internal error: cannot start the command on huge pages (${e.message})\n`);
      resolve(1);
    });
    child.on('exit', (code, signal) => {
      // Killed from outside (out of memory, say): said, as a shell would say it of this process.
      if (signal && !passedOn) process.stderr.write(`corskin: the command's process was killed (${signal})\n`);
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0));
    });
  });
}

/**
 * In a child of {@link relaunchOnHugePages}: calls `stop` when the parent is gone (its IPC
 * channel closed: killed outright, where no signal was passed on). Elsewhere nothing.
 */
export function stopsWithParent(stop: () => void): void {
  if (process.env[CHILD] !== '1') return;
  delete process.env[CHILD]; // not for any process this one starts
  if (!process.channel || !process.connected) return stop(); // the parent already gone (during start-up)
  process.channel.unref();
  process.once('disconnect', stop);
}
