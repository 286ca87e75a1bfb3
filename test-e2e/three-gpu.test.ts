/**
 * corskin/three in a real browser (Debian's headless Chromium, WebGL 2 on SwiftShader): the
 * positions the patched skinning shaders produce match corskin's CPU deformers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestPage } from '../test/browser/server.js';

type Result = { error: number; moved: number; vertices: number };

describe('GPU skinning (corskin/three) against the CPU deformers', () => {
  let t: Awaited<ReturnType<typeof openTestPage>>;
  beforeAll(async () => {
    t = await openTestPage('/test/browser/parity.html');
  });
  afterAll(async () => t?.close());

  it.each(['lbs', 'dqs', 'cor'])(
    '%s: CesiumMan at t = 1.2 s within 1e-4 of the bounding-box diagonal',
    async (method) => {
      const r = await t.page.evaluate(
        ([m]) =>
          (window as unknown as { parity: (u: string, m: string, t: number) => Promise<Result> }).parity(
            '/shared/data/gltf/CesiumMan.glb',
            m,
            1.2,
          ),
        [method],
      );
      expect(t.errors).toEqual([]);
      expect(r.vertices).toBe(3273);
      expect(r.moved).toBeGreaterThan(0.01); // a real pose, not the bind pose
      expect(r.error).toBeLessThan(1e-4);
    },
  );

  it("switching back to 'lbs' restores the original materials", async () => {
    const r = await t.page.evaluate(() =>
      (
        window as unknown as { restoreCheck: (u: string) => Promise<{ patched: boolean; restored: boolean }> }
      ).restoreCheck('/shared/data/gltf/CesiumMan.glb'),
    );
    expect(r).toEqual({ patched: true, restored: true });
  });
});
