/**
 * corskin/three in a real browser (Debian's headless Chromium, WebGL 2 on SwiftShader): the
 * positions the patched skinning produces on the GPU match corskin's CPU deformers, with
 * WebGLRenderer (patched shader chunks) and with WebGPURenderer's node materials (corskin's TSL
 * node; headless Chromium has no WebGPU adapter, so WebGPURenderer runs its WebGL 2 backend — the
 * node graph is the one a WebGPU backend compiles to WGSL).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Document, NodeIO } from '@gltf-transform/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GPU_METHODS } from '../src/deformers/registry.js';
import { ROOT, SHARED } from '../test/helpers/data.js';
import { runCli } from '../test/helpers/cli.js';
import { openTestPage } from '../test/browser/server.js';

/** What this file writes for the test page to load (served from the repository root): its own folder, made here. */
const OUT = join(ROOT, '.tmp', 'three-gpu');
const OUT_URL = '/.tmp/three-gpu';
mkdirSync(OUT, { recursive: true });

type Result = { error: number; moved: number; vertices: number; nonFinite: number; meshes: number };

/** Every real character (scaled armatures, 16 and 7 influences, 40 skins, morph targets, .gltf) and a time in its first clip. */
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
type Parity = (
  url: string,
  method: string,
  time: number,
  morphs?: Record<string, number>,
  switches?: [string, string][],
) => Promise<Result & { vsLbs: number; meanVsLbs: number; cages: number }>;

/** The bundled libigl arm (no animation) with a one-second clip bending and twisting its elbow (bone2). */
async function bentArm(): Promise<string> {
  const doc = await new NodeIO().read(join(ROOT, 'assets/arm.glb'));
  const root = doc.getRoot();
  const bone = root.listNodes().find((n) => n.getName() === 'bone2')!;
  const [x, y, z, w] = bone.getRotation();
  // rest ⊗ (110° about z, then 120° about the bone's x axis)
  const mul = (a: number[], b: number[]) => [
    a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
    a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
  ];
  const about = (axis: number[], deg: number) => {
    const h = (deg * Math.PI) / 360;
    return [...axis.map((c) => c * Math.sin(h)), Math.cos(h)];
  };
  const posed = mul(mul([x, y, z, w], about([0, 0, 1], 110)), about([1, 0, 0], 120));
  const buffer = root.listBuffers()[0];
  const acc = (type: 'SCALAR' | 'VEC4', a: number[]) =>
    doc.createAccessor().setType(type).setArray(Float32Array.from(a)).setBuffer(buffer);
  const sampler = doc
    .createAnimationSampler()
    .setInput(acc('SCALAR', [0, 1]))
    .setOutput(acc('VEC4', [x, y, z, w, ...posed]));
  doc
    .createAnimation('bend')
    .addSampler(sampler)
    .addChannel(doc.createAnimationChannel().setTargetNode(bone).setTargetPath('rotation').setSampler(sampler));
  await new NodeIO().write(join(OUT, 'arm-bend.glb'), doc);
  return `${OUT_URL}/arm-bend.glb`;
}

/**
 * A small rig where slot 0 of some vertices has weight 0 and a vertex's bones are more than
 * 180° apart (quaternions in opposite hemispheres) near t = 1 s: the pivot rule decides the result.
 */
