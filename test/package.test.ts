/**
 * The package's boundary as a user meets it: require() says the package is ESM-only, and the
 * source maps carry their sources.
 */
import { execFileSync, spawnSync } from 'node:child_process';
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

describe('the corskin entry', () => {
  it('bundles for the browser with esbuild: no Node built-in of its own (only glTF-Transform NodeIO’s)', () => {
    const r = spawnSync(
      join(ROOT, 'node_modules/.bin/esbuild'),
      [
        join(ROOT, 'dist/index.js'),
        '--bundle',
        '--platform=browser',
        '--format=esm',
        '--outfile=/dev/null',
        '--log-level=error',
        '--color=false',
      ],
      { encoding: 'utf8' },
    );
    // Every unresolved import esbuild reports is glTF-Transform NodeIO's dynamic node:fs/node:path.
    const places = [...r.stderr.matchAll(/^\s+(\S+):\d+:\d+:$/gm)].map((m) => m[1]);
    expect(places.length).toBeGreaterThan(0);
    for (const place of places) expect(place).toContain('node_modules/@gltf-transform/core/');
  });
});
