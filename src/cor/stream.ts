/**
 * The CoR precomputation streamed over chunks of input triangles (Le & Hodgins 2016, Sec. 3.2
 * and Eq. 4): each chunk is subdivided in weight space ({@link subdivideByWeights}), its
 * sub-triangles are binned per joint pair at once and then dropped, so memory does not grow
 * with the subdivided domain. Only the entries of pairs that may be evaluated exactly are kept
 * (per pair at most its bin count, 1,296 by default, or 2·10⁴ / its vertices); the fast plan
 * needs nothing else. With the `exact`
 * algorithm every entry is kept (the table of `buildPairTable`) and nothing is binned.
 *
 * The chunks are fixed by the mesh ({@link chunkRanges}), and their partial bin
 * sums are added in chunk order, so the result is the same, bit for bit, whether the chunks
 * run in this thread or on workers in any order.
 *
 * @module
 */
import type { SkinnedMesh } from '../core/mesh.js';
import { ACC_PER_BIN as ACC, accumulateBin, binIndex, finishBins } from './bins.js';
import { writeEntry } from './centers.js';
import {
  exactPlan,
  gatherInfluences,
  mayBeExact,
  pairVertexStats,
  planPair,
  type FastCorResolution,
  type PairPlan,
} from './fast.js';
import { subdivideByWeights } from './subdivide.js';

/**
 * Input triangles per chunk, at most: chunks are sized from the triangle count alone (about 32
 * per mesh, 8,192 to 32,768 triangles each), so the sums do not depend on the thread count.
 */
export const CHUNK_TRIANGLES = 32768;

/** Input triangles subdivided at a time within a chunk (bounds the sub-triangles held). */
export const SUBDIVISION_BATCH = 1024;

/**
 * The joint pairs (j < k) that vertices carry, numbered in vertex order, and where each pair's
 * vertices lie in its weight space. Only these pairs enter Eq. 4 (a pair no vertex carries
 * contributes to no vertex).
 */
export interface VertexPairs {
  /** Number of joints J (pair key = j·J + k). */
  jointCount: number;
  /** Pair key of each pair, in pair order. */
  keys: Int32Array;
  /** 5 numbers per pair: vertex count, α range, s_v range (as `pairVertexStats`). */
  stats: Float64Array;
}

/** What {@link binChunk} makes of one chunk, in transferable typed arrays. */
export interface ChunkPart {
  /** Sub-triangles the chunk made. */
  subTriangles: number;
  /** Entries of each pair in the chunk, length P. */
  counts: Int32Array;
  /** Pairs with bins, ascending, and where each one's bins start in `binIds` (length + 1). */
  binPairs: Int32Array;
  binStarts: Int32Array;
  /** Bin index (see `binIndex`) of each bin, ascending within a pair. */
  binIds: Int32Array;
  /** The bins' accumulators, `ACC_PER_BIN` numbers each. */
  binSums: Float64Array;
  /** Where each pair's kept entries start in `entries` (length P + 1). */
  entryStarts: Int32Array;
  /** Kept entries, 6 numbers each (as `PairTable`), in sub-triangle order. */
  entries: Float64Array;
}

/** The joint pairs of the vertices of `mesh` (see {@link VertexPairs}). */
export function vertexPairs(mesh: SkinnedMesh, jointCount: number): VertexPairs {
  const { joints, weights, influences: K } = mesh;
  const n = weights.length / K;
  const buckets = new Map<number, number>();
  const vj = new Int32Array(K);
  const vw = new Float64Array(K);
  for (let i = 0; i < n; i++) {
    const u = gatherInfluences(joints, weights, K, i, vj, vw);
    for (let a = 0; a < u; a++) {
      for (let b = a + 1; b < u; b++) {
        const key = vj[a] * jointCount + vj[b];
        if (!buckets.has(key)) buckets.set(key, buckets.size);
      }
    }
  }
  return { jointCount, keys: Int32Array.from(buckets.keys()), stats: pairVertexStats({ buckets, jointCount }, mesh) };
}

/**
 * Subdivides input triangles `[first, end)` ({@link SUBDIVISION_BATCH} at a time) and bins
 * their entries per vertex pair (the chunk's partial sums, see the module comment); keeps the
 * entries of every pair that may still be evaluated exactly, or of every pair when `keepAll`,
 * which bins nothing.
 * @param mesh bind-space mesh (positions, triangles, influences)
 * @param epsilon weight-space edge length bound ε of the subdivision
 */
export function binChunk(
  mesh: SkinnedMesh,
  pairs: VertexPairs,
  epsilon: number,
  resolution: Required<FastCorResolution>,
  keepAll: boolean,
  first: number,
  end: number,
): ChunkPart {
  const sums = new PairSums(pairs, resolution, keepAll);
  const pairOf = pairLookup(pairs.keys, pairs.jointCount);
  const entry = new Float64Array(6);
  for (let batch = first; batch < end; batch += SUBDIVISION_BATCH) {
    const tris = subdivideByWeights(mesh, epsilon, batch, Math.min(end, batch + SUBDIVISION_BATCH));
    const { count, stride, joints } = tris;
    sums.subTriangles += count;
    for (let t = 0; t < count; t++) {
      for (let i = stride * t, stop = i + stride; i < stop && joints[i] >= 0; i++) {
        for (let k = i + 1; k < stop && joints[k] >= 0; k++) {
          const p = pairOf(joints[i], joints[k]);
          if (p < 0) continue;
          writeEntry(tris, t, i, k, entry, 0);
          sums.addEntry(p, entry);
        }
      }
    }
  }
  return sums.part();
}