async function antipodalRig(): Promise<string> {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const j0 = doc.createNode('j0');
  const j1 = doc.createNode('j1').setTranslation([0, 1, 0]);
  const j2 = doc.createNode('j2').setTranslation([0, 1, 0]);
  j0.addChild(j1);
  j1.addChild(j2);
  const n = 60;
  const pos = new Float32Array(3 * n);
  const joints = new Uint16Array(4 * n);
  const weights = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) {
    const a = (i / n) * 2 * Math.PI;
    pos.set([0.3 * Math.cos(a), 0.5 + (1.5 * i) / n, 0.3 * Math.sin(a)], 3 * i);
    const w = 0.2 + (0.6 * i) / n;
    // Slot 0 names joint 1 with weight 0; the blend is between joints 0 and 2, in varying order.
    joints.set(i % 2 ? [1, 0, 2, 0] : [1, 2, 0, 0], 4 * i);
    weights.set(i % 2 ? [0, 1 - w, w, 0] : [0, w, 1 - w, 0], 4 * i);
  }
  const acc = (type: 'VEC3' | 'VEC4' | 'SCALAR' | 'MAT4', a: Float32Array | Uint16Array | number[]) =>
    doc
      .createAccessor()
      .setType(type)
      .setArray(Array.isArray(a) ? Float32Array.from(a) : a)
      .setBuffer(buffer);
  const prim = doc
    .createPrimitive()
    .setAttribute('POSITION', acc('VEC3', pos))
    .setAttribute('JOINTS_0', acc('VEC4', joints))
    .setAttribute('WEIGHTS_0', acc('VEC4', weights));
  const ibm = new Float32Array(48);
  [0, 1, 2].forEach((j) => ibm.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -j, 0, 1], 16 * j));
  const skin = doc.createSkin().setInverseBindMatrices(acc('MAT4', ibm)).addJoint(j0).addJoint(j1).addJoint(j2);
  const mesh = doc.createNode('mesh').setMesh(doc.createMesh().addPrimitive(prim)).setSkin(skin);
  doc.createScene().addChild(j0).addChild(mesh);
  const rot = (angle: number, ax: number[]) => {
    const l = Math.hypot(...ax);
    return [...ax.map((x) => (x / l) * Math.sin(angle / 2)), Math.cos(angle / 2)];
  };
  const times = acc('SCALAR', [0, 1]);
  const anim = doc.createAnimation('bend');
  for (const [node, q] of [
    [j1, rot((170 * Math.PI) / 180, [1, 0, 0])],
    [j2, rot((120 * Math.PI) / 180, [1, 0.3, 0])],
  ] as const) {
    const sampler = doc
      .createAnimationSampler()
      .setInput(times)
      .setOutput(acc('VEC4', [0, 0, 0, 1, ...q]));
    anim
      .addSampler(sampler)
      .addChannel(doc.createAnimationChannel().setTargetNode(node).setTargetPath('rotation').setSampler(sampler));
  }
  await new NodeIO().write(join(OUT, 'antipodal.glb'), doc);
  return `${OUT_URL}/antipodal.glb`;
}

describe.each([
  { renderer: 'WebGLRenderer', page: '/test/browser/parity.html', fn: 'parity' },
  { renderer: 'WebGPURenderer (node materials)', page: '/test/browser/webgpu.html', fn: 'nodeParity' },
])('GPU skinning with $renderer against the CPU deformers', ({ page, fn }) => {
  let t: Awaited<ReturnType<typeof openTestPage>>;
  beforeAll(async () => {
    t = await openTestPage(page);
  });
  afterAll(async () => t?.close());

  it.each(['dqs', 'cor'])(
    '%s: zero weight in slot 0 and bones > 180° apart: the GPU takes the CPU pivot',
    async (method) => {
      const url = await antipodalRig();
      const r = await t.page.evaluate(([f, m, u]) => (window as unknown as Record<string, Parity>)[f](u, m, 0.99), [
        fn,
        method,
        url,
      ] as const);
      expect(t.errors).toEqual([]);
      expect(r.moved).toBeGreaterThan(0.05);
      expect(r.error).toBeLessThan(1e-4);
    },
  );

  it.each(['lbs', 'dqs', 'cor'])(
    '%s: the Ready Player Me avatar talking (morph targets) within 1e-4',
    async (method) => {
      const morphs = { mouthOpen: 1, viseme_aa: 0.8, eyeBlinkLeft: 0.5, mouthSmile: 0.3 };
      const r = await t.page.evaluate(
        ([f, m, u, mo]) => (window as unknown as Record<string, Parity>)[f](u, m, 1.7, mo),
        [fn, method, '/shared/data/characters/rpm-avatar.glb', morphs] as const,
      );
      expect(t.errors).toEqual([]);
      expect(r.nonFinite).toBe(0);
      expect(r.error).toBeLessThan(1e-4);
    },
  );

  // From the registry: every GPU method on CesiumMan and the Fox (DDM and the templates computed
  // in the page from the plain file), LBS, DQS and CoR on every character.
  it.each(
    CHARACTERS.flatMap(([file, time], c) =>
      (c < 2 ? GPU_METHODS : ['lbs', 'dqs', 'cor']).map((m) => [m, file, time] as const),
    ),
  )('%s: %s within 1e-4 of the bounding-box diagonal', async (method, file, time) => {
    const r = await t.page.evaluate(([f, m, u, at]) => (window as unknown as Record<string, Parity>)[f](u, m, at), [
      fn,
      method,
      `/shared/data/${file}`,
      time,
    ] as const);
    expect(t.errors).toEqual([]);
    expect(r.nonFinite).toBe(0);
    expect(r.moved).toBeGreaterThan(1e-3); // a real pose, not the bind pose
    expect(r.error).toBeLessThan(1e-4);
  });
});

