/**
 * A helper bake with more than 4 influences played by an engine that skins 4 (three.js), against
 * corskin's LBS of the same file: the report says how much farther, and suggests --influences 4.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { samplePose } from '../src/core/animation.js';
import { skinningMatrices } from '../src/core/pose.js';
import { computeCentersOfRotation } from '../src/cor/precompute.js';
import { deformers } from '../src/deformers/index.js';
import { posedDiagonal } from '../src/bake/measure.js';
import { bakeSampleTimes } from '../src/bake/samples.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { runCli } from './helpers/cli.js';
import { CESIUM_MAN, SHARED, scratch } from './helpers/data.js';
import { threePlayer } from './helpers/three-playback.js';

const tmp = scratch();
afterAll(() => tmp.cleanup());

describe('a bake with more than 4 influences in an engine that skins 4 (three.js)', () => {
  /** The largest value and the 99th percentile (Math.floor(0.99·n), as the bake's measure). */
  const maxP99 = (a: number[]) => {
    const sorted = a.slice().sort((x, y) => x - y);
    return [sorted[sorted.length - 1], sorted[Math.min(a.length - 1, Math.floor(0.99 * a.length))]];
  };
  it.each([
    // The fit with 8 influences: three.js plays its heaviest 4, farther from CoR than the input there.
    ['CesiumMan', 'cor', 'helpers', CESIUM_MAN, ['--influences', '8']],
    // 16 influences, not heaviest first: three.js plays the input far off; vertices that keep
    // their own influences keep more than 4, so the file has 12.
    ['chicken', 'dqs', 'helpers', join(SHARED, 'characters/chicken.glb'), []],
    // The morph bake keeps all 16, heaviest first: exact where all play, 7× closer than the input in three.js.
    ['chicken', 'dqs', 'morphs', join(SHARED, 'characters/chicken.glb'), []],
  ] as const)(
    "%s, %s, %s: the report's figures and count of worse samples, for the bake and for the input there, are what three.js's stock loader plays of each, over every clip",
    async (name, method, kind, input, options) => {
      const out = join(tmp.dir, `${name}-${kind}-more-than-4.glb`);
      const rate = 5;
      const r = await runCli('bake', input, '--method', method, '--as', kind, ...options, '--rate', `${rate}`, '-o', out); // prettier-ignore
      expect(r.code, r.stderr).toBe(0);
      const M = method === 'cor' ? 'CoR' : 'DQS'; // the report names a method by its label
      const x = '([\\d.e+-]+)';
      const line = new RegExp(`skins 4 influences .*: baked file vs ${M} max ${x}, p99 ${x}; the input there max ${x}, p99 ${x}`).exec(r.stdout); // prettier-ignore
      expect(line, r.stdout).not.toBeNull();
      const reported = line!.slice(1).map(Number);
      const worseReported = Number(/than the input does there at (\d+) of/.exec(r.stderr)?.[1] ?? 0);
      // three.js against the method at every sample of every clip, ÷ the diagonal the report uses.
      const [original] = extractSkinnedModels(await readDocument(input), input);
      if (method === 'cor') original.mesh.centersOfRotation = computeCentersOfRotation(original.mesh).centers;
      const diagonal = posedDiagonal(original, deformers[method]);
      const players = await Promise.all(
        [out, input].map(async (file) => {
          const [model] = extractSkinnedModels(await readDocument(file), file);
          return { model, player: await threePlayer(file, model) };
        }),
      );
      expect(players[0].model.mesh.influences).toBeGreaterThan(4);
      const pooled: number[][] = [[], []];
      let worse = 0;
      original.animations.forEach((clip, c) => {
        for (const t of bakeSampleTimes(clip.duration, rate)) {
          const S = skinningMatrices(original.skeleton, samplePose(original.skeleton, clip, t));
          const y = { positions: new Float32Array(original.mesh.positions.length) };
          deformers[method](original.mesh, S, y);
          const [baked, before] = players.map(({ player }, k) => {
            const three = player.positions(c, t);
            const d: number[] = [];
            for (let i = 0; i < three.length; i += 3)
              d.push(Math.hypot(three[i] - y.positions[i], three[i + 1] - y.positions[i + 1], three[i + 2] - y.positions[i + 2]) / diagonal); // prettier-ignore
            pooled[k].push(...d);
            return maxP99(d);
          });
          if (!(baked[0] <= before[0] + 1e-4 && baked[1] <= before[1] + 1e-4)) worse++;
        }
      });
      const measured = [...maxP99(pooled[0]), ...maxP99(pooled[1])];
      console.log(`${name} in three.js: baked max, p99, input max, p99 ${measured.map((v) => v.toExponential(2)).join(', ')} (reported ${reported.join(', ')}); worse at ${worse} samples (reported ${worseReported})`); // prettier-ignore
      // The report prints two digits.
      measured.forEach((v, k) => expect(Math.abs(v - reported[k]), `figure ${k}`).toBeLessThanOrEqual(0.05 * v));
      expect(worseReported).toBe(worse);
      if (worse && options.length) expect(r.stderr).toContain('bake with --influences 4 for such engines');
      // The chicken's input is not heaviest first; its bakes are, and play far closer in three.js.
      if (name === 'chicken') expect(measured[0]).toBeLessThan(measured[2] / 5);
    },
  );
});
