/**
 * A method and plain linear blend skinning at every sample of every clip: what the helper-joint
 * bake fits and what its measurement compares against, taken once and shared by both.
 *
 * @module
 */
import { samplePose, type AnimationClip } from '../core/animation.js';
import { applyMorphTargets, sampleMorphWeights } from '../core/morph.js';
import { boundingBoxDiagonal } from '../core/mesh.js';
import type { Deformer } from '../deformers/contract.js';
import { deformLbs as deformLbsJs } from '../deformers/lbs.js';
import type { SkinnedModel } from '../io/gltf.js';
import { allocate } from './fit.js';
import { bakeCheckTimes, bakeSampleTimes, checkBakeSize } from './samples.js';
import { nearOriginSkinningMatrices } from '../core/pose.js';

/**
 * A skin's clips sampled: per sample s (clip after clip, each at `bakeSampleTimes`, or at
 * `bakeCheckTimes` with {@link MethodSamples.between}), the method and LBS.
 */
export interface MethodSamples {
  /** Each clip and its sample times (seconds). */
  clips: {
    /** The clip. */
    clip: AnimationClip;
    /** Its sample times, seconds, ascending. */
    times: Float32Array;
  }[];
  /** Bind-space positions at sample s (the mesh's own array at every s without morph targets), length 3·n. */
  rest: Float32Array[];
  /** The method's posed positions at sample s, length 3·n (posed space, asset units). */
  targets: Float32Array[];
  /**
   * Plain LBS's squared distance to the method at every vertex at sample s, length n (posed
   * units squared; in 64 bits, as computed from the 32-bit positions): all that the bake reads
   * of plain LBS, in two thirds of its positions' memory.
   */
  lbsSquared: Float64Array[];
  /** The joints' skinning matrices at sample s, 4×4 column-major, length 16·J. */
  fixed: Float64Array[];
  /** The sample rate (samples per second). */
  rate: number;
  /**
   * Whether the samples are the check times (`bakeCheckTimes`: the sample times at even indices
   * of each clip, half-way between at odd ones) rather than the sample times alone.
   */
  between: boolean;
}

/**
 * Samples `deform` and plain LBS on `model` at every sample of every clip, the morph targets
 * applied as each clip animates them.
 * @param deform the method, a deformer of `model.mesh` (bind space → posed space)
 * @param rate samples per second of each clip
 * @param options `signal` stops between samples (throws its reason); `onProgress` is called after
 *   each sample with (done, total); `between`: at `bakeCheckTimes` (half-way between the sample
 *   times too); `lbs` is the linear blend skinning deformer (default `deformLbs`; the bake passes
 *   the SIMD kernels bound to the mesh, `simdBoundDeformer`); `halfway`: only half-way between
 *   the sample times (the odd check times; `between` is then false and each clip's `times` are
 *   those); `shared`: the method's positions and LBS's distances in SharedArrayBuffers (worker
 *   threads read them without a copy: the bake's measure, `io/measure-parallel.ts`)
 * @throws CorskinError when the rate is not a positive number, or a clip or the whole bake would
 *   take more samples than `samples.ts` allows
 */
