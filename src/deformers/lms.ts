/**
 * Log-matrix skinning (Alexa, "Linear Combination of Transformations", ACM TOG (SIGGRAPH) 2002;
 * Magnenat-Thalmann et al. 2004; compared by Le & Hodgins 2016): blend the matrix logarithms of
 * the rigid skinning transforms with the weights and exponentiate — here relative to the vertex's
 * pivot p (its largest weight, ties to the smaller joint index, as DQS's sign test),
 * `M = M_p · exp(Σ_j w_j log(M_p⁻¹ M_j) / Σ_j w_j)`.
 *
 * For a rigid `M = [R | t]` the logarithm is the twist (ω, u) of se(3): `ω = θ·k` the
 * principal axis–angle of R (θ ∈ [0, π]) and `u = V(ω)⁻¹ t`, with
 * `V(ω) = I + (1 − cos θ)/θ² [ω]× + (θ − sin θ)/θ³ [ω]×²`; the exponential of the blended twist
 * (ω', u') is `R' = exp([ω']×)` (Rodrigues) and `t' = V(ω') u'`. Normals and tangents are rotated
 * by the result's rotation.
 *
 * Why relative to the pivot: Alexa's blend of the transforms' own logarithms, `exp(Σ w_j log M_j)`,
 * is taken in the frame the skinning matrices are in, and no logarithm is continuous on all of
 * SO(3): it jumps where a rotation crosses π. Skinning rotations cross π all the time — a
 * character turning round, a hand whose bind pose is far from its pose (Mixamo rigs) — and the
 * blend then jumps by up to a diagonal between two frames (the Soldier's fists in its Run clip,
 * 0.11 of the diagonal in 20 µs of the clip; every vertex of a character turned round). Relative
 * to the pivot the result does not depend on the frame (`M_p⁻¹ M_j` is the same under any
 * motion of the whole character: turning it turns the result, exactly) and a logarithm jumps
 * only where a joint turns past 180° from its vertex's pivot, as DQS's blend does. It is the
 * first step of the weighted mean of the transforms on the group from the pivot (Buss & Fillmore
 * 2001 for rotations); with a pivot at the identity (a bone bent from a parent at rest) it is
 * Alexa's blend itself. Weights are divided by their sum (a vertex whose influences all move by M
 * moves by M).
 *
 * Scale, shear and reflection of the skinning matrices are handled in two phases
 * (`deformTwoPhase`: blended stretch about the vertex first), the logarithms taken of the
 * rigid parts; a mirrored rig (every joint reflects) poses the unmirrored skeleton and mirrors the
 * result back (`mirror.ts`), since about the vertex its rigid parts are no conjugation of the
 * character's and the blend of logarithms is not invariant under it.
 * Known weakness, reproduced: rotations about different axes blend along paths that are not the
 * shortest, and a joint turned past 180° from its pivot wraps to its shorter opposite, so LMS
 * degrades for twists and bends well beyond 90° (Le & Hodgins 2016, Figs. 8–9);
 * a screw motion blends along a helix.
 *
 * @module
 */
import type { SkinnedMesh } from '../core/mesh.js';
import type { DeformTarget } from './contract.js';
import { jointQuaternions, pivotJoint } from './joint-rotations.js';
import { writeAffine, writeRotatedBy } from './vertex-writers.js';
import { deformRigidOrTwoPhase } from './two-phase.js';
import { poseUnmirrored } from './mirror.js';

/**
 * The se(3) logarithm (ω, u) of M_a⁻¹ M_b, the rigid transform of joint b relative to joint a —
 * what a vertex whose pivot is a blends for its influence b (Alexa 2002's logarithm, taken
 * relative to the pivot: see the module comment): ω the principal logarithm of R_aᵀ R_b
 * (θ = |ω| ∈ [0, π]) and u = V(ω)⁻¹ R_aᵀ (t_b − t_a). Unchecked: no argument is validated.
 * @param skinning rigid skinning matrices (rotation part orthonormal), 4×4 column-major, 16·J
 * @param rotations their unit quaternions (x, y, z, w), 4·J (either sign)
 * @param a the joint the logarithm is relative to (a vertex's pivot); @param b the other joint
 * @param out receives ω (radians) then u (the matrices' units) at `out[o..o+6)`
 */
export function relativeTwist(skinning: Float64Array, rotations: ArrayLike<number>, a: number, b: number, out: Float64Array, o: number): void {
  const m = 16 * a;
  const c = relativeRotationLogarithm(rotations, a, b, out, o);
  const ex = skinning[16 * b + 12] - skinning[m + 12], ey = skinning[16 * b + 13] - skinning[m + 13], ez = skinning[16 * b + 14] - skinning[m + 14]; // prettier-ignore
  // R_aᵀ (t_b − t_a): the columns of R_a dotted with the difference.
  const dx = skinning[m] * ex + skinning[m + 1] * ey + skinning[m + 2] * ez;
  const dy = skinning[m + 4] * ex + skinning[m + 5] * ey + skinning[m + 6] * ez;
  const dz = skinning[m + 8] * ex + skinning[m + 9] * ey + skinning[m + 10] * ez;
  twistFromTranslation(out, o, c, dx, dy, dz);
}

