/**
 * `corskin view` (serve the viewer) and `corskin render` (a PNG of the viewer, through Debian's
 * headless Chromium driven by playwright-core — no browser is downloaded).
 * @module
 */
import { UsageError } from './batch.js';
import type { ThreeMethodId } from '../deformers/registry.js';
import { existsSync } from 'node:fs';
import { CorskinError } from '../core/errors.js';
import {
  checkNotOverwritingInput,
  checkOutputPath,
  createTempFolder,
  removeStaged,
  writeFileAtomic,
} from '../io/files.js';
import { extractSkinnedModels } from '../io/gltf.js';
import { parseTemplateChoices, TEMPLATES_METHOD_ID } from '../methods/templates/parameters.js';
import { checkStoredOrBuiltChoices } from '../methods/templates/storage.js';
import { glbBytes, readDocument } from '../io/node-io.js';
import { warnIgnored, type Io } from './ui.js';
import { serveViewer } from './viewer-server.js';
import { optionalDependency } from '../io/optional.js';
import { basename } from 'node:path';

/** Chromium's flags for headless use on a machine without a GPU or network. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * The Chromium executable: $CORSKIN_CHROMIUM, else the first of the usual paths that exists.
 * @throws CorskinError when $CORSKIN_CHROMIUM names no file, or no Chromium is found
 */
export function chromiumPath(): string {
  const chosen = process.env.CORSKIN_CHROMIUM;
  if (chosen) {
    if (!existsSync(chosen)) throw new CorskinError(`CORSKIN_CHROMIUM names ${chosen}, which does not exist`);
    return chosen;
  }
  const candidates = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
  const found = candidates.find((p) => p && existsSync(p));
  if (!found)
    throw new CorskinError('no Chromium found (install it, e.g. apt-get install chromium, or set CORSKIN_CHROMIUM)');
  return found;
}

/** Runs `corskin view`: serves the viewer until interrupted. */
export async function viewCommand(io: Io, file: string | undefined, o: { port: number }): Promise<void> {
  const server = await serveViewer(file ? await checkedGlb(file) : undefined, o.port, file && basename(file));
  io.out(
    `corskin viewer: ${server.url}${file ? `?${new URLSearchParams({ model: '/model.glb', name: basename(file) })}` : ''}  (Ctrl-C to stop; files stay on this computer)`,
  );
  await new Promise<void>((resolve) => process.once('SIGINT', resolve));
  await server.close();
}

/**
 * The input as GLB bytes after the checks a render needs: a readable skinned glTF, and the
 * joint, animation and time it names present in it.
 * @throws CorskinError naming the file otherwise
 */
async function checkedGlb(input: string, o: Partial<RenderOptions> = {}): Promise<Uint8Array> {
  const document = await readDocument(input);
  const models = extractSkinnedModels(document, input);
  for (const [name, flag] of [
    [o.joint, '--joint'],
    [o.paint, '--paint'],
  ] as const)
    if (name && !models.some((m) => m.skeleton.jointNames.slice(0, m.skeleton.skinJoints).includes(name)))
      throw new CorskinError(`${flag}: no joint named "${name}" (corskin info --joints lists them)`, input);
  const clips = document.getRoot().listAnimations();
  const names = clips.map((a, i) => a.getName() || `animation ${i}`);
  let clip = o.time !== undefined ? 0 : -1;
  if (o.animation !== undefined) {
    clip = names.includes(o.animation) ? names.indexOf(o.animation) : Number(o.animation);
    if (!(Number.isInteger(clip) && clip >= 0 && clip < clips.length))
      throw new CorskinError(
        `--animation: no animation "${o.animation}" (${names.length ? names.join(', ') : 'none'})`,
        input,
      );
  }
  if (o.time !== undefined) {
    const duration = models.reduce(
      (d, m) => Math.max(d, m.animations.find((a) => a.name === names[clip])?.duration ?? 0),
      0,
    );
    if (!clips.length) throw new CorskinError('--time given but the file has no animation', input);
    if (o.time > duration)
      throw new CorskinError(
        `--time ${o.time} s is past the end of "${names[clip]}" (${duration.toFixed(3)} s)`,
        input,
      );
  }
  if (o.template) {
    try {
      parseTemplateChoices(o.template);
    } catch (e) {
      throw e instanceof CorskinError ? new UsageError(`--template: ${e.message}`) : e;
    }
    checkStoredOrBuiltChoices(document, models, o.template, input);
  }
  return glbBytes(document);
}

/** Options of {@link renderCommand}. */
export interface RenderOptions {
  method?: ThreeMethodId;
  /** The views: a row or a grid, whichever shows the character larger (`auto`), or as named. */
  layout?: 'auto' | 'side' | 'grid' | 'single';
  /** Template choices of the templates view, `JOINT=ID,…` (as `corskin templates build --template`). */
  template?: string;
  /** Draw the templates view's cage (joint templates red, bone templates blue, bridges grey). */
  cage?: boolean;
  /** Point the camera at the posed --joint (a few bone lengths away) instead of the whole character. */
  frameJoint?: boolean;
  /** The pose under the clip and --joint: the rest pose (default) or the evaluation's stress pose at full or half amplitude. */
  pose?: 'rest' | 'stress' | 'stress-half';
  animation?: string;
  time?: number;
  joint?: string;
  twist?: number;
  bend?: number;
  /** Joint whose weights the picture shows as a heat map (the viewer's paint mode). */
  paint?: string;
  size: string;
  output: string;
  force?: boolean;
}

