/**
 * Optimized centers of rotation (Le & Hodgins 2016, Eq. 1 and Eq. 4; Bittner et al. 2019,
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
 * Buckets the sub-triangles by the pairs of joints they carry ({@link countPairs}, then
 * {@link fillPairs}). Buckets are numbered in order of first appearance and each bucket's
 * entries follow the sub-triangle order, so tables built from consecutive parts of the
 * sub-triangles (on workers) are identical to this one.
 * @param tris output of {@link subdivideByWeights}
 * @param jointCount J; joint indices in `tris` must be < J
 */
export function buildPairTable(tris: SubdividedTriangles, jointCount: number): PairTable {
  const { keys, counts } = countPairs(tris, jointCount);
  const buckets = new Map<number, number>();
  keys.forEach((key, b) => buckets.set(key, b));
  const offsets = new Int32Array(keys.length + 1);
  for (let b = 0; b < keys.length; b++) offsets[b + 1] = offsets[b] + counts[b];
  const data = new Float64Array(6 * offsets[keys.length]);
  fillPairs(tris, jointCount, buckets, offsets.slice(0, keys.length), data);
  return { jointCount, buckets, offsets, data };
}

/**
 * The joint pairs (key j·J + k, j < k) present in `tris`, in order of first appearance, and how
 * many entries each gets: one per sub-triangle carrying both joints (the pair's term of Eq. 4 is
 * zero for the others). First pass of {@link buildPairTable}.
 * @returns keys and counts, same length (the number of pairs)
 */
export function countPairs(
  tris: SubdividedTriangles,
  jointCount: number,
): {
  /** Pair keys j·J + k (j < k), in order of first appearance. */
  keys: number[];
  /** Per pair, its number of entries (sub-triangles carrying both joints). */
  counts: number[];
} {
  const { count, stride, joints } = tris;
  const lookup = pairLookup(jointCount);
  const keys: number[] = [];
  const counts: number[] = [];
  for (let t = 0; t < count; t++) {
    const o = stride * t;
    for (let a = 0; a < stride && joints[o + a] >= 0; a++) {
      for (let b = a + 1; b < stride && joints[o + b] >= 0; b++) {
        const key = pairKey(joints[o + a], joints[o + b], jointCount);
        let bucket = lookup.get(key);
        if (bucket < 0) {
          bucket = keys.length;
          lookup.set(key, bucket);
          keys.push(key);
          counts.push(0);
        }
        counts[bucket]++;
      }
    }
  }
  return { keys, counts };
}

/**
 * Writes the entries of `tris` into `data` (second pass of {@link buildPairTable}): an entry of
 * pair bucket b goes to entry index `cursor[b]`, which then advances. An entry is 6 numbers:
 * the sub-triangle's mean weights (w_tj, w_tk) of the pair's joints j < k, its area a_t and a_t
 * times its bind-space centroid (asset units).
 * @param buckets bucket of every pair key in `tris`
 * @param cursor per bucket, the next entry index to write (advanced in place)
 * @param data entries, length ≥ 6 · (largest index written + 1)
 * @param origins when given, `origins[e]` receives the sub-triangle of entry e (same indexing)
 */
export function fillPairs(
  tris: SubdividedTriangles,
  jointCount: number,
  buckets: Map<number, number>,
  cursor: Int32Array,
  data: Float64Array,
  origins?: Int32Array,
): void {
  const { count, stride, joints } = tris;
  const lookup = pairLookup(jointCount);
  for (const [key, b] of buckets) lookup.set(key, b);
  for (let t = 0; t < count; t++) {
    const o = stride * t;
    for (let i = o; i < o + stride && joints[i] >= 0; i++) {
      for (let k = i + 1; k < o + stride && joints[k] >= 0; k++) {
        const entry = cursor[lookup.get(pairKey(joints[i], joints[k], jointCount))]++;
        if (origins) origins[entry] = t;
        writeEntry(tris, t, i, k, data, 6 * entry);
      }
    }
  }
}

/**
 * Writes the entry of sub-triangle t for its weight slots i and k (indices into
 * `tris.joints`/`tris.weights`) at `out[e..e+6)`: the weights of the pair's smaller joint and of
 * the larger, the area a_t and a_t times the centroid.
 */
export function writeEntry(tris: SubdividedTriangles, t: number, i: number, k: number, out: Float64Array, e: number): void {
  const { joints, weights, areas, centroids } = tris;
  const a = areas[t];
  const ordered = joints[i] < joints[k];
  out[e] = ordered ? weights[i] : weights[k];
  out[e + 1] = ordered ? weights[k] : weights[i];
  out[e + 2] = a;
  out[e + 3] = a * centroids[3 * t];
  out[e + 4] = a * centroids[3 * t + 1];
  out[e + 5] = a * centroids[3 * t + 2];
}

function pairKey(a: number, b: number, jointCount: number): number {
  return a < b ? a * jointCount + b : b * jointCount + a;
}

/** Bucket of a pair key (−1 when absent): a dense table when J² is small (the usual case). */
function pairLookup(jointCount: number): { get(key: number): number; set(key: number, b: number): void } {
  if (jointCount * jointCount <= 1 << 20) {
    const dense = new Int32Array(jointCount * jointCount).fill(-1);
    return { get: (key) => dense[key], set: (key, b) => void (dense[key] = b) };
  }
  const map = new Map<number, number>();
  return { get: (key) => map.get(key) ?? -1, set: (key, b) => void map.set(key, b) };
}
