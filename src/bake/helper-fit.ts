/**
 * One placement's helper fit for a helper bake (`io/helper-bake.ts`): the helpers of a
 * {@link HelperPlacement} fitted to a method's samples by smooth skinning decomposition with rigid
 * bones (Le & Deng 2012), keyed, their keys thinned, and held never worse than plain LBS — a
 * candidate the bake writes, or compares with another placement's.
 *
 * @module
 */
import { boundingBoxDiagonal, type SkinnedMesh } from '../core/mesh.js';
import type { SkinnedModel } from '../io/gltf.js';
import type { HelperBakeOptions } from '../io/helper-bake.js';
import { fitData, fitSamples, fitViews, type FitData, type FitErrors, type FitTask } from './fit.js';
import { helperFrames, type HelperFrames } from './helper-frames.js';
import { reduceHelperKeys, type HelperKeys } from './key-reduction.js';
import { GUARD_MARGIN, keepFittedWeights } from './never-worse.js';
import { refitOverSamples } from './over-refit.js';
import { normalHolds, repairTurnedNormals, turnedNormals } from './normal-guard.js';
import { clusterStart, helperCandidates, influencesOf, type HelperPlacement } from './placement.js';
import type { MethodSamples } from './sampling.js';
import type { SsdrModel } from './ssdr.js';
import { BETWEEN_PRIOR_STRENGTH } from './ssdr-helpers.js';
import { fitTargetNormals } from './fit-normals.js';

/** One task of a helper fit for its caller to run: here, or split over worker threads. */
export interface HelperFitStep {
  data: FitData;
  task: FitTask;
}

/** One placement's fit ({@link fitHelpers}), as the bake writes it (`io/helper-bake.ts`). */
export interface HelperCandidate {
  /** The placement fitted. */
  placement: 'even' | 'departure';
  /** The whole mesh's model: the kept helpers' transforms at every sample, each vertex's weights (without {@link peaks} until played). */
  model: SsdrModel;
  /** Per vertex, 1 where it keeps its own influences (all of them, as the input has them). */
  own: Uint8Array;
  /** The fitted helpers' frames: how a key plays (`helper-frames.ts`). */
  frames: HelperFrames;
  /** Each fitted helper's keys at every sample (`key-reduction.ts`). */
  keys: HelperKeys[];
  /** Per fitted helper, per clip, the sample indices kept (`reduceHelperKeys`). */
  keptKeys: Int32Array[][];
  /** Per helper fitted, 1 where some vertex kept weight on it. */
  used: Uint8Array;
  /** Helpers written (those `used`). */
  helpersKept: number;
  /** Per fitted helper, its region's joint, and where it is bound: its members' centre (x, y, z, bind space; `membersCentres`). */
  helperRegion: number[];
  helperCentre: number[][];
  /** Alternations run. */
  iterations: number;
  /** The vertices fitted (indices into the mesh). */
  active: number[];
  /** Of those, the vertices given back their own influences (`never-worse.ts`). */
  givenBack: number;
  /** Of those, the vertices given back for their normals (`normal-guard.ts`: no repair held them), before the positions' guard. */
  normalsGivenBack: number;
  /** The fit before its guards, for a refinement to start from (`HelperFitSettings.start`). */
  start: HelperFitStart;
  /**
   * The kept vertices farthest from the method solved again (`keepFittedWeights`' peaks): per
   * vertex (an index into the mesh), its K joints (helpers numbered as in `model`) and weights, to
   * play instead of `model`'s ({@link applyPeaks}).
   */
  peaks: { vertex: number; joints: Uint32Array; weights: Float32Array }[];
}

/**
 * Where a fit starts besides its placement's clusters: an earlier fit of the same vertices, whose
 * helpers are the first of the placement's (`splitHelpers`) — their transforms as that fit played
 * them at every sample (16·H each, H = `helpers`), and the fitted vertices' influences (K each,
 * in the order of `HelperCandidate.active`, helpers numbered J + h).
 */
export interface HelperFitStart {
  helpers: number;
  transforms: Float64Array;
  joints: Uint32Array;
  weights: Float32Array;
}