/**
 * Per-pair sums of sub-triangle entries: entry counts, and per pair either its entries, while
 * it may still be planned exact (`mayBeExact`), or its bin accumulators (a bin's accumulator is a
 * slot of one growing array, found through its pair's slot map), into which its entries are
 * binned in order once it cannot be exact. Filled entry by entry ({@link binChunk}) or from
 * {@link ChunkPart}s given in chunk order ({@link PairSums.add}: the same totals whatever thread
 * made each part), then planned ({@link PairSums.plan}).
 */
export class PairSums {
  /** Sub-triangles so far. */
  subTriangles = 0;
  private readonly counts: Int32Array;
  /** Kept entries per pair (undefined once the pair's entries are binned). */
  private readonly kept: (Float64Array | undefined)[];
  private readonly keptLength: Int32Array;
  private readonly slotMaps: (Int32Array | undefined)[];
  private readonly touched: number[][];
  private sums = new Float64Array(ACC * 1024);
  private slots = 0;

  /**
   * @param pairs the vertex pairs
   * @param keepAll keep every entry and bin nothing (the exact algorithm)
   */
  constructor(
    readonly pairs: VertexPairs,
    readonly resolution: Required<FastCorResolution>,
    readonly keepAll: boolean,
  ) {
    const P = pairs.keys.length;
    this.counts = new Int32Array(P);
    this.kept = Array.from({ length: P }, () => new Float64Array(0));
    this.keptLength = new Int32Array(P);
    this.slotMaps = new Array(P);
    this.touched = Array.from({ length: P }, () => []);
  }

  /** Adds one entry (6 numbers, as `PairTable`) of pair p. */
  addEntry(p: number, entry: Float64Array): void {
    this.counts[p]++;
    if (this.kept[p]) this.keep(p, entry, 0, 1);
    else this.binEntry(p, entry, 0);
  }

  /** Adds the next chunk's part. */
  add(part: ChunkPart): void {
    this.subTriangles += part.subTriangles;
    for (let p = 0, q = 0; p < this.counts.length; p++) {
      const c = part.counts[p];
      if (c === 0) continue;
      this.counts[p] += c;
      if (q < part.binPairs.length && part.binPairs[q] === p) {
        // The part binned this pair: so do these sums, then add the part's.
        this.binKept(p);
        for (let b = part.binStarts[q]; b < part.binStarts[q + 1]; b++) {
          const s = this.slot(p, part.binIds[b]);
          for (let k = 0; k < ACC; k++) this.sums[s + k] += part.binSums[ACC * b + k];
        }
        q++;
      } else if (this.kept[p]) {
        this.keep(p, part.entries, 6 * part.entryStarts[p], c);
      } else {
        for (let e = 6 * part.entryStarts[p]; e < 6 * part.entryStarts[p + 1]; e += 6) this.binEntry(p, part.entries, e);
      }
    }
  }

  /** The sums as a {@link ChunkPart} (pairs ascending, bins ascending within a pair). */
  part(): ChunkPart {
    const P = this.counts.length;
    const binPairs: number[] = [];
    const binStarts = [0];
    const binIds = new Int32Array(this.slots);
    const binSums = new Float64Array(ACC * this.slots);
    for (let p = 0, b = 0; p < P; p++) {
      const bins = this.touched[p].sort((x, y) => x - y);
      if (bins.length === 0) continue;
      const map = this.slotMaps[p]!;
      for (const bin of bins) {
        const o = ACC * map[bin];
        binIds[b] = bin;
        for (let k = 0; k < ACC; k++) binSums[ACC * b + k] = this.sums[o + k];
        b++;
      }
      binPairs.push(p);
      binStarts.push(b);
    }
    const entryStarts = new Int32Array(P + 1);
    for (let p = 0; p < P; p++) entryStarts[p + 1] = entryStarts[p] + (this.kept[p] ? this.keptLength[p] : 0);
    const entries = new Float64Array(6 * entryStarts[P]);
    for (let p = 0; p < P; p++) {
      if (this.kept[p]) entries.set(this.kept[p]!.subarray(0, 6 * this.keptLength[p]), 6 * entryStarts[p]);
    }
    return {
      subTriangles: this.subTriangles,
      counts: this.counts.slice(),
      binPairs: Int32Array.from(binPairs),
      binStarts: Int32Array.from(binStarts),
      binIds,
      binSums,
      entryStarts,
      entries,
    };
  }

