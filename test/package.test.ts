/**
 * The package's boundary as a user meets it: require() says the package is ESM-only, and the
 * source maps carry their sources.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/data.js';

describe('the corskin package', () => {
  it.each(['corskin', 'corskin/three', 'corskin/three/webgpu'])(
    'require(%s) says it is an ES module and how to import it',
    (name) => {
      const out = execFileSync(
        process.execPath,
        ['-e', `try { require(${JSON.stringify(name)}) } catch (e) { console.log(e.message) }`],
        {
          cwd: ROOT,
          encoding: 'utf8',
        },
      );
      expect(out).toContain("await import('corskin')");
    },
  );

  it('ships source maps with their sources', () => {
    const map = JSON.parse(readFileSync(join(ROOT, 'dist/deformers/cor.js.map'), 'utf8'));
    expect(map.sourcesContent?.[0]).toContain('export function deformCor');
  });
});
