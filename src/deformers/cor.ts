/**
 * Skinning with optimized centers of rotation (Le & Hodgins, "Real-time Skeletal Skinning with
 * Optimized Centers of Rotation", ACM TOG (SIGGRAPH) 2016, Algorithm 1).
 *
 * Per vertex i with precomputed bind-space center of rotation `p*_i`:
 * 1. `q = Σ_j w_ij q_j` (QLERP: quaternions sign-fixed against the vertex's pivot, the influence
 *    with the largest weight, ties to the smaller joint index), `R = rot(q / ‖q‖)`;
 * 2. `p̃ = Σ_j w_ij (R_j p*_i + t_j)` — linear blend skinning of the center of rotation;
 * 3. `t = p̃ − R p*_i`;
 * 4. `v' = R v + t`, `n' = R n` (tangents likewise).
 *
 * Skinning matrices with scale, shear or reflection are handled in two phases
 * (`deformTwoPhase`): the blended stretch about the center of rotation, then the rigid
 * parts as above.
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';
import type { SkinnedMesh } from '../core/mesh.js';
import type { DeformTarget, RigidVertexDeformer } from './contract.js';
import { pivotJoint, jointQuaternions } from './joint-rotations.js';
import { writeAffine, writeRotated, writeTangent } from './vertex-writers.js';
import { deformRigidOrTwoPhase } from './two-phase.js';

/**
 * Deforms `mesh` by CoR skinning (see {@link Deformer} for the shared contract).
 * A vertex whose influences all name one joint moves exactly by that joint's matrix.
 * @param mesh must carry `centersOfRotation` (bind space, length 3·n; see
 *   {@link computeCentersOfRotation})
 * @param skinning skinning matrices, 4×4 column-major, length 16·J (bind → posed space)
 * @param out posed positions (3·n), normals (3·n), tangents (4·n)
 * @throws CorskinError when the mesh has no centers of rotation, or on size mismatches
 */
export function deformCor(mesh: SkinnedMesh, skinning: Float64Array, out: DeformTarget): void {
  const C = mesh.centersOfRotation;
  if (!C) throw new CorskinError('CoR skinning needs centers of rotation (run the CoR precomputation first)');
  if (C.length !== mesh.positions.length)
    throw new CorskinError(
      `CoR skinning: ${C.length} numbers of centers of rotation for ${mesh.positions.length / 3} vertices (3 each expected)`,
    );
  deformRigidOrTwoPhase(mesh, skinning, out, corRigid, 'cor', corRigidVertex);
}

/**
 * CoR skinning for proper rigid skinning matrices, unchecked (the second phase of
 * `deformTwoPhase`); arguments as the checked deformer's,
 * and the matrices' rotations when the caller has them (see `RigidDeformer`).
 */
