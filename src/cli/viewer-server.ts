/**
 * A static server for the built viewer (`viewer-dist/`) on 127.0.0.1, with the user's file (if
 * any) at `/model.glb` — it never leaves this computer: GET and HEAD only, requests whose Host is
 * not this loopback address and port refused (DNS rebinding), malformed escapes answered 400.
 * @module
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CorskinError } from '../core/errors.js';

/** The built viewer (`npm run build:viewer`). */
export const VIEWER_DIST = fileURLToPath(new URL('../../viewer-dist', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.glb': 'model/gltf-binary',
  '.gltf': 'model/gltf+json',
  '.png': 'image/png',
};

/**
 * Starts the server.
 * @param model path of a .glb to serve as `/model.glb`, or its bytes (what `render` and `view`
 *   serve: the checked file as one self-contained GLB)
 * @param port 0 for any free port
 * @param name the model's file name, for the page (a visit to `/` without a `model` parameter is
 *   sent to the model's page)
 * @throws CorskinError when the viewer has not been built or the model cannot be read
 */
export async function serveViewer(
  model?: string | Uint8Array,
  port = 0,
  name?: string,
): Promise<{ url: string; close: () => Promise<void> }> {
  if (!existsSync(join(VIEWER_DIST, 'index.html')))
    throw new CorskinError(`the viewer is not built (${VIEWER_DIST}); run npm run build`);
  if (typeof model === 'string' && !(existsSync(model) && statSync(model).isFile()))
    throw new CorskinError('cannot read: no such file', model);
  let hosts = new Set<string>();
  const server = createServer((req, res) => {
    // Only this computer's requests for files: GET/HEAD, a loopback Host (no DNS rebinding).
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return void res.writeHead(405, { allow: 'GET, HEAD' }).end('method not allowed');
    if (!hosts.has(req.headers.host ?? '')) return void res.writeHead(403).end('forbidden host');
    let url: URL;
    let path: string;
    try {
      url = new URL(req.url ?? '/', 'http://x');
      path = decodeURIComponent(url.pathname);
    } catch {
      return void res.writeHead(400).end('bad request');
    }
    // The address without its query (typed, or bookmarked): the model's page, not the bundled arm.
    if (path === '/' && model && !url.searchParams.has('model')) {
      const query = new URLSearchParams(url.search); // the page's other parameters kept
      query.set('model', '/model.glb');
      if (name && !query.has('name')) query.set('name', name);
      return void res.writeHead(302, { location: `/?${query}` }).end();
    }
    if (path === '/model.glb' && model instanceof Uint8Array) {
      res.writeHead(200, { 'content-type': TYPES['.glb'] });
      return void res.end(model);
    }
    const file =
      path === '/model.glb' && typeof model === 'string'
        ? model
        : join(VIEWER_DIST, normalize(path === '/' ? '/index.html' : path));
    if (!file.startsWith(VIEWER_DIST) && file !== model) return void res.writeHead(403).end();
    if (!existsSync(file) || !statSync(file).isFile()) return void res.writeHead(404).end('not found');
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) => reject(new CorskinError(`cannot listen on port ${port}: ${(e as Error).message}`)));
    server.listen(port, '127.0.0.1', resolve);
  });
  const { port: p } = server.address() as { port: number };
  hosts = new Set([`127.0.0.1:${p}`, `localhost:${p}`]);
  return { url: `http://127.0.0.1:${p}/`, close: () => new Promise((r) => server.close(() => r())) };
}
