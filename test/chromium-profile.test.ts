/**
 * What a signal handler finds of the Chromium `corskin render` started: by its command line
 * before it has locked its profile (an independent check stopped renders during Chromium's start
 * and found its profile written on after the clean-up, in 3 of 17 runs), and by the lock.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stopChromiumIn, waitGone } from '../src/cli/chromium-profile.js';
import { scratch } from './helpers/data.js';

const tmp = scratch();
afterAll(tmp.cleanup);

/** A process that idles with `args` on its command line (as a Chromium starting with its profile flag). */
function idler(args: string[]) {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)', '--', ...args], { stdio: 'ignore' });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_, signal) => resolve(signal)));
  return { child, exited };
}

describe.skipIf(process.platform !== 'linux')('stopChromiumIn', () => {
  it('kills a process started with a profile inside the folder, before any lock, and waitGone sees it go', async () => {
    const folder = join(tmp.dir, 'render-a');
    const other = join(tmp.dir, 'render-a-sibling'); // a prefix of the folder's name is not inside it
    const { child, exited } = idler([`--user-data-dir=${join(folder, 'profile-x')}`]);
    const bystander = idler([`--user-data-dir=${join(other, 'profile-y')}`]);
    await new Promise((r) => setTimeout(r, 300));
    const stopped = stopChromiumIn(folder);
    expect(stopped).toEqual([child.pid]);
    expect(await exited).toBe('SIGKILL');
    waitGone(stopped, 1000);
    expect(bystander.child.exitCode).toBeNull();
    bystander.child.kill();
    await bystander.exited;
  });

  it('kills the process a profile lock names', async () => {
    const folder = join(tmp.dir, 'render-b');
    mkdirSync(join(folder, 'profile'), { recursive: true });
    const { child, exited } = idler([]);
    symlinkSync(`host-${child.pid}`, join(folder, 'profile', 'SingletonLock'));
    expect(stopChromiumIn(folder)).toEqual([child.pid]);
    expect(await exited).toBe('SIGKILL');
  });

  it('finds nothing in a folder no process uses', () => {
    expect(stopChromiumIn(join(tmp.dir, 'none'))).toEqual([]);
  });
});
