/**
 * Helper joints: any skinning method baked into standard linear blend skinning by adding a few
 * rigid joints to the skin, fitted by smooth skinning decomposition with rigid bones (Le & Deng
 * 2012, "Smooth Skinning Decomposition with Rigid Bones", ACM TOG 31(6), SIGGRAPH Asia 2012; see
 * `ssdr.ts`) over every clip's samples — the helper bones riggers add at elbows and knees by hand
 * (Mohr & Gleicher 2003), found automatically. The file stays plain glTF: every original joint
 * and its animation are kept, and so are a vertex's influences as they are (all of them, weights
 * unchanged) where LBS already matches the method or the helpers would put it farther from the
 * method than plain LBS at some sample (`bake/never-worse.ts`); the helpers are child nodes of
 * skeleton joints with translation and rotation channels on every clip, fitted at their joint's
 * scale (a rig whose armature scale is not in its inverse bind matrices); the weights are
 * rewritten in `JOINTS_n`/`WEIGHTS_n`, as normalised 16-bit integers.
 *
 * Where the helpers go: the vertices where the method departs from LBS (largest distance over
 * the samples above 1% of the largest, and above 1e-4 of the posed bounding-box diagonal) are grouped
 * by the joint between their two heaviest influences (the child of the pair: the elbow for the
 * upper arm and forearm); each such joint region gets up to `helpers` helpers, placed by k-means
 * on the region's bind positions weighted by the departure.
 *
 * The keys: at every sample, then only where interpolating their neighbours would put a vertex
 * farther from the method (`bake/key-reduction.ts`). With `guard: 'between'` the bake is held to
 * plain LBS half-way between the samples too, where players interpolate the keys.
 *
 * @module
 */
import type { Document } from '@gltf-transform/core';
import { CorskinError } from '../core/errors.js';
import { helperFrames } from '../bake/helper-frames.js';
import { writeHelpers } from './helper-bake-write.js';
import type { Deformer } from '../deformers/contract.js';
import {
  bakeCheckTimes,
  bakeSampleTimes,
  DEFAULT_BAKE_RATE,
  DEFAULT_HELPER_KEY_TOLERANCE,
  MAX_HELPERS_PER_REGION,
} from '../bake/samples.js';
import { sampleMethod, type MethodSamples } from '../bake/sampling.js';
import type { SkinnedModel } from './gltf.js';
import { clusterStart, influencesOf, placeHelpers } from '../bake/placement.js';
import { BETWEEN_PRIOR_STRENGTH, type SsdrModel } from '../bake/ssdr.js';
import { keepFittedWeights } from '../bake/never-worse.js';
import { reduceHelperKeys } from '../bake/key-reduction.js';
import {
  fitData,
  fitSamples,
  fitViews,
  runFitTaskHere,
  type FitData,
  type FitErrors,
  type FitTask,
} from '../bake/fit.js';
import { boundingBoxDiagonal, type SkinnedMesh } from '../core/mesh.js';

