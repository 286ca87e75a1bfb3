/**
 * The viewer, end to end in headless Chromium: load CesiumMan, switch methods, play, pose a
 * joint, precompute CoRs in the browser and export a valid .glb, frame times per method.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { draco, meshopt } from '@gltf-transform/functions';
import { MeshoptEncoder } from 'meshoptimizer';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, chromiumPath } from '../src/cli/render.js';
import { serveViewer } from '../src/cli/viewer-server.js';
import { createIO } from '../src/io/node-io.js';
import { runCli } from '../test/helpers/cli.js';
import { ARM_GLB, CESIUM_MAN, scratch, SHARED } from '../test/helpers/data.js';
import { attribute, validate } from '../test/helpers/gltf.js';

type Viewer = {
  ready: boolean;
  settings: Record<string, unknown>;
  exportGlb: () => Promise<string>;
  frameTimes: () => Record<string, number>;
  methodOf: (m: string) => string | undefined;
  methods: () => Record<string, string>;
  medianDistortion: (m: string) => number | undefined;
};
const viewer = (page: Page) => page.evaluate.bind(page);

describe('the viewer', () => {
  const tmp = scratch();
  let server: Awaited<ReturnType<typeof serveViewer>>;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const ready = () =>
    page.waitForFunction(() => (window as unknown as { viewer?: Viewer }).viewer?.ready === true, null, {
      timeout: 120_000,
    });
  const set = (key: string, value: unknown) =>
    viewer(page)(([k, v]) => ((window as unknown as { viewer: Viewer }).viewer.settings[k as string] = v), [
      key,
      value,
    ] as const);
  const shot = async () => {
    await page.waitForTimeout(400);
    return page.locator('canvas').screenshot();
  };

  beforeAll(async () => {
    server = await serveViewer(CESIUM_MAN);
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 960, height: 480 } });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(`${server.url}?model=/model.glb&time=1`);
    await ready();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    tmp.cleanup();
  });

  it('offers every method corskin/three runs (GPU methods; method modules and SIMD methods on the CPU), and only those', async () => {
    const { SKINNING_METHODS } = await import('../src/deformers/registry.js');
    const offered = await viewer(page)(() => (window as unknown as { viewer: Viewer }).viewer.methods(), undefined);
    expect(offered).toEqual(
      Object.fromEntries(
        SKINNING_METHODS.filter((m) => m.gpu || ('module' in m && m.module) || m.simd).map((m) => [m.label, m.id]),
      ),
    );
    expect([offered.DM, offered.SBS, offered.LMS, offered.Stretch, offered.Cage]).toEqual(['dm', 'sbs', 'lms', 'stretch', undefined]); // prettier-ignore
  });

  it('opens CesiumMan with LBS, DQS, CoR and templates side by side (CoRs and template cages computed in workers)', async () => {
    for (const m of ['lbs', 'dqs', 'cor', 'templates'])
      expect(await viewer(page)((x) => (window as unknown as { viewer: Viewer }).viewer.methodOf(x), m)).toBe(m);
    expect(errors).toEqual([]);
  });

  it('switches the method of the single view and the pictures differ', async () => {
    await set('layout', 'single');
    await set('method', 'lbs');
    const lbs = await shot();
    await set('method', 'dqs');
    const dqs = await shot();
    await set('method', 'cor');
    const cor = await shot();
    await set('method', 'dm'); // Delta Mush, on the CPU: a posed stand-in drawn in the SkinnedMesh's place
    const dm = await shot();
    expect(await viewer(page)((x) => (window as unknown as { viewer: Viewer }).viewer.methodOf(x), 'dm')).toBe('dm');
    await set('method', 'sbs'); // spherical blend skinning, on the CPU too
    const sbs = await shot();
    expect(await viewer(page)((x) => (window as unknown as { viewer: Viewer }).viewer.methodOf(x), 'sbs')).toBe('sbs');
    expect(sbs.equals(dm)).toBe(false);
    expect(lbs.equals(dqs)).toBe(false);
    expect(dqs.equals(cor)).toBe(false);
    expect(dm.equals(lbs)).toBe(false);
    expect(dm.equals(dqs)).toBe(false);
    expect(errors).toEqual([]);
    await set('layout', 'side');
  });

  it('plays the animation', async () => {
    const t0 = (await viewer(page)(() => (window as unknown as { viewer: Viewer }).viewer.settings.time)) as number;
    await set('playing', true);
    await page.waitForTimeout(800);
    await set('playing', false);
    const t1 = (await viewer(page)(() => (window as unknown as { viewer: Viewer }).viewer.settings.time)) as number;
    expect(t1).not.toBe(t0);
  });

  it('poses a joint', async () => {
    const joint = await viewer(page)(() => (window as unknown as { viewer: Viewer }).viewer.settings.joint);
    expect(joint).toBeTruthy(); // the viewer picked a joint of CesiumMan's skeleton
    const before = await shot();
    await set('bend', 90);
    const after = await shot();
    expect(before.equals(after)).toBe(false);
    await set('bend', 0);
  });

  it('shows the skeleton, the centers of rotation and the distortion heat map', async () => {
    const plain = await shot();
    await set('skeleton', true);
    await set('centers', true);
    await set('heatmap', true);
    const overlays = await shot();
    expect(plain.equals(overlays)).toBe(false);
    await set('heatmap', false);
    await set('centers', false);
    await set('skeleton', false);
    expect(errors).toEqual([]);
  });

  it('precomputes the CoRs in the browser and exports a .glb the validator accepts, equal to the CLI', async () => {
    const bytes = await viewer(page)(() => (window as unknown as { viewer: Viewer }).viewer.exportGlb());
    const file = join(tmp.dir, 'exported.glb');
    writeFileSync(file, Buffer.from(bytes, 'base64'));
    expect((await validate(file)).issues.numErrors).toBe(0);
    const cli = join(tmp.dir, 'cli.glb');
    expect((await runCli('precompute', CESIUM_MAN, '-o', cli, '--threads', '1')).code).toBe(0);
    const exported = attribute(await new NodeIO().read(file), '_CENTER_OF_ROTATION');
    const expected = attribute(await new NodeIO().read(cli), '_CENTER_OF_ROTATION');
    expect(exported.length).toBe(3 * 3273);
    let diff = 0;
    for (let i = 0; i < exported.length; i++) diff = Math.max(diff, Math.abs(exported[i] - expected[i]));
    expect(diff).toBeLessThan(1e-6);
  });

  it('reports a frame time per method', async () => {
    await page.waitForTimeout(2500);
    const t = await viewer(page)(() => (window as unknown as { viewer: Viewer }).viewer.frameTimes());
    for (const m of ['lbs', 'dqs', 'cor', 'templates']) expect(Number.isFinite(t[m]) && t[m] > 0, m).toBe(true);
    // The ratios between methods are measured by npm run bench (bench/viewer.ts), not asserted
    // here: a timed bound on a shared machine's software rendering fails by chance (CoR/LBS 1.54
    // against a bound of 1.5 in one CI run of 2026-12-02).
    console.log(
      `viewer frame time (ms, median of 60, SwiftShader): ${JSON.stringify(t)}; CoR/LBS = ${(t.cor / t.lbs).toFixed(3)}; templates/LBS = ${(t.templates / t.lbs).toFixed(3)}`,
    );
  });

  it('takes a joint named as glTF names it, reserved characters included (Mixamo: "mixamorig:LeftForeArm")', async () => {
    const ybot = await serveViewer(join(SHARED, 'characters/Ybot.glb'));
    const other = await browser.newPage({ viewport: { width: 640, height: 480 } });
    try {
      await other.goto(`${ybot.url}?model=/model.glb&joint=mixamorig:LeftForeArm&paint=mixamorig:RightForeArm`);
      type V = { ready: boolean; settings: Record<string, unknown>; jointScreen: (n: string) => unknown };
      await other.waitForFunction(() => (window as unknown as { viewer?: V }).viewer?.ready === true, null, {
        timeout: 120_000,
      });
      const got = await other.evaluate(() => {
        const v = (window as unknown as { viewer: V }).viewer;
        return [v.settings.joint, v.settings.paintJoint, v.jointScreen('mixamorig:LeftForeArm') !== undefined];
      });
      // three.js's GLTFLoader drops ':' from object names; the viewer finds the joint either way.
      expect(got).toEqual(['mixamorigLeftForeArm', 'mixamorigRightForeArm', true]);
    } finally {
      await other.close();
      await ybot.close();
    }
  });

  // A helper bake adds joints that hang off the rig's joints: the viewer's joint picker, joint list
  // and sliders are about the rig's joints and pass over them.
  it('never selects a helper joint a bake added: a click on a helper picks a joint of the rig', async () => {
    const baked = join(tmp.dir, 'CesiumMan-helpers.glb');
    const r = await runCli('bake', CESIUM_MAN, '--method', 'dqs', '--as', 'helpers', '--rate', '5', '-o', baked);
    expect(r.code, r.stderr).toBe(0);
    const document = await (await createIO()).read(baked);
    const helpers = document
      .getRoot()
      .listNodes()
      .filter((n) => (n.getExtras() as { corskin?: { helperOf?: string } }).corskin?.helperOf)
      .map((n) => n.getName());
    expect(helpers.length).toBeGreaterThan(0);
    const served = await serveViewer(baked);
    const other = await browser.newPage({ viewport: { width: 640, height: 480 } });
    try {
      await other.goto(`${served.url}?model=/model.glb`);
      type V = {
        ready: boolean;
        settings: Record<string, unknown>;
        jointScreen: (n: string) => { x: number; y: number } | undefined;
        pickJoint: (x: number, y: number) => boolean;
      };
      await other.waitForFunction(() => (window as unknown as { viewer?: V }).viewer?.ready === true, null, {
        timeout: 120_000,
      });
      const picked = await other.evaluate((names) => {
        const v = (window as unknown as { viewer: V }).viewer;
        const out = [String(v.settings.joint)];
        for (const name of names) {
          const p = v.jointScreen(name.replace(/\s/g, '_').replace(/[[\].:/]/g, '')); // sanitizeNodeName
          if (p && v.pickJoint(p.x, p.y)) out.push(String(v.settings.joint));
        }
        return out;
      }, helpers);
      expect(picked.length).toBeGreaterThan(1); // helpers on screen were clicked
      for (const joint of picked) expect(joint.includes('_helper')).toBe(false);
    } finally {
      await other.close();
      await served.close();
    }
  });

  // Found by a new user's check: the heat map read stored centers from their interleaved
  // attribute's whole array, threw in the frame loop, and the viewer froze until reloaded.
  it('draws the heat map and the centers of a file with stored (interleaved) centers of rotation', async () => {
    const file = join(tmp.dir, 'cesium-cor.glb');
    expect((await runCli('precompute', CESIUM_MAN, '-o', file, '--threads', '1')).code).toBe(0);
    await page.setInputFiles('#file', file);
    await page.waitForFunction(
      () => document.getElementById('status')?.textContent?.startsWith('cesium-cor.glb: ready'),
      null,
      { timeout: 120_000 },
    );
    const plain = await shot();
    await set('centers', true);
    await set('heatmap', true);
    const overlays = await shot();
    expect(plain.equals(overlays)).toBe(false);
    // Still on (an overlay that throws is turned off, with a console error and a status line).
    const on = await viewer(page)(() => (window as unknown as { viewer: Viewer }).viewer.settings.heatmap);
    expect(on).toBe(true);
    expect(await page.evaluate(() => document.getElementById('status')?.textContent)).not.toMatch(/failed/);
    await set('heatmap', false);
    await set('centers', false);
    expect(errors).toEqual([]);
  });

  // Found by a new user's check: the stress pose stopped the clip, and the rest pose left it stopped.
  it('the stress pose stops the clip, and the rest pose brings it back', async () => {
    const setting = (key: string) =>
      viewer(page)((k) => (window as unknown as { viewer: Viewer }).viewer.settings[k], key);
    const clips = await page.evaluate(() =>
      Array.from(document.querySelectorAll('.lil-gui select')[3]?.querySelectorAll('option') ?? [], (o) => o.value),
    );
    const clip = clips.find((c) => c !== '');
    expect(clip).toBeDefined();
    await set('animation', clip);
    await set('playing', true);
    await page.locator('.lil-gui select').nth(2).selectOption({ label: 'stress pose' });
    expect([await setting('animation'), await setting('playing')]).toEqual(['', false]);
    await page.locator('.lil-gui select').nth(2).selectOption({ label: 'rest' });
    expect(await setting('animation')).toBe(clip);
    expect(errors).toEqual([]);
  });

  it('loads another character from the file picker, locally', async () => {
    await page.setInputFiles('#file', ARM_GLB);
    await page.waitForFunction(
      () => document.getElementById('status')?.textContent?.startsWith('arm.glb: ready'),
      null,
      { timeout: 120_000 },
    );
    expect(errors).toEqual([]);
  });

  // Found by a new user's check: the exports read the picked file as a GLB ("Invalid glTF 2.0 binary").
  it('exports a .gltf opened from the file picker (its buffers embedded) as a .glb with its centers', async () => {
    await page.setInputFiles('#file', join(SHARED, 'characters/ShibaInu.gltf'));
    await page.waitForFunction(
      () => document.getElementById('status')?.textContent?.startsWith('ShibaInu.gltf: ready'),
      null,
      { timeout: 120_000 },
    );
    const bytes = await viewer(page)(() => (window as unknown as { viewer: Viewer }).viewer.exportGlb());
    const file = join(tmp.dir, 'shiba.glb');
    writeFileSync(file, Buffer.from(bytes, 'base64'));
    expect((await validate(file)).issues.numErrors).toBe(0);
    const primitives = (await new NodeIO().read(file))
      .getRoot()
      .listMeshes()
      .flatMap((m) => m.listPrimitives());
    expect(primitives.length).toBeGreaterThan(0);
    for (const p of primitives)
      expect(p.getAttribute('_CENTER_OF_ROTATION')?.getCount()).toBe(p.getAttribute('POSITION')!.getCount());
    expect(errors).toEqual([]);
  });

  // Found by a new user's check: three.js's loader named a typed array or a JSON token, a mesh
  // without a skin loaded as "ready" with nothing to compare, a file opened while another was
  // being computed was told "ready" by the first, and the stress pose was not framed.
  it('names what is wrong with a file that is not a skinned glTF, and keeps the character shown', async () => {
    const status = () => page.evaluate(() => document.getElementById('status')?.textContent ?? '');
    const cases: [string, Uint8Array | string, string][] = [
      ['truncated.glb', new Uint8Array(readFileSync(CESIUM_MAN)).subarray(0, 4000), 'truncated GLB: header declares'],
      ['text.glb', 'hello, this is not a model', 'not a glTF file (neither GLB nor JSON)'],
      ['empty.glb', new Uint8Array(0), 'empty file'],
      ['half.gltf', '{"asset": {"version": "2.0"}, "nodes": [', 'invalid glTF JSON: '],
    ];
    const noSkin = new NodeIO();
    const doc = await noSkin.read(CESIUM_MAN);
    for (const node of doc.getRoot().listNodes()) node.setSkin(null);
    cases.push(['noskin.glb', await noSkin.writeBinary(doc), 'no skinned mesh']);
    for (const [name, bytes, message] of cases) {
      const file = join(tmp.dir, name);
      writeFileSync(file, bytes);
      await page.setInputFiles('#file', file);
      await page.waitForFunction((n) => document.getElementById('status')?.textContent?.startsWith(`could not load ${n}`), name); // prettier-ignore
      expect(await status()).toContain(message);
    }
    expect(await viewer(page)(() => (window as unknown as { viewer: Viewer }).viewer.ready)).toBe(true);
    expect(errors).toEqual([]);
  });

  it('frames the stress pose when it is picked, as it frames the character on loading', async () => {
    const camera = () => page.evaluate(() => (window as unknown as { viewer: { cameraPosition: () => number[] } }).viewer.cameraPosition()); // prettier-ignore
    await set('pose', 'rest');
    const before = await camera();
    await page.locator('.lil-gui select').nth(2).selectOption({ label: 'stress pose' });
    await page.waitForTimeout(300);
    const after = await camera();
    expect(Math.hypot(...after.map((x, k) => x - before[k]))).toBeGreaterThan(1e-3);
    await page.locator('.lil-gui select').nth(2).selectOption({ label: 'rest' });
  });

  it('a file opened while another is being computed is the one shown, and only it is told ready', async () => {
    await page.setInputFiles('#file', join(SHARED, 'characters/Soldier.glb'));
    await page.waitForFunction(() => document.getElementById('status')?.textContent?.startsWith('Soldier.glb: '));
    await page.setInputFiles('#file', ARM_GLB);
    await page.waitForFunction(() => document.getElementById('status')?.textContent?.startsWith('arm.glb: ready'), null, { timeout: 120_000 }); // prettier-ignore
    await page.waitForTimeout(3000); // what the Soldier's computations would have written by now
    expect(await page.evaluate(() => document.getElementById('status')?.textContent)).toMatch(/^arm\.glb: ready/);
    expect(errors).toEqual([]);
  });

  it.each([
    ['Draco', () => draco()],
    ['meshopt', () => meshopt({ encoder: MeshoptEncoder })],
  ])('loads a %s-compressed Soldier (scaled armature) and switches it to DQS and CoR', async (name, transform) => {
    await MeshoptEncoder.ready;
    const io = await createIO(['KHR_draco_mesh_compression', 'EXT_meshopt_compression']);
    const doc = await io.read(join(SHARED, 'characters/Soldier.glb'));
    await doc.transform(transform());
    const file = join(tmp.dir, `soldier-${name}.glb`);
    await io.write(file, doc);
    await page.setInputFiles('#file', file);
    await page.waitForFunction(
      (f) => document.getElementById('status')?.textContent?.startsWith(`${f}: ready`),
      `soldier-${name}.glb`,
      { timeout: 120_000 },
    );
    expect(errors).toEqual([]);
  });

  // Found by a new user's check: the Soldier's skin is drawn 838× its mesh node's scale, and the
  // heat map compared it unscaled with its geometry: every vertex saturated red.
  it('the heat map of the Soldier (its scale in its joints) is cool where the skin is rigid', async () => {
    await page.setInputFiles('#file', join(SHARED, 'characters/Soldier.glb'));
    await page.waitForFunction(() => document.getElementById('status')?.textContent?.startsWith('Soldier.glb: ready'), null, { timeout: 120_000 }); // prettier-ignore
    await set('heatmap', true);
    await shot();
    const median = await viewer(page)(() => (window as unknown as { viewer: Viewer }).viewer.medianDistortion('lbs'));
    await set('heatmap', false);
    expect(median).toBeGreaterThanOrEqual(0);
    expect(median).toBeLessThan(0.05); // red from 0.5
    expect(errors).toEqual([]);
  });
});

describe('corskin render', () => {
  it('writes a PNG of the viewer', async () => {
    const { dir, cleanup } = scratch();
    try {
      const out = join(dir, 'arm.png');
      const r = await runCli('render', ARM_GLB, '--joint', 'bone2', '--twist', '180', '--size', '600x300', '-o', out);
      expect(r.code).toBe(0);
      const { readFileSync } = await import('node:fs');
      const png = readFileSync(out);
      expect(png.subarray(1, 4).toString()).toBe('PNG');
      expect(png.readUInt32BE(16)).toBe(600);
    } finally {
      cleanup();
    }
  });

  /** The share of a render's character pixels (not the background) that `is` picks. */
  const share = async (file: string, is: (r: number, g: number, b: number) => boolean) => {
    const { PNG } = await import('pngjs');
    const { data } = PNG.sync.read(readFileSync(file));
    let drawn = 0, picked = 0; // prettier-ignore
    for (let o = 0; o < data.length; o += 4) {
      if (Math.abs(data[o] - data[0]) + Math.abs(data[o + 1] - data[1]) + Math.abs(data[o + 2] - data[2]) < 24)
        continue;
      drawn++;
      if (is(data[o], data[o + 1], data[o + 2])) picked++;
    }
    return picked / drawn;
  };

  // Found by a new user's check: the heat map was multiplied by the Fox's orange texture, so the
  // body (weight 0, blue) drew near black (5% of the character's pixels blue, now 73%).
  it('--paint on a textured character draws the weights’ colours, not tinted by its texture', async () => {
    const { dir, cleanup } = scratch();
    try {
      const out = join(dir, 'paint.png');
      const r = await runCli('render', join(SHARED, 'characters/Fox.glb'), '--paint', 'b_LeftForeArm', '--method', 'dqs', '--size', '400x300', '-o', out); // prettier-ignore
      expect(r.code, r.stderr).toBe(0);
      expect(await share(out, (r, g, b) => b > 90 && b > r + g)).toBeGreaterThan(0.5);
    } finally {
      cleanup();
    }
  });

  // Found by a new user's check: --frame-joint on the Soldier's left forearm framed its chest: the
  // three-quarter view from its right hid the arm behind the body, and the joints' box took half
  // the chest in. Painted, the forearm's weights (not blue) were 2.3% of the character's pixels.
  it('--frame-joint shows the limb: the forearm of an arm on the far side of the view', async () => {
    const { dir, cleanup } = scratch();
    try {
      const out = join(dir, 'frame.png');
      const arm = 'mixamorig:LeftForeArm';
      const r = await runCli('render', join(SHARED, 'characters/Soldier.glb'), '--method', 'lbs', '--joint', arm, '--paint', arm, '--frame-joint', '--size', '400x300', '-o', out); // prettier-ignore
      expect(r.code, r.stderr).toBe(0);
      expect(await share(out, (r, g, b) => Math.max(r, g) > b + 40)).toBeGreaterThan(0.06); // 0.105 at 800×600
    } finally {
      cleanup();
    }
  });
});

