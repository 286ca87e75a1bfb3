/**
 * corskin as a three.js developer meets it: the packed package installed in a blank project,
 * pages importing `corskin`, `corskin/three` and `corskin/three/webgpu` bundled with esbuild
 * (--platform=browser), vite and webpack 5 without any corskin-specific configuration, then run
 * in Debian's headless Chromium on CesiumMan without precomputed centers of rotation: switching
 * to CoR computes them on the package's bundled Web Worker. Also measures what `npm install`
 * brings, and that the CLI works once installed as the README says.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../test/helpers/data.js';
import { openTestPage } from '../test/browser/server.js';

const work = mkdtempSync(join(tmpdir(), 'corskin-bundlers-'));
const app = join(work, 'app');
const out = join(work, 'out');
const npm = (args: string[], cwd: string) =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8' });

/** Apparent size in bytes of every file under `dir`. */
function treeSize(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = lstatSync(p);
    total += st.isDirectory() ? treeSize(p) : st.size;
  }
  return total;
}

/** A page running one bundled module (`<script type=module>` or classic, as the bundler emits). */
function page(dir: string, name: string, script: string, module: boolean) {
  writeFileSync(
    join(dir, `${name}.html`),
    `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script ${module ? 'type="module"' : 'defer'} src="./${script}"></script>`,
  );
}

const PAGES = { webgl: 'src/parity.mjs', webgpu: 'src/webgpu.mjs' } as const;

/** Each bundler builds both pages into out/<bundler>/; returns its errors and warnings. */
const BUNDLERS: Record<string, () => Promise<string[]>> = {
  async esbuild() {
    const { build } = await import('esbuild');
    const dir = join(out, 'esbuild');
    const messages: string[] = [];
    for (const [name, entry] of Object.entries(PAGES)) {
      // three.js with WebGPURenderer: `three` is three/webgpu (three.js's own advice for bundlers).
      const webgpu = {
        name: 'three-webgpu',
        setup(b: import('esbuild').PluginBuild) {
          b.onResolve({ filter: /^three$/ }, (a) =>
            b.resolve('three/webgpu', { kind: a.kind, resolveDir: a.resolveDir }),
          );
        },
      };
      const r = await build({
        absWorkingDir: app,
        entryPoints: [entry],
        bundle: true,
        platform: 'browser',
        format: 'esm',
        outfile: join(dir, `${name}.js`),
        logLevel: 'silent',
        plugins: name === 'webgpu' ? [webgpu] : [],
      }).catch((e: { errors: { text: string }[]; warnings: { text: string }[] }) => e);
      messages.push(...[...r.errors, ...r.warnings].map((m) => m.text));
      page(dir, name, `${name}.js`, true);
    }
    return messages;
  },
  async vite() {
    const { build, createLogger } = await import('vite');
    const messages: string[] = [];
    const logger = createLogger('warn', { allowClearScreen: false });
    logger.warn = (m) => void messages.push(m);
    logger.warnOnce = (m) => void messages.push(m);
    logger.error = (m) => void messages.push(m);
    for (const [name, entry] of Object.entries(PAGES)) {
      writeFileSync(
        join(app, `${name}.html`),
        `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module" src="./${entry}"></script>`,
      );
      await build({
        root: app,
        configFile: false,
        base: './',
        customLogger: logger,
        logLevel: 'warn',
        resolve: name === 'webgpu' ? { alias: [{ find: /^three$/, replacement: 'three/webgpu' }] } : {},
        build: {
          outDir: join(out, 'vite', name),
          emptyOutDir: true,
          target: 'esnext',
          chunkSizeWarningLimit: 10_000,
          rollupOptions: { input: join(app, `${name}.html`) },
        },
      }).catch((e: Error) => messages.push(e.message));
      copyFileSync(join(out, 'vite', name, `${name}.html`), join(out, 'vite', `${name}.html`));
    }
    // vite's pages refer to ./assets/… relative to their own folder: serve each from its folder.
    return messages;
  },
  async webpack() {
    const { default: webpack } = await import('webpack');
    const dir = join(out, 'webpack');
    const messages: string[] = [];
    for (const [name, entry] of Object.entries(PAGES)) {
      const stats = await new Promise<import('webpack').Stats>((resolve, reject) =>
        webpack(
          {
            mode: 'production',
            context: app,
            entry: `./${entry}`,
            output: { path: dir, filename: `${name}.js`, publicPath: '' },
            resolve: name === 'webgpu' ? { alias: { three$: 'three/webgpu' } } : {},
            performance: { hints: false },
          },
          (err, s) => (err ? reject(err) : resolve(s!)),
        ),
      );
      const info = stats.toJson({ all: false, errors: true, warnings: true });
      messages.push(...[...(info.errors ?? []), ...(info.warnings ?? [])].map((m) => m.message));
      page(dir, name, `${name}.js`, false);
    }
    return messages;
  },
};

