/**
 * Bad input: a clear message naming the file and the problem, a non-zero exit code, and no
 * output file (not even a temporary one) left behind.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Document, NodeIO } from '@gltf-transform/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { CESIUM_MAN, LIBIGL, ROOT, scratch, SHARED } from './helpers/data.js';

const tmp = scratch();
afterAll(tmp.cleanup);
const path = (name: string) => join(tmp.dir, name);

/** CesiumMan with one accessor edited. */
async function editedCesium(name: string, edit: (doc: Document) => void): Promise<string> {
  const io = new NodeIO();
  const doc = await io.read(CESIUM_MAN);
  edit(doc);
  const f = path(name);
  writeFileSync(f, await io.writeBinary(doc));
  return f;
}
const firstPrim = (doc: Document) => doc.getRoot().listMeshes()[0].listPrimitives()[0];

const bad: Record<string, string> = {};
beforeAll(async () => {
  bad.text = path('notgltf.glb');
  writeFileSync(bad.text, 'this is not a glTF file\n');
  bad.empty = path('empty.glb');
  writeFileSync(bad.empty, '');
  bad.halfGltf = path('half.gltf');
  writeFileSync(bad.halfGltf, readFileSync(join(SHARED, 'characters/ShibaInu.gltf')).subarray(0, 5000));
  const bytes = readFileSync(CESIUM_MAN);
  bad.truncated = path('truncated.glb');
  writeFileSync(bad.truncated, bytes.subarray(0, bytes.length >> 1));
  bad.corrupt = path('corrupt.glb');
  const junk = Buffer.from('{"asset": {"version": "2.0"}, "meshes": [ garbage ');
  const pad = Buffer.alloc((4 - (junk.length % 4)) % 4, 0x20);
  const chunk = Buffer.concat([junk, pad]);
  const header = Buffer.alloc(20);
  header.write('glTF', 0, 'latin1');
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(20 + chunk.length, 8);
  header.writeUInt32LE(chunk.length, 12);
  header.write('JSON', 16, 'latin1');
  writeFileSync(bad.corrupt, Buffer.concat([header, chunk]));
  bad.unskinned = await editedCesium('unskinned.glb', (doc) => {
    for (const node of doc.getRoot().listNodes()) node.setSkin(null);
  });
  bad.jointRange = await editedCesium('joint-range.glb', (doc) => {
    const j = firstPrim(doc).getAttribute('JOINTS_0')!;
    j.setElement(10, [99, 0, 0, 0]);
    const w = firstPrim(doc).getAttribute('WEIGHTS_0')!;
    w.setElement(10, [1, 0, 0, 0]);
  });
  bad.nan = await editedCesium('nan.glb', (doc) => {
    firstPrim(doc).getAttribute('POSITION')!.setElement(5, [NaN, 0, 0]);
  });
  bad.weights = await editedCesium('weights.glb', (doc) => {
    const w = firstPrim(doc).getAttribute('WEIGHTS_0')!;
    const el: number[] = [];
    for (let i = 0; i < 100; i++)
      w.setElement(
        i,
        w.getElement(i, el).map((x) => 0.5 * x),
      );
  });
});

