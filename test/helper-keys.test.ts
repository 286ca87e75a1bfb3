/**
 * The helpers' key reduction (`bake/key-reduction.ts`): a helper bake with the default tolerance
 * keeps a subset of the keys it makes at tolerance 0 — the same values at the same times, both
 * ends of each clip, translation and rotation sharing their times — and plays, measured over
 * every sample by LBS from the written file, within the tolerance of the full keys' p99 and never
 * worse than plain LBS (the Fox, whose 16 s clip makes its helper channels outweigh its mesh).
 * And the bake's measure half-way between the samples, with and without a reference sampled at
 * the sample times.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NodeIO, type Document } from '@gltf-transform/core';
import { deformers } from '../src/deformers/index.js';
import { measureBake } from '../src/bake/measure.js';
import { bakeSampleTimes, DEFAULT_HELPER_KEY_TOLERANCE } from '../src/bake/samples.js';
import { sampleMethod } from '../src/bake/sampling.js';
import { bakeHelperJoints } from '../src/io/helper-bake.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument, writeDocument } from '../src/io/node-io.js';
import { CESIUM_MAN, scratch, SHARED } from './helpers/data.js';
import { validate } from './helpers/gltf.js';

const tmp = scratch();
afterAll(() => tmp.cleanup());
const FOX = join(SHARED, 'characters', 'Fox.glb');

/** Per helper node: its translation and rotation channels' times and values. */
function helperChannels(document: Document) {
  const out = new Map<string, Record<string, { times: number[]; values: number[]; input: unknown }>>();
  for (const a of document.getRoot().listAnimations())
    for (const c of a.listChannels()) {
      const name = c.getTargetNode()!.getName();
      if (!name.includes('_helper')) continue;
      const sampler = c.getSampler()!;
      const output = sampler.getOutput()!;
      const scale = output.getNormalized() ? 32767 : 1;
      const entry = out.get(name) ?? {};
      entry[c.getTargetPath()!] = {
        times: Array.from(sampler.getInput()!.getArray()!),
        values: Array.from(output.getArray()!, (v) => Number(v) / scale),
        input: sampler.getInput(),
      };
      out.set(name, entry);
    }
  return out;
}

describe("the helpers' key reduction", () => {
  it('the Fox, dqs: a subset of the keys, the same values at the same times, within the tolerance of the full keys and never worse than LBS', async () => {
    const files: Record<string, string> = {};
    for (const keyTolerance of [0, DEFAULT_HELPER_KEY_TOLERANCE]) {
      const document = await readDocument(FOX);
      const [model] = extractSkinnedModels(document, FOX);
      // Guarded at the samples alone: the same fit at both tolerances (the guard `auto` may hold
      // each differently half-way between the samples).
      bakeHelperJoints(document, model, deformers.dqs, { keyTolerance, guard: 'samples' });
      files[keyTolerance] = join(tmp.dir, `fox-keys-${keyTolerance}.glb`);
      await writeDocument(document, files[keyTolerance]);
    }
    const full = helperChannels(await new NodeIO().read(files[0]));
    const [fox] = extractSkinnedModels(await readDocument(FOX), FOX);
    const sampleTimes = bakeSampleTimes(fox.animations[0].duration, 30);
    const reduced = helperChannels(await new NodeIO().read(files[DEFAULT_HELPER_KEY_TOLERANCE]));
    expect([...reduced.keys()].sort()).toEqual([...full.keys()].sort());
    let [fullKeys, keptKeys] = [0, 0];
    for (const [name, channels] of reduced) {
      const { translation, rotation } = channels;
      // One input for both channels of a helper; the clip's ends kept.
      expect(translation.input).toBe(rotation.input);
      const all = full.get(name)!;
      expect(translation.times[0]).toBe(sampleTimes[0]);
      expect(translation.times.at(-1)).toBe(sampleTimes.at(-1));
      fullKeys += all.translation.times.length;
      keptKeys += translation.times.length;
      // Every kept key is the full bake's key at that time, value for value (a rotation up to its
      // sign: each kept one is on the previous kept one's hemisphere, so that a player that
      // interpolates components plays the short way).
      for (const [path, width] of [
        ['translation', 3],
        ['rotation', 4],
      ] as const) {
        const { times, values } = channels[path];
        for (let k = 0; k < times.length; k++) {
          const s = all[path].times.indexOf(times[k]);
          expect(s).toBeGreaterThanOrEqual(0);
          const got = values.slice(width * k, width * k + width);
          const want = all[path].values.slice(width * s, width * s + width);
          const sign = path === 'rotation' && got[3] * want[3] + got[0] * want[0] < 0 ? -1 : 1;
          expect(got.every((v, c) => v === sign * want[c])).toBe(true); // (0 and −0 alike)
          if (path === 'rotation' && k) {
            const before = values.slice(4 * k - 4, 4 * k);
            expect(got.reduce((d, v, c) => d + v * before[c], 0)).toBeGreaterThanOrEqual(0);
          }
        }
      }
    }
    console.log(`the Fox: ${keptKeys} of ${fullKeys} helper keys kept`);
    expect(keptKeys).toBeLessThan(0.9 * fullKeys);
    const [original] = extractSkinnedModels(await readDocument(FOX), FOX);
    const measure = async (file: string) => {
      const [baked] = extractSkinnedModels(await readDocument(file), file);
      return measureBake(original, baked, deformers.dqs);
    };
    const [a, b] = [await measure(files[0]), await measure(files[DEFAULT_HELPER_KEY_TOLERANCE])];
    expect(b.worseSamples).toBe(0);
    expect(b.p99).toBeLessThanOrEqual(a.p99 + DEFAULT_HELPER_KEY_TOLERANCE);
    expect(b.max).toBeLessThanOrEqual(a.max + 2 * DEFAULT_HELPER_KEY_TOLERANCE);
  }, 360_000);
});

