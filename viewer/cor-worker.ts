// The viewer's Web Worker for centers of rotation: same protocol as corskin/three's worker.
import type { SkinnedMesh } from '../src/core/mesh.js';
import { computeCentersOfRotation } from '../src/cor/precompute.js';

self.onmessage = (e: MessageEvent<SkinnedMesh>) => {
  try {
    const { centers } = computeCentersOfRotation(e.data, {
      onProgress: (done, total) => self.postMessage({ done, total }),
    });
    (self as unknown as Worker).postMessage({ centers }, [centers.buffer]);
  } catch (err) {
    self.postMessage({ error: (err as Error).message });
  }
};
