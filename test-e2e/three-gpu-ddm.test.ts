/**
 * Direct Delta Mush (Le & Lewis 2019) on the GPU through corskin/three, in Debian's headless
 * Chromium (see three-gpu.test.ts): the positions the patched shaders produce — WebGLRenderer's
 * GLSL chunks and WebGPURenderer's TSL node (on its WebGL 2 backend) — match corskin's CPU
 * deformer `deformDdm` within 1e-4 of the bounding-box diagonal, on every shared character
 * precomputed by `corskin precompute --method ddm` (full variant; compact on two), with morph
 * targets. On a file without the data `useSkinningMethod` computes it on demand (three-gpu.test.ts
 * checks the result, the registry's test on CesiumMan and the Fox): here, that it runs on the
 * bundled Web Worker, whose model equals `computeDirectDeltaMush`'s, and in the page's thread, with
 * one warning, where a Content-Security-Policy blocks it.
 */
import { mkdirSync } from 'node:fs';
import { NodeIO } from '@gltf-transform/core';
import { basename, join } from 'node:path';
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { ROOT, SHARED } from '../test/helpers/data.js';
import { runCli } from '../test/helpers/cli.js';
import { openTestPage } from '../test/browser/server.js';

const OUT = join(ROOT, '.tmp', 'three-gpu-ddm');
const OUT_URL = '/.tmp/three-gpu-ddm';
mkdirSync(OUT, { recursive: true });

type Result = { error: number; moved: number; vertices: number; nonFinite: number; meshes: number; vsLbs: number };
type Parity = (url: string, method: string, time: number) => Promise<Result>;

/** Every shared character and a time in its first clip (as three-gpu.test.ts). */
const CHARACTERS: [string, number][] = [
  ['gltf/CesiumMan.glb', 1.2],
  ['characters/Fox.glb', 0.7],
  ['characters/ShibaInu.gltf', 0.4],
  ['characters/Soldier.glb', 0.9],
  ['characters/Ybot.glb', 1.1],
  ['characters/chicken.glb', 0.5],
  ['characters/rpm-avatar.glb', 1.3],
  ['characters/skeleton.glb', 0.6],
];
/** The characters also precomputed in the compact variant. */
const COMPACT = ['gltf/CesiumMan.glb', 'characters/Fox.glb'];

const stem = (file: string) => basename(file).replace(/\.gltf?$|\.glb$/, '');

/** Precomputes every file once for both renderers (`corskin precompute --method ddm`). */
let precomputed: Promise<void> | undefined;
function precompute(): Promise<void> {
  precomputed ??= (async () => {
    const jobs = [
      ...CHARACTERS.map(([file]) => [file, 'full'] as const),
      ...COMPACT.map((file) => [file, 'compact'] as const),
    ];
    for (const [file, variant] of jobs) {
      const out = join(OUT, `${stem(file)}-${variant}.glb`);
      const run = await runCli(
        'precompute',
        '--method',
        'ddm',
        '--variant',
        variant,
        join(SHARED, file),
        '-o',
        out,
        '--force',
      );
      expect(run.code, run.stderr).toBe(0);
    }
    await scaledClip();
    await decimated();
  })();
  return precomputed;
}

/**
 * CesiumMan decimated to half by meshoptimizer (slivers with negative cotangent weights: the mesh
 * on which Direct Delta Mush once reflected vertices at the bind pose), precomputed.
 */
async function decimated(): Promise<void> {
  const { simplify, weld } = await import('@gltf-transform/functions');
  const { MeshoptSimplifier } = await import('meshoptimizer');
  await MeshoptSimplifier.ready;
  const io = new NodeIO();
  const doc = await io.read(join(SHARED, 'gltf/CesiumMan.glb'));
  await doc.transform(weld(), simplify({ simplifier: MeshoptSimplifier, ratio: 0.5, error: 0.05 }));
  const input = join(OUT, 'CesiumMan-decimated-input.glb');
  await io.write(input, doc);
  const run = await runCli(
    'precompute',
    '--method',
    'ddm',
    input,
    '-o',
    join(OUT, 'CesiumMan-decimated.glb'),
    '--force',
  );
  expect(run.code, run.stderr).toBe(0);
}

/**
 * CesiumMan (full DDM data) with its first clip also scaling joints — the root uniformly (1 → 1.6
 * over 2 s) and a thigh non-uniformly — so the skinning matrices carry scale: the shaders'
 * σ = Σ share·|det L_j|^{1/3} (deformers/ddm.ts) is exercised.
 */
