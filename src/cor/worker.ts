/**
 * Worker-thread side of {@link computeCentersOfRotationParallel}: the three pure stages of the
 * precomputation, callable through workerpool. Typed arrays arrive as copies or as views of
 * SharedArrayBuffers; results go back as transferred buffers.
 *
 * @module
 */
import workerpool from 'workerpool';
import type { SkinnedMesh } from '../core/mesh.js';
import { countPairs, fillPairs, type PairTable } from './centers.js';
import { centersOfRotationPlanned, pairVertexStats, planPairs, type FastCorResolution, type PairPlan } from './fast.js';
import type { SubdividedPart } from './parallel.js';
import { toShared } from './shared-memory.js';
import { subdivideByWeights, type SubdividedTriangles } from './subdivide.js';

function buffersOf(arrays: (ArrayBufferView | undefined)[]): ArrayBuffer[] {
  return arrays.filter((a): a is ArrayBufferView => !!a && !(a.buffer instanceof SharedArrayBuffer)).map((a) => a.buffer as ArrayBuffer);
}

workerpool.worker({
  subdivide(mesh: SkinnedMesh, epsilon: number, jointCount: number, first: number, end: number): SubdividedPart {
    const t = subdivideByWeights(mesh, epsilon, first, end);
    const tris = { ...t, areas: toShared(t.areas), centroids: toShared(t.centroids), joints: toShared(t.joints), weights: toShared(t.weights) };
    return { tris, ...countPairs(tris, jointCount) };
  },
  fill(tris: SubdividedTriangles, jointCount: number, buckets: Map<number, number>, cursor: Int32Array, data: Float64Array) {
    fillPairs(tris, jointCount, buckets, cursor, data);
  },
  stats(table: PairTable, mesh: SkinnedMesh, begin: number, end: number) {
    const stats = pairVertexStats(table, mesh, begin, end);
    return new workerpool.Transfer(stats, [stats.buffer]);
  },
  plan(table: PairTable, stats: Float64Array, sigma: number, resolution: FastCorResolution, pairs: Int32Array) {
    const plan: PairPlan = planPairs(table, stats, sigma, resolution, pairs);
    const slim = { strategy: plan.strategy, bins: plan.bins, grids: plan.grids };
    return new workerpool.Transfer(slim, buffersOf([...plan.bins, ...plan.grids.map((g) => g?.values)]));
  },
  evaluate(plan: PairPlan, mesh: SkinnedMesh, begin: number, end: number) {
    const out = new Float32Array(3 * end);
    const blended = centersOfRotationPlanned(plan, mesh, begin, end, out);
    const centers = out.slice(3 * begin);
    return new workerpool.Transfer({ centers, blended }, [centers.buffer]);
  },
});