async function expectFailure(args: string[], output: string, message: RegExp | string) {
  const r = await runCli(...args);
  expect(r.code).not.toBe(0);
  expect(r.stderr).toMatch(message);
  expect(existsSync(output)).toBe(false);
  expect(readdirSync(tmp.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
}

describe.each(['precompute', 'deform'])('corskin %s on bad input', (command) => {
  const extra = command === 'deform' ? ['--method', 'cor'] : [];
  const run = (input: string, name: string, message: RegExp | string) =>
    expectFailure([command, input, ...extra, '-o', path(name)], path(name), message);

  it('not a glTF', () => run(bad.text, 'o1.glb', `${bad.text}: not a glTF file (neither GLB nor JSON)`));
  it('an empty file', () => run(bad.empty, 'o8.glb', `${bad.empty}: empty file (0 bytes): not a glTF file`));
  it('a .gltf cut short', () => run(bad.halfGltf, 'o9.glb', `${bad.halfGltf}: invalid glTF JSON: `));
  it('truncated GLB', () =>
    run(
      bad.truncated,
      'o2.glb',
      new RegExp(`${bad.truncated}: truncated GLB: header declares \\d+ bytes, file has \\d+`),
    ));
  it('corrupt GLB', () => run(bad.corrupt, 'o3.glb', `${bad.corrupt}: corrupt glTF`));
  it('no skinned primitive', () => run(bad.unskinned, 'o4.glb', `${bad.unskinned}: no skinned mesh`));
  it('joint index out of range', () =>
    run(bad.jointRange, 'o5.glb', `${bad.jointRange}: vertex 10 references joint 99, but the skin has only 19 joints`));
  it('NaN positions', () => run(bad.nan, 'o6.glb', `${bad.nan}: vertex 5 has a non-finite position`));
  it('unreadable path', () => run(path('missing.glb'), 'o7.glb', `${path('missing.glb')}: cannot read: no such file`));
});

describe('weights and outputs', () => {
  it('weights not summing to 1 are renormalised with a warning, and the job succeeds', async () => {
    const out = path('renorm.glb');
    const r = await runCli('precompute', bad.weights, '-o', out);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(`warning: ${bad.weights}: 100 vertices had weights not summing to 1`);
    expect(existsSync(out)).toBe(true);
  });

  it('--quiet (anywhere on the line): the warning is not printed, the job still succeeds; errors still are', async () => {
    const out = path('renorm-quiet.glb');
    const r = await runCli('precompute', bad.weights, '-o', out, '--quiet');
    expect([r.code, r.stderr, r.stdout]).toEqual([0, '', '']); // not even the "wrote …" line
    const posed = await runCli('deform', bad.weights, '--method', 'dqs', '-q', '-o', path('posed-quiet.glb'));
    expect([posed.code, posed.stderr, posed.stdout]).toEqual([0, '', '']);
    expect(existsSync(path('posed-quiet.glb'))).toBe(true);
    const info = await runCli('info', out, '--quiet'); // a command whose output is its result keeps it
    expect(info.stdout).toMatch(/skin/);
    expect(existsSync(out)).toBe(true);
    const failed = await runCli('-q', 'precompute', path('no-such.glb'), '-o', path('never-quiet.glb'));
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^corskin: error: .*no-such\.glb/);
  });

  it('never overwrites the input unless --force is given', async () => {
    const input = path('input.glb');
    copyFileSync(CESIUM_MAN, input);
    const before = readFileSync(input);
    await expectFailure(
      ['precompute', input, '-o', input],
      path('never.glb'),
      `${input}: output would overwrite the input; pass --force`,
    );
    expect(readFileSync(input).equals(before)).toBe(true);
    const r = await runCli('precompute', input, '-o', input, '--force');
    expect(r.code).toBe(0);
    expect(readFileSync(input).equals(before)).toBe(false);
  });

  it('an output folder that does not exist is an error, with nothing left behind', async () => {
    const out = join(tmp.dir, 'no', 'such', 'dir.glb');
    const r = await runCli('precompute', CESIUM_MAN, '-o', out);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${out}: cannot write: its folder (${join(tmp.dir, 'no', 'such')}) does not exist`);
  });

  it('convert: weight rows that do not match the mesh', async () => {
    const out = path('bad-convert.glb');
    await expectFailure(
      [
        'convert',
        join(LIBIGL, 'arm.obj'),
        '--skeleton',
        join(LIBIGL, 'arm.tgf'),
        '--weights',
        join(LIBIGL, 'elephant-weights.dmat'),
        '-o',
        out,
      ],
      out,
      `${join(LIBIGL, 'elephant-weights.dmat')}: weights have 6034 rows but the mesh has 8311 vertices`,
    );
  });

  it('usage errors exit with code 2', async () => {
    const r = await runCli('precompute', CESIUM_MAN);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('give -o OUTPUT (one input) or --out-dir DIR');
  });

  it('a positional output (glTF-Transform style): taken as the output when it does not exist, and said so', async () => {
    const out = join(tmp.dir, 'positional-out.glb');
    const r = await runCli('precompute', CESIUM_MAN, out);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`writing ${out} (the second path does not exist: taken as the output, as -o)`);
    expect(existsSync(out)).toBe(true);
    // Both paths exist: ambiguous, refused with what was understood.
    const again = await runCli('precompute', CESIUM_MAN, out);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`both paths exist, so "${out}" was taken as a second input`);
  });

  it('render: --method with a layout of several views is a usage error, before any browser starts', async () => {
    const out = join(tmp.dir, 'method-grid.png');
    const r = await runCli('render', CESIUM_MAN, '--method', 'dqs', '--layout', 'grid', '-o', out);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--method shows one view: it goes with --layout single (or no --layout), not grid');
    expect(existsSync(out)).toBe(false);
  });

  it("commander's usage errors: corskin's prefix, a one-line pointer to --help instead of the whole help", async () => {
    const r = await runCli('precompute', CESIUM_MAN, '--no-such-option');
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^corskin: error: unknown option '--no-such-option'/);
    expect(lines.length).toBeLessThanOrEqual(2);
    expect(r.stderr).toContain('--help');
  });

  it("bake's tolerances: what is not a number ≥ 0 is a usage error quoting it, and no file is written", async () => {
    for (const [flag, value] of [
      ['--tolerance', 'abc'],
      ['--normal-tolerance', '-1'],
      ['--keyframe-tolerance', ''],
    ]) {
      const out = join(tmp.dir, 'bad-tolerance.glb');
      const r = await runCli('bake', CESIUM_MAN, '--method', 'dqs', '--as', 'morphs', flag, value, '-o', out);
      expect(r.code, flag).toBe(2);
      expect(r.stderr).toContain(`argument '${value}' is invalid. expected a number ≥ 0`);
      expect(existsSync(out)).toBe(false);
    }
  });
});

describe('the installed binary', () => {
  const exec = promisify(execFile);
  it('exits non-zero with the message on stderr, and 0 on success', async () => {
    const bin = join(ROOT, 'bin', 'corskin.js');
    const fail = await exec('node', [bin, 'info', bad.truncated]).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(fail?.code).toBe(1);
    expect(fail?.stderr).toMatch(`corskin: error: ${bad.truncated}: truncated GLB`);
    const ok = await exec('node', [bin, 'info', CESIUM_MAN]);
    expect(ok.stdout).toMatch(/19 joints/);
  });
});
