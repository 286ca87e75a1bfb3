/**
 * Weight-space subdivision of the integration domain (Le & Hodgins 2016, Sec. 3.2; Bittner et al. 2019, Sec. 4.2):
 * every edge whose endpoints' weight vectors are farther apart than ε (Euclidean norm in ℝᴶ) is
 * bisected, recursively, the new vertex taking the interpolated weights, until no edge is longer
 * than ε in weight space. The output is what Eq. 4 integrates over: per sub-triangle its area,
 * centroid and mean weights.
 *
 * Each input triangle is refined on its own, in barycentric coordinates: an edge is split
 * exactly when its two endpoints are farther than ε apart, which depends only on the edge, so
 * neighbouring triangles split shared edges alike and the refined mesh is conforming (the
 * global "bisect every long edge, repeat" scheme gives the same triangles). A triangle with one
 * long edge splits in two, with three in four (midpoint triangles), with two in three: the
 * corner triangle at the shared vertex plus the remaining quad cut along its diagonal that is
 * shorter in weight space (ties: the diagonal from the first corner). Zero-area triangles add
 * nothing to Eq. 4 and are dropped.
 *
 * @module
 */
import type { SkinnedMesh } from '../core/mesh.js';

/**
 * The refined integration domain, t sub-triangles, structure of arrays.
 * Weights are sparse: `stride` slots per sub-triangle, unused slots have joint −1 and weight 0.
 */
export interface SubdividedTriangles {
  /** Number of sub-triangles t. */
  count: number;
  /** Slots per sub-triangle in `joints` / `weights` (3·K). */
  stride: number;
  /** Areas, length t, asset units². */
  areas: Float64Array;
  /** Centroids (x, y, z), length 3·t, bind space. */
  centroids: Float64Array;
  /** Joint of each weight slot, length stride·t (−1 = unused). */
  joints: Int32Array;
  /** Mean weight (over the sub-triangle's three corners) of each slot, length stride·t. */
  weights: Float64Array;
  /**
   * First sub-triangle of each input triangle of the range, and one past the last (length
   * end − first + 1): input triangle `first + i` made sub-triangles `[starts[i], starts[i + 1])`.
   */
  starts?: Int32Array;
}

/** Recursion guard: 2⁻⁴⁰ of an edge is far below float precision. */
const MAX_DEPTH = 40;

/**
 * Subdivides `mesh.triangles` until every edge's weight distance is ≤ `epsilon`.
 * @param mesh bind-space positions, triangles and influences (weights summing to 1)
 * @param epsilon weight-space edge length bound ε (paper default 0.1), > 0
 * @param first first input triangle to refine (default 0), for splitting the work
 * @param end one past the last input triangle (default all)
 * @throws RangeError when epsilon is not positive
 */
