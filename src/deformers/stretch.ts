/**
 * Stretch smooth skinning (Yang & Zhang 2006, "Stretch It", Sec. 2.2.2–2.2.3): linear
 * blend skinning preceded by a twist compensation and followed by a collapse compensation around
 * chosen joints.
 *
 * Reconstruction of the paper's equations (damaged in the text extraction):
 *
 * Twist compensation (Eq. 7–11). The paper measures each joint's twist as its local rotation
 * about its bone (x) axis relative to the bind pose (Eq. 7), blends the influences' twists with
 * the skinning weights (Eq. 8), and gives each influence the extra local rotation
 * `Δα_i = α' − α_i` about its axis before its skinning matrix (Eq. 9–11), so every influence
 * carries the same twist and the blend contains none — no candy wrapper. corskin measures the
 * twists relative to the blend of the vertex's influences' rotations instead of each joint's
 * parent: `α_i` is the twist of `q̄⁻¹ ⊗ q_i` about `a_i`, q̄ = Σ_i w_i q_i normalised (QLERP, each
 * q_i on the heaviest influence's side; swing–twist decomposition, `α = 2·atan2(q_v·a_i, q_w)`;
 * a_i the bind-space unit axis from joint i to its first child). For influences twisting about one
 * axis the Δα_i are the paper's (a common reference shifts every α_i alike, and α' with them); a
 * rigid motion of the whole skeleton has no relative twist, so it stays exact; and q̄ changes
 * continuously with the weights — measured against one influence (the heaviest, or the one nearest
 * a root) the result jumped where the choice changed: on a copy of the Soldier with 8-bit weights,
 * by 2.3e-2 of the diagonal at the stress pose where two weights tie, and by 5e-2 where a weight
 * of 0.001 on an ancestor rounds to 0. Then `α' = Σ_i w_i α_i` and
 * `v_i = S_i · Rot(a_i, α' − α_i; about joint i) · v`.
 *
 * Collapse compensation (Eq. 5–6), for each stretch joint J (posed position) with vertex weight
 * w on J: `l₂ = |JP|` (the skinned distance), `l₁ = Σ_i w_i |J v_i|` (the weighted distance of the
 * influences' rigid images, which do not collapse), `β = 1 − 4(w − 0.5)²` (1 at w = ½, 0 at
 * w ∈ {0, 1}), `l' = β·l₁ + (1 − β)·l₂`, and `P' = J + l'·JP/|JP|`. Vertices with w ∈ {0, 1} do
 * not move, so the deformation stays continuous.
 *
 * The compensations around a vertex's stretch joints are applied one after the other, in the rig's
 * order ({@link StretchRig.stretchJoints}): not in the order of the vertex's influence slots, which
 * is the file's (glTF-Transform's quantize() sorts them by weight: CesiumMan with 8-bit weights
 * moved 3.8e-2 of the diagonal at the stress pose), nor by weight (the order then swaps, and the
 * result jumps, where two weights cross). Applied at once (each from the skinned position, their
 * moves added), they would count the collapse twice.
 *
 * The twists are read from the joints' rotations (quaternions), which know a rotation but not how
 * it was reached: past ±180° from the blended rotation a twist wraps (200° reads as −160°, and the
 * compensation then turns the short way), where the paper reads the animation's Euler angles.
 *
 * Normals and tangents: as LBS's, under the blend A = Σ_i w_i L_i of the influences' linear parts
 * (L_i = the skinning matrix's times the twist compensation's rotation): the normal by A's
 * inverse transpose (its cofactor matrix), the tangent by A, both renormalised; with no twist and
 * no stretch joint they are LBS's. The stretch step moves vertices along J→P and leaves normals as
 * they are — an approximation.
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';
import type { SkinnedMesh } from '../core/mesh.js';
import type { Skeleton } from '../core/skeleton.js';
import { bindJointPositions, jointCount } from '../core/skeleton.js';
import { checkDeformArgs, type DeformTarget, type Deformer } from './contract.js';
import { jointQuaternions } from './joint-rotations.js';
import { poseUnmirrored } from './mirror.js';
import { writeNormal, writeTangent } from './vertex-writers.js';

/** What the stretch deformer needs to know of the rig, bind space. */
export interface StretchRig {
  /** Joint positions in bind space, length 3·J. */
  jointPositions: Float64Array;
  /** Unit bone axis of each joint (towards its first child), length 3·J; zero when unknown. */
  boneAxes: Float64Array;
  /** Joints whose collapse is compensated, in the order the compensation is applied. */
  stretchJoints: Int32Array;
}

