/**
 * Terminal output of the CLI: results to stdout, progress, warnings and errors to stderr.
 * A progress bar is drawn only when stderr is a terminal.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import cliProgress from 'cli-progress';

/** Where the CLI writes; injectable so tests can capture it. */
export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Whether progress bars may be drawn. */
  tty: boolean;
  /** `--verbose`: say the notes that are left out otherwise (details, repeats). */
  verbose?: boolean;
  /** Draws progress bars elsewhere (a CLI run on a worker thread: the main thread draws them). */
  bar?: (label: string) => ProgressBar;
}

/** A progress callback `(done, total)` and `stop()` to clear the bar. */
export interface ProgressBar {
  update: (done: number, total: number) => void;
  stop: () => void;
}

/**
 * Warns that `flag` was given where it does nothing: it applies to `scope` and is ignored `when`
 * ("with --as morphs"; empty: in every case here), naming `file` where given.
 */
export function warnIgnored(io: Io, flag: string, scope: string, when: string, file?: string): void {
  io.err(`corskin: warning: ${file ? `${file}: ` : ''}${flag} applies to ${scope}; ignored${when ? ` ${when}` : ''}`);
}

/** The process's own stdout/stderr. */
export const processIo: Io = {
  out: (line) => process.stdout.write(line + '\n'),
  err: (line) => process.stderr.write(line + '\n'),
  tty: !!process.stderr.isTTY,
};

/**
 * A progress callback `(done, total)` that draws a bar labelled `label` on a TTY (nothing
 * otherwise), and `stop()` to clear it.
 */
export function progress(io: Io, label: string): ProgressBar {
  if (!io.tty) return { update: () => {}, stop: () => {} };
  if (io.bar) return io.bar(label);
  const bar = new cliProgress.SingleBar(
    {
      format: `${label} [{bar}] {percentage}% | {value}/{total} | ETA {eta}s`,
      stream: process.stderr,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update: (done, total) => {
      if (!started) {
        bar.start(total, 0);
        started = true;
      }
      bar.update(done);
    },
    stop: () => {
      if (started) bar.stop();
      started = false;
    },
  };
}

/** Formats a table with left-aligned first column and right-aligned others. */
export function formatTable(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, c) => Math.max(...cells.map((r) => r[c].length)));
  return cells
    .map((r, i) => {
      const line = r.map((x, c) => (c === 0 ? x.padEnd(widths[c]) : x.padStart(widths[c]))).join('  ');
      return i === 0 ? `${line}\n${widths.map((w) => '-'.repeat(w)).join('  ')}` : line;
    })
    .join('\n');
}

/**
 * `--resources`: the CPU time and peak resident memory of this process so far, one line. Peak
 * memory is read on Linux from /proc/self/status (VmHWM): getrusage's maxRSS survives exec, so a
 * process started from a large parent (fork + exec) would report the parent's size.
 */
export function resourceLine(): string {
  const r = process.resourceUsage();
  let peakMB = r.maxRSS / 1024;
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) peakMB = Number(m[1]) / 1024;
  } catch {
    // not Linux
  }
  return `CPU ${((r.userCPUTime + r.systemCPUTime) / 1e6).toFixed(2)} s, peak RSS ${peakMB.toFixed(0)} MB`;
}
