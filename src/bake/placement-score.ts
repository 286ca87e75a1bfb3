/**
 * How close a helper fit ({@link HelperCandidate}) plays a method, for a bake that fits two
 * placements and keeps one (`placement: 'auto'` in `io/helper-bake.ts`): measured as the file
 * will play it, at the samples and half-way between them — where an engine at another frame rate
 * than the samples' interpolates the helpers' keys (an engine at 60 frames per second plays every
 * such time of a bake at 30 samples/s), and where a helper free to turn about its vertices can
 * turn far between two samples that each fit well.
 *
 * @module
 */
import { quatSlerp } from '../core/math.js';
import type { HelperCandidate } from './helper-fit.js';
import { maxAndP99 } from './measure.js';
import type { MethodSamples } from './sampling.js';
import { vertexErrors, type SsdrProblem } from './ssdr.js';

/** The share of plain LBS's p99 distance a bake may keep, in the bar {@link placementScore} measures against. */
const P99_SHARE = 0.1;
/** The share of plain LBS's largest distance it may reach. */
const MAX_SHARE = 0.25;

/**
 * How far a candidate plays from the method, against plain LBS, in units of the bar a helper bake
 * is held to in the README (90% of LBS's p99 distance removed, the max within a quarter of LBS's):
 * its p99 distance over every (time, vertex) ÷ plain LBS's ÷ 0.1, plus its largest ÷ plain LBS's
 * ÷ 0.25 — both count, so that a candidate closer on one and as close on the other wins; lower is
 * closer. The times: every sample, and with `halfway` every time half-way between two samples of
 * a clip (the helpers there the LINEAR interpolation of their kept keys, as players play them).
 * Each vertex as the file plays it: its fitted weights, or its own influences (plain LBS) where it
 * keeps them.
 * @param samples the samples the candidate was fitted to (`sampleMethod`)
 * @param halfway the method and LBS half-way between them (`sampleMethod` with `halfway`), or
 *   undefined where `samples` hold those times already (`between`) or are not to be measured
 * @param J the skin's joints (the candidate's helpers are J, J + 1, …)
 */
export function placementScore(
  samples: MethodSamples,
  halfway: MethodSamples | undefined,
  candidate: HelperCandidate,
  J: number,
): number {
  const n = samples.targets[0].length / 3;
  const T = samples.targets.length;
  const half = halfway?.targets.length ?? 0;
  const baked = new Float32Array((T + half) * n);
  const plain = new Float32Array((T + half) * n);
  const problem: SsdrProblem = { n, rest: samples.rest, targets: samples.targets, fixed: samples.fixed };
  squaredDistances(samples, plain, 0);
  baked.set(plain.subarray(0, T * n));
  for (let i = 0; i < n; i++) if (!candidate.own[i]) vertexErrors(problem, candidate.model, i, baked);
  if (halfway) {
    squaredDistances(halfway, plain, T * n);
    playedHalfway(samples, halfway, candidate, J, baked.subarray(T * n), plain.subarray(T * n));
  }
  const [max, p99] = maxAndP99(baked);
  const [lbsMax, lbsP99] = maxAndP99(plain);
  const share = (x: number, of: number) => (x > 0 ? Math.sqrt(x / of) : 0);
  return share(p99, lbsP99) / P99_SHARE + share(max, lbsMax) / MAX_SHARE;
}

/** Plain LBS's squared distance to the method at each of `samples`' times and vertices, into `out` from `at`. */
function squaredDistances(samples: MethodSamples, out: Float32Array, at: number): void {
  const n = samples.targets[0].length / 3;
  samples.targets.forEach((b, t) => {
    const a = samples.lbs[t];
    for (let i = 0; i < n; i++)
      out[at + t * n + i] = (a[3 * i] - b[3 * i]) ** 2 + (a[3 * i + 1] - b[3 * i + 1]) ** 2 + (a[3 * i + 2] - b[3 * i + 2]) ** 2; // prettier-ignore
  });
}

/**
 * The candidate's squared distance to the method at every half-way time and vertex (half-way
 * time after time, n each), into `out`: its helpers at the LINEAR interpolation of the keys it
 * kept around that time (translation lerped, rotation slerped, `helperFrames.play` under the
 * joints there), its vertices on their fitted weights; a vertex that keeps its own influences
 * plays plain LBS (`plain`, the same layout).
 */
function playedHalfway(
  samples: MethodSamples,
  halfway: MethodSamples,
  candidate: HelperCandidate,
  J: number,
  out: Float32Array,
  plain: Float32Array,
): void {
  const { model, own, keys, keptKeys, used, frames } = candidate;
  const n = own.length;
  const K = model.influences;
  const fitted = used.length;
  // The written helpers (J + k in the model's weights), each a fitted helper h.
  const written: number[] = [];
  for (let h = 0; h < fitted; h++) if (used[h]) written.push(h);
  const X = new Float64Array(16 * fitted);
  const played = new Float64Array(16 * written.length);
  const translation = new Float64Array(3);
  const rotation = new Float64Array(4);
  let first = 0; // the clip's first sample
  let at = 0; // the clip's first half-way time
  samples.clips.forEach(({ times }, c) => {
    const halves = halfway.clips[c].times;
    for (let s = 0; s < halves.length; s++) {
      const t = at + s;
      const S = halfway.fixed[t];
      for (const [k, h] of written.entries()) {
        // The kept keys around the interval [s, s + 1] (both ends of a clip are always kept).
        const list = keptKeys[h][c];
        let b = 0;
        while (list[b] <= s) b++;
        const [ka, kb] = [list[b - 1], list[b]];
        const u = (halves[s] - times[ka]) / (times[kb] - times[ka]);
        const { translation: tr, rotation: ro } = keys[h];
        for (let r = 0; r < 3; r++) translation[r] = tr[3 * (first + ka) + r] + u * (tr[3 * (first + kb) + r] - tr[3 * (first + ka) + r]); // prettier-ignore
        quatSlerp(rotation, 0, ro, 4 * (first + ka), ro, 4 * (first + kb), u);
        frames.play(S, X, h, translation, 0, rotation, 0);
        played.set(X.subarray(16 * h, 16 * h + 16), 16 * k);
      }
      const rest = halfway.rest[t];
      const target = halfway.targets[t];
      for (let i = 0; i < n; i++) {
        if (own[i]) {
          out[t * n + i] = plain[t * n + i];
          continue;
        }
        const x0 = rest[3 * i], x1 = rest[3 * i + 1], x2 = rest[3 * i + 2]; // prettier-ignore
        let x = 0, y = 0, z = 0; // prettier-ignore
        for (let k = K * i; k < K * i + K; k++) {
          const w = model.weights[k];
          if (w === 0) continue;
          const j = model.joints[k];
          const M = j < J ? S : played;
          const o = j < J ? 16 * j : 16 * (j - J);
          x += w * (M[o] * x0 + M[o + 4] * x1 + M[o + 8] * x2 + M[o + 12]);
          y += w * (M[o + 1] * x0 + M[o + 5] * x1 + M[o + 9] * x2 + M[o + 13]);
          z += w * (M[o + 2] * x0 + M[o + 6] * x1 + M[o + 10] * x2 + M[o + 14]);
        }
        out[t * n + i] = (x - target[3 * i]) ** 2 + (y - target[3 * i + 1]) ** 2 + (z - target[3 * i + 2]) ** 2;
      }
    }
    first += times.length;
    at += halves.length;
  });
}
