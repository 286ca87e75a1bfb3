/**
 * The Web Worker script of {@link bindToCageOnWorker}: binds the skin it receives, posting
 * progress `{ done, total }` and finally `{ result: binding }` (transferred) or `{ error }`. Not
 * imported by the library: `npm run build` bundles it into a string (`web-worker-source.ts`).
 * @module
 */
import { bindToCage } from './bind.js';
import type { CageWorkerRequest } from './web-worker.js';

const scope = self as unknown as {
  onmessage: (e: MessageEvent<CageWorkerRequest>) => void;
  postMessage: (m: unknown, t?: Transferable[]) => void;
};
scope.onmessage = (e) => {
  try {
    const binding = bindToCage(e.data.positions, e.data.cage, {
      ...e.data.options,
      onProgress: (done, total) => scope.postMessage({ done, total }),
    });
    scope.postMessage({ result: binding }, [binding.indices.buffer, binding.weights.buffer]);
  } catch (err) {
    scope.postMessage({ error: (err as Error).message });
  }
};
