/**
 * The viewer's basics at common window sizes: the control panel never covers a view and fits the
 * window, the character fills its view (three-quarter framing, the layout that shows it largest),
 * the layouts place their views, the status line names the file, a file without animations says
 * so (no empty list), and "frame the joint" keeps the joint's limb in view.
 */
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, chromiumPath } from '../src/cli/render.js';
import { serveViewer } from '../src/cli/viewer-server.js';
import { GPU_METHODS } from '../src/deformers/registry.js';
import { ARM_GLB, CESIUM_MAN, SHARED } from '../test/helpers/data.js';

type Rect = { left: number; right: number; top: number; bottom: number };
type Viewer = {
  ready: boolean;
  settings: Record<string, unknown>;
  layoutRects: () => { layout: string; views: Rect[]; panel?: Rect };
  characterScreen: () => Rect;
  status: () => string;
  frameJoint: () => void;
  jointScreen: (name: string) => { x: number; y: number } | undefined;
};
const overlap = (a: Rect, b: Rect) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

describe('the viewer at 1280×720 and up', () => {
  let browser: Browser;
  beforeAll(async () => {
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  });
  afterAll(async () => browser?.close());

  // The character, and a limb to frame: its middle joint (elbow, the Fox's front knee), the joint
  // before it and the one after (three.js's names: PropertyBinding's reserved characters removed).
  const CESIUM = [CESIUM_MAN, 'Skeleton_arm_joint_R__2_', 'Skeleton_arm_joint_R', 'Skeleton_arm_joint_R__3_'];
  const FOX = [join(SHARED, 'characters', 'Fox.glb'), 'b_LeftForeArm', 'b_LeftUpperArm', 'b_LeftHand'];
  const SOLDIER = [
    join(SHARED, 'characters', 'Soldier.glb'),
    'mixamorigLeftForeArm',
    'mixamorigLeftArm',
    'mixamorigLeftHand',
  ];
  it.each([
    // The smallest window, one between and a wide one, a character each.
    [1280, 720, ...CESIUM],
    [1600, 900, ...FOX],
    [1920, 1080, ...SOLDIER],
  ] as [number, number, string, string, string, string][])(
    '%i×%i, %s: no control covers a view, the panel fits the window, the character fills its view, a limb can be framed',
    async (width, height, file, middle, before, after) => {
      const server = await serveViewer(file);
      const name = file.split('/').pop()!;
      const page = await browser.newPage({ viewport: { width, height } });
      try {
        await page.goto(`${server.url}?model=/model.glb&name=${name}`);
        await page.waitForFunction(() => (window as unknown as { viewer?: Viewer }).viewer?.ready === true, null, {
          timeout: 120_000,
        });
        const rects = await page.evaluate(() => (window as unknown as { viewer: Viewer }).viewer.layoutRects());
        const { SKINNING_METHODS } = await import('../src/deformers/registry.js');
        expect(rects.views).toHaveLength(SKINNING_METHODS.filter((m) => m.gpu).length); // LBS | DQS | CoR | DDM | templates
        expect(rects.panel).toBeDefined();
        for (const v of rects.views) expect(overlap(v, rects.panel!), JSON.stringify(rects)).toBe(false);
        expect(await page.evaluate(() => (window as unknown as { viewer: Viewer }).viewer.status())).toContain(name);
        expect(rects.panel!.bottom).toBeLessThanOrEqual(height);
        // The panel's rows (folder titles, controls) one below the other: a title that wraps (the
        // templates folder's) grows its row instead of running into the next.
        const rows = await page.evaluate(() =>
          [...document.querySelectorAll('.lil-gui .lil-title, .lil-gui .lil-controller')]
            .map((e) => ({
              text: e.textContent?.trim().slice(0, 40),
              ...e.getBoundingClientRect().toJSON(),
              overflow: e.scrollHeight - e.clientHeight,
            }))
            .filter((r) => r.height > 0),
        );
        expect(rows.length).toBeGreaterThan(8);
        for (const r of rows) expect(r.overflow, r.text).toBeLessThanOrEqual(1);
        for (const [k, r] of rows.entries())
          for (const q of rows.slice(k + 1)) expect(overlap(r, { ...q, top: q.top + 0.5, bottom: q.bottom - 0.5 }), `${r.text} / ${q.text}`).toBe(false); // prettier-ignore
        // The character (its posed vertices as drawn) inside the first view, filling most of its height or width.
        const first = rects.views[0];
        const body = await page.evaluate(() => (window as unknown as { viewer: Viewer }).viewer.characterScreen());
        expect(body.left).toBeGreaterThanOrEqual(first.left - 1);
        expect(body.right).toBeLessThanOrEqual(first.right + 1);
        expect(body.top).toBeGreaterThanOrEqual(first.top - 1);
        expect(body.bottom).toBeLessThanOrEqual(first.bottom + 1);
        const fill = Math.max(
          (body.bottom - body.top) / (first.bottom - first.top),
          (body.right - body.left) / (first.right - first.left),
        );
        expect(fill, JSON.stringify({ body, first })).toBeGreaterThan(0.6);
        // Frame the bent middle joint: the joints before and after it inside the view, the bone
        // after it drawn across at least a tenth of it.
        const [elbow, shoulder, wrist] = await page.evaluate(
          ([m, b, a]) => {
            const v = (window as unknown as { viewer: Viewer }).viewer;
            v.settings.joint = m;
            v.settings.bend = 60;
            v.frameJoint();
            return [m, b, a].map((n) => v.jointScreen(n));
          },
          [middle, before, after],
        );
        const view = (await page.evaluate(() => (window as unknown as { viewer: Viewer }).viewer.layoutRects()))
          .views[0];
        for (const p of [elbow, shoulder, wrist]) {
          expect(p!.x).toBeGreaterThan(view.left);
          expect(p!.x).toBeLessThan(view.right);
          expect(p!.y).toBeGreaterThan(view.top);
          expect(p!.y).toBeLessThan(view.bottom);
        }
        const forearm = Math.hypot(wrist!.x - elbow!.x, wrist!.y - elbow!.y);
        expect(forearm).toBeGreaterThan(0.1 * Math.min(view.right - view.left, view.bottom - view.top));
      } finally {
        await page.close();
        await server.close();
      }
    },
  );

  // One view per GPU method of the registry (LBS, DQS, CoR, DDM, templates: five).
  const views = GPU_METHODS.length;
  const columns = Math.ceil(Math.sqrt(views));
  it('the layouts: a row of every method, a grid, one view with the method chosen', async () => {
    const server = await serveViewer(CESIUM_MAN);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    try {
      await page.goto(`${server.url}?model=/model.glb&name=CesiumMan.glb&ui=0`);
      await page.waitForFunction(() => (window as unknown as { viewer?: Viewer }).viewer?.ready === true, null, {
        timeout: 120_000,
      });
      const rects = (layout: string) =>
        page.evaluate((l) => {
          const v = (window as unknown as { viewer: Viewer }).viewer;
          v.settings.layout = l;
          v.settings.method = 'dqs';
          return v.layoutRects();
        }, layout);
      const side = await rects('side');
      expect(side.views.map((v) => v.top)).toEqual(Array<number>(views).fill(0));
      expect(new Set(side.views.map((v) => v.left)).size).toBe(views);
      const grid = await rects('grid');
      expect(grid.views).toHaveLength(views);
      expect(new Set(grid.views.map((v) => v.top)).size).toBe(Math.ceil(views / columns));
      expect(new Set(grid.views.map((v) => v.left)).size).toBe(columns);
      const single = await rects('single');
      expect(single.views).toEqual([
        expect.objectContaining({ method: 'dqs', left: 0, top: 0, right: 1280, bottom: 800 }),
      ]);
      // auto: one of the two, whichever draws the character taller in a 1280×800 window (a standing
      // humanoid in a row of narrow columns is width-bound; in the grid's cells height-bound).
      expect(['side', 'grid']).toContain((await rects('auto')).layout);
    } finally {
      await page.close();
      await server.close();
    }
  });

  it('a file without animations shows no empty animation list', async () => {
    const server = await serveViewer(ARM_GLB);
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    try {
      await page.goto(`${server.url}?model=/model.glb&name=arm.glb`);
      await page.waitForFunction(() => (window as unknown as { viewer?: Viewer }).viewer?.ready === true, null, {
        timeout: 120_000,
      });
      expect(await page.getByText('animation: none in this file').isVisible()).toBe(true);
      expect(
        await page.locator('select').evaluateAll((s) => s.map((x) => (x as HTMLSelectElement).options.length)),
      ).not.toContain(1);
    } finally {
      await page.close();
      await server.close();
    }
  });
});