beforeAll(() => {
  const tarball = npm(['pack', '--ignore-scripts', '--pack-destination', work], ROOT).trim().split('\n').pop()!;
  mkdirSync(join(app, 'src'), { recursive: true });
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'blank-app', private: true, type: 'module' }));
  const three = JSON.parse(readFileSync(join(ROOT, 'node_modules/three/package.json'), 'utf8')).version;
  npm(['install', '--prefer-offline', join(work, tarball), `three@${three}`], app);
  for (const f of ['capture.mjs', 'parity.mjs', 'webgpu.mjs'])
    copyFileSync(join(ROOT, 'test/browser', f), join(app, 'src', f));
}, 900_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('npm install of the packed package in a blank project', () => {
  it('brings at most 20 MB beyond three, and none of the CLI’s heavy dependencies', () => {
    const modules = join(app, 'node_modules');
    const beyondThree = treeSize(modules) - treeSize(join(modules, 'three'));
    console.log(`node_modules beyond three: ${(beyondThree / 1e6).toFixed(1)} MB`);
    expect(beyondThree).toBeLessThan(20e6);
    for (const heavy of [
      'playwright-core',
      'sharp',
      'chart.js',
      'commander',
      'cli-progress',
      '@gltf-transform/functions',
    ])
      expect(existsSync(join(modules, heavy)), heavy).toBe(false);
  });
});

describe('from CommonJS in the blank project', () => {
  it('require() gives every entry point, and the same skinning as import', () => {
    // Two one-vertex skins, the second joint turned 90° about z: LBS blends its half-way point.
    const script = `
      const corskin = require('corskin');
      for (const entry of ['corskin/gltf', 'corskin/node', 'corskin/evaluation', 'corskin/three', 'corskin/three/webgpu'])
        if (!Object.keys(require(entry)).length) throw new Error(entry + ' exports nothing');
      const mesh = { positions: new Float32Array([1, 0, 0]), triangles: new Uint32Array(0), influences: 2,
        joints: new Uint32Array([0, 1]), weights: new Float32Array([0.5, 0.5]) };
      const S = new Float64Array(32);
      S.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], 0);
      S.set([0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], 16);
      const required = Array.from(corskin.deform('lbs', mesh, S).positions);
      import('corskin').then((m) => console.log(JSON.stringify([required, Array.from(m.deform('lbs', mesh, S).positions)])));
    `;
    writeFileSync(join(app, 'require.cjs'), script);
    const r = spawnSync(process.execPath, ['require.cjs'], { cwd: app, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const [required, imported] = JSON.parse(r.stdout) as number[][];
    expect(required).toEqual(imported);
    // (1, 0, 0) half by the identity and half by the quarter turn (to (0, 1, 0)).
    [0.5, 0.5, 0].forEach((x, k) => expect(required[k]).toBeCloseTo(x, 6));
  });
});

describe.each(Object.keys(BUNDLERS))('bundled with %s', (bundler) => {
  let root = '';
  beforeAll(async () => {
    const messages = await BUNDLERS[bundler]();
    expect(messages).toEqual([]); // no error, no Node built-in warning
    root = join(out, bundler);
  }, 900_000);

  it('WebGLRenderer: CesiumMan without baked CoRs switches to CoR on the bundled worker', async () => {
    const t = await openTestPage('/webgl.html', bundler === 'vite' ? join(root, 'webgl') : root);
    try {
      const r = await t.page.evaluate(() =>
        (window as unknown as { parity: (u: string, m: string, t: number) => Promise<Record<string, number>> }).parity(
          '/shared/data/gltf/CesiumMan.glb',
          'cor',
          1.2,
        ),
      );
      expect(t.errors).toEqual([]);
      expect(t.warnings.filter((w) => w.includes('corskin'))).toEqual([]); // the worker started
      expect(r.error).toBeLessThan(1e-4);
      expect(r.vsLbs).toBeGreaterThan(1e-3); // the picture is not LBS's
    } finally {
      await t.close();
    }
  });

  it('WebGPURenderer with GLTFLoader’s own materials: CoR within 1e-4 of the CPU', async () => {
    const t = await openTestPage('/webgpu.html', bundler === 'vite' ? join(root, 'webgpu') : root);
    try {
      const r = await t.page.evaluate(() =>
        (
          window as unknown as { nodeParity: (u: string, m: string, t: number) => Promise<Record<string, number>> }
        ).nodeParity('/shared/data/gltf/CesiumMan.glb', 'cor', 1.2),
      );
      expect(t.errors).toEqual([]);
      expect(t.warnings.filter((w) => w.includes('corskin'))).toEqual([]);
      expect(r.error).toBeLessThan(1e-4);
      expect(r.vsLbs).toBeGreaterThan(1e-3);
    } finally {
      await t.close();
    }
  });
});

describe('the corskin command in the blank project', () => {
  it('without the CLI’s optional dependencies: says what to install, exit 1', () => {
    const r = spawnSync(join(app, 'node_modules/.bin/corskin'), ['--help'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('npm install corskin commander cli-progress');
  });

  it('installed as the README says: --help lists the commands', () => {
    // The versions this repository tests with (its devDependencies), as a user following the README would get.
    const dev = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies as Record<string, string>;
    const cli = ['commander', 'cli-progress', '@gltf-transform/functions', 'chart.js', 'playwright-core'];
    npm(['install', '--prefer-offline', ...cli.map((name) => `${name}@${dev[name]}`)], app);
    const r = spawnSync(join(app, 'node_modules/.bin/corskin'), ['--help'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    for (const command of ['precompute', 'deform', 'info', 'evaluate']) expect(r.stdout).toContain(command);
  }, 900_000);
});
