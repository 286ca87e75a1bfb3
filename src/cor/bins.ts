/**
 * The bins of the fast CoR evaluation (`fast.ts`; Le & Hodgins 2016, Eq. 4): a joint pair's
 * sub-triangle entries merged into (ξ, s) bins, each keeping its mass, its centroid sums and
 * their first moments in ξ and s². Used on a whole pair table (`binPair`) and entry by entry
 * while the subdivision streams (`stream.ts`).
 *
 * @module
 */
import type { PairTable } from './centers.js';
import { BIN } from './lattice.js';

/** Accumulator numbers per bin while binning ({@link accumulateBin}). */
export const ACC_PER_BIN = 13;
const ACC = ACC_PER_BIN;

/**
 * Merges pair p's sub-triangles into (ξ, s) bins; returns the non-empty ones, `BIN` (12)
 * numbers each ({@link binIndex}, {@link accumulateBin}, {@link finishBins}).
 * @param svMax the largest s_v of the pair's vertices
 * @param acc workspace of `BX · BS · ACC_PER_BIN` zeros, left so
 */
export function binPair(table: PairTable, p: number, BX: number, BS: number, svMax: number, acc: Float64Array): Float64Array {
  const { data, offsets } = table;
  const touched: number[] = [];
  for (let e = 6 * offsets[p]; e < 6 * offsets[p + 1]; e += 6) {
    const o = ACC * binIndex(data[e], data[e + 1], BX, BS, svMax);
    if (acc[o + 12] === 0) touched.push(o);
    accumulateBin(acc, o, data, e);
  }
  touched.sort((a, b) => a - b); // bin order fixed by position, not by first visit
  const bins = finishBins(acc, touched);
  for (const o of touched) acc.fill(0, o, o + ACC);
  return bins;
}


/**
 * The bin (row · BX + column) of a sub-triangle with pair weights (x, y): row by s = x + y over
 * BS rows, column by ξ = x / s. Row sb holds s < (sb + 1)/BS, where the kernel is at least
 * BS/((sb + 1)·svMax) times wider in ξ than at s = s_v = 1: it needs that many times fewer ξ
 * columns (at least 4, at most BX).
 * @param svMax the largest s_v of the pair's vertices
 */
export function binIndex(x: number, y: number, BX: number, BS: number, svMax: number): number {
  const s = x + y;
  const sb = Math.min(BS - 1, Math.floor(s * BS));
  const bx = Math.min(BX, Math.max(4, Math.ceil((BX * (sb + 1) * svMax) / BS)));
  return sb * BX + Math.min(bx - 1, Math.floor((x / s) * bx));
}

/**
 * Adds one sub-triangle entry (`data[e..e+6)`: w_tj, w_tk, a_t, a_t·c_t as in {@link PairTable})
 * to the bin accumulator at `acc[o..o+13)`: M, M·ξ, M·s², M·c (3), M·c·ξ (3), M·c·s² (3), count,
 * with mass M = a_t·w_tj·w_tk. Besides each bin's mass and centroid sums it keeps their first
 * moments in ξ and s²: a sub-triangle's position correlates with its weights, so without them
 * the midpoint rule errs to first order in the bin size.
 */
export function accumulateBin(acc: Float64Array, o: number, data: Float64Array, e: number): void {
  const x = data[e], y = data[e + 1]; // prettier-ignore
  const s = x + y;
  const xi = x / s;
  const s2 = s * s;
  const m = x * y; // data[e+2..] already carry the area
  const ma = m * data[e + 2];
  const cx = m * data[e + 3], cy = m * data[e + 4], cz = m * data[e + 5]; // prettier-ignore
  acc[o] += ma;
  acc[o + 1] += ma * xi;
  acc[o + 2] += ma * s2;
  acc[o + 3] += cx;
  acc[o + 4] += cy;
  acc[o + 5] += cz;
  acc[o + 6] += cx * xi;
  acc[o + 7] += cy * xi;
  acc[o + 8] += cz * xi;
  acc[o + 9] += cx * s2;
  acc[o + 10] += cy * s2;
  acc[o + 11] += cz * s2;
  acc[o + 12] += 1;
}

/**
 * The bins of the accumulators at offsets `slots` of `acc` (in that order, those with positive
 * mass), `BIN` numbers each: ξ̄, mean s², M, M·c (3) and the moments centred on (ξ̄, s̄²).
 */
export function finishBins(acc: Float64Array, slots: ArrayLike<number>): Float64Array {
  const bins = new Float64Array(BIN * slots.length);
  let b = 0;
  for (let k = 0; k < slots.length; k++) {
    const o = slots[k];
    const M = acc[o];
    if (!(M > 0)) continue;
    const xi = acc[o + 1] / M;
    const s2 = acc[o + 2] / M;
    const q = BIN * b++;
    bins[q] = xi;
    bins[q + 1] = s2;
    bins[q + 2] = M;
    for (let d = 0; d < 3; d++) {
      bins[q + 3 + d] = acc[o + 3 + d];
      bins[q + 6 + d] = acc[o + 6 + d] - xi * acc[o + 3 + d];
      bins[q + 9 + d] = acc[o + 9 + d] - s2 * acc[o + 3 + d];
    }
  }
  return bins.subarray(0, BIN * b);
}
