/**
 * A helper joint's frames (the helper bake, `io/helper-bake.ts`): where it is bound, its local
 * transform from its joint at a sample, its keys, and the skinning matrix the written file plays
 * for it — a glTF node keyed by translation and rotation only, at unit scale and with the
 * keys' precision, cannot hold the shear a fitted transform gets under a joint scaled unevenly.
 *
 * Helper h hangs from joint j and is bound at `C_h = IBM_j⁻¹ · T(o_h)`, its joint's bind frame moved
 * to its members' centre c_h (`helper-fit.ts`) (o_h = IBM_j · c_h, the centre in the joint's frame): its local
 * transform at bind is the translation o_h alone, of unit scale and no rotation, under a scaled or
 * mirrored armature as under any, the convention of the rig's own joints. Its skinning matrix X_h
 * maps bind space to posed space, and its local transform is `IBM_j · S_j⁻¹ · X_h · C_h` (S_j the
 * joint's skinning matrix at the sample).
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';
import { mat4FromTRS, mat4Invert, mat4Multiply, quatFromMat4, type NumArray } from '../core/math.js';

/** The frames of H helpers ({@link helperFrames}); matrices 4×4 column-major. */
export interface HelperFrames {
  /** The inverse bind matrix of helper h, `C_h⁻¹ = T(−o_h) · IBM_j` (made once; not to be modified). */
  inverseBind(h: number): Float64Array;
  /** The translation o_h of helper h's local transform at bind (3; its rotation and scale are the identity's). */
  offset(h: number): Float64Array;
  /**
   * Helper h's key at sample s of a clip: its local transform's translation (float32) and rotation
   * (its columns normalised, as `quatFromMat4` takes it, either sign; on the signed 16-bit grid
   * k/32767 when `short`, as a normalized SHORT accessor stores it, the grid alike for q and −q)
   * written to `translation[3s..]` and `rotation[4s..]`. Then `X[16h..]` is replaced by the
   * skinning matrix a player makes of that key (the rotation normalised, at unit scale): what the
   * file plays, which is the fit itself only where the local transform was a rotation at that
   * scale (not under a joint scaled unevenly).
   */
  key(
    S: Float64Array,
    X: Float64Array,
    h: number,
    translation: Float32Array,
    rotation: Float32Array,
    s: number,
    short: boolean,
  ): void;
  /**
   * Writes to `X[16h..]` the skinning matrix a player makes of helper h's key with translation
   * `translation[to..to+3)` and rotation `rotation[ro..ro+4)` (normalised here; unit scale, the
   * node's), under the joints' skinning matrices `S` (16·J) at that time: what {@link key}
   * writes for a key it makes, and what a key interpolated between two (`key-reduction.ts`) plays.
   */
  play(
    S: Float64Array,
    X: Float64Array,
    h: number,
    translation: NumArray,
    to: number,
    rotation: NumArray,
    ro: number,
  ): void;
}

/** Signed 16-bit normalized steps: the rotation keys are stored as k/SHORT (glTF normalized SHORT). */
export const SHORT = 32767;

/**
 * Unit quaternion `q` on the signed 16-bit grid (k/32767, written to `out[o..o+4)`): each component
 * rounded down or up in magnitude, the combination whose norm is nearest 1 (a player that does not
 * normalise a key, as three.js, then plays it within about 1e-6 of a rotation); by magnitude, so
 * that a key and its negation store the same magnitudes.
 */
function shortQuaternion(q: number[], out: Float32Array, o: number): void {
  let best = Infinity;
  let bestMask = 0;
  for (let mask = 0; mask < 16; mask++) {
    let norm = 0;
    let distance = 0;
    for (let c = 0; c < 4; c++) {
      const x = Math.abs(q[c]) * SHORT;
      const k = Math.min(SHORT, Math.floor(x) + ((mask >> c) & 1));
      norm += k * k;
      distance += (k - x) ** 2;
    }
    const score = Math.abs(norm - SHORT * SHORT) + 1e-3 * distance;
    if (score < best) {
      best = score;
      bestMask = mask;
    }
  }
  for (let c = 0; c < 4; c++) {
    const k = Math.min(SHORT, Math.floor(Math.abs(q[c]) * SHORT) + ((bestMask >> c) & 1));
    out[o + c] = ((q[c] < 0 ? -1 : 1) * k) / SHORT;
  }
}

