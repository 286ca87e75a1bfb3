/**
 * corskin/three in a real browser (Debian's headless Chromium, WebGL 2 on SwiftShader): the
 * positions the patched skinning produces on the GPU match corskin's CPU deformers, with
 * WebGLRenderer (patched shader chunks) and with WebGPURenderer's node materials (corskin's TSL
 * node; headless Chromium has no WebGPU adapter, so WebGPURenderer runs its WebGL 2 backend — the
 * node graph is the one a WebGPU backend compiles to WGSL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestPage } from '../test/browser/server.js';

type Result = { error: number; moved: number; vertices: number };
type Parity = (url: string, method: string, time: number) => Promise<Result>;

describe.each([
  { renderer: 'WebGLRenderer', page: '/test/browser/parity.html', fn: 'parity' },
  { renderer: 'WebGPURenderer (node materials)', page: '/test/browser/webgpu.html', fn: 'nodeParity' },
])('GPU skinning with $renderer against the CPU deformers', ({ page, fn }) => {
  let t: Awaited<ReturnType<typeof openTestPage>>;
  beforeAll(async () => {
    t = await openTestPage(page);
  });
  afterAll(async () => t?.close());

  it.each(['lbs', 'dqs', 'cor'])(
    '%s: CesiumMan at t = 1.2 s within 1e-4 of the bounding-box diagonal',
    async (method) => {
      const r = await t.page.evaluate(
        ([f, m]) => (window as unknown as Record<string, Parity>)[f]('/shared/data/gltf/CesiumMan.glb', m, 1.2),
        [fn, method],
      );
      expect(t.errors).toEqual([]);
      expect(r.vertices).toBe(3273);
      expect(r.moved).toBeGreaterThan(0.01); // a real pose, not the bind pose
      expect(r.error).toBeLessThan(1e-4);
    },
  );
});

describe('corskin/three with WebGLRenderer', () => {
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
