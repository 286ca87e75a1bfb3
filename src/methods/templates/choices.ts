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
    const kind = rigs[0]?.rig.library.templates.find((t) => t.id === id)?.kind;
    let applied = false;
    let starts = false; // the joint starts a limb (a bone template there, no joint template)
    for (const { rig, jointNames } of rigs) {
      const j = jointNames.indexOf(joint);
      if (j < 0) continue;
      const at = rig.limbs.map((l) => l.chain.indexOf(j));
      if (at.some((i) => i >= (kind === 'joint' ? 1 : 0))) {
        setBoneTemplate(rig, j, id, `"${joint}"`);
        applied = true;
      } else if (at.some((i) => i === 0)) starts = true;
    }
    if (applied) continue;
    if (starts)
      throw new CorskinError(
        `template choices: "${joint}" starts its limb: it takes a bone template, not the joint template "${id}"`,
      );
    const names = new Set(
      rigs.flatMap(({ rig, jointNames }) => rig.limbs.flatMap((l) => l.chain.map((j) => jointNames[j]))),
    );
    throw new CorskinError(
      `template choices: no template bone starts at "${joint}" (bones start at ${[...names].join(', ') || 'no joint: the skin has no templated limb'})`,
    );
  }
}
