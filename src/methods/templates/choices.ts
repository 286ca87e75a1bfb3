/**
 * Template choices on template rigs (Ju et al. 2008, §4: a template per bone and joint, chosen
 * from the library): `JOINT=ID,…` applied to every rig that has the joint.
 *
 * @module
 */
import { CorskinError } from '../../core/errors.js';
import { setBoneTemplate } from './edit.js';
import { parseTemplateChoices } from './parameters.js';
import type { TemplateRig } from './rig.js';

/**
 * Applies template choices `JOINT=ID,…` (a bone template to the bones that start at the joint, a
 * joint template to the joint) to every rig of `rigs` that has that joint in a limb, in place.
 * @param rigs the rigs, each with its skeleton's joint names
 * @throws CorskinError naming the parameter for a malformed item, a joint that starts no template
 *   bone in any rig, an unknown or incompatible template
 */
export function applyTemplateChoices(
  rigs: readonly { rig: TemplateRig; jointNames: readonly string[] }[],
  choices: string | undefined,
): void {
  for (const [joint, id] of parseTemplateChoices(choices)) {
    let applied = false;
    for (const { rig, jointNames } of rigs) {
      const j = jointNames.indexOf(joint);
      const kind = rig.library.templates.find((t) => t.id === id)?.kind;
      if (j >= 0 && rig.limbs.some((l) => l.chain.indexOf(j) >= (kind === 'joint' ? 1 : 0))) {
        setBoneTemplate(rig, j, id);
        applied = true;
      }
    }
    if (!applied) {
      const starts = new Set(
        rigs.flatMap(({ rig, jointNames }) => rig.limbs.flatMap((l) => l.chain.map((j) => jointNames[j]))),
      );
      throw new CorskinError(
        `template choices: no template bone starts at "${joint}" (bones start at ${[...starts].join(', ') || 'no joint: the skin has no templated limb'})`,
      );
    }
  }
}