/** Options of {@link bakeHelperJoints}. */
export interface HelperBakeOptions {
  /** Helper joints per joint region (at most; on average with `placement: 'departure'`); default 2. */
  helpers?: number;
  /**
   * How the helpers are shared between joint regions: `even` (default), `helpers` in each;
   * `departure`, as many in all, shared out by how far the method departs from LBS there
   * (`helperCounts` in `bake/placement.ts`).
   */
  placement?: 'even' | 'departure';
  /** Influences per vertex in the baked file: 4 or 8; default 4. */
  influences?: 4 | 8;
  /** Samples per second of each clip; default 30. */
  rate?: number;
  /**
   * The helpers' rotation keys: `short` (default), signed 16-bit normalized (8 bytes a key instead
   * of 16; glTF allows it for rotation outputs), or `float`. The fit is measured with the keys as
   * stored either way.
   */
  rotations?: 'short' | 'float';
  /**
   * Where the bake is held never worse than plain LBS (`bake/never-worse.ts`): at the `samples`
   * (default), or also half-way `between` them, where players interpolate the helpers' keys (at
   * twice the samples' memory and about 1.25× the time; `bakeCheckTimes` says why). Given
   * `samples`, they must have been taken for it (`MethodSamples.between`).
   */
  guard?: 'samples' | 'between';
  /**
   * What the file plays at a pose no clip holds (another animation, a pose set by hand), where no
   * key moves the helpers and each rests on the joint it hangs from: `free` (default), the fitted
   * weights, helpers taking weight from any of a vertex's joints — closest to the method at the
   * samples, but there a vertex follows its helpers' joints in other proportions than the input's
   * weights (CesiumMan DQS at half the stress pose: 5.6× plain LBS's p99 distance); or `lbs`, each helper
   * taking weight only from the joint it hangs from, so that there the file plays the input's
   * linear blend skinning (its K heaviest weights), at the price of less of the gap removed at
   * the samples (`SsdrProblem.anchor`).
   */
  beyondClips?: 'free' | 'lbs';
  /**
   * Keys dropped where interpolating their neighbours puts no vertex farther from the method by
   * more than this fraction of the posed diagonal (`bake/key-reduction.ts`); default 1e-4.
   */
  keyTolerance?: number;
  /** Alternations at most (stops earlier when the error falls by less than 0.1%); default 30. */
  iterations?: number;
  /** Called now and then with (work done, total). */
  onProgress?: (done: number, total: number) => void;
  /** Stops the bake between samples and iterations (throws the signal's reason). */
  signal?: AbortSignal;
  /** File named in error messages. */
  file?: string;
  /**
   * The method and LBS already sampled at `rate` ({@link sampleMethod}; a caller that measures the
   * bake afterwards passes the same to `measureBake`). Taken here when absent.
   */
  samples?: MethodSamples;
}

/** What {@link bakeHelperJoints} added. */
export interface HelperBakeResult {
  /** Helper joints added. */
  helpers: number;
  /** Joint regions that got helpers. */
  regions: number;
  /** Samples fitted (over all clips). */
  samples: number;
  /** SSDR iterations run. */
  iterations: number;
  /** Vertices whose weights were solved (the others keep theirs). */
  activeVertices: number;
  /**
   * Of those, the vertices given back their own influences: those the helpers did not bring
   * closer to the method than plain LBS (summed over the samples, or at the worst one), and those
   * that would have put a sample's largest or 99th-percentile distance past plain LBS's
   * (`bake/never-worse.ts`).
   */
  revertedVertices: number;
}

/**
 * Adds helper joints to `model`'s skin so that its linear blend skinning approximates `deform`
 * over every clip (see the module comment), in place.
 * @param deform the method to bake, a deformer of `model.mesh` (bind space → posed space)
 * @throws CorskinError when the model has no animation, `helpers` is not a whole number from 1 to
 *   `MAX_HELPERS_PER_REGION` (16), `influences` is not 4 or 8, `rotations` is not short or float,
 *   `keyTolerance` is not a number ≥ 0, `guard` is not samples or between or disagrees with
 *   `samples`, the rate is not a positive number, a clip or the whole bake would take more samples than
 *   `bake/samples.ts` allows, or `samples` are not this skin's at this rate
 * @throws the signal's reason when `signal` aborts
 */
export function bakeHelperJoints(
  document: Document,
  model: SkinnedModel,
  deform: Deformer,
  options: HelperBakeOptions = {},
): HelperBakeResult {
  const steps = helperBakeSteps(document, model, deform, options, false);
  for (let step = steps.next(); ;) {
    if (step.done) return step.value;
    step = steps.next(runFitTaskHere(step.value.data, step.value.task));
  }
}

/** One task of a helper bake's fit for its caller to run: here, or split over worker threads. */
export interface HelperBakeStep {
  data: FitData;
  task: FitTask;
}