/** What {@link fitHelpers} needs of the bake (`io/helper-bake.ts`). */
export interface HelperFitSettings {
  /** The method and LBS sampled over every clip (`sampling.ts`). */
  samples: MethodSamples;
  /** The samples keyed (indices into `samples`): every one, or with the guard between the even ones of each clip. */
  keyed: number[];
  /** Influences per vertex in the baked file, and the skin's joints. */
  K: number;
  J: number;
  /** Alternations at most. */
  maxIterations: number;
  /** Fits in this bake (placements tried), and this one's index: for the progress. */
  fits: number;
  index: number;
  /** The placement fitted. */
  name: 'even' | 'departure';
  /** Key-reduction tolerance, as a fraction of the posed diagonal. */
  keyTolerance: number;
  /** The bake's options (progress, signal, rotations, beyond the clips, file). */
  options: HelperBakeOptions;
  /** The method's posed normals at sample t of `samples` (3·n), where the mesh has normals (`turnedNormals`). */
  methodNormals?: (t: number) => Float32Array;
  /** An earlier fit to start from: its helpers and weights instead of their clusters' start and the vertices' own influences. */
  start?: HelperFitStart;
}

/**
 * The fit of one placement's helpers: smooth skinning decomposition with rigid bones (Le & Deng
 * 2012, "Smooth Skinning Decomposition with Rigid Bones", ACM TOG 31(6), SIGGRAPH Asia 2012; the
 * alternation of weight and bone updates until the error falls by less than 0.1%, on a subset of
 * the samples; then bone updates over every keyed sample), the helpers'
 * keys (`helper-frames.ts`) and their reduction (`key-reduction.ts`), then the vertices the
 * helpers would put farther from the method than plain LBS given back their own influences
 * (`never-worse.ts`), and the peaks' second solves set aside (`HelperCandidate.peaks`). Each
 * yielded task is run by the caller and its result passed back.
 * @param model the skin (bind space; its joints' skinning matrices per sample in `settings.samples.fixed`)
 * @param placement where the helpers go (`placeHelpers`)
 * @param shared keep the fit's data in SharedArrayBuffers (for worker threads)
 * @returns the candidate, its helpers' transforms at every sample (bind → posed space, asset units)
 * @throws the signal's reason when `settings.options.signal` aborts; CorskinError as `helperFrames`
 */
