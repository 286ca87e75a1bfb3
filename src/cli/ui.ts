/**
 * Terminal output of the CLI: results to stdout, progress, warnings and errors to stderr.
 * A progress bar is drawn when stderr is a terminal; otherwise (a log, a pipe) long work says
 * where it is in a line every {@link PROGRESS_LINE_EVERY_S} seconds.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import cliProgress from 'cli-progress';

/** `n` with thousands separators: "1,270". */
export const num = (n: number) => n.toLocaleString('en-US');

/** `n` things, singular or plural, with thousands separators: "1 helper joint", "1,270 vertices". */
export const count = (n: number, one: string, many = `${one}s`) => `${num(n)} ${n === 1 ? one : many}`;

/** Whether `argv` (as `process.argv`) asks for `-q`/`--quiet` anywhere on the line. */
export const quietFlag = (argv: readonly string[]) => argv.slice(2).some((a) => a === '-q' || a === '--quiet');

/** Where the CLI writes; injectable so tests can capture it. */
export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Whether progress bars may be drawn (else long work prints progress lines, `err`). */
  tty: boolean;
  /** Without a terminal, whether long work prints progress lines (default true; false where `err` is held until the work ends). */
  progressLines?: boolean;
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

/** Seconds between two progress lines where stderr is not a terminal (none for shorter work). */
export const PROGRESS_LINE_EVERY_S = 10;

/**
 * A progress callback `(done, total)` that draws a bar labelled `label` on a TTY, and `stop()` to
 * clear it. Elsewhere (a log, a pipe) it prints, through `io.err`, a line such as
 * "corskin: CesiumMan: helpers 25% (50/200), about 30s left" every {@link PROGRESS_LINE_EVERY_S}
 * seconds of the work (so none for shorter work, and none at its end).
 * @param now the clock, in milliseconds (for tests)
 */
export function progress(io: Io, label: string, now: () => number = () => performance.now()): ProgressBar {
  if (!io.tty && io.progressLines === false) return { update: () => {}, stop: () => {} };
  if (!io.tty) {
    let start: number | undefined;
    let last = 0;
    return {
      update: (done, total) => {
        const t = now();
        if (start === undefined) start = last = t;
        if (t - last < 1000 * PROGRESS_LINE_EVERY_S || !(done < total)) return;
        last = t;
        const left = remainingTime((t - start) / 1000, done, total);
        io.err(`corskin: ${label} ${Math.floor((100 * done) / total)}% (${num(done)}/${num(total)})${left === '…' ? '' : `, about ${left} left`}`); // prettier-ignore
      },
      stop: () => (start = undefined),
    };
  }
  if (io.bar) return io.bar(label);
  const bar = new cliProgress.SingleBar(
    {
      format: `${label} [{bar}] {percentage}% | {value}/{total} | ETA {remaining}`,
      formatValue: (v, options, type) => (type === 'value' || type === 'total' ? num(Number(v)) : String(v)),
      stream: process.stderr,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = 0;
  return {
    update: (done, total) => {
      if (!started) {
        bar.start(total, 0, { remaining: '…' });
        started = performance.now();
      }
      bar.setTotal(total);
      bar.update(done, { remaining: remainingTime((performance.now() - started) / 1000, done, total) });
    },
    stop: () => {
      if (started) bar.stop();
      started = 0;
    },
  };
}

/**
 * The time a piece of work has left, as a progress bar shows it: the time so far (`elapsed`,
 * seconds) times the share left over the share done — the whole run's rate, steadier than the last
 * few steps' where steps differ in cost — or "…" until 1% and a second are done.
 */
export function remainingTime(elapsed: number, done: number, total: number): string {
  if (!(done > 0 && total > 0 && done >= 0.01 * total && elapsed >= 1)) return '…';
  const left = Math.max(0, Math.round((elapsed * (total - done)) / done));
  return left >= 60 ? `${Math.floor(left / 60)}m${String(left % 60).padStart(2, '0')}s` : `${left}s`;
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
