/**
 * The helpers' key reduction (`bake/key-reduction.ts`): a helper bake with the default tolerance
 * keeps a subset of the keys it makes at tolerance 0 — the same values at the same times, both
 * ends of each clip, translation and rotation sharing their times — and plays, measured over
 * every sample by LBS from the written file, within the tolerance of the full keys' p99 and never
 * worse than plain LBS (the Fox, whose 16 s clip makes its helper channels outweigh its mesh).
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NodeIO, type Document } from '@gltf-transform/core';
import { deformers } from '../src/deformers/index.js';
import { measureBake } from '../src/bake/measure.js';
import { DEFAULT_HELPER_KEY_TOLERANCE } from '../src/bake/samples.js';
import { bakeHelperJoints } from '../src/io/helper-bake.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument, writeDocument } from '../src/io/node-io.js';
import { scratch, SHARED } from './helpers/data.js';

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
      bakeHelperJoints(document, model, deformers.dqs, { keyTolerance });
      files[keyTolerance] = join(tmp.dir, `fox-keys-${keyTolerance}.glb`);
      await writeDocument(document, files[keyTolerance]);
    }
    const full = helperChannels(await new NodeIO().read(files[0]));
    const reduced = helperChannels(await new NodeIO().read(files[DEFAULT_HELPER_KEY_TOLERANCE]));
    expect([...reduced.keys()].sort()).toEqual([...full.keys()].sort());
    let [fullKeys, keptKeys] = [0, 0];
    for (const [name, channels] of reduced) {
      const { translation, rotation } = channels;
      // One input for both channels of a helper; the clip's ends kept.
      expect(translation.input).toBe(rotation.input);
      const all = full.get(name)!;
      expect(translation.times[0]).toBe(all.translation.times[0]);
      expect(translation.times.at(-1)).toBe(all.translation.times.at(-1));
      fullKeys += all.translation.times.length;
      keptKeys += translation.times.length;
      // Every kept key is the full bake's key at that time, value for value.
      for (const [path, width] of [
        ['translation', 3],
        ['rotation', 4],
      ] as const) {
        const { times, values } = channels[path];
        for (let k = 0; k < times.length; k++) {
          const s = all[path].times.indexOf(times[k]);
          expect(s).toBeGreaterThanOrEqual(0);
          expect(values.slice(width * k, width * k + width)).toEqual(all[path].values.slice(width * s, width * s + width)); // prettier-ignore
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
  }, 120_000);
});