/**
 * Writes u = V(ω)⁻¹ d = d − ½ ω×d + c·ω×(ω×d) to `out[o+3..o+6)`, ω at `out[o..o+3)` and c its
 * coefficient from {@link rotationLogarithm}.
 */
function twistFromTranslation(out: Float64Array, o: number, c: number, dx: number, dy: number, dz: number): void {
  const ox = out[o], oy = out[o + 1], oz = out[o + 2]; // prettier-ignore
  const wx = oy * dz - oz * dy, wy = oz * dx - ox * dz, wz = ox * dy - oy * dx; // ω × d
  const wwx = oy * wz - oz * wy, wwy = oz * wx - ox * wz, wwz = ox * wy - oy * wx; // ω × (ω × d)
  out[o + 3] = dx - 0.5 * wx + c * wwx;
  out[o + 4] = dy - 0.5 * wy + c * wwy;
  out[o + 5] = dz - 0.5 * wz + c * wwz;
}

/**
 * The principal logarithm ω of R_aᵀ R_b, the rotation of unit quaternion b relative to unit
 * quaternion a (`q[4a..]`, `q[4b..]`, x, y, z, w, either sign), written to `omega[o..o+3)`;
 * returns {@link rotationLogarithm}'s coefficient c.
 */
export function relativeRotationLogarithm(q: ArrayLike<number>, a: number, b: number, omega: Float64Array, o = 0): number {
  const ax = q[4 * a], ay = q[4 * a + 1], az = q[4 * a + 2], aw = q[4 * a + 3]; // prettier-ignore
  const bx = q[4 * b], by = q[4 * b + 1], bz = q[4 * b + 2], bw = q[4 * b + 3]; // prettier-ignore
  // conj(a) ⊗ b
  const x = aw * bx - ax * bw - ay * bz + az * by;
  const y = aw * by + ax * bz - ay * bw - az * bx;
  const z = aw * bz - ax * by + ay * bx - az * bw;
  const w = aw * bw + ax * bx + ay * by + az * bz;
  return rotationLogarithm(x, y, z, w, omega, o);
}

/**
 * The principal logarithm of the rotation of the unit quaternion (x, y, z, w) (either sign):
 * writes ω = θ·axis, θ ∈ [0, π] (radians), to `omega[o..o+3)` and returns the coefficient c of
 * `V(ω)⁻¹ = I − ½[ω]× + c·[ω]×²`, `c = (1 − θ sin θ / (2(1 − cos θ))) / θ²` (1/12 near θ = 0),
 * with which a translation t becomes the twist's u = V(ω)⁻¹ t.
 */
function rotationLogarithm(x: number, y: number, z: number, w: number, omega: Float64Array, o = 0): number {
  const s = Math.hypot(x, y, z);
  const theta = 2 * Math.atan2(s, Math.abs(w));
  const f = (w < 0 ? -1 : 1) * (s > 1e-12 ? theta / s : 2); // ω = θ·k = f·(x, y, z)
  omega[o] = f * x;
  omega[o + 1] = f * y;
  omega[o + 2] = f * z;
  return theta > 1e-6 ? (1 - (theta * Math.sin(theta)) / (2 * (1 - Math.cos(theta)))) / (theta * theta) : 1 / 12;
}

/**
 * Deforms `mesh` by log-matrix skinning (see {@link Deformer} for the shared contract).
 * @param skinning skinning matrices, 4×4 column-major, length 16·J (bind → posed space)
 * @param out posed positions (3·n), normals (3·n), tangents (4·n)
 * @throws CorskinError when `out` is too small for the mesh or `skinning` is not 16 numbers per
 *   joint (fewer matrices than the influences name is checked by `deform`, not per frame)
 */
export function deformLms(mesh: SkinnedMesh, skinning: Float64Array, out: DeformTarget): void {
  // A mirrored rig: the unmirrored skeleton posed and the result mirrored back (see mirror.ts).
  poseUnmirrored(mesh, skinning, out, (S) => deformRigidOrTwoPhase(mesh, S, out, lmsRigid, 'vertex'));
}

/**
 * LMS for proper rigid skinning matrices, unchecked (the second phase of
 * `deformTwoPhase`); arguments as the checked deformer's,
 * and the matrices' rotations when the caller has them (see `RigidDeformer`).
 */
