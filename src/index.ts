/**
 * `corskin`: skeletal skinning beyond linear blend skinning — optimized centers of rotation
 * (Le & Hodgins 2016), dual quaternion skinning and friends — on plain typed arrays. No
 * dependencies and no file access (browser-safe): a {@link SkinnedMesh} and a {@link Skeleton} in,
 * posed vertices out. Compute the centers of rotation once ({@link computeCentersOfRotation}),
 * pose the skeleton ({@link samplePose}, {@link skinningMatrices}) and deform ({@link deform}, or
 * the WebAssembly SIMD kernels of {@link createSimdDeformer}). {@link SKINNING_METHODS} lists the
 * methods. glTF documents are read by `corskin/gltf` and `corskin/node`, three.js skins on the GPU
 * with `corskin/three`, and `corskin/evaluation` measures the results.
 *
 * @example
 * ```ts
 * import { computeCentersOfRotation, deform, samplePose, skinningMatrices } from 'corskin';
 * import { extractSkinnedModels } from 'corskin/gltf';
 * import { readDocument } from 'corskin/node';
 *
 * const [model] = extractSkinnedModels(await readDocument('character.glb'));
 * const mesh = { ...model.mesh, centersOfRotation: computeCentersOfRotation(model.mesh).centers };
 * const pose = samplePose(model.skeleton, model.animations[0], 0.5); // 0.5 s into the first clip
 * const { positions, normals } = deform('cor', mesh, skinningMatrices(model.skeleton, pose));
 * ```
 *
 * @module corskin
 */
