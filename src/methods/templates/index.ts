/**
 * Skinning templates (Ju, Zhou, van de Panne, Cohen-Or & Neumann 2008, "Reusable Skinning
 * Templates Using Cage-based Deformations", SIGGRAPH Asia) as a method module (see
 * {@link MethodModule}): the rig is read from the file (`storage.ts`, stored by `corskin templates
 * build` or `corskin precompute --method templates`) or built around the skeleton with the
 * built-in library (`rig.ts`), the template choices applied on top, and the deformer is DQS
 * corrected by the posed template cages (`deformer.ts`).
 *
 * @module
 */
import { CorskinError } from '../../core/errors.js';
import type { MethodModule } from '../module.js';
import { applyTemplateChoices } from './choices.js';
import { setMeshTemplateRig, meshTemplateRig } from './data.js';
import { createTemplateDeformer } from './deformer.js';
import { skinOutsideMessage, templateSkinOutside } from './outside.js';
import { parseTemplateChoices, TEMPLATE_PARAMETERS, TEMPLATES_METHOD_ID } from './parameters.js';
import { buildTemplateRig, emptyTemplateRig, NO_LIMB_TO_TEMPLATE } from './rig.js';
import { hasStoredTemplates, readTemplateRig } from './storage.js';

/**
 * Skinning templates: the mesh's rig (read with {@link MethodModule.read} or built, then kept on
 * the mesh), parameter `choices` applied to it. The deformer runs on meshes with the rig's
 * vertices (morphed or influence-limited copies of the mesh).
 */
export const skinningTemplatesMethod: MethodModule = {
  id: TEMPLATES_METHOD_ID,
  parameters: TEMPLATE_PARAMETERS,
  check: (parameters) => void parseTemplateChoices(parameters.choices),
  missing: (mesh) => (meshTemplateRig(mesh) ? undefined : 'template rig'),
  read: (document, model, file) => {
    const rig = readTemplateRig(document, model, file);
    if (!rig) {
      // `corskin templates build` stores a cage for every skin with a limb to template: in a file
      // it built (a cage of templates for another skin), this skin has none (DQS).
      if (hasStoredTemplates(document)) setMeshTemplateRig(model.mesh, emptyTemplateRig(model.mesh.positions.length / 3));
      return [];
    }
    setMeshTemplateRig(model.mesh, rig);
    const outside = templateSkinOutside(rig, model.mesh.positions);
    return outside.length
      ? [
          `${skinOutsideMessage(outside)} — move the cage out around them in the viewer or rebuild it (corskin templates build)`,
        ]
      : [];
  },
  summary: (mesh) => {
    const rig = meshTemplateRig(mesh);
    return rig?.limbs.length
      ? `template cages of ${rig.cage.positions.length / 3} vertices and ${rig.cage.triangles.length / 3} triangles around ${rig.limbs.length} limbs`
      : rig && NO_LIMB_TO_TEMPLATE;
  },
  prepare: ({ mesh, skeleton, parameters = {}, onProgress }) => {
    parseTemplateChoices(parameters.choices);
    let rig = meshTemplateRig(mesh);
    if (!rig) {
      rig = buildTemplateRig(mesh, skeleton, undefined, { onProgress });
      setMeshTemplateRig(mesh, rig);
    }
    applyTemplateChoices([{ rig, jointNames: skeleton.jointNames }], parameters.choices as string | undefined);
    return createTemplateDeformer(rig);
  },
  // The rig as `prepare` left it (choices applied there: they need the skeleton's joint names).
  // Loaded on demand (the WebAssembly kernels).
  simd: async (mesh, parameters = {}) => {
    if (parseTemplateChoices(parameters.choices).length)
      throw new CorskinError('template choices are applied by prepareMethod, which leaves the rig on the mesh for the SIMD kernels');
    return (await import('./simd.js')).createTemplateSimdDeformer(mesh);
  },
};
