/**
 * How close a helper fit ({@link HelperCandidate}) plays a method, for a bake that fits two
 * placements and keeps one (`placement: 'auto'` in `io/helper-bake.ts`), or holds a fit never
 * worse than plain LBS half-way between samples too (`guard: 'auto'`): measured as the file
 * will play it, at the samples and half-way between them — where an engine at another frame rate
 * than the samples' interpolates the helpers' keys (an engine at 60 frames per second plays every
 * such time of a bake at 30 samples/s), and where a helper free to turn about its vertices can
 * turn far between two samples that each fit well.
 *
 * @module
 */
import { quatSlerp } from '../core/math.js';
import { boundingBoxDiagonal } from '../core/mesh.js';
import type { HelperCandidate } from './helper-fit.js';
import { NEVER_WORSE_MARGIN } from './measure.js';
import { maxAndP99, MaxAndP99Stream, percentileIndex, type MaxAndP99StreamState } from './percentile.js';
import { blendBack, holdNeverWorse, roots } from './never-worse.js';
import type { MethodSamples } from './sampling.js';
import { verticesErrors, type SsdrProblem } from './ssdr.js';

/** The share of plain LBS's p99 distance a bake may keep, in the bar {@link placementScore} measures against. */
const P99_SHARE = 0.1;
/** The share of plain LBS's largest distance it may reach. */
const MAX_SHARE = 0.25;

/** Plain LBS against the method at the times a {@link placementScore} measures, computed once per bake. */
export interface PlainLbs {
  /** Squared distances, per time (the samples, then half-way) and vertex, n each. */
  squared: Float32Array;
  /** The largest and the 99th-percentile squared distance. */
  max: number;
  p99: number;
  /** Per half-way time, the largest and the 99th-percentile distance (not squared), 2 each. */
  halfway: Float64Array;
  /** Per vertex, its largest squared distance over every time (n). */
  vertexMax: Float32Array;
  /**
   * Room for a candidate's squared distances, laid out as {@link squared}: one array for every
   * candidate scored, written at the candidate's active vertices only (the others hold whatever
   * an earlier candidate left: read through {@link OutsideFigures} instead).
   */
  scratch: Float32Array;
  /** The figures of the vertices outside a candidate's active ones, for the last set asked ({@link outsideFigures}). */
  outside?: OutsideFigures;
  /** Per vertex, its squared distances summed over every time in time order (made when first asked). */
  sums?: Float64Array;
}

/**
 * Plain LBS at the vertices no candidate of an active set fits (each plays plain LBS whatever
 * the candidate): what {@link placementScore} takes of them, made once per set, so that scoring a
 * candidate reads its active vertices alone (Ybot: 3,252 of 35,434).
 */
interface OutsideFigures {
  /** The candidates' active vertices, and the margin the half-way bounds take. */
  active: readonly number[];
  margin: number;
  /** The other vertices' squared distances at every time, as a stream's state (total: every time and vertex). */
  tail: MaxAndP99StreamState;
  /**
   * Per half-way time, the largest distance (root) among the other vertices (NaN where one is
   * NaN), and how many are past the time's 99th-percentile bound (plain LBS's there + margin).
   */
  rootMax: Float64Array;
  past: Int32Array;
}

/** What {@link placementScore} found. */
export interface PlacementScore {
  /** The score: lower is closer. */
  score: number;
  /**
   * The half-way times at which the candidate's largest or 99th-percentile distance over the
   * vertices is past plain LBS's there by more than `NEVER_WORSE_MARGIN` of the posed diagonal (0
   * without half-way times).
   */
  worseHalfway: number;
  /**
   * The half-way times (indices over every clip's, ascending) that a guard between would hold:
   * those counted in {@link worseHalfway}, and those where a vertex plays farther from the method
   * than plain LBS puts it at any time scored (`keepFittedWeights`' test of each vertex).
   */
  overTimes: number[];
}

/**
 * Plain LBS's squared distance to the method at every sample and, with `halfway`, at every time
 * half-way between two (see {@link placementScore}), and their largest and 99th percentile.
 */
export function plainLbs(samples: MethodSamples, halfway: MethodSamples | undefined): PlainLbs {
  const n = samples.targets[0].length / 3;
  const times = [...samples.lbsSquared, ...(halfway?.lbsSquared ?? [])];
  const squared = new Float32Array(times.length * n);
  times.forEach((at, t) => squared.set(at, t * n));
  const [max, p99] = maxAndP99(squared);
  const vertexMax = new Float32Array(n);
  for (let k = 0; k < squared.length; k += n)
    for (let i = 0; i < n; i++) if (squared[k + i] > vertexMax[i]) vertexMax[i] = squared[k + i];
  return { squared, max, p99, halfway: halfwayFigures(squared, samples.targets.length, n), vertexMax, scratch: new Float32Array(squared.length) }; // prettier-ignore
}