describe.each([
  { renderer: 'WebGLRenderer', page: '/test/browser/parity.html', fn: 'parity' },
  { renderer: 'WebGPURenderer (node materials)', page: '/test/browser/webgpu.html', fn: 'nodeParity' },
])('Skinning templates on the GPU with $renderer against the CPU template deformer', ({ page, fn }) => {
  let t: Awaited<ReturnType<typeof openTestPage>>;
  let files: Record<string, string>;
  beforeAll(async () => {
    t = await openTestPage(page);
    // CesiumMan as `corskin templates build` stores it (the rig is read, not built, in the page).
    const stored = join(OUT, 'CesiumMan-templates.glb');
    const run = await runCli('templates', 'build', join(SHARED, 'gltf/CesiumMan.glb'), '-o', stored, '--force');
    expect(run.code, run.stderr).toBe(0);
    // rpm-avatar as stored: its 9 meshes restore one cage.
    const rpm = join(OUT, 'rpm-avatar-templates.glb');
    const rpmRun = await runCli('templates', 'build', join(SHARED, 'characters/rpm-avatar.glb'), '-o', rpm, '--force');
    expect(rpmRun.code, rpmRun.stderr).toBe(0);
    files = {
      arm: await bentArm(),
      stored: `${OUT_URL}/CesiumMan-templates.glb`,
      fox: '/shared/data/characters/Fox.glb',
      rpm: '/shared/data/characters/rpm-avatar.glb',
      rpmStored: `${OUT_URL}/rpm-avatar-templates.glb`,
    };
  }, 360_000);
  afterAll(async () => t?.close());
  /** Parity of `file` at `time` after template switches written as the CLI's `--template JOINT=ID,…`. */
  const parity = (file: string, time: number, switches = '') =>
    t.page.evaluate(([f, u, at, sw]) => (window as unknown as Record<string, Parity>)[f](u, 'templates', at, {}, sw), [
      fn,
      files[file],
      time,
      switches ? switches.split(',').map((c) => c.split('=') as [string, string]) : [],
    ] as const);

  it.each([
    ['arm', 0.5, ''],
    ['arm', 0.95, ''],
    ['arm', 0.95, 'bone1=muscle-bulge,bone2=no-pinch-joint'],
    ['stored', 0.4, ''],
    ['stored', 1.2, ''],
    ['stored', 1.2, 'leg_joint_R_1=muscle-bulge,leg_joint_L_1=inverse-bulge'],
    ['fox', 2.1, 'b_LeftUpperArm=upward-bulge,b_LeftForeArm=bulge-joint'],
    ['rpm', 3.0, ''],
    ['rpmStored', 3.0, 'LeftUpLeg=muscle-bulge'],
  ] as [string, number, string][])(
    '%s at %s s (switches "%s") within 1e-4 of the bounding-box diagonal',
    async (file, time, switches) => {
      const r = await parity(file, time, switches);
      expect(t.errors).toEqual([]);
      expect(r.nonFinite).toBe(0);
      expect(r.moved).toBeGreaterThan(1e-3); // a real pose
      expect(r.vsLbs).toBeGreaterThan(1e-4); // templates, not LBS
      expect(r.error).toBeLessThan(1e-4);
      // One cage per skin: rpm-avatar's 9 meshes (one skin) share the one built in the page or stored.
      expect(r.cages).toBe(1);
    },
    360_000,
  );

  it('a template switch changes the next frame', async () => {
    const before = await parity('stored', 1.2);
    const after = await parity('stored', 1.2, 'leg_joint_R_1=muscle-bulge'); // the thigh, the knee bending
    expect(after.error).toBeLessThan(1e-4);
    // The bulging thigh moves the skin's mean distance from LBS by far more than rounding.
    expect(Math.abs(after.meanVsLbs - before.meanVsLbs)).toBeGreaterThan(1e-6);
  }, 360_000);
});

