/**
 * Worker-thread side of {@link computeCentersOfRotationParallel}: the two pure stages of the
 * precomputation (a chunk's subdivision and binning, a vertex range's evaluation), callable
 * through workerpool. Typed arrays arrive as copies or as views of
 * SharedArrayBuffers; results go back as transferred buffers.
 *
 * @module
 */
import workerpool from 'workerpool';
import type { SkinnedMesh } from '../core/mesh.js';
import { centersOfRotationPlanned, type PairPlan } from './fast.js';
import { binChunk } from './stream.js';

function buffersOf(arrays: (ArrayBufferView | undefined)[]): ArrayBuffer[] {
  return arrays.filter((a): a is ArrayBufferView => !!a && !(a.buffer instanceof SharedArrayBuffer)).map((a) => a.buffer as ArrayBuffer);
}

workerpool.worker({
  chunk(...args: Parameters<typeof binChunk>) {
    const part = binChunk(...args);
    return new workerpool.Transfer(part, buffersOf(Object.values(part).filter((v) => ArrayBuffer.isView(v))));
  },
  evaluate(plan: PairPlan, mesh: SkinnedMesh, begin: number, end: number) {
    const centers = new Float32Array(3 * (end - begin));
    const blended = centersOfRotationPlanned(plan, mesh, begin, end, centers, undefined, begin);
    return new workerpool.Transfer({ centers, blended }, [centers.buffer]);
  },
});
