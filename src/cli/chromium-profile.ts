/**
 * The Chromium that `corskin render` starts (through Playwright, with its profile in a temporary
 * folder of corskin's), as a signal handler finds it: the processes started with a profile in
 * that folder (Linux: their command lines), and the process its profile's lock names.
 *
 * @module
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, sep } from 'node:path';

/**
 * Kills the Chromium whose profile is a folder directly inside `folder`, if any is running, with
 * its process group (Playwright starts Chromium as a group's leader: renderer and GPU processes
 * too): on Linux every process whose command line gives it a `--user-data-dir` inside `folder`
 * (found from its start, before it has locked its profile), and everywhere the process its
 * profile's `SingletonLock` names (a link to `HOST-PID`, which Chromium makes as it starts, on
 * Linux and macOS). For a signal handler about to remove `folder`, where a Chromium alive until
 * the process exits would write on into it.
 * @returns the process ids it signalled (then wait for them to be gone: {@link waitGone})
 */
export function stopChromiumIn(folder: string): number[] {
  const pids = new Set([...startedIn(folder), ...lockedIn(folder)]);
  const stopped: number[] = [];
  for (const pid of pids)
    for (const target of [-pid, pid])
      try {
        process.kill(target, 'SIGKILL');
        stopped.push(pid);
        break;
      } catch {
        // not a group leader, or gone already
      }
  return stopped;
}

/** Processes whose command line has `--user-data-dir=` a path inside `folder` (Linux /proc; elsewhere none). */
function startedIn(folder: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const flag = `--user-data-dir=${join(folder, '.')}${sep}`;
  return entries
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        return readFileSync(`/proc/${e}/cmdline`, 'utf8')
          .split('\0')
          .some((a) => a.startsWith(flag));
      } catch {
        return false; // gone meanwhile, or not ours to read
      }
    })
    .map(Number);
}

/** The processes the `SingletonLock` of each profile directly inside `folder` names. */
function lockedIn(folder: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync(folder);
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const entry of entries)
    try {
      const pid = Number(/-(\d+)$/.exec(readlinkSync(join(folder, entry, 'SingletonLock')))?.[1]);
      if (pid > 1) pids.push(pid);
    } catch {
      // not a profile, or no lock (yet)
    }
  return pids;
}

/**
 * Waits (blocking, for a signal handler) until each of `pids` has exited — gone, or a zombie
 * (Linux) — or `ms` have passed.
 */
export function waitGone(pids: readonly number[], ms: number): void {
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
    } catch {
      return false;
    }
    try {
      return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return true; // no /proc: alive as far as we can tell
    }
  };
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (const end = performance.now() + ms; pids.some(alive) && performance.now() < end;) Atomics.wait(pause, 0, 0, 10);
}
