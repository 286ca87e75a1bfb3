/**
 * `bin/corskin.js`, the command's entry point, in a checkout that is not built (or while a build
 * empties dist/): a clear message and exit 1, not Node's stack trace.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, scratch } from './helpers/data.js';

const tmp = scratch();
afterAll(tmp.cleanup);

describe('bin/corskin.js', () => {
  it('says the CLI is not built, and how to build it, where dist/ is missing', () => {
    // A copy of the package without dist/: its bin and (linked) dependencies alone.
    const pkg = join(tmp.dir, 'unbuilt');
    mkdirSync(join(pkg, 'bin'), { recursive: true });
    copyFileSync(join(ROOT, 'bin/corskin.js'), join(pkg, 'bin/corskin.js'));
    copyFileSync(join(ROOT, 'package.json'), join(pkg, 'package.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'));
    const r = spawnSync(process.execPath, [join(pkg, 'bin/corskin.js'), '--version'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`corskin: the compiled CLI is missing (${join(pkg, 'dist/cli/process.js')}): run npm run build in ${pkg}`); // prettier-ignore
    expect(r.stderr).not.toContain('ERR_MODULE_NOT_FOUND');
    expect(r.stdout).toBe('');
  });
});
