/**
 * `corskin/gltf`: corskin's meshes in and out of glTF-Transform documents, without file access
 * (browser-safe): the skinned models of a document ({@link extractSkinnedModels}: each skin's
 * primitives merged, its skeleton, animations and morph targets), centers of rotation into it
 * ({@link setCentersOfRotation}), a skinned document from raw arrays ({@link buildSkinnedDocument}),
 * template cages stored beside the skin. Kept out of the `corskin` entry, which has no
 * dependencies, because glTF-Transform's core contains `NodeIO`, whose dynamic `import('node:fs')`
 * esbuild cannot resolve for the browser: bundle this entry with
 * `--external:node:fs --external:node:path` (vite and webpack need nothing). File reading and
 * writing, with the Draco and meshopt codecs, are in `corskin/node`.
 *
 * @example
 * ```ts
 * import { WebIO } from '@gltf-transform/core';
 * import { computeCentersOfRotation } from 'corskin';
 * import { extractSkinnedModels, setCentersOfRotation } from 'corskin/gltf';
 *
 * const io = new WebIO();
 * const document = await io.read('character.glb');
 * for (const model of extractSkinnedModels(document)) {
 *   const { centers } = computeCentersOfRotation(model.mesh);
 *   setCentersOfRotation(document, model, centers, { sigma: 0.1, epsilon: 0.1 });
 * }
 * const glb = await io.writeBinary(document); // three.js's GLTFLoader reads the centers too
 * ```
 *
 * @module corskin/gltf
 */
export { COR_ATTRIBUTE } from './cor/precompute.js';
export {
  jointBoneSegments,
  extractSkinnedModels,
  setCentersOfRotation,
  type SkinnedModel,
  type SkinnedPart,
  type CorParameters,
} from './io/gltf.js';
export { buildSkinnedDocument, type ConvertInput, type ConvertReport } from './io/convert.js';
export { writeCageRig, readCageRig, removeCageRig, isCageNode, CAGE_EXTRAS_KEY } from './io/cage-gltf.js';
export { readTemplateRig, writeTemplateRig } from './methods/templates/storage.js';
export {
  storeTemplates,
  restoreTemplateRig,
  type StoredTemplates,
  type TemplateRigParts,
} from './methods/templates/stored.js';
export {
  bakeMorphTargets,
  bakeTemplateClips,
  DEFAULT_BAKE_TOLERANCE,
  DEFAULT_BAKE_NORMAL_TOLERANCE,
  type MorphBakeOptions,
  type MorphBakeResult,
  type TemplateBakeOptions,
  type TemplateBakeResult,
} from './io/morph-bake.js';
export {
  measureBake,
  measureBeyondClips,
  NEVER_WORSE_MARGIN,
  posedDiagonal,
  type BakeMeasure,
  type BeyondClipsMeasure,
  type MeasureOptions,
  type MeasuredSkin,
} from './bake/measure.js';
export { sampleMethod, type MethodSamples } from './bake/sampling.js';
export { bakeSampleTimes, DEFAULT_BAKE_RATE, MAX_BAKE_SAMPLES } from './bake/samples.js';
export { bakeHelperJoints, type HelperBakeOptions, type HelperBakeResult } from './io/helper-bake.js';