export function* fitHelpers(
  model: SkinnedModel,
  placement: HelperPlacement,
  settings: HelperFitSettings,
  shared: boolean,
): Generator<HelperFitStep, HelperCandidate, FitErrors | undefined> {
  const { samples, keyed, K, J, maxIterations, keyTolerance, options } = settings;
  const { mesh, skeleton } = model;
  const { clips, targets } = samples;
  const n = mesh.positions.length / 3;
  const T = targets.length;
  const file = options.file;
  const progress = (done: number) =>
    options.onProgress?.(settings.index * maxIterations + done, settings.fits * maxIterations);
  const { regionOf, helperRegion, helperCentre } = placement;
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
  for (let i = 0; i < n; i++) setOwnWeights(model_.joints, model_.weights, K, i, mesh, i);
  // The vertices solved: where the method departs from LBS (`helperCandidates` names what each may play).
  const active: number[] = [];
  for (let i = 0; i < n; i++) if (regionOf[i] >= 0) active.push(i);
  const { start } = settings;
  if (start) {
    if (start.joints.length !== K * active.length || start.helpers > H)
      throw new Error('fitHelpers: the start was fitted to other vertices or more helpers');
    const size = 16 * start.helpers;
    model_.transforms.forEach((X, t) => X.set(start.transforms.subarray(size * t, size * (t + 1))));
    active.forEach((i, a) => {
      model_.joints.set(start.joints.subarray(K * a, K * a + K), K * i);
      model_.weights.set(start.weights.subarray(K * a, K * a + K), K * i);
    });
  }
  // The alternation sees at most 120 evenly spaced samples with 4 influences, 960 with 8
  // (`fitSamples`); once it has converged, bone updates over every sample give the helpers'
  // transforms at all of them.
  const fitted = fitSamples(keyed.length, K).map((k) => keyed[k]);
  // The method's normals, matched by the fit (`bake/fit-normals.ts`) and read by the normals' guard.
  const normals =
    settings.methodNormals && mesh.normals
      ? fitTargetNormals(mesh, samples, settings.methodNormals, active, boundingBoxDiagonal(targets[0]))
      : undefined;
  const data = fitData(
    samples,
    model_,
    active,
    active.map(helperCandidates(mesh, placement, skeleton.parents, K)),
    helperRegion,
    fitted,
    {
      shared,
      keyed: Int32Array.from(keyed),
      priorStrength: samples.between ? BETWEEN_PRIOR_STRENGTH : 0,
      anchored: options.beyondClips === 'lbs',
      normals,
    },
  );
  // Each round's weight update gives the fit's error over its samples as it leaves it; the
  // alternation stops once a round's is less than 0.1% below the round before's (its helpers not
  // updated again: the bone updates below follow).
  let error = Infinity;
  let iterations = 0;
  for (; iterations < maxIterations; iterations++) {
    progress(iterations);
    options.signal?.throwIfAborted();
    if (!data.restPerSample) yield { data, task: { kind: 'products' } };
    const errors = yield { data, task: { kind: 'weights' } };
    if (errors?.length !== data.n) throw new Error('fitHelpers: a weights task was not answered with its errors');
    const next = errors.reduce((s, x) => s + x, 0);
    if (!(next < error * (1 - 1e-3))) {
      iterations++;
      break;
    }
    error = next;
    yield { data, task: { kind: 'helpers', full: false, passes: 1 } };
  }
  // The other samples start from the clusters' fits: passes over every keyed sample let each
  // sample's helpers settle together (every pass is an exact block minimisation, so the error only
  // falls).
  if (data.fitSamples.length < keyed.length)
    yield { data, task: { kind: 'helpers', full: true, passes: FINAL_PASSES } };
  // Where a fitted vertex is past LBS's largest over the mesh, the helpers there refitted with it
  // weighing more (`bake/over-refit.ts`), before the keys are taken and the guard judges.
  refitOverSamples(data, samples.lbsSquared, keyed, GUARD_MARGIN * boundingBoxDiagonal(targets[0]), FINAL_PASSES);
  // The helpers' keys, and the helpers as the file will play them from there on (`bake/helper-frames.ts`).
  const short = options.rotations !== 'float';
  // Each helper bound at its members' centre, not its cluster's: the point a player's keys carry
  // on a straight line between two samples (translation lerped, rotation slerped), so that a
  // helper that turns far between them, free to turn about its vertices, moves them least there.
  const centres = membersCentres(data, active, mesh.positions, helperCentre);
  const frames = helperFrames(skeleton.inverseBindMatrices, helperRegion, centres, (j) => `${model.name}: ${skeleton.jointNames[j]}`, file); // prettier-ignore
  const keys = helperRegion.map(() => ({ translation: new Float32Array(3 * T), rotation: new Float32Array(4 * T) }));
  // At the keyed samples; the half-way ones are played from them (`reduceHelperKeys`, whose slerp
  // takes the short way whatever the signs; the file's signs are the writer's).
  for (const t of keyed) {
    const X = data.transforms.subarray(16 * H * t, 16 * H * (t + 1));
    for (let h = 0; h < H; h++) frames.key(samples.fixed[t], X, h, keys[h].translation, keys[h].rotation, t, short);
  }
  // Fewer keys where interpolation holds (`bake/key-reduction.ts`); the transforms become what
  // the file plays at every sample.
  const keptKeys = reduceHelperKeys(frames, data, keys, clips, keyTolerance * boundingBoxDiagonal(targets[0])); // prettier-ignore
  const unguarded: HelperFitStart = { helpers: H, transforms: data.transforms.slice(), joints: data.joints.slice(), weights: data.weights.slice() }; // prettier-ignore
  // Never worse than LBS in the normals (`bake/normal-guard.ts`) and the positions
  // (`bake/never-worse.ts`): a vertex whose fitted weights would be keeps its own influences. The
  // fit back into the whole mesh's model; every other vertex keeps its own.
  // A vertex whose normal turns is first tried on other weights (`repairTurnedNormals`).
  const own_ = ownInfluences(mesh, K);
  const ownActive = (a: number, joints: Uint32Array, weights: Float32Array) => own_(active[a], joints, weights);
  const found = normals ? turnedNormals(data, active, mesh, fittedNormals(data, active, normals.targets)) : [];
  const repaired = repairTurnedNormals(data, active, mesh, found, ownActive);
  const turned = found.filter((a) => !repaired.includes(a));
  for (const a of turned) setOwnWeights(data.joints, data.weights, K, a, mesh, active[a]);
  // Every weights the positions' guard solves or blends again hold the normals too.
  const holds = data.targetNormals.length ? (a: number) => normalHolds(data, active, mesh, a) : undefined;
  const guarded = keepFittedWeights(samples, active, data, ownActive, holds);
  const { kept } = guarded;
  // Those given back for their normals count as given back whatever the positions' guard found.
  let givenBack = guarded.givenBack;
  for (const a of turned)
    if (kept[a]) {
      kept[a] = 0;
      givenBack++;
    }
  model_.transforms = fitViews(data, true).model.transforms;
  const own = new Uint8Array(n).fill(1);
  active.forEach((i, a) => {
    if (!kept[a]) return;
    own[i] = 0;
    model_.joints.set(data.joints.subarray(K * a, K * a + K), K * i);
    model_.weights.set(data.weights.subarray(K * a, K * a + K), K * i);
  });
  // A helper no vertex kept is not written.
  const used = playedHelpers(model_, own, J);
  const index = dropHelpers(model_, used, J);
  // The peaks' second solves (`keepFittedWeights`), set aside: the bake plays the kept fit's
  // ({@link applyPeaks}); a refinement steers by the fits without them.
  const peaks = guarded
    .peaks((h) => used[h] === 1)
    .map((a) => {
      const joints = data.joints.slice(K * a, K * a + K);
      for (let k = 0; k < K; k++)
        if (joints[k] >= J) joints[k] = index[joints[k] - J] >= 0 ? J + index[joints[k] - J] : 0;
      return { vertex: active[a], joints, weights: data.weights.slice(K * a, K * a + K) };
    });

  return {
    placement: settings.name,
    model: model_,
    own,
    frames,
    keys,
    keptKeys,
    used,
    helpersKept: model_.helpers,
    helperRegion,
    helperCentre: centres,
    iterations,
    active,
    givenBack,
    normalsGivenBack: turned.length,
    start: unguarded,
    peaks,
  };
}

