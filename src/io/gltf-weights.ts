/**
 * The skin weight accessors of glTF primitives: how many JOINTS_n/WEIGHTS_n sets a primitive
 * has, and renormalising float weights whose sums drifted (Draco quantisation, a bake's exact
 * normalisation).
 *
 * @module
 */
import { Accessor, type Document, type Primitive } from '@gltf-transform/core';

/** Number of JOINTS_n/WEIGHTS_n pairs of a primitive (n = 0, 1, … without a gap). */
export function influenceSets(p: Primitive): number {
  let sets = 0;
  while (p.getAttribute(`JOINTS_${sets}`) && p.getAttribute(`WEIGHTS_${sets}`)) sets++;
  return sets;
}

/**
 * Rescales the float `WEIGHTS_n` of `primitives` (default: every primitive) so each vertex's
 * weights sum to 1 exactly (to float precision), in place, where they are off by more than
 * `tolerance`. Draco quantises weights (sums off by ~1e-4, hidden inside the compressed data);
 * written uncompressed they would fail the glTF validator. A morph bake writes them normalised
 * (tolerance 0), as engines play them (three.js renormalises on loading) and as its corrections
 * were computed.
 * @returns number of vertices rescaled
 */
export function renormalizeWeightAccessors(
  document: Document,
  tolerance = 1e-7,
  primitives: readonly Primitive[] = document
    .getRoot()
    .listMeshes()
    .flatMap((m) => m.listPrimitives()),
): number {
  let count = 0;
  const el: number[] = [];
  for (const p of primitives) {
    const sets = influenceSets(p);
    const accs = Array.from({ length: sets }, (_, k) => p.getAttribute(`WEIGHTS_${k}`)!);
    if (!sets || accs.some((a) => a.getComponentType() !== Accessor.ComponentType.FLOAT)) continue;
    for (let i = 0; i < accs[0].getCount(); i++) {
      let sum = 0;
      for (const a of accs) for (const w of a.getElement(i, el)) sum += w;
      if (!(sum > 0) || !(Math.abs(sum - 1) > tolerance)) continue;
      for (const a of accs)
        a.setElement(
          i,
          a.getElement(i, el).map((w) => w / sum),
        );
      count++;
    }
  }
  return count;
}
