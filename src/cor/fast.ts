/**
 * Fast evaluation of Eq. 4 (Le & Hodgins 2016) by binning each joint pair's term in its own 2-D weight
 * space.
 *
 * Reformulation. For a pair (j, k), write a vertex's weights (a, b) = (w_vj, w_vk) as total
 * `s_v = a + b` and fraction `α = a / s_v`, and a sub-triangle's (x, y) = (w_tj, w_tk) as
 * `s_t`, `ξ`. Then `a·y − b·x = s_v·s_t·(α − ξ)` and the pair's share of the denominator is
 *
 *     D_jk(v) = a·b · G(α, s_v),   G(α, s) = Σ_t m_t · exp(−s²·s_t²·(α − ξ_t)² / σ²),
 *
 * with mass `m_t = A_t·x_t·y_t` (the numerator alike, with `m_t·c_t`). G depends on the vertex
 * only through (α, s_v): a smooth function of two variables, whatever the number of vertices.
 *
 * Approximations, each chosen per pair by an operation count (so sparse game rigs stay exact
 * and dense weights get fast):
 * 1. **exact** — the vertex visits every sub-triangle of the pair (no error);
 * 2. **bins** — sub-triangles are merged into bins over (ξ, s_t), `binsS` rows in s_t and up to
 *    `binsXi` columns in ξ: the kernel's width in ξ is σ/(s_v·s_t), so the row below s_t = s of
 *    a pair whose vertices have s_v ≤ s_max needs only a fraction s·s_max of the columns for
 *    the same resolution (at least 4). Each bin keeps its total mass, mass-weighted centroid
 *    sum and mass-weighted mean (ξ̄, s̄), and the vertex visits the non-empty bins (midpoint
 *    rule: the first-order error cancels);
 * 3. **grid** — G and its centroid sums are tabulated from the bins on a `gridAlpha × gridS`
 *    lattice over (α, s_v) and each vertex reads them by bicubic (Catmull–Rom) interpolation.
 *    Along α the lattice is filled with the Gaussian recurrence
 *    `g(α + h) = g(α)·r, r ← r·exp(−2ch²)` from the peak outwards, two multiplications per node;
 *    the recurrence's three seeds are Gaussians in s_v as well and walk from row to row the
 *    same way, so a bin costs 9 exps in all.
 *
 * The error is measured, not assumed: see the tests (`fast CoR precomputation`) and the bench.
 *
 * @module
 */
import { ACC_PER_BIN, binPair } from './bins.js';
import { BIN, catmullRom, tabulate } from './lattice.js';
import type { SkinnedMesh } from '../core/mesh.js';
import type { PairTable } from './centers.js';
import { checkSigma } from './parameters.js';

/** Resolution of the fast evaluation (defaults measured on the shared assets). */
export interface FastCorResolution {
  /** Bins along ξ (the pair’s weight fraction), at most; default 72. */
  binsXi?: number;
  /** Bins along s (the pair’s weight total); default 18. */
  binsS?: number;
  /** Lattice nodes along α; default 41. */
  gridAlpha?: number;
  /** Lattice nodes along s_v; default 16. */
  gridS?: number;
}

/** How one pair was evaluated. */
export type PairStrategy = 'exact' | 'bins' | 'grid';

/**
 * Per-pair evaluation plan: everything a vertex range needs to evaluate its pairs. Built once
 * ({@link planPairs}, or from streamed sums by `PairSums.plan`), read by any number of ranges; pure data (typed arrays), so it can be
 * shared with workers.
 */
export interface PairPlan {
  /** The sub-triangles bucketed by joint pair; pair p is bucket p. */
  table: PairTable;
  /** Kernel width σ of the similarity. */
  sigma: number;
  /** Per pair: how it is evaluated. */
  strategy: PairStrategy[];
  /**
   * Per pair: bins as 12 numbers each — ξ̄, mean s², mass M, the centroid sums M·c (3)
   * and their first moments Σ m·c·(ξ − ξ̄) (3) and Σ m·c·(s² − mean s²) (3) — or undefined.
   */
  bins: (Float64Array | undefined)[];
  /** Per pair: lattice over the pair's vertices' (α, s_v) range, or undefined. */
  grids: (Lattice | undefined)[];
}

/**
 * G and its centroid sums tabulated at nodes `α = a0 + i·ha` (i < na), `s = s0 + l·hs` (l < ns);
 * 4 numbers per node, α fastest.
 */
