/**
 * The Web Worker script of {@link computeDirectDeltaMushOnWorker}: receives a mesh's rest
 * positions, triangles and influences, posts progress `{ done, total }` and finally
 * `{ result: model }` (its arrays transferred) or `{ error }`. Not imported by the library:
 * `npm run build` bundles it into a self-contained string (`web-worker-source.ts`) that the
 * library starts from a Blob URL, so every bundler ships it.
 * @module
 */
import { computeDirectDeltaMush } from './precompute.js';
import type { DdmWorkerRequest } from './web-worker.js';

const scope = self as unknown as {
  onmessage: (e: MessageEvent<DdmWorkerRequest>) => void;
  postMessage: (m: unknown, t?: Transferable[]) => void;
};
scope.onmessage = (e) => {
  try {
    const model = computeDirectDeltaMush(e.data.mesh, {
      ...e.data.options,
      onProgress: (done, total) => scope.postMessage({ done, total }),
    });
    const buffers = new Set<ArrayBuffer>();
    for (const a of [model.offsets, model.joints, model.matrices, model.weights])
      if (a && a.buffer instanceof ArrayBuffer) buffers.add(a.buffer);
    scope.postMessage({ result: model }, [...buffers]);
  } catch (err) {
    scope.postMessage({ error: (err as Error).message });
  }
};
