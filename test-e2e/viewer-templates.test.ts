/**
 * Skinning templates in the viewer, end to end in headless Chromium: CesiumMan (no cage in the
 * file) gets its template cages built on a worker with progress in the status line, the cage
 * overlay is drawn, a click selects the elbow's joint template and Tab switches it with the change
 * on the next frame, a click on the upper arm selects its bone template; a template made in the
 * editor is saved, a key pose is drawn by dragging a cage vertex (it lands under the mouse), the
 * library with both is exported, re-imported into a fresh viewer and applied to the other arm; the export (cages and choices) validates and reopens with the same choices, the baked
 * export validates.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openViewerPage } from '../test/browser/server.js';
import { CESIUM_MAN, ROOT, SHARED } from '../test/helpers/data.js';
import { validate } from '../test/helpers/gltf.js';
import { pinchStoredCageRing } from '../test/helpers/templates.js';
import { NodeIO } from '@gltf-transform/core';
import { PNG } from 'pngjs';

/** What this file writes (pictures to look at, exported files): its own folder, made here. */
const OUT = join(ROOT, '.tmp', 'viewer-templates');
mkdirSync(OUT, { recursive: true });

type Slot = { joint: string; slot: string; bone: string; jointTemplate: string };
type Viewer = {
  ready: boolean;
  exportTemplates: (baked: boolean) => Promise<string>;
  loadBytes: (base64: string, name: string) => Promise<void>;
  importLibrary: (text: string, name: string) => void;
  libraryJson: () => string;
  saveTemplate: () => void;
  switchTemplate: (id: string) => void;
  cageVertices: () => { vertex: number; x: number; y: number; template: string; joint: string }[];
  dragCageVertex: (x0: number, y0: number, x1: number, y1: number) => Promise<boolean>;
  status: () => string;
  settings: Record<string, unknown>;
  statusLog: () => string[];
  cageSummary: () => { visible: boolean; edges: number; sum: number; cages: number; meshes: number };
  jointScreen: (name: string) => { x: number; y: number } | undefined;
  templateSlot: () => Slot;
  frameJoint: () => void;
};
const ELBOW = 'Skeleton_arm_joint_L__3_';
const SHOULDER = 'Skeleton_arm_joint_L__4_';

