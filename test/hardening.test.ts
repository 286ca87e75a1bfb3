/**
 * Inputs are never overwritten, outputs never leak outside their folder, resources are read
 * only where the user pointed: `.gltf` outputs get resource names of their own, symbolic links
 * are resolved, absolute and `file:` URIs and paths leaving the input's folder are refused.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIO } from '../src/io/node-io.js';
import { runCli } from './helpers/cli.js';
import { CESIUM_MAN, scratch, SHARED } from './helpers/data.js';

const tmp = scratch();
afterAll(tmp.cleanup);
const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');

describe('.gltf with external resources', () => {
  let input: string;
  let before: Record<string, string>;
  beforeAll(async () => {
    // The Shiba Inu as .gltf + .bin + textures (its own data-URI buffer written out).
    const io = await createIO();
    const doc = await io.read(join(SHARED, 'characters/ShibaInu.gltf'));
    input = join(tmp.dir, 'A.gltf');
    const { json, resources } = await io.writeJSON(doc, { basename: 'A' });
    for (const [uri, data] of Object.entries(resources)) writeFileSync(join(tmp.dir, uri), data);
    writeFileSync(input, JSON.stringify(json));
    before = Object.fromEntries(readdirSync(tmp.dir).map((f) => [f, sha(join(tmp.dir, f))]));
  });

  it.each([
    ['precompute', []],
    ['deform', ['--method', 'dqs', '--time', '0.3']],
  ])('%s A.gltf -o C.gltf writes C.bin and leaves A.gltf and A.bin byte-identical', async (command, args) => {
    const out = join(tmp.dir, `C-${command}.gltf`);
    const r = await runCli(command, input, ...args, '-o', out);
    expect(r.stderr).not.toContain('error');
    expect(r.code).toBe(0);
    expect(existsSync(join(tmp.dir, `C-${command}.bin`))).toBe(true);
    for (const [f, h] of Object.entries(before)) expect(sha(join(tmp.dir, f)), f).toBe(h);
    const json = JSON.parse(readFileSync(out, 'utf8'));
    for (const b of json.buffers) expect(b.uri.startsWith(`C-${command}`)).toBe(true);
  });

  it('refuses an output whose resource would overwrite the input’s (A.gltf -o A-copy.gltf is fine, -o A.gltf is not)', async () => {
    const r = await runCli('precompute', input, '-o', join(tmp.dir, 'A.gltf'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('would overwrite');
    for (const [f, h] of Object.entries(before)) expect(sha(join(tmp.dir, f)), f).toBe(h);
  });

  it('refuses a symbolic link to the input as the output', async () => {
    const copy = join(tmp.dir, 'in.glb');
    writeFileSync(copy, readFileSync(CESIUM_MAN));
    const link = join(tmp.dir, 'link.glb');
    symlinkSync(copy, link);
    const h = sha(copy);
    const r = await runCli('precompute', link, '-o', copy);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('would overwrite the input');
    expect(sha(copy)).toBe(h);
  });

  it('refuses a non-glTF output name before computing', async () => {
    const r = await runCli('precompute', input, '-o', join(tmp.dir, 'out.txt'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('.glb or .gltf');
    expect(existsSync(join(tmp.dir, 'out.txt'))).toBe(false);
  });

  it.each([
    ['an absolute path', '/etc/hostname', 'only paths relative to the file'],
    ['a file: URI', 'file:///etc/hostname', 'only paths relative to the file'],
    ['a path outside the folder', '../../x.bin', 'outside the file'],
    ['a malformed escape', '%E0%A4%A.bin', 'malformed uri'],
  ])('refuses a resource given by %s', async (_what, uri, message) => {
    const json = JSON.parse(readFileSync(input, 'utf8'));
    json.images = [{ uri }];
    const bad = join(tmp.dir, `bad-${uri.length}.gltf`);
    writeFileSync(bad, JSON.stringify(json));
    const out = join(tmp.dir, 'never.glb');
    const r = await runCli('precompute', bad, '-o', out);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain(bad);
    expect(existsSync(out)).toBe(false);
  });
});
