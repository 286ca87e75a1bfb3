/**
 * The CoR precomputation on worker threads (workerpool): subdivision and pair counting split by
 * triangle ranges, the pair table filled by the same ranges at offsets computed here, the
 * vertices' pair statistics and the evaluation split by vertex ranges, planning split by joint
 * pairs (balanced by estimated work). Large arrays live in SharedArrayBuffers. Every stage is
 * pure and combined in a fixed order, so the result is bit-identical to
 * {@link computeCentersOfRotation} whatever the number of threads.
 *
 * @module
 */
import { availableParallelism } from 'node:os';
import workerpool from 'workerpool';
import type { SkinnedMesh } from '../core/mesh.js';
import { nodeWorkerScript } from '../core/node-worker.js';
import { allocateEntries, type PairTable } from './centers.js';
import { exactPlan, mergePlans, mergeVertexStats, pairWork, type PairPlan } from './fast.js';
import { computeCentersOfRotation, corParameters, type CorOptions, type CorResult } from './precompute.js';
import { corAlgorithm } from './parameters.js';
import { toShared } from './shared-memory.js';
import type { SubdividedTriangles } from './subdivide.js';

/** What a worker's subdivision task returns (see worker.ts). */
export interface SubdividedPart {
  /** The part's sub-triangles, in SharedArrayBuffers. */
  tris: SubdividedTriangles;
  /** Joint pairs present, in order of first appearance, and their entry counts. */
  keys: number[];
  counts: number[];
}

/** Options of {@link computeCentersOfRotationParallel}. */
export interface ParallelCorOptions extends CorOptions {
  /**
   * Worker threads; 1 runs in this thread. Default ({@link autoThreads}): all cores from
   * 100,000 vertices up, else 1.
   */
  threads?: number;
  /**
   * A pool from {@link createCorWorkerPool} to reuse across calls (its workers stay started and
   * warm); when given, `threads` defaults to its size and the caller terminates it.
   */
  pool?: CorWorkerPool;
}

/**
 * Below this many vertices one thread is faster: on the 2-core reference machine starting a
 * worker pool costs ~0.3 s, more than a 43k-vertex mesh takes single-threaded (0.45 s).
 */
const AUTO_THREADS_FROM = 100_000;

/** The default thread count for a mesh of n vertices: all cores from 100,000 up, else 1. */
export function autoThreads(n: number): number {
  return n >= AUTO_THREADS_FROM ? availableParallelism() : 1;
}

/** A pool of CoR worker threads (workerpool), owned by whoever created it. */
export interface CorWorkerPool {
  readonly threads: number;
  readonly pool: workerpool.Pool;
  /** Stops the workers. */
  terminate(): Promise<void>;
}

/**
 * Starts `threads` CoR worker threads (default: all cores), for several
 * {@link computeCentersOfRotationParallel} calls in a row.
 * @throws RangeError when threads < 1
 */
export function createCorWorkerPool(threads = availableParallelism()): CorWorkerPool {
  if (!(Number.isInteger(threads) && threads >= 1)) throw new RangeError(`threads must be a whole number ≥ 1, got ${threads}`);
  const pool = workerpool.pool(nodeWorkerScript('cor/worker.js'), { maxWorkers: threads, minWorkers: threads, workerType: 'thread' });
  return { threads, pool, terminate: async () => void (await pool.terminate()) };
}

/** Copies the arrays the workers read into SharedArrayBuffers, so they are not copied per task. */
function shareMesh(mesh: SkinnedMesh): SkinnedMesh {
  return {
    positions: toShared(mesh.positions),
    triangles: toShared(mesh.triangles),
    influences: mesh.influences,
    joints: toShared(mesh.joints),
    weights: toShared(mesh.weights),
  };
}

/** Splits [0, n) into `parts` contiguous ranges of near-equal size. */
function ranges(n: number, parts: number): [number, number][] {
  const k = Math.max(1, Math.min(parts, n));
  return Array.from({ length: k }, (_, i) => [Math.floor((i * n) / k), Math.floor(((i + 1) * n) / k)] as [number, number]).filter(([a, b]) => b > a);
}

/**
 * {@link computeCentersOfRotation} on `threads` worker threads. Progress is reported as vertex
 * ranges finish; `signal` terminates the workers and rejects with its reason.
 * @throws RangeError for σ or ε ≤ 0 or threads < 1; CorskinError for an empty mesh
 */
