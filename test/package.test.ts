/**
 * The package's boundary as a user meets it: require() loads its ES modules, and the source maps
 * carry their sources.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/data.js';

describe('the corskin package', () => {
  // Node loads an ES module through require() from 20.19 (corskin's oldest) and 22.12: CommonJS
  // code gets the same module as import.
  it.each(['corskin', 'corskin/gltf', 'corskin/node', 'corskin/evaluation', 'corskin/three', 'corskin/three/webgpu'])(
    'require(%s) gives the module import gives',
    (name) => {
      const out = execFileSync(
        process.execPath,
        [
          '-e',
          `const r = require(${JSON.stringify(name)}); import(${JSON.stringify(name)}).then((m) => console.log(JSON.stringify([Object.keys(r), Object.keys(m), Object.keys(m).every((k) => r[k] === m[k])])))`,
        ],
        { cwd: ROOT, encoding: 'utf8' },
      );
      const [required, imported, same] = JSON.parse(out) as [string[], string[], boolean];
      expect(imported.length).toBeGreaterThan(0);
      expect(required).toEqual(imported);
      expect(same).toBe(true);
    },
  );

  it('ships source maps with their sources', () => {
    const map = JSON.parse(readFileSync(join(ROOT, 'dist/deformers/cor.js.map'), 'utf8'));
    expect(map.sourcesContent?.[0]).toContain('export function deformCor');
  });
});

/** Bundles `entry` (a file of dist/) for the browser with esbuild; returns its errors and its input files. */
async function bundle(entry: string, external: string[] = []) {
  const { build } = await import('esbuild');
  const r = await build({
    entryPoints: [join(ROOT, 'dist', entry)],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
    external,
  }).catch((e: { errors: { text: string }[] }) => ({ errors: e.errors, metafile: { inputs: {} } }));
  return { errors: r.errors.map((e) => e.text), inputs: Object.keys(r.metafile!.inputs) };
}

describe('the entries bundle for the browser with esbuild (--platform=browser)', () => {
  it('corskin: no error, and nothing from node_modules (the core has no dependencies)', async () => {
    const { errors, inputs } = await bundle('index.js');
    expect(errors).toEqual([]);
    expect(inputs.length).toBeGreaterThan(30);
    expect(inputs.filter((f) => f.includes('node_modules'))).toEqual([]);
  });

  it('corskin/three and corskin/three/webgpu: no error; only three from node_modules', async () => {
    for (const entry of ['three/index.js', 'three/nodes.js']) {
      const { errors, inputs } = await bundle(entry);
      expect(errors).toEqual([]);
      const deps = new Set(
        inputs.filter((f) => f.includes('node_modules/')).map((f) => f.split('node_modules/')[1].split('/')[0]),
      );
      expect([...deps]).toEqual(['three']);
    }
  });

  it('corskin/gltf: only glTF-Transform NodeIO’s dynamic node:fs/node:path need marking external', async () => {
    expect((await bundle('gltf.js')).errors.every((e) => /node:(fs|path)/.test(e))).toBe(true);
    expect((await bundle('gltf.js')).errors.length).toBeGreaterThan(0);
    expect((await bundle('gltf.js', ['node:fs', 'node:path'])).errors).toEqual([]);
  });
});