/**
 * Plays a fit's peaks ({@link HelperCandidate.peaks}) in its model, once, and drops the helpers
 * no vertex plays any more (a peak may leave one) — unless `keep`, given the candidate with them,
 * says no: then the model is as before.
 * @param J the skin's joints
 * @returns how many vertices took new weights (0 where none or not kept)
 */
export function applyPeaks(candidate: HelperCandidate, J: number, keep: () => boolean = () => true): number {
  const { model, peaks } = candidate;
  candidate.peaks = [];
  const K = model.influences;
  const before = peaks.map(({ vertex }) => ({
    vertex,
    joints: model.joints.slice(K * vertex, K * vertex + K),
    weights: model.weights.slice(K * vertex, K * vertex + K),
  }));
  const play = (rows: typeof peaks) =>
    rows.forEach(({ vertex, joints, weights }) => {
      model.joints.set(joints, K * vertex);
      model.weights.set(weights, K * vertex);
    });
  play(peaks);
  if (!peaks.length || !keep()) {
    play(before);
    return 0;
  }
  dropUnplayed(candidate, J);
  return peaks.length;
}

/**
 * Gives `vertices` (fitted ones) of a candidate back their own influences, in place, and drops the
 * helpers no vertex plays any more ({@link dropUnplayed}); peaks not yet played are dropped too
 * (numbered before).
 * @param mesh the skin the candidate was fitted to; J its joints
 */
export function giveBack(candidate: HelperCandidate, vertices: readonly number[], mesh: SkinnedMesh, J: number): void {
  const { model, own } = candidate;
  for (const i of vertices) {
    own[i] = 1;
    setOwnWeights(model.joints, model.weights, model.influences, i, mesh, i);
  }
  candidate.givenBack += vertices.length;
  dropUnplayed(candidate, J);
  candidate.peaks = [];
}

/** Drops the helpers of a candidate that no vertex plays (`model`, `used`, `helpersKept`), in place. */
function dropUnplayed(candidate: HelperCandidate, J: number): void {
  const { model, own, used } = candidate;
  const played = playedHelpers(model, own, J);
  // `used` is over the helpers fitted, `played` over those kept so far.
  for (let h = 0, k = 0; h < used.length; h++) if (used[h]) used[h] = played[k++];
  dropHelpers(model, played, J);
  candidate.helpersKept = model.helpers;
}

/** Per helper of `model`, 1 where some vertex that plays its fitted weights (`own` 0) has weight on it. */
function playedHelpers(model: SsdrModel, own: Uint8Array, J: number): Uint8Array {
  const K = model.influences;
  const played = new Uint8Array(model.helpers);
  for (let i = 0; i < own.length; i++)
    for (let k = K * i; k < K * i + K; k++)
      if (!own[i] && model.weights[k] > 0 && model.joints[k] >= J) played[model.joints[k] - J] = 1;
  return played;
}

/**
 * Vertex i's own influences as a bake plays them given back (the mesh's K heaviest, normalised),
 * written into the first K entries of `joints`/`weights`: for the guards' blends (`blendBack`).
 */
