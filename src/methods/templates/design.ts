/**
 * The design frame of a template's drawn key poses (library version 2's `offsets`): where a cage
 * vertex lies among the template's 24 design vertices (3 rings of 8 sides, see
 * {@link DESIGN_VERTICES}), so that a key pose drawn once on design vertices acts on any fitted
 * cage — Ju, Zhou, van de Panne, Cohen-Or, Neumann, "Reusable Skinning Templates Using Cage-based
 * Deformations", ACM TOG 27(5), SIGGRAPH Asia 2008, §3: templates are designed once, in a
 * normalised frame, and fitted to each character.
 *
 * @module
 */
import { DESIGN_VERTICES } from './library.js';

/** Sides of a design ring. */
export const DESIGN_SIDES = 8;

/**
 * The design vertices a cage vertex takes its displacement from, with their weights (bilinear:
 * linear around the ring, periodic, and across rings).
 * @param ring the vertex's ring coordinate: 0, 1, 2 at the design rings; bone templates take
 *   4t − 1 for the place t ∈ [0, 1] along the bone, so below 0 and above 2 the displacement fades
 *   to none at the bone's ends
 * @param phi the vertex's angle about the bone from the inner side of the bend (rad, right-handed)
 * @param index out: up to 4 design vertices (8·ring + side)
 * @param weight out: their weights (sum 1 within the rings, less beyond them)
 * @returns how many of `index`/`weight` are set
 */
export function designSamples(ring: number, phi: number, index: Int32Array, weight: Float64Array): number {
  const s = (((phi / (2 * Math.PI)) * DESIGN_SIDES) % DESIGN_SIDES + DESIGN_SIDES) % DESIGN_SIDES;
  const s0 = Math.min(DESIGN_SIDES - 1, Math.floor(s)), fs = s - s0; // prettier-ignore
  const s1 = (s0 + 1) % DESIGN_SIDES;
  const r = Math.max(-1, Math.min(3, ring));
  const r0 = Math.floor(r), fr = r - r0; // prettier-ignore
  let n = 0;
  for (const [k, wk] of [[r0, 1 - fr], [r0 + 1, fr]] as const) {
    if (k < 0 || k > 2 || wk === 0) continue;
    index[n] = DESIGN_SIDES * k + s0;
    weight[n++] = wk * (1 - fs);
    if (fs === 0) continue;
    index[n] = DESIGN_SIDES * k + s1;
    weight[n++] = wk * fs;
  }
  return n;
}

/** The design vertex mirrored about the bend plane: same ring, side −s. */
export function mirroredDesignVertex(d: number): number {
  const ring = Math.floor(d / DESIGN_SIDES), side = d % DESIGN_SIDES; // prettier-ignore
  return DESIGN_SIDES * ring + ((DESIGN_SIDES - side) % DESIGN_SIDES);
}

/** 3·24 zeros: a key pose without offsets. */
export const noOffsets = (): Float64Array => new Float64Array(3 * DESIGN_VERTICES);
