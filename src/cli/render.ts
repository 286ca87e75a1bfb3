/**
 * `corskin view` (serve the viewer) and `corskin render` (a PNG of the viewer, through Debian's
 * headless Chromium driven by playwright-core — no browser is downloaded).
 * @module
 */
import { existsSync } from 'node:fs';
import { CorskinError } from '../core/errors.js';
import { checkNotOverwritingInput, writeFileAtomic } from '../io/files.js';
import type { Io } from './ui.js';
import { serveViewer } from './viewer-server.js';

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

/** The Chromium executable: $CORSKIN_CHROMIUM, else the first of the usual paths that exists. */
export function chromiumPath(): string {
  const candidates = [
    process.env.CORSKIN_CHROMIUM,
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
  ];
  const found = candidates.find((p) => p && existsSync(p));
  if (!found)
    throw new CorskinError('no Chromium found (install it, e.g. apt-get install chromium, or set CORSKIN_CHROMIUM)');
  return found;
}

/** Runs `corskin view`: serves the viewer until interrupted. */
export async function viewCommand(io: Io, file: string | undefined, o: { port: number }): Promise<void> {
  const server = await serveViewer(file, o.port);
  io.out(
    `corskin viewer: ${server.url}${file ? '?model=/model.glb' : ''}  (Ctrl-C to stop; files stay on this computer)`,
  );
  await new Promise<void>((resolve) => process.once('SIGINT', resolve));
  await server.close();
}

/** Options of {@link renderCommand}. */
export interface RenderOptions {
  method?: 'lbs' | 'dqs' | 'cor';
  layout?: 'side' | 'single';
  animation?: string;
  time?: number;
  joint?: string;
  twist?: number;
  bend?: number;
  size: string;
  output: string;
  force?: boolean;
}

/** Runs `corskin render`. @throws CorskinError on bad input or without Chromium */
export async function renderCommand(io: Io, input: string, o: RenderOptions): Promise<void> {
  checkNotOverwritingInput(o.output, [input], !!o.force);
  const m = /^(\d+)x(\d+)$/.exec(o.size);
  if (!m) throw new CorskinError(`--size must be WIDTHxHEIGHT, got "${o.size}"`);
  const [width, height] = [Number(m[1]), Number(m[2])];
  const executablePath = chromiumPath();
  const server = await serveViewer(input);
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width, height } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const q = new URLSearchParams({ model: '/model.glb', ui: '0', layout: o.layout ?? (o.method ? 'single' : 'side') });
    if (o.method) q.set('method', o.method);
    if (o.animation !== undefined) q.set('animation', o.animation);
    if (o.time !== undefined) q.set('time', String(o.time));
    if (o.joint) q.set('joint', o.joint);
    if (o.twist) q.set('twist', String(o.twist));
    if (o.bend) q.set('bend', String(o.bend));
    await page.goto(`${server.url}?${q}`);
    await page.waitForFunction(
      () => (window as unknown as { viewer?: { ready: boolean } }).viewer?.ready === true,
      null,
      { timeout: 120_000 },
    );
    await page.waitForTimeout(500); // a few frames with every method switched
    if (errors.length) throw new CorskinError(`the viewer failed: ${errors[0]}`, input);
    const png = await page.locator('canvas').screenshot();
    await writeFileAtomic(o.output, png);
    io.out(`wrote ${o.output} (${width}×${height})`);
  } finally {
    await browser.close();
    await server.close();
  }
}
