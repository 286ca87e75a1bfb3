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
import { mat4LinearDeterminant } from '../core/math.js';
import { disposeIfUnused } from './unused.js';

/**
 * How far its keys may lie from its first key for a channel to count as constant, relative (to 1
 * for a rotation, to its largest component for a scale, to the meshes' size for a translation):
 * about 17 float32 rounding steps (2⁻²³ each), so that an exporter's rounding collapses (the
 * Fox's scales reach 7.2e-7) and motion does not.
 */
export const CONSTANT_CHANNEL_TOLERANCE = 2e-6;

/** What {@link collapseConstantChannels} did. */
export interface CollapsedChannels {
  /** Channels now stored as two keys. */
  channels: number;
  /** Bytes no longer stored: the accessors disposed of (keys and times), less the two-key ones made. */
  bytes: number;
}

/**
 * Stores every translation, rotation and scale channel (LINEAR or STEP, more than two keys) whose
 * keys all lie within a bound of its first key, component by component, as two keys of that first
 * value, at the channel's own first and last times (the clip keeps its length). The bound: for a
 * rotation (a unit quaternion) `tolerance`; for a scale `tolerance` × its largest |component|; for
 * a translation `tolerance` × `size` in the node's parent's units (÷ the parent's world scale at
 * rest), whatever the translation's own length — a root far from the origin keeps a sway the size
 * of its mesh's detail, a short bone's rounding collapses. A pose then moves by at most about
 * `tolerance` × `size` per collapsed translation along a chain, and 2 × `tolerance` (rotations) or
 * `tolerance` (scales) times the lever arms. CUBICSPLINE channels and morph weights are left as
 * they are. Accessors no longer used are disposed of; those another sampler or property still
 * uses are kept.
 * @param document modified in place
 * @param size the skinned meshes' size, posed, in world units (their bounding-box diagonal; the
 *   smallest where there are several)
 * @param tolerance relative, ≥ 0 (0: channels whose keys are all equal)
 * @returns how many channels were collapsed, and the bytes of the accessors disposed of less those
 *   of the two-key ones made
 * @throws RangeError when `tolerance` is negative or not finite, or `size` not positive and finite
 */
export function collapseConstantChannels(
  document: Document,
  size: number,
  tolerance = CONSTANT_CHANNEL_TOLERANCE,
): CollapsedChannels {
  if (!(tolerance >= 0 && Number.isFinite(tolerance)))
    throw new RangeError(`the constant-channel tolerance must be a number ≥ 0 (got ${tolerance})`);
  if (!(size > 0 && Number.isFinite(size)))
    throw new RangeError(`the meshes' size must be a positive number (got ${size})`);
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
      if (!times || !values || count <= 2 || input.getCount() !== count) continue;
      const bound = channelBound(channel, output, tolerance, size);
      if (bound === undefined || !withinOfFirst(output, bound)) continue;
      const ends = new (times.constructor as new (n: number) => typeof times)(2);
      ends[0] = times[0];
      ends[1] = times[count - 1];
      const value = new (values.constructor as new (n: number) => typeof values)(2 * m);
      for (let c = 0; c < m; c++) value[c] = value[m + c] = values[c];
      sampler.setInput(copyAccessor(document, input, ends)).setOutput(copyAccessor(document, output, value));
      replaced.add(input).add(output);
      bytes -= ends.byteLength + value.byteLength;
      channels++;
    }
  for (const accessor of replaced) {
    const held = accessor.getArray()?.byteLength ?? 0;
    disposeIfUnused(accessor);
    if (accessor.isDisposed()) bytes += held;
  }
  return { channels, bytes };
}

/**
 * How far a channel's keys may lie from its first, per component (see
 * {@link collapseConstantChannels}); undefined for a path that is not collapsed (morph weights).
 */
function channelBound(
  channel: AnimationChannel,
  output: Accessor,
  tolerance: number,
  size: number,
): number | undefined {
  const path = channel.getTargetPath();
  if (path === 'rotation') return tolerance;
  if (path === 'translation') {
    const parent = channel.getTargetNode()?.getParentNode();
    const scale = parent ? Math.cbrt(Math.abs(mat4LinearDeterminant(parent.getWorldMatrix(), 0))) : 1;
    return (tolerance * size) / (scale || 1);
  }
  if (path !== 'scale') return undefined;
  const key = [0, 0, 0];
  let largest = 0;
  for (let k = 0; k < output.getCount(); k++) {
    output.getElement(k, key);
    for (const x of key) largest = Math.max(largest, Math.abs(x));
  }
  return tolerance * largest;
}

/** Whether every key of `output` lies within `bound` of its first key, component by component. */
function withinOfFirst(output: Accessor, bound: number): boolean {
  const first = output.getElement(0, [0, 0, 0, 0]);
  const key = [0, 0, 0, 0];
  const m = output.getElementSize();
  for (let k = 1; k < output.getCount(); k++) {
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
