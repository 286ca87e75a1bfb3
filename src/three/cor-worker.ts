/**
 * Web Worker computing centers of rotation for {@link centersFromGeometry}: receives a corskin
 * mesh, posts progress `{ done, total }` and finally `{ centers }` (transferred) or `{ error }`.
 * @module
 */
import type { SkinnedMesh } from '../core/mesh.js';
import { computeCentersOfRotation } from '../cor/precompute.js';

const scope = self as unknown as {
  onmessage: (e: MessageEvent<SkinnedMesh>) => void;
  postMessage: (m: unknown, t?: Transferable[]) => void;
};
scope.onmessage = (e) => {
  try {
    const { centers } = computeCentersOfRotation(e.data, {
      onProgress: (done, total) => scope.postMessage({ done, total }),
    });
    scope.postMessage({ centers }, [centers.buffer]);
  } catch (err) {
    scope.postMessage({ error: (err as Error).message });
  }
};
