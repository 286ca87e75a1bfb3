/**
 * The Chromium that `corskin render` starts (through Playwright, with its profile in a temporary
 * folder of corskin's), as a signal handler finds it: the process its profile's lock names.
 *
 * @module
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Kills the Chromium whose profile is a folder directly inside `folder`, if any is running: the
 * process its profile's `SingletonLock` names (a link to `HOST-PID`, which Chromium makes as it
 * starts, on Linux and macOS), with its process group (Playwright starts Chromium as a group's
 * leader: renderer and GPU processes too). For a signal handler about to remove `folder`, where
 * a Chromium alive until the process exits would write on into it.
 * @returns whether it signalled a process (then give it a moment to be gone)
 */
export function stopChromiumIn(folder: string): boolean {
  let stopped = false;
  let entries: string[];
  try {
    entries = readdirSync(folder);
  } catch {
    return false;
  }
  for (const entry of entries) {
    let pid: number;
    try {
      pid = Number(/-(\d+)$/.exec(readlinkSync(join(folder, entry, 'SingletonLock')))?.[1]);
    } catch {
      continue; // not a profile, or no lock (yet)
    }
    if (!(pid > 1)) continue;
    for (const target of [-pid, pid])
      try {
        process.kill(target, 'SIGKILL');
        stopped = true;
        break;
      } catch {
        // not a group leader, or gone already
      }
  }
  return stopped;
}
