/**
 * `corskin/node`: the parts of corskin that need Node — file I/O (glTF with the Draco and meshopt
 * codecs, libigl OBJ/TGF/DMAT), the CoR precomputation, cage binding and the SIMD kernels of a
 * frame on worker threads, the
 * glTF-Transform transform built on them ({@link centersOfRotation}, what `corskin precompute`
 * runs), the HTML report. Everything else is browser-safe: the skinning in `corskin`, the
 * document functions in `corskin/gltf`.
 *
 * @example
 * ```ts
 * import { deform, restPose, skinningMatrices } from 'corskin';
 * import { extractSkinnedModels } from 'corskin/gltf';
 * import { readDocument, writeDocument, centersOfRotation } from 'corskin/node';
 *
 * const document = await readDocument('character.glb');
 * await document.transform(centersOfRotation({ sigma: 0.1, epsilon: 0.1 })); // worker threads on large meshes
 * await writeDocument(document, 'character-cor.glb');
 * const [model] = extractSkinnedModels(document); // its mesh carries the centers now
 * const posed = deform('cor', model.mesh, skinningMatrices(model.skeleton, restPose(model.skeleton)));
 * ```
 *
 * @module corskin/node
 */
export { createIO, readDocument, writeDocument, type ReadOptions, type WriteOptions } from './io/node-io.js';
export {
  computeCentersOfRotationParallel,
  autoThreads,
  createCorWorkerPool,
  type ParallelCorOptions,
  type CorWorkerPool,
} from './cor/parallel.js';
export {
  computeDirectDeltaMushParallel,
  autoDdmThreads,
  createDdmWorkerPool,
  ddmWorkUnits,
  type DdmWorkUnit,
  type DdmWorkerPool,
  type ParallelDdmOptions,
} from './methods/ddm/parallel.js';
export type { DdmTask } from './methods/ddm/stages.js';
export type { WorkerThreadPool } from './core/node-worker.js';
export {
  createParallelSimdDeformer,
  PARALLEL_SIMD_FROM,
  parallelSimdFactory,
  type ParallelSimdDeformer,
  type ParallelSimdOptions,
} from './wasm/parallel-simd.js';
export { SKINNING_KERNEL_METHODS, type SkinningKernelMethod } from './wasm/kernel-range.js';
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
export {
  bakeHelperJointsParallel,
  createHelperBakeWorkerPool,
  type ParallelHelperBakeOptions,
} from './io/helper-bake-parallel.js';
export { measureBakeParallel, createMeasureWorkerPool, sharesMeasure, simdLbs } from './io/measure-parallel.js';
export { PARALLEL_MEASURE_FROM } from './bake/samples.js';
export { readCage } from './io/read-cage.js';