  /**
   * The plan of every pair (exact, bins or grid, as `planPairs` chooses), with a table holding
   * the kept entries of the exact pairs. Ends the sums (they are let go).
   * @param sigma kernel width σ of Eq. 1
   * @param exact plan every pair exactly (made with `keepAll`)
   */
  plan(sigma: number, exact: boolean): PairPlan {
    const { keys, stats, jointCount } = this.pairs;
    const P = keys.length;
    const buckets = new Map<number, number>();
    keys.forEach((key, p) => buckets.set(key, p));
    const plan = exactPlan({ jointCount, buckets, offsets: new Int32Array(P + 1), data: new Float64Array(0) }, sigma);
    // The exact pairs' entries, taken before asking for a pair's bins (which bins them).
    const exactEntries: Float64Array[] = new Array(P);
    for (let p = 0; p < P; p++) {
      const entries = this.kept[p]?.subarray(0, 6 * this.keptLength[p]);
      if (!exact) planPair(plan, p, this.counts[p], stats, this.resolution, () => this.bins(p));
      if (plan.strategy[p] !== 'exact') continue;
      if (!entries) throw new Error(`internal: pair ${p} planned exact without its entries`);
      exactEntries[p] = entries;
    }
    const offsets = new Int32Array(P + 1);
    for (let p = 0; p < P; p++) offsets[p + 1] = offsets[p] + (exactEntries[p]?.length ?? 0) / 6;
    const data = new Float64Array(6 * offsets[P]);
    exactEntries.forEach((entries, p) => data.set(entries, 6 * offsets[p]));
    // Ended: let the sums go (the plan holds what the evaluation reads).
    this.kept.fill(undefined);
    this.slotMaps.fill(undefined);
    this.touched.forEach((bins) => (bins.length = 0));
    this.sums = new Float64Array(0);
    return { ...plan, table: { jointCount, buckets, offsets, data } };
  }

  /** Pair p's bins (`finishBins`), its kept entries binned first. */
  private bins(p: number): Float64Array {
    this.binKept(p);
    const map = this.slotMaps[p];
    return finishBins(this.sums, map ? this.touched[p].sort((x, y) => x - y).map((bin) => ACC * map[bin]) : []);
  }

  /** Appends c entries of pair p, given at `entries[o..)`; bins them all once p cannot be exact. */
  private keep(p: number, entries: Float64Array, o: number, c: number): void {
    let list = this.kept[p]!;
    const at = 6 * this.keptLength[p];
    if (at + 6 * c > list.length) this.kept[p] = list = grow(list, at + 6 * c);
    for (let k = 0; k < 6 * c; k++) list[at + k] = entries[o + k];
    this.keptLength[p] += c;
    if (!this.keepAll && !mayBeExact(this.pairs.stats[5 * p], this.counts[p], this.resolution)) this.binKept(p);
  }

  /** Bins pair p's kept entries, in order, and keeps no more of them. */
  private binKept(p: number): void {
    const list = this.kept[p];
    if (!list) return;
    for (let e = 0; e < 6 * this.keptLength[p]; e += 6) this.binEntry(p, list, e);
    this.kept[p] = undefined;
    this.keptLength[p] = 0;
  }

  /** Adds the entry `values[o..o+6)` of pair p to its bin. */
  private binEntry(p: number, values: Float64Array, o: number): void {
    const r = this.resolution;
    const s = this.slot(p, binIndex(values[o], values[o + 1], r.binsXi, r.binsS, this.pairs.stats[5 * p + 4])); // may grow `sums`
    accumulateBin(this.sums, s, values, o);
  }

  /** The offset in `sums` of pair p's bin `bin` (a new zero slot the first time). */
  private slot(p: number, bin: number): number {
    const map = (this.slotMaps[p] ??= new Int32Array(this.resolution.binsXi * this.resolution.binsS).fill(-1));
    if (map[bin] < 0) {
      if (ACC * (this.slots + 1) > this.sums.length) this.sums = grow(this.sums);
      map[bin] = this.slots++;
      this.touched[p].push(bin);
    }
    return ACC * map[bin];
  }
}

/** The chunks' input-triangle ranges of a mesh with `triangles` triangles (see {@link CHUNK_TRIANGLES}). */
export function chunkRanges(triangles: number): [number, number][] {
  const size = Math.min(CHUNK_TRIANGLES, Math.max(8192, Math.ceil(triangles / 32)));
  const out: [number, number][] = [];
  for (let a = 0; a < triangles; a += size) out.push([a, Math.min(triangles, a + size)]);
  return out;
}

/** The pair index of joints (a, b) (any order), −1 for a pair no vertex carries. */
function pairLookup(keys: Int32Array, J: number): (a: number, b: number) => number {
  if (J * J <= 1 << 20) {
    const dense = new Int32Array(J * J).fill(-1);
    keys.forEach((key, p) => (dense[key] = p));
    return (a, b) => dense[a < b ? a * J + b : b * J + a];
  }
  const map = new Map<number, number>();
  keys.forEach((key, p) => map.set(key, p));
  return (a, b) => map.get(a < b ? a * J + b : b * J + a) ?? -1;
}

function grow(a: Float64Array, need = 2 * a.length): Float64Array<ArrayBuffer> {
  const out = new Float64Array(Math.max(need, 2 * a.length, 384));
  out.set(a);
  return out;
}
