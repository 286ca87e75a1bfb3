/**
 * The viewer's local server answers only this computer's file requests: malformed escapes are
 * 400 (and it keeps serving), a foreign Host header 403, other methods 405, and 200 concurrent
 * requests from localhost all succeed.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveViewer } from '../src/cli/viewer-server.js';
import { runCli } from './helpers/cli.js';
import { CESIUM_MAN } from './helpers/data.js';

function get(url: string, options: { method?: string; host?: string; path?: string } = {}): Promise<number> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: options.path ?? u.pathname,
        method: options.method ?? 'GET',
        headers: options.host ? { host: options.host } : {},
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('the viewer server', () => {
  let server: Awaited<ReturnType<typeof serveViewer>>;
  beforeAll(async () => {
    server = await serveViewer(CESIUM_MAN);
  });
  afterAll(() => server?.close());

  it('answers a malformed percent-escape with 400 and keeps serving', async () => {
    expect(await get(server.url, { path: '/%E0%A4%A' })).toBe(400);
    expect(await get(server.url)).toBe(200);
  });

  it('refuses a foreign Host header (DNS rebinding) and any method but GET and HEAD', async () => {
    expect(await get(server.url, { host: 'evil.example:80' })).toBe(403);
    expect(await get(server.url, { method: 'POST' })).toBe(405);
    expect(await get(server.url, { method: 'DELETE' })).toBe(405);
    expect(await get(server.url, { method: 'HEAD' })).toBe(200);
    expect(await get(new URL('model.glb', server.url).href)).toBe(200);
  });

  it('serves 200 concurrent requests from localhost', async () => {
    const codes = await Promise.all(Array.from({ length: 200 }, () => get(new URL('model.glb', server.url).href)));
    expect(codes.every((c) => c === 200)).toBe(true);
  });

  it('refuses a port number beyond 65535 as bad usage', async () => {
    const r = await runCli('view', '--port', '70000');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('65535');
  });
});

describe('corskin with no command', () => {
  it('prints the usage and exits 2', async () => {
    const r = await runCli();
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Usage: corskin');
  });
});
