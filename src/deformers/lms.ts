/**
 * Log-matrix skinning (Alexa, "Linear Combination of Transformations", ACM TOG (SIGGRAPH) 2002;
 * Magnenat-Thalmann et al. 2004; compared by Le & Hodgins 2016): blend the matrix logarithms of the rigid skinning
 * transforms with the weights and exponentiate, `M = exp(Σ_j w_j log M_j)`.
 *
 * For a rigid `M_j = [R_j | t_j]` the logarithm is the twist (ω, u) of se(3): `ω = θ·k` the
 * principal axis–angle of R_j (θ ∈ [0, π]) and `u = V(ω)⁻¹ t_j`, with
 * `V(ω) = I + (1 − cos θ)/θ² [ω]× + (θ − sin θ)/θ³ [ω]×²`; the exponential of the blended twist
 * (ω', u') is `R' = exp([ω']×)` (Rodrigues) and `t' = V(ω') u'`. Normals and tangents are rotated
 * by R'.
 *
 * Scale, shear and reflection of the skinning matrices are handled in two phases
 * (`deformTwoPhase`: blended stretch about the vertex first), the logarithms taken of the
 * rigid parts; a mirrored rig (every joint reflects) poses the unmirrored skeleton and mirrors the
 * result back (`mirror.ts`), since about the vertex its rigid parts are no conjugation of the
 * character's and the blend of logarithms is not invariant under it.
 *
 * The logarithm is not unique: a rotation by θ about k is also one by θ − 2π about k. Blending the
 * principal logarithms (θ ∈ [0, π]) breaks a vertex apart wherever its influences' rotations
 * straddle π — not only at extreme bends: a character turned round (or a hand whose bind pose is
 * far from its pose, as on Mixamo rigs) has every skinning rotation near π, and a vertex of two
 * joints 10° apart would blend a 175° and a −175° turn into no turn at all. So each influence's
 * logarithm is taken on its vertex's pivot's side of π — the one of the two whose quaternion lies in
 * the pivot's hemisphere (the pivot: the largest weight, as DQS's sign test, Kavan et al. 2008) —
 * which makes the blend continuous across π, so a character can turn round in one piece.
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
 * se(3) logarithm of every skinning matrix on both sides of π: 12 numbers per joint, the
 * principal twist (ω, u) (θ = |ω| ∈ [0, π]) then the twist of the other branch, ω' = ω − 2π·ω/θ
 * (θ' = 2π − θ, about the opposite axis) and u' = V(ω')⁻¹ t — the same rigid transform. A
 * vertex blends each influence's logarithm on its pivot's side (see {@link deformLms}). Where
 * θ ≤ π/2 the other branch is the principal one again (no influence so far from its pivot is
 * worth V(ω')⁻¹'s blow-up at θ' → 2π).
 * @param skinning length 16·J (rigid: the rotation part orthonormal)
 * @param rotations the matrices' unit quaternions (w ≥ 0), 4·J, when the caller has them
 * @returns length 12·J
 */
export function jointTwists(skinning: Float64Array, rotations?: Float64Array): Float64Array {
  const J = skinning.length / 16;
  const q = rotations ?? jointQuaternions(skinning);
  const out = new Float64Array(12 * J);
  const omega = [0, 0, 0];
  for (let j = 0; j < J; j++) {
    for (let branch = 0; branch < 2; branch++) {
      const c = rotationLogarithm(q, 4 * j, omega, branch === 1);
      const [ox, oy, oz] = omega;
      const tx = skinning[16 * j + 12], ty = skinning[16 * j + 13], tz = skinning[16 * j + 14]; // prettier-ignore
      // u = V⁻¹ t, V⁻¹ = I − ½[ω]× + c·[ω]×²
      const wx = oy * tz - oz * ty, wy = oz * tx - ox * tz, wz = ox * ty - oy * tx; // ω × t
      const wwx = oy * wz - oz * wy, wwy = oz * wx - ox * wz, wwz = ox * wy - oy * wx; // ω × (ω × t)
      out.set([ox, oy, oz, tx - 0.5 * wx + c * wwx, ty - 0.5 * wy + c * wwy, tz - 0.5 * wz + c * wwz], 12 * j + 6 * branch);
    }
  }
  return out;
}

/**
 * A logarithm of the rotation of the unit quaternion `q[o..o+4)` (x, y, z, w with w ≥ 0): the
 * principal one, θ ∈ [0, π], or with `other` the one on the other side of π, θ' = θ − 2π about
 * the same axis (the principal one again where θ ≤ π/2). Writes ω = θ·axis (radians) to
 * `omega[0..3)` and returns the coefficient c of `V(ω)⁻¹ = I − ½[ω]× + c·[ω]×²`,
 * `c = (1 − θ sin θ / (2(1 − cos θ))) / θ²` (1/12 near θ = 0), with which a translation t becomes
 * the twist's u = V(ω)⁻¹ t.
 */
export function rotationLogarithm(q: ArrayLike<number>, o: number, omega: number[] | Float64Array, other = false): number {
  const x = q[o], y = q[o + 1], z = q[o + 2], w = q[o + 3]; // prettier-ignore
  const s = Math.hypot(x, y, z);
  let theta = 2 * Math.atan2(s, w);
  let f = s > 1e-12 ? theta / s : 2; // ω = θ·k = f·(x, y, z)
  if (other && theta > Math.PI / 2) {
    f -= (2 * Math.PI) / s;
    theta = 2 * Math.PI - theta;
  }
  omega[0] = f * x;
  omega[1] = f * y;
  omega[2] = f * z;
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
  const L = jointTwists(skinning, q);
  const { joints: MJ, weights: MW, influences: K } = mesh;
  const n = mesh.positions.length / 3;
  for (let i = 0; i < n; i++) {
    const pivot = pivotJoint(MJ, MW, K, i);
    if (pivot < 0) {
      writeAffine(mesh, out, i, skinning, (pivot === -1 ? 0 : -2 - pivot) << 4);
      continue;
    }
    const p = 4 * pivot;
    let ox = 0, oy = 0, oz = 0, ux = 0, uy = 0, uz = 0; // prettier-ignore
    for (let k = K * i; k < K * i + K; k++) {
      const w = MW[k];
      if (w === 0) continue;
      const j = MJ[k];
      // The logarithm on the pivot's side of π (jointTwists).
      const across = q[4 * j] * q[p] + q[4 * j + 1] * q[p + 1] + q[4 * j + 2] * q[p + 2] + q[4 * j + 3] * q[p + 3] < 0;
      const o = 12 * j + (across ? 6 : 0);
      ox += w * L[o]; oy += w * L[o + 1]; oz += w * L[o + 2]; // prettier-ignore
      ux += w * L[o + 3]; uy += w * L[o + 4]; uz += w * L[o + 5]; // prettier-ignore
    }
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
    writeRotatedBy(mesh, out, i, R00, R10, R20, R01, R11, R21, R02, R12, R22, 0, 0, 0, tx, ty, tz);
  }
}
