/**
 * The stored form of a template rig (what `corskin templates build` writes into the cage node's
 * extras, `corskinCage.templates`, version 3), independent of any glTF library, so three.js pages
 * and the glTF reader restore rigs the same way.
 *
 * @module
 */
import type { CageBinding } from '../../cage/bind.js';
import type { Cage } from '../../cage/cage.js';
import { CorskinError } from '../../core/errors.js';
import { parseTemplateLibrary, type TemplateLibrary } from './library.js';
import { vertexRole } from './fit.js';
import { CAGE_INFLUENCES, type TemplateLimb, type TemplateRig } from './rig.js';

/**
 * A template rig as node extras (`corskinCage.templates`, version 3; version 2 was the rig before
 * templates became a corrective over DQS, rebuild those): per limb its joints by name,
 * its bone geometry, every cage vertex's template and rest position in that template's frame and
 * its bones' template choices; the library the choices come from. The cage itself and the
 * binding are stored beside it (the cage mesh, the skin's `_CAGE_INDICES_n`/`_CAGE_WEIGHTS_n`).
 */
export interface StoredTemplates {
  /** Layout version, 3. */
  version: 3;
  /** Per templated limb, in cage order ({@link TemplateLimb}). */
  limbs: {
    /** Joint names of the chain, root to leaf. */
    chain: string[];
    /** Bind-space bone start points and the end point of the last bone, 3·(n + 1). */
    points: number[];
    /** Unit bone directions, 3·n. */
    axes: number[];
    /** Unit reference directions ⊥ each bone, 3·n. */
    references: number[];
    /** Per cage vertex of the limb: kind (0 bone, 1 joint, 2 cap), index, local x, y, z. */
    vertices: number[];
    /** Per chain bone, its bone template's id. */
    boneTemplates: string[];
    /** Per chain joint, its joint template ('' for the first). */
    jointTemplates: string[];
  }[];
  /** The template library the choices come from. */
  library: TemplateLibrary;
}

const KINDS = ['bone', 'joint', 'cap'] as const;

/** The stored form of a template rig; `jointNames` names the skeleton's joints (length J). */
export function storeTemplates(rig: TemplateRig, jointNames: readonly string[]): StoredTemplates {
  return {
    version: 3,
    limbs: rig.limbs.map((limb) => ({
      chain: limb.chain.map((j) => jointNames[j]),
      points: Array.from(limb.points),
      axes: Array.from(limb.axes),
      references: Array.from(limb.references),
      vertices: limb.roles.flatMap((r) => [KINDS.indexOf(r.kind), r.index, ...r.local]),
      boneTemplates: [...limb.boneTemplates],
      jointTemplates: [...limb.jointTemplates],
    })),
    library: rig.library,
  };
}

/** What {@link restoreTemplateRig} needs beside the stored extras, all in the skin's bind space. */
export interface TemplateRigParts {
  /** The skeleton joint a stored joint name means, or −1 when the skin has none of that name. */
  jointIndex: (name: string) => number;
  /** The stored cage (its vertices in limb order). */
  cage: Cage;
  /** The stored binding of the skin to that cage. */
  binding: CageBinding;
  /** The cage's own skinning (its `JOINTS_0`/`WEIGHTS_0`, four per vertex). */
  cageSkin: TemplateRig['cageSkin'];
}

/**
 * The template rig of stored extras (see {@link StoredTemplates}), as the build made it.
 * @param file named in error messages
 * @throws CorskinError for a malformed layout (a joint the skin lacks, sizes that disagree, a
 *   template the library lacks)
 */
export function restoreTemplateRig(stored: StoredTemplates, parts: TemplateRigParts, file?: string): TemplateRig {
  const bad = (why: string) => new CorskinError(`the template cage's extras ${why}`, file);
  if (stored?.version !== 3 || !Array.isArray(stored.limbs)) throw bad(`are not version 3 (rebuild with corskin templates build)`);
  const library = parseTemplateLibrary(stored.library, file);
  const joint = (name: string) => {
    const j = parts.jointIndex(name);
    if (j < 0) throw new CorskinError(`the template cage names joint "${name}", which the skin lacks`, file);
    return j;
  };
  const has = (id: string, kind: 'bone' | 'joint') => library.templates.some((t) => t.id === id && t.kind === kind);
  let first = 0;
  const limbs: TemplateLimb[] = stored.limbs.map((s) => {
    const chain = s.chain.map(joint);
    const n = chain.length;
    const m = s.vertices.length / 5;
    if (
      s.points.length !== 3 * (n + 1) ||
      s.axes.length !== 3 * n ||
      s.references.length !== 3 * n ||
      s.boneTemplates.length !== n ||
      !Array.isArray(s.jointTemplates) ||
      s.jointTemplates.length !== n ||
      !Number.isInteger(m)
    )
      throw bad('do not match their chains');
    for (const id of s.boneTemplates) if (!has(id, 'bone')) throw bad(`use "${id}", which their library lacks`);
    for (const id of s.jointTemplates.slice(1)) if (!has(id, 'joint')) throw bad(`use "${id}", which their library lacks`);
    const limb: TemplateLimb = {
      chain,
      points: Float64Array.from(s.points),
      axes: Float64Array.from(s.axes),
      references: Float64Array.from(s.references),
      first,
      roles: Array.from({ length: m }, (_, v) => vertexRole(KINDS[s.vertices[5 * v]], s.vertices[5 * v + 1], s.vertices.slice(5 * v + 2, 5 * v + 5))),
      boneTemplates: [...s.boneTemplates],
      jointTemplates: [...s.jointTemplates],
    };
    first += m;
    return limb;
  });
  if (first !== parts.cage.positions.length / 3) throw bad('do not match the cage');
  if (parts.cageSkin.joints.length !== CAGE_INFLUENCES * first) throw bad('do not match the cage skinning');
  return { limbs, cage: parts.cage, binding: parts.binding, cageSkin: parts.cageSkin, library };
}
