/**
 * The round trip of stored skinning templates on every shared character and CesiumMan: a file
 * written by `corskin templates build` renders through `corskin render` with every method (LBS,
 * DQS, CoR, templates side by side, at the stress pose) — no view blank — and its LBS view is the
 * original's, pixel for pixel but for the frame-time label.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../test/helpers/cli.js';
import { CESIUM_MAN, scratch, SHARED } from '../test/helpers/data.js';

const CHARACTERS = [
  CESIUM_MAN,
  ...['Fox.glb', 'ShibaInu.gltf', 'Soldier.glb', 'Ybot.glb', 'chicken.glb', 'rpm-avatar.glb', 'skeleton.glb'].map((f) =>
    join(SHARED, 'characters', f),
  ),
];
const [W, H] = [1600, 480];
const VIEWS = ['LBS', 'DQS', 'CoR', 'templates'];
/** Rows at the top of each view that hold its label (method and frame time). */
const LABEL = 40;

/** The side-by-side render of `file` at the stress pose, decoded. */
async function render(file: string, out: string): Promise<PNG> {
  const r = await runCli('render', file, '--pose', 'stress', '--layout', 'side', '--size', `${W}x${H}`, '-o', out);
  expect(r.code, r.stderr).toBe(0);
  return PNG.sync.read(readFileSync(out));
}

/** Per view (a quarter of the width), the pixels below its label that are not the background's colour. */
function drawn(png: PNG): number[] {
  const bg = png.data.subarray(4 * (png.width * (png.height - 1) + png.width - 1)); // bottom-right corner
  return VIEWS.map((_, v) => {
    let count = 0;
    for (let y = LABEL; y < png.height; y++)
      for (let x = (v * png.width) / 4; x < ((v + 1) * png.width) / 4; x++) {
        const p = 4 * (y * png.width + x);
        if (Math.max(...[0, 1, 2].map((c) => Math.abs(png.data[p + c] - bg[c]))) > 16) count++;
      }
    return count;
  });
}

/** Pixels of the first view (LBS), below its label, that differ between two renders by more than 16 levels. */
function lbsDifference(a: PNG, b: PNG): number {
  let count = 0;
  for (let y = LABEL; y < a.height; y++)
    for (let x = 0; x < a.width / 4; x++) {
      const p = 4 * (y * a.width + x);
      if (Math.max(...[0, 1, 2].map((c) => Math.abs(a.data[p + c] - b.data[p + c]))) > 16) count++;
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
      const before = await render(file, join(tmp.dir, `${name}-original.png`));
      const pane = ((W / 4) * (H - LABEL)) / 100;
      const views = drawn(after);
      console.log(
        `${name}: drawn pixels per view ${views.map((c, v) => `${VIEWS[v]} ${(c / pane).toFixed(1)}%`).join(', ')}`,
      );
      for (const count of views) expect(count).toBeGreaterThan(0.5 * pane);
      expect(lbsDifference(after, before)).toBeLessThanOrEqual(0.01 * pane);
    },
    300_000,
  );
});
