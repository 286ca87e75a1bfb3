/**
 * The bake's measure with its times shared between this thread and a worker
 * (`measureBakeParallel`, src/io/measure-parallel.ts) against the same measure on one thread
 * (`measureBake`): the same figures and counts, to the bit, on real characters that take every
 * branch — CesiumMan, the chicken (16 influences: the first sets measured too) and the Ready
 * Player Me avatar (morph targets keyed by its clip). The method is DQS; the "baked" skin is the
 * input with every vertex bound rigidly to its heaviest joint (farther from DQS than plain LBS at
 * some times: the counts of worse times are not all 0); LBS on the SIMD kernels on both sides,
 * as the parallel measure plays it. Each measure is shared (the worker runs one task), and
 * CesiumMan's streams are long enough to be cut on both threads before they merge.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { measureBake } from '../src/bake/measure.js';
import { sampleMethod } from '../src/bake/sampling.js';
import { deformers } from '../src/deformers/index.js';
import { extractSkinnedModels, type SkinnedModel } from '../src/io/gltf.js';
import { createMeasureWorkerPool, measureBakeParallel, simdLbs } from '../src/io/measure-parallel.js';
import { readDocument } from '../src/io/node-io.js';
import { CESIUM_MAN, SHARED } from './helpers/data.js';

/** Each character and the rate it is sampled at (its clips' length and cost). */
const CHARACTERS: [string, string, number][] = [
  ['CesiumMan', CESIUM_MAN, 30],
  ['the chicken', join(SHARED, 'characters', 'chicken.glb'), 10],
  ['the Ready Player Me avatar', join(SHARED, 'characters', 'rpm-avatar.glb'), 5],
];

const pool = createMeasureWorkerPool();
afterAll(() => pool.terminate());

/** `model` with every vertex on its heaviest joint alone (its influences kept in place, the others 0). */
function rigid(model: SkinnedModel): SkinnedModel {
  const { influences: K, weights } = model.mesh;
  const rigidWeights = new Float32Array(weights.length);
  for (let k = 0; k < weights.length; k += K) {
    let best = k;
    for (let c = k + 1; c < k + K; c++) if (weights[c] > weights[best]) best = c;
    rigidWeights[best] = 1;
  }
  return { ...model, mesh: { ...model.mesh, weights: rigidWeights } };
}

describe('measureBakeParallel: the measure on two threads, as on one', () => {
  for (const [name, file, rate] of CHARACTERS)
    it(`gives measureBake's figures to the bit: ${name}`, async () => {
      const [model] = extractSkinnedModels(await readDocument(file), file).filter((m) => m.animations.length);
      const baked = rigid(model);
      const lbs = await simdLbs(model, baked);
      const reference = sampleMethod(model, deformers.dqs, rate, { between: true, shared: true, lbs });
      const options = { reference, between: true, lbs };
      const one = measureBake(model, baked, deformers.dqs, rate, options);
      const exec = vi.spyOn(pool.pool, 'exec');
      const two = await measureBakeParallel(model, baked, deformers.dqs, rate, { ...options, threads: 2, pool, parallelFrom: 0 }); // prettier-ignore
      expect(exec).toHaveBeenCalledTimes(1);
      exec.mockRestore();
      expect(two).toEqual(one);
      // What the figures are: the rigid binding is farther from DQS than plain LBS.
      expect(one.p99).toBeGreaterThan(one.lbsP99);
      expect(one.worseSamples + one.halfway!.worseSamples).toBeGreaterThan(0);
      expect(!!one.firstSet).toBe(model.mesh.influences > 4);
    });
});
