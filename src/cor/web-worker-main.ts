/**
 * The Web Worker script of {@link computeCentersOfRotationOnWorker}: receives a corskin mesh, posts
 * progress `{ done, total }` and finally `{ result: centers }` (transferred) or `{ error }`. Not imported
 * by the library: `npm run build` bundles it into a self-contained string
 * (`web-worker-source.ts`) that the library starts from a Blob URL, so every bundler ships it.
 * @module
 */
import { computeCentersOfRotation } from './precompute.js';
import type { CorWorkerRequest } from './web-worker.js';

const scope = self as unknown as {
  onmessage: (e: MessageEvent<CorWorkerRequest>) => void;
  postMessage: (m: unknown, t?: Transferable[]) => void;
};
scope.onmessage = (e) => {
  try {
    const { centers } = computeCentersOfRotation(e.data.mesh, {
      ...e.data.options,
      onProgress: (done, total) => scope.postMessage({ done, total }),
    });
    scope.postMessage({ result: centers }, [centers.buffer]);
  } catch (err) {
    scope.postMessage({ error: (err as Error).message });
  }
};