export function lmsRigid(mesh: SkinnedMesh, skinning: Float64Array, out: DeformTarget, rotations?: Float64Array): void {
  const q = rotations ?? jointQuaternions<Float64Array>(skinning);
  const { joints: MJ, weights: MW, influences: K } = mesh;
  const n = mesh.positions.length / 3;
  // Per joint j its logarithm relative to the pivot tagged (a mesh has few pivots per joint, and
  // neighbouring vertices share them): computed once per (pivot, joint) run, not per influence.
  const J = skinning.length / 16;
  const twists = new Float64Array(6 * J);
  const tag = new Int32Array(J).fill(-1);
  for (let i = 0; i < n; i++) {
    const p = pivotJoint(MJ, MW, K, i);
    if (p < 0) {
      writeAffine(mesh, out, i, skinning, (p === -1 ? 0 : -2 - p) << 4);
      continue;
    }
    // Σ w_j log(M_p⁻¹ M_j) ÷ Σ w_j (the pivot's own logarithm is 0).
    let ox = 0, oy = 0, oz = 0, ux = 0, uy = 0, uz = 0, sum = 0; // prettier-ignore
    for (let k = K * i; k < K * i + K; k++) {
      const w = MW[k];
      if (w === 0) continue;
      sum += w;
      const j = MJ[k];
      if (j === p) continue;
      if (tag[j] !== p) {
        relativeTwist(skinning, q, p, j, twists, 6 * j);
        tag[j] = p;
      }
      const o = 6 * j;
      ox += w * twists[o]; oy += w * twists[o + 1]; oz += w * twists[o + 2]; // prettier-ignore
      ux += w * twists[o + 3]; uy += w * twists[o + 4]; uz += w * twists[o + 5]; // prettier-ignore
    }
    ox /= sum; oy /= sum; oz /= sum; ux /= sum; uy /= sum; uz /= sum; // prettier-ignore
    // exp: R = I + A[ω]× + B[ω]×², t = V u with V = I + B[ω]× + C[ω]×²
    const t2 = ox * ox + oy * oy + oz * oz;
    const theta = Math.sqrt(t2);
    let A: number, B: number, C: number;
    if (theta > 1e-6) {
      A = Math.sin(theta) / theta;
      B = (1 - Math.cos(theta)) / t2;
      C = (theta - Math.sin(theta)) / (t2 * theta);
    } else {
      A = 1 - t2 / 6;
      B = 0.5 - t2 / 24;
      C = 1 / 6 - t2 / 120;
    }
    // [ω]×² = ωωᵀ − θ² I
    const R00 = 1 + B * (ox * ox - t2), R11 = 1 + B * (oy * oy - t2), R22 = 1 + B * (oz * oz - t2); // prettier-ignore
    const R01 = -A * oz + B * ox * oy, R10 = A * oz + B * ox * oy; // prettier-ignore
    const R02 = A * oy + B * ox * oz, R20 = -A * oy + B * ox * oz; // prettier-ignore
    const R12 = -A * ox + B * oy * oz, R21 = A * ox + B * oy * oz; // prettier-ignore
    const cx = oy * uz - oz * uy, cy = oz * ux - ox * uz, cz = ox * uy - oy * ux; // ω × u
    const ccx = oy * cz - oz * cy, ccy = oz * cx - ox * cz, ccz = ox * cy - oy * cx; // ω × (ω × u)
    const tx = ux + B * cx + C * ccx, ty = uy + B * cy + C * ccy, tz = uz + B * cz + C * ccz; // prettier-ignore
    // M_p ∘ [R | t]: rotation R_p R, translation R_p t + t_p.
    const m = 16 * p;
    const a00 = skinning[m], a10 = skinning[m + 1], a20 = skinning[m + 2]; // prettier-ignore
    const a01 = skinning[m + 4], a11 = skinning[m + 5], a21 = skinning[m + 6]; // prettier-ignore
    const a02 = skinning[m + 8], a12 = skinning[m + 9], a22 = skinning[m + 10]; // prettier-ignore
    writeRotatedBy(
      mesh, out, i,
      a00 * R00 + a01 * R10 + a02 * R20, a10 * R00 + a11 * R10 + a12 * R20, a20 * R00 + a21 * R10 + a22 * R20,
      a00 * R01 + a01 * R11 + a02 * R21, a10 * R01 + a11 * R11 + a12 * R21, a20 * R01 + a21 * R11 + a22 * R21,
      a00 * R02 + a01 * R12 + a02 * R22, a10 * R02 + a11 * R12 + a12 * R22, a20 * R02 + a21 * R12 + a22 * R22,
      0, 0, 0,
      a00 * tx + a01 * ty + a02 * tz + skinning[m + 12],
      a10 * tx + a11 * ty + a12 * tz + skinning[m + 13],
      a20 * tx + a21 * ty + a22 * tz + skinning[m + 14],
    ); // prettier-ignore
  }
}