describe('GPU normals with WebGLRenderer against the CPU deformers', () => {
  type Angles = { vertices: number; median: number; p99: number; max: number };
  let t: Awaited<ReturnType<typeof openTestPage>>;
  beforeAll(async () => {
    t = await openTestPage('/test/browser/parity.html');
  });
  afterAll(async () => t?.close());
  const angles = (file: string, method: string, time: number) =>
    t.page.evaluate(
      ([u, m, at]) =>
        (window as unknown as Record<string, (...a: unknown[]) => Promise<Angles>>).normalParity(u, m, at),
      [`/shared/data/${file}`, method, time] as const,
    );

  it.each(CHARACTERS.slice(0, 4).flatMap(([file, time]) => ['dqs', 'cor'].map((m) => [m, file, time] as const)))(
    '%s: %s, every normal within 1e-3 rad of the CPU deformer',
    async (method, file, time) => {
      const r = await angles(file, method, time);
      expect(t.errors).toEqual([]);
      expect(r.vertices).toBeGreaterThan(1000);
      expect(r.max).toBeLessThan(1e-3);
    },
  );

  // The GPU turns a template-skinned normal by the blend of its four largest cage entries'
  // rotations; the CPU by the posed surface (a vertex shader cannot see its neighbours): close
  // where the skin bends smoothly, apart at creases and where the templates reshape it.
  it.each([
    ['gltf/CesiumMan.glb', 1.2],
    ['characters/Fox.glb', 0.7],
    ['characters/rpm-avatar.glb', 1.3],
  ] as const)('templates: %s, normals within 5° of the CPU template deformer at the median', async (file, time) => {
    const r = await angles(file, 'templates', time);
    expect(t.errors).toEqual([]);
    console.log(
      `GPU template normals vs CPU, ${file}: median ${((r.median * 180) / Math.PI).toFixed(2)}°, p99 ${((r.p99 * 180) / Math.PI).toFixed(1)}°`,
    );
    expect(r.median).toBeLessThan((5 * Math.PI) / 180);
  });
});

describe('corskin/three with WebGLRenderer', () => {
  // Found by a new user's check: WebGLRenderer uploads a mesh's geometry before its
  // onBeforeRender, where the stand-in was posed, so each frame showed the last frame's pose and
  // the first frame after a switch showed nothing.
  it.each(['sbs', 'lms', 'dm', 'stretch'])(
    '%s on the CPU: each frame shows its own pose, the first after the switch too',
    async (method) => {
      const t = await openTestPage('/test/browser/parity.html');
      try {
        const r = await t.page.evaluate(
          ([m]) =>
            (
              window as unknown as {
                cpuFrames: (u: string, m: string, t: number[]) => Promise<{ covered: number; sameTime: number[]; moved: number[] }>; // prettier-ignore
              }
            ).cpuFrames('/shared/data/gltf/CesiumMan.glb', m, [0.2, 1.0, 1.6]),
          [method],
        );
        expect(r.covered).toBeGreaterThan(400);
        expect(r.sameTime).toEqual([0, 0, 0]);
        for (const d of r.moved) expect(d).toBeGreaterThan(200);
      } finally {
        await t.close();
      }
    },
  );

  it("switching back to 'lbs' restores the original materials", async () => {
    const t = await openTestPage('/test/browser/parity.html');
    try {
      const r = await t.page.evaluate(() =>
        (
          window as unknown as { restoreCheck: (u: string) => Promise<{ patched: boolean; restored: boolean }> }
        ).restoreCheck('/shared/data/gltf/CesiumMan.glb'),
      );
      expect(r).toEqual({ patched: true, restored: true });
    } finally {
      await t.close();
    }
  });
});

describe('corskin/three when the CoR worker cannot start (a Content-Security-Policy without worker-src blob:)', () => {
  it('computes the centers on the main thread, says so once, and still switches to CoR', async () => {
    const t = await openTestPage('/test/browser/parity.html');
    try {
      // What a page whose CSP forbids blob: workers sees: the constructor throws.
      await t.page.evaluate(() => {
        window.Worker = class {
          constructor() {
            throw new DOMException('blocked by the Content-Security-Policy', 'SecurityError');
          }
        } as unknown as typeof Worker;
      });
      const r = await t.page.evaluate(() =>
        (window as unknown as Record<string, Parity>).parity('/shared/data/gltf/CesiumMan.glb', 'cor', 1.2),
      );
      expect(r.error).toBeLessThan(1e-4);
      expect(r.moved).toBeGreaterThan(1e-3);
      expect(t.warnings.filter((w) => w.includes('could not start'))).toHaveLength(1);
      expect(t.errors).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
