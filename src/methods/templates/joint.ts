/**
 * Joint templates (Ju, Zhou, van de Panne, Cohen-Or, Neumann, "Reusable Skinning Templates Using
 * Cage-based Deformations", ACM TOG 27(5), SIGGRAPH Asia 2008, §4.1). A joint template's vertices
 * live around a joint (the origin of its frame) and move with the joint's relevant bones:
 *
 * - Eq. 3: `M_j(v, B) = R(b_j, β) · R(n, α) · v`, the rotation taking the template's canonical
 *   frame {b_c, r_c} to bone j's frame {b_j, r_j} at pose B (swing by α about n = b_c × b_j, then
 *   twist by β about b_j);
 * - Eq. 1: `f_i(B) = ⊕_j u_j · M_j(M_j⁻¹(v_i, B_i), B)`: the key-pose position v_i (at pose B_i)
 *   carried by each relevant bone to pose B, blended with u_j ∝ 1 / angle(v_i, b_j(B_i)); ⊕ blends
 *   magnitudes linearly and directions by their spherical average (Buss & Fillmore 2001), so a
 *   vertex on a sphere about the joint stays on it.
 *
 * A pose is given by the frames of the relevant bones in the template's coordinates: 6·r numbers,
 * per bone its unit direction b_j (from the joint along the bone) and a unit reference direction
 * r_j ⊥ b_j that turns with the bone's twist.
 *
 * @module
 */
import { length3 } from '../../core/vec3.js';
import { axisAngle, apply3, mat3, mul3, type NumbersOut } from './rotation.js';
import { slerpScaled, sphericalAverage } from './spherical-average.js';

/**
 * Eq. 3: the rotation (3×3 row-major) `R(b_j, β) · R(n, α)` taking the frame {bc, rc} to {bj, rj}
 * (unit vectors, b ⊥ r in each frame).
 */
export function frameRotation<T extends NumbersOut = number[]>(bc: ArrayLike<number>, rc: ArrayLike<number>, bj: ArrayLike<number>, rj: ArrayLike<number>, out: T = mat3() as T): T {
  // Swing: about n = bc × bj by α = angle(bc, bj).
  let nx = bc[1] * bj[2] - bc[2] * bj[1], ny = bc[2] * bj[0] - bc[0] * bj[2], nz = bc[0] * bj[1] - bc[1] * bj[0];
  const sinA = length3(nx, ny, nz), cosA = bc[0] * bj[0] + bc[1] * bj[1] + bc[2] * bj[2];
  const alpha = Math.atan2(sinA, cosA);
  if (sinA > 1e-15) {
    nx /= sinA; ny /= sinA; nz /= sinA;
  } else if (cosA < 0) {
    // Opposite directions: any axis ⊥ bc (the reference direction).
    nx = rc[0]; ny = rc[1]; nz = rc[2];
  }
  const swing = axisAngle([nx, ny, nz], alpha);
  // Twist: about bj by β, the angle from the swung reference direction to rj.
  const s = [0, 0, 0];
  apply3(swing, 0, rc, 0, s, 0);
  const cx = s[1] * rj[2] - s[2] * rj[1], cy = s[2] * rj[0] - s[0] * rj[2], cz = s[0] * rj[1] - s[1] * rj[0];
  const beta = Math.atan2(cx * bj[0] + cy * bj[1] + cz * bj[2], s[0] * rj[0] + s[1] * rj[1] + s[2] * rj[2]);
  return mul3(axisAngle(bj, beta), swing, out);
}

/** A joint template vertex at one key pose: its position (template coordinates) and the pose's frames (6·r). */
export interface TemplateKey {
  /** The vertex's position v_i at the key pose, template coordinates (3 numbers). */
  position: ArrayLike<number>;
  /** The key pose B_i: per relevant bone its b_j and r_j, 6·r numbers. */
  frames: ArrayLike<number>;
}

/** Frame of bone j from a pose's frames (b_j, r_j). */
const frameOf = (frames: ArrayLike<number>, j: number) =>
  [
    [frames[6 * j], frames[6 * j + 1], frames[6 * j + 2]],
    [frames[6 * j + 3], frames[6 * j + 4], frames[6 * j + 5]],
  ] as const;

/** What a joint template's evaluation keeps of its key pose: {@link jointTemplateKey}. */
export interface JointTemplateKey {
  /** The canonical frame {b_c, r_c}. */
  readonly bc: readonly number[];
  readonly rc: readonly number[];
  /** Per relevant bone, the rotation from the canonical frame to its key-pose frame (Eq. 3, 9 numbers each). */
  readonly rotations: readonly number[][];
  /** Per relevant bone, its key-pose direction b_j(B_i). */
  readonly directions: readonly (readonly number[])[];
}

/**
 * A joint template's key pose `keyFrames` (6·r numbers), prepared once for any number of poses.
 * @param canonical the template's canonical frame {b_c, r_c} (6 numbers)
 */
export function jointTemplateKey(canonical: ArrayLike<number>, keyFrames: ArrayLike<number>): JointTemplateKey {
  const bc = [canonical[0], canonical[1], canonical[2]], rc = [canonical[3], canonical[4], canonical[5]]; // prettier-ignore
  const rotations: number[][] = [], directions: number[][] = []; // prettier-ignore
  for (let j = 0; j < keyFrames.length / 6; j++) {
    const [bi, ri] = frameOf(keyFrames, j);
    rotations.push(frameRotation(bc, rc, bi, ri));
    directions.push([bi[0], bi[1], bi[2]]);
  }
  return { bc, rc, rotations, directions };
}

