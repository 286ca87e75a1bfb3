/**
 * Never worse than plain LBS, sample by sample: a helper bake (`io/helper-bake.ts`) gives each
 * vertex it solves new weights, and those weights are kept only while, at every sample, the baked
 * mesh's largest and 99th-percentile distance to the method stay within a tolerance of plain
 * LBS's. A vertex given back its own influences plays exactly as plain LBS plays it, so giving
 * them back can always restore the bound: with every vertex given back the bake is plain LBS.
 *
 * @module
 */
import { boundingBoxDiagonal } from '../core/mesh.js';
import { fitViews, type FitData, type FitErrors } from './fit.js';
import { NEVER_WORSE_MARGIN, percentileIndex, select } from './measure.js';
import type { MethodSamples } from './sampling.js';
import { vertexErrors } from './ssdr.js';

/**
 * How far above plain LBS the guard lets a sample's largest or 99th-percentile distance be, ÷ the
 * posed diagonal: `NEVER_WORSE_MARGIN` less 1e-5 left for the file's float rounding (its helpers'
 * channels are stored as float32 rotations and translations).
 */
const GUARD_MARGIN = NEVER_WORSE_MARGIN - 1e-5;

/**
 * Which fitted vertices keep their fitted weights: not those the helpers do not bring closer to
 * the method than plain LBS (their squared distance summed over the samples, or at their worst
 * sample), then not those {@link keepNeverWorse} gives back, sample by sample.
 * @param samples the method and LBS at every sample (whole mesh; `sampleMethod`)
 * @param active the fitted vertices (nA, indices into the whole mesh), as in `data`
 * @param data the fit, converged (`fit.ts`)
 * @param fitted the fit's errors over every sample (an `errors` task with `full`)
 * @returns per active vertex, 1 where its fitted weights are kept; how many were given back
 */
export function keepFittedWeights(
  samples: MethodSamples,
  active: readonly number[],
  data: FitData,
  fitted: FitErrors,
): { kept: Uint8Array; givenBack: number } {
  const { lbs, targets } = samples;
  const T = targets.length;
  const n = targets[0].length / 3;
  const squared = (a: Float32Array, b: Float32Array, i: number) =>
    (a[3 * i] - b[3 * i]) ** 2 + (a[3 * i + 1] - b[3 * i + 1]) ** 2 + (a[3 * i + 2] - b[3 * i + 2]) ** 2;
  const kept = new Uint8Array(active.length);
  active.forEach((i, a) => {
    let sum = 0;
    let max = 0;
    for (let t = 0; t < T; t++) {
      const d = squared(lbs[t], targets[t], i);
      sum += d;
      if (d > max) max = d;
    }
    kept[a] = fitted.sum[a] <= sum && fitted.max[a] <= max ? 1 : 0;
  });
  const overall = kept.length - kept.reduce((s, k) => s + k, 0);
  const { problem, model } = fitViews(data, true);
  const distances = new Float32Array(T * data.n);
  for (let a = 0; a < data.n; a++) if (kept[a]) vertexErrors(problem, model, a, distances);
  for (let k = 0; k < distances.length; k++) distances[k] = Math.sqrt(distances[k]);
  const lbsDistance = (t: number) => {
    const d = new Float32Array(n);
    for (let i = 0; i < n; i++) d[i] = Math.sqrt(squared(lbs[t], targets[t], i));
    return d;
  };
  const margin = GUARD_MARGIN * boundingBoxDiagonal(targets[0]);
  return { kept, givenBack: overall + keepNeverWorse(lbsDistance, T, active, distances, kept, margin) };
}

/**
 * Gives vertices back their own influences until, at every sample, the baked mesh's largest and
 * 99th-percentile distance to the method are at most plain LBS's plus `tolerance`. Where a sample's
 * largest is over, every fitted vertex past LBS's largest is given back; where its percentile is
 * over, the fitted vertices that push it (past LBS's percentile there, within it by LBS) are given
 * back, those most farther than LBS first, as many as it takes. Giving a vertex back changes its
 * distance at every sample, so the sweep repeats until no sample is over (it ends: each sweep
 * gives back at least one vertex, and with none fitted the bound holds).
 * @param lbsDistance per sample t (T), plain LBS's distance to the method at every vertex (n;
 *   posed units); read once
 * @param active the vertices the bake fitted (nA, indices into n)
 * @param fitted the fitted weights' distance to the method at active vertex a and sample t,
 *   `fitted[t·nA + a]` (posed units)
 * @param kept per active vertex, 1 where its fitted weights are kept (cleared here where given
 *   back; 0 already: played as plain LBS)
 * @param tolerance how far above LBS a sample may be (posed units)
 * @returns the vertices given back
 */
export function keepNeverWorse(
  lbsDistance: (t: number) => Float32Array,
  T: number,
  active: readonly number[],
  fitted: Float32Array,
  kept: Uint8Array,
  tolerance: number,
): number {
  const nA = active.length;
  if (!nA || !T) return 0;
  // Per sample: LBS's bounds (largest, percentile, plus the tolerance), how many vertices the
  // bake never touches are past the percentile's bound, and LBS's distance at the active ones.
  const maxBound = new Float64Array(T);
  const pBound = new Float64Array(T);
  const room = new Int32Array(T); // active vertices allowed past pBound
  const lbsActive = new Float32Array(T * nA);
  const isActive = new Uint8Array(lbsDistance(0).length);
  for (const i of active) isActive[i] = 1;
  for (let t = 0; t < T; t++) {
    const d = lbsDistance(t);
    const n = d.length;
    let max = 0;
    for (let i = 0; i < n; i++) if (d[i] > max) max = d[i];
    maxBound[t] = max + tolerance;
    pBound[t] = select(d.slice(), percentileIndex(n)) + tolerance;
    let outside = 0;
    for (let i = 0; i < n; i++) if (!isActive[i] && d[i] > pBound[t]) outside++;
    room[t] = n - 1 - percentileIndex(n) - outside;
    active.forEach((i, a) => (lbsActive[t * nA + a] = d[i]));
  }
  let given = 0;
  const giveBack = (a: number) => {
    if (kept[a]) given++;
    kept[a] = 0;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (let t = 0; t < T; t++) {
      const o = t * nA;
      let past = 0;
      const pushing: number[] = [];
      for (let a = 0; a < nA; a++) {
        const lbs = lbsActive[o + a];
        if (kept[a] && fitted[o + a] > maxBound[t]) {
          giveBack(a);
          changed = true;
        }
        const d = kept[a] ? fitted[o + a] : lbs;
        if (d <= pBound[t]) continue;
        past++;
        if (kept[a] && lbs <= pBound[t]) pushing.push(a);
      }
      if (past <= room[t]) continue;
      pushing.sort((a, b) => fitted[o + b] - lbsActive[o + b] - (fitted[o + a] - lbsActive[o + a]));
      for (const a of pushing.slice(0, past - room[t])) giveBack(a);
      changed = true;
    }
  }
  return given;
}
