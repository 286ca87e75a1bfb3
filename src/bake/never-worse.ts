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
import { fitViews, fitViewsAt, type FitData } from './fit.js';
import { updateVertexWeights, weightScratch } from './ssdr-weights.js';
import { roundToStoredWeights, storedWeightRoom } from '../core/weight-quantization.js';
import { BLEND_SHARES, blendWeights } from './weight-blend.js';
import { NEVER_WORSE_MARGIN } from './measure.js';
import { keepNeverWorse, sampleBounds, withinBounds, type SampleBounds } from './sample-bounds.js';
import type { MethodSamples } from './sampling.js';
import { vertexErrors, verticesErrors, type SsdrProblem } from './ssdr.js';

/**
 * How far above plain LBS the guard lets a sample's largest or 99th-percentile distance be, ÷ the
 * posed diagonal: `NEVER_WORSE_MARGIN` less 1e-5 left for how players differ on the stored keys
 * (the distances are measured with the keys as stored, `helper-frames.ts`; a player that does not
 * normalise a 16-bit rotation key, as three.js, plays it within about 1e-6 of the diagonal).
 */
export const GUARD_MARGIN = NEVER_WORSE_MARGIN - 1e-5;

/**
 * How much a sample where a vertex is over weighs in its repair, tried in turn (beside the fit's
 * samples, weighing 1 each): the heavier, the closer the solve comes to its least error there.
 */
const REPAIR_WEIGHTS = [16, 256, 4096, 65536];

/**
 * The share of plain LBS's largest distance over the mesh past which a kept vertex's samples weigh
 * more in a second solve (the peaks of {@link keepFittedWeights}); the bar the helper bake is read
 * against is a quarter of it.
 */
const PEAK_SHARE = 0.2;

/** How many times a peak is solved again, the samples where the solve before broke the bounds weighing more too. */
const PEAK_ATTEMPTS = 3;

/** How much more than all its `over` samples together a sample pinned in a weighted solve weighs. */
const PIN_WEIGHT = 64;

/** How much a peak's second solve may raise the vertex's squared distances summed over the samples. */
const PEAK_COST = 1.5;

/**
 * Which fitted vertices keep their fitted weights: those the helpers bring closer to the method
 * than plain LBS (their squared distance summed over the samples, and at their worst sample), or
 * that a repair or a blend back towards their own weights brings there; then not those
 * {@link keepNeverWorse} gives back, sample by sample.
 * @param samples the method and LBS at every sample (whole mesh; `sampleMethod`)
 * @param active the fitted vertices (nA, indices into the whole mesh), as in `data`
 * @param data the fit, converged (`fit.ts`)
 * @param own writes active vertex a's own influences (K joints and weights, as it plays them
 *   given back); where given, a vertex the weighted repairs leave over is tried on blends of its
 *   fitted weights with them before it is given back
 * @param holds what else a vertex's weights must pass where a repair, a blend or a peak's solve
 *   changes them (the normals' guard, `normalHolds` in `normal-guard.ts`): a test of active vertex a as
 *   `data` holds it now
 * @returns per active vertex, 1 where its fitted weights are kept; how many were given back; and
 *   `peaks`, to call once after the guard (and after clearing `kept` where a caller gives vertices
 *   back): it solves again the kept vertices farthest from the method (the peaks, see its comment)
 *   and returns them, their new weights in `data` (the helper bake plays them on the fit it keeps
 *   alone: on every fit they would steer its refinements as noise does)
 */
