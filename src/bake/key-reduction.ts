/**
 * Error-bounded keyframe reduction of a helper bake's channels (`io/helper-bake.ts`): a key is
 * dropped where the player's LINEAR interpolation of the keys kept on either side (translation
 * lerped, rotation slerped, as glTF plays them) puts no vertex farther from the method than the
 * key did by more than a tolerance in posed space, each helper's joint at its own matrix at that
 * sample. The measure is the vertices' distance to the method, not the keys' units
 * (glTF-Transform's `resample` compares quaternion components and local translations, whose
 * units follow the rig's scale), nor how far the interpolation departs from the key: each
 * sample's fit is its own least-squares solution, off the method by about the fit's error in its
 * own direction, so the keys of consecutive samples do not lie on a smooth curve even where the
 * method moves smoothly, and an interpolation can be as close to the method as the key it
 * replaces. The helpers that share vertices are judged, and keep their keys, as one group, at the
 * same times (where one turns, another can make up for it). The transforms the file then plays at
 * every sample are written back into the fit, so that what the bake measures afterwards
 * (`never-worse.ts`) is what is played.
 *
 * @module
 */
import { quatSlerp } from '../core/math.js';
import type { HelperFrames } from './helper-frames.js';
import type { FitData } from './fit.js';

/** A helper's keys at every sample of every clip: translation 3 and rotation 4 floats a sample. */
export interface HelperKeys {
  translation: Float32Array;
  rotation: Float32Array;
}

/**
 * Chooses the keys each group of helpers keeps in each clip, greedily: from a kept key, the
 * segment extends key by key while its interpolation holds every sample between within
 * `tolerance` at every vertex of the group (up to {@link MAX_SPAN} keys), and its end is kept;
 * then the fit's transforms at the dropped samples are rewritten with what the interpolation plays
 * there. Helpers that bind no vertex keep only each clip's ends. A group keeps every key where
 * thinning would save fewer bytes than the input accessor of its own that it needs.
 * @param frames the helpers' frames (`helper-frames.ts`), whose `play` makes a key's skinning matrix
 * @param data the fit (`fit.ts`), over every sample: its `transforms` (16·H per sample) those the
 *   keys play (`HelperFrames.key`) on entry, those the file plays at every sample on return
 * @param keys each helper's keys at every sample
 * @param clips each clip's sample times (seconds, increasing), clip after clip as the samples
 * @param tolerance how much farther from the method (posed units) a dropped key may put a vertex
 *   than the key did (0 keeps every key where the interpolation is farther at all)
 * @returns per helper, per clip, the sample indices kept within the clip (ascending, both ends)
 */