export interface Lattice {
  /** First α node. */
  a0: number;
  /** Node spacing along α. */
  ha: number;
  /** Number of nodes along α. */
  na: number;
  /** First s node. */
  s0: number;
  /** Node spacing along s. */
  hs: number;
  /** Number of nodes along s. */
  ns: number;
  /** Per node G, then its 3 centroid sums; length 4·na·ns, α fastest. */
  values: Float64Array;
}

const DEFAULTS: Required<FastCorResolution> = { binsXi: 72, binsS: 18, gridAlpha: 41, gridS: 16 };


/** A plan that evaluates every pair exactly (Eq. 4 to rounding, no binning). */
export function exactPlan(table: PairTable, sigma: number): PairPlan {
  const P = table.offsets.length - 1;
  return { table, sigma, strategy: new Array(P).fill('exact'), bins: new Array(P), grids: new Array(P) };
}

/**
 * Where each pair's vertices lie: count, and the range of their (α, s_v), 5 numbers per pair
 * bucket (count, αmin, αmax, smin, smax), over vertices `[begin, end)` (default all; ranges
 * combine with {@link mergeVertexStats}).
 */
export function pairVertexStats(
  table: Pick<PairTable, 'buckets' | 'jointCount'>,
  mesh: SkinnedMesh,
  begin = 0,
  end = mesh.weights.length / mesh.influences,
): Float64Array {
  const P = table.buckets.size;
  const stats = new Float64Array(5 * P);
  for (let p = 0; p < P; p++) stats.set([0, Infinity, -Infinity, Infinity, -Infinity], 5 * p);
  const { joints, weights, influences: K } = mesh;
  const js = new Int32Array(K);
  const ws = new Float64Array(K);
  for (let i = begin; i < end; i++) {
    const u = gatherInfluences(joints, weights, K, i, js, ws);
    for (let a = 0; a < u; a++) {
      for (let b = a + 1; b < u; b++) {
        const p = table.buckets.get(js[a] * table.jointCount + js[b]);
        if (p === undefined) continue;
        const sv = ws[a] + ws[b];
        const alpha = ws[a] / sv;
        const o = 5 * p;
        stats[o]++;
        if (alpha < stats[o + 1]) stats[o + 1] = alpha;
        if (alpha > stats[o + 2]) stats[o + 2] = alpha;
        if (sv < stats[o + 3]) stats[o + 3] = sv;
        if (sv > stats[o + 4]) stats[o + 4] = sv;
      }
    }
  }
  return stats;
}

/**
 * Vertex i's distinct influences with positive weight, sorted by joint index, weights of a joint
 * listed twice summed in slot order: joints into `vj[0..u)`, weights into `vw[0..u)` (both of
 * length ≥ K, the influences per vertex); returns u.
 */