export function subdivideByWeights(
  mesh: SkinnedMesh,
  epsilon: number,
  first = 0,
  end = mesh.triangles.length / 3,
): SubdividedTriangles {
  if (!(epsilon > 0)) throw new RangeError(`epsilon must be > 0, got ${epsilon}`);
  const { positions: P, triangles: T, joints: MJ, weights: MW, influences: K } = mesh;
  const stride = 3 * K;
  const eps2 = epsilon * epsilon;
  let cap = Math.max(16, end - first);
  let count = 0;
  let areas = new Float64Array(cap);
  let centroids = new Float64Array(3 * cap);
  let joints = new Int32Array(stride * cap).fill(-1);
  let weights = new Float64Array(stride * cap);
  const grow = () => {
    cap *= 2;
    const a = new Float64Array(cap), c = new Float64Array(3 * cap);
    const j = new Int32Array(stride * cap).fill(-1), w = new Float64Array(stride * cap);
    a.set(areas); c.set(centroids); j.set(joints); w.set(weights);
    areas = a; centroids = c; joints = j; weights = w;
  };

  // Per input triangle: the union U of its corners' joints and their weights in U (3 × u).
  const U = new Int32Array(stride);
  const W = new Float64Array(3 * stride);
  // Stack of sub-triangles: 9 barycentrics (3 corners × 3) + depth.
  let stack = new Float64Array(10 * 64);
  const X = new Float64Array(9); // corner positions of the input triangle

  // Squared weight distance between two barycentric points b1 = s[o1..o1+3), b2 = s[o2..].
  const dist2 = (u: number, s: Float64Array, o1: number, o2: number): number => {
    const d0 = s[o1] - s[o2], d1 = s[o1 + 1] - s[o2 + 1], d2 = s[o1 + 2] - s[o2 + 2];
    let sum = 0;
    for (let m = 0; m < u; m++) {
      const d = d0 * W[m] + d1 * W[stride + m] + d2 * W[2 * stride + m];
      sum += d * d;
    }
    return sum;
  };

  // Scratch: [0, 18) rotated corners and midpoints, [45, 54) corner positions in emit().
  const tmp = new Float64Array(54);
  let top = 0;
  let depthOfPushed = 0;
  // Pushes the sub-triangle with corners tmp[p..p+3), tmp[q..), tmp[r..).
  const push = (p: number, q: number, r: number) => {
    const s = 10 * top++;
    for (let i = 0; i < 3; i++) {
      stack[s + i] = tmp[p + i];
      stack[s + 3 + i] = tmp[q + i];
      stack[s + 6 + i] = tmp[r + i];
    }
    stack[s + 9] = depthOfPushed;
  };
  const starts = new Int32Array(end - first + 1);
  for (let t = 3 * first; t < 3 * end; t += 3) {
    starts[t / 3 - first] = count;
    // Gather U and W.
    let u = 0;
    W.fill(0);
    for (let c = 0; c < 3; c++) {
      const v = T[t + c];
      X[3 * c] = P[3 * v];
      X[3 * c + 1] = P[3 * v + 1];
      X[3 * c + 2] = P[3 * v + 2];
      for (let k = K * v; k < K * v + K; k++) {
        const w = MW[k];
        if (!(w > 0)) continue;
        const j = MJ[k];
        let m = 0;
        while (m < u && U[m] !== j) m++;
        if (m === u) U[u++] = j;
        W[c * stride + m] += w;
      }
    }
    // Whole-triangle area: skip degenerate triangles (they contribute nothing).
    if (triangleArea(X, 0, 3, 6) === 0) continue;

    stack.fill(0, 0, 10);
    stack[0] = stack[4] = stack[8] = 1;
    top = 1;
    while (top > 0) {
      top--;
      const o = 10 * top;
      const depth = stack[o + 9];
      const dab = dist2(u, stack, o, o + 3);
      const dbc = dist2(u, stack, o + 3, o + 6);
      const dca = dist2(u, stack, o + 6, o);
      const mab = dab > eps2, mbc = dbc > eps2, mca = dca > eps2;
      const marks = +mab + +mbc + +mca;
      if (marks === 0 || depth >= MAX_DEPTH) {
        if (count === cap) grow();
        emit(stack, o, u, count++);
        continue;
      }
      // Rotate corners into tmp[0..9) so that the pattern is canonical:
      //  1 mark: the marked edge is (a, b); 2 marks: the unmarked edge is (c, a).
      let rot = 0;
      if (marks === 1) rot = mab ? 0 : mbc ? 1 : 2;
      else if (marks === 2) rot = !mca ? 0 : !mab ? 1 : 2;
      for (let c = 0; c < 3; c++) {
        const src = o + 3 * ((c + rot) % 3);
        tmp[3 * c] = stack[src];
        tmp[3 * c + 1] = stack[src + 1];
        tmp[3 * c + 2] = stack[src + 2];
      }
      // Midpoints: tmp[9..12) = m_ab, tmp[12..15) = m_bc, tmp[15..18) = m_ca.
      for (let c = 0; c < 3; c++) {
        const p = 3 * c, q = 3 * ((c + 1) % 3);
        tmp[9 + p] = 0.5 * (tmp[p] + tmp[q]);
        tmp[10 + p] = 0.5 * (tmp[p + 1] + tmp[q + 1]);
        tmp[11 + p] = 0.5 * (tmp[p + 2] + tmp[q + 2]);
      }
      const A = 0, B = 3, C = 6, MAB = 9, MBC = 12, MCA = 15;
      depthOfPushed = depth + 1;
      const need = top + 4;
      if (10 * need > stack.length) {
        const s = new Float64Array(2 * 10 * need);
        s.set(stack);
        stack = s;
      }
      if (marks === 1) {
        push(A, MAB, C);
        push(MAB, B, C);
      } else if (marks === 3) {
        push(A, MAB, MCA);
        push(MAB, B, MBC);
        push(MCA, MBC, C);
        push(MAB, MBC, MCA);
      } else {
        push(MAB, B, MBC);
        // Quad (a, m_ab, m_bc, c): cut along the shorter diagonal in weight space.
        const dA = dist2(u, tmp, A, MBC);
        const dM = dist2(u, tmp, MAB, C);
        if (dA <= dM) {
          push(A, MAB, MBC);
          push(A, MBC, C);
        } else {
          push(A, MAB, C);
          push(MAB, MBC, C);
        }
      }
    }
  }

  function emit(s: Float64Array, o: number, u: number, idx: number): void {
    // Corner positions from barycentrics.
    const q = tmp; // reuse the tail of tmp for 9 position numbers
    const base = 45;
    for (let c = 0; c < 3; c++) {
      const b0 = s[o + 3 * c], b1 = s[o + 3 * c + 1], b2 = s[o + 3 * c + 2];
      for (let x = 0; x < 3; x++) q[base + 3 * c + x] = b0 * X[x] + b1 * X[3 + x] + b2 * X[6 + x];
    }
    areas[idx] = triangleArea(q, base, base + 3, base + 6);
    for (let x = 0; x < 3; x++) centroids[3 * idx + x] = (q[base + x] + q[base + 3 + x] + q[base + 6 + x]) / 3;
    // Mean weights = weights at the mean barycentric coordinates.
    const m0 = (s[o] + s[o + 3] + s[o + 6]) / 3;
    const m1 = (s[o + 1] + s[o + 4] + s[o + 7]) / 3;
    const m2 = (s[o + 2] + s[o + 5] + s[o + 8]) / 3;
    let slot = stride * idx;
    for (let m = 0; m < u; m++) {
      const w = m0 * W[m] + m1 * W[stride + m] + m2 * W[2 * stride + m];
      if (w > 0) {
        joints[slot] = U[m];
        weights[slot++] = w;
      }
    }
  }

  starts[end - first] = count;
  return {
    count,
    stride,
    starts,
    areas: areas.subarray(0, count),
    centroids: centroids.subarray(0, 3 * count),
    joints: joints.subarray(0, stride * count),
    weights: weights.subarray(0, stride * count),
  };
}

