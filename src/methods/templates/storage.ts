/**
 * Skinning templates (Ju et al. 2008) in glTF files: the template cage is a corskin cage (the
 * layout of `io/cage-gltf.ts`: its node, the skin's binding attributes) whose node extras carry
 * the templates ({@link StoredTemplates}: limbs, choices, library), as `corskin templates build`
 * and the viewer's export write them.
 *
 * @module
 */
import type { Document } from '@gltf-transform/core';
import { isCageNode, readCageRig, writeCageRig } from '../../io/cage-gltf.js';
import type { SkinnedModel } from '../../io/gltf.js';
import { CAGE_EXTRAS_KEY } from '../../io/schema.js';
import { CorskinError } from '../../core/errors.js';
import { applyTemplateChoices } from './choices.js';
import { buildTemplateRig, CAGE_INFLUENCES, type TemplateRig } from './rig.js';
import { restoreTemplateRig, storeTemplates, type StoredTemplates } from './stored.js';

/**
 * Writes a template rig into `document` for `model` (what `corskin templates build` stores): its
 * cage (skinned to the skeleton by Shepard weights to the bones, so any viewer shows it moving),
 * the binding and the template extras ({@link StoredTemplates}). A rig without limbs writes nothing.
 * @throws CorskinError when the cage has more than 65,536 vertices
 */
export function writeTemplateRig(document: Document, model: SkinnedModel, rig: TemplateRig): void {
  if (!rig.limbs.length) return;
  writeCageRig(
    document,
    model,
    {
      cage: rig.cage,
      binding: rig.binding,
      cageInfluences: CAGE_INFLUENCES,
      cageJoints: rig.cageSkin.joints,
      cageWeights: rig.cageSkin.weights,
    },
    storeTemplates(rig, model.skeleton.jointNames),
  );
}

/**
 * `model`'s template rig stored by `corskin templates build`, or undefined when its cage has none.
 * @throws CorskinError for a malformed layout (names a joint the skin lacks, sizes that disagree)
 */
export function readTemplateRig(document: Document, model: SkinnedModel, file?: string): TemplateRig | undefined {
  const cageRig = readCageRig(document, model, file);
  if (!cageRig) return undefined;
  const node = document
    .getRoot()
    .listNodes()
    .find((n) => isCageNode(n) && n.getSkin() === model.skin)!;
  const stored = ((node.getExtras() as Record<string, Record<string, unknown>>)[CAGE_EXTRAS_KEY].templates ??
    undefined) as StoredTemplates | undefined;
  if (!stored) return undefined;
  return restoreTemplateRig(
    stored,
    {
      jointIndex: (name) => model.skeleton.jointNames.indexOf(name),
      cage: cageRig.cage,
      binding: cageRig.binding,
      cageSkin: { joints: cageRig.cageJoints, weights: cageRig.cageWeights },
    },
    file,
  );
}

/** Whether `document` stores skinning templates for some skin (`corskin templates build` built it). */
export function hasStoredTemplates(document: Document): boolean {
  return document
    .getRoot()
    .listNodes()
    .some((n) => isCageNode(n) && !!(n.getExtras() as Record<string, Record<string, unknown>>)[CAGE_EXTRAS_KEY].templates);
}

/**
 * Template choices `JOINT=ID,…` checked against every skin of `document` before anything is
 * drawn: on each skin's stored rig, else on the rig the viewer would build for it
 * ({@link buildTemplateRig}), as `deform --method templates` applies them (`applyTemplateChoices`;
 * the rigs are read or built for the check alone).
 * @throws CorskinError naming `file` and `--template` for a choice no rig takes or an unknown template
 */
export function checkStoredOrBuiltChoices(
  document: Document,
  models: readonly SkinnedModel[],
  choices: string,
  file?: string,
): void {
  const rigs = models.map((m) => ({
    rig: readTemplateRig(document, m, file) ?? buildTemplateRig(m.mesh, m.skeleton),
    jointNames: m.skeleton.jointNames,
  }));
  try {
    applyTemplateChoices(rigs, choices);
  } catch (e) {
    throw e instanceof CorskinError ? new CorskinError(`--template: ${e.message}`, file) : e;
  }
}