/** Runs `corskin render`. @throws CorskinError on bad input or without Chromium */
export async function renderCommand(io: Io, input: string, o: RenderOptions): Promise<void> {
  checkOutputPath(o.output, ['.png']);
  checkNotOverwritingInput(o.output, [input], !!o.force);
  if (o.method && o.layout && o.layout !== 'single')
    throw new UsageError(`--method shows one view: it goes with --layout single (or no --layout), not ${o.layout}`);
  const m = /^(\d+)x(\d+)$/.exec(o.size);
  if (!m) throw new UsageError(`--size must be WIDTHxHEIGHT, got "${o.size}"`);
  const [width, height] = [Number(m[1]), Number(m[2])];
  if (![width, height].every((x) => x >= 16 && x <= 8192))
    throw new UsageError(`--size: width and height must be 16 to 8192 pixels, got ${o.size}`);
  for (const [given, flag] of [
    [o.twist, '--twist'],
    [o.bend, '--bend'],
  ] as const)
    if (given !== undefined && !o.joint)
      throw new UsageError(`${flag} turns the joint --joint names: give --joint too`);
  // Read and check the file here (clear errors, no browser for a bad file, also where there is
  // no browser), and hand the viewer a self-contained GLB (a .gltf's external buffers and images
  // included).
  if (o.method && o.method !== TEMPLATES_METHOD_ID)
    for (const [given, flag] of [
      [o.template, '--template'],
      [o.cage, '--cage'],
    ] as const)
      if (given) warnIgnored(io, flag, 'the templates view', `with --method ${o.method}`, input);
  const glb = await checkedGlb(input, { ...o, template: !o.method || o.method === TEMPLATES_METHOD_ID ? o.template : undefined }); // prettier-ignore
  const executablePath = chromiumPath();
  const { chromium } = await optionalDependency(import('playwright-core'), 'playwright-core', 'corskin render');
  const server = await serveViewer(glb);
  // Playwright makes Chromium's profile and its own artifacts folder in os.tmpdir() and removes
  // them on close(), which a command stopped on its worker thread never reaches: they go into a
  // folder of ours (this thread's TMPDIR, which os.tmpdir() reads), removed by the signal handler
  // once it has stopped that Chromium (`stopChromiumIn`).
  const scratch = createTempFolder('corskin-render-');
  const tmpdir = process.env.TMPDIR;
  let browser: Awaited<ReturnType<typeof chromium.launch>> | undefined;
  try {
    process.env.TMPDIR = scratch;
    browser = await chromium
      .launch({ executablePath, args: CHROMIUM_ARGS })
      .catch((e: unknown) => {
        const first = String((e as Error).message ?? e).split('\n')[0];
        throw new CorskinError(
          `Chromium (${executablePath}) did not start: ${first} (set CORSKIN_CHROMIUM to another Chromium)`,
        );
      })
      .finally(() => (tmpdir === undefined ? delete process.env.TMPDIR : (process.env.TMPDIR = tmpdir)));
    const page = await browser.newPage({ viewport: { width, height } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const q = new URLSearchParams({
      model: '/model.glb',
      name: basename(input),
      ui: '0',
      layout: o.layout ?? (o.method ? 'single' : 'auto'),
    });
    if (o.method) q.set('method', o.method);
    if (o.pose && o.pose !== 'rest') q.set('pose', o.pose);
    if (o.animation !== undefined) q.set('animation', o.animation);
    if (o.time !== undefined) q.set('time', String(o.time));
    if (o.joint) q.set('joint', o.joint);
    if (o.twist) q.set('twist', String(o.twist));
    if (o.bend) q.set('bend', String(o.bend));
    if (o.paint) q.set('paint', o.paint);
    if (o.template) q.set('template', o.template);
    if (o.cage) q.set('cage', '1');
    if (o.frameJoint) q.set('frame', 'joint');
    await page.goto(`${server.url}?${q}`);
    try {
      // Ready, or a load error reported at once (not after the timeout).
      await page.waitForFunction(
        () => {
          const v = (window as unknown as { viewer?: { ready: boolean; error?: string } }).viewer;
          return v?.ready === true || v?.error !== undefined;
        },
        null,
        { timeout: 120_000 },
      );
    } catch {
      const status = await page
        .locator('#status')
        .textContent()
        .catch(() => '');
      throw new CorskinError(`the viewer did not get ready in 120 s: ${errors[0] ?? status ?? 'no message'}`, input);
    }
    const loadError = await page.evaluate(() => (window as unknown as { viewer: { error?: string } }).viewer.error);
    if (loadError !== undefined) throw new CorskinError(`the viewer could not load it: ${loadError}`, input);
    await page.waitForTimeout(500); // a few frames with every method switched
    if (errors.length) throw new CorskinError(`the viewer failed: ${errors[0]}`, input);
    // The canvas's rectangle of the page (no wait for the element to be "stable": a large
    // character in four views can take seconds per frame in a software renderer).
    const clip = await page.locator('canvas').boundingBox();
    const png = await page.screenshot({ clip: clip ?? undefined, timeout: 120_000 });
    await writeFileAtomic(o.output, png);
    io.out(`wrote ${o.output} (${width}×${height})`);
  } finally {
    // Whatever failed (Chromium not starting included), nothing is left running: the command exits.
    await browser?.close();
    await server.close();
    removeStaged(scratch);
  }
}