/**
 * The frames of the helpers hanging from joints `helperJoint` bound at `helperCentre`.
 * @param ibm the skeleton's inverse bind matrices (16·J)
 * @param jointName for error messages
 */
export function helperFrames(
  ibm: Float64Array,
  helperJoint: readonly number[],
  helperCentre: readonly number[][],
  jointName: (j: number) => string,
  file?: string,
): HelperFrames {
  // Per helper, made once: its joint's IBM⁻¹, C_h and C_h⁻¹ = T(−o_h) · IBM_j (the keys use them
  // at every sample).
  const ibmInverses = helperJoint.map((j) => {
    const m = new Float64Array(16);
    if (!mat4Invert(m, 0, ibm, 16 * j)) throw new CorskinError(`joint "${jointName(j)}" has a singular inverse bind matrix`, file); // prettier-ignore
    return m;
  });
  const offsets = helperJoint.map((j, h) => {
    const [c, o] = [helperCentre[h], new Float64Array(3)];
    for (let r = 0; r < 3; r++) o[r] = ibm[16 * j + r] * c[0] + ibm[16 * j + 4 + r] * c[1] + ibm[16 * j + 8 + r] * c[2] + ibm[16 * j + 12 + r]; // prettier-ignore
    return o;
  });
  const translate = (o: ArrayLike<number>, sign: number) => new Float64Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, sign * o[0], sign * o[1], sign * o[2], 1]); // prettier-ignore
  const centres = helperJoint.map((_, h) => {
    const m = new Float64Array(16);
    mat4Multiply(m, 0, ibmInverses[h], 0, translate(offsets[h], 1), 0);
    return m;
  });
  const inverseBinds = helperJoint.map((j, h) => {
    const m = new Float64Array(16);
    mat4Multiply(m, 0, translate(offsets[h], -1), 0, ibm, 16 * j);
    return m;
  });
  const inv = new Float64Array(16);
  const tmp = new Float64Array(16);
  const out = new Float64Array(16);
  /**
   * The local transform of helper h from its joint, `IBM_j · S_j⁻¹ · X_h · C_h`, at the sample whose
   * joints' skinning matrices are `S` (16·J) and helpers' `X` (16·H): scratch, valid until the next call.
   * @throws CorskinError when the joint's skinning matrix is singular there
   */
  const local = (S: Float64Array, X: Float64Array, h: number) => {
    const j = helperJoint[h];
    if (!mat4Invert(inv, 0, S, 16 * j))
      throw new CorskinError(`joint "${jointName(j)}" has a singular matrix in a clip`, file);
    mat4Multiply(tmp, 0, X, 16 * h, centres[h], 0);
    mat4Multiply(out, 0, inv, 0, tmp, 0);
    mat4Multiply(tmp, 0, ibm, 16 * j, out, 0);
    return tmp;
  };
  const unit = [1, 1, 1];
  const q = [0, 0, 0, 1];
  const keyed = new Float64Array(16);
  const play: HelperFrames['play'] = (S, X, h, translation, to, rotation, ro) => {
    const n = Math.hypot(rotation[ro], rotation[ro + 1], rotation[ro + 2], rotation[ro + 3]);
    for (let c = 0; c < 4; c++) q[c] = rotation[ro + c] / n;
    mat4FromTRS(keyed, 0, translation, to, q, 0, unit, 0);
    // X = S_j · IBM_j⁻¹ · keyed · C_h⁻¹
    mat4Multiply(tmp, 0, keyed, 0, inverseBinds[h], 0);
    mat4Multiply(out, 0, ibmInverses[h], 0, tmp, 0);
    mat4Multiply(X, 16 * h, S, 16 * helperJoint[h], out, 0);
  };
  return {
    inverseBind: (h) => inverseBinds[h],
    offset: (h) => offsets[h],
    key(S, X, h, translation, rotation, s, short) {
      const m = local(S, X, h);
      for (let c = 0; c < 3; c++) translation[3 * s + c] = m[12 + c];
      quatFromMat4(q, 0, m, 0);
      if (short) shortQuaternion(q, rotation, 4 * s);
      else rotation.set(q, 4 * s);
      play(S, X, h, translation, 3 * s, rotation, 4 * s);
    },
    play,
  };
}
