/**
 * The round trip of stored skinning templates on CesiumMan and a `.gltf` from another exporter: a file
 * written by `corskin templates build` renders through `corskin render` with every GPU method
 * side by side at the stress pose — no view blank — and its LBS view is the original's drawn
 * alone, pixel for pixel but for the frame-time label.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, describe, expect, it } from 'vitest';
import { SKINNING_METHODS } from '../src/deformers/registry.js';
import { runCli } from '../test/helpers/cli.js';
import { CESIUM_MAN, scratch, SHARED } from '../test/helpers/data.js';

/**
 * CesiumMan and a `.gltf` with embedded buffers (ShibaInu). Building the templates on every shared
 * character is test/templates-characters.test.ts's; drawing them on the GPU, three-gpu.test.ts's
 * (rpm-avatar's nine meshes on one skin: viewer-templates.test.ts's).
 */
const CHARACTERS = [CESIUM_MAN, join(SHARED, 'characters/ShibaInu.gltf')];
/** The render's views, side by side: every GPU method of the registry, in its order. */
const VIEWS = SKINNING_METHODS.filter((m) => m.gpu).map((m) => m.label);
const [W, H] = [320 * VIEWS.length, 480];
const PANE = W / VIEWS.length;
/** Rows at the top of each view that hold its label (method and frame time). */
const LABEL = 40;

/** The side-by-side render of `file` at the stress pose (or only its LBS view, as large), decoded. */
async function render(file: string, out: string, lbsOnly = false): Promise<PNG> {
  const size = lbsOnly ? ['--method', 'lbs', '--size', `${PANE}x${H}`] : ['--layout', 'side', '--size', `${W}x${H}`];
  const r = await runCli('render', file, '--pose', 'stress', ...size, '-o', out);
  expect(r.code, r.stderr).toBe(0);
  return PNG.sync.read(readFileSync(out));
}

/** Per view (a pane of the width), the pixels below its label that are not the background's colour. */
function drawn(png: PNG): number[] {
  const bg = png.data.subarray(4 * (png.width * (png.height - 1) + png.width - 1)); // bottom-right corner
  return VIEWS.map((_, v) => {
    let count = 0;
    for (let y = LABEL; y < png.height; y++)
      for (let x = v * PANE; x < (v + 1) * PANE; x++) {
        const p = 4 * (y * png.width + x);
        if (Math.max(...[0, 1, 2].map((c) => Math.abs(png.data[p + c] - bg[c]))) > 16) count++;
      }
    return count;
  });
}

/**
 * Pixels of the first view (LBS) of `a`, below its label, that differ from the single-view render
 * `b` by more than 16 levels.
 */
function lbsDifference(a: PNG, b: PNG): number {
  let count = 0;
  for (let y = LABEL; y < a.height; y++)
    for (let x = 0; x < PANE; x++) {
      const p = 4 * (y * a.width + x);
      const q = 4 * (y * b.width + x);
      if (Math.max(...[0, 1, 2].map((c) => Math.abs(a.data[p + c] - b.data[q + c]))) > 16) count++;
    }
  return count;
}

describe('templates build → render, every method', () => {
  const tmp = scratch();
  afterAll(() => tmp.cleanup());
  it.each(CHARACTERS.map((f) => [f.split('/').pop()!, f]))(
    '%s: no view blank; the LBS view is the original’s',
    async (name, file) => {
      const stored = join(tmp.dir, `${name}-templates.glb`);
      const built = await runCli('templates', 'build', file, '-o', stored);
      expect(built.code, built.stderr).toBe(0);
      const after = await render(stored, join(tmp.dir, `${name}-stored.png`));
      // The original's LBS view alone (nothing to compute for it): the same picture.
      const before = await render(file, join(tmp.dir, `${name}-original.png`), true);
      const pane = (PANE * (H - LABEL)) / 100;
      const views = drawn(after);
      console.log(
        `${name}: drawn pixels per view ${views.map((c, v) => `${VIEWS[v]} ${(c / pane).toFixed(1)}%`).join(', ')}`,
      );
      for (const count of views) expect(count).toBeGreaterThan(0.5 * pane);
      expect(lbsDifference(after, before)).toBeLessThanOrEqual(0.01 * pane);
    },
    900_000,
  );
});
