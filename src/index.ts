/**
 * corskin — skeletal skinning with optimized centers of rotation (Le & Hodgins 2016), dual
 * quaternion and linear blend skinning, on glTF characters.
 *
 * @packageDocumentation
 */
export { CorskinError } from './core/errors.js';
export { createSkeleton, jointCount, type Skeleton, type SkeletonInit } from './core/skeleton.js';
export {
  restPose,
  globalMatrices,
  skinningMatrices,
  bindPoseSkinningMatrices,
  rotateJointWorld,
  type Pose,
} from './core/pose.js';
export {
  applyMorphTargets,
  sampleMorphWeights,
  type MorphChannel,
  type MorphGroup,
  type MorphTarget,
} from './core/morph.js';
export { samplePose, type AnimationClip, type AnimationChannel, type Interpolation } from './core/animation.js';
export {
  vertexCount,
  normalizeWeights,
  validateSkinnedMesh,
  boundingBoxDiagonal,
  computeVertexNormals,
  limitInfluences,
  type InfluenceLimit,
  type SkinnedMesh,
  type WeightNormalization,
} from './core/mesh.js';
export { splitScale, deformTwoPhase, uniformScale, type ScaleSplit } from './deformers/two-phase.js';
export { SKINNING_METHODS, methodInfo, type MethodId, type MethodInfo } from './deformers/registry.js';
export type { Deformer, DeformTarget, SkinningMethod } from './deformers/common.js';
export { deformLbs } from './deformers/lbs.js';
export { deformDqs, jointDualQuaternions } from './deformers/dqs.js';
export { deformCor } from './deformers/cor.js';
export { deformers, deform } from './deformers/index.js';
export { createSimdDeformer, type SimdDeformer, type SimdSkinningMethod } from './wasm/simd-skinning.js';
export { subdivideByWeights, type SubdividedTriangles } from './cor/subdivide.js';
export { buildPairTable, countPairs, fillPairs, type PairTable } from './cor/centers.js';
export {
  centersOfRotationPlanned,
  exactPlan,
  planPairs,
  pairVertexStats,
  mergeVertexStats,
  type PairPlan,
  type PairStrategy,
  type FastCorResolution,
  type Lattice,
} from './cor/fast.js';
export {
  computeCentersOfRotation,
  DEFAULT_SIGMA,
  DEFAULT_EPSILON,
  type CorOptions,
  type CorResult,
} from './cor/precompute.js';
export {
  COR_ATTRIBUTE,
  extractSkinnedModels,
  setCentersOfRotation,
  bakePosedGeometry,
  type SkinnedModel,
  type SkinnedPart,
  type CorParameters,
  type PosedGeometry,
} from './io/gltf.js';
export { buildSkinnedDocument, type ConvertInput, type ConvertReport } from './io/convert.js';
export { formatObj, type ObjGroup } from './io/obj.js';
export { enclosedVolume, cappedVolume, type CappedVolume } from './metrics/volume.js';
export { weldByPosition } from './metrics/weld.js';
export {
  jointCrossSection,
  segmentDistance,
  type CrossSection,
  type CrossSectionOptions,
  type JointChain,
} from './metrics/cross-section.js';
export {
  twistPose,
  bendPose,
  boneAxis,
  jointChain,
  jointPositions,
  findJoint,
  firstChildJoint,
} from './evaluation/standard-poses.js';
export { measureJointQuality, formatRatio, type JointQuality } from './evaluation/joint-quality.js';
export { VERSION } from './version.js';
export {
  createStretchDeformer,
  stretchRigFromSkeleton,
  type StretchRig,
  type StretchOptions,
} from './deformers/stretch.js';
export { shepardWeights, boneSegments, type BoneSegments, type ShepardOptions } from './weights/shepard.js';
export { jointBoneSegments } from './io/gltf.js';
export { deformSbs } from './deformers/sbs.js';
export { deformLms, jointTwists } from './deformers/lms.js';
export { rigidityDistortion, oneRings, type OneRings } from './metrics/distortion.js';
export { distributeTwist, twistAngle, type TwistJoint } from './core/twist.js';
export { surfaceArea, selfIntersections } from './metrics/surface.js';
export { createBar, closedTube, type BarOptions } from './evaluation/bar.js';
export {
  barBenchmark,
  armBenchmark,
  rigidCase,
  runBenchmark,
  BENCHMARK_METHODS,
  METHOD_COST,
  type Benchmark,
  type BenchmarkCase,
  type BenchmarkMethod,
  type BenchmarkRow,
  type PosedMeshes,
} from './evaluation/benchmark.js';
