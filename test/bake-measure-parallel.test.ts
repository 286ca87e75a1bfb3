/**
 * The bake's measure with its times shared between this thread and a worker
 * (`measureBakeParallel`, src/io/measure-parallel.ts) against the same measure on one thread
 * (`measureBake`): the same figures and counts, to the bit, on real characters that take every
 * branch — CesiumMan, the chicken (16 influences: the first sets measured too) and the Ready
 * Player Me avatar (morph targets keyed by its clip). Each is measured against itself played by
 * plain LBS (a "bake" that adds nothing), its method DQS; LBS on the SIMD kernels on both sides,
 * as the parallel measure plays it.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { measureBake } from '../src/bake/measure.js';
import { sampleMethod } from '../src/bake/sampling.js';
import { deformers } from '../src/deformers/index.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { measureBakeParallel, simdLbs } from '../src/io/measure-parallel.js';
import { readDocument } from '../src/io/node-io.js';
import { CESIUM_MAN, SHARED } from './helpers/data.js';

const CHARACTERS: [string, string][] = [
  ['CesiumMan', CESIUM_MAN],
  ['the chicken', join(SHARED, 'characters', 'chicken.glb')],
  ['the Ready Player Me avatar', join(SHARED, 'characters', 'rpm-avatar.glb')],
];
const RATE = 5;

describe('measureBakeParallel: the measure on two threads, as on one', () => {
  for (const [name, file] of CHARACTERS)
    it(`gives measureBake's figures to the bit: ${name}`, async () => {
      const [model] = extractSkinnedModels(await readDocument(file), file).filter((m) => m.animations.length);
      const lbs = await simdLbs(model, model);
      const reference = sampleMethod(model, deformers.dqs, RATE, { between: true, shared: true, lbs });
      const options = { reference, between: true };
      const one = measureBake(model, model, deformers.dqs, RATE, { ...options, lbs });
      const two = await measureBakeParallel(model, model, deformers.dqs, RATE, {
        ...options,
        threads: 2,
        parallelFrom: 0,
      });
      expect(two).toEqual(one);
      // What the figures are: plain LBS against itself (the "baked" skin is the input).
      expect(one.max).toBe(one.lbsMax);
      expect(one.p99).toBe(one.lbsP99);
      expect(one.lbsMax).toBeGreaterThan(0);
      expect(!!one.firstSet).toBe(model.mesh.influences > 4);
    });
});
