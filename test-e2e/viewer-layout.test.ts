/**
 * The viewer's basics at common window sizes: the control panel never covers a view, the status
 * line names the file, a file without animations says so (no empty list), and "frame the joint"
 * centres the posed joint.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, chromiumPath } from '../src/cli/render.js';
import { serveViewer } from '../src/cli/viewer-server.js';
import { ARM_GLB, CESIUM_MAN } from '../test/helpers/data.js';

type Rect = { left: number; right: number; top: number; bottom: number };
type Viewer = {
  ready: boolean;
  settings: Record<string, unknown>;
  layoutRects: () => { views: Rect[]; panel?: Rect };
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

  it.each([
    [1280, 720],
    [1600, 900],
    [1920, 1080],
  ])(
    '%i×%i: no control covers a view; the status line names the file; the joint can be framed',
    async (width, height) => {
      const server = await serveViewer(CESIUM_MAN);
      const page = await browser.newPage({ viewport: { width, height } });
      try {
        await page.goto(`${server.url}?model=/model.glb&name=CesiumMan.glb`);
        await page.waitForFunction(() => (window as unknown as { viewer?: Viewer }).viewer?.ready === true, null, {
          timeout: 120_000,
        });
        const rects = await page.evaluate(() => (window as unknown as { viewer: Viewer }).viewer.layoutRects());
        const { SKINNING_METHODS } = await import('../src/deformers/registry.js');
        expect(rects.views).toHaveLength(SKINNING_METHODS.filter((m) => m.gpu).length); // LBS | DQS | CoR | templates
        expect(rects.panel).toBeDefined();
        for (const v of rects.views) expect(overlap(v, rects.panel!), JSON.stringify(rects)).toBe(false);
        expect(await page.evaluate(() => (window as unknown as { viewer: Viewer }).viewer.status())).toContain(
          'CesiumMan.glb',
        );
        // Frame the posed joint: it lands in the middle of the first view.
        const joint = await page.evaluate(() => {
          const v = (window as unknown as { viewer: Viewer }).viewer;
          v.settings.bend = 60;
          v.frameJoint();
          return v.jointScreen(v.settings.joint as string);
        });
        const first = rects.views[0];
        expect(Math.abs(joint!.x - (first.left + first.right) / 2)).toBeLessThan(0.1 * (first.right - first.left));
        expect(Math.abs(joint!.y - (first.top + first.bottom) / 2)).toBeLessThan(0.1 * (first.bottom - first.top));
      } finally {
        await page.close();
        await server.close();
      }
    },
  );

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
