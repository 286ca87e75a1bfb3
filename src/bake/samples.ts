/**
 * When a bake samples a clip: the sample rate's default, the limit on samples per clip, and the
 * sample times themselves — one definition for the helper-joint bake, the morph-target bake, the
 * template bake and the bake's measurement. No dependency.
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';
import { farShift, shiftSkinning, skinningMatrices, type Pose } from '../core/pose.js';
import type { Skeleton } from '../core/skeleton.js';

/** Samples per second of each clip, unless asked otherwise (the usual frame rate of clips). */
export const DEFAULT_BAKE_RATE = 30;

/**
 * Default keyframe tolerance of a helper bake: 0, every key of the rig kept. A tolerance t drops
 * the keyframes that linear interpolation of their neighbours reproduces within t (glTF-Transform's
 * `resample`: quaternion components, asset units of translation) on every channel, the clips' own
 * included (the helpers' own keys are thinned by `DEFAULT_HELPER_KEY_TOLERANCE` anyway). Measured
 * with 1e-4 after the helpers' reduction: the Fox's DQS bake 1.52× → 1.08× the input with the same
 * p99 and max at the samples and none worse than plain LBS; but the rig's joints then play a
 * little off the input's keys, so not by default. 1e-3 gives the Fox 1.03× with a p99 5.5× larger.
 */
export const DEFAULT_KEYFRAME_TOLERANCE = 0;

/**
 * Default tolerance of the helpers' key reduction (`key-reduction.ts`), a fraction of the posed
 * bounding-box diagonal: how much farther from the method a dropped key may put a vertex.
 * Measured on the Fox (DQS): 1.65× → 1.52× the input's size with the same p99 and max distance to
 * the method at the samples; 3e-4 gives 1.50× with a p99 2.3× larger (the guard then gives vertices
 * back their own influences).
 */
export const DEFAULT_HELPER_KEY_TOLERANCE = 1e-4;

/**
 * Most samples a bake takes of one clip: an hour at 30 samples/s is 108,000, so this bounds the
 * work (and the memory: a morph target per sample) of a clip whose length or rate is absurd
 * (1e6 s, 1e6 samples/s) before any is done.
 */
export const MAX_BAKE_SAMPLES = 200_000;

/**
 * The times a bake samples a clip at: `⌈duration·rate⌉ + 1` evenly spaced, both ends included,
 * strictly increasing (glTF asks it of animation inputs): a clip of length 0 (a T-pose) is sampled
 * once, at 0.
 * @param duration the clip's length, seconds (≥ 0, finite)
 * @param rate samples per second (> 0, finite)
 * @param clip the clip's name, for the error message
 * @throws CorskinError when the rate is not a positive number, or the clip would need more than
 *   {@link MAX_BAKE_SAMPLES} samples (naming the clip, its length and the rate to lower)
 */
export function bakeSampleTimes(duration: number, rate: number, clip = 'the clip'): Float32Array {
  if (!(rate > 0) || !Number.isFinite(rate))
    throw new CorskinError(`the bake's sample rate must be a positive number of samples per second (got ${rate})`);
  const F = duration > 0 ? Math.max(1, Math.ceil(duration * rate)) : 0;
  if (!(F + 1 <= MAX_BAKE_SAMPLES))
    throw new CorskinError(
      `${clip} is ${duration.toPrecision(4)} s long: at ${rate} samples/s a bake would take ${(F + 1).toPrecision(3)} samples of it, above the limit of ${MAX_BAKE_SAMPLES.toLocaleString('en-US')} per clip (lower the sample rate: --rate)`,
    );
  return Float32Array.from({ length: F + 1 }, (_, f) => (F ? (f / F) * duration : 0));
}