export function keepFittedWeights(
  samples: MethodSamples,
  active: readonly number[],
  data: FitData,
  own?: (a: number, joints: Uint32Array, weights: Float32Array) => void,
  holds: (a: number) => boolean = () => true,
): { kept: Uint8Array; givenBack: number; peaks: (addable?: (h: number) => boolean) => number[] } {
  const { lbsSquared, targets } = samples;
  const T = targets.length;
  const nA = data.n;
  // The fitted vertices' squared distances at every sample (kept as distances), sum and largest:
  // the positions' alone (the fit's normals, `SsdrProblem.normals`, left out here and in the repairs).
  const { K } = data;
  // Weights as the file stores them (16-bit steps), where a vertex holds a helper: what is
  // guarded is what plays (a weight of 5e-8 on a helper that moves the vertex far plays as 0). A
  // vertex on its fixed joints alone is left as plain LBS, which the guard measures unrounded too.
  const room = storedWeightRoom(K);
  for (let a = 0; a < nA; a++) {
    let helper = false;
    for (let k = K * a; k < K * a + K; k++) helper ||= data.joints[k] >= data.J && data.weights[k] > 0;
    if (helper) roundToStoredWeights(data.weights, K * a, K, room);
  }
  const { problem, model } = positionsOnly(fitViews(data, true));
  const distances = new Float32Array(T * nA);
  const [fittedSum, fittedMax] = [new Float64Array(nA), new Float64Array(nA)];
  verticesErrors(
    problem,
    model,
    Int32Array.from({ length: nA }, (_, a) => a),
    fittedSum,
    fittedMax,
    distances,
  );
  for (let k = 0; k < distances.length; k++) distances[k] = Math.sqrt(distances[k]);
  const kept = new Uint8Array(nA);
  const lbsSum = new Float64Array(nA);
  const lbsMax = new Float64Array(nA);
  // Sample by sample (each sample's arrays read in order).
  for (let t = 0; t < T; t++)
    active.forEach((i, a) => {
      const d = lbsSquared[t][i];
      lbsSum[a] += d;
      if (d > lbsMax[a]) lbsMax[a] = d;
    });
  for (let a = 0; a < nA; a++) kept[a] = fittedSum[a] <= lbsSum[a] && fittedMax[a] <= lbsMax[a] ? 1 : 0;
  const lbsDistance = (t: number) => roots(lbsSquared[t]);
  const bounds = sampleBounds(lbsDistance, T, active, GUARD_MARGIN * boundingBoxDiagonal(targets[0]));
  // A vertex over at some samples first gets its weights solved again by weighted least squares,
  // those samples weighing more and more (REPAIR_WEIGHTS) beside the fit's own, the helpers as
  // they are; kept with the first that is within LBS's largest at every sample, past LBS's
  // percentile at no sample where it was not, and closer than LBS overall.
  const scratch = weightScratch();
  const old = new Float32Array(T);
  // Vertex a's distances at every sample as its weights are now, into its column of `distances`.
  const measure = (a: number): void => {
    vertexErrors(problem, model, a, distances);
    for (let t = 0; t < T; t++) distances[t * nA + a] = Math.sqrt(distances[t * nA + a]);
  };
  const blend = own && blendBack(data.joints, data.weights, K, own, measure, undefined, holds);
  // Solves vertex a's weights again by weighted least squares, the samples `over` weighing
  // REPAIR_WEIGHTS in turn beside the samples `base` (1 each), over its own joints (the fixed
  // joints among its candidates) and the helpers it has, the helpers as they are; stops at the
  // first solve `accept` takes (its distances in `distances`, its weights in the fit's arrays) and
  // returns true, else leaves the last solve's and returns false.
  const solveWeighted = (
    a: number,
    over: number[],
    base: Int32Array,
    accept: () => boolean,
    addable: (h: number) => boolean = () => false,
    pinned: readonly number[] = [],
  ): boolean => {
    const at = K * a;
    const candidates = Array.from(data.candidates.subarray(data.candidateStart[a], data.candidateStart[a + 1])).filter(
      (j) =>
        j < data.J ||
        addable(j - data.J) ||
        data.joints.subarray(at, at + K).some((k, c) => k === j && data.weights[at + c] > 0),
    );
    const views = positionsOnly(fitViewsAt(data, [...base, ...over, ...pinned]));
    const sampleWeights = new Float64Array(base.length + over.length + pinned.length).fill(1, 0, base.length);
    for (const weight of REPAIR_WEIGHTS) {
      sampleWeights.fill(weight, base.length);
      sampleWeights.fill(weight * PIN_WEIGHT * Math.max(1, over.length), base.length + over.length);
      updateVertexWeights(views.problem, views.model, a, candidates, scratch, sampleWeights);
      measure(a);
      if (accept()) return true;
    }
    return false;
  };
  // Vertex a's fitted weights and distances, to restore.
  const saved = { joints: new Uint32Array(K), weights: new Float32Array(K) };
  const save = (a: number): void => {
    saved.joints.set(data.joints.subarray(K * a, K * a + K));
    saved.weights.set(data.weights.subarray(K * a, K * a + K));
    for (let t = 0; t < T; t++) old[t] = distances[t * nA + a];
  };
  const restore = (a: number): void => {
    data.joints.set(saved.joints, K * a);
    data.weights.set(saved.weights, K * a);
    for (let t = 0; t < T; t++) distances[t * nA + a] = old[t];
  };
  // The fit's own samples as the base (the weights the alternation fitted to them).
  const repair = (a: number, over: number[]): boolean => {
    save(a);
    if (solveWeighted(a, over, data.fitSamples, () => withinBounds(bounds, distances, a, old) && holds(a))) return true;
    restore(a);
    if (blend?.(a, bounds, distances, old)) return true;
    restore(a);
    return false;
  };
  // A vertex farther than LBS overall (its sum or its worst sample) gets the same repair first,
  // the samples where it is farther than LBS weighing more: given back whole, it plays LBS's
  // error, and that is where the bake's largest distance often is (the Soldier's DDM: its two
  // worst vertices, 0.26 of LBS's largest, were given back).
  let overall = 0;
  for (let a = 0; a < nA; a++) {
    if (kept[a]) continue;
    const over: number[] = [];
    for (let t = 0; t < T; t++) if (distances[t * nA + a] > bounds.lbsActive[t * nA + a]) over.push(t);
    if (over.length && repair(a, over)) kept[a] = 1;
    else overall++;
  }
  const givenBack = overall + keepNeverWorse(bounds, distances, kept, repair);
  // Peaks: the bake's largest distance is read against plain LBS's largest over the mesh, and the
  // least-squares fit lets a vertex be far off at a few samples unlike the others (Ybot's `dance`
  // opens on two frames far from the rest: its worst vertex was 0.26 of LBS's largest there). The
  // kept vertices, farthest first, while past both PEAK_SHARE of LBS's largest and what the mesh
  // cannot go below (the vertices playing LBS, the peaks already tried), are solved again over
  // every keyed sample (not the alternation's subset alone), their samples past that weighing
  // more, over its own joints and any helper among its candidates that some vertex plays (`addable`,
  // by helper number), each keeping the solve with the lowest largest distance among those within
  // the bounds — newly past LBS's percentile only at samples with room left for one more vertex
  // past it, counted as the peaks go (no sweep follows) — that add at most PEAK_COST to its
  // squared distances summed.
  const peaks = (addable?: (h: number) => boolean): number[] => {
    const solved: number[] = [];
    const isActive = new Uint8Array(lbsSquared[0].length);
    for (const i of active) isActive[i] = 1;
    let [largest, ceiling] = [0, 0];
    for (const d of lbsSquared)
      for (let i = 0; i < d.length; i++) {
        largest = Math.max(largest, d[i]);
        if (!isActive[i]) ceiling = Math.max(ceiling, d[i]);
      }
    ceiling = Math.max(PEAK_SHARE * Math.sqrt(largest), Math.sqrt(ceiling));
    const vertexMax = new Float64Array(nA);
    for (let a = 0; a < nA; a++) {
      const from = kept[a] ? distances : bounds.lbsActive;
      for (let t = 0; t < T; t++) vertexMax[a] = Math.max(vertexMax[a], from[t * nA + a]);
      if (!kept[a]) ceiling = Math.max(ceiling, vertexMax[a]);
    }
    // Per sample, the vertices past LBS's percentile there (the fitted, or LBS's where given back).
    const past = new Int32Array(T);
    for (let t = 0; t < T; t++)
      for (let a = 0; a < nA; a++)
        past[t] += +((kept[a] ? distances : bounds.lbsActive)[t * nA + a] > bounds.pBound[t]);
    const best = { max: 0, joints: new Uint32Array(K), weights: new Float32Array(K) };
    const farthest = [...vertexMax.keys()].filter((a) => kept[a]).sort((a, b) => vertexMax[b] - vertexMax[a]);
    for (const a of farthest) {
      if (vertexMax[a] <= ceiling) break;
      const over: number[] = [];
      let sum = 0;
      for (let t = 0; t < T; t++) {
        const d = distances[t * nA + a];
        sum += d * d;
        if (d > ceiling) over.push(t);
      }
      save(a);
      best.max = vertexMax[a];
      let found = false;
      // The samples where a solve breaks the bounds are pinned in the next attempt: they weigh
      // more than all of `over` together.
      const pinned = new Set<number>();
      for (let attempt = 0; attempt < PEAK_ATTEMPTS && !found; attempt++) {
        const broken: number[] = [];
        solveWeighted(a, over, data.keyed, () => {
          let [max, s] = [0, 0];
          for (let t = 0; t < T; t++) {
            const d = distances[t * nA + a];
            max = Math.max(max, d);
            s += d * d;
          }
          if (max < best.max && s <= PEAK_COST * sum && withinBounds(bounds, distances, a, old, past, broken) && holds(a)) {
            best.max = max;
            best.joints.set(data.joints.subarray(K * a, K * a + K));
            best.weights.set(data.weights.subarray(K * a, K * a + K));
            found = true;
          }
          return false;
        }, addable, [...pinned]); // prettier-ignore
        const size = pinned.size;
        for (const t of broken) pinned.add(t);
        if (pinned.size === size) break;
      }
      restore(a);
      if (found) {
        data.joints.set(best.joints, K * a);
        data.weights.set(best.weights, K * a);
        measure(a);
        solved.push(a);
        for (let t = 0; t < T; t++)
          past[t] += +(distances[t * nA + a] > bounds.pBound[t]) - +(old[t] > bounds.pBound[t]);
      }
      ceiling = Math.max(ceiling, best.max);
    }
    return solved;
  };
  return { kept, givenBack, peaks };
}

