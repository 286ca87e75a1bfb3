/**
 * The (pivot, joint) pairs of log-matrix skinning's SIMD kernels (asm/kernels.ts `lms`,
 * asm/two-phase.ts `lmsStretched`): each vertex blends the logarithms of its joints' transforms
 * relative to its pivot's (src/deformers/lms.ts), and a mesh has few distinct pairs — a joint and
 * its neighbours — so each frame computes one logarithm per pair, not per influence.
 *
 * @module
 */
import { relativeRotationLogarithm, relativeTwist } from '../deformers/lms.js';

/** A mesh's pairs, from its packed influences (`packInfluences`: the pivot in slot 0). */
export interface LmsPairs {
  /** Per slot (K per vertex) its pair; 0 in the pivot's own slot and the unused ones. */
  slotPair: Uint32Array;
  /** Per pair the pivot joint and the other joint. */
  pivot: Uint32Array;
  joint: Uint32Array;
}

/**
 * The pairs of packed influences.
 * @param joints K·n joint indices, the pivot first; @param counts n used slot counts
 */
export function lmsPairs(joints: Uint16Array, counts: Uint8Array, K: number): LmsPairs {
  const slotPair = new Uint32Array(joints.length);
  const index = new Map<number, number>();
  const pivot: number[] = [];
  const joint: number[] = [];
  for (let i = 0; i < counts.length; i++) {
    const a = joints[K * i];
    for (let k = 1; k < counts[i]; k++) {
      const b = joints[K * i + k];
      const key = a * 65536 + b;
      let x = index.get(key);
      if (x === undefined) {
        index.set(key, (x = pivot.length));
        pivot.push(a);
        joint.push(b);
      }
      slotPair[K * i + k] = x;
    }
  }
  return { slotPair, pivot: Uint32Array.from(pivot), joint: Uint32Array.from(joint) };
}

/**
 * The frame's twist of each pair, log(M_pivot⁻¹ M_joint) ({@link relativeTwist}), as the `lms`
 * kernel reads them: 8 f32 per pair, ω, 0, u, 0.
 * @param skinning rigid skinning matrices, 16·J; @param rotations their quaternions, 4·J
 * @param out 8 per pair; @param twist scratch, 6 numbers (the caller's, so a frame allocates nothing)
 */
export function writePairTwists(
  pairs: LmsPairs,
  skinning: Float64Array,
  rotations: Float64Array,
  out: Float32Array,
  twist: Float64Array,
): void {
  for (let x = 0; x < pairs.pivot.length; x++) {
    relativeTwist(skinning, rotations, pairs.pivot[x], pairs.joint[x], twist, 0);
    for (let e = 0; e < 3; e++) {
      out[8 * x + e] = twist[e];
      out[8 * x + 4 + e] = twist[3 + e];
    }
  }
}

/**
 * The frame's rotation logarithm of each pair, log(R_pivotᵀ R_joint), as the `lmsStretched`
 * kernel reads them: 4 f64 per pair, ω and V(ω)⁻¹'s coefficient c ({@link relativeRotationLogarithm}).
 * @param rotations the skinning matrices' rotations (unit quaternions), 4·J
 * @param out a Float64Array over the kernels' memory; @param at its first element
 */
export function writePairLogarithms(pairs: LmsPairs, rotations: Float64Array, out: Float64Array, at: number): void {
  for (let x = 0; x < pairs.pivot.length; x++)
    out[at + 4 * x + 3] = relativeRotationLogarithm(rotations, pairs.pivot[x], pairs.joint[x], out, at + 4 * x);
}
