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
 * upper arm and forearm); each such joint region gets up to `helpers` helpers (or as many in all
 * shared out by the departure, `helperCounts`; by default both are fitted and the one closer to
 * the method kept), placed by k-means on the region's bind positions weighted by the departure.
 *
 * The keys: at every sample, then only where interpolating their neighbours would put a vertex
 * farther from the method (`bake/key-reduction.ts`). With `guard: 'between'` the bake is held to
 * plain LBS half-way between the samples too, where players interpolate the keys; by default
 * (`auto`) only where held at the samples alone it would play farther from the method than plain
 * LBS there. Each helper is bound at its members' centre, the point its keys carry on a straight
 * line between two samples (`bake/helper-fit.ts`).
 *
 * @module
 */
import type { Document } from '@gltf-transform/core';
import { CorskinError } from '../core/errors.js';
import { writeHelpers } from './helper-bake-write.js';
import type { Deformer } from '../deformers/contract.js';
import {
  bakeCheckTimes,
  bakeSampleTimes,
  DEFAULT_BAKE_RATE,
  DEFAULT_HELPER_KEY_TOLERANCE,
  MAX_HELPERS_PER_REGION,
  MAX_REFINE_ROUNDS,
} from '../bake/samples.js';
import { halfwayIndices, sampleMethod, withHalfway, type MethodSamples } from '../bake/sampling.js';
import type { SkinnedModel } from './gltf.js';
import {
  helperRegions,
  placeHelpers,
  REFINE_FOCUSED_FROM,
  REFINE_FROM,
  refinedCounts,
  splitHelpers,
  type HelperPlacement,
} from '../bake/placement.js';
import {
  holdHalfway,
  placementScore,
  plainLbs,
  regionResiduals,
  vertexResiduals,
  type PlacementScore,
} from '../bake/placement-score.js';
import { runFitTaskHere, type FitErrors } from '../bake/fit.js';
import {
  applyPeaks,
  fitHelpers,
  giveBack,
  ownInfluences,
  type HelperCandidate,
  type HelperFitStart,
  type HelperFitStep,
} from '../bake/helper-fit.js';

/** Fits a refinement round runs at most: grown and afresh, then both again focused where neither is kept. */
const FITS_PER_REFINEMENT = 4;

/**
 * Refinement rounds in a row that may keep no fit before the refinements stop, each growing from
 * the closest fit of the round before: a round's fits can be farther from the method than the fit
 * kept and the next round's closer than any (Ybot's CoR, once the helpers were refitted where a
 * vertex is past LBS's largest, `bake/over-refit.ts`: its first round's fits scored 4.6 and 5.4
 * against the kept fit's 3.8 and stopped it at 81.1% / 0.46; before that refit, the rounds went
 * on from a first round scoring 5.4 against 5.7, to 90.7% / 0.19).
 */
const REFINE_PATIENCE = 1;