/**
 * The guard of {@link keepFittedWeights} over any set of times (a fit's samples and the times
 * half-way between them, say), without its weighted repairs: fitted vertices given back their own
 * influences until, at every time, the baked mesh's largest and 99th-percentile distance to the
 * method are within `GUARD_MARGIN` × `diagonal` of plain LBS's there — each first tried on
 * blends of its fitted weights with its own ({@link blendBack}) where `blend` is given.
 * @param lbsDistance per time t (T), plain LBS's distance to the method at every vertex (n; posed
 *   units); read once
 * @param active the fitted vertices (nA, indices into n)
 * @param fitted their distance to the method as baked, `fitted[t·nA + a]` (posed units)
 * @param kept per active vertex, 1 where it plays its fitted weights (cleared where given back)
 * @param diagonal the posed bounding-box diagonal the margin is a share of
 * @param blend from {@link blendBack}, over the same active vertices and times
 * @returns the vertices given back
 */
export function holdNeverWorse(
  lbsDistance: (t: number) => Float32Array,
  T: number,
  active: readonly number[],
  fitted: Float32Array,
  kept: Uint8Array,
  diagonal: number,
  blend?: BlendBack,
): number {
  const bounds = sampleBounds(lbsDistance, T, active, GUARD_MARGIN * diagonal);
  const old = new Float32Array(T);
  const repair =
    blend &&
    ((a: number): boolean => {
      for (let t = 0; t < T; t++) old[t] = fitted[t * active.length + a];
      if (blend(a, bounds, fitted, old)) return true;
      for (let t = 0; t < T; t++) fitted[t * active.length + a] = old[t];
      return false;
    });
  return keepNeverWorse(bounds, fitted, kept, repair);
}