/** Options of {@link createStretchDeformer}. */
export interface StretchOptions {
  /** Give every influence the same blended twist before skinning; default true. */
  twistCompensation?: boolean;
}

/**
 * The rig data of {@link StretchRig} from a skeleton: joint positions from the inverse bind
 * matrices, bone axes towards each joint's first child joint (or `childPositions`, e.g. glTF end
 * nodes, for leaf joints).
 * @param stretchJoints joints to compensate; default every joint where two or more bones meet
 *   (a parent bone and a child bone, or several child bones)
 * @param childPositions bind-space end points of leaf joints' bones (3 numbers or undefined per
 *   joint)
 * @throws CorskinError when a stretch joint is not a joint index (a whole number in 0..J−1)
 */
export function stretchRigFromSkeleton(
  skeleton: Skeleton,
  stretchJoints?: ArrayLike<number>,
  childPositions?: (ArrayLike<number> | undefined)[],
): StretchRig {
  const J = jointCount(skeleton);
  const P = bindJointPositions(skeleton);
  const children = Array.from({ length: J }, () => [] as number[]);
  for (let j = 0; j < J; j++) if (skeleton.parents[j] >= 0) children[skeleton.parents[j]].push(j);
  const axes = new Float64Array(3 * J);
  for (let j = 0; j < J; j++) {
    const end = children[j].length ? P.subarray(3 * children[j][0], 3 * children[j][0] + 3) : childPositions?.[j];
    if (!end) continue;
    const d = [end[0] - P[3 * j], end[1] - P[3 * j + 1], end[2] - P[3 * j + 2]];
    const l = Math.hypot(d[0], d[1], d[2]);
    if (l > 0) axes.set([d[0] / l, d[1] / l, d[2] / l], 3 * j);
  }
  let stretch: number[];
  if (stretchJoints) {
    stretch = Array.from(stretchJoints);
    for (const j of stretch)
      if (!(Number.isInteger(j) && j >= 0 && j < J))
        throw new CorskinError(`stretch joint ${j} is not a joint index (a whole number in 0..${J - 1})`);
  } else {
    stretch = [];
    for (let j = 0; j < J; j++) {
      const bones = (skeleton.parents[j] >= 0 ? 1 : 0) + Math.max(children[j].length, childPositions?.[j] ? 1 : 0);
      if (bones >= 2) stretch.push(j);
    }
  }
  return { jointPositions: P, boneAxes: axes, stretchJoints: Int32Array.from(stretch) };
}

/**
 * A {@link Deformer} (shared signature) doing stretch smooth skinning on `rig`. Skinning
 * matrices that all reflect (an armature under a mirroring node) are posed unmirrored and the
 * result mirrored back (`poseUnmirrored`): a mirrored character gets the mirror image.
 * @throws CorskinError (when called) on size mismatches
 */
