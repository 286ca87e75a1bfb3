/**
 * A static file server for browser tests, on 127.0.0.1 with a free port: `/` is the repository
 * root (or another folder), `/shared/` is `../shared` (the test data).
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { ROOT, SHARED } from '../helpers/data.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.json': 'application/json',
  '.glb': 'model/gltf-binary',
  '.css': 'text/css',
  '.png': 'image/png',
};

export async function serve(root = ROOT): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = path.startsWith('/shared/')
      ? join(SHARED, '..', normalize(path.slice('/shared/'.length)))
      : join(root, normalize(path));
    if (!existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

/**
 * Starts the server (on `root`, default the repository) and Debian's headless Chromium on `page`,
 * waiting for `window.ready`; collects page errors and console errors and warnings.
 */
export async function openTestPage(page: string, root = ROOT) {
  const { chromium } = await import('playwright-core');
  const { CHROMIUM_ARGS, chromiumPath } = await import('../../src/cli/render.js');
  const server = await serve(root);
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  const tab = await browser.newPage();
  const errors: string[] = [];
  const warnings: string[] = [];
  tab.on('pageerror', (e) => errors.push(String(e)));
  tab.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  tab.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()));
  await tab.goto(`${server.url}${page}`);
  await tab.waitForFunction(() => (window as unknown as { ready: boolean }).ready === true, null, { timeout: 60_000 });
  return {
    page: tab,
    errors,
    warnings,
    close: async () => {
      await browser.close();
      await server.close();
    },
  };
}

/**
 * corskin's viewer (`serveViewer`, the built `viewer-dist/`) serving `file`, in Debian's headless
 * Chromium at `?query`, once `viewer.ready`; collects page errors and console errors. `open(query)`
 * opens another page on the same file and browser.
 * @throws Error without Chromium (see `chromiumPath`)
 */
export async function openViewerPage(file: string, query: string, viewport = { width: 1280, height: 720 }) {
  const { chromium } = await import('playwright-core');
  const { CHROMIUM_ARGS, chromiumPath } = await import('../../src/cli/render.js');
  const { serveViewer } = await import('../../src/cli/viewer-server.js');
  const executablePath = chromiumPath();
  const server = await serveViewer(file);
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  const errors: string[] = [];
  const open = async (q: string) => {
    const tab = await browser.newPage({ viewport });
    tab.on('pageerror', (e) => errors.push(String(e)));
    tab.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await tab.goto(`${server.url}?${q}`);
    await tab.waitForFunction(
      () => (window as unknown as { viewer?: { ready: boolean } }).viewer?.ready === true,
      null,
      {
        timeout: 180_000,
      },
    );
    return tab;
  };
  return {
    page: await open(query),
    errors,
    open,
    close: async () => {
      await browser.close();
      await server.close();
    },
  };
}
