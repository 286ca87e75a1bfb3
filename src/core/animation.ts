/**
 * Animation clips (glTF samplers on joints) and their sampling into a {@link Pose}.
 *
 * @module
 */
import { CorskinError } from './errors.js';
import { quatSlerp } from './math.js';
import type { MorphChannel } from './morph.js';
import { restPose, type Pose } from './pose.js';
import { jointCount, type Skeleton } from './skeleton.js';

/** glTF sampler interpolation modes. */
export type Interpolation = 'LINEAR' | 'STEP' | 'CUBICSPLINE';

/** One animated property of one joint (a glTF channel with its sampler). */
export interface AnimationChannel {
  /** Joint index in the skeleton. */
  joint: number;
  /** Animated property. */
  path: 'translation' | 'rotation' | 'scale';
  /** How values are interpolated between keys (glTF sampler mode). */
  interpolation: Interpolation;
  /** Key times in seconds, ascending, length K. */
  times: Float32Array | Float64Array;
  /**
   * Key values: K·c numbers (c = 3, or 4 for rotations); for CUBICSPLINE 3·K·c numbers laid out
   * per key as (in-tangent, value, out-tangent), as in glTF.
   */
  values: Float32Array | Float64Array;
}

/** A named clip: the channels that target joints of one skeleton. */
export interface AnimationClip {
  /** Clip name: the glTF animation's, or `animation <index>` when it has none. */
  name: string;
  /**
   * Index of the glTF animation the clip was read from (names may repeat: two clips can share
   * one), when it came from a file.
   */
  source?: number;
  /** Last key time over all channels, seconds. */
  duration: number;
  /** Channels that animate the skeleton's joints. */
  channels: AnimationChannel[];
  /** Channels that animate the morph weights of the skin's meshes (see `morph.ts`). */
  morphChannels?: MorphChannel[];
}

/**
 * Samples `clip` at `time` seconds (clamped to the clip's keys) into a pose: unanimated
 * properties keep their rest-pose values (the joints' own transforms, `restPose`; not always the
 * bind pose). Rotations use slerp (LINEAR), the previous key (STEP) or the cubic Hermite spline
 * of glTF Appendix C (CUBICSPLINE), renormalised.
 * @param out pose to overwrite (allocated when omitted)
 * @throws CorskinError when a channel targets a joint outside the skeleton; RangeError when
 *   `time` is not a finite number
 */
export function samplePose(skeleton: Skeleton, clip: AnimationClip, time: number, out?: Pose): Pose {
  if (!Number.isFinite(time)) throw new RangeError(`time must be a finite number of seconds, got ${time}`);
  const pose = out ?? restPose(skeleton);
  if (out) {
    out.translations.set(skeleton.restTranslations);
    out.rotations.set(skeleton.restRotations);
    out.scales.set(skeleton.restScales);
  }
  const J = jointCount(skeleton);
  for (const ch of clip.channels) {
    if (!(ch.joint >= 0 && ch.joint < J)) {
      throw new CorskinError(`animation "${clip.name}" targets joint ${ch.joint}, skeleton has ${J}`);
    }
    const rotation = ch.path === 'rotation';
    const c = rotation ? 4 : 3;
    const target = rotation ? pose.rotations : ch.path === 'scale' ? pose.scales : pose.translations;
    sampleValues(ch, c, rotation, time, target, c * ch.joint);
  }
  return pose;
}

/**
 * Samples one glTF sampler of c-component values at `time` into `out[o..o+c)`: LINEAR (slerp for
 * a rotation), STEP, CUBICSPLINE (glTF 2.0 Appendix C); clamped to the keys; rotations
 * renormalised.
 */
export function sampleValues(
  ch: { interpolation: Interpolation; times: ArrayLike<number>; values: ArrayLike<number> },
  c: number,
  rotation: boolean,
  time: number,
  out: Float64Array,
  o: number,
): void {
  const { times, values } = ch;
  const K = times.length;
  if (K === 0) return;
  const cubic = ch.interpolation === 'CUBICSPLINE';
  const stride = cubic ? 3 * c : c;
  const valueAt = cubic ? c : 0; // offset of the value inside a key's block
  if (time <= times[0] || K === 1) {
    for (let i = 0; i < c; i++) out[o + i] = values[valueAt + i];
    if (rotation) normalize4(out, o);
    return;
  }
  if (time >= times[K - 1]) {
    for (let i = 0; i < c; i++) out[o + i] = values[(K - 1) * stride + valueAt + i];
    if (rotation) normalize4(out, o);
    return;
  }
  // Binary search: times[k] <= time < times[k+1].
  let lo = 0;
  let hi = K - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= time) lo = mid;
    else hi = mid;
  }
  const t0 = times[lo];
  const dt = times[hi] - t0;
  const u = dt > 0 ? (time - t0) / dt : 0;
  if (ch.interpolation === 'STEP') {
    for (let i = 0; i < c; i++) out[o + i] = values[lo * stride + i];
  } else if (!cubic) {
    if (rotation) {
      quatSlerp(out, o, values as Float32Array, lo * 4, values as Float32Array, hi * 4, u);
    } else {
      for (let i = 0; i < c; i++) out[o + i] = values[lo * c + i] * (1 - u) + values[hi * c + i] * u;
    }
  } else {
    // Hermite basis (glTF 2.0 Appendix C): p = h00 v0 + h10 dt b0 + h01 v1 + h11 dt a1.
    const u2 = u * u, u3 = u2 * u;
    const h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u, h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
    const k0 = lo * stride, k1 = hi * stride;
    for (let i = 0; i < c; i++) {
      const v0 = values[k0 + c + i], b0 = values[k0 + 2 * c + i]; // value and out-tangent of key 0
      const a1 = values[k1 + i], v1 = values[k1 + c + i]; // in-tangent and value of key 1
      out[o + i] = h00 * v0 + h10 * dt * b0 + h01 * v1 + h11 * dt * a1;
    }
    if (rotation) normalize4(out, o);
  }
}

function normalize4(a: Float64Array, o: number): void {
  const n = Math.hypot(a[o], a[o + 1], a[o + 2], a[o + 3]) || 1;
  a[o] /= n;
  a[o + 1] /= n;
  a[o + 2] /= n;
  a[o + 3] /= n;
}