async function scaledClip(): Promise<void> {
  const io = new NodeIO();
  const doc = await io.read(join(OUT, 'CesiumMan-full.glb'));
  const root = doc.getRoot();
  const joints = root.listSkins()[0].listJoints();
  const clip = root.listAnimations()[0];
  const buffer = root.listBuffers()[0];
  const acc = (type: 'SCALAR' | 'VEC3', a: number[]) =>
    doc.createAccessor().setType(type).setArray(Float32Array.from(a)).setBuffer(buffer);
  const times = acc('SCALAR', [0, 2]);
  for (const [node, to] of [
    [joints[0], [1.6, 1.6, 1.6]],
    [joints[Math.min(joints.length - 1, 3)], [1.3, 0.8, 1.1]],
  ] as const) {
    const sampler = doc
      .createAnimationSampler()
      .setInput(times)
      .setOutput(acc('VEC3', [1, 1, 1, ...to]));
    clip
      .addSampler(sampler)
      .addChannel(doc.createAnimationChannel().setTargetNode(node).setTargetPath('scale').setSampler(sampler));
  }
  await io.write(join(OUT, 'CesiumMan-scaled.glb'), doc);
}

describe.each([
  { renderer: 'WebGLRenderer', page: '/test/browser/parity.html', fn: 'parity' },
  { renderer: 'WebGPURenderer (node materials)', page: '/test/browser/webgpu.html', fn: 'nodeParity' },
])('Direct Delta Mush on the GPU with $renderer against the CPU deformer', ({ renderer, page, fn }) => {
  let t: Awaited<ReturnType<typeof openTestPage>>;
  beforeAll(async () => {
    await precompute();
    t = await openTestPage(page);
  }, 900_000);
  afterAll(async () => t?.close());
  const parity = (url: string, time: number) =>
    t.page.evaluate(([f, u, at]) => (window as unknown as Record<string, Parity>)[f](u, 'ddm', at), [
      fn,
      url,
      time,
    ] as const);

  it.each([
    ...CHARACTERS.map(([file, time]) => [file, 'full', time] as const),
    ...COMPACT.map((file) => [file, 'compact', CHARACTERS.find(([f]) => f === file)![1]] as const),
  ])('%s (%s) within 1e-4 of the bounding-box diagonal', async (file, variant, time) => {
    const r = await parity(`${OUT_URL}/${stem(file)}-${variant}.glb`, time);
    console.log(
      `DDM ${variant} GPU vs CPU, ${renderer}, ${file}: ${r.error.toExponential(2)} of the diagonal (${r.vertices} vertices, ${r.meshes} meshes; ${r.vsLbs.toExponential(2)} from LBS)`,
    );
    expect(t.errors).toEqual([]);
    expect(r.nonFinite).toBe(0);
    expect(r.moved).toBeGreaterThan(1e-3); // a real pose
    expect(r.error).toBeLessThan(1e-4);
  });

  it('the Ready Player Me avatar talking (morph targets: the frame is the morphed position) within 1e-4', async () => {
    const morphs = { mouthOpen: 1, viseme_aa: 0.8, eyeBlinkLeft: 0.5, mouthSmile: 0.3 };
    const r = await t.page.evaluate(
      ([f, u, mo]) => (window as unknown as Record<string, (...a: unknown[]) => Promise<Result>>)[f](u, 'ddm', 1.7, mo),
      [fn, `${OUT_URL}/rpm-avatar-full.glb`, morphs] as const,
    );
    console.log(`DDM GPU vs CPU with morph targets, ${renderer}, rpm-avatar: ${r.error.toExponential(2)}`);
    expect(t.errors).toEqual([]);
    expect(r.nonFinite).toBe(0);
    expect(r.error).toBeLessThan(1e-4);
  });

  it('CesiumMan decimated to half (slivers) within 1e-4, and the bind pose is the bind mesh', async () => {
    for (const time of [1.2, -1]) {
      // time −1: the bind pose (the page poses every joint where its inverse bind matrix puts it)
      const r = await parity(`${OUT_URL}/CesiumMan-decimated.glb`, time);
      console.log(`DDM GPU vs CPU, decimated CesiumMan at ${time}: ${r.error.toExponential(2)}`);
      expect(t.errors).toEqual([]);
      expect(r.nonFinite).toBe(0);
      expect(r.error).toBeLessThan(1e-4);
    }
  });

  it('CesiumMan with scaling joints (σ, the joints’ uniform scales) within 1e-4', async () => {
    const r = await parity(`${OUT_URL}/CesiumMan-scaled.glb`, 1.2);
    console.log(`DDM GPU vs CPU with scaled joints, ${renderer}, CesiumMan: ${r.error.toExponential(2)}`);
    expect(t.errors).toEqual([]);
    expect(r.nonFinite).toBe(0);
    expect(r.error).toBeLessThan(1e-4);
  });
});

