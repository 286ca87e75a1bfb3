/**
 * The helper bake at poses no clip holds (its helpers at rest on their joints, as under an
 * animation that does not key them): with `beyondClips: 'lbs'` each helper takes weight only from
 * the joint it hangs from, so that there the file plays the input's linear blend skinning; by
 * default (`free`) it does not. Checked on the written files read back (CesiumMan and the Fox,
 * DQS), against the input's own weights and LBS computed here, and `measureBeyondClips` against
 * the same.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { boundingBoxDiagonal, type SkinnedMesh } from '../src/core/mesh.js';
import { CorskinError } from '../src/core/errors.js';
import { skinningMatrices } from '../src/core/pose.js';
import { deformers } from '../src/deformers/index.js';
import { measureBake, measureBeyondClips } from '../src/bake/measure.js';
import { stressPose } from '../src/evaluation/stress-pose.js';
import { bakeHelperJoints } from '../src/io/helper-bake.js';
import { extractSkinnedModels, type SkinnedModel } from '../src/io/gltf.js';
import { readDocument, writeDocument } from '../src/io/node-io.js';
import { runCli } from './helpers/cli.js';
import { CESIUM_MAN, scratch, SHARED } from './helpers/data.js';

const tmp = scratch();
afterAll(() => tmp.cleanup());

const FOX = join(SHARED, 'characters', 'Fox.glb');
/** The characters baked here: a humanoid and a quadruped. */
const CHARACTERS: [string, string][] = [
  ['CesiumMan', CESIUM_MAN],
  ['the Fox', FOX],
];

/** The input and its helper bake (DQS, 5 samples/s), written and read back. */
async function bake(
  file: string,
  beyondClips: 'free' | 'lbs',
): Promise<{ original: SkinnedModel; baked: SkinnedModel }> {
  const document = await readDocument(file);
  const [model] = extractSkinnedModels(document, file);
  const r = bakeHelperJoints(document, model, deformers.dqs, { rate: 5, beyondClips, guard: 'samples' });
  expect(r.helpers).toBeGreaterThan(0);
  const out = join(tmp.dir, `${beyondClips}-${file.split('/').pop()}`);
  await writeDocument(document, out);
  const [original] = extractSkinnedModels(await readDocument(file), file);
  const [baked] = extractSkinnedModels(await readDocument(out), out);
  return { original, baked };
}

/** Per vertex, the input's 4 heaviest weights normalised, by joint name. */
function ownWeights(model: SkinnedModel, i: number): Map<string, number> {
  const { joints, weights, influences: K } = model.mesh;
  const own = Array.from({ length: K }, (_, k) => ({ j: joints[K * i + k], w: weights[K * i + k] }))
    .filter((e) => e.w > 0)
    .sort((a, b) => b.w - a.w)
    .slice(0, 4);
  const sum = own.reduce((s, e) => s + e.w, 0);
  const out = new Map<string, number>();
  for (const { j, w } of own) out.set(model.skeleton.jointNames[j], (out.get(model.skeleton.jointNames[j]) ?? 0) + w / sum); // prettier-ignore
  return out;
}

/** Per vertex of the baked skin, its weights with each helper's added to the joint it hangs from, by joint name. */
function foldedWeights(baked: SkinnedModel, i: number): Map<string, number> {
  const { joints, weights, influences: K } = baked.mesh;
  const { parents, helpers, jointNames } = baked.skeleton;
  const out = new Map<string, number>();
  for (let k = 0; k < K; k++) {
    let j = joints[K * i + k];
    while (helpers?.[j]) j = parents[j];
    out.set(jointNames[j], (out.get(jointNames[j]) ?? 0) + weights[K * i + k]);
  }
  return out;
}

/** Posed positions of `mesh` by LBS, or `deform`, under matrices S. */
function posed(mesh: SkinnedMesh, S: Float64Array, deform = deformers.lbs): Float32Array {
  const out = { positions: new Float32Array(mesh.positions.length) };
  deform(mesh, S, out);
  return out.positions;
}

/** The largest and 99th-percentile distance between corresponding points. */
function distances(a: Float32Array, b: Float32Array): { max: number; p99: number } {
  const d: number[] = [];
  for (let i = 0; i < a.length; i += 3) d.push(Math.hypot(a[i] - b[i], a[i + 1] - b[i + 1], a[i + 2] - b[i + 2]));
  d.sort((x, y) => x - y);
  return { max: d[d.length - 1], p99: d[Math.min(d.length - 1, Math.floor(0.99 * d.length))] };
}