/**
 * {@link bakeHelperJoints} as a sequence of fit tasks: each yielded task is run by the caller
 * (`runFitTask` over all its items, in any split) and its result passed back to `next`.
 * @param shared keep the fit's data in SharedArrayBuffers (for worker threads)
 * @throws as {@link bakeHelperJoints}
 */
export function* helperBakeSteps(
  document: Document,
  model: SkinnedModel,
  deform: Deformer,
  options: HelperBakeOptions,
  shared: boolean,
): Generator<HelperBakeStep, HelperBakeResult, FitErrors | undefined> {
  const perRegion = options.helpers ?? 2;
  const K = options.influences ?? 4;
  const rate = options.rate ?? DEFAULT_BAKE_RATE;
  const maxIterations = options.iterations ?? 30;
  const file = options.file;
  if (!Number.isInteger(perRegion) || perRegion < 1 || perRegion > MAX_HELPERS_PER_REGION)
    throw new CorskinError(
      `helpers per joint region must be a whole number from 1 to ${MAX_HELPERS_PER_REGION} (got ${perRegion})`,
      file,
    );
  if (K !== 4 && K !== 8) throw new CorskinError(`influences per vertex must be 4 or 8 (got ${K})`, file);
  if (options.rotations !== undefined && options.rotations !== 'short' && options.rotations !== 'float')
    throw new CorskinError(`rotations must be short or float (got ${String(options.rotations)})`, file);
  if (options.placement !== undefined && options.placement !== 'even' && options.placement !== 'departure')
    throw new CorskinError(`placement must be even or departure (got ${String(options.placement)})`, file);
  const keyTolerance = options.keyTolerance ?? DEFAULT_HELPER_KEY_TOLERANCE;
  if (!(keyTolerance >= 0 && Number.isFinite(keyTolerance)))
    throw new CorskinError(`the helpers' key tolerance must be a number ≥ 0 (got ${options.keyTolerance})`, file);
  const { mesh, skeleton } = model;
  if (!model.animations.length)
    throw new CorskinError(`${model.name}: no animation to bake (helper joints are fitted to the file's clips)`, file);
  const n = mesh.positions.length / 3;
  const J = skeleton.parents.length;

  // Samples of every clip: the method's posed mesh, plain LBS's and the fixed joints' matrices.
  // With the guard between, at the check times (`bakeCheckTimes`): keyed at the sample times,
  // and guarded half-way between them too, where players interpolate the keys.
  if (options.guard !== undefined && options.guard !== 'samples' && options.guard !== 'between')
    throw new CorskinError(`guard must be samples or between (got ${String(options.guard)})`, file);
  const between = options.guard === 'between';
  if (options.beyondClips !== undefined && options.beyondClips !== 'free' && options.beyondClips !== 'lbs')
    throw new CorskinError(`beyondClips must be free or lbs (got ${String(options.beyondClips)})`, file);
  if (options.samples && options.guard !== undefined && options.samples.between !== between)
    throw new CorskinError(
      `the samples given were taken ${options.samples.between ? 'half-way between the sample times too' : 'at the sample times only'}, but the guard asked is ${options.guard}`,
      file,
    );
  const samples = options.samples ?? sampleMethod(model, deform, rate, { signal: options.signal, between });
  const times = samples.between ? bakeCheckTimes : bakeSampleTimes;
  const expected = model.animations.reduce((t, clip) => t + times(clip.duration, rate).length, 0);
  if (samples.rate !== rate || samples.targets.length !== expected || samples.targets[0]?.length !== 3 * n)
    throw new CorskinError(
      `${model.name}: the samples given are not this skin's at ${rate} samples/s (${samples.targets.length} samples of ${(samples.targets[0]?.length ?? 0) / 3} vertices at ${samples.rate}/s; expected ${expected} of ${n})`,
      file,
    );
  const { clips, lbs, targets } = samples;
  const T = targets.length;
  // The samples keyed: every one, or the sample times among the check times (even in each clip).
  const keyed: number[] = [];
  for (let t = 0, c = 0; c < clips.length; t += clips[c++].times.length)
    for (let s = 0; s < clips[c].times.length; s += samples.between ? 2 : 1) keyed.push(t + s);

  const placement = placeHelpers(mesh, skeleton.parents, targets, lbs, perRegion, options.placement === 'departure');
  const { regionOf, helperRegion, helperCentre, regionHelpers } = placement;
  const H = helperRegion.length;

  // The model: the original weights (the K heaviest), helpers fitted to their clusters' motion.
  const model_: SsdrModel = {
    helpers: H,
    // Start: each helper follows its cluster's motion (a helper of a mirrored joint mirrored).
    transforms: clusterStart(placement, samples.rest, targets, samples.fixed),
    influences: K,
    joints: new Uint32Array(K * n),
    weights: new Float32Array(K * n),
  };
  for (let i = 0; i < n; i++) setOwnWeights(model_, mesh, i);
  // The vertices solved: where the method departs from LBS. Candidates of each: its own joints,
  // its region's helpers and those of the regions of its other influences (at most its 2K
  // heaviest joints and the helpers of its K heaviest: a 20-influence vertex would otherwise take
  // ~40 candidates, and the weight update's time grows with their square).
  const active: number[] = [];
  for (let i = 0; i < n; i++) if (regionOf[i] >= 0) active.push(i);
  const candidatesOf = (i: number): number[] => {
    const set = new Set<number>();
    influencesOf(mesh.joints, mesh.weights, mesh.influences, i)
      .slice(0, 2 * K)
      .forEach((e, k) => {
        set.add(e.j);
        if (k < K) for (const h of regionHelpers.get(e.j) ?? []) set.add(J + h);
      });
    for (const h of regionHelpers.get(regionOf[i]) ?? []) set.add(J + h);
    return [...set];
  };
  // The alternation sees at most 120 evenly spaced samples with 4 influences, 960 with 8
  // (`fitSamples`); once it has converged, bone updates over every sample give the helpers'
  // transforms at all of them.
  const fitted = fitSamples(keyed.length, K).map((k) => keyed[k]);
  const data = fitData(samples, model_, active, active.map(candidatesOf), helperRegion, fitted, {
    shared,
    keyed: Int32Array.from(keyed),
    priorStrength: samples.between ? BETWEEN_PRIOR_STRENGTH : 0,
    anchored: options.beyondClips === 'lbs',
  });
  // The fit's total error over its samples.
  const totalError = function* (): Generator<HelperBakeStep, number, FitErrors | undefined> {
    const e = yield { data, task: { kind: 'errors', full: false } };
    if (e?.sum.length !== data.n) throw new Error('helperBakeSteps: an errors task was not answered with its errors');
    return e.sum.reduce((s, x) => s + x, 0);
  };
  let error = yield* totalError();
  let iterations = 0;
  for (; iterations < maxIterations; iterations++) {
    options.onProgress?.(iterations, maxIterations);
    options.signal?.throwIfAborted();
    yield { data, task: { kind: 'weights' } };
    yield { data, task: { kind: 'helpers', full: false, passes: 1 } };
    const next = yield* totalError();
    const falling = next < error * (1 - 1e-3);
    error = Math.min(error, next);
    if (!falling) {
      iterations++;
      break;
    }
  }
  // The other samples start from the clusters' fits: a few passes let each sample's helpers
  // settle together (every pass is an exact block minimisation, so the error only falls).
  if (data.fitSamples.length < keyed.length)
    yield { data, task: { kind: 'helpers', full: true, passes: FINAL_PASSES } };
  // The helpers' keys, and the helpers as the file will play them from there on (`bake/helper-frames.ts`).
  const short = options.rotations !== 'float';
  const frames = helperFrames(skeleton.inverseBindMatrices, helperRegion, helperCentre, (j) => `${model.name}: ${skeleton.jointNames[j]}`, file); // prettier-ignore
  const keys = helperRegion.map(() => ({ translation: new Float32Array(3 * T), rotation: new Float32Array(4 * T) }));
  // At the keyed samples; the half-way ones are played from them (`reduceHelperKeys`, whose slerp
  // takes the short way whatever the signs; the file's signs are the writer's).
  for (const t of keyed) {
    const X = data.transforms.subarray(16 * H * t, 16 * H * (t + 1));
    for (let h = 0; h < H; h++) frames.key(samples.fixed[t], X, h, keys[h].translation, keys[h].rotation, t, short);
  }
  // Fewer keys where interpolation holds (`bake/key-reduction.ts`); the transforms become what
  // the file plays at every sample.
  const keptKeys = reduceHelperKeys(frames, data, keys, clips, keyTolerance * boundingBoxDiagonal(targets[0]), samples.between); // prettier-ignore
  // Never worse than LBS (`bake/never-worse.ts`): a vertex whose fitted weights would be keeps
  // its own influences. The fit back into the whole mesh's model; every other vertex keeps its own.
  const { kept, givenBack } = keepFittedWeights(samples, active, data);
  model_.transforms = fitViews(data, true).model.transforms;
  const own = new Uint8Array(n).fill(1);
  active.forEach((i, a) => {
    if (!kept[a]) return;
    own[i] = 0;
    model_.joints.set(data.joints.subarray(K * a, K * a + K), K * i);
    model_.weights.set(data.weights.subarray(K * a, K * a + K), K * i);
  });
  // A helper no vertex kept is not written.
  const used = new Uint8Array(H);
  for (let i = 0; i < n; i++)
    for (let k = K * i; k < K * i + K; k++)
      if (!own[i] && model_.weights[k] > 0 && model_.joints[k] >= J) used[model_.joints[k] - J] = 1;
  const helpersKept = dropHelpers(model_, used, J);
  options.onProgress?.(maxIterations, maxIterations);

  writeHelpers(
    document,
    model,
    model_,
    own,
    keys.filter((_, h) => used[h]),
    keptKeys.filter((_, h) => used[h]),
    short,
    helperRegion.filter((_, h) => used[h]),
    helperCentre.filter((_, h) => used[h]),
    clips,
    options.file,
  );
  const regions = new Set(helperRegion.filter((_, h) => used[h])).size;
  return {
    helpers: helpersKept,
    regions,
    samples: keyed.length,
    iterations,
    activeVertices: active.length,
    revertedVertices: givenBack,
  };
}

