/**
 * The parameters of skinning templates (Ju, Zhou, van de Panne, Cohen-Or & Neumann 2008,
 * "Reusable Skinning Templates Using Cage-based Deformations", SIGGRAPH Asia) as every surface
 * offers them, and their check. No computation here: the CLI reads it at start-up.
 *
 * @module
 */
import { CorskinError } from '../../core/errors.js';
import type { MethodParameter } from '../parameter.js';

/** The parameters of skinning templates. */
export interface TemplateParameters {
  /**
   * Template choices over those of the rig, `JOINT=ID,…`: a bone template for the bones that
   * start at the joint, a joint template for the joint (ids of the rig's library). Default: none.
   */
  choices?: string;
}

/** The skinning templates method's id: in the method registry, the CLI's `--method` and the viewer. */
export const TEMPLATES_METHOD_ID = 'templates' as const;

/** The options surfaces offer for {@link TemplateParameters}. */
export const TEMPLATE_PARAMETERS: readonly MethodParameter[] = [
  {
    key: 'choices',
    flag: 'template',
    kind: 'text',
    description: 'bone or joint templates, JOINT=ID,… over those stored in the file (see corskin templates list)',
    default: '',
    overStored: true,
  },
];

/**
 * The `JOINT=ID` pairs of template choices.
 * @throws CorskinError naming the parameter for an item that is not `JOINT=ID`
 */
export function parseTemplateChoices(choices: unknown): [joint: string, id: string][] {
  if (choices === undefined || choices === '') return [];
  if (typeof choices !== 'string')
    throw new CorskinError(`template choices: expected JOINT=ID,…, got ${typeof choices}`);
  const pairs: [string, string][] = [];
  for (const item of choices.split(',')) {
    if (!item.trim()) continue; // a trailing or doubled comma
    const [joint, id, extra] = item.split('=').map((x) => x.trim());
    if (!joint || !id || extra !== undefined)
      throw new CorskinError(`template choices: "${item}" is not JOINT=ID (a joint's name, =, a template's id)`);
    if (pairs.some(([j]) => j === joint))
      throw new CorskinError(`template choices: "${joint}" is given twice (one template per joint)`);
    pairs.push([joint, id]);
  }
  return pairs;
}