describe('the helper bake beyond the clips', () => {
  it.each(CHARACTERS)(
    '%s, lbs: each vertex gives a joint and its helpers the input’s weight; at stress poses the file plays the input’s LBS',
    async (_, file) => {
      const { original, baked } = await bake(file, 'lbs');
      const n = original.mesh.positions.length / 3;
      let worst = 0;
      for (let i = 0; i < n; i++) {
        const [own, folded] = [ownWeights(original, i), foldedWeights(baked, i)];
        for (const name of new Set([...own.keys(), ...folded.keys()]))
          worst = Math.max(worst, Math.abs((own.get(name) ?? 0) - (folded.get(name) ?? 0)));
      }
      // 16-bit weights: each within 7.7e-6, a joint and its helpers within a few of them.
      expect(worst).toBeLessThan(1e-4);
      for (const amplitude of [0.25, 0.5, 1]) {
        const lbs = posed(original.mesh, skinningMatrices(original.skeleton, stressPose(original.skeleton, amplitude)));
        const played = posed(baked.mesh, skinningMatrices(baked.skeleton, stressPose(baked.skeleton, amplitude)));
        expect(distances(played, lbs).max).toBeLessThan(1e-4 * boundingBoxDiagonal(lbs));
      }
      // In the clips the helpers still remove part of the gap to DQS.
      const m = measureBake(original, baked, deformers.dqs, 5);
      expect(m.worseSamples).toBe(0);
      expect(1 - m.p99 / m.lbsP99).toBeGreaterThan(0.4);
      // measureBeyondClips says the same.
      const b = measureBeyondClips(original, baked, deformers.dqs);
      expect(Math.abs(b.p99 - b.lbsP99)).toBeLessThan(1e-5);
    },
    360_000,
  );

  it.each(CHARACTERS)(
    '%s, free (the default): at the half stress pose the file plays farther from DQS than plain LBS, as measureBeyondClips says',
    async (_, file) => {
      const { original, baked } = await bake(file, 'free');
      const S = skinningMatrices(original.skeleton, stressPose(original.skeleton, 0.5));
      const B = skinningMatrices(baked.skeleton, stressPose(baked.skeleton, 0.5));
      const dqs = posed(original.mesh, S, deformers.dqs);
      const lbs = distances(posed(original.mesh, S), dqs);
      const played = distances(posed(baked.mesh, B), dqs);
      expect(played.p99).toBeGreaterThan(2 * lbs.p99);
      const b = measureBeyondClips(original, baked, deformers.dqs);
      expect(b.p99 / b.lbsP99).toBeCloseTo(played.p99 / lbs.p99, 1);
    },
    360_000,
  );

  it('measureBeyondClips of a skin against itself: the baked file is plain LBS', async () => {
    const [a] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
    const [b] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
    const m = measureBeyondClips(a, b, deformers.dqs, 1);
    expect(m.max).toBe(m.lbsMax);
    expect(m.p99).toBe(m.lbsP99);
    expect(m.lbsP99).toBeGreaterThan(1e-3);
  });

  it('an unknown beyondClips is a clear error', async () => {
    const document = await readDocument(CESIUM_MAN);
    const [model] = extractSkinnedModels(document, CESIUM_MAN);
    expect(() => bakeHelperJoints(document, model, deformers.dqs, { rate: 5, beyondClips: 'rest' as 'lbs' })).toThrow(
      CorskinError,
    );
  });

  it('the CLI reports beyond the clips, and warns only where the file plays farther than LBS there', async () => {
    const args = ['bake', CESIUM_MAN, '--method', 'dqs', '--as', 'helpers', '--rate', '5'];
    const free = await runCli(...args, '-o', join(tmp.dir, 'cli-free.glb'));
    const lbs = await runCli(...args, '--beyond-clips', 'lbs', '-o', join(tmp.dir, 'cli-lbs.glb'));
    for (const r of [free, lbs]) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/beyond the clips \(the evaluation's stress pose at half amplitude/);
    }
    expect(free.stderr).toMatch(
      /beyond the clips the baked file plays farther from DQS than plain LBS does .*--beyond-clips lbs/,
    );
    expect(lbs.stderr).not.toMatch(/beyond the clips the baked file/);
    const bad = await runCli(...args, '--beyond-clips', 'rest', '-o', join(tmp.dir, 'cli-bad.glb'));
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/beyond-clips/);
  }, 360_000);
});
