import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { readDmat, readObj, readTgf } from '../src/io/libigl.js';
import { runCli } from './helpers/cli.js';
import { LIBIGL, scratch } from './helpers/data.js';
import { attribute, readRaw, validate } from './helpers/gltf.js';

const tmp = scratch();
afterAll(tmp.cleanup);

describe('libigl readers', () => {
  it('reads ASCII and binary DMAT column-major', async () => {
    // 2 rows × 3 cols matrix [[1, 2, 3], [4, 5, 6]] → column-major 1 4 2 5 3 6
    const ascii = join(tmp.dir, 'm.dmat');
    writeFileSync(ascii, '3 2\n1\n4\n2\n5\n3\n6\n');
    const bin = join(tmp.dir, 'b.dmat');
    const data = Buffer.alloc(48);
    [1, 4, 2, 5, 3, 6].forEach((x, i) => data.writeDoubleLE(x, 8 * i));
    writeFileSync(bin, Buffer.concat([Buffer.from('0 0\n3 2\n'), data]));
    for (const f of [ascii, bin]) {
      const m = await readDmat(f);
      expect([m.rows, m.cols]).toEqual([2, 3]);
      expect(m.data[1 + 2 * 2]).toBe(6); // (r = 1, c = 2)
    }
  });

  it('rejects truncated DMAT files, naming the file', async () => {
    const f = join(tmp.dir, 't.dmat');
    writeFileSync(f, Buffer.concat([Buffer.from('0 0\n3 2\n'), Buffer.alloc(20)]));
    await expect(readDmat(f)).rejects.toThrow(`${f}: truncated binary DMAT`);
  });

  it('reads the shared arm: 8,311 vertices, 16,618 triangles, 5 joints, 4 bones, 4 weight columns', async () => {
    const obj = await readObj(join(LIBIGL, 'arm.obj'));
    expect(obj.positions.length / 3).toBe(8311);
    expect(obj.triangles.length / 3).toBe(16618);
    const tgf = await readTgf(join(LIBIGL, 'arm.tgf'));
    expect(tgf.joints.length / 3).toBe(5);
    expect([...tgf.bones]).toEqual([0, 1, 1, 2, 2, 3, 3, 4]);
    expect(tgf.joints[0]).toBeCloseTo(-0.72962893, 8);
    const w = await readDmat(join(LIBIGL, 'arm-weights.dmat'));
    expect([w.rows, w.cols]).toEqual([8311, 4]);
  });
});

describe('converted elephant: animation and LBS against elephant-anim.dmat', () => {
  const glb = join(tmp.dir, 'elephant.glb');
  let anim: Awaited<ReturnType<typeof readDmat>>;
  beforeAll(async () => {
    const r = await runCli(
      'convert',
      join(LIBIGL, 'elephant.obj'),
      '--skeleton',
      join(LIBIGL, 'elephant.tgf'),
      '--weights',
      join(LIBIGL, 'elephant-weights.dmat'),
      '--animation',
      join(LIBIGL, 'elephant-anim.dmat'),
      '--fps',
      '30',
      '-o',
      glb,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/dropped on \d+ vertices/);
    anim = await readDmat(join(LIBIGL, 'elephant-anim.dmat'));
  });

  it('validates with 0 errors and has 457 frames at 30 fps', async () => {
    expect((await validate(glb)).issues.numErrors).toBe(0);
    const doc = await readRaw(glb);
    const input = doc.getRoot().listAnimations()[0].listSamplers()[0].getInput()!;
    expect(input.getCount()).toBe(457);
    expect(input.getMax([])[0]).toBeCloseTo(456 / 30, 5);
  });

  it.each([0, 57, 228, 391, 456])('corskin deform --method lbs at frame %i equals Σ_k w_k [v 1]·B_k(f)', async (f) => {
    const out = join(tmp.dir, `elephant-${f}.glb`);
    const r = await runCli('deform', glb, '--method', 'lbs', '--animation', '0', '--time', String(f / 30), '-o', out);
    expect(r.code).toBe(0);
    const src = await readRaw(glb);
    const v = attribute(src, 'POSITION');
    const J = attribute(src, 'JOINTS_0');
    const W = attribute(src, 'WEIGHTS_0');
    const got = attribute(await readRaw(out), 'POSITION');
    const diag = boundingBoxDiagonal(v);
    let err = 0;
    const base = f * anim.rows;
    const R = anim.rows / 3; // 96
    for (let i = 0; i < v.length / 3; i++) {
      const e = [0, 0, 0];
      for (let k = 0; k < 4; k++) {
        const w = W[4 * i + k];
        if (!w) continue;
        const b = J[4 * i + k];
        for (let c = 0; c < 3; c++) {
          const B = (r: number) => anim.data[base + 4 * b + r + R * c];
          e[c] += w * (v[3 * i] * B(0) + v[3 * i + 1] * B(1) + v[3 * i + 2] * B(2) + B(3));
        }
      }
      for (let c = 0; c < 3; c++) err = Math.max(err, Math.abs(got[3 * i + c] - e[c]));
    }
    expect(err / diag).toBeLessThan(1e-5);
    expect((await validate(out)).issues.numErrors).toBe(0);
  });
});

describe('convert without a skeleton (point handles)', () => {
  it('puts one joint per weight column at the weighted centroid', async () => {
    const out = join(tmp.dir, 'armadillo.glb');
    const r = await runCli(
      'convert',
      join(LIBIGL, 'armadillo.obj'),
      '--weights',
      join(LIBIGL, 'armadillo-weights.dmat'),
      '-o',
      out,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /43243 vertices, 86482 triangles, 5 joints, 4 influences; weights beyond the 4 largest dropped on \d+ vertices/,
    );
    const doc = await readRaw(out);
    const skin = doc.getRoot().listSkins()[0];
    expect(skin.listJoints().length).toBe(5);
    // Handle 0's position against an independent weighted mean.
    const obj = await readObj(join(LIBIGL, 'armadillo.obj'));
    const w = await readDmat(join(LIBIGL, 'armadillo-weights.dmat'));
    let s = 0;
    const c = [0, 0, 0];
    for (let i = 0; i < w.rows; i++) {
      s += w.data[i];
      for (let d = 0; d < 3; d++) c[d] += w.data[i] * obj.positions[3 * i + d];
    }
    const t = skin.listJoints()[0].getWorldTranslation();
    for (let d = 0; d < 3; d++) expect(t[d]).toBeCloseTo(c[d] / s, 4);
    expect((await validate(out)).issues.numErrors).toBe(0);
  });
});
