/**
 * The CoR precomputation on worker threads (workerpool): the chunks of input triangles
 * subdivided and binned on the workers (`cor/stream.ts`) and their parts added up here in chunk
 * order, the pairs planned here, the evaluation split by vertex ranges. The mesh lives in
 * SharedArrayBuffers. Every stage is pure and combined in a fixed order, so the result is
 * bit-identical to {@link computeCentersOfRotation} whatever the number of threads.
 *
 * @module
 */
import { availableParallelism } from 'node:os';
import type { SkinnedMesh } from '../core/mesh.js';
import { checkThreads, startWorkerPool, type WorkerThreadPool } from '../core/node-worker.js';
import { fastResolution } from './fast.js';
import { computeCentersOfRotation, corParameters, type CorOptions, type CorResult } from './precompute.js';
import { corAlgorithm } from './parameters.js';
import { toShared } from '../core/shared-memory.js';
import { chunkRanges, PairSums, vertexPairs, type ChunkPart } from './stream.js';

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
export type CorWorkerPool = WorkerThreadPool;

/**
 * Starts `threads` CoR worker threads (default: all cores), for several
 * {@link computeCentersOfRotationParallel} calls in a row.
 * @throws RangeError when threads < 1
 */
export function createCorWorkerPool(threads = availableParallelism()): CorWorkerPool {
  return startWorkerPool('cor/worker.js', threads);
}

/**
 * Copies the per-vertex arrays the workers read into SharedArrayBuffers, so they are not copied
 * per task; the triangles go to each chunk task as a copy of its own range.
 */
function shareMesh(mesh: SkinnedMesh): SkinnedMesh {
  return {
    positions: toShared(mesh.positions),
    triangles: new Uint32Array(0),
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
  checkThreads(threads);
  if (threads === 1) return computeCentersOfRotation(mesh, options);
  const { sigma, epsilon, J } = corParameters(mesh, options);
  options.signal?.throwIfAborted();
  const start = performance.now();
  const n = mesh.positions.length / 3;
  const owned = options.pool ? undefined : createCorWorkerPool(threads);
  const { pool } = options.pool ?? owned!;
  const onAbort = () => void pool.terminate(true).catch(() => undefined); // stopping: a failure to stop is not the error to report
  options.signal?.addEventListener('abort', onAbort);
  try {
    const shared = shareMesh(mesh);
    const run = async <T>(method: string, args: unknown[]): Promise<T> => {
      const r = (await pool.exec(method, args)) as T;
      options.signal?.throwIfAborted();
      return r;
    };

    // 1. Chunks of input triangles subdivided and binned on the workers (cor/stream.ts), one in
    //    flight per thread (each with a copy of its triangles), their parts added up here in
    //    chunk order as they arrive (the serial sums).
    const T = mesh.triangles.length / 3;
    const exact = corAlgorithm(options) === 'exact';
    const pairs = vertexPairs(mesh, J);
    const resolution = fastResolution(options.resolution);
    const sums = new PairSums(pairs, resolution, exact);
    const chunks = chunkRanges(T);
    const pending = new Map<number, ChunkPart>();
    let next = 0;
    let started = 0;
    await Promise.all(
      Array.from({ length: threads }, async () => {
        while (started < chunks.length) {
          const c = started++;
          const [a, b] = chunks[c];
          const triangles = mesh.triangles.slice(3 * a, 3 * b);
          pending.set(c, await run<ChunkPart>('chunk', [{ ...shared, triangles }, pairs, epsilon, resolution, exact, 0, b - a]));
          for (let part; (part = pending.get(next)); next++) {
            pending.delete(next);
            sums.add(part);
          }
        }
      }),
    );

    // 2. The plan, from the totals.
    const planned = sums.plan(sigma, exact);
    const subTriangles = sums.subTriangles;
    // The exact pairs' entries (every entry with the exact algorithm) in shared memory: each
    // evaluation task reads them without a copy.
    const plan = { ...planned, table: { ...planned.table, data: toShared(planned.table.data) } };

    // 3. Evaluation by vertex ranges.
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
      subdividedTriangles: subTriangles,
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
