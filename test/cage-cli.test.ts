/**
 * `corskin bind-cage` and `corskin deform --method cage` on CesiumMan: the glTF layout round trip
 * (validator-clean, the same posed skin as the library computes), and bad cages and skins as
 * clear errors with exit code 1 and no output file.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cage } from '../src/cage/cage.js';
import { createCageSkinningDeformer } from '../src/cage/rig.js';
import { samplePose } from '../src/core/animation.js';
import { skinningMatrices } from '../src/core/pose.js';
import { isCageNode, readCageRig } from '../src/io/cage-gltf.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { boxCage, voxelCage } from './helpers/cages.js';
import { runCli } from './helpers/cli.js';
import { CESIUM_MAN, scratch } from './helpers/data.js';
import { attribute, readRaw, validate } from './helpers/gltf.js';

const tmp = scratch();
afterAll(() => tmp.cleanup());

function writeObj(cage: Cage, name: string): string {
  const lines: string[] = [];
  for (let i = 0; i < cage.positions.length; i += 3)
    lines.push(`v ${cage.positions[i]} ${cage.positions[i + 1]} ${cage.positions[i + 2]}`);
  for (let f = 0; f < cage.triangles.length; f += 3)
    lines.push(`f ${cage.triangles[f] + 1} ${cage.triangles[f + 1] + 1} ${cage.triangles[f + 2] + 1}`);
  const path = join(tmp.dir, name);
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

let lo: number[] = [];
let hi: number[] = [];
beforeAll(async () => {
  const [man] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
  lo = [0, 1, 2].map((k) => Math.min(...man.mesh.positions.filter((_, i) => i % 3 === k)));
  hi = [0, 1, 2].map((k) => Math.max(...man.mesh.positions.filter((_, i) => i % 3 === k)));
});
const grown = (s: number) => [lo.map((v, k) => v - s * (hi[k] - lo[k])), hi.map((v, k) => v + s * (hi[k] - lo[k]))];

describe('corskin bind-cage and deform --method cage', () => {
  it('binds CesiumMan to a box cage, writes a validator-clean file, and deforms it as the library does', async () => {
    const [a, b] = grown(0.1);
    const cage = writeObj(boxCage(a, b), 'box.obj');
    const bound = join(tmp.dir, 'cesium-cage.glb');
    const r = await runCli('bind-cage', CESIUM_MAN, '--cage', cage, '-o', bound);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/3273 vertices bound to a cage of 8 vertices and 12 triangles \(PMVC/);
    expect((await validate(bound)).issues.numErrors).toBe(0);
    const doc = await readDocument(bound);
    expect(doc.getRoot().listNodes().filter(isCageNode)).toHaveLength(1);
    const [model] = extractSkinnedModels(doc, bound);
    expect(model.mesh.positions.length / 3).toBe(3273); // the cage is not part of the character
    const rig = readCageRig(doc, model, bound)!;
    expect(rig.binding.influences).toBe(8); // all 8 box corners

    const out = join(tmp.dir, 'cesium-cage-posed.glb');
    const d = await runCli('deform', bound, '--method', 'cage', '--time', '1', '-o', out);
    expect([d.code, d.stderr]).toEqual([0, '']);
    expect((await validate(out)).issues.numErrors).toBe(0);
    const written = attribute(await readRaw(out), 'POSITION');
    const S = skinningMatrices(model.skeleton, samplePose(model.skeleton, model.animations[0], 1));
    const want = { positions: new Float32Array(3 * 3273) };
    createCageSkinningDeformer(rig)(model.mesh, S, want);
    let err = 0,
      moved = 0;
    for (let i = 0; i < want.positions.length; i++) {
      err = Math.max(err, Math.abs(written[i] - want.positions[i]));
      moved = Math.max(moved, Math.abs(want.positions[i] - model.mesh.positions[i]));
    }
    expect(moved).toBeGreaterThan(0.01);
    expect(err).toBeLessThan(1e-5);
  });

  it('--cage auto: a star-shaped cage shrunk onto CesiumMan binds with PMVC (all weights ≥ 0)', async () => {
    const bound = join(tmp.dir, 'cesium-auto.glb');
    const r = await runCli('bind-cage', CESIUM_MAN, '--cage', 'auto', '-o', bound);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(
      /3273 vertices bound to a cage of 162 vertices and 320 triangles \(PMVC, 32² texels per cube face, 24 per vertex\)/,
    );
    const doc = await readDocument(bound);
    const [model] = extractSkinnedModels(doc, bound);
    const rig = readCageRig(doc, model, bound)!;
    expect(rig.binding.weights.reduce((a, w) => Math.min(a, w), 0)).toBeGreaterThanOrEqual(0);
    expect((await validate(bound)).issues.numErrors).toBe(0);
  });

  it('--correction linear: the same cage binding corrected linearly, negative weights reported and stored; a bad choice is refused', async () => {
    const bound = join(tmp.dir, 'cesium-auto-linear.glb');
    const r = await runCli('bind-cage', CESIUM_MAN, '--cage', 'auto', '--correction', 'linear', '-o', bound);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const negative = Number(/(\d+) negative weights/.exec(r.stdout)?.[1]);
    expect(negative).toBeGreaterThan(0);
    const doc = await readDocument(bound);
    const rig = readCageRig(doc, extractSkinnedModels(doc, bound)[0], bound)!;
    expect(rig.binding.weights.filter((w) => w < 0).length).toBe(negative);
    const bad = await runCli(
      'bind-cage',
      CESIUM_MAN,
      '--cage',
      'auto',
      '--correction',
      'none',
      '-o',
      join(tmp.dir, 'x.glb'),
    );
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--correction.*positive, linear/);
    expect(existsSync(join(tmp.dir, 'x.glb'))).toBe(false);
  });

  it.each(['1', '1025'])(
    '--resolution %s (outside the cube maps built): exit 2, no stack trace, no file',
    async (r) => {
      const out = join(tmp.dir, 'res.glb');
      const run = await runCli('bind-cage', CESIUM_MAN, '--cage', 'auto', '--resolution', r, '-o', out);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/--resolution.*expected a whole number from 2 to 1024/);
      expect(run.stderr).not.toContain('internal error');
      expect(existsSync(out)).toBe(false);
    },
  );

  it('deform --method cage without a cage says to bind one', async () => {
    const r = await runCli('deform', CESIUM_MAN, '--method', 'cage', '-o', join(tmp.dir, 'nocage.glb'));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/CesiumMan.glb: .*has no cage; bind one first with corskin bind-cage/);
    expect(existsSync(join(tmp.dir, 'nocage.glb'))).toBe(false);
  });

  const bad: [string, () => Cage, RegExp][] = [
    ['a skin vertex outside the cage', () => boxCage(grown(0.1)[0], [hi[0], hi[1], (lo[2] + hi[2]) / 2]), /CesiumMan\.glb: \d+ skin vertex\(es\) lie outside the cage/],
    ['an open cage', () => {
      const c = boxCage(...grown(0.1));
      return { positions: c.positions, triangles: c.triangles.slice(6) };
    }, /open\.obj: the cage is not closed: 4 boundary edge/],
    ['a non-manifold cage', () => {
      const c = voxelCage([[0, 0, 0], [1, 1, 0]]);
      const [a, b] = grown(0.1);
      return { positions: c.positions.map((v, i) => a[i % 3] + (v / 2) * (b[i % 3] - a[i % 3])), triangles: c.triangles };
    }, /non-manifold\.obj: the cage is not 2-manifold/],
    ['an inverted cage', () => {
      const c = boxCage(...grown(0.1));
      for (let f = 0; f < c.triangles.length; f += 3) [c.triangles[f + 1], c.triangles[f + 2]] = [c.triangles[f + 2], c.triangles[f + 1]];
      return c;
    }, /inverted\.obj: the cage is inverted/],
  ]; // prettier-ignore
  it.each(bad)('%s: a clear message, exit code 1, no output file', async (name, make, message) => {
    const file = name
      .split(' ')
      .pop()!
      .replace('cage', name.includes('outside') ? 'small' : name.split(' ')[1]);
    const cage = writeObj(make(), `${file}.obj`);
    const out = join(tmp.dir, `${file}.glb`);
    const r = await runCli('bind-cage', CESIUM_MAN, '--cage', cage, '-o', out);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/internal error|at .*\.ts:/);
    expect(existsSync(out)).toBe(false);
  });
});
