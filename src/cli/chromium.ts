/**
 * Chromium for `corskin render`, started by corskin itself rather than by Playwright's `launch`:
 * with its profile in a folder of ours and its process id known from the first moment, so that a
 * command stopped by a signal leaves nothing behind. Playwright's launch makes the profile in the
 * system's temporary folder and removes it on `close()`, which a command stopped on its worker
 * thread never reaches; and Chromium, alive until the process exits, went on writing into the
 * profile while it was being removed.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { CorskinError } from '../core/errors.js';
import { createTempFolder, removeStaged } from '../io/files.js';
import type { Browser, BrowserType } from 'playwright-core';
import type { Io } from './ui.js';

/** A running Chromium, connected to, and how to stop it. */
export interface StartedChromium {
  browser: Browser;
  /** Disconnects, stops Chromium and removes its folder. */
  stop: () => Promise<void>;
}

/** How long Chromium may take to say where its DevTools endpoint is. */
const START_TIMEOUT_MS = 60_000;

/**
 * Starts Chromium headless with `args` and connects `chromium` (Playwright's, over the DevTools
 * protocol) to it: its profile, and Playwright's artifacts folder, in a new temporary folder
 * (removed by a signal handler, or by `stop`); Chromium the leader of its own process group,
 * told to `io.spawned` (a stopped command's main thread kills the group before it removes the
 * folder).
 * @throws CorskinError when Chromium does not start or does not say where its DevTools endpoint
 *   is within a minute (the folder removed, the process killed); as Playwright's
 *   `connectOverCDP` (the same)
 */
export async function startChromium(
  io: Io,
  chromium: BrowserType,
  executablePath: string,
  args: readonly string[],
): Promise<StartedChromium> {
  const folder = createTempFolder('corskin-render-');
  const child = spawn(
    executablePath,
    // What Playwright's launch would add that the pictures depend on, then the endpoint and profile.
    [...args, '--hide-scrollbars', '--force-color-profile=srgb', '--remote-debugging-port=0', `--user-data-dir=${join(folder, 'profile')}`, 'about:blank'], // prettier-ignore
    { detached: true, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, TMPDIR: folder } },
  );
  const pid = child.pid;
  if (pid !== undefined) io.spawned?.(pid, true);
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  void exited.then(() => pid !== undefined && io.spawned?.(pid, false));
  let browser: Browser | undefined;
  const stop = async () => {
    await browser?.close();
    if (child.exitCode === null && child.signalCode === null && pid !== undefined) {
      try {
        process.kill(-pid, 'SIGKILL'); // Chromium and the processes it started (renderer, GPU)
      } catch {
        // gone already
      }
      await exited;
    }
    removeStaged(folder);
  };
  let endpoint: string;
  try {
    endpoint = await new Promise<string>((resolve, reject) => {
      let said = '';
      const timer = setTimeout(() => reject(new Error('no DevTools endpoint after 60 s')), START_TIMEOUT_MS);
      child.once('error', (e) => (clearTimeout(timer), reject(e)));
      child.once('exit', (code, signal) => (clearTimeout(timer), reject(new Error(`exited (${signal ?? `code ${code}`})${said.trim() ? `: ${said.trim().split('\n').at(-1)}` : ''}`)))); // prettier-ignore
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (text: string) => {
        said = (said + text).slice(-4096);
        const found = /DevTools listening on (ws:\/\/\S+)/.exec(said);
        if (found) {
          clearTimeout(timer);
          resolve(found[1]);
        }
      });
    });
  } catch (e) {
    await stop();
    const first = String((e as Error).message ?? e).split('\n')[0];
    throw new CorskinError(`Chromium (${executablePath}) did not start: ${first} (set CORSKIN_CHROMIUM to another Chromium)`); // prettier-ignore
  }
  try {
    browser = await chromium.connectOverCDP(endpoint, { artifactsDir: join(folder, 'artifacts') });
  } catch (e) {
    await stop();
    throw e;
  }
  return { browser, stop };
}
