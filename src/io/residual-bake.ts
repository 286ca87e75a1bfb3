/**
 * Helpers, then residual morphs (`corskin bake --as helpers+morphs`): after the helper joints
 * (Le & Deng 2012, "Smooth Skinning Decomposition with Rigid Bones", ACM TOG 31(6), SIGGRAPH Asia
 * 2012; `helper-bake.ts`) have taken most of a method's departure from LBS, what they leave is
 * baked as sparse corrective morph targets (`morph-bake.ts`) on the skin as it now is — its
 * helpers, their channels and its new weights. The file then plays the method exactly at the
 * samples (within the morph bake's tolerance). It is no smaller than morphs alone: the helpers
 * leave about 6e-4 of the diagonal (CesiumMan, DQS, p99), far above the default 1e-5, so nearly
 * every correction is still needed, and their channels cost about what they save (CesiumMan CoR,
 * 16-bit positions: 1.00 MB against 0.99 MB, measured in docs/bake.md).
 *
 * @module
 */
import type { Document } from '@gltf-transform/core';
import { CorskinError } from '../core/errors.js';
import type { Deformer } from '../deformers/contract.js';
import { extractSkinnedModels, type SkinnedModel } from './gltf.js';
import { bakeMorphTargets, type MorphBakeOptions, type MorphBakeResult } from './morph-bake.js';

/**
 * Bakes what the skin of `original` in `document` — as an earlier bake left it, helper joints
 * appended to its joints — still misses of `deform` as corrective morph targets: the skin is read
 * again from `document`, and at each sample the targets turn its linear blend skinning into
 * `deform`'s result on the original mesh (the original joints' skinning matrices, which come first
 * in the skin, and the original weights and method data). Positions in the targets are bind-space
 * displacements, asset units.
 * @param original the skin as it was before the earlier bake (its mesh is the one `deform` was made for)
 * @param deform the method, a deformer of `original.mesh` (bind space → posed space)
 * @param options as {@link bakeMorphTargets}'s; `skins`: the document's skins as read after the
 *   earlier bake, for a caller baking several (read once, not once per skin)
 * @returns what the morph bake wrote, and the skin it baked on (read from `document`)
 * @throws CorskinError when `document` no longer holds the skin, or as {@link bakeMorphTargets}
 */
export function bakeResidualMorphs(
  document: Document,
  original: SkinnedModel,
  deform: Deformer,
  options: MorphBakeOptions & { skins?: readonly SkinnedModel[] } = {},
): MorphBakeResult & { model: SkinnedModel } {
  const skins = options.skins ?? extractSkinnedModels(document, options.file);
  const model = skins.find((m) => m.skin === original.skin);
  if (!model) throw new CorskinError(`${original.name}: the skin is no longer in the document`, options.file);
  const J = original.skeleton.parents.length;
  const { mesh } = model;
  // The same positions and directions (the morph bake's morphed mesh, the file's own targets
  // applied), on the original mesh: its weights, its method data.
  const residual: Deformer = (at, S, out) =>
    deform(
      at === mesh
        ? original.mesh
        : { ...original.mesh, positions: at.positions, normals: at.normals, tangents: at.tangents },
      S.subarray(0, 16 * J),
      out,
    );
  return { ...bakeMorphTargets(document, model, residual, options), model };
}
