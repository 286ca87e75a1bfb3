/**
 * `corskin bake` on transparent huge pages (src/cli/huge-pages.ts): on Linux with glibc ≥ 2.35
 * the bake runs in a child process whose `GLIBC_TUNABLES` asks glibc's malloc for huge pages
 * (the child's memory on them, where the kernel's transparent huge pages are on); a user's own
 * `glibc.malloc.hugetlb` is kept; the child stops, leaving no output, when its parent is killed
 * outright (no signal passed on). The signals passed on are `interrupts.test.ts`'s.
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { wantsHugePages } from '../src/cli/huge-pages.js';
import { ROOT, scratch, SHARED } from './helpers/data.js';

const tmp = scratch();
afterAll(tmp.cleanup);

/** glibc's version as `ldd --version` prints it (not as Node reports it), or undefined. */
function lddGlibc(): [number, number] | undefined {
  try {
    const line = execFileSync('ldd', ['--version'], { encoding: 'utf8' }).split('\n')[0];
    const m = /GLIBC[^)]*\)\s+(\d+)\.(\d+)/i.exec(line) ?? /(\d+)\.(\d+)\s*$/.exec(line);
    return m ? [Number(m[1]), Number(m[2])] : undefined;
  } catch {
    return undefined;
  }
}

/** The process ids whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return Number(readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** `corskin bake` of a copy of shared asset `asset` (DQS helpers) into `out`, in a process of its own. */
function startBake(asset: string, out: string, env: NodeJS.ProcessEnv = {}) {
  const input = join(tmp.dir, asset.replace('/', '-'));
  copyFileSync(join(SHARED, asset), input);
  return spawn(process.execPath, [join(ROOT, 'bin/corskin.js'), 'bake', input, '--method', 'dqs', '--as', 'helpers', '-o', out], { stdio: 'ignore', env: { ...process.env, ...env } }); // prettier-ignore
}

const glibc = process.platform === 'linux' ? lddGlibc() : undefined;
/** The kernel's transparent huge pages mode, read here (not through the module). */
const mode = (() => {
  try {
    return /\[(\w+)\]/.exec(readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8'))?.[1];
  } catch {
    return undefined;
  }
})();
const offered =
  !!glibc && (glibc[0] > 2 || (glibc[0] === 2 && glibc[1] >= 35)) && (mode === 'always' || mode === 'madvise');

describe('huge pages for the bake', () => {
  it('are asked for exactly where glibc ≥ 2.35 runs Linux, unless the user set glibc.malloc.hugetlb', () => {
    expect(wantsHugePages({})).toBe(offered);
    expect(wantsHugePages({ GLIBC_TUNABLES: 'glibc.malloc.check=0' })).toBe(offered);
    expect(wantsHugePages({ GLIBC_TUNABLES: 'glibc.malloc.hugetlb=0' })).toBe(false);
    expect(wantsHugePages({ GLIBC_TUNABLES: 'glibc.malloc.check=0:glibc.malloc.hugetlb=1' })).toBe(false);
  });

  it.skipIf(!offered)(
    'the bake runs in a child on huge pages, which stops and leaves nothing when its parent is killed outright',
    async () => {
      const out = join(tmp.dir, 'out.glb');
      const parent = startBake('characters/Ybot.glb', out, { GLIBC_TUNABLES: 'glibc.malloc.check=0' });
      let child: number | undefined;
      try {
        for (let polls = 0; child === undefined && polls < 500; polls++) {
          await new Promise((r) => setTimeout(r, 10));
          child = childrenOf(parent.pid!)[0];
        }
        expect(child, 'no child process started').toBeDefined();
        // A few seconds in, the samples are taken: on huge pages where the kernel offers them.
        await new Promise((r) => setTimeout(r, 4000));
        const huge = Number(/AnonHugePages:\s+(\d+)/.exec(readFileSync(`/proc/${child}/smaps_rollup`, 'utf8'))?.[1]);
        expect(huge, 'kB on huge pages').toBeGreaterThan(100_000);
      } finally {
        parent.kill('SIGKILL');
      }
      let alive = true;
      for (let polls = 0; alive && polls < 300; polls++) {
        await new Promise((r) => setTimeout(r, 10));
        alive = existsSync(`/proc/${child}`) && !readFileSync(`/proc/${child}/stat`, 'utf8').includes(') Z ');
      }
      expect(alive, 'the child ran on for 3 s after its parent was killed').toBe(false);
      expect(existsSync(out)).toBe(false);
      expect(readdirSync(tmp.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    },
    90_000,
  );

  it.skipIf(!offered)(
    'a parent killed outright while its child starts: the child stops all the same, leaving nothing',
    async () => {
      const out = join(tmp.dir, 'early.glb');
      for (const ms of [150, 250, 350, 450]) {
        const parent = startBake('gltf/CesiumMan.glb', out);
        await new Promise((r) => setTimeout(r, ms));
        const children = childrenOf(parent.pid!);
        parent.kill('SIGKILL');
        // CesiumMan's bake takes about 5 s: a child left running would write its file by then.
        await new Promise((r) => setTimeout(r, 8000));
        for (const child of children) expect(existsSync(`/proc/${child}`), `${ms} ms: child ${child} still running`).toBe(false); // prettier-ignore
        expect(existsSync(out), `${ms} ms: the output was written`).toBe(false);
        expect(readdirSync(tmp.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      }
    },
    180_000,
  );
});
