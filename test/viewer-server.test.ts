/**
 * The viewer's local server answers only this computer's file requests: malformed escapes are
 * 400 (and it keeps serving), a foreign Host header 403, other methods 405, and 200 concurrent
 * requests from localhost all succeed.
 */
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveViewer } from '../src/cli/viewer-server.js';
import { runCli } from './helpers/cli.js';
import { CESIUM_MAN, ROOT } from './helpers/data.js';

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
    server = await serveViewer(CESIUM_MAN, 0, 'CesiumMan.glb');
  });
  afterAll(() => server?.close());

  it('answers a malformed percent-escape with 400 and keeps serving', async () => {
    expect(await get(server.url, { path: '/%E0%A4%A' })).toBe(400);
    expect(await get(server.url, { path: '/index.html' })).toBe(200);
  });

  it('refuses a foreign Host header (DNS rebinding) and any method but GET and HEAD', async () => {
    expect(await get(server.url, { host: 'evil.example:80' })).toBe(403);
    expect(await get(server.url, { method: 'POST' })).toBe(405);
    expect(await get(server.url, { method: 'DELETE' })).toBe(405);
    expect(await get(server.url, { method: 'HEAD', path: '/index.html' })).toBe(200);
    expect(await get(new URL('model.glb', server.url).href)).toBe(200);
  });

  it('sends a visit to its address without the query (typed, bookmarked) to the model’s page', async () => {
    const bare = await fetch(server.url, { redirect: 'manual' });
    expect(bare.status).toBe(302);
    const to = new URL(bare.headers.get('location')!, server.url);
    expect(to.searchParams.get('model')).toBe('/model.glb');
    expect(to.searchParams.get('name')).toBe('CesiumMan.glb');
    expect((await fetch(to)).status).toBe(200);
    const kept = new URL((await fetch(`${server.url}?layout=single&method=cor`, { redirect: 'manual' })).headers.get('location')!, server.url); // prettier-ignore
    expect(Object.fromEntries(kept.searchParams)).toEqual({ layout: 'single', method: 'cor', model: '/model.glb', name: 'CesiumMan.glb' }); // prettier-ignore
    const bundled = await serveViewer(); // no model: the bundled arm's page, as it is
    try {
      expect((await fetch(bundled.url, { redirect: 'manual' })).status).toBe(200);
    } finally {
      await bundled.close();
    }
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

  // Found by a new user's check: 0, the usual way to ask for any free port, was refused.
  it('--port 0 serves on a free port and stops on Ctrl-C', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [join(ROOT, 'bin/corskin.js'), 'view', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] }); // prettier-ignore
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d;
          const m = /corskin viewer: (http:\/\/\S+)/.exec(out);
          if (m) resolve(m[1]);
        });
        child.once('exit', (code) => reject(new Error(`exited ${code} before serving`)));
      });
      expect(Number(new URL(url).port)).toBeGreaterThan(0);
      expect((await fetch(url, { redirect: 'manual' })).status).toBe(200);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      expect(await exited).toBe(130); // interrupted, as every command
    }
  });
});

describe('corskin with no command', () => {
  it('prints the usage and exits 2', async () => {
    const r = await runCli();
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Usage: corskin');
  });
});
