/**
 * Baked files play in Babylon.js (issue 29): `corskin bake --as morphs` and `--as helpers` write
 * plain glTF that Babylon's own glTF loader loads, in Debian's headless Chromium (WebGL 2 on
 * SwiftShader), without errors or warnings, and draws as three.js does: the silhouettes (flat
 * white on transparent black, the same camera) of a frame halfway through the clip overlap with
 * intersection-over-union ≥ 0.97. The original CesiumMan passes the same comparison, so a failure
 * is the bake's, not the harness's.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, SHARED } from '../test/helpers/data.js';
import { runCli } from '../test/helpers/cli.js';
import { openTestPage } from '../test/browser/server.js';

/** What this file writes (the bundled page, the baked files, the pictures): its own folder, served from the repository. */
const OUT = join(ROOT, '.tmp', 'babylon');
const OUT_URL = '/.tmp/babylon';
mkdirSync(OUT, { recursive: true });

const SIZE = 256;
const MIN_IOU = 0.97;

interface Side {
  mask: string;
}
interface Compared {
  three: Side & { time: number; duration: number };
  babylon: Side & {
    fps: number;
    groups: string[];
    meshes: number;
    skeletons: number[];
    morphTargets: number;
    loaderErrors: string[];
    loaderWarnings: string[];
  };
}

/** Intersection over union of two 0/1 masks, and how many pixels each covers. */
function iou(a: string, b: string) {
  let inter = 0;
  let union = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] === '1';
    const y = b[i] === '1';
    if (x) na++;
    if (y) nb++;
    if (x && y) inter++;
    if (x || y) union++;
  }
  return { iou: union ? inter / union : 1, three: na, babylon: nb };
}

/** Both masks in one picture (white both, red three.js only, green Babylon only), for a look when it fails. */
function savePicture(name: string, a: string, b: string) {
  const png = new PNG({ width: SIZE, height: SIZE });
  for (let i = 0; i < a.length; i++) {
    const x = a[i] === '1';
    const y = b[i] === '1';
    png.data.set([x ? 255 : 0, y ? 255 : 0, x && y ? 255 : 0, 255], 4 * i);
  }
  writeFileSync(join(OUT, `${name}.png`), PNG.sync.write(png));
}

describe('baked files in Babylon.js against three.js', () => {
  let t: Awaited<ReturnType<typeof openTestPage>>;
  beforeAll(async () => {
    const { build } = await import('esbuild');
    await build({
      entryPoints: [join(ROOT, 'test/browser/babylon.mjs')],
      bundle: true,
      format: 'esm',
      outfile: join(OUT, 'page.js'),
      logLevel: 'error',
    });
    writeFileSync(
      join(OUT, 'index.html'),
      '<!doctype html><html><head><meta charset="utf-8" /><link rel="icon" href="data:," /></head>' +
        '<body style="margin:0"><script type="module" src="./page.js"></script></body></html>',
    );
    const input = join(SHARED, 'gltf/CesiumMan.glb');
    for (const [method, as, ...more] of [
      ['dqs', 'morphs'],
      ['cor', 'helpers'],
      // 8- and 16-bit target positions (KHR_mesh_quantization), the scale in the weights.
      ['cor', 'helpers+morphs', '--target-positions', 'short'],
    ]) {
      const r = await runCli('bake', input, '--method', method, '--as', as, ...more, '--rate', '10', '-o', join(OUT, `CesiumMan-${method}-${as}.glb`), '--force'); // prettier-ignore
      expect(r.code, r.stderr).toBe(0);
      if (more.length) console.log(r.stdout.match(/the positions as integers[^:]*: [^,]*(, \d+ in 16 bits)?/)?.[0]);
    }
    t = await openTestPage(`${OUT_URL}/index.html`);
  });
  afterAll(async () => t?.close());

  /** three.js and Babylon on `url` (Babylon at `babylonFraction` of the clip where given, else at half). */
  async function compare(url: string, babylonFraction = 0.5): Promise<Compared> {
    return (await t.page.evaluate(
      ([u, size, b]) =>
        (window as unknown as { compare: (u: string, f: number, s: number, b: number) => unknown }).compare(
          u,
          0.5,
          size,
          b,
        ),
      [url, SIZE, babylonFraction] as const,
    )) as Compared;
  }

  /** Chromium's own notes on the page's pixel reads (ANGLE on SwiftShader), not the engines'. */
  const driverNote = (m: string) => /GL Driver Message \(OpenGL, Performance/.test(m);

  const ORIGINAL = '/shared/data/gltf/CesiumMan.glb';
  it.each([
    ['the original CesiumMan', ORIGINAL],
    ['CesiumMan baked --method dqs --as morphs', `${OUT_URL}/CesiumMan-dqs-morphs.glb`],
    ['CesiumMan baked --method cor --as helpers', `${OUT_URL}/CesiumMan-cor-helpers.glb`],
    [
      'CesiumMan baked --method cor --as helpers+morphs --target-positions short',
      `${OUT_URL}/CesiumMan-cor-helpers+morphs.glb`,
    ],
  ])('%s: Babylon loads it without complaint and draws the silhouette three.js draws', async (name, url) => {
    t.errors.length = 0;
    t.warnings.length = 0;
    const r = await compare(url);
    const m = iou(r.three.mask, r.babylon.mask);
    savePicture(url.split('/').pop()!.replace('.glb', ''), r.three.mask, r.babylon.mask);
    let vsOriginal = '';
    if (url !== ORIGINAL) {
      // The bake changes the silhouette a little; Babylon draws the baked one, not the original's.
      const o = await compare(ORIGINAL);
      const baked = iou(r.three.mask, o.three.mask);
      const babylonVsOriginal = iou(r.babylon.mask, o.three.mask);
      vsOriginal = `; three.js baked vs original IoU ${baked.iou.toFixed(4)}, Babylon baked vs three.js original ${babylonVsOriginal.iou.toFixed(4)}`;
      expect(baked.iou).toBeLessThan(1);
      expect(m.iou).toBeGreaterThan(babylonVsOriginal.iou);
    }
    console.log(
      `${name}: IoU ${m.iou.toFixed(4)} (three.js ${m.three} px, Babylon ${m.babylon} px) at t = ${r.three.time.toFixed(3)} s of ${r.three.duration.toFixed(3)} s; Babylon: ${r.babylon.meshes} meshes, skeletons ${r.babylon.skeletons.join(',')}, ${r.babylon.morphTargets} morph targets, groups ${r.babylon.groups.join(',')}${vsOriginal}`,
    );
    expect(r.babylon.loaderErrors).toEqual([]);
    expect(r.babylon.loaderWarnings).toEqual([]);
    expect(t.errors).toEqual([]);
    expect(t.warnings.filter((w) => !driverNote(w))).toEqual([]);
    expect(r.babylon.groups.length).toBeGreaterThan(0);
    expect(m.three).toBeGreaterThan(0.05 * SIZE * SIZE); // a figure was drawn, not an empty frame
    expect(m.iou).toBeGreaterThanOrEqual(MIN_IOU);
  });

  it('control: Babylon at a quarter of the clip against three.js at half is far apart (the comparison sees the pose)', async () => {
    const r = await compare(ORIGINAL, 0.25);
    const m = iou(r.three.mask, r.babylon.mask);
    console.log(`control: Babylon at t/2 vs three.js at t: IoU ${m.iou.toFixed(4)}`);
    expect(m.iou).toBeLessThan(MIN_IOU - 0.05);
  });
});
