/**
 * Skinning templates (Ju, Zhou, van de Panne, Cohen-Or & Neumann 2008, "Reusable Skinning
 * Templates Using Cage-based Deformations", SIGGRAPH Asia) built for every skin of a document and
 * stored in it: `corskin precompute --method templates` and `corskin templates build`.
 *
 * @module
 */
import type { Document } from '@gltf-transform/core';
import { CorskinError } from '../../core/errors.js';
import { extractSkinnedModels, type SkinnedModel } from '../../io/gltf.js';
import type { MethodPrecompute } from '../module.js';
import { applyTemplateChoices } from './choices.js';
import { parseTemplateChoices } from './parameters.js';
import { DEFAULT_TEMPLATE_LIBRARY, type TemplateLibrary } from './library.js';
import { buildTemplateRig, NO_LIMB_TO_TEMPLATE, type TemplateBuildOptions, type TemplateRig } from './rig.js';
import { writeTemplateRig } from './storage.js';

/** Options of {@link buildTemplateRigs}. */
export interface TemplateRigsOptions extends TemplateBuildOptions {
  /** The template library (default: the built-in one). */
  library?: TemplateLibrary;
  /** Template choices `JOINT=ID,…` over the built rigs' (the `choices` parameter). */
  choices?: string;
  /** The document's path, for error messages. */
  file?: string;
}

/**
 * The template rig of every skin of `document`, built around its skeleton with `library`, the
 * choices applied over all of them.
 * @throws CorskinError naming the file (and the skin) for a bad library or choices
 */
export function buildTemplateRigs(
  document: Document,
  { library = DEFAULT_TEMPLATE_LIBRARY, choices, file, ...options }: TemplateRigsOptions = {},
): { model: SkinnedModel; rig: TemplateRig }[] {
  // An unknown template fails before the build (the binding is the long part).
  for (const [, id] of parseTemplateChoices(choices))
    if (!library.templates.some((t) => t.id === id))
      throw new CorskinError(
        `template choices: no template "${id}" (templates: ${library.templates.map((t) => `${t.id} (${t.kind})`).join(', ')})`,
        file,
      );
  const rigs = extractSkinnedModels(document, file).map((model) => {
    try {
      return { model, rig: buildTemplateRig(model.mesh, model.skeleton, library, options) };
    } catch (e) {
      throw e instanceof CorskinError ? new CorskinError(`${model.name}: ${e.message}`, file, { cause: e }) : e;
    }
  });
  try {
    applyTemplateChoices(
      rigs.map(({ model, rig }) => ({ rig, jointNames: model.skeleton.jointNames })),
      choices,
    );
  } catch (e) {
    throw e instanceof CorskinError && !e.file ? new CorskinError(e.message, file, { cause: e }) : e;
  }
  return rigs;
}

/**
 * Stores each rig with limbs in the document (a skin without a limb to template has no cage: DQS).
 * @returns a line per skin on what was stored
 */
export function storeTemplateRigs(document: Document, rigs: { model: SkinnedModel; rig: TemplateRig }[]): string[] {
  return rigs.map(({ model, rig }) => {
    if (!rig.limbs.length) return `${model.name}: ${NO_LIMB_TO_TEMPLATE}`;
    writeTemplateRig(document, model, rig);
    return `${model.name}: template cages of ${rig.cage.positions.length / 3} vertices and ${rig.cage.triangles.length / 3} triangles around ${templateBones(rig)} bones in ${rig.limbs.length} limbs, bound with PMVC`;
  });
}

/** The template bones of `rig`: the bones of its limbs' chains. */
export const templateBones = (rig: TemplateRig): number => rig.limbs.reduce((s, l) => s + l.chain.length, 0);

/** The templates' precomputation for `corskin precompute` (see {@link MethodPrecompute}). */
const precompute: MethodPrecompute = {
  what: 'fitting and binding template cages',
  async precompute(document, { parameters, file, onProgress, onSkin }) {
    const rigs = buildTemplateRigs(document, { choices: parameters.choices as string | undefined, file, onProgress });
    storeTemplateRigs(document, rigs).forEach((line, k) => onSkin?.(line, rigs[k].model.warnings));
    return 'skinning templates of the built-in library';
  },
};
export default precompute;
