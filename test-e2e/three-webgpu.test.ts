/**
 * corskin/three with WebGPURenderer's node materials (TSL): the patched skinning node against the
 * CPU deformers. Headless Chromium here has no WebGPU adapter, so WebGPURenderer runs its WebGL 2
 * backend — the node graph is the same one a WebGPU backend compiles to WGSL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM_ARGS, chromiumPath } from '../src/cli/render.js';
import { serve } from '../test/browser/server.js';

describe('GPU skinning with node materials (WebGPURenderer) against the CPU deformers', () => {
  let server: Awaited<ReturnType<typeof serve>>;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  beforeAll(async () => {
    server = await serve();
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
    page = await browser.newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(`${server.url}/test/browser/webgpu.html`);
    await page.waitForFunction(() => (window as unknown as { ready: boolean }).ready === true, null, {
      timeout: 60_000,
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it.each(['lbs', 'dqs', 'cor'])(
    '%s: CesiumMan at t = 1.2 s within 1e-4 of the bounding-box diagonal',
    async (method) => {
      const r = await page.evaluate(
        ([m]) =>
          (
            window as unknown as {
              nodeParity: (
                u: string,
                m: string,
                t: number,
              ) => Promise<{ error: number; moved: number; vertices: number }>;
            }
          ).nodeParity('/shared/data/gltf/CesiumMan.glb', m, 1.2),
        [method],
      );
      expect(errors).toEqual([]);
      expect(r.vertices).toBe(3273);
      expect(r.moved).toBeGreaterThan(0.01);
      expect(r.error).toBeLessThan(1e-4);
    },
  );
});
