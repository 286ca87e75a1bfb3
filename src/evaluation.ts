/**
 * `corskin/evaluation`: the measures behind `corskin evaluate` and `npm run bench`, for comparing
 * skinning methods on a joint — volume, cross-section radius at a joint, rigidity distortion,
 * surface area and self-intersections (three-mesh-bvh) — and the bar and arm benchmarks of
 * Le & Hodgins 2016 (Fig. 2), which deform standard poses by every method and measure each, and
 * the stress pose of `corskin evaluate --character` and `corskin render --pose stress` for any
 * skeleton (`stressPose`). Browser-safe; kept out of the `corskin` entry so that the core does not pull in three.js or
 * three-mesh-bvh. The HTML report writer is in `corskin/node`.
 *
 * @example
 * ```ts
 * import { barBenchmark, formatRatio, runBenchmark } from 'corskin/evaluation';
 *
 * // The bar twisted and bent at its joint by each method; 1 is volume kept.
 * for (const row of runBenchmark(barBenchmark(), ['lbs', 'dqs', 'cor'])) {
 *   console.log(row.case, row.method, formatRatio(row.volumeRatio), row.selfIntersections);
 * }
 * ```
 *
 * @module corskin/evaluation
 */
export { enclosedVolume, cappedVolume, type CappedVolume } from './metrics/volume.js';
export { weldByPosition } from './metrics/weld.js';
export { measureJointQuality, formatRatio, type JointQuality } from './evaluation/joint-quality.js';
export { rigidityDistortion, oneRings, type OneRings } from './metrics/distortion.js';
export { surfaceArea, selfIntersections } from './metrics/surface.js';
export { createBar, closedTube, type BarOptions } from './evaluation/bar.js';
export { stressPose, STRESS_ANGLES } from './evaluation/stress-pose.js';
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
