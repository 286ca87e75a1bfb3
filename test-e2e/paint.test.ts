/**
 * Weight painting in the viewer, end to end in headless Chromium: a mouse stroke over CesiumMan's
 * left elbow in paint mode changes the painted joint's weights and the centers of rotation (the
 * CoR view changes), undo restores them, frame times stay measured while painting, and the
 * exported file re-opens with the painted weights and their centers (equal to a from-scratch
 * precomputation, validator-clean).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, chromiumPath } from '../src/cli/render.js';
import { serveViewer } from '../src/cli/viewer-server.js';
import { computeCentersOfRotation } from '../src/cor/precompute.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { CESIUM_MAN, scratch } from '../test/helpers/data.js';
import { validate } from '../test/helpers/gltf.js';

type Summary = { total: number; centers: number; edits: number };
type Viewer = {
  ready: boolean;
  settings: Record<string, unknown>;
  jointScreen: (name: string) => { x: number; y: number } | undefined;
  paintSummary: (joint: string) => Summary;
  stroke: (x0: number, y0: number, x1: number, y1: number, steps?: number) => Promise<number>;
  exportGlb: () => Promise<string>;
  frameTimes: () => Record<string, number>;
  statusLog: () => string[];
};
const JOINT = 'Skeleton_arm_joint_L__3_'; // CesiumMan's left elbow

describe('weight painting in the viewer', () => {
  const tmp = scratch();
  let server: Awaited<ReturnType<typeof serveViewer>>;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const api = <T>(f: (v: Viewer, arg: unknown) => T | Promise<T>, arg?: unknown) =>
    page.evaluate(
      ([src, a]) =>
        new Function('v', 'a', `return (${src})(v, a)`)((window as unknown as { viewer: Viewer }).viewer, a),
      [f.toString(), arg] as const,
    ) as Promise<T>;
  const set = (key: string, value: unknown) =>
    api(
      (v, a) => ((v.settings as Record<string, unknown>)[(a as [string, unknown])[0]] = (a as [string, unknown])[1]),
      [key, value],
    );

  beforeAll(async () => {
    server = await serveViewer(CESIUM_MAN);
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 960, height: 720 } });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(`${server.url}?model=/model.glb&layout=single&method=cor`);
    await page.waitForFunction(() => (window as unknown as { viewer?: Viewer }).viewer?.ready === true, null, {
      timeout: 120_000,
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    tmp.cleanup();
  });

  // Found by a new user's check: paint mode started with an empty joint menu.
  it('paint mode, turned on in the panel, starts on the posed joint and shows it in the joint menu', async () => {
    const posed = await api((v) => v.settings.joint as string);
    expect(posed).not.toBe('');
    await page.evaluate(() => {
      const row = [...document.querySelectorAll('.lil-gui .lil-controller')].find((c) => c.querySelector('.lil-name')?.textContent === 'paint mode'); // prettier-ignore
      (row?.querySelector('input') as HTMLInputElement).click();
    });
    await page.waitForFunction(() => (window as unknown as { viewer: Viewer }).viewer.settings.paintJoint !== '');
    expect(await api((v) => v.settings.paintJoint as string)).toBe(posed);
    const shown = await page.evaluate(() => {
      const paint = [...document.querySelectorAll('.lil-gui .lil-controller')].find((c) => c.querySelector('.lil-name')?.textContent === 'paint mode'); // prettier-ignore
      const row = [...(paint?.parentElement?.children ?? [])].find((c) => c.querySelector('.lil-name')?.textContent === 'joint'); // prettier-ignore
      return (row?.querySelector('select') as HTMLSelectElement | null)?.selectedIndex ?? -1;
    });
    expect(shown).toBeGreaterThanOrEqual(0);
    expect(errors).toEqual([]);
  });

  it('a stroke over the elbow changes its weights and the centers of rotation; undo restores them; the export re-opens painted', async () => {
    await set('paint', true);
    await set('paintJoint', JOINT);
    await set('paintMode', 'add');
    await set('paintStrength', 0.5);
    await set('paintRadius', 0.06);
    const before = await api((v, a) => v.paintSummary(a as string), JOINT);
    const at = await api((v, a) => v.jointScreen(a as string), JOINT);
    expect(at).toBeDefined();
    const picture = await page.locator('canvas').screenshot();
    // The stroke: a few pixels across the elbow, as a mouse drag would paint it.
    const edits = await api((v, a) => {
      const p = a as { x: number; y: number };
      return v.stroke(p.x - 6, p.y - 6, p.x + 6, p.y + 6, 6);
    }, at);
    expect(edits).toBeGreaterThan(0);
    const after = await api((v, a) => v.paintSummary(a as string), JOINT);
    expect(after.total).toBeGreaterThan(before.total + 1); // more weight on the elbow
    expect(after.centers).not.toBe(before.centers); // the centers followed
    await page.waitForTimeout(400);
    expect((await page.locator('canvas').screenshot()).equals(picture)).toBe(false);
    const times = await api((v) => v.frameTimes());
    expect(times.cor).toBeGreaterThan(0);
    console.log(`viewer frame time while painting (SwiftShader): CoR ${times.cor.toFixed(1)} ms`);

    // One undo takes back the whole stroke (its dabs): the weights and centers come back.
    expect(edits).toBeGreaterThan(1);
    await api((v) => (v.settings.undo as () => void)());
    const undone = await api((v, a) => v.paintSummary(a as string), JOINT);
    expect(undone.total).toBeCloseTo(before.total, 4);
    expect(undone.centers).toBeCloseTo(before.centers, 4);
    expect((await api((v) => v.statusLog())).at(-1)).toMatch(new RegExp(`undid a stroke of ${edits} dabs`));
    // One redo puts it back; export, and re-open the file.
    await api((v) => (v.settings.redo as () => void)());
    expect((await api((v, a) => v.paintSummary(a as string), JOINT)).total).toBeCloseTo(after.total, 4);
    const bytes = await api((v) => v.exportGlb());
    const file = join(tmp.dir, 'painted.glb');
    writeFileSync(file, Buffer.from(bytes, 'base64'));
    expect((await validate(file)).issues.numErrors).toBe(0);
    const [model] = extractSkinnedModels(await readDocument(file), file);
    const j = model.skeleton.jointNames.indexOf(JOINT);
    let total = 0;
    for (let i = 0; i < model.mesh.joints.length; i++) if (model.mesh.joints[i] === j) total += model.mesh.weights[i];
    expect(total).toBeCloseTo(after.total, 1);
    // The stored centers are those of the painted weights.
    const fresh = computeCentersOfRotation(model.mesh).centers;
    let diff = 0;
    for (let i = 0; i < fresh.length; i++) diff = Math.max(diff, Math.abs(fresh[i] - model.mesh.centersOfRotation![i]));
    expect(diff).toBeLessThan(1e-5);
    expect(errors).toEqual([]);
  });

  it('the CoR check colours the character, and one click smooths the weights around the joint', async () => {
    const plain = await page.locator('canvas').screenshot();
    await set('corCheck', true);
    await page.waitForTimeout(400);
    expect((await page.locator('canvas').screenshot()).equals(plain)).toBe(false);
    await set('corCheck', false);
    // The CoR check measures against the bones: the elbow's bind position is where the file puts it.
    const [model] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
    const { bindJointPositions } = await import('../src/core/skeleton.js');
    const P = bindJointPositions(model.skeleton);
    const j = model.skeleton.jointNames.indexOf(JOINT);
    const elbow = (await api(
      (v, a) => (v as unknown as { bindJoint: (n: string) => number[] }).bindJoint(a as string),
      JOINT,
    )) as number[];
    expect(Math.hypot(elbow[0] - P[3 * j], elbow[1] - P[3 * j + 1], elbow[2] - P[3 * j + 2])).toBeLessThan(1e-4);
    const before = await api((v, a) => v.paintSummary(a as string), JOINT);
    await api((v) => (v.settings.smoothJoint as () => void)());
    await page.waitForFunction(
      (n) => (window as unknown as { viewer: Viewer }).viewer.paintSummary('Skeleton_arm_joint_L__3_').edits > n,
      before.edits,
    );
    const after = await api((v, a) => v.paintSummary(a as string), JOINT);
    expect(after.centers).not.toBe(before.centers);
    expect(errors).toEqual([]);
  });
});