export function createStretchDeformer(rig: StretchRig, options: StretchOptions = {}): Deformer {
  const twist = options.twistCompensation ?? true;
  const J = rig.jointPositions.length / 3;
  const { jointPositions: JP, boneAxes: A, stretchJoints } = rig;
  const isStretch = new Int32Array(J).fill(-1);
  stretchJoints.forEach((j, s) => (isStretch[j] = s));

  let scratch = new Float64Array(0);
  // A mirrored rig (every joint reflects): the unmirrored skeleton posed and the result mirrored
  // back (deformers/mirror.ts): a reflection has no twist about a bone to compensate.
  return function deformStretch(mesh: SkinnedMesh, skinning: Float64Array, out: DeformTarget): void {
    checkDeformArgs(mesh, skinning, out);
    if (skinning.length < 16 * J) throw new CorskinError(`stretch rig has ${J} joints, ${skinning.length / 16} skinning matrices given`);
    if (scratch.length < skinning.length) scratch = new Float64Array(skinning.length);
    poseUnmirrored(mesh, skinning, out, (S) => pose(mesh, S, out), scratch);
  };

  function pose(mesh: SkinnedMesh, S: Float64Array, out: DeformTarget): void {
    // Per frame: every joint's rotation quaternion, posed stretch-joint centres.
    const Q = jointQuaternions(S);
    const centres = new Float64Array(3 * stretchJoints.length);
    stretchJoints.forEach((j, s) => {
      const m = 16 * j, x = JP[3 * j], y = JP[3 * j + 1], z = JP[3 * j + 2]; // prettier-ignore
      centres[3 * s] = S[m] * x + S[m + 4] * y + S[m + 8] * z + S[m + 12];
      centres[3 * s + 1] = S[m + 1] * x + S[m + 5] * y + S[m + 9] * z + S[m + 13];
      centres[3 * s + 2] = S[m + 2] * x + S[m + 6] * y + S[m + 10] * z + S[m + 14];
    });

    const { positions: P, normals: N, tangents: TI, joints: MJ, weights: MW, influences: K } = mesh;
    const OP = out.positions;
    const ON = N ? out.normals : undefined;
    const OT = TI ? out.tangents : undefined;
    const img = new Float64Array(3 * K); // the influences' images of the vertex
    const alpha = new Float64Array(K); // the influences' twists relative to their blended rotation
    const M = new Float64Array(9); // linear part of the current influence's map
    const n = P.length / 3;
    for (let i = 0; i < n; i++) {
      const vx = P[3 * i], vy = P[3 * i + 1], vz = P[3 * i + 2]; // prettier-ignore
      let blended = 0;
      alpha.fill(0);
      if (twist) {
        // The heaviest influence (of equal ones, the lowest joint: whatever order the slots are in).
        let ref = K * i;
        for (let k = K * i + 1; k < K * i + K; k++) if (MW[k] > MW[ref] || (MW[k] === MW[ref] && MJ[k] < MJ[ref])) ref = k; // prettier-ignore
        // q̄⁻¹: the influences' rotations blended on the heaviest one's side, normalised.
        const h = 4 * MJ[ref];
        let rx = 0, ry = 0, rz = 0, rw = 0; // prettier-ignore
        for (let k = K * i; k < K * i + K; k++) {
          const o = 4 * MJ[k];
          const w = Q[o] * Q[h] + Q[o + 1] * Q[h + 1] + Q[o + 2] * Q[h + 2] + Q[o + 3] * Q[h + 3] < 0 ? -MW[k] : MW[k];
          rx -= w * Q[o]; ry -= w * Q[o + 1]; rz -= w * Q[o + 2]; rw += w * Q[o + 3]; // prettier-ignore
        }
        const l = Math.hypot(rx, ry, rz, rw);
        if (l > 0) [rx, ry, rz, rw] = [rx / l, ry / l, rz / l, rw / l];
        else [rx, ry, rz, rw] = [-Q[h], -Q[h + 1], -Q[h + 2], Q[h + 3]];
        for (let k = 0; k < K; k++) {
          const w = MW[K * i + k];
          const j = MJ[K * i + k];
          const ax = A[3 * j], ay = A[3 * j + 1], az = A[3 * j + 2]; // prettier-ignore
          if (w === 0 || (ax === 0 && ay === 0 && az === 0)) continue;
          // q = q_r⁻¹ ⊗ q_j, then its twist about a_j.
          const o = 4 * j;
          const bx = Q[o], by = Q[o + 1], bz = Q[o + 2], bw = Q[o + 3]; // prettier-ignore
          const qx = rw * bx + rx * bw + ry * bz - rz * by;
          const qy = rw * by - rx * bz + ry * bw + rz * bx;
          const qz = rw * bz + rx * by - ry * bx + rz * bw;
          const qw = rw * bw - rx * bx - ry * by - rz * bz;
          const sgn = qw < 0 ? -1 : 1;
          alpha[k] = 2 * Math.atan2(sgn * (qx * ax + qy * ay + qz * az), sgn * qw);
          blended += w * alpha[k];
        }
      }
      // The position blended, and the linear parts (for the normal and tangent, as LBS's).
      let px = 0, py = 0, pz = 0; // prettier-ignore
      let a00 = 0, a10 = 0, a20 = 0, a01 = 0, a11 = 0, a21 = 0, a02 = 0, a12 = 0, a22 = 0; // prettier-ignore
      for (let k = 0; k < K; k++) {
        const w = MW[K * i + k];
        if (w === 0) continue;
        const j = MJ[K * i + k];
        const m = 16 * j;
        // Influence map: S_j · Rot(a_j, Δ) about the joint (bind space).
        const delta = twist && (A[3 * j] !== 0 || A[3 * j + 1] !== 0 || A[3 * j + 2] !== 0) ? blended - alpha[k] : 0;
        let x = vx, y = vy, z = vz; // prettier-ignore
        for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) M[3 * c + r] = S[m + 4 * c + r];
        if (delta !== 0) {
          const ax = A[3 * j], ay = A[3 * j + 1], az = A[3 * j + 2]; // prettier-ignore
          const cs = Math.cos(delta), sn = Math.sin(delta), t = 1 - cs; // prettier-ignore
          // Rodrigues rotation matrix R (column-major) about unit axis a.
          const R = [
            cs + ax * ax * t, ay * ax * t + az * sn, az * ax * t - ay * sn,
            ax * ay * t - az * sn, cs + ay * ay * t, az * ay * t + ax * sn,
            ax * az * t + ay * sn, ay * az * t - ax * sn, cs + az * az * t,
          ]; // prettier-ignore
          const ox = JP[3 * j], oy = JP[3 * j + 1], oz = JP[3 * j + 2]; // prettier-ignore
          const dx = vx - ox, dy = vy - oy, dz = vz - oz; // prettier-ignore
          x = ox + R[0] * dx + R[3] * dy + R[6] * dz;
          y = oy + R[1] * dx + R[4] * dy + R[7] * dz;
          z = oz + R[2] * dx + R[5] * dy + R[8] * dz;
          // M ← S₃ · R
          for (let c = 0; c < 3; c++) {
            for (let r = 0; r < 3; r++) M[3 * c + r] = S[m + r] * R[3 * c] + S[m + 4 + r] * R[3 * c + 1] + S[m + 8 + r] * R[3 * c + 2];
          }
        }
        const ix = S[m] * x + S[m + 4] * y + S[m + 8] * z + S[m + 12];
        const iy = S[m + 1] * x + S[m + 5] * y + S[m + 9] * z + S[m + 13];
        const iz = S[m + 2] * x + S[m + 6] * y + S[m + 10] * z + S[m + 14];
        img[3 * k] = ix;
        img[3 * k + 1] = iy;
        img[3 * k + 2] = iz;
        px += w * ix;
        py += w * iy;
        pz += w * iz;
        a00 += w * M[0]; a10 += w * M[1]; a20 += w * M[2]; // prettier-ignore
        a01 += w * M[3]; a11 += w * M[4]; a21 += w * M[5]; // prettier-ignore
        a02 += w * M[6]; a12 += w * M[7]; a22 += w * M[8]; // prettier-ignore
      }
      // Collapse compensation around each stretch joint the vertex is partly bound to (its weight
      // on the joint in (0, 1)), in the rig's order: each moves the vertex, so their order
      // matters, and the order of a vertex's influence slots is the file's (quantize() sorts them).
      for (let last = -1; ; ) {
        let s = -1;
        for (let k = K * i; k < K * i + K; k++) {
          const sk = isStretch[MJ[k]];
          if (sk > last && MW[k] > 0 && (s < 0 || sk < s)) s = sk;
        }
        if (s < 0) break;
        last = s;
        let w = 0;
        for (let k = K * i; k < K * i + K; k++) if (MJ[k] === stretchJoints[s]) w += MW[k];
        if (!(w > 0 && w < 1)) continue;
        const cx = centres[3 * s], cy = centres[3 * s + 1], cz = centres[3 * s + 2]; // prettier-ignore
        const l2 = Math.hypot(px - cx, py - cy, pz - cz);
        if (l2 === 0) continue;
        let l1 = 0;
        for (let r = 0; r < K; r++) {
          const wr = MW[K * i + r];
          if (wr > 0) l1 += wr * Math.hypot(img[3 * r] - cx, img[3 * r + 1] - cy, img[3 * r + 2] - cz);
        }
        const beta = 1 - 4 * (w - 0.5) * (w - 0.5);
        const f = (beta * l1 + (1 - beta) * l2) / l2;
        px = cx + f * (px - cx);
        py = cy + f * (py - cy);
        pz = cz + f * (pz - cz);
      }
      OP[3 * i] = px;
      OP[3 * i + 1] = py;
      OP[3 * i + 2] = pz;
      // The normal by the blended map's inverse transpose, the tangent by the map, as LBS's
      // (the collapse compensation moves positions only).
      if (ON) writeNormal(N!, ON, i, a00, a10, a20, a01, a11, a21, a02, a12, a22);
      if (OT) writeTangent(TI!, OT, i, a00, a10, a20, a01, a11, a21, a02, a12, a22);
    }
  }
}
