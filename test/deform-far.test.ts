/**
 * `corskin deform` of a character posed far from the origin: posed about its first joint, the
 * move written as the node's translation (glTF) or added in 64-bit floats (OBJ), so the result is
 * the character posed near the origin, moved — not rounded to the 32-bit spacing out there.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { afterAll, describe, expect, it } from 'vitest';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { runCli } from './helpers/cli.js';
import { scratch, SHARED } from './helpers/data.js';
import { writeUnderRoot } from './helpers/gltf.js';

const tmp = scratch();
afterAll(() => tmp.cleanup());

/** The world-space positions of a static glb's one mesh (its node's translation added in 64-bit floats). */
async function worldPositions(file: string): Promise<Float64Array> {
  const doc = await new NodeIO().read(file);
  const node = doc
    .getRoot()
    .listNodes()
    .find((n) => n.getMesh())!;
  const t = node.getTranslation();
  const p = node.getMesh()!.listPrimitives()[0].getAttribute('POSITION')!.getArray() as Float32Array;
  return Float64Array.from(p, (x, i) => x + t[i % 3]);
}

/** The `v` lines of an OBJ file. */
const objPositions = (file: string) =>
  Float64Array.from(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('v '))
      .flatMap((l) => l.split(' ').slice(1).map(Number)),
  );

describe('corskin deform far from the origin', () => {
  // The chicken: 0.8 m posed, under a 0.01 root; 1,000 m out float32 steps by 6e-5 m (7.6e-5 of it).
  const chicken = join(SHARED, 'characters/chicken.glb');
  const move = [1000, 0, 1000];
  it.each(['dqs', 'cor', 'ddm'])(
    '%s: the posed chicken 1,000 m out is the one at the origin, moved',
    async (method) => {
      const far = await writeUnderRoot(chicken, { translation: move as [number, number, number] }, join(tmp.dir, `far-${method}.glb`)); // prettier-ignore
      const args = ['--method', method, '--animation', '0', '--time', '1'];
      const files = ['here.glb', 'far.glb', 'far.obj'].map((f) => join(tmp.dir, `${method}-${f}`));
      const runs = [await runCli('deform', chicken, ...args, '-o', files[0]), await runCli('deform', far, ...args, '-o', files[1]), await runCli('deform', far, ...args, '-o', files[2])]; // prettier-ignore
      expect(runs.map((r) => r.code)).toEqual([0, 0, 0]);
      const here = await worldPositions(files[0]);
      const diagonal = boundingBoxDiagonal(here);
      for (const there of [await worldPositions(files[1]), objPositions(files[2])]) {
        expect(there.length).toBe(here.length);
        let worst = 0;
        for (let i = 0; i < here.length; i++) worst = Math.max(worst, Math.abs(there[i] - move[i % 3] - here[i]));
        // Without the move: 4.3e-4 (CoR), 1.5e-4 (DQS), 6.7e-5 (DDM).
        expect(worst / diagonal).toBeLessThan(2e-6);
      }
    },
  );
});
