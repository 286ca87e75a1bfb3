/**
 * Shepard automatic skinning weights (Yang & Zhang 2006, "Stretch It", Sec. 2.2.1).
 *
 * Reconstruction of the paper's equations (damaged in the text extraction):
 *
 * - Eq. 2, distance from vertex P to the bone (J_i, J_k) = distance to the segment: with
 *   `d = (J_iP · J_iJ_k) / |J_iJ_k|²`, `D_k(P, J_i) = |J_iP|` if d < 0, `|J_kP|` if d > 1, else
 *   `|J_iP × J_iJ_k| / |J_iJ_k|`.
 * - A joint with several child bones takes the smallest: `D(P, J_i) = min_k D_k(P, J_i)`.
 * - Eq. 3–4, Shepard's inverse-distance weights with drop rate m over the n influencing bones:
 *   `W_i(P) = Π_{j≠i} D_j^m / Σ_k Π_{j≠k} D_j^m` — the same as `D_i^{−m} / Σ_k D_k^{−m}` when
 *   no distance is zero, and exactly 1 on a bone (D_i = 0). Properties: W_i ≥ 0, Σ W_i = 1,
 *   continuous (C⁰) in P except where two bones' distances vanish together (at a joint, where
 *   the formula is 0/0): there corskin shares the weight equally among the bones at distance 0,
 *   while nearby points go to whichever bone is nearer.
 *
 * corskin keeps the n nearest bones of each vertex (n = 4 by default, the influences a glTF
 * `JOINTS_0` set holds); dropping the farther ones is continuous wherever their weights are
 * small, which the drop rate makes them.
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';
import { segmentDistance } from '../core/math.js';

/**
 * The bones of a rig as segments, bind space: bone b owns the segments
 * `segments[6s .. 6s+6)` (start x, y, z, end x, y, z) for s in `[offsets[b], offsets[b+1])`; a
 * zero-length segment is a point (a leaf joint).
 */
export interface BoneSegments {
  /** Segment range of each bone, length B + 1. */
  offsets: Int32Array;
  /** The segments, 6 numbers each (start, end), bind space. */
  segments: Float64Array;
}

/** Builds {@link BoneSegments} from a list of segment lists, one per bone. */
export function boneSegments(bones: ArrayLike<number>[][]): BoneSegments {
  const offsets = new Int32Array(bones.length + 1);
  bones.forEach((segs, b) => (offsets[b + 1] = offsets[b] + segs.length));
  const segments = new Float64Array(6 * offsets[bones.length]);
  bones.forEach((segs, b) => segs.forEach((s, k) => segments.set(Array.from(s).slice(0, 6), 6 * (offsets[b] + k))));
  return { offsets, segments };
}

/** Options of {@link shepardWeights}. */
export interface ShepardOptions {
  /** Drop rate m (Eq. 3); default 2. */
  dropRate?: number;
  /** Influences kept per vertex n (the nearest bones); default 4. */
  influences?: number;
}

/**
 * Shepard weights of every vertex against every bone.
 * @param positions bind-space vertex positions, length 3·n
 * @param bones the bones as segments (bind space, same units)
 * @returns K = `influences` per vertex: `joints` (bone indices, nearest first) and `weights`
 *   (sum 1), length K·n each; unused slots (fewer bones than K) have weight 0
 * @throws CorskinError when there is no bone or a bone has no segment; RangeError for m ≤ 0 or
 *   infinite, influences not a whole number ≥ 1, or positions whose length is not a multiple of 3
 */
export function shepardWeights(
  positions: ArrayLike<number>,
  bones: BoneSegments,
  options: ShepardOptions = {},
): {
  /** K: slots per vertex. */
  influences: number;
  /** Bone of each slot, nearest first, K·n. */
  joints: Uint32Array;
  /** Weight of each slot, K·n, summing to 1 per vertex (0 in unused slots). */
  weights: Float32Array;
} {
  const m = options.dropRate ?? 2;
  const K = options.influences ?? 4;
  if (!(m > 0 && Number.isFinite(m))) throw new RangeError(`drop rate must be a finite number > 0, got ${m}`);
  if (!(Number.isInteger(K) && K >= 1)) throw new RangeError(`influences must be a whole number ≥ 1, got ${K}`);
  if (positions.length % 3 !== 0) throw new RangeError(`positions: length ${positions.length} is not a multiple of 3`);
  const B = bones.offsets.length - 1;
  if (B < 1) throw new CorskinError('the skeleton has no bone');
  for (let b = 0; b < B; b++) {
    if (bones.offsets[b + 1] === bones.offsets[b]) throw new CorskinError(`bone ${b} has no segment`);
  }
  const n = positions.length / 3;
  const joints = new Uint32Array(K * n);
  const weights = new Float32Array(K * n);
  const D = new Float64Array(B);
  const order = Array.from({ length: B }, (_, b) => b);
  const k = Math.min(K, B);
  const W = new Float64Array(k);
  const { segments, offsets } = bones;
  const a = [0, 0, 0];
  const e = [0, 0, 0];
  for (let i = 0; i < n; i++) {
    for (let b = 0; b < B; b++) {
      let d = Infinity;
      for (let s = offsets[b]; s < offsets[b + 1]; s++) {
        a[0] = segments[6 * s];
        a[1] = segments[6 * s + 1];
        a[2] = segments[6 * s + 2]; // prettier-ignore
        e[0] = segments[6 * s + 3];
        e[1] = segments[6 * s + 4];
        e[2] = segments[6 * s + 5]; // prettier-ignore
        d = Math.min(d, segmentDistance(positions, 3 * i, a, e));
      }
      D[b] = d;
    }
    order.sort((p, q) => D[p] - D[q] || p - q);
    // W_r = Π_{s≠r} D_s^m / Σ_t Π_{s≠t} D_s^m over the k nearest, = D_r^−m / Σ_t D_t^−m: taken as
    // (D_nearest / D_r)^m, each in [0, 1] with the nearest's 1, so no drop rate overflows (the
    // products, even scaled, underflowed to 0 from m ≈ 1,000 and the bones then shared equally).
    const nearest = D[order[0]];
    let sum = 0;
    for (let r = 0; r < k; r++) {
      W[r] = nearest > 0 ? Math.pow(nearest / D[order[r]], m) : +(D[order[r]] === 0);
      sum += W[r]; // ≥ 1: the nearest's 1 (at distance 0, 1 for each bone there: they share equally)
    }
    for (let r = 0; r < k; r++) {
      joints[K * i + r] = order[r];
      weights[K * i + r] = W[r] / sum;
    }
  }
  return { influences: K, joints, weights };
}
