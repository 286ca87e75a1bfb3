/**
 * corskin/three in a real browser (Debian's headless Chromium, WebGL 2 on SwiftShader): the
 * positions the patched skinning produces on the GPU match corskin's CPU deformers, with
 * WebGLRenderer (patched shader chunks) and with WebGPURenderer's node materials (corskin's TSL
 * node; headless Chromium has no WebGPU adapter, so WebGPURenderer runs its WebGL 2 backend — the
 * node graph is the one a WebGPU backend compiles to WGSL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestPage } from '../test/browser/server.js';

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

  it.each(CHARACTERS.flatMap(([file, time]) => ['lbs', 'dqs', 'cor'].map((m) => [m, file, time] as const)))(
    '%s: %s within 1e-4 of the bounding-box diagonal',
    async (method, file, time) => {
      const r = await t.page.evaluate(
        ([f, m, u, at]) => (window as unknown as Record<string, Parity>)[f](u, m, at),
        [fn, method, `/shared/data/${file}`, time] as const,
      );
      expect(t.errors).toEqual([]);
      expect(r.nonFinite).toBe(0);
      expect(r.moved).toBeGreaterThan(1e-3); // a real pose, not the bind pose
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
