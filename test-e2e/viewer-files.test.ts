/**
 * The viewer, in headless Chromium, given a `.gltf` with its files beside it (a Sketchfab
 * download, Blender's "glTF Separate"): picked together or dropped together it loads, with its
 * texture, and exports a self-contained .glb; given alone it says which files it needs.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, chromiumPath } from '../src/cli/render.js';
import { serveViewer } from '../src/cli/viewer-server.js';
import { createIO } from '../src/io/node-io.js';
import { ARM_GLB, CESIUM_MAN, scratch } from '../test/helpers/data.js';
import { validate } from '../test/helpers/gltf.js';

type Viewer = { ready: boolean; exportGlb: () => Promise<string> };

describe('the viewer given a .gltf with separate files', () => {
  const tmp = scratch();
  const dir = join(tmp.dir, 'cesium');
  let files: string[] = [];
  let server: Awaited<ReturnType<typeof serveViewer>>;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const status = () => page.evaluate(() => document.getElementById('status')?.textContent ?? '');
  const readyAs = (name: string) =>
    page.waitForFunction((n) => document.getElementById('status')?.textContent?.startsWith(`${n}: ready`), name, {
      timeout: 120_000,
    });

  beforeAll(async () => {
    // CesiumMan as .gltf + .bin + its texture in a subfolder, named with a space (percent-encoded
    // in the URI, as Blender writes it).
    const io = await createIO();
    const doc = await io.read(CESIUM_MAN);
    doc
      .getRoot()
      .listTextures()
      .forEach((t, k) => t.setURI(`textures/skin%20${k}.${t.getMimeType() === 'image/png' ? 'png' : 'jpg'}`));
    mkdirSync(dir);
    await io.write(join(dir, 'cesium.gltf'), doc);
    files = readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((d) => d.isFile())
      .map((d) => join(d.parentPath, d.name));
    expect(files.length).toBeGreaterThanOrEqual(3); // .gltf, .bin, a texture

    server = await serveViewer(ARM_GLB);
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 800, height: 400 } });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(`${server.url}?model=/model.glb&name=arm.glb`);
    await readyAs('arm.glb');
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    tmp.cleanup();
  });

  it('picked alone, it names the files it needs and keeps the character shown', async () => {
    await page.setInputFiles('#file', join(dir, 'cesium.gltf'));
    await page.waitForFunction(() =>
      document.getElementById('status')?.textContent?.startsWith('could not load cesium.gltf'),
    );
    expect(await status()).toBe(
      'could not load cesium.gltf: it refers to files not given (cesium.bin, textures/skin 0.png): pick them together with the .gltf, or drop the folder that holds them',
    );
    expect(await page.evaluate(() => (window as unknown as { viewer: Viewer }).viewer.ready)).toBe(true);
    expect(errors).toEqual([]);
  });

  it('picked with its files, it loads with its texture and exports a self-contained .glb with centers', async () => {
    await page.setInputFiles('#file', files);
    await readyAs('cesium.gltf');
    const bytes = await page.evaluate(() => (window as unknown as { viewer: Viewer }).viewer.exportGlb());
    const out = join(tmp.dir, 'cesium-cor.glb');
    writeFileSync(out, Buffer.from(bytes, 'base64'));
    expect((await validate(out)).issues.numErrors).toBe(0);
    const root = (await new NodeIO().read(out)).getRoot();
    // The texture is the file's, byte for byte.
    const texture = readFileSync(files.find((f) => /skin 0\.(png|jpg)$/.test(f))!);
    expect(root.listTextures().map((t) => Buffer.from(t.getImage()!).equals(texture))).toEqual([true]);
    for (const p of root.listMeshes().flatMap((m) => m.listPrimitives()))
      expect(p.getAttribute('_CENTER_OF_ROTATION')?.getCount()).toBe(p.getAttribute('POSITION')!.getCount());
    expect(errors).toEqual([]); // three.js logs a texture it cannot load as an error
  });

  // A DataTransfer made by a script has no entries (webkitGetAsEntry gives null), so this is the
  // drop of files without folders; the walk of a dropped folder is tested on a fake entry tree
  // (test/viewer-files.test.ts).
  it('dropped with its files, it loads', async () => {
    await page.setInputFiles('#file', ARM_GLB);
    await readyAs('arm.glb');
    const given = files.map((f) => ({
      name: f.slice(f.lastIndexOf('/') + 1),
      base64: readFileSync(f).toString('base64'),
    }));
    await page.evaluate((list) => {
      const transfer = new DataTransfer();
      for (const { name, base64 } of list)
        transfer.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name));
      window.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, cancelable: true }));
    }, given);
    await readyAs('cesium.gltf');
    expect(errors).toEqual([]);
  });
});