/** Vertex i of `model` on its own joints: the mesh's K heaviest influences, normalised. */
function setOwnWeights(model: SsdrModel, mesh: SkinnedMesh, i: number): void {
  const K = model.influences;
  const own = influencesOf(mesh.joints, mesh.weights, mesh.influences, i).slice(0, K);
  const sum = own.reduce((s, e) => s + e.w, 0) || 1;
  for (let k = 0; k < K; k++) {
    model.joints[K * i + k] = own[k]?.j ?? 0;
    model.weights[K * i + k] = own[k] ? own[k].w / sum : 0;
  }
}

/**
 * Removes the helpers not marked in `used` from `model` (its transforms and the joint indices of
 * its weights, J + h), in place.
 * @returns the helpers kept
 */
function dropHelpers(model: SsdrModel, used: Uint8Array, J: number): number {
  const H = model.helpers;
  const index = new Int32Array(H).fill(-1);
  let kept = 0;
  for (let h = 0; h < H; h++) if (used[h]) index[h] = kept++;
  if (kept === H) return H;
  model.transforms = model.transforms.map((M) => {
    const out = new Float64Array(16 * kept);
    for (let h = 0; h < H; h++) if (index[h] >= 0) out.set(M.subarray(16 * h, 16 * h + 16), 16 * index[h]);
    return out;
  });
  for (let k = 0; k < model.joints.length; k++)
    if (model.joints[k] >= J) {
      const h = index[model.joints[k] - J];
      model.joints[k] = h >= 0 ? J + h : 0; // a dropped helper's slots have weight 0
    }
  model.helpers = kept;
  return kept;
}

/** Bone updates over every sample after the alternation. */
const FINAL_PASSES = 6;