/**
 * A joint template prepared for one pose: Eq. 1 for any number of its vertices, from its key pose
 * (`key`, {@link jointTemplateKey}) to `frames` (6·r, as many bones as the key pose). Each
 * relevant bone's carry M_j(·, B)·M_j⁻¹(·, B_i) is one rotation, computed once. The returned
 * function's optional `memo` (r + 1 numbers from `mo`, NaN-filled when fresh) keeps what depends
 * on the key pose only (|v| and the blend weights u_j).
 */
export function prepareJointTemplate(
  key: JointTemplateKey,
  frames: ArrayLike<number>,
): (v: ArrayLike<number>, out: Float64Array, o?: number, memo?: Float64Array, mo?: number) => Float64Array {
  const r = frames.length / 6;
  const { bc, rc } = key;
  const keyDirs = key.directions;
  const carry: number[] = new Array(9 * r).fill(0);
  const M = mat3();
  for (let j = 0; j < r; j++) {
    const [b, rr] = frameOf(frames, j);
    const Mi = key.rotations[j];
    frameRotation(bc, rc, b, rr, M);
    // carry = M · Miᵀ
    for (let x = 0; x < 3; x++)
      for (let y = 0; y < 3; y++) carry[9 * j + 3 * x + y] = M[3 * x] * Mi[3 * y] + M[3 * x + 1] * Mi[3 * y + 1] + M[3 * x + 2] * Mi[3 * y + 2];
  }
  const own: number[] = new Array(r + 1).fill(0);
  const u: number[] = new Array(r).fill(0);
  const dirs: number[] = new Array(3 * r).fill(0);
  return (v, out, o = 0, memo, mo = 0) => {
    // Key side (memo): |v|, then u_j ∝ 1 / angle(v_i, b_j(B_i)) normalised; a vertex along a bone
    // follows that bone alone.
    const k = memo ?? own;
    const b = memo ? mo : 0;
    if (!memo || Number.isNaN(k[b])) {
      const len = length3(v[0], v[1], v[2]);
      let sum = 0;
      let only = -1;
      for (let j = 0; j < r && len > 0; j++) {
        const bj = keyDirs[j];
        const angle = Math.acos(Math.max(-1, Math.min(1, (v[0] * bj[0] + v[1] * bj[1] + v[2] * bj[2]) / len)));
        if (angle < 1e-12) only = j;
        k[b + 1 + j] = 1 / angle;
        sum += k[b + 1 + j];
      }
      for (let j = 0; j < r; j++) k[b + 1 + j] = only >= 0 ? +(j === only) : k[b + 1 + j] / sum;
      k[b] = len;
    }
    const len = k[b];
    if (len === 0) {
      out.fill(0, o, o + 3);
      return out;
    }
    if (r === 2) {
      // Eq. 1 over two bones in closed form: the slerp of v carried by each (length |v| kept).
      apply3(carry, 0, v, 0, dirs, 0);
      apply3(carry, 9, v, 0, dirs, 3);
      if (slerpScaled(dirs[0], dirs[1], dirs[2], dirs[3], dirs[4], dirs[5], k[b + 2] / (k[b + 1] + k[b + 2]), len, out, o)) return out; // prettier-ignore
    }
    for (let j = 0; j < r; j++) {
      u[j] = k[b + 1 + j];
      apply3(carry, 9 * j, v, 0, dirs, 3 * j);
      for (let c = 0; c < 3; c++) dirs[3 * j + c] /= len; // rotations keep |v|
    }
    sphericalAverage(dirs, u, out, o);
    for (let c = 0; c < 3; c++) out[o + c] *= len;
    return out;
  };
}

/**
 * Eq. 1 for a joint template vertex: its position at the pose `frames` (6·r) from one key pose,
 * into `out[o..o+3)` (template coordinates, origin at the joint).
 * @param canonical the template's canonical frame {b_c, r_c} (6 numbers)
 */
export function jointKeyPosition(canonical: ArrayLike<number>, key: TemplateKey, frames: ArrayLike<number>, out: Float64Array, o = 0): Float64Array {
  return prepareJointTemplate(jointTemplateKey(canonical, key.frames), frames)(key.position, out, o);
}

/**
 * ⊕ of joint templates: positions (3·p) blended with weights (p, sum 1) — magnitude linearly,
 * direction by the spherical average — into `out[o..o+3)` (Eq. 1's and Eq. 2's blend).
 */
export function blendMagnitudeDirection(positions: ArrayLike<number>, weights: ArrayLike<number>, out: Float64Array, o = 0): Float64Array {
  const p = weights.length;
  const dirs = new Float64Array(3 * p);
  let magnitude = 0;
  for (let i = 0; i < p; i++) {
    const l = Math.hypot(positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]);
    magnitude += weights[i] * l;
    for (let k = 0; k < 3; k++) dirs[3 * i + k] = l > 0 ? positions[3 * i + k] / l : 0;
  }
  sphericalAverage(dirs, weights, out, o);
  for (let k = 0; k < 3; k++) out[o + k] *= magnitude;
  return out;
}