/** Per time after the first `skip` (the half-way ones), the largest and the 99th-percentile distance, from squared distances. */
function halfwayFigures(squared: Float32Array, skip: number, n: number): Float64Array {
  const times = squared.length / n - skip;
  const out = new Float64Array(2 * times);
  for (let t = 0; t < times; t++) {
    const [max, p99] = maxAndP99(squared.subarray((skip + t) * n, (skip + t + 1) * n));
    out[2 * t] = Math.sqrt(max);
    out[2 * t + 1] = Math.sqrt(p99);
  }
  return out;
}

/** {@link OutsideFigures} of `active` (those of `plain` when made for the same set and margin). */
function outsideFigures(
  plain: PlainLbs,
  active: readonly number[],
  margin: number,
  skip: number,
  n: number,
): OutsideFigures {
  const cached = plain.outside;
  if (cached && cached.margin === margin && cached.active.length === active.length && cached.active.every((i, a) => i === active[a])) return cached; // prettier-ignore
  const inside = new Uint8Array(n);
  for (const i of active) inside[i] = 1;
  const outside: number[] = [];
  for (let i = 0; i < n; i++) if (!inside[i]) outside.push(i);
  const { squared } = plain;
  const T = squared.length / n;
  const stream = new MaxAndP99Stream(T * n);
  const row = new Float32Array(outside.length);
  const halves = T - skip;
  const [rootMax, past] = [new Float64Array(halves), new Int32Array(halves)];
  for (let t = 0; t < T; t++) {
    outside.forEach((i, o) => (row[o] = squared[t * n + i]));
    stream.push(row);
    if (t < skip) continue;
    const h = t - skip;
    const p99Bound = plain.halfway[2 * h + 1] + margin;
    let [max, nan] = [0, false];
    for (let o = 0; o < row.length; o++) {
      const x = Math.sqrt(row[o]);
      if (x > max) max = x;
      else if (x !== x) nan = true;
      if (x > p99Bound) past[h]++;
    }
    rootMax[h] = nan ? NaN : max;
  }
  plain.outside = { active: active.slice(), margin, tail: stream.state(), rootMax, past };
  return plain.outside;
}

/**
 * How far a candidate plays from the method, against plain LBS, in units of the bar a helper bake
 * is held to in docs/bake.md (90% of LBS's p99 distance removed, the max within a quarter of LBS's):
 * its p99 distance over every (time, vertex) ÷ plain LBS's ÷ 0.1, plus its largest ÷ plain LBS's
 * ÷ 0.25 — both count, so that a candidate closer on one and as close on the other wins; lower is
 * closer. The times: every sample, and with `halfway` every time half-way between two samples of
 * a clip (the helpers there the LINEAR interpolation of their kept keys, as players play them).
 * Each vertex as the file plays it: its fitted weights, or its own influences (plain LBS) where it
 * keeps them. Counts, too, the half-way times where the candidate plays farther from the method
 * than plain LBS (its largest or 99th-percentile distance over the vertices, by more than
 * `NEVER_WORSE_MARGIN` of the samples' posed diagonal: where the bake's report would warn).
 * @param samples the samples the candidate was fitted to (`sampleMethod`)
 * @param halfway the method and LBS half-way between them (`sampleMethod` with `halfway`), or
 *   undefined where `samples` hold those times already (`between`) or are not to be measured
 * @param plain plain LBS at the same times ({@link plainLbs})
 */