function triangleArea(p: Float64Array, a: number, b: number, c: number): number {
  const ux = p[b] - p[a], uy = p[b + 1] - p[a + 1], uz = p[b + 2] - p[a + 2];
  const vx = p[c] - p[a], vy = p[c + 1] - p[a + 1], vz = p[c + 2] - p[a + 2];
  const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx; // prettier-ignore
  return 0.5 * Math.sqrt(nx * nx + ny * ny + nz * nz);
}

/**
 * An upper estimate of the number of sub-triangles {@link subdivideByWeights} makes, without
 * making them: a triangle whose longest edge in weight space is d is bisected about
 * log₂(d/ε) times along every edge, into at most 4^⌈log₂(d/ε)⌉ pieces. Cheap (one pass over
 * the triangles), so a tiny ε can be refused before it fills the memory.
 */
export function estimateSubdividedTriangles(mesh: SkinnedMesh, epsilon: number): number {
  const { joints: MJ, weights: MW, influences: K, triangles: T } = mesh;
  // Squared weight-space distance of two vertices (sparse influences, repeated joints summed).
  const dist2 = (a: number, b: number) => {
    let d = 0;
    const seen: number[] = [];
    for (const [v, o] of [
      [a, b],
      [b, a],
    ]) {
      for (let k = K * v; k < K * v + K; k++) {
        const j = MJ[k];
        if (MW[k] === 0 || seen.includes(j)) continue;
        seen.push(j);
        let wv = 0;
        let wo = 0;
        for (let q = K * v; q < K * v + K; q++) if (MJ[q] === j) wv += MW[q];
        for (let q = K * o; q < K * o + K; q++) if (MJ[q] === j) wo += MW[q];
        d += (wv - wo) * (wv - wo);
      }
    }
    return d;
  };
  let total = 0;
  for (let t = 0; t < T.length; t += 3) {
    const d = Math.sqrt(Math.max(dist2(T[t], T[t + 1]), dist2(T[t + 1], T[t + 2]), dist2(T[t + 2], T[t])));
    total += d > epsilon ? 4 ** Math.ceil(Math.log2(d / epsilon)) : 1;
  }
  return total;
}
