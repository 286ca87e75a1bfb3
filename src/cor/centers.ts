/**
 * Optimized centers of rotation (Le & Hodgins 2016, seed 000, Eq. 1 and Eq. 4; seed 001,
 * Eq. 6–10), evaluated exactly.
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
import type { SkinnedMesh } from '../core/mesh.js';
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
 */
export function buildPairTable(tris: SubdividedTriangles, jointCount: number): PairTable {
  const { count, stride, joints, weights, areas, centroids } = tris;
  const buckets = new Map<number, number>();
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
        let bucket = buckets.get(key);
        if (bucket === undefined) {
          bucket = counts.length;
          buckets.set(key, bucket);
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
  const data = new Float64Array(6 * offsets[counts.length]);
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

/**
 * Evaluates Eq. 4 for vertices `[begin, end)` of `mesh` into `out` (bind space, 3 numbers per
 * vertex, written at the vertex's own index). Pure and deterministic: any split of the vertex
 * range gives the same numbers, so ranges can run on separate workers.
 * @param table pair buckets of the subdivided domain ({@link buildPairTable})
 * @param sigma kernel width σ of Eq. 1 (paper default 0.1), > 0
 * @param out length ≥ 3·end
 * @returns number of vertices in the range that are blended (≥ 2 influences)
 */
export function centersOfRotationRange(
  table: PairTable,
  mesh: SkinnedMesh,
  sigma: number,
  begin: number,
  end: number,
  out: Float32Array | Float64Array,
): number {
  if (!(sigma > 0)) throw new RangeError(`sigma must be > 0, got ${sigma}`);
  const { positions: P, joints: MJ, weights: MW, influences: K } = mesh;
  const { buckets, offsets, data, jointCount: J } = table;
  const inv2 = 1 / (sigma * sigma);
  const vj = new Int32Array(K); // the vertex's distinct joints, ascending
  const vw = new Float64Array(K);
  let blended = 0;
  for (let i = begin; i < end; i++) {
    // Distinct non-zero influences, sorted by joint (insertion sort, K ≤ 8).
    let u = 0;
    for (let k = K * i; k < K * i + K; k++) {
      const w = MW[k];
      if (!(w > 0)) continue;
      const j = MJ[k];
      let m = 0;
      while (m < u && vj[m] < j) m++;
      if (m < u && vj[m] === j) {
        vw[m] += w;
        continue;
      }
      for (let r = u; r > m; r--) {
        vj[r] = vj[r - 1];
        vw[r] = vw[r - 1];
      }
      vj[m] = j;
      vw[m] = w;
      u++;
    }
    let num0 = 0, num1 = 0, num2 = 0, den = 0;
    if (u >= 2) {
      blended++;
      for (let a = 0; a < u; a++) {
        for (let b = a + 1; b < u; b++) {
          const bucket = buckets.get(vj[a] * J + vj[b]);
          if (bucket === undefined) continue;
          const wa = vw[a], wb = vw[b];
          const scale = wa * wb;
          let n0 = 0, n1 = 0, n2 = 0, d = 0;
          for (let e = 6 * offsets[bucket], stop = 6 * offsets[bucket + 1]; e < stop; e += 6) {
            const tj = data[e], tk = data[e + 1];
            const x = wa * tk - wb * tj;
            const s = tj * tk * Math.exp(-x * x * inv2);
            d += s * data[e + 2];
            n0 += s * data[e + 3];
            n1 += s * data[e + 4];
            n2 += s * data[e + 5];
          }
          den += scale * d;
          num0 += scale * n0;
          num1 += scale * n1;
          num2 += scale * n2;
        }
      }
    }
    if (den > 0) {
      out[3 * i] = num0 / den;
      out[3 * i + 1] = num1 / den;
      out[3 * i + 2] = num2 / den;
    } else {
      out[3 * i] = P[3 * i];
      out[3 * i + 1] = P[3 * i + 1];
      out[3 * i + 2] = P[3 * i + 2];
    }
  }
  return blended;
}