export function placementScore(
  samples: MethodSamples,
  halfway: MethodSamples | undefined,
  plain: PlainLbs,
  candidate: HelperCandidate,
): PlacementScore {
  const n = samples.targets[0].length / 3;
  const baked = bakedSquared(playedTimes(samples, halfway, candidate), plain, candidate);
  const margin = NEVER_WORSE_MARGIN * boundingBoxDiagonal(samples.targets[0]);
  const skip = samples.targets.length;
  const { active } = candidate;
  const outside = outsideFigures(plain, active, margin, skip, n);
  // At a half-way time, as `maxAndP99Within` of the distances' roots there over the whole mesh:
  // no root past the largest's bound, and at most `room` past the percentile's (the other
  // vertices' counted beforehand). A vertex past its largest over every time is only a fitted one.
  const room = n - 1 - percentileIndex(n);
  let worseHalfway = 0;
  const overTimes: number[] = [];
  for (let t = 0; t < plain.halfway.length / 2; t++) {
    const o = (skip + t) * n;
    const [maxBound, p99Bound] = [plain.halfway[2 * t] + margin, plain.halfway[2 * t + 1] + margin];
    let worse = !(outside.rootMax[t] <= maxBound);
    let [past, over] = [outside.past[t], false];
    for (const i of active) {
      const d = baked[o + i];
      const x = Math.sqrt(d);
      if (!(x <= maxBound)) worse = true;
      else if (x > p99Bound) past++;
      if (d > plain.vertexMax[i]) over = true;
    }
    worse ||= past > room;
    if (worse) worseHalfway++;
    if (worse || over) overTimes.push(t);
  }
  // The largest and the 99th percentile over every (time, vertex): the other vertices' kept in
  // their stream, the active ones' given.
  const stream = new MaxAndP99Stream(baked.length);
  stream.merge(outside.tail);
  const row = new Float32Array(active.length);
  for (let o = 0; o < baked.length; o += n) {
    active.forEach((i, a) => (row[a] = baked[o + i]));
    stream.push(row);
  }
  const [max, p99] = stream.result();
  const share = (x: number, of: number) => (x > 0 ? Math.sqrt(x / of) : 0);
  return { score: share(p99, plain.p99) / P99_SHARE + share(max, plain.max) / MAX_SHARE, worseHalfway, overTimes };
}

/**
 * What holds a candidate never worse than plain LBS half-way between the samples as well as at
 * them: the never-worse guard (`holdNeverWorse`) over the samples and the half-way times together,
 * the helpers there played from their kept keys, each vertex first tried on blends of its fitted
 * weights with its own (`blendBack`: the candidate's weights changed in place where one holds).
 * The fit is not redone.
 * @param own writes vertex i's own K influences (as it plays them given back)
 * @returns the fitted vertices to give back their own influences (`giveBack`)
 */
export function holdHalfway(
  samples: MethodSamples,
  halfway: MethodSamples,
  plain: PlainLbs,
  candidate: HelperCandidate,
  own: (i: number, joints: Uint32Array, weights: Float32Array) => void,
): number[] {
  const n = samples.targets[0].length / 3;
  const times = playedTimes(samples, halfway, candidate);
  const baked = bakedSquared(times, plain, candidate);
  const T = baked.length / n;
  const active = candidate.active.filter((i) => !candidate.own[i]); // the fitted vertices
  const nA = active.length;
  const fitted = new Float32Array(T * nA);
  for (let t = 0; t < T; t++) active.forEach((i, a) => (fitted[t * nA + a] = Math.sqrt(baked[t * n + i])));
  const lbsDistance = (t: number) => roots(plain.squared.subarray(t * n, (t + 1) * n));
  const kept = new Uint8Array(nA).fill(1);
  const { model } = candidate;
  const [sum, max] = [new Float64Array(1), new Float64Array(1)];
  // Vertex active[a]'s distances at every time into its column of `fitted` (through `baked`).
  const measure = (a: number) => {
    const i = active[a];
    let from = 0;
    for (const { problem, transforms } of times) {
      const out = baked.subarray(from, (from += problem.targets.length * n));
      verticesErrors(problem, { ...model, transforms }, [i], sum, max, out);
    }
    for (let t = 0; t < T; t++) fitted[t * nA + a] = Math.sqrt(baked[t * n + i]);
  };
  const blend = blendBack(model.joints, model.weights, model.influences, (a, j, w) => own(active[a], j, w), measure, (a) => active[a]); // prettier-ignore
  holdNeverWorse(lbsDistance, T, active, fitted, kept, boundingBoxDiagonal(samples.targets[0]), blend);
  return active.filter((_, a) => !kept[a]);
}

/**
 * The times a candidate is measured at: the samples (the fit's transforms), then with `halfway`
 * the half-way times (the keys interpolated), each as the decomposition's problem there and the
 * helpers' transforms.
 */
function playedTimes(
  samples: MethodSamples,
  halfway: MethodSamples | undefined,
  candidate: HelperCandidate,
): { problem: SsdrProblem; transforms: Float64Array[] }[] {
  const n = samples.targets[0].length / 3;
  const sets = [{ at: samples, transforms: candidate.model.transforms }];
  if (halfway) sets.push({ at: halfway, transforms: playedHalfway(samples, halfway, candidate) });
  return sets.map(({ at, transforms }) => ({ problem: { n, rest: at.rest, targets: at.targets, fixed: at.fixed }, transforms })); // prettier-ignore
}