export function sampleMethod(
  model: SkinnedModel,
  deform: Deformer,
  rate: number,
  options: {
    signal?: AbortSignal;
    onProgress?: (done: number, total: number) => void;
    between?: boolean;
    lbs?: Deformer;
    halfway?: boolean;
    shared?: boolean;
  } = {},
): MethodSamples {
  const deformLbs = options.lbs ?? deformLbsJs;
  const between = !!options.between && !options.halfway;
  const { mesh, skeleton, morphGroups } = model;
  const n = mesh.positions.length / 3;
  const clips = model.animations.map((clip) => ({
    clip,
    times: options.halfway
      ? bakeCheckTimes(clip.duration, rate, `clip "${clip.name}"`).filter((_, k) => k % 2 === 1)
      : (between ? bakeCheckTimes : bakeSampleTimes)(clip.duration, rate, `clip "${clip.name}"`),
  }));
  const total = clips.reduce((t, c) => t + c.times.length, 0);
  checkBakeSize(total, n, between);
  const out: MethodSamples = { clips, rest: [], targets: [], lbsSquared: [], fixed: [], rate, between };
  const extent = boundingBoxDiagonal(mesh.positions);
  // Every sample's positions in one array each (views per sample): hundreds of fresh arrays of
  // a large mesh cost more, allocated one by one, than the skinning itself.
  // Plain LBS posed into one array, kept as its distances: fresh memory is slow to touch the first
  // time (on this project's 2-core VMs about 2.7 ns a byte, `cli/huge-pages.ts`).
  const targets = allocate(Float32Array, total * 3 * n, !!options.shared);
  const lbsSquared = allocate(Float64Array, total * n, !!options.shared);
  const plain = { positions: new Float32Array(3 * n) };
  for (const { clip, times } of clips)
    for (const t of times) {
      options.signal?.throwIfAborted();
      const S = nearOriginSkinningMatrices(skeleton, samplePose(skeleton, clip, t), extent);
      const morphed = morphGroups.length
        ? applyMorphTargets(mesh, morphGroups, sampleMorphWeights(morphGroups, clip.morphChannels ?? [], t))
        : mesh;
      const at = 3 * n * out.targets.length;
      const method = { positions: targets.subarray(at, at + 3 * n) };
      deform(morphed, S, method);
      deformLbs(morphed, S, plain);
      const squared = lbsSquared.subarray(at / 3, at / 3 + n);
      squaredDistances(squared, plain.positions, method.positions);
      out.rest.push(morphed.positions);
      out.targets.push(method.positions);
      out.lbsSquared.push(squared);
      out.fixed.push(S);
      options.onProgress?.(out.targets.length, total);
    }
  return out;
}

/**
 * `samples` (at the sample times) and `halfway` (half-way between them: {@link sampleMethod} with
 * `halfway`) as one set at the check times (`bakeCheckTimes`, `between`), each clip's times
 * interleaved: what the bake's measure takes as its reference (the same arrays, not copied).
 * @throws RangeError when `halfway` is not half-way between `samples` (its clips' time counts)
 */
export function withHalfway(samples: MethodSamples, halfway: MethodSamples): MethodSamples {
  const out: MethodSamples = {
    clips: [],
    rest: [],
    targets: [],
    lbsSquared: [],
    fixed: [],
    rate: samples.rate,
    between: true,
  };
  let [s, h] = [0, 0];
  samples.clips.forEach(({ clip, times }, c) => {
    const half = halfway.clips[c]?.times;
    if (samples.between || half?.length !== Math.max(0, times.length - 1))
      throw new RangeError(`withHalfway: clip "${clip.name}" has ${times.length} samples and ${half?.length} half-way times`); // prettier-ignore
    const check = new Float32Array(times.length + half.length);
    const push = (from: MethodSamples, k: number) => {
      out.rest.push(from.rest[k]);
      out.targets.push(from.targets[k]);
      out.lbsSquared.push(from.lbsSquared[k]);
      out.fixed.push(from.fixed[k]);
    };
    for (let k = 0; k < times.length; k++) {
      check[2 * k] = times[k];
      push(samples, s + k);
      if (k < half.length) {
        check[2 * k + 1] = half[k];
        push(halfway, h + k);
      }
    }
    out.clips.push({ clip, times: check });
    s += times.length;
    h += half.length;
  });
  return out;
}

/**
 * The indices, among the samples merged with the half-way times (`withHalfway`), of the listed
 * half-way times (indices over every clip's half-way times, ascending; `samples` at the sample
 * times alone, as `withHalfway` takes them).
 */
export function halfwayIndices(samples: MethodSamples, times: readonly number[]): number[] {
  const out: number[] = [];
  let [h0, m0, i] = [0, 0, 0];
  for (const { times: T } of samples.clips) {
    const halves = Math.max(0, T.length - 1);
    for (; i < times.length && times[i] < h0 + halves; i++) out.push(m0 + 2 * (times[i] - h0) + 1);
    h0 += halves;
    m0 += T.length + halves;
  }
  return out;
}

/** `out[i]` = the squared distance between points i of `a` and `b` (3 floats each). */
function squaredDistances(out: Float64Array, a: Float32Array, b: Float32Array): void {
  for (let i = 0, j = 0; i < out.length; i++, j += 3)
    out[i] = (a[j] - b[j]) ** 2 + (a[j + 1] - b[j + 1]) ** 2 + (a[j + 2] - b[j + 2]) ** 2;
}