export function corRigid(mesh: SkinnedMesh, skinning: Float64Array, out: DeformTarget, rotations?: Float64Array): void {
  const C = mesh.centersOfRotation!;
  const n = mesh.positions.length / 3;
  const q = rotations ?? jointQuaternions(skinning);
  const S = skinning;
  const { positions: P, normals: N, tangents: TI, joints: MJ, weights: MW, influences: K } = mesh;
  const OP = out.positions;
  const ON = N ? out.normals : undefined;
  const OT = TI ? out.tangents : undefined;
  for (let i = 0; i < n; i++) {
    const cx = C[3 * i], cy = C[3 * i + 1], cz = C[3 * i + 2]; // prettier-ignore
    // Pivot of the signs (pivotJoint); a vertex on one joint moves exactly by its matrix.
    const pivot = pivotJoint(MJ, MW, K, i);
    if (pivot < 0) {
      writeAffine(mesh, out, i, skinning, (pivot === -1 ? 0 : -2 - pivot) << 4);
      continue;
    }
    const po = pivot << 2;
    const px = q[po], py = q[po + 1], pz = q[po + 2], pw = q[po + 3]; // prettier-ignore
    let qx = 0, qy = 0, qz = 0, qw = 0, lx = 0, ly = 0, lz = 0; // prettier-ignore
    for (let k = K * i, end = k + K; k < end; k++) {
      const w = MW[k];
      if (w === 0) continue;
      const j = MJ[k];
      const o = j << 2;
      const m = j << 4;
      // p̃ = Σ w_j (R_j p* + t_j): linear blend skinning of the center of rotation.
      lx += w * (S[m] * cx + S[m + 4] * cy + S[m + 8] * cz + S[m + 12]);
      ly += w * (S[m + 1] * cx + S[m + 5] * cy + S[m + 9] * cz + S[m + 13]);
      lz += w * (S[m + 2] * cx + S[m + 6] * cy + S[m + 10] * cz + S[m + 14]);
      const ws = px * q[o] + py * q[o + 1] + pz * q[o + 2] + pw * q[o + 3] < 0 ? -w : w;
      qx += ws * q[o]; qy += ws * q[o + 1]; qz += ws * q[o + 2]; qw += ws * q[o + 3]; // prettier-ignore
    }
    const inv = 1 / Math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw);
    qx *= inv; qy *= inv; qz *= inv; qw *= inv; // prettier-ignore
    // v' = R (v − p*) + p̃, i.e. t = p̃ − R p*. Written out here rather than through
    // writeRotated (common.ts): the call costs this kernel ~20% (measured on CesiumMan ×3).
    const x2 = qx + qx, y2 = qy + qy, z2 = qz + qz; // prettier-ignore
    const xx = qx * x2, xy = qx * y2, xz = qx * z2, yy = qy * y2, yz = qy * z2, zz = qz * z2; // prettier-ignore
    const wx = qw * x2, wy = qw * y2, wz = qw * z2; // prettier-ignore
    const r00 = 1 - (yy + zz), r10 = xy + wz, r20 = xz - wy; // prettier-ignore
    const r01 = xy - wz, r11 = 1 - (xx + zz), r21 = yz + wx; // prettier-ignore
    const r02 = xz + wy, r12 = yz - wx, r22 = 1 - (xx + yy); // prettier-ignore
    const p = 3 * i;
    const x = P[p] - cx, y = P[p + 1] - cy, z = P[p + 2] - cz; // prettier-ignore
    OP[p] = r00 * x + r01 * y + r02 * z + lx;
    OP[p + 1] = r10 * x + r11 * y + r12 * z + ly;
    OP[p + 2] = r20 * x + r21 * y + r22 * z + lz;
    if (ON) {
      const nx = N![p], ny = N![p + 1], nz = N![p + 2]; // prettier-ignore
      ON[p] = r00 * nx + r01 * ny + r02 * nz;
      ON[p + 1] = r10 * nx + r11 * ny + r12 * nz;
      ON[p + 2] = r20 * nx + r21 * ny + r22 * nz;
    }
    if (OT) writeTangent(TI!, OT, i, r00, r10, r20, r01, r11, r21, r02, r12, r22);
  }
}

/**
 * CoR skinning's rigid phase for one stretched vertex of two-phase skinning (see
 * {@link RigidVertexDeformer}; its center of rotation is the origin there): the QLERP rotation
 * R and `v' = R v + Σ_a w_a t_a`, as {@link corRigid}.
 */
export const corRigidVertex: RigidVertexDeformer = (vertex, out, rotations, translations, weights, count) => {
  let pivot = 0;
  for (let a = 1; a < count; a++) if (weights[a] > weights[pivot]) pivot = a;
  const px = rotations[4 * pivot], py = rotations[4 * pivot + 1], pz = rotations[4 * pivot + 2], pw = rotations[4 * pivot + 3]; // prettier-ignore
  let qx = 0, qy = 0, qz = 0, qw = 0, lx = 0, ly = 0, lz = 0; // prettier-ignore
  for (let a = 0; a < count; a++) {
    const w = weights[a];
    if (w === 0) continue;
    const x = rotations[4 * a], y = rotations[4 * a + 1], z = rotations[4 * a + 2], rw = rotations[4 * a + 3]; // prettier-ignore
    lx += w * translations[3 * a];
    ly += w * translations[3 * a + 1];
    lz += w * translations[3 * a + 2];
    const ws = px * x + py * y + pz * z + pw * rw < 0 ? -w : w;
    qx += ws * x; qy += ws * y; qz += ws * z; qw += ws * rw; // prettier-ignore
  }
  const inv = 1 / Math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw);
  writeRotated(vertex, out, 0, qx * inv, qy * inv, qz * inv, qw * inv, 0, 0, 0, lx, ly, lz);
};
