/**
 * Constant animation channels stored as two keys: an exporter's round trip (FBX to glTF, say)
 * often keys every joint's scale and bone-length translation at every frame, each key the same
 * value give or take float32 rounding (the Fox: its scale keys within 7.2e-7 of 1, its bone
 * translations within 1.0e-6 of their length relative). A helper bake adds channels; these are
 * where it can save what it adds (the Fox: 229 of its 367 KB of key values, in a 519 KB file).
 *
 * Not glTF-Transform's `resample`, which compares every path's components with one absolute
 * tolerance: a translation's rounding grows with the rig's units, a rotation's does not.
 *
 * @module
 */
import type { Accessor, AnimationChannel, Document } from '@gltf-transform/core';

/**
 * How far, relative to a channel's magnitude, its keys may lie from its first key for the channel
 * to count as constant: about 17 float32 rounding steps (2⁻²³ each), so that an exporter's
 * rounding collapses (the Fox's translations reach 1.0e-6 relative) and motion never does.
 */
export const CONSTANT_CHANNEL_TOLERANCE = 2e-6;

/** What {@link collapseConstantChannels} did. */
export interface CollapsedChannels {
  /** Channels now stored as two keys. */
  channels: number;
  /** Bytes of key values no longer stored (their times are often shared with other channels). */
  bytes: number;
}

/**
 * Stores every translation, rotation and scale channel (LINEAR or STEP, more than two keys) whose
 * keys all lie within `tolerance` × its magnitude of its first key, component by component, as
 * two keys of that first value, at its first and last times (the clip keeps its length). The
 * magnitude: a translation's largest length over its keys, a scale's largest component, 1 for a
 * rotation (unit quaternion). A pose then moves by at most `tolerance` times the bind pose's lever
 * arms (rotations and scales) and the bone lengths along a chain (translations). CUBICSPLINE
 * channels and morph weights are left as they are. Accessors no longer used are disposed of; those
 * another sampler or property still uses are kept.
 * @param document modified in place
 * @param tolerance relative, ≥ 0 (0: channels whose keys are all equal)
 * @throws RangeError when `tolerance` is negative or not finite
 */
export function collapseConstantChannels(
  document: Document,
  tolerance = CONSTANT_CHANNEL_TOLERANCE,
): CollapsedChannels {
  if (!(tolerance >= 0 && Number.isFinite(tolerance)))
    throw new RangeError(`the constant-channel tolerance must be a number ≥ 0 (got ${tolerance})`);
  let channels = 0;
  let bytes = 0;
  const replaced = new Set<Accessor>();
  for (const animation of document.getRoot().listAnimations())
    for (const channel of animation.listChannels()) {
      const sampler = channel.getSampler();
      const input = sampler?.getInput();
      const output = sampler?.getOutput();
      if (!sampler || !input || !output || sampler.getInterpolation() === 'CUBICSPLINE') continue;
      const times = input.getArray();
      const values = output.getArray();
      const m = output.getElementSize();
      const count = output.getCount();
      if (!times || !values || count <= 2 || input.getCount() !== count || !isConstant(channel, output, tolerance))
        continue;
      const ends = new (times.constructor as new (n: number) => typeof times)(2);
      ends[0] = times[0];
      ends[1] = times[count - 1];
      const value = new (values.constructor as new (n: number) => typeof values)(2 * m);
      for (let c = 0; c < m; c++) value[c] = value[m + c] = values[c];
      sampler.setInput(copyAccessor(document, input, ends)).setOutput(copyAccessor(document, output, value));
      replaced.add(input).add(output);
      bytes += values.byteLength - value.byteLength;
      channels++;
    }
  for (const accessor of replaced)
    if (accessor.listParents().every((p) => p.propertyType === 'Root')) accessor.dispose();
  return { channels, bytes };
}

/** Whether every key of `output` lies within `tolerance` × the channel's magnitude of its first key. */
function isConstant(channel: AnimationChannel, output: Accessor, tolerance: number): boolean {
  const path = channel.getTargetPath();
  if (path !== 'translation' && path !== 'rotation' && path !== 'scale') return false;
  const count = output.getCount();
  const m = output.getElementSize();
  const key = [0, 0, 0, 0];
  let magnitude = path === 'rotation' ? 1 : 0;
  if (path !== 'rotation')
    for (let k = 0; k < count; k++) {
      output.getElement(k, key);
      let size = 0; // a scale's largest component, a translation's squared length
      for (let c = 0; c < m; c++) size = path === 'scale' ? Math.max(size, Math.abs(key[c])) : size + key[c] * key[c];
      magnitude = Math.max(magnitude, path === 'scale' ? size : Math.sqrt(size));
    }
  const first = output.getElement(0, [0, 0, 0, 0]);
  const bound = tolerance * magnitude;
  for (let k = 1; k < count; k++) {
    output.getElement(k, key);
    for (let c = 0; c < m; c++) if (!(Math.abs(key[c] - first[c]) <= bound)) return false;
  }
  return true;
}

/** A new accessor of `array`, typed, normalised and stored as `like` is. */
function copyAccessor(
  document: Document,
  like: Accessor,
  array: NonNullable<ReturnType<Accessor['getArray']>>,
): Accessor {
  return document
    .createAccessor()
    .setType(like.getType())
    .setArray(array)
    .setNormalized(like.getNormalized())
    .setBuffer(like.getBuffer());
}