/** Options of {@link bakeHelperJoints}. */
export interface HelperBakeOptions {
  /** Helper joints per joint region (at most; on average with `placement: 'departure'`); default 2. */
  helpers?: number;
  /**
   * How the helpers are shared between joint regions: `even`, `helpers` in each; `departure`, as
   * many in all, shared out by how far the method departs from LBS there (`helperCounts` in
   * `bake/placement.ts`); `auto` (default), both fitted where they differ and the one closer to
   * the method over the samples kept (`placementScore`; about twice the fit's time).
   */
  placement?: 'auto' | 'even' | 'departure';
  /**
   * Refinement rounds at most, 0 to 10 (`MAX_REFINE_ROUNDS` in `bake/samples.ts`); default 0.
   * Each adds one helper in every region where the fit kept leaves much of its error
   * (`refinedCounts` in `bake/placement.ts`: at least a tenth of the worst region's) two ways
   * and keeps the closer, where its file plays closer to the method than the fit kept
   * (`placementScore`, as `auto` compares): the fit kept grown — the region's helper that
   * leaves most split in two (`splitHelpers`), the fit starting from the kept one's helpers and
   * weights — and every helper fitted afresh from new clusters (`placeHelpers`); where neither
   * is kept, both again with one more helper only where the fit leaves at least half the worst
   * region's error (`REFINE_FOCUSED_FROM`). After a round that keeps none, the next grows from
   * that round's closest fit; the rounds stop at the second in a row that keeps none. Each
   * costs at most four fits' time (the grown ones often less), twice that where the guard `auto`
   * fits again guarded between.
   */
  refine?: number;
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
   * Where the bake is held never worse than plain LBS (`bake/never-worse.ts`): at the `samples`,
   * or also half-way `between` them, where players interpolate the helpers' keys (at twice the
   * samples' memory and about 1.25× the time; `bakeCheckTimes` says why); `auto` (default), at
   * the samples, then — where the result plays farther from the method than plain LBS at some
   * half-way time (its largest or 99th-percentile distance, by more than the guard's margin) —
   * held there too: the same fit with more vertices given back their own influences, or a fit
   * guarded between and keyed at those half-way times too ({@link HelperBakeResult.halfwayKeys}),
   * whichever plays closer to the method (`placementScore`). Given `samples`,
   * they must have been taken for the guard (`MethodSamples.between`; with `auto`, at the sample
   * times, or half-way between them too for the guard between).
   */
  guard?: 'auto' | 'samples' | 'between';
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
  /** Alternations at most (stops earlier when the error falls by less than 0.1%); default 50. */
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
  /**
   * Linear blend skinning of `model.mesh`, where the bake samples plain LBS itself (default
   * `deformLbs`; the CLI passes the SIMD kernels bound to the mesh, `simdBoundDeformer`).
   */
  lbs?: Deformer;
}

/** What {@link bakeHelperJoints} added. */
export interface HelperBakeResult {
  /** Helper joints added. */
  helpers: number;
  /** Joint regions that got helpers. */
  regions: number;
  /** Sample times fitted (over all clips; the half-way times keyed too, {@link halfwayKeys}, not counted). */
  samples: number;
  /** SSDR iterations run. */
  iterations: number;
  /** Vertices whose weights were solved (the others keep theirs). */
  activeVertices: number;
  /** The placement written: the one asked, or the one `auto` kept. */
  placement: 'even' | 'departure';
  /**
   * With `refine`: the refinement rounds kept and the helpers they added: those the refined fit
   * writes beyond those the fit it started from would have (before a guard half-way between
   * samples gives vertices back, which may drop some of either).
   */
  refined?: {
    /** Refinement rounds kept. */
    rounds: number;
    /** Helpers those rounds added. */
    helpers: number;
  };
  /** The guard the written bake was held to: the one asked, or the one `auto` kept. */
  guard: 'samples' | 'between';
  /**
   * Where the guard `auto` held the bake half-way between samples too: the half-way times at
   * which the fit guarded at the samples alone played farther from the method than plain LBS.
   */
  worseHalfway?: number;
  /**
   * Where the guard `auto` kept a fit guarded between: the half-way times keyed besides the
   * sample times (those where the closest placement's fit guarded at the samples alone, before any
   * refinement, played farther from the method than plain LBS, or put a vertex farther than plain
   * LBS puts it at any time).
   */
  halfwayKeys?: number;
  /**
   * Where it held the fit guarded at the samples there (rather than one guarded between, which
   * {@link guard} then says): the vertices it gave back their own influences for that.
   */
  halfwayGivenBack?: number;
  /**
   * Where `auto` compared two fits half-way between the samples: the method and LBS sampled
   * there ({@link sampleMethod} with `halfway`), for a caller that measures the bake there too
   * (`withHalfway` joins them to the samples).
   */
  halfway?: MethodSamples;
  /**
   * Of those, the vertices given back their own influences: those the helpers did not bring
   * closer to the method than plain LBS (summed over the samples, or at the worst one), and those
   * that would have put a sample's largest or 99th-percentile distance past plain LBS's
   * (`bake/never-worse.ts`).
   */
  revertedVertices: number;
  /**
   * Of those, the vertices given back because the helpers would have turned their normal, at some
   * sample, more than `NORMAL_MARGIN` farther from the method's than plain LBS's
   * (`bake/normal-guard.ts`).
   */
  normalsGivenBack: number;
}

/**
 * Adds helper joints to `model`'s skin so that its linear blend skinning approximates `deform`
 * over every clip (see the module comment), in place.
 * @param deform the method to bake, a deformer of `model.mesh` (bind space → posed space)
 * @throws CorskinError when the model has no animation, `helpers` is not a whole number from 1 to
 *   `MAX_HELPERS_PER_REGION` (16), `refine` is not a whole number from 0 to `MAX_REFINE_ROUNDS`
 *   (5), `influences` is not 4 or 8, `rotations` is not short or float, `keyTolerance` is not a
 *   number ≥ 0, `guard` is not auto, samples or between or disagrees with `samples`, the rate is
 *   not a positive number, a clip or the whole bake would take more samples than
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
): Generator<HelperFitStep, HelperBakeResult, FitErrors | undefined> {
  const perRegion = options.helpers ?? 2;
  const K = options.influences ?? 4;
  const rate = options.rate ?? DEFAULT_BAKE_RATE;
  const maxIterations = options.iterations ?? 50;
  const file = options.file;
  if (!Number.isInteger(perRegion) || perRegion < 1 || perRegion > MAX_HELPERS_PER_REGION)
    throw new CorskinError(
      `helpers per joint region must be a whole number from 1 to ${MAX_HELPERS_PER_REGION} (got ${perRegion})`,
      file,
    );
  if (K !== 4 && K !== 8) throw new CorskinError(`influences per vertex must be 4 or 8 (got ${K})`, file);
  if (options.rotations !== undefined && options.rotations !== 'short' && options.rotations !== 'float')
    throw new CorskinError(`rotations must be short or float (got ${String(options.rotations)})`, file);
  if (options.placement !== undefined && !['auto', 'even', 'departure'].includes(options.placement))
    throw new CorskinError(`placement must be auto, even or departure (got ${String(options.placement)})`, file);
  const refine = options.refine ?? 0;
  if (!(Number.isInteger(refine) && refine >= 0 && refine <= MAX_REFINE_ROUNDS))
    throw new CorskinError(
      `refinement rounds must be a whole number from 0 to ${MAX_REFINE_ROUNDS} (got ${options.refine})`,
      file,
    );
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
  const guard = options.guard ?? 'auto';
  if (!['auto', 'samples', 'between'].includes(guard))
    throw new CorskinError(`guard must be auto, samples or between (got ${String(options.guard)})`, file);
  if (options.beyondClips !== undefined && options.beyondClips !== 'free' && options.beyondClips !== 'lbs')
    throw new CorskinError(`beyondClips must be free or lbs (got ${String(options.beyondClips)})`, file);
  if (options.samples && guard !== 'auto' && options.samples.between !== (guard === 'between'))
    throw new CorskinError(
      `the samples given were taken ${options.samples.between ? 'half-way between the sample times too' : 'at the sample times only'}, but the guard asked is ${guard}`,
      file,
    );
  const samples = options.samples ?? sampleMethod(model, deform, rate, { signal: options.signal, between: guard === 'between', lbs: options.lbs }); // prettier-ignore
  const times = samples.between ? bakeCheckTimes : bakeSampleTimes;
  const expected = model.animations.reduce((t, clip) => t + times(clip.duration, rate).length, 0);
  if (samples.rate !== rate || samples.targets.length !== expected || samples.targets[0]?.length !== 3 * n)
    throw new CorskinError(
      `${model.name}: the samples given are not this skin's at ${rate} samples/s (${samples.targets.length} samples of ${(samples.targets[0]?.length ?? 0) / 3} vertices at ${samples.rate}/s; expected ${expected} of ${n})`,
      file,
    );

  // The placements fitted: the one asked, or with `auto` both (the second only where it shares
  // the helpers out otherwise), the closer to the method kept (`placementScore`).
  const how = options.placement ?? 'auto';
  const departing = helperRegions(mesh, skeleton.parents, samples.targets, samples.lbsSquared);
  const placements = (how === 'auto' ? (['even', 'departure'] as const) : [how])
    .map((name) => ({ name, placement: placeHelpers(mesh, departing, perRegion, name === 'departure') }))
    .filter(({ placement }, k, all) => k === 0 || !sameHelpers(placement, all[0].placement));
  // The guard `auto` may fit again, guarded half-way too: the progress counts both rounds.
  const rounds = guard === 'auto' && !samples.between ? 2 : 1;
  // Per round, the placements' fits and the refinements' (FITS_PER_REFINEMENT each, at most).
  const perRound = placements.length + FITS_PER_REFINEMENT * refine;
  const fit = { K, J, maxIterations, fits: rounds * perRound, keyTolerance, options };
  // Fits are scored where one is chosen among several.
  const scored = placements.length > 1 || rounds > 1 || refine > 0;
  // The method's normals at a set of samples, one sample at a time (the normals' guard; a
  // deformer bound to SIMD kernels that pose positions alone runs its JavaScript one for them).
  const methodNormals =
    mesh.normals &&
    ((at: MethodSamples) => {
      const out = { positions: new Float32Array(3 * n), normals: new Float32Array(3 * n) };
      return (t: number) => {
        deform(at.rest[t] === mesh.positions ? mesh : { ...mesh, positions: at.rest[t] }, at.fixed[t], out);
        return out.normals;
      };
    });
  /** Each placement fitted to `at`, the closest kept; with `halfway`, compared there too. */
  const fitBest = function* (
    at: MethodSamples,
    halfway: MethodSamples | undefined,
    round: number,
    halfwayKeyed: readonly number[] = [],
  ) {
    // The samples keyed: every one, or the sample times among the check times (even in each clip)
    // and the half-way times listed.
    const keyed: number[] = [...halfwayKeyed];
    for (let t = 0, c = 0; c < at.clips.length; t += at.clips[c++].times.length)
      for (let s = 0; s < at.clips[c].times.length; s += at.between ? 2 : 1) keyed.push(t + s);
    keyed.sort((a, b) => a - b);
    const plain = scored ? plainLbs(at, halfway) : undefined;
    let best: { candidate: HelperCandidate; score: PlacementScore; placement: HelperPlacement } | undefined;
    const fitOne = function* (
      k: number,
      name: 'even' | 'departure',
      placement: HelperPlacement,
      start?: HelperFitStart,
    ) {
      const settings = { ...fit, samples: at, keyed, index: round * perRound + k, name, methodNormals: methodNormals?.(at), start }; // prettier-ignore
      const candidate = yield* fitHelpers(model, placement, settings, shared);
      const score = plain
        ? placementScore(at, halfway, plain, candidate)
        : { score: 0, worseHalfway: 0, overTimes: [] };
      const result = { candidate, score, placement };
      const better = !best || score.score < best.score.score;
      if (better) best = result;
      return { result, better };
    };
    for (const [k, { name, placement }] of placements.entries()) yield* fitOne(k, name, placement);
    // Refinements: one more helper where the fit grown from leaves most, kept where the file plays
    // closer; after a round that keeps none, the next grows from that round's closest fit
    // (REFINE_PATIENCE rounds in a row at most), the closest of all kept.
    const refined = { rounds: 0, helpers: 0 };
    const unrefined = best!.candidate.helpersKept;
    // Where the placements' closest fit plays farther than plain LBS half-way (before any
    // refinement, which the second round repeats on its own fits).
    const placedOverTimes = best!.score.overTimes;
    let from = best!;
    for (let r = 0, idle = 0; r < refine; r++) {
      // The helpers added two ways, the closer kept where it plays closer than the fit kept: the
      // fit grown from split (its helpers that leave most split, the fit starting from it), and
      // every helper fitted afresh from new clusters (where that fit sits in a poor minimum);
      // where neither is kept, the same with a helper more only where the fit leaves most.
      const { candidate, placement } = from;
      const residual = vertexResiduals(at, halfway, plain!, candidate);
      const regional = regionResiduals(residual, placement.regionOf);
      let kept = false;
      let closest: typeof from | undefined;
      for (const [attempt, share] of [REFINE_FROM, REFINE_FOCUSED_FROM].entries()) {
        const { counts, added } = refinedCounts(departing, placement, regional, share);
        if (!added) break;
        const k = placements.length + FITS_PER_REFINEMENT * r + 2 * attempt;
        for (const fitted of [
          yield* fitOne(k, candidate.placement, splitHelpers(mesh, placement, counts, residual), candidate.start),
          yield* fitOne(k + 1, candidate.placement, placeHelpers(mesh, departing, perRegion, false, counts)),
        ]) {
          kept ||= fitted.better;
          if (!closest || fitted.result.score.score < closest.score.score) closest = fitted.result;
        }
        if (kept) break;
      }
      if (kept) [idle, refined.rounds] = [0, r + 1];
      if (!closest || (!kept && ++idle > REFINE_PATIENCE)) break;
      from = closest;
    }
    refined.helpers = best!.candidate.helpersKept - unrefined;
    // The kept fit's peaks, played now that no refinement steers by it, where the file then
    // plays no farther from the method (the score, and the half-way times worse than LBS).
    const kept = best!;
    applyPeaks(kept.candidate, J, () => {
      if (!plain) return true;
      const score = placementScore(at, halfway, plain, kept.candidate);
      if (score.score > kept.score.score || score.worseHalfway > kept.score.worseHalfway) return false;
      kept.score = score;
      return true;
    });
    return { ...best!, keyed, clips: at.clips, plain, refined, placedOverTimes };
  };
  // Compared half-way between the samples too, where players interpolate the keys: the
  // placements, and with the guard `auto` whether the samples' guard holds there.
  const halfway =
    scored && !samples.between
      ? sampleMethod(model, deform, rate, { signal: options.signal, halfway: true, lbs: options.lbs, shared })
      : undefined;
  // With the guard `auto`, where the samples' guard leaves the bake farther from the method than
  // plain LBS half-way somewhere, it is held there too, whichever way plays closer: the same fit
  // with the vertices that push a time over given back their own influences (`holdHalfway`), or a
  // fit guarded between and keyed, besides the sample times, at the half-way times where the
  // first round's closest placement (before refinements) played farther than plain LBS
  // (`PlacementScore.overTimes`: an interpolation of two keys that each fit well can turn a
  // helper far off between them; keyed there, it plays its fit).
  const first = yield* fitBest(samples, halfway, 0);
  const { worseHalfway } = first.score;
  let chosen = first;
  let halfwayGivenBack: number | undefined;
  let halfwayKeys: number | undefined;
  if (rounds > 1 && worseHalfway > 0) {
    const over = holdHalfway(samples, halfway!, first.plain!, first.candidate, ownInfluences(mesh, first.candidate.model.influences)); // prettier-ignore
    giveBack(first.candidate, over, mesh, J);
    halfwayGivenBack = over.length;
    const held = placementScore(samples, halfway, first.plain!, first.candidate).score;
    const keys = halfwayIndices(samples, first.placedOverTimes);
    const between = yield* fitBest(withHalfway(samples, halfway!), undefined, 1, keys);
    if (between.score.score < held) [chosen, halfwayGivenBack, halfwayKeys] = [between, undefined, keys.length];
  }
  const { candidate: best, keyed, clips } = chosen;
  const guarded = samples.between || chosen !== first ? 'between' : 'samples';
  const { model: model_, own, keys, keptKeys, used, helpersKept, helperRegion, helperCentre } = best;
  // Done: the whole of the total the fits counted (rounds and refinements stopped early included).
  options.onProgress?.(fit.fits * maxIterations, fit.fits * maxIterations);

  const short = options.rotations !== 'float';
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
    samples: keyed.length - (halfwayKeys ?? 0),
    iterations: best.iterations,
    activeVertices: best.active.length,
    revertedVertices: best.givenBack,
    normalsGivenBack: best.normalsGivenBack,
    placement: best.placement,
    ...(refine > 0 && { refined: chosen.refined }),
    guard: guarded,
    ...(rounds > 1 && worseHalfway > 0 && { worseHalfway }),
    ...(halfwayGivenBack !== undefined && { halfwayGivenBack }),
    ...(halfwayKeys !== undefined && { halfwayKeys }),
    ...(halfway && { halfway }),
  };
}

/** Whether two placements give the same helpers to the same regions (then the same fit). */
function sameHelpers(a: HelperPlacement, b: HelperPlacement): boolean {
  return a.helperRegion.length === b.helperRegion.length && a.helperRegion.every((r, h) => r === b.helperRegion[h]);
}