export function gatherInfluences(
  joints: ArrayLike<number>,
  weights: ArrayLike<number>,
  K: number,
  i: number,
  vj: Int32Array,
  vw: Float64Array,
): number {
  let u = 0;
  for (let k = K * i; k < K * i + K; k++) {
    const w = weights[k];
    if (!(w > 0)) continue;
    const j = joints[k];
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
  return u;
}

/** Combines {@link pairVertexStats} of disjoint vertex ranges (the same as one range). */
export function mergeVertexStats(parts: Float64Array[]): Float64Array {
  const out = parts[0].slice();
  for (const part of parts.slice(1)) {
    for (let o = 0; o < out.length; o += 5) {
      out[o] += part[o];
      out[o + 1] = Math.min(out[o + 1], part[o + 1]);
      out[o + 2] = Math.max(out[o + 2], part[o + 2]);
      out[o + 3] = Math.min(out[o + 3], part[o + 3]);
      out[o + 4] = Math.max(out[o + 4], part[o + 4]);
    }
  }
  return out;
}

/**
 * Plans every pair: chooses exact, bins or grid by operation count and builds the bins and
 * lattices needed.
 * @param stats where each pair's vertices lie ({@link pairVertexStats})
 * @param pairs the pair buckets to plan (default all); the others stay `exact`
 * @param scratch binning workspace to reuse between calls (all zeros, and left so), else allocated
 */
export function planPairs(
  table: PairTable,
  stats: Float64Array,
  sigma: number,
  resolution: FastCorResolution = {},
  pairs?: ArrayLike<number>,
  scratch?: Float64Array,
): PairPlan {
  const r = fastResolution(resolution);
  const P = table.offsets.length - 1;
  const plan = exactPlan(table, sigma);
  const acc = scratch && scratch.length >= r.binsXi * r.binsS * ACC_PER_BIN ? scratch : new Float64Array(r.binsXi * r.binsS * ACC_PER_BIN);
  const list = pairs ?? Array.from({ length: P }, (_, p) => p);
  for (let q = 0; q < list.length; q++) {
    const p = list[q];
    const entries = table.offsets[p + 1] - table.offsets[p];
    planPair(plan, p, entries, stats, r, () => binPair(table, p, r.binsXi, r.binsS, stats[5 * p + 4], acc));
  }
  return plan;
}

/** {@link FastCorResolution} with its defaults filled in. */
export function fastResolution(resolution: FastCorResolution = {}): Required<FastCorResolution> {
  return { ...DEFAULTS, ...resolution };
}

/**
 * Whether a pair with `nv` vertices and `entries` sub-triangle entries may still be planned
 * `exact` by {@link planPair}: when it is small, or when its entries could each fall in a bin
 * of their own (at most `binsXi · binsS` bins). False stays false as entries grow, so a
 * streamed precomputation can drop the entries of a pair as soon as this turns false.
 */
export function mayBeExact(nv: number, entries: number, r: Required<FastCorResolution>): boolean {
  return nv * entries < 2e4 || entries < 64 || entries <= r.binsXi * r.binsS;
}

/**
 * Plans pair p into `plan` (strategy, and its bins or lattice): exact, bins or grid, chosen by
 * operation count.
 * @param entries the pair's sub-triangle entries
 * @param stats where the pairs' vertices lie ({@link pairVertexStats})
 * @param bins the pair's bins (built only when needed)
 */
export function planPair(
  plan: PairPlan,
  p: number,
  entries: number,
  stats: Float64Array,
  r: Required<FastCorResolution>,
  bins: () => Float64Array,
): void {
  plan.strategy[p] = 'exact';
  const nv = stats[5 * p];
  const exactCost = nv * entries;
  // Bins are only worth building when there are more entries than bins would hold.
  if (nv === 0 || exactCost < 2e4 || entries < 64) return;
  const ha = 1 / (r.gridAlpha - 1);
  const hs = 1 / (r.gridS - 1);
  // Lattice covering the pair's vertices with one node of margin for the bicubic stencil,
  // also past α = 0, α = 1 and s = 1 (G is smooth there too): a stencil clamped at the edge
  // loses accuracy exactly where weights are extreme.
  const a0 = (Math.floor(stats[5 * p + 1] / ha) - 1) * ha;
  const a1 = (Math.ceil(stats[5 * p + 2] / ha) + 1) * ha;
  const s0 = Math.max(0, (Math.floor(stats[5 * p + 3] / hs) - 1) * hs);
  const s1 = (Math.ceil(stats[5 * p + 4] / hs) + 1) * hs;
  const na = Math.round((a1 - a0) / ha) + 1;
  const ns = Math.round((s1 - s0) / hs) + 1;
  const B = bins();
  const nb = B.length / BIN;
  const binCost = nv * nb;
  // Unit: one exp-weighted accumulation (an exp is ~35 ns here); a lattice node costs ~0.2
  // of that (the Gaussian recurrence) plus 9 exps per bin; a bicubic read ~2.
  const gridCost = nb * 9 + na * ns * nb * 0.2 + nv * 2;
  if (exactCost <= Math.min(binCost, gridCost)) return;
  if (binCost <= gridCost) {
    plan.strategy[p] = 'bins';
    plan.bins[p] = B;
  } else {
    plan.strategy[p] = 'grid';
    plan.grids[p] = tabulate(B, plan.sigma, { a0, ha, na, s0, hs, ns, values: new Float64Array(4 * na * ns) });
  }
}

/**
 * Evaluates the centers of rotation (Eq. 4) of vertices `[begin, end)` with a {@link PairPlan}
 * into `out` (bind space, 3 per vertex at the vertex's own index minus `outBase`). Pure and deterministic per
 * vertex: the same numbers whatever the split into ranges, so ranges can run on workers. A
 * vertex with fewer than two influences (or, in a degenerate mesh, no similar sub-triangle)
 * keeps its bind position: it moves rigidly, so its center of rotation does not matter.
 * @param out length ≥ 3·(largest vertex index − outBase + 1)
 * @param vertices when given, the vertices `vertices[begin..end)` are evaluated instead
 * @param outBase the vertex whose center goes to `out[0..3)` (default 0)
 * @returns number of blended vertices (≥ 2 influences) in the range
 * @throws RangeError when σ ≤ 0
 */
export function centersOfRotationPlanned(
  plan: PairPlan,
  mesh: SkinnedMesh,
  begin: number,
  end: number,
  out: Float32Array | Float64Array,
  vertices?: ArrayLike<number>,
  outBase = 0,
): number {
  const { table, sigma, strategy, bins, grids } = plan;
  checkSigma(sigma);
  const { buckets, offsets, data, jointCount: J } = table;
  const { positions: P, joints: MJ, weights: MW, influences: K } = mesh;
  const inv2 = 1 / (sigma * sigma);
  const vj = new Int32Array(K);
  const vw = new Float64Array(K);
  const wa = new Float64Array(4);
  const ws = new Float64Array(4);
  const acc = new Float64Array(4);
  let blended = 0;
  for (let q = begin; q < end; q++) {
    const i = vertices ? vertices[q] : q;
    const u = gatherInfluences(MJ, MW, K, i, vj, vw);
    let den = 0, n0 = 0, n1 = 0, n2 = 0; // prettier-ignore
    if (u >= 2) blended++;
    for (let a = 0; a < u; a++) {
      for (let b = a + 1; b < u; b++) {
        const p = buckets.get(vj[a] * J + vj[b]);
        if (p === undefined) continue;
        const wj = vw[a], wk = vw[b]; // prettier-ignore
        const scale = wj * wk;
        acc.fill(0);
        const st = strategy[p];
        if (st === 'exact') {
          for (let e = 6 * offsets[p], stop = 6 * offsets[p + 1]; e < stop; e += 6) {
            const tj = data[e], tk = data[e + 1]; // prettier-ignore
            const x = wj * tk - wk * tj;
            const s = tj * tk * Math.exp(-x * x * inv2);
            acc[0] += s * data[e + 2];
            acc[1] += s * data[e + 3];
            acc[2] += s * data[e + 4];
            acc[3] += s * data[e + 5];
          }
        } else {
          const sv = wj + wk;
          const alpha = wj / sv;
          if (st === 'bins') {
            const B = bins[p]!;
            const c = sv * sv * inv2;
            for (let o = 0; o < B.length; o += BIN) {
              const d = alpha - B[o];
              const g = Math.exp(-c * B[o + 1] * d * d);
              // First-order corrections of the centroid sums (see tabulate).
              const u = 2 * c * B[o + 1] * d, v = -c * d * d; // prettier-ignore
              acc[0] += g * B[o + 2];
              acc[1] += g * (B[o + 3] + u * B[o + 6] + v * B[o + 9]);
              acc[2] += g * (B[o + 4] + u * B[o + 7] + v * B[o + 10]);
              acc[3] += g * (B[o + 5] + u * B[o + 8] + v * B[o + 11]);
            }
          } else {
            const L = grids[p]!;
            const G = L.values;
            const fa = (alpha - L.a0) / L.ha;
            const fs = (sv - L.s0) / L.hs;
            const ia = Math.max(0, Math.min(L.na - 2, Math.floor(fa)));
            const is = Math.max(0, Math.min(L.ns - 2, Math.floor(fs)));
            catmullRom(fa - ia, wa);
            catmullRom(fs - is, ws);
            for (let y = 0; y < 4; y++) {
              // Clamp the stencil at the lattice border (repeat the edge node).
              const row = Math.min(L.ns - 1, Math.max(0, is - 1 + y));
              for (let x = 0; x < 4; x++) {
                const col = Math.min(L.na - 1, Math.max(0, ia - 1 + x));
                const w = ws[y] * wa[x];
                const o = 4 * (row * L.na + col);
                acc[0] += w * G[o];
                acc[1] += w * G[o + 1];
                acc[2] += w * G[o + 2];
                acc[3] += w * G[o + 3];
              }
            }
          }
        }
        den += scale * acc[0];
        n0 += scale * acc[1];
        n1 += scale * acc[2];
        n2 += scale * acc[3];
      }
    }
    const o = 3 * (i - outBase);
    if (u >= 2 && den > 0) {
      out[o] = n0 / den;
      out[o + 1] = n1 / den;
      out[o + 2] = n2 / den;
    } else {
      out[o] = P[3 * i];
      out[o + 1] = P[3 * i + 1];
      out[o + 2] = P[3 * i + 2];
    }
  }
  return blended;
}
