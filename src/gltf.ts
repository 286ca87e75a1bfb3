/**
 * corskin/gltf: glTF-Transform document functions, without file access (browser-safe): skinned
 * models out of a document, centers of rotation into it, a skinned document from raw arrays. Kept
 * out of the `corskin` entry, which has no dependencies, because glTF-Transform's core contains
 * `NodeIO`, whose dynamic `import('node:fs')` esbuild cannot resolve for the browser: bundle this
 * entry with `--external:node:fs --external:node:path` (vite and webpack need nothing). File
 * reading and writing are in `corskin/node`.
 *
 * @example
 * ```ts
 * import { WebIO } from '@gltf-transform/core';
 * import { extractSkinnedModels } from 'corskin/gltf';
 * const models = extractSkinnedModels(await new WebIO().read('character.glb'));
 * ```
 * @module
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
export {
  writeCageRig,
  readCageRig,
  removeCageRig,
  isCageNode,
  readTemplateRig,
  writeTemplateRig,
  CAGE_EXTRAS_KEY,
} from './io/cage-gltf.js';
export { storeTemplates, restoreTemplateRig, type StoredTemplates, type TemplateRigParts } from './templates/stored.js';
export { bakeTemplateClips, type TemplateBakeOptions, type TemplateBakeResult } from './io/template-bake.js';
