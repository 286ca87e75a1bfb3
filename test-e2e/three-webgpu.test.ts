/**
 * corskin/three/webgpu with WebGPURenderer's node materials (TSL): the patched skinning node
 * against the CPU deformers. Headless Chromium here has no WebGPU adapter, so WebGPURenderer runs
 * its WebGL 2 backend — the node graph is the same one a WebGPU backend compiles to WGSL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestPage } from '../test/browser/server.js';

type Result = { error: number; moved: number; vertices: number };

describe('GPU skinning with node materials (WebGPURenderer) against the CPU deformers', () => {
  let t: Awaited<ReturnType<typeof openTestPage>>;
  beforeAll(async () => {
    t = await openTestPage('/test/browser/webgpu.html');
  });
  afterAll(async () => t?.close());

  it.each(['lbs', 'dqs', 'cor'])(
    '%s: CesiumMan at t = 1.2 s within 1e-4 of the bounding-box diagonal',
    async (method) => {
      const r = await t.page.evaluate(
        ([m]) =>
          (window as unknown as { nodeParity: (u: string, m: string, t: number) => Promise<Result> }).nodeParity(
            '/shared/data/gltf/CesiumMan.glb',
            m,
            1.2,
          ),
        [method],
      );
      expect(t.errors).toEqual([]);
      expect(r.vertices).toBe(3273);
      expect(r.moved).toBeGreaterThan(0.01);
      expect(r.error).toBeLessThan(1e-4);
    },
  );
});