describe('skinning templates in the viewer', () => {
  let viewer: Awaited<ReturnType<typeof openViewerPage>>;
  let page: Page;
  let errors: string[] = [];
  const v = <T>(fn: (viewer: Viewer) => T) => page.evaluate(`(${fn.toString()})(window.viewer)`) as Promise<Awaited<T>>;
  /** The picture after the next animation frame (the canvas keeps its drawing buffer). */
  const nextFrame = async () => {
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    return page.locator('canvas').screenshot();
  };
  const click = async (name: string, towards?: string) => {
    const p = await page.evaluate((n) => (window as unknown as { viewer: Viewer }).viewer.jointScreen(n), name);
    const q = towards
      ? await page.evaluate((n) => (window as unknown as { viewer: Viewer }).viewer.jointScreen(n), towards)
      : undefined;
    const at = q ? { x: (p!.x + q.x) / 2, y: (p!.y + q.y) / 2 } : p!;
    await page.mouse.click(at.x, at.y);
  };

  beforeAll(async () => {
    viewer = await openViewerPage(
      CESIUM_MAN,
      'model=/model.glb&name=CesiumMan.glb&time=0.5&layout=single&method=templates&cage=1',
    );
    ({ page, errors } = viewer);
  }, 600_000);
  afterAll(async () => viewer?.close());

  it('builds the cages of a file without one on a worker, showing progress', async () => {
    const log = await v((x) => x.statusLog());
    const progress = log.filter((l) => /fitting and binding template cages \d+%/.test(l));
    expect(progress.length).toBeGreaterThan(1);
    expect(log.at(-1)).toContain('CesiumMan.glb: ready');
    expect(errors).toEqual([]);
  });

  it('draws the cage overlay (joint templates red, bone templates blue, bridges grey)', async () => {
    const cage = await v((x) => x.cageSummary());
    expect(cage.visible).toBe(true);
    expect(cage.edges).toBeGreaterThan(100);
    const with_ = await nextFrame();
    await page.evaluate(() => ((window as unknown as { viewer: Viewer }).viewer.settings.cage = false));
    const without = await nextFrame();
    expect(with_.equals(without)).toBe(false);
    writeFileSync(join(OUT, 'viewer-templates-cage.png'), with_);
    await page.evaluate(() => ((window as unknown as { viewer: Viewer }).viewer.settings.cage = true));
  });

  it('a click on the elbow selects its joint template; Tab switches it and the next frame shows it', async () => {
    await page.evaluate(
      ([elbow]) => {
        const x = (window as unknown as { viewer: Viewer }).viewer;
        x.settings.joint = elbow;
        x.settings.bend = 100;
        x.settings.cage = false;
        x.frameJoint();
      },
      [ELBOW],
    );
    await nextFrame();
    await click(ELBOW);
    const slot = await v((x) => x.templateSlot());
    expect(slot).toMatchObject({ joint: ELBOW, slot: 'joint' });
    const before = await nextFrame();
    await page.keyboard.press('Tab');
    const after = await nextFrame();
    const switched = await v((x) => x.templateSlot());
    expect(switched.jointTemplate).not.toBe(slot.jointTemplate);
    expect(before.equals(after)).toBe(false);
    writeFileSync(join(OUT, 'viewer-templates-elbow.png'), after);
    expect(errors).toEqual([]);
  });

  it('a click on the upper arm selects its bone template; Tab brings the next one (muscle bulge)', async () => {
    await click(SHOULDER, ELBOW);
    const slot = await v((x) => x.templateSlot());
    expect(slot).toMatchObject({ joint: SHOULDER, slot: 'bone' });
    const before = await nextFrame();
    await page.keyboard.press('Tab');
    const after = await nextFrame();
    expect((await v((x) => x.templateSlot())).bone).not.toBe(slot.bone);
    expect(before.equals(after)).toBe(false);
    expect(errors).toEqual([]);
  });

  it('a template made in the editor is saved into the library and put on the selected slot', async () => {
    await page.evaluate(() => {
      const x = (window as unknown as { viewer: Viewer }).viewer;
      Object.assign(x.settings, {
        editId: 'big-biceps',
        editSide: 'inner',
        editBend: 90,
        editBulge: 0.8,
        editSlide: 0.05,
      });
      x.saveTemplate();
    });
    expect((await v((x) => x.templateSlot())).bone).toBe('big-biceps');
    const library = JSON.parse(await v((x) => x.libraryJson()));
    expect(library.templates.find((t: { id: string }) => t.id === 'big-biceps')).toMatchObject({
      kind: 'bone',
      keyPoses: [
        { bend: 0, bulge: 0 },
        { bend: 90, bulge: 0.8, slide: 0.05 },
      ],
    });
    writeFileSync(join(OUT, 'viewer-library.json'), JSON.stringify(library));
    writeFileSync(join(OUT, 'viewer-templates-biceps.png'), await nextFrame());
  });

  it('the editor draws a key pose: a cage vertex of the upper arm dragged with "draw" on lands under the mouse, in a new template saved in the library', async () => {
    await page.evaluate(() => {
      const x = (window as unknown as { viewer: Viewer }).viewer;
      Object.assign(x.settings, { editId: 'drawn-biceps', editDraw: true, cage: false });
    });
    const before = await nextFrame();
    await page.evaluate(() => ((window as unknown as { viewer: Viewer }).viewer.settings.cage = true));
    await nextFrame();
    const box = page.viewportSize()!;
    const vertices = await v((x) => x.cageVertices());
    const mine = vertices.filter((p) => p.joint === SHOULDER && p.template.includes('/bone/'));
    const onScreen = mine.filter((p) => p.x > 50 && p.x < box.width - 300 && p.y > 50 && p.y < box.height - 50);
    expect(onScreen.length).toBeGreaterThan(4);
    // The vertex farthest from its template's centre on screen, dragged 15 px further out.
    const cx = mine.reduce((t, p) => t + p.x, 0) / mine.length;
    const cy = mine.reduce((t, p) => t + p.y, 0) / mine.length;
    const pick = onScreen.reduce((a, b) => (Math.hypot(b.x - cx, b.y - cy) > Math.hypot(a.x - cx, a.y - cy) ? b : a));
    const l = Math.hypot(pick.x - cx, pick.y - cy);
    const to = { x: pick.x + (15 * (pick.x - cx)) / l, y: pick.y + (15 * (pick.y - cy)) / l };
    await page.mouse.move(pick.x, pick.y);
    await page.mouse.down();
    await page.mouse.move(to.x, to.y, { steps: 4 });
    await page.mouse.up();
    expect(await v((x) => x.status())).toMatch(/"drawn-biceps" drawn: vertex \d+ moved in its key pose at [\d.]+°/);
    expect((await v((x) => x.templateSlot())).bone).toBe('drawn-biceps');
    await nextFrame();
    const moved = (await v((x) => x.cageVertices())).find((p) => p.vertex === pick.vertex)!;
    console.log(
      `drawn vertex: ${Math.hypot(moved.x - to.x, moved.y - to.y).toFixed(2)} px from the mouse (dragged 15 px)`,
    );
    expect(Math.hypot(moved.x - to.x, moved.y - to.y)).toBeLessThan(1);
    await page.evaluate(() => ((window as unknown as { viewer: Viewer }).viewer.settings.cage = false));
    const after = await nextFrame();
    expect(before.equals(after)).toBe(false);
    writeFileSync(join(OUT, 'viewer-templates-drawn.png'), after);
    const library = JSON.parse(await v((x) => x.libraryJson()));
    expect(library.version).toBe(3); // drawn offsets (2) in a library with joint templates for more bones and caps (3)
    const drawn = library.templates.find((t: { id: string }) => t.id === 'drawn-biceps');
    // big-biceps (the slot's template) with a key pose at this bend that carries the drawn offsets.
    type Key = { bend: number; offsets?: number[][] };
    const keys = drawn.keyPoses as Key[];
    expect(keys.length).toBe(3);
    const withOffsets = keys.filter((k) => k.offsets?.flat().some((x) => x !== 0));
    expect(withOffsets.length).toBe(1);
    expect(withOffsets[0].bend).toBeGreaterThan(1);
    writeFileSync(join(OUT, 'viewer-library.json'), JSON.stringify(library));
    await page.evaluate(() => ((window as unknown as { viewer: Viewer }).viewer.settings.editDraw = false));
    expect(errors).toEqual([]);
  });

  it('dragging a cage vertex outwards binds the skin again: the cage and the deformed skin change', async () => {
    await page.evaluate(() => ((window as unknown as { viewer: Viewer }).viewer.settings.cage = true));
    await nextFrame();
    const vertices = await v((x) => x.cageVertices());
    const box = page.viewportSize()!;
    // A vertex well inside the picture, dragged 12 px away from its template's centre on screen.
    const onScreen = vertices.filter((p) => p.x > 50 && p.x < box.width - 300 && p.y > 50 && p.y < box.height - 50);
    const pick = onScreen[Math.floor(onScreen.length / 2)];
    const ring = vertices.filter((p) => p.template === pick.template);
    const cx = ring.reduce((t, p) => t + p.x, 0) / ring.length;
    const cy = ring.reduce((t, p) => t + p.y, 0) / ring.length;
    const l = Math.hypot(pick.x - cx, pick.y - cy) || 1;
    const to = { x: pick.x + (12 * (pick.x - cx)) / l, y: pick.y + (12 * (pick.y - cy)) / l };
    const cageBefore = await v((x) => x.cageSummary());
    await page.evaluate(() => ((window as unknown as { viewer: Viewer }).viewer.settings.cage = false));
    const before = await nextFrame();
    await page.evaluate(() => ((window as unknown as { viewer: Viewer }).viewer.settings.cage = true));
    await nextFrame();
    // With the mouse, as a user drags.
    await page.mouse.move(pick.x, pick.y);
    await page.mouse.down();
    await page.mouse.move(to.x, to.y, { steps: 4 });
    await page.mouse.up();
    await page.waitForFunction(() =>
      /bound again|refused/.test((window as unknown as { viewer: Viewer }).viewer.status()),
    );
    expect(await v((x) => x.status())).toMatch(/skin bound again in/);
    await nextFrame();
    expect((await v((x) => x.cageSummary())).sum).not.toBe(cageBefore.sum);
    await page.evaluate(() => ((window as unknown as { viewer: Viewer }).viewer.settings.cage = false));
    const after = await nextFrame();
    expect(before.equals(after)).toBe(false);
    writeFileSync(join(OUT, 'viewer-templates-dragged.png'), after);
    expect(errors).toEqual([]);
  });

  it('exports the cages and choices: the file validates and reopens with the same choices', async () => {
    const bytes = await page.evaluate(() => (window as unknown as { viewer: Viewer }).viewer.exportTemplates(false));
    const file = join(OUT, 'viewer-templates-export.glb');
    writeFileSync(file, Buffer.from(bytes, 'base64'));
    expect((await validate(file)).issues.numErrors).toBe(0);
    const baked = await page.evaluate(() => (window as unknown as { viewer: Viewer }).viewer.exportTemplates(true));
    const bakedFile = join(OUT, 'viewer-templates-baked.glb');
    writeFileSync(bakedFile, Buffer.from(baked, 'base64'));
    expect((await validate(bakedFile)).issues.numErrors).toBe(0);
    // Reopen the export: the stored rig is read (no build), with the elbow's and the upper arm's choices.
    const elbow = await page.evaluate(() => (window as unknown as { viewer: Viewer }).viewer.templateSlot());
    await page.evaluate(([data]) => (window as unknown as { viewer: Viewer }).viewer.loadBytes(data, 'reopened.glb'), [
      bytes,
    ] as const);
    await page.waitForFunction(() => (window as unknown as { viewer: Viewer }).viewer.ready === true);
    const log = await v((x) => x.statusLog());
    expect(log.filter((l) => l.startsWith('reopened.glb') && l.includes('template cages'))).toEqual([]); // nothing built
    await page.evaluate(
      ([j]) => {
        const x = (window as unknown as { viewer: Viewer }).viewer;
        x.settings.joint = j;
      },
      [SHOULDER],
    );
    await click(SHOULDER, ELBOW);
    expect(await v((x) => x.templateSlot())).toMatchObject({ joint: SHOULDER, bone: elbow.bone });
    await click(ELBOW);
    const reopened = await v((x) => x.templateSlot());
    expect(reopened.joint).toBe(ELBOW);
    expect(reopened.jointTemplate).not.toBe('radial-joint'); // the switch made before the export
    expect(log.at(-1)).toBe('reopened.glb: ready — drop another .glb to compare on it'); // no warning
    // The export edited elsewhere so that skin lies outside its cage: a warning once ready.
    const io = new NodeIO();
    const doc = await io.readBinary(Buffer.from(bytes, 'base64'));
    pinchStoredCageRing(doc, 'export', 1, 0.95);
    const edited = Buffer.from(await io.writeBinary(doc)).toString('base64');
    await page.evaluate(([data]) => (window as unknown as { viewer: Viewer }).viewer.loadBytes(data, 'edited.glb'), [
      edited,
    ] as const);
    await page.waitForFunction(() => (window as unknown as { viewer: Viewer }).viewer.ready === true);
    expect(await v((x) => x.status())).toMatch(
      /^edited\.glb: ready — ⚠ .*: \d+ skin vertices lie outside the stored template cage \(first: \d+/,
    );
    expect(errors).toEqual([]);
  });

  it('a character of 9 meshes of one skin (rpm-avatar) gets one cage; a cage drag binds every mesh again; the export keeps the cage', async () => {
    const rpm = await viewer.open('model=/model.glb&name=CesiumMan.glb&layout=single&method=templates&cage=1');
    try {
      const x = <T>(fn: (viewer: Viewer) => T) => rpm.evaluate(`(${fn.toString()})(window.viewer)`) as Promise<Awaited<T>>; // prettier-ignore
      const data = readFileSync(join(SHARED, 'characters', 'rpm-avatar.glb')).toString('base64');
      await rpm.evaluate(([d]) => (window as unknown as { viewer: Viewer }).viewer.loadBytes(d, 'rpm-avatar.glb'), [data] as const); // prettier-ignore
      await rpm.waitForFunction(() => (window as unknown as { viewer: Viewer }).viewer.ready === true, undefined, { timeout: 120_000 }); // prettier-ignore
      await rpm.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      expect(await x((v) => v.cageSummary())).toMatchObject({ visible: true, cages: 1, meshes: 9 });
      // The vertex nearest the picture's centre, dragged outwards from the cage's centre on screen.
      const vertices = await x((v) => v.cageVertices());
      const cx = vertices.reduce((t, p) => t + p.x, 0) / vertices.length;
      const cy = vertices.reduce((t, p) => t + p.y, 0) / vertices.length;
      const pick = vertices.reduce((a, b) => (Math.hypot(b.x - cx, b.y - cy) < Math.hypot(a.x - cx, a.y - cy) ? b : a)); // prettier-ignore
      const ring = vertices.filter((p) => p.template === pick.template);
      const rx = ring.reduce((t, p) => t + p.x, 0) / ring.length, ry = ring.reduce((t, p) => t + p.y, 0) / ring.length; // prettier-ignore
      const l = Math.hypot(pick.x - rx, pick.y - ry) || 1;
      const moved = await rpm.evaluate(
        ([p, q]) => (window as unknown as { viewer: Viewer }).viewer.dragCageVertex(p.x, p.y, q.x, q.y),
        [pick, { x: pick.x + (10 * (pick.x - rx)) / l, y: pick.y + (10 * (pick.y - ry)) / l }] as const,
      );
      const status = await x((v) => v.status());
      console.log(`rpm-avatar cage drag: ${status}`);
      expect(moved).toBe(true);
      expect(status).toMatch(/skin bound again in/);
      expect((await x((v) => v.cageSummary())).cages).toBe(1);
      const bytes = await rpm.evaluate(() => (window as unknown as { viewer: Viewer }).viewer.exportTemplates(false));
      expect(await x((v) => v.status())).not.toContain('left out');
      const file = join(OUT, 'viewer-rpm-templates.glb');
      writeFileSync(file, Buffer.from(bytes, 'base64'));
      expect((await validate(file)).issues.numErrors).toBe(0);
    } finally {
      await rpm.close();
    }
  }, 900_000);

  it('a fresh viewer imports the library and puts the new template on the other arm', async () => {
    const fresh = await viewer.open('model=/model.glb&name=CesiumMan.glb&time=0.5&layout=single&method=templates');
    try {
      const json = readFileSync(join(OUT, 'viewer-library.json'), 'utf8');
      const slot = await fresh.evaluate(
        ([text, joint]) => {
          const x = (window as unknown as { viewer: Viewer }).viewer;
          x.importLibrary(text, 'viewer-library.json');
          x.settings.joint = joint;
          x.settings.slot = 'bone';
          x.switchTemplate('big-biceps');
          return x.templateSlot();
        },
        [json, 'Skeleton_arm_joint_R'] as const,
      );
      expect(slot).toMatchObject({ joint: 'Skeleton_arm_joint_R', bone: 'big-biceps' });
      expect(await fresh.evaluate(() => (window as unknown as { viewer: Viewer }).viewer.status())).toContain(
        'now uses the "big-biceps" template',
      );
      // The drawn template on the right upper arm, its elbow bent: the picture changes.
      const shot = async () => {
        await fresh.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        return fresh.locator('canvas').screenshot();
      };
      await fresh.evaluate(() => {
        const x = (window as unknown as { viewer: Viewer }).viewer;
        x.settings.bend = 100;
        x.switchTemplate('radial-bone');
      });
      const radial = await shot();
      const drawn = await fresh.evaluate(() => {
        const x = (window as unknown as { viewer: Viewer }).viewer;
        x.switchTemplate('drawn-biceps');
        return x.templateSlot();
      });
      expect(drawn).toMatchObject({ joint: 'Skeleton_arm_joint_R', bone: 'drawn-biceps' });
      expect(radial.equals(await shot())).toBe(false);
    } finally {
      await fresh.close();
    }
  });

  it('draws the cage overlay, its vertices marked, on a page opened at the stress pose (it was culled there)', async () => {
    const query = 'model=/model.glb&name=CesiumMan.glb&layout=single&method=templates&pose=stress';
    const shot = async (q: string) => {
      const tab = await viewer.open(q);
      try {
        await tab.waitForFunction(() => !/fitting|binding/.test(document.getElementById('status')?.textContent ?? ''));
        await tab.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        return PNG.sync.read(await tab.locator('canvas').screenshot());
      } finally {
        await tab.close();
      }
    };
    const without = await shot(query);
    const drawn = await shot(`${query}&cage=1`);
    // Pure white: the vertex handles (the skin is shaded, the cage's edges red and blue).
    let changed = 0;
    let handles = 0;
    for (let k = 0; k < drawn.data.length; k += 4) {
      if (Math.abs(drawn.data[k] - without.data[k]) + Math.abs(drawn.data[k + 2] - without.data[k + 2]) > 60) changed++;
      if (drawn.data[k] === 255 && drawn.data[k + 1] === 255 && drawn.data[k + 2] === 255 && without.data[k] !== 255)
        handles++;
    }
    expect(changed / (drawn.data.length / 4)).toBeGreaterThan(0.01);
    expect(handles).toBeGreaterThan(100);
    expect(errors).toEqual([]);
  });
});