describe('the measure half-way between samples', () => {
  it('CesiumMan, dqs: with a reference at the sample times (posing only the half-way times) it gives what it gives posing every time itself', async () => {
    const document = await readDocument(CESIUM_MAN);
    const [model] = extractSkinnedModels(document, CESIUM_MAN);
    bakeHelperJoints(document, model, deformers.dqs, { rate: 5 });
    const out = join(tmp.dir, 'cesium-halfway.glb');
    await writeDocument(document, out);
    const [original] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
    const [baked] = extractSkinnedModels(await readDocument(out), out);
    const reference = sampleMethod(original, deformers.dqs, 5);
    const a = measureBake(original, baked, deformers.dqs, 5, { reference, between: true });
    const b = measureBake(original, baked, deformers.dqs, 5, { between: true });
    expect(a).toEqual(b);
    // The half-way block counts the times between samples (CesiumMan's one clip: samples − 1).
    expect(a.halfway?.times).toBe(a.samples - 1);
    expect(a.halfway!.lbsP99).toBeGreaterThan(0);
    // Without it, the same figures at the samples and no half-way block.
    const c = measureBake(original, baked, deformers.dqs, 5, { reference });
    expect(c.halfway).toBeUndefined();
    expect([c.max, c.p99, c.worseSamples]).toEqual([a.max, a.p99, a.worseSamples]);
  }, 360_000);
});

describe('what the key reduction and the weights write (the chicken: 16 influences, little to thin)', () => {
  it('the default file is no larger than with every key kept, and no joint is left under a weight that rounds to 0', async () => {
    const chicken = join(SHARED, 'characters', 'chicken.glb');
    const sizes: number[] = [];
    for (const keyTolerance of [0, DEFAULT_HELPER_KEY_TOLERANCE]) {
      const document = await readDocument(chicken);
      const [model] = extractSkinnedModels(document, chicken);
      bakeHelperJoints(document, model, deformers.dqs, { rate: 10, keyTolerance });
      const out = join(tmp.dir, `chicken-keys-${keyTolerance}.glb`);
      await writeDocument(document, out);
      sizes.push(statSync(out).size);
      // The input has no joint under a zero weight (glTF: unused joints SHOULD be 0); the 16-bit
      // weights round some small ones to 0, and their joints must go with them.
      const report = await validate(out);
      expect(report.issues.numErrors).toBe(0);
      expect(report.issues.messages.filter((m) => m.code === 'ACCESSOR_JOINTS_USED_ZERO_WEIGHT')).toEqual([]);
    }
    console.log(`the chicken: ${sizes[1]} bytes with the default key tolerance, ${sizes[0]} with every key kept`);
    expect(sizes[1]).toBeLessThanOrEqual(sizes[0]);
  }, 360_000);
});