export async function computeCentersOfRotationParallel(mesh: SkinnedMesh, options: ParallelCorOptions = {}): Promise<CorResult> {
  const threads = options.threads ?? options.pool?.threads ?? autoThreads(mesh.positions.length / 3);
  if (!(Number.isInteger(threads) && threads >= 1)) throw new RangeError(`threads must be a whole number ≥ 1, got ${threads}`);
  if (threads === 1) return computeCentersOfRotation(mesh, options);
  const { sigma, epsilon, J } = corParameters(mesh, options);
  options.signal?.throwIfAborted();
  const start = performance.now();
  const n = mesh.positions.length / 3;
  const owned = options.pool ? undefined : createCorWorkerPool(threads);
  const { pool } = options.pool ?? owned!;
  const onAbort = () => void pool.terminate(true);
  options.signal?.addEventListener('abort', onAbort);
  try {
    const shared = shareMesh(mesh);
    const run = async <T>(method: string, args: unknown[]): Promise<T> => {
      const r = (await pool.exec(method, args)) as T;
      options.signal?.throwIfAborted();
      return r;
    };

    // 1. Subdivision by triangle ranges, each part's sub-triangles in shared memory with the
    //    joint pairs it carries (first-appearance order) and their entry counts.
    const T = mesh.triangles.length / 3;
    const parts = await Promise.all(
      ranges(T, 4 * threads).map(([a, b]) => run<SubdividedPart>('subdivide', [shared, epsilon, J, a, b])),
    );

    // 2. Pair table: buckets numbered by first appearance over the parts in order, each part's
    //    entries written by its worker after those of the parts before it (the serial table).
    const buckets = new Map<number, number>();
    const totals: number[] = [];
    for (const part of parts) {
      part.keys.forEach((key, i) => {
        let b = buckets.get(key);
        if (b === undefined) buckets.set(key, (b = totals.push(0) - 1));
        totals[b] += part.counts[i];
      });
    }
    const offsets = new Int32Array(totals.length + 1);
    for (let b = 0; b < totals.length; b++) offsets[b + 1] = offsets[b] + totals[b];
    const data = allocateEntries(offsets[totals.length], true);
    const next = offsets.slice(0, totals.length);
    const cursors = parts.map((part) => {
      const cursor = next.slice();
      part.keys.forEach((key, i) => (next[buckets.get(key)!] += part.counts[i]));
      return cursor;
    });
    await Promise.all(parts.map((part, i) => run('fill', [part.tris, J, buckets, cursors[i], data])));
    const table: PairTable = { jointCount: J, buckets, offsets, data };
    const stats = mergeVertexStats(
      await Promise.all(ranges(n, threads).map(([a, b]) => run<Float64Array>('stats', [table, shared, a, b]))),
    );

    // 3. Planning by pairs, longest first onto the least loaded thread.
    let plan: PairPlan = exactPlan(table, sigma);
    if (corAlgorithm(options) !== 'exact') {
      const work = pairWork(table, stats);
      const order = Array.from(work.keys()).sort((a, b) => work[b] - work[a] || a - b);
      const groups: number[][] = Array.from({ length: threads }, () => []);
      const load = new Float64Array(threads);
      for (const p of order) {
        const g = load.indexOf(Math.min(...load));
        groups[g].push(p);
        load[g] += work[p];
      }
      const pieces = await Promise.all(
        groups.map((g) => run<Pick<PairPlan, 'strategy' | 'bins' | 'grids'>>('plan', [table, stats, sigma, options.resolution ?? {}, Int32Array.from(g)])),
      );
      plan = mergePlans(pieces.map((p) => ({ ...p, table, sigma })));
    }

    // 4. Evaluation by vertex ranges.
    const centers = new Float32Array(3 * n);
    let done = 0;
    let blended = 0;
    await Promise.all(
      ranges(n, 4 * threads).map(async ([a, b]) => {
        const r = await run<{ centers: Float32Array; blended: number }>('evaluate', [plan, shared, a, b]);
        centers.set(r.centers, 3 * a);
        blended += r.blended;
        done += b - a;
        options.onProgress?.(done, n);
      }),
    );
    return {
      centers,
      vertices: n,
      blendedVertices: blended,
      triangles: T,
      subdividedTriangles: parts.reduce((sum, part) => sum + part.tris.count, 0),
      seconds: (performance.now() - start) / 1000,
    };
  } catch (e) {
    options.signal?.throwIfAborted();
    throw e;
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    await owned?.terminate();
  }
}