/**
 * The times a helper bake checks a clip at: its sample times ({@link bakeSampleTimes}, the keys'
 * times) at the even indices, and half-way between each two at the odd ones (2F + 1 times for F
 * intervals). A player interpolates the helpers' keys there — an engine at 60 frames per second
 * plays every such time of a bake at 30 samples/s — so the bake's guard and its measure look there
 * too: each sample's helpers are fitted on their own, and a helper free to turn about its
 * vertices can turn far between two samples (the Fox: at 278 of 479 half-way times its DQS bake played
 * farther from the method than plain LBS, while at no sample).
 * @throws CorskinError as {@link bakeSampleTimes}
 */
export function bakeCheckTimes(duration: number, rate: number, clip = 'the clip'): Float32Array {
  const keys = bakeSampleTimes(duration, rate, clip);
  const out = new Float32Array(2 * keys.length - 1);
  for (let k = 0; k < keys.length; k++) {
    out[2 * k] = keys[k];
    if (k + 1 < keys.length) out[2 * k + 1] = (keys[k] + keys[k + 1]) / 2;
  }
  return out;
}

/**
 * Most (sample, vertex) pairs a bake holds: the helper bake keeps every sample's posed mesh of
 * the method and of LBS (36 bytes a pair), so this bounds its memory to about 2 GB; twice that
 * with the guard half-way between the samples (`bakeCheckTimes`, each time a pair: Ybot's 1,621
 * check times of 35K vertices are 57M pairs).
 */
export const MAX_BAKE_VERTEX_SAMPLES = 5e7;

/**
 * From this many (sample, vertex) pairs up, `corskin bake --as helpers` fits on every core by
 * default: below it, starting the worker threads costs about what they save.
 */
export const AUTO_BAKE_THREADS_FROM = 5e6;

/**
 * Below this many (time, vertex) pairs the measure stays on one thread: its worker takes about
 * half a second to start (its modules and kernels), and the measure plays about 25M pairs a second
 * on this project's 2-core machines.
 */
export const PARALLEL_MEASURE_FROM = 1e7;

/** Most helper joints per joint region (Le & Deng 2012 use a handful; each costs a bone per sample). */
export const MAX_HELPERS_PER_REGION = 16;

/** Most refinement rounds of a helper bake (`HelperBakeOptions.refine`): each costs up to four fits. */
export const MAX_REFINE_ROUNDS = 10;

/**
 * Checks the size of a bake before its samples are taken.
 * @param between the samples are check times (`bakeCheckTimes`): the limit is doubled
 * @throws CorskinError when `samples` × `vertices` exceeds {@link MAX_BAKE_VERTEX_SAMPLES}
 *   (doubled with `between`)
 */
export function checkBakeSize(samples: number, vertices: number, between = false): void {
  const limit = (between ? 2 : 1) * MAX_BAKE_VERTEX_SAMPLES;
  if (samples * vertices > limit)
    throw new CorskinError(
      `the bake would hold ${samples.toLocaleString('en-US')} ${between ? 'times' : 'samples'} of ${vertices.toLocaleString('en-US')} vertices, above the limit of ${limit.toExponential(0)} (time, vertex) pairs (about ${between ? 4 : 2} GB): lower the sample rate (--rate)`,
    );
}

/** What `corskin bake --as` takes: helper joints, morph targets, or helpers and then the residual as morph targets. */
export const BAKE_KINDS = ['helpers', 'morphs', 'helpers+morphs'] as const;

/**
 * `nearOriginSkinningMatrices` of the original skeleton at `pose` and of the baked one at
 * `bakedPose`, both moved by the original's move (the baked file's inverse bind matrices may differ:
 * `--quantize`), for comparing them at one sample.
 */
export function bakeSkinningPair(
  original: Skeleton,
  pose: Pose,
  baked: Skeleton,
  bakedPose: Pose,
  extent: number,
): [Float64Array, Float64Array] {
  const S = skinningMatrices(original, pose);
  const shift = farShift(S, extent);
  return [shiftSkinning(S, shift), shiftSkinning(skinningMatrices(baked, bakedPose), shift)];
}
