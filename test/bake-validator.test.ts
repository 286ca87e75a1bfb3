/**
 * `corskin bake` never leaves a file the glTF validator finds errors in that its input does not
 * have: such a bake fails (exit 1, the file named) and removes what it wrote. The validator is
 * replaced here by one that finds an error in the output only, since a real bake adds none.
 */
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runCli } from './helpers/cli.js';
import { CESIUM_MAN, scratch } from './helpers/data.js';

const tmp = scratch();
afterAll(() => tmp.cleanup());

vi.mock('../src/io/validate.js', async (original) => {
  const actual = await original<typeof import('../src/io/validate.js')>();
  return {
    ...actual,
    validatorErrors: async (path: string) =>
      path === CESIUM_MAN
        ? []
        : [{ code: 'ACCESSOR_INVALID_FLOAT', message: 'Invalid float', severity: 0, pointer: '/accessors/3' }],
  };
});

describe('a bake the validator finds new errors in', () => {
  for (const ext of ['glb', 'gltf'])
    it(`fails and leaves no file (.${ext})`, async () => {
      const dir = join(tmp.dir, ext);
      mkdirSync(dir);
      const out = join(dir, `baked.${ext}`);
      const r = await runCli('bake', CESIUM_MAN, '--method', 'dqs', '--as', 'helpers', '--helpers', '1', '--rate', '2', '-o', out); // prettier-ignore
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(out);
      expect(r.stderr).toContain('ACCESSOR_INVALID_FLOAT ×1 (first at /accessors/3)');
      expect(r.stderr).toContain('nothing written');
      expect(r.stdout).not.toContain('wrote ');
      expect(existsSync(out)).toBe(false);
      // No resource of a .gltf left either.
      expect(readdirSync(dir)).toEqual([]);
    });
});