/**
 * Tries vertex a part of the way back to its own influences: α·fitted + (1 − α)·own for α in
 * `BLEND_SHARES` ({@link blendWeights}), kept with the first within the bounds
 * ({@link withinBounds}, `old` its distances with its fitted weights) — where a fit is farther
 * than LBS at a few times and far closer at the others, a blend can be within LBS at every time
 * and still closer at most, where given back whole the vertex plays LBS's distance at its worst.
 * Returns false with its fitted weights back (its column of `fitted` as the last blend left it).
 */
export type BlendBack = (a: number, bounds: SampleBounds, fitted: Float32Array, old: Float32Array) => boolean;

/**
 * A {@link BlendBack} for the weights `joints`/`weights` (K per active vertex, from row `row(a)`,
 * default a: the fit's arrays, or the whole mesh's model with `row` the vertex's index).
 * @param own writes active vertex a's own K influences (as it plays them given back)
 * @param measure writes active vertex a's distance at every time, as its weights are now, into
 *   its column of the `fitted` array the guard reads
 * @param holds what else the blend must pass (as `keepFittedWeights`' `holds`)
 */
export function blendBack(
  joints: Uint32Array,
  weights: Float32Array,
  K: number,
  own: (a: number, joints: Uint32Array, weights: Float32Array) => void,
  measure: (a: number) => void,
  row: (a: number) => number = (a) => a,
  holds: (a: number) => boolean = () => true,
): BlendBack {
  const [ownJoints, ownWeights] = [new Uint32Array(K), new Float32Array(K)];
  return (a, bounds, fitted, old) => {
    const at = K * row(a);
    const fit = { joints: joints.slice(at, at + K), weights: weights.slice(at, at + K) };
    own(a, ownJoints, ownWeights);
    for (const alpha of BLEND_SHARES) {
      blendWeights(fit, { joints: ownJoints, weights: ownWeights }, alpha, joints, weights, at);
      measure(a);
      if (withinBounds(bounds, fitted, a, old) && holds(a)) return true;
    }
    joints.set(fit.joints, at);
    weights.set(fit.weights, at);
    return false;
  };
}

/** The square roots of `squared`, a new array. */
export function roots(squared: Float32Array | Float64Array): Float32Array {
  const out = new Float32Array(squared.length);
  for (let i = 0; i < out.length; i++) out[i] = Math.sqrt(squared[i]);
  return out;
}

/** The decomposition's views without the normals the fit matches (the guard measures positions). */
function positionsOnly<V extends { problem: SsdrProblem }>(views: V): V {
  return { ...views, problem: { ...views.problem, normals: undefined } };
}
