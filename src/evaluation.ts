/**
 * corskin/evaluation: the measures behind `corskin evaluate` and `npm run bench` — volume,
 * cross-section radius at a joint, rigidity distortion, surface area and self-intersections
 * (three-mesh-bvh), the bar and arm benchmarks. Browser-safe; kept out of the `corskin` entry so
 * that the core does not pull in three.js or three-mesh-bvh. The HTML report writer is in
 * `corskin/node`.
 *
 * @example
 * ```ts
 * import { cappedVolume, runBenchmark, barBenchmark } from 'corskin/evaluation';
 * ```
 * @module
 */
export { enclosedVolume, cappedVolume, type CappedVolume } from './metrics/volume.js';
export { weldByPosition } from './metrics/weld.js';
export { measureJointQuality, formatRatio, type JointQuality } from './evaluation/joint-quality.js';
export { rigidityDistortion, oneRings, type OneRings } from './metrics/distortion.js';
export { surfaceArea, selfIntersections } from './metrics/surface.js';
export { createBar, closedTube, type BarOptions } from './evaluation/bar.js';
export {
  jointCrossSection,
  type CrossSection,
  type CrossSectionOptions,
  type JointChain,
} from './metrics/cross-section.js';
export {
  barBenchmark,
  armBenchmark,
  rigidCase,
  runBenchmark,
  chainCageRig,
  BENCHMARK_METHODS,
  METHOD_COST,
  type Benchmark,
  type BenchmarkCase,
  type BenchmarkMethod,
  type BenchmarkRow,
  type PosedMeshes,
} from './evaluation/benchmark.js';
