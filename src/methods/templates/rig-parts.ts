/**
 * A template rig split as the skin is (three.js loads a glTF skin of several primitives as one
 * SkinnedMesh each) and joined again: each part shares the rig's limbs, cage and library, and
 * holds its slice of the binding.
 *
 * @module
 */
import type { TemplateRig } from './rig.js';

/**
 * The rig of one part of the skin a rig was built for (a skin split into meshes, as three.js
 * loads a glTF skin of several primitives: see {@link mergeSkinnedMeshes}): the same limbs, cage
 * and library (shared: a template switch or a cage edit reaches every part) and the part's slice
 * of the binding, so the part deforms exactly as its vertices of the whole skin do.
 * @param first the part's first vertex in the whole skin; @param n its vertex count
 */
export function templateRigPart(rig: TemplateRig, first: number, n: number): TemplateRig {
  const k = rig.binding.influences;
  return { ...rig, binding: { ...rig.binding, indices: rig.binding.indices.slice(k * first, k * (first + n)), weights: rig.binding.weights.slice(k * first, k * (first + n)) } };
}

/** The whole skin's rig from its parts' rigs ({@link templateRigPart}, in order). */
export function joinTemplateRigParts(parts: readonly TemplateRig[]): TemplateRig {
  const join = <T extends Uint32Array | Float32Array>(get: (r: TemplateRig) => T, make: (n: number) => T) => {
    const out = make(parts.reduce((t, r) => t + get(r).length, 0));
    parts.reduce((o, r) => (out.set(get(r), o), o + get(r).length), 0);
    return out;
  };
  const binding = { ...parts[0].binding, indices: join((r) => r.binding.indices, (n) => new Uint32Array(n)), weights: join((r) => r.binding.weights, (n) => new Float32Array(n)) }; // prettier-ignore
  return { ...parts[0], binding };
}
