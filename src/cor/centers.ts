/**
 * Optimized centers of rotation (Le & Hodgins 2016, seed 000, Eq. 1 and Eq. 4; seed 001,
 * Eq. 6–10): the sub-triangles organised by joint pair. Evaluated by `fast.ts` (exactly, or
 * binned, per pair).
 *
 * Similarity of weight vectors (Eq. 1), over ordered bone pairs j ≠ k:
 *
 *     s(w_p, w_v) = Σ_{j≠k} w_pj w_pk w_vj w_vk · exp(−(w_pj w_vk − w_pk w_vj)² / σ²)
 *
 * Center of rotation of vertex i (Eq. 4), over the sub-triangles t of the subdivided domain
 * with area a_t, centroid c_t and mean weights w_t:
 *
 *     p*_i = Σ_t s(w_i, w_t) a_t c_t / Σ_t s(w_i, w_t) a_t
 *
 * Organisation: each (j, k) term is symmetric in j and k, so summing over unordered pairs j < k
 * only halves numerator and denominator alike. A pair's term is zero unless w_ij w_ik > 0 and
 * w_tj w_tk > 0, so the sub-triangles are bucketed by pair once ({@link buildPairTable}) and a
 * vertex visits only the buckets of its own influence pairs (at most K(K−1)/2). The result is
 * Eq. 4 to rounding, with no cut-off. A vertex with fewer than two influences (or, in a
 * degenerate mesh, no similar sub-triangle) keeps its bind position: it moves rigidly, so its
 * center of rotation does not matter.
 *
 * @module
 */
import type { SubdividedTriangles } from './subdivide.js';

/**
 * Sub-triangles bucketed by bone pair (j < k), compressed rows. Entry e of bucket b occupies
 * `data[6e .. 6e+6)`: (w_tj, w_tk, a_t, a_t·c_tx, a_t·c_ty, a_t·c_tz); bucket b's entries are
 * `[offsets[b], offsets[b+1])`.
 */
export interface PairTable {
  /** Number of joints J (pair key = j·J + k). */
  jointCount: number;
  /** Bucket index of each pair key present. */
  buckets: Map<number, number>;
  /** Entry offsets, length (buckets + 1). */
  offsets: Int32Array;
  /** Entries, 6 numbers each. */
  data: Float64Array;
}

/**
 * Buckets the sub-triangles by the pairs of joints they carry.
 * @param tris output of {@link subdivideByWeights}
 * @param jointCount J; joint indices in `tris` must be < J
 * @param shared allocate the entries in a SharedArrayBuffer (for workers)
 */
export function buildPairTable(tris: SubdividedTriangles, jointCount: number, shared = false): PairTable {
  const { count, stride, joints, weights, areas, centroids } = tris;
  const buckets = new Map<number, number>();
  // Bucket of each pair key: a dense table when J² is small (the usual case), else the map.
  const dense = jointCount * jointCount <= 1 << 20 ? new Int32Array(jointCount * jointCount).fill(-1) : undefined;
  const counts: number[] = [];
  // Pass 1: bucket index of every (sub-triangle, slot pair), in order; pass 2 fills them.
  let pairsTotal = 0;
  for (let t = 0; t < count; t++) {
    let u = 0;
    while (u < stride && joints[stride * t + u] >= 0) u++;
    pairsTotal += (u * (u - 1)) / 2;
  }
  const bucketOf = new Int32Array(pairsTotal);
  let q = 0;
  for (let t = 0; t < count; t++) {
    const o = stride * t;
    for (let a = 0; a < stride && joints[o + a] >= 0; a++) {
      for (let b = a + 1; b < stride && joints[o + b] >= 0; b++) {
        const ja = joints[o + a], jb = joints[o + b]; // prettier-ignore
        const key = ja < jb ? ja * jointCount + jb : jb * jointCount + ja;
        let bucket = dense ? dense[key] : (buckets.get(key) ?? -1);
        if (bucket < 0) {
          bucket = counts.length;
          buckets.set(key, bucket);
          if (dense) dense[key] = bucket;
          counts.push(0);
        }
        counts[bucket]++;
        bucketOf[q++] = bucket;
      }
    }
  }
  const offsets = new Int32Array(counts.length + 1);
  for (let b = 0; b < counts.length; b++) offsets[b + 1] = offsets[b] + counts[b];
  const fill = offsets.slice(0, counts.length);
  const size = 6 * offsets[counts.length];
  const data = shared ? new Float64Array(new SharedArrayBuffer(8 * size)) : new Float64Array(size);
  q = 0;
  for (let t = 0; t < count; t++) {
    const o = stride * t;
    const a = areas[t];
    const cx = centroids[3 * t], cy = centroids[3 * t + 1], cz = centroids[3 * t + 2]; // prettier-ignore
    for (let i = 0; i < stride && joints[o + i] >= 0; i++) {
      for (let k = i + 1; k < stride && joints[o + k] >= 0; k++) {
        const e = 6 * fill[bucketOf[q++]]++;
        const first = joints[o + i] < joints[o + k];
        data[e] = first ? weights[o + i] : weights[o + k];
        data[e + 1] = first ? weights[o + k] : weights[o + i];
        data[e + 2] = a;
        data[e + 3] = a * cx;
        data[e + 4] = a * cy;
        data[e + 5] = a * cz;
      }
    }
  }
  return { jointCount, buckets, offsets, data };
}
