/**
 * `corskin/node`: the parts of corskin that need Node — file I/O (glTF with Draco/meshopt
 * codecs, libigl OBJ/TGF/DMAT), the worker-thread CoR precomputation and the glTF-Transform
 * transforms built on it, the HTML report. Everything else, browser-safe, is in `corskin`.
 *
 * ```ts
 * import { extractSkinnedModels, deformCor } from 'corskin';
 * import { readDocument, writeDocument, centersOfRotation } from 'corskin/node';
 * ```
 *
 * @module
 */
export { createIO, readDocument, writeDocument, type ReadOptions, type WriteOptions } from './io/node-io.js';
export {
  computeCentersOfRotationParallel,
  autoThreads,
  createCorWorkerPool,
  type ParallelCorOptions,
  type CorWorkerPool,
} from './cor/parallel.js';
export { centersOfRotation, type BakeOptions } from './io/bake.js';
export { bakePosedGeometry, type PosedGeometry } from './io/posed-geometry.js';
export {
  readObj,
  readTgf,
  readDmat,
  decodeBoneAnimation,
  type ObjMesh,
  type TgfSkeleton,
  type DenseMatrix,
} from './io/libigl.js';
export { addTwistJoints, type TwistJointReport } from './io/twist-joints.js';
export { renderReport } from './evaluation/report.js';
export { bindToCageParallel, type ParallelCageBindOptions } from './cage/parallel.js';
export { readCage } from './io/read-cage.js';
