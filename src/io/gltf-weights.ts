/**
 * The skin weight accessors of glTF primitives: how many JOINTS_n/WEIGHTS_n sets a primitive
 * has, removing them before new ones are written, and renormalising float weights whose sums drifted (Draco quantisation, a bake's exact
 * normalisation).
 *
 * @module
 */
import { Accessor, type Document, type Primitive } from '@gltf-transform/core';
import { disposeIfUnused } from './unused.js';
import { quantizeVertexWeights } from '../core/weight-quantization.js';

/**
 * Removes every JOINTS_n/WEIGHTS_n attribute of `p` (before new influences are written), disposing
 * of the accessors nothing else uses.
 */
export function removeInfluenceSets(p: Primitive): void {
  for (const semantic of p.listSemantics())
    if (/^(JOINTS|WEIGHTS)_\d+$/.test(semantic)) {
      const old = p.getAttribute(semantic);
      p.setAttribute(semantic, null);
      disposeIfUnused(old);
    }
}

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

/**
 * Skin weights as normalised unsigned 16-bit integers (`WEIGHTS_n` as UNSIGNED_SHORT, allowed by
 * glTF 2.0 itself: half the bytes of float weights): per vertex, over all its sets, the integers of
 * {@link quantizeVertexWeights} — summing to exactly 65535 for weights summing to 1 within
 * `WEIGHT_SUM_TOLERANCE` (such as Draco's quantised weights, off by about 1e-4), so the glTF
 * validator and engines see normalised weights; each within one step, 1.5e-5, of its float weight.
 * @param sets per set, 4 float weights per vertex (the same vertex count in each)
 * @returns per set, 4 integers per vertex (decoded as value / 65535)
 */
export function quantizeWeightSets(sets: readonly Float32Array[]): Uint16Array[] {
  const count = (sets[0]?.length ?? 0) / 4;
  const out = sets.map((s) => new Uint16Array(s.length));
  const K = 4 * sets.length;
  const fraction = new Float64Array(K);
  const order = new Int32Array(K);
  const row = new Uint16Array(K);
  for (let v = 0; v < count; v++) {
    quantizeVertexWeights((k) => sets[k >> 2][4 * v + (k & 3)], K, row, 0, fraction, order);
    for (let k = 0; k < K; k++) out[k >> 2][4 * v + (k & 3)] = row[k];
  }
  return out;
}

/**
 * Reorders each vertex's influences over all the JOINTS_n/WEIGHTS_n sets of `primitives` so the
 * heaviest come first (ties in their stored order), in place. Linear blend skinning over every
 * influence is unchanged (the same pairs; only the float summation order differs); an engine that
 * skins the first set only (three.js's stock GLTFLoader) then plays the 4 heaviest.
 * @returns number of vertices reordered
 */
export function sortInfluencesHeaviestFirst(primitives: readonly Primitive[]): number {
  let count = 0;
  const el: number[] = [];
  for (const p of primitives) {
    const sets = influenceSets(p);
    if (sets < 2) continue;
    const joints = Array.from({ length: sets }, (_, k) => p.getAttribute(`JOINTS_${k}`)!);
    const weights = Array.from({ length: sets }, (_, k) => p.getAttribute(`WEIGHTS_${k}`)!);
    for (let i = 0; i < joints[0].getCount(); i++) {
      const pairs = joints.flatMap((a, k) => {
        const js = a.getElement(i, el).slice();
        const ws = weights[k].getElement(i, el).slice();
        return js.map((j, c) => ({ j, w: ws[c] }));
      });
      const sorted = pairs.map((x, k) => ({ ...x, k })).sort((a, b) => b.w - a.w || a.k - b.k);
      if (sorted.every((x, k) => x.k === k)) continue;
      for (let s = 0; s < sets; s++) {
        joints[s].setElement(
          i,
          [0, 1, 2, 3].map((c) => sorted[4 * s + c].j),
        );
        weights[s].setElement(
          i,
          [0, 1, 2, 3].map((c) => sorted[4 * s + c].w),
        );
      }
      count++;
    }
  }
  return count;
}
