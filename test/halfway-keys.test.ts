/**
 * The guard `auto`'s second fit (`io/helper-bake.ts`): where the fit guarded at the samples alone
 * plays farther from the method than plain LBS half-way between two samples, the bake fits again
 * guarded between, keyed at those half-way times too. On the Fox (DQS, whose run and walk move
 * fast enough between two samples at 30/s for an interpolation of two good keys to turn a helper
 * off): the written file's helper keys lie at the clips' sample times and at half-way times only,
 * some at half-way times, no more of those than the bake reports; and the file, played by LBS and
 * measured at every sample and half-way time, is never worse than plain LBS and removes most of
 * its p99 distance to DQS.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { deformers } from '../src/deformers/index.js';
import { measureBake } from '../src/bake/measure.js';
import { bakeSampleTimes } from '../src/bake/samples.js';
import { bakeHelperJoints } from '../src/io/helper-bake.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument, writeDocument } from '../src/io/node-io.js';
import { scratch, SHARED } from './helpers/data.js';

const tmp = scratch();
afterAll(() => tmp.cleanup());
const FOX = join(SHARED, 'characters', 'Fox.glb');

describe('half-way keys (the guard auto)', () => {
  it('the Fox, dqs: keys at sample and half-way times only, never worse than LBS at either', async () => {
    const document = await readDocument(FOX);
    const [model] = extractSkinnedModels(document, FOX);
    const r = bakeHelperJoints(document, model, deformers.dqs, {});
    expect(r.guard).toBe('between');
    expect(r.halfwayKeys).toBeGreaterThan(0);
    // The samples reported are the sample times alone.
    const rate = 30;
    const clips = model.animations.map((clip) => ({ name: clip.name, samples: bakeSampleTimes(clip.duration, rate) }));
    expect(r.samples).toBe(clips.reduce((s, c) => s + c.samples.length, 0));
    const out = join(tmp.dir, 'fox-dqs-halfway-keys.glb');
    await writeDocument(document, out);

    // Every helper key time, per clip: a sample time, or the midpoint of two consecutive ones.
    const written = await readDocument(out);
    let halfwayTimes = 0;
    for (const animation of written.getRoot().listAnimations()) {
      const clip = clips.find((c) => c.name === animation.getName());
      expect(clip).toBeDefined();
      const { samples } = clip!;
      const midpoints = Array.from(samples.subarray(1), (t, k) => (samples[k] + t) / 2);
      const near = (list: ArrayLike<number>, t: number) => Array.prototype.some.call(list, (x: number) => Math.abs(x - t) < 1e-5); // prettier-ignore
      const seen = new Set<number>();
      for (const channel of animation.listChannels()) {
        if (!channel.getTargetNode()!.getName().includes('_helper')) continue;
        for (const t of channel.getSampler()!.getInput()!.getArray()!) {
          if (near(samples, t)) continue;
          expect(near(midpoints, t)).toBe(true);
          seen.add(t);
        }
      }
      halfwayTimes += seen.size;
    }
    expect(halfwayTimes).toBeGreaterThan(0);
    expect(halfwayTimes).toBeLessThanOrEqual(r.halfwayKeys!);

    // Measured from the file at the samples and half-way between them.
    const [original] = extractSkinnedModels(await readDocument(FOX), FOX);
    const [baked] = extractSkinnedModels(written, out);
    const m = measureBake(original, baked, deformers.dqs, rate, { between: true });
    expect(m.worseSamples).toBe(0);
    expect(m.halfway!.worseSamples).toBe(0);
    // Measured: 96.1% at the samples, 90.3% half-way, 4 half-way times keyed (the CLI, whose DQS
    // runs on the SIMD kernels: 94.5%; before these keys it kept a fit guarded between without
    // them, 78.5%).
    expect(1 - m.p99 / m.lbsP99).toBeGreaterThan(0.9);
    expect(1 - m.halfway!.p99 / m.halfway!.lbsP99).toBeGreaterThan(0.85);
  }, 540_000);
});