export function reduceHelperKeys(
  frames: HelperFrames,
  data: FitData,
  keys: readonly HelperKeys[],
  clips: readonly { times: Float32Array }[],
  tolerance: number,
): Int32Array[][] {
  const { H, J, K, n, fixed, transforms, targets, joints, weights } = data;
  // The samples keyed (`FitData.keyed`: every one, or with the guard between the sample times and
  // the half-way times keyed too); the others (half-way) play the interpolation of the keys on
  // either side, which is what a dropped key is compared with there.
  const isKey = new Uint8Array(fixed.length / (16 * J));
  for (const t of data.keyed) isKey[t] = 1;
  const X = new Float64Array(16 * H);
  const D = new Float64Array(12 * H);
  const translation = new Float64Array(3);
  const rotation = new Float64Array(4);
  // The interpolation of keys a and b of helper h at sample s (indices over every clip's samples),
  // played at s into X[16h..], and how it departs from the key's matrix there into D[12h..].
  const interpolate = (h: number, a: number, b: number, s: number, u: number) => {
    const { translation: T, rotation: R } = keys[h];
    for (let c = 0; c < 3; c++) translation[c] = T[3 * a + c] + u * (T[3 * b + c] - T[3 * a + c]);
    quatSlerp(rotation, 0, R, 4 * a, R, 4 * b, u);
    frames.play(fixed.subarray(16 * J * s, 16 * J * (s + 1)), X, h, translation, 0, rotation, 0);
    const o = 16 * H * s + 16 * h;
    for (let c = 0; c < 4; c++)
      for (let r = 0; r < 3; r++) D[12 * h + 3 * c + r] = X[16 * h + 4 * c + r] - transforms[o + 4 * c + r];
  };
  // Groups: the helpers that share a vertex, transitively (union–find), and each group's vertices.
  const root = Int32Array.from({ length: H }, (_, h) => h);
  const find = (h: number): number => (root[h] === h ? h : (root[h] = find(root[h])));
  const helpersOf = Array.from({ length: n }, (_, i) => {
    const out: number[] = [];
    for (let k = K * i; k < K * i + K; k++) if (joints[k] >= J && weights[k] > 0) out.push(joints[k] - J);
    return out;
  });
  for (const hs of helpersOf) for (const h of hs.slice(1)) root[find(h)] = find(hs[0]);
  const groups = new Map<number, { helpers: number[]; vertices: number[] }>();
  for (let h = 0; h < H; h++) {
    const r = find(h);
    if (!groups.has(r)) groups.set(r, { helpers: [], vertices: [] });
    groups.get(r)!.helpers.push(h);
  }
  helpersOf.forEach((hs, i) => {
    if (hs.length) groups.get(find(hs[0]))!.vertices.push(i);
  });
  const every = Array.from({ length: H }, (_, h) => h);
  const p = new Float64Array(3);
  // Whether no vertex of the group is, at sample s, farther from the method by more than the
  // tolerance with the interpolation (D made for its helpers) than with the keys.
  const within = (vertices: number[], s: number) => {
    const rest = data.restPerSample ? 3 * n * s : 0;
    for (const i of vertices) {
      const x = data.rest[rest + 3 * i], y = data.rest[rest + 3 * i + 1], z = data.rest[rest + 3 * i + 2]; // prettier-ignore
      p.fill(0);
      let dx = 0, dy = 0, dz = 0; // prettier-ignore
      for (let k = K * i; k < K * i + K; k++) {
        const w = weights[k];
        if (!(w > 0)) continue;
        const j = joints[k];
        const M = j < J ? fixed : transforms;
        const m = j < J ? 16 * J * s + 16 * j : 16 * H * s + 16 * (j - J);
        for (let r = 0; r < 3; r++) p[r] += w * (M[m + r] * x + M[m + 4 + r] * y + M[m + 8 + r] * z + M[m + 12 + r]);
        if (j < J) continue;
        const d = 12 * (j - J);
        dx += w * (D[d] * x + D[d + 3] * y + D[d + 6] * z + D[d + 9]);
        dy += w * (D[d + 1] * x + D[d + 4] * y + D[d + 7] * z + D[d + 10]);
        dz += w * (D[d + 2] * x + D[d + 5] * y + D[d + 8] * z + D[d + 11]);
      }
      const t = 3 * n * s + 3 * i;
      const ex = p[0] - targets[t], ey = p[1] - targets[t + 1], ez = p[2] - targets[t + 2]; // prettier-ignore
      const before = Math.hypot(ex, ey, ez);
      if (Math.hypot(ex + dx, ey + dy, ez + dz) > before + tolerance) return false;
    }
    return true;
  };
  const kept: Int32Array[][] = Array.from({ length: H }, () => []);
  let first = 0;
  for (const { times } of clips) {
    const F = times.length;
    const keyable: number[] = [];
    for (let s = 0; s < F; s++) if (isKey[first + s]) keyable.push(s);
    if (keyable[0] !== 0 || keyable[keyable.length - 1] !== F - 1)
      throw new Error('reduceHelperKeys: a clip whose first or last sample is not keyed');
    // Plays the interpolation of keys a and b at s into X, and writes it to the transforms at s.
    const at = (a: number, b: number, s: number, helpers: number[], write = false) => {
      for (const h of helpers) {
        interpolate(h, first + a, first + b, first + s, (times[s] - times[a]) / (times[b] - times[a]));
        if (write) transforms.set(X.subarray(16 * h, 16 * h + 16), 16 * H * (first + s) + 16 * h);
      }
    };
    // Between the keys: what every key kept plays there, the reference of a dropped key.
    for (let k = 0; k + 1 < keyable.length; k++)
      for (let s = keyable[k] + 1; s < keyable[k + 1]; s++) at(keyable[k], keyable[k + 1], s, every, true);
    for (const { helpers, vertices } of groups.values()) {
      const list = [0];
      // Whether keys a and b (within the clip) hold every sample between.
      const holds = (a: number, b: number) => {
        for (let s = a + 1; s < b; s++) {
          at(a, b, s, helpers);
          if (!within(vertices, first + s)) return false;
        }
        return true;
      };
      // Greedily over the keys (indices into `keyable`).
      for (let a = 0; a < keyable.length - 1;) {
        let b = a + 1;
        // A group that binds no vertex: nothing to hold, the clip's ends.
        if (!vertices.length) b = keyable.length - 1;
        while (b + 1 < keyable.length && b + 1 - a <= MAX_SPAN && holds(keyable[a], keyable[b + 1])) b++;
        list.push(keyable[b]);
        a = b;
      }
      // Thinned keys need an input of their own: where they would save less than it costs, the
      // group keeps every key (and shares the clip's input).
      if ((keyable.length - list.length) * helpers.length * KEY_BYTES <= list.length * 4 + INPUT_BYTES) {
        list.length = 0;
        list.push(...keyable);
      }
      const indices = Int32Array.from(list);
      for (const h of helpers) kept[h].push(indices);
      // What the file plays at the dropped samples (after the search, which compares with the keys).
      for (let k = 0; k + 1 < list.length; k++)
        for (let s = list[k] + 1; s < list[k + 1]; s++) at(list[k], list[k + 1], s, helpers, true);
    }
    first += F;
  }
  return kept;
}

/**
 * Bytes of one helper's key (a float translation and a 16-bit rotation), and about what an input
 * accessor of its own costs beside its times (its JSON and buffer view).
 */
const KEY_BYTES = 20;
const INPUT_BYTES = 200;

/**
 * Most keys one interpolated segment spans: bounds the search (each extension checks every
 * sample between again) where the helpers barely move.
 */
const MAX_SPAN = 64;