describe('Direct Delta Mush normals with WebGLRenderer against the CPU deformer', () => {
  type Angles = { vertices: number; median: number; p99: number; max: number };
  let t: Awaited<ReturnType<typeof openTestPage>>;
  beforeAll(async () => {
    await precompute();
    t = await openTestPage('/test/browser/parity.html');
  }, 900_000);
  afterAll(async () => t?.close());

  it.each(CHARACTERS.slice(0, 4))('%s: every normal within 1e-3 rad of the CPU deformer', async (file, time) => {
    const r = await t.page.evaluate(
      ([u, at]) =>
        (window as unknown as Record<string, (...a: unknown[]) => Promise<Angles>>).normalParity(u, 'ddm', at),
      [`${OUT_URL}/${stem(file)}-full.glb`, time] as const,
    );
    console.log(
      `DDM GPU normals vs CPU, ${file}: max ${r.max.toExponential(2)} rad, median ${r.median.toExponential(2)}`,
    );
    expect(t.errors).toEqual([]);
    expect(r.vertices).toBeGreaterThan(1000);
    expect(r.max).toBeLessThan(1e-3);
  });
});

describe('Direct Delta Mush on the bundled Web Worker (computeDirectDeltaMushOnWorker)', () => {
  it('CesiumMan: a worker starts and its model equals computeDirectDeltaMush’s, both variants', async () => {
    const t = await openTestPage('/test/browser/parity.html');
    try {
      const r = await t.page.evaluate(async () => {
        // The page's import map resolves these (a dynamic import() here would be rewritten by vitest).
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        const load = new Function('s', 'return import(s)') as (s: string) => Promise<any>;
        const corskin = await load('corskin');
        const three = await load('corskin/three');
        const { GLTFLoader } = await load('three/addons/loaders/GLTFLoader.js');
        let started = 0;
        const Native = window.Worker;
        window.Worker = class extends Native {
          constructor(...a: ConstructorParameters<typeof Worker>) {
            super(...a);
            started++;
          }
        };
        const gltf = await new GLTFLoader().loadAsync('/shared/data/gltf/CesiumMan.glb');
        let skinned: unknown;
        gltf.scene.traverse((o: { isSkinnedMesh?: boolean }) => o.isSkinnedMesh && (skinned ??= o));
        const mesh = three.meshFromGeometry(skinned);
        const out: Record<string, unknown> = {};
        for (const variant of ['full', 'compact']) {
          let progress = 0;
          const onWorker = await corskin.computeDirectDeltaMushOnWorker(mesh, {
            variant,
            onProgress: () => progress++,
          });
          const here = corskin.computeDirectDeltaMush(mesh, { variant });
          const differing = (['offsets', 'joints', 'matrices', 'weights'] as const).filter((k) => {
            const a = onWorker[k] as ArrayLike<number> | undefined;
            const b = here[k] as ArrayLike<number> | undefined;
            if (!a || !b) return a !== b;
            if (a.length !== b.length || a.constructor !== b.constructor) return true;
            for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return true;
            return false;
          });
          out[variant] = { differing, entries: here.joints.length, progress };
        }
        window.Worker = Native;
        return { started, ...out } as { started: number } & Record<string, unknown>;
      });
      console.log('DDM on the worker, CesiumMan:', JSON.stringify(r));
      expect(r.started).toBe(2);
      for (const variant of ['full', 'compact']) {
        const v = r[variant] as { differing: string[]; entries: number; progress: number };
        expect(v.differing).toEqual([]);
        expect(v.entries).toBeGreaterThan(0);
        expect(v.progress).toBeGreaterThan(0);
      }
      expect(t.warnings.filter((w) => w.includes('could not start'))).toEqual([]);
      expect(t.errors).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('where the worker cannot start (CSP without worker-src blob:): computed here, said once, still within 1e-4', async () => {
    const t = await openTestPage('/test/browser/parity.html');
    try {
      await t.page.evaluate(() => {
        window.Worker = class {
          constructor() {
            throw new DOMException('blocked by the Content-Security-Policy', 'SecurityError');
          }
        } as unknown as typeof Worker;
      });
      const r = await t.page.evaluate(() =>
        (window as unknown as Record<string, Parity>).parity('/shared/data/gltf/CesiumMan.glb', 'ddm', 1.2),
      );
      expect(r.error).toBeLessThan(1e-4);
      expect(r.moved).toBeGreaterThan(1e-3);
      expect(t.warnings.filter((w) => w.includes('Direct Delta Mush worker could not start'))).toHaveLength(1);
      expect(t.errors).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