export { CorskinError } from './core/errors.js';
export { createSkeleton, jointCount, findJoint, type Skeleton, type SkeletonInit } from './core/skeleton.js';
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
  mergeSkinnedMeshes,
  type InfluenceLimit,
  type SkinnedMesh,
  type WeightNormalization,
} from './core/mesh.js';
export {
  splitScale,
  commonScale,
  deformTwoPhase,
  deformStretchedVertices,
  uniformScale,
  type ScaleSplit,
} from './deformers/two-phase.js';
export {
  SKINNING_METHODS,
  GPU_METHODS,
  SIMD_METHODS,
  methodInfo,
  CHARACTER_METHODS,
  type MethodId,
  type GpuMethodId,
  type ThreeMethodId,
  THREE_METHODS,
  type SimdMethodId,
  type MethodInfo,
} from './deformers/registry.js';
export type {
  Deformer,
  DeformTarget,
  RigidDeformer,
  RigidVertexDeformer,
  SkinningMethod,
} from './deformers/contract.js';
export { deformLbs } from './deformers/lbs.js';
export { deformDqs, jointDualQuaternions } from './deformers/dqs.js';
export { deformCor } from './deformers/cor.js';
export { deformDdm } from './methods/ddm/deformer.js';
export { ddmModelOf, setDdmModel, withDdmModel } from './methods/ddm/data.js';
export { deformers, deform } from './deformers/index.js';
export type { MethodParameter } from './methods/parameter.js';
export type { MethodModule, PrepareInput } from './methods/module.js';
export { METHOD_MODULES, methodModule, prepareMethod } from './methods/index.js';
export { createDeltaMushDeformer } from './methods/dm/deformer.js';
export {
  DELTA_MUSH_DEFAULTS,
  DELTA_MUSH_PARAMETERS,
  MAX_DELTA_MUSH_ITERATIONS,
  resolveDeltaMushParameters,
  type DeltaMushParameters,
  type DeltaMushSmoothing,
} from './methods/dm/parameters.js';
export { deltaMushMethod } from './methods/dm/index.js';
export { mushSurface, smoothSurface, cornerFrames, type MushSurface } from './methods/dm/surface.js';
export { createSimdDeformer, type SimdDeformer, type SimdSkinningMethod } from './wasm/simd-skinning.js';
export {
  simdBoundDeformer,
  SIMD_AGREEMENT,
  SIMD_NORMAL_AGREEMENT,
  type SimdDeformerFactory,
} from './wasm/bound-deformer.js';
export { simdKernelBuild, type SimdKernelBuild } from './wasm/instance.js';
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
export { computeCentersOfRotation, COR_ATTRIBUTE, type CorOptions, type CorResult } from './cor/precompute.js';
export {
  computeDirectDeltaMush,
  ddmBytesPerVertex,
  type DdmInput,
  type DdmModel,
  type DdmOptions,
  type DdmVariant,
} from './methods/ddm/precompute.js';
export {
  DEFAULT_DDM_ALPHA,
  DEFAULT_DDM_ITERATIONS,
  DEFAULT_DDM_KAPPA,
  DEFAULT_DDM_LAMBDA,
  DEFAULT_DDM_THRESHOLD,
  MAX_DDM_ITERATIONS,
  MAX_DDM_SMOOTHING,
  resolveDdmParameters,
  type DdmParameters,
  type DdmResolution,
} from './methods/ddm/parameters.js';
export { ELEPHANT_RESOLUTION, meshResolution, smoothingScale } from './methods/ddm/resolution.js';
export type { DdmSmoothing } from './methods/ddm/laplacian.js';
export { polarFactor } from './methods/ddm/polar.js';
export {
  DEFAULT_SIGMA,
  DEFAULT_EPSILON,
  DEFAULT_MAX_SUBDIVIDED_TRIANGLES,
  resolveCorOptions,
  corAlgorithm,
  type CorParameterOptions,
} from './cor/parameters.js';
export { computeCentersOfRotationOnWorker, type WorkerCorOptions, type CorWorkerRequest } from './cor/web-worker.js';
export {
  computeDirectDeltaMushOnWorker,
  type WorkerDdmOptions,
  type DdmWorkerRequest,
} from './methods/ddm/web-worker.js';
export { runWorkerScript, type WorkerScriptOptions } from './core/web-worker.js';
export { createCorSession, type CorSession, type CorSessionOptions, type CorUpdate } from './cor/session.js';
export { brushDab, mirrorJoints, type BrushDab, type BrushEdit, type BrushMode } from './weights/brush.js';
export { formatObj, type ObjGroup } from './io/obj.js';
export {
  twistPose,
  bendPose,
  boneAxis,
  jointChain,
  jointPositions,
  firstChildJoint,
} from './evaluation/standard-poses.js';
export { segmentDistance } from './core/math.js';
export { checkCage, cageVertexCount, type Cage } from './cage/cage.js';
export { windingNumber, pointsOutside } from './cage/winding-number.js';
export { meanValueCoordinates } from './cage/mvc.js';
export {
  positiveMeanValueCoordinates,
  prepareCage,
  createCubeMap,
  createPmvcScratch,
  DEFAULT_PMVC_RESOLUTION,
  MAX_PMVC_RESOLUTION,
  type CubeMap,
  type PmvcScratch,
  type PmvcOptions,
  type PreparedCage,
} from './cage/pmvc.js';
export {
  bindToCage,
  bindRange,
  createCageBinder,
  bindParameters,
  checkInside,
  DEFAULT_CAGE_INFLUENCES,
  type CageBinding,
  type CageBindOptions,
  type CageCoordinates,
} from './cage/bind.js';
export { createCageDeformer, type CageDeformer, type CageSkin } from './cage/deform.js';
export { tubeCage, enclosingTubeCage, type EnclosingTubeOptions } from './cage/tube.js';
export { starCage, type StarCageOptions } from './cage/star.js';
export { skinCageToSkeleton, createCageSkinningDeformer, type CageRig } from './cage/rig.js';
export { bindToCageOnWorker, type WorkerCageBindOptions, type CageWorkerRequest } from './cage/web-worker.js';
export { buildTemplateRigOnWorker, type TemplateWorkerRequest } from './methods/templates/web-worker.js';
export { bindJointPositions } from './core/skeleton.js';
export { sphericalAverage } from './methods/templates/spherical-average.js';
export {
  frameRotation,
  jointKeyPosition,
  blendMagnitudeDirection,
  type TemplateKey,
} from './methods/templates/joint.js';
export {
  boneMap,
  boneMapInverse,
  boneKeyPosition,
  blendCylindrical,
  type BoneTemplateFrame,
} from './methods/templates/bone.js';
export { createKeyPoseWeights, createRbfWeights, poseDistance } from './methods/templates/key-poses.js';
export {
  DEFAULT_TEMPLATE_LIBRARY,
  DESIGN_VERTICES,
  MAX_INCIDENT_BONES,
  incidentBones,
  parseTemplateLibrary,
  withTemplates,
  type TemplateLibrary,
  type TemplateDefinition,
  type BoneKeyPose,
} from './methods/templates/library.js';
export {
  buildTemplateRig,
  templateLimbChains,
  templateShares,
  rebindTemplateRig,
  type TemplateLimb,
  type TemplateRig,
  type TemplateBuildOptions,
  type VertexRole,
} from './methods/templates/rig.js';
export { templateRigPart, joinTemplateRigParts } from './methods/templates/rig-parts.js';
export { templateSkinOutside, skinOutsideMessage } from './methods/templates/outside.js';
export {
  compatibleTemplates,
  moveTemplateCageVertex,
  bindOrientationMove,
  dragTemplateKeyPose,
  setBoneTemplate,
} from './methods/templates/edit.js';
export {
  createTemplateDeformer,
  createCageCorrection,
  templateCageMesh,
  type CageCorrection,
} from './methods/templates/deformer.js';
export type { NumbersOut } from './methods/templates/rotation.js';
export { createTemplateMemo, poseTemplates } from './methods/templates/pose.js';
export { skinFlex, BLEND_THRESHOLD } from './methods/templates/share.js';
export { skeletonChain, skeletonLimbs } from './core/limbs.js';
export { VERSION } from './version.js';
export {
  createStretchDeformer,
  stretchRigFromSkeleton,
  type StretchRig,
  type StretchOptions,
} from './deformers/stretch.js';
export { shepardWeights, boneSegments, type BoneSegments, type ShepardOptions } from './weights/shepard.js';
export { deformSbs } from './deformers/sbs.js';
export { deformLms, relativeTwist } from './deformers/lms.js';
export { bindLocalRotation, distributeTwist, twistAngle, type TwistJoint } from './core/twist.js';
export { skinningTemplatesMethod } from './methods/templates/index.js';
export { applyTemplateChoices } from './methods/templates/choices.js';
export { meshTemplateRig, setMeshTemplateRig } from './methods/templates/data.js';
export { TEMPLATE_PARAMETERS, parseTemplateChoices, type TemplateParameters } from './methods/templates/parameters.js';
