/**
 * The Web Worker script of {@link buildTemplateRigOnWorker}: builds the rig it is asked for,
 * posting progress `{ done, total }` and finally `{ result: rig }` or `{ error }`. Not imported by
 * the library: `npm run build` bundles it into a string (`web-worker-source.ts`).
 * @module
 */
import { buildTemplateRig } from './rig.js';
import type { TemplateWorkerRequest } from './web-worker.js';

const scope = self as unknown as {
  onmessage: (e: MessageEvent<TemplateWorkerRequest>) => void;
  postMessage: (m: unknown, t?: Transferable[]) => void;
};
scope.onmessage = (e) => {
  try {
    const { mesh, skeleton, library } = e.data;
    const rig = buildTemplateRig(mesh, skeleton, library, { onProgress: (done, total) => scope.postMessage({ done, total }) });
    scope.postMessage({ result: rig }, [rig.binding.indices.buffer, rig.binding.weights.buffer]);
  } catch (err) {
    scope.postMessage({ error: (err as Error).message });
  }
};