/**
 * The candidate's squared distance to the method at the times `times` ({@link playedTimes}: every
 * sample, then any half-way times, the helpers there played from their kept keys), per time and
 * vertex as {@link PlainLbs.squared}, at the candidate's active vertices only (plain LBS's where
 * one keeps its own influences; every other vertex plays plain LBS and is left as it was). Written
 * into `plain.scratch` (and returned): valid until the next candidate is measured.
 */
function bakedSquared(
  times: { problem: SsdrProblem; transforms: Float64Array[] }[],
  plain: PlainLbs,
  candidate: HelperCandidate,
): Float32Array {
  const { n } = times[0].problem;
  const baked = plain.scratch;
  const fitted: number[] = [];
  const kept: number[] = []; // active vertices that keep their own influences: they play plain LBS
  for (const i of candidate.active) (candidate.own[i] ? kept : fitted).push(i);
  for (let o = 0; o < baked.length; o += n) for (const i of kept) baked[o + i] = plain.squared[o + i];
  let from = 0;
  const [sum, max] = [new Float64Array(fitted.length), new Float64Array(fitted.length)];
  for (const { problem, transforms } of times) {
    const out = baked.subarray(from, (from += problem.targets.length * n));
    verticesErrors(problem, { ...candidate.model, transforms }, fitted, sum, max, out);
  }
  return baked;
}

/**
 * The written helpers' skinning matrices at every half-way time (4×4 column-major, 16 per
 * written helper, as the candidate's model numbers them): the LINEAR interpolation of the keys
 * each kept around that time (translation lerped, rotation slerped), played under the joints
 * there (`HelperFrames.play`), as a player plays the file.
 */
function playedHalfway(samples: MethodSamples, halfway: MethodSamples, candidate: HelperCandidate): Float64Array[] {
  const { keys, keptKeys, used, frames } = candidate;
  const fitted = used.length;
  const written: number[] = [];
  for (let h = 0; h < fitted; h++) if (used[h]) written.push(h);
  const X = new Float64Array(16 * fitted);
  const translation = new Float64Array(3);
  const rotation = new Float64Array(4);
  const out: Float64Array[] = [];
  let first = 0; // the clip's first sample
  samples.clips.forEach(({ times }, c) => {
    const halves = halfway.clips[c].times;
    for (let s = 0; s < halves.length; s++) {
      const played = new Float64Array(16 * written.length);
      for (const [k, h] of written.entries()) {
        // The kept keys around the interval [s, s + 1] (both ends of a clip are always kept).
        const list = keptKeys[h][c];
        let b = 0;
        while (list[b] <= s) b++;
        const [ka, kb] = [first + list[b - 1], first + list[b]];
        const u = (halves[s] - times[list[b - 1]]) / (times[list[b]] - times[list[b - 1]]);
        const { translation: tr, rotation: ro } = keys[h];
        for (let r = 0; r < 3; r++) translation[r] = tr[3 * ka + r] + u * (tr[3 * kb + r] - tr[3 * ka + r]);
        quatSlerp(rotation, 0, ro, 4 * ka, ro, 4 * kb, u);
        frames.play(halfway.fixed[out.length], X, h, translation, 0, rotation, 0);
        played.set(X.subarray(16 * h, 16 * h + 16), 16 * k);
      }
      out.push(played);
    }
    first += times.length;
  });
  return out;
}

/**
 * Per vertex, the candidate's squared distance to the method summed over every time scored (the
 * samples and, with `halfway`, the half-way times): where its helpers fall short (n).
 */
export function vertexResiduals(
  samples: MethodSamples,
  halfway: MethodSamples | undefined,
  plain: PlainLbs,
  candidate: HelperCandidate,
): Float64Array {
  const n = samples.targets[0].length / 3;
  const baked = bakedSquared(playedTimes(samples, halfway, candidate), plain, candidate);
  if (!plain.sums) {
    plain.sums = new Float64Array(n);
    for (let k = 0; k < plain.squared.length; k++) plain.sums[k % n] += plain.squared[k];
  }
  const out = plain.sums.slice(); // every vertex but the active ones plays plain LBS
  for (const i of candidate.active) {
    out[i] = 0;
    for (let o = i; o < baked.length; o += n) out[i] += baked[o];
  }
  return out;
}

/** Per region joint of `regionOf`, the sum of `residual` (per vertex, {@link vertexResiduals}) over its vertices. */
export function regionResiduals(residual: Float64Array, regionOf: Int32Array): Map<number, number> {
  const out = new Map<number, number>();
  for (let i = 0; i < regionOf.length; i++) {
    const r = regionOf[i];
    if (r >= 0) out.set(r, (out.get(r) ?? 0) + residual[i]);
  }
  return out;
}
