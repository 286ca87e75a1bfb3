/**
 * The WebAssembly SIMD skinning kernels in a real browser (Debian's headless Chromium), loaded
 * from the built package: they agree with the JavaScript deformers there too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestPage } from '../test/browser/server.js';

type Result = { error: number; moved: number; vertices: number };

describe('SIMD skinning kernels in Chromium', () => {
  let t: Awaited<ReturnType<typeof openTestPage>>;
  beforeAll(async () => {
    t = await openTestPage('/test/browser/simd.html');
  });
  afterAll(async () => t?.close());

  it.each(['lbs', 'dqs', 'sbs', 'lms', 'cor', 'dm', 'stretch', 'templates'])(
    '%s matches the JavaScript deformer on the twisted and bent bar',
    async (method) => {
      const r = await t.page.evaluate(
        (m) => (window as unknown as { simdParity: (m: string) => Promise<Result> }).simdParity(m),
        method,
      );
      expect(t.errors).toEqual([]);
      expect(r.vertices).toBeGreaterThan(1000);
      expect(r.moved).toBeGreaterThan(0.05); // a real pose
      expect(r.error).toBeLessThan(1e-5);
    },
  );
});
