/**
 * Worker-thread side of {@link computeCentersOfRotationParallel}: the three pure stages of the
 * precomputation, callable through workerpool. Typed arrays arrive as copies or as views of
 * SharedArrayBuffers; results go back as transferred buffers.
 *
 * @module
 */
import workerpool from 'workerpool';
import type { SkinnedMesh } from '../core/mesh.js';
import type { PairTable } from './centers.js';
import { centersOfRotationPlanned, planPairs, type FastCorResolution, type PairPlan } from './fast.js';
import { subdivideByWeights } from './subdivide.js';

function buffersOf(arrays: (ArrayBufferView | undefined)[]): ArrayBuffer[] {
  return arrays.filter((a): a is ArrayBufferView => !!a && !(a.buffer instanceof SharedArrayBuffer)).map((a) => a.buffer as ArrayBuffer);
}

workerpool.worker({
  subdivide(mesh: SkinnedMesh, epsilon: number, first: number, end: number) {
    const t = subdivideByWeights(mesh, epsilon, first, end);
    const out = { ...t, areas: t.areas.slice(), centroids: t.centroids.slice(), joints: t.joints.slice(), weights: t.weights.slice() };
    return new workerpool.Transfer(out, buffersOf([out.areas, out.centroids, out.joints, out.weights]));
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