describe('corskin render --pose stress on animated characters', () => {
  /** The PNG's pixels and the box of those that differ from its corner's (the background), as fractions. */
  async function picture(path: string) {
    const { readFileSync } = await import('node:fs');
    const { PNG } = await import('pngjs');
    const png = PNG.sync.read(readFileSync(path));
    const { width: W, height: H, data } = png;
    const bg = [data[0], data[1], data[2]];
    let x0 = W, x1 = -1, y0 = H, y1 = -1; // prettier-ignore
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) {
        const o = 4 * (y * W + x);
        if (Math.abs(data[o] - bg[0]) + Math.abs(data[o + 1] - bg[1]) + Math.abs(data[o + 2] - bg[2]) < 24) continue;
        x0 = Math.min(x0, x);
        x1 = Math.max(x1, x);
        y0 = Math.min(y0, y);
        y1 = Math.max(y1, y); // prettier-ignore
      }
    return { data, fill: Math.max((x1 - x0 + 1) / W, (y1 - y0 + 1) / H) };
  }

  it.each(['gltf/CesiumMan.glb', 'characters/Fox.glb', 'characters/Soldier.glb'])(
    '%s: the stress pose, not the clip’s first frame, filling ≥ 0.6 of the picture',
    async (file) => {
      const { dir, cleanup } = scratch();
      try {
        const stress = join(dir, 'stress.png');
        const clip = join(dir, 'clip.png');
        const common = ['--method', 'dqs', '--size', '400x300'];
        let r = await runCli('render', join(SHARED, file), '--pose', 'stress', ...common, '-o', stress);
        expect(r.code, r.stderr).toBe(0);
        r = await runCli('render', join(SHARED, file), '--animation', '0', '--time', '0', ...common, '-o', clip);
        expect(r.code, r.stderr).toBe(0);
        const a = await picture(stress);
        const b = await picture(clip);
        let differ = 0;
        for (let k = 0; k < a.data.length; k += 4)
          if (Math.abs(a.data[k] - b.data[k]) + Math.abs(a.data[k + 1] - b.data[k + 1]) > 24) differ++;
        console.log(
          `${file}: stress pose fills ${a.fill.toFixed(2)}, ${differ} pixels differ from the clip's first frame`,
        );
        expect(differ).toBeGreaterThan(0.01 * (a.data.length / 4));
        expect(a.fill).toBeGreaterThanOrEqual(0.6);
        expect(b.fill).toBeGreaterThanOrEqual(0.6);
      } finally {
        cleanup();
      }
    },
    540_000,
  );
});