export function ownInfluences(
  mesh: SkinnedMesh,
  K: number,
): (i: number, joints: Uint32Array, weights: Float32Array) => void {
  return (i, joints, weights) => setOwnWeights(joints, weights, K, 0, mesh, i);
}

/**
 * Vertex i on its own joints, the mesh's K heaviest influences normalised, written to row `row`
 * of `joints`/`weights` (K each: the whole mesh's model, or the fit's active vertices).
 */
function setOwnWeights(
  joints: Uint32Array,
  weights: Float32Array,
  K: number,
  row: number,
  mesh: SkinnedMesh,
  i: number,
): void {
  const own = influencesOf(mesh.joints, mesh.weights, mesh.influences, i).slice(0, K);
  const sum = own.reduce((s, e) => s + e.w, 0) || 1;
  for (let k = 0; k < K; k++) {
    joints[K * row + k] = own[k]?.j ?? 0;
    weights[K * row + k] = own[k] ? own[k].w / sum : 0;
  }
}

/**
 * Removes the helpers not marked in `used` from `model` (its transforms and the joint indices of
 * its weights, J + h), in place.
 * @returns per helper, its index among those kept (−1 where dropped)
 */
function dropHelpers(model: SsdrModel, used: Uint8Array, J: number): Int32Array {
  const H = model.helpers;
  const index = new Int32Array(H).fill(-1);
  let kept = 0;
  for (let h = 0; h < H; h++) if (used[h]) index[h] = kept++;
  if (kept === H) return index;
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
  return index;
}

/**
 * Bone updates over every keyed sample after the alternation (where it saw a subset): 12, where 6
 * left the samples between the subset's unsettled (ShibaInu's DQS at the defaults: 77.2% → 84.2%
 * of the gap removed, max 0.74 → 0.37 of LBS's; Ybot's 82.8% → 84.2%, 0.91 → 0.43; 24 passes:
 * 84.3% and 84.9%, 48: 84.4% and 85.1%; 12 cost about one more iteration).
 */
const FINAL_PASSES = 12;

/**
 * Per helper, the centroid of its members' bind positions weighted by their squared weight on it
 * (the point its rigid fit pivots about, `rigidFit`'s p̄), where it is bound: a player
 * interpolates a key's translation linearly and its rotation by slerp, so half-way through a turn
 * θ between two keys that both place a point right, the point is off by up to r·(1 − cos(θ/2)) ≈
 * r·θ²/8, r its distance from the helper's origin: there the members' spread about their centroid
 * rather than their distance from their cluster's centre. A helper with no member keeps
 * `fallback`'s centre.
 * @param data the fit (its active vertices' joints and weights; helpers are joints J + h)
 * @param active the fitted vertices, indices into `positions` (nA)
 * @param positions bind-space positions (3·n, asset units)
 * @param fallback per helper, its cluster's centre (3 each)
 * @returns per helper, the centre (3 each, bind space)
 */
function membersCentres(
  data: FitData,
  active: readonly number[],
  positions: Float32Array,
  fallback: readonly number[][],
): number[][] {
  const { K, J, H } = data;
  const sums = new Float64Array(4 * H); // Σ u·p (3) and Σ u, u = w²
  active.forEach((i, a) => {
    for (let k = K * a; k < K * a + K; k++) {
      const h = data.joints[k] - J;
      const u = data.weights[k] ** 2;
      if (h < 0 || !(u > 0)) continue;
      for (let c = 0; c < 3; c++) sums[4 * h + c] += u * positions[3 * i + c];
      sums[4 * h + 3] += u;
    }
  });
  return fallback.map((f, h) => (sums[4 * h + 3] > 0 ? [0, 1, 2].map((c) => sums[4 * h + c] / sums[4 * h + 3]) : f));
}

/**
 * The target normals of the fitted vertices at sample t (3 per vertex of `active`): the fit's own
 * where it holds them (`FitData.targetNormals`; none with morph targets), else gathered.
 */
function fittedNormals(
  data: FitData,
  active: readonly number[],
  targets: (t: number) => Float32Array,
): (t: number) => Float32Array {
  const n = active.length;
  if (data.targetNormals.length) return (t) => data.targetNormals.subarray(3 * n * t, 3 * n * (t + 1));
  const out = new Float32Array(3 * n);
  return (t) => {
    const all = targets(t);
    active.forEach((i, a) => out.set(all.subarray(3 * i, 3 * i + 3), 3 * a));
    return out;
  };
}
