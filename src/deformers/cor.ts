/**
 * Skinning with optimized centers of rotation (Le & Hodgins 2016, seed 000, Algorithm 1).
 *
 * Per vertex i with precomputed bind-space center of rotation `p*_i`:
 * 1. `q = Σ_j w_ij q_j` (QLERP: quaternions sign-fixed against the vertex's first non-zero
 *    influence), `R = rot(q / ‖q‖)`;
 * 2. `p̃ = Σ_j w_ij (R_j p*_i + t_j)` — linear blend skinning of the center of rotation;
 * 3. `t = p̃ − R p*_i`;
 * 4. `v' = R v + t`, `n' = R n` (tangents likewise).
 *
 * Step 2 uses the full skinning matrices, so a uniformly scaled skeleton scales the centers;
 * the rotation of a matrix with scale is that of its normalised columns.
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';
import type { SkinnedMesh } from '../core/mesh.js';
import { checkDeformArgs, jointQuaternions, singleInfluence, writeAffine, type DeformTarget } from './common.js';
import { writeRotation } from './dqs.js';

/**
 * Deforms `mesh` by CoR skinning (see {@link Deformer} for the shared contract).
 * @param mesh must carry `centersOfRotation` (bind space, length 3·n; see
 *   {@link computeCentersOfRotation})
 * @param skinning skinning matrices, 4×4 column-major, length 16·J (bind → posed space)
 * @param out posed positions (3·n), normals (3·n), tangents (4·n)
 * @throws CorskinError when the mesh has no centers of rotation, or on size mismatches
 */
export function deformCor(mesh: SkinnedMesh, skinning: Float64Array, out: DeformTarget): void {
  checkDeformArgs(mesh, skinning, out);
  const cor = mesh.centersOfRotation;
  const n = mesh.positions.length / 3;
  if (!cor || cor.length !== 3 * n) {
    throw new CorskinError('CoR skinning needs centers of rotation (run the CoR precomputation first)');
  }
  const q = jointQuaternions(skinning);
  const S = skinning;
  const { joints, weights, influences: K } = mesh;
  for (let i = 0; i < n; i++) {
    const single = singleInfluence(joints, weights, K, i);
    if (single >= 0) {
      writeAffine(mesh, out, i, skinning, 16 * joints[single]);
      continue;
    }
    const cx = cor[3 * i], cy = cor[3 * i + 1], cz = cor[3 * i + 2];
    let px = 0, py = 0, pz = 0, pw = 0; // pivot
    let qx = 0, qy = 0, qz = 0, qw = 0, lx = 0, ly = 0, lz = 0;
    let havePivot = false;
    for (let k = K * i; k < K * i + K; k++) {
      const w = weights[k];
      if (w === 0) continue;
      const j = joints[k];
      const o = 4 * j;
      const m = 16 * j;
      lx += w * (S[m] * cx + S[m + 4] * cy + S[m + 8] * cz + S[m + 12]);
      ly += w * (S[m + 1] * cx + S[m + 5] * cy + S[m + 9] * cz + S[m + 13]);
      lz += w * (S[m + 2] * cx + S[m + 6] * cy + S[m + 10] * cz + S[m + 14]);
      let ws = w;
      if (!havePivot) {
        px = q[o]; py = q[o + 1]; pz = q[o + 2]; pw = q[o + 3];
        havePivot = true;
      } else if (px * q[o] + py * q[o + 1] + pz * q[o + 2] + pw * q[o + 3] < 0) {
        ws = -w;
      }
      qx += ws * q[o]; qy += ws * q[o + 1]; qz += ws * q[o + 2]; qw += ws * q[o + 3];
    }
    const inv = 1 / Math.hypot(qx, qy, qz, qw);
    qx *= inv; qy *= inv; qz *= inv; qw *= inv;
    // t = p̃ − R p*
    const x2 = qx + qx, y2 = qy + qy, z2 = qz + qz;
    const xx = qx * x2, xy = qx * y2, xz = qx * z2, yy = qy * y2, yz = qy * z2, zz = qz * z2;
    const wx = qw * x2, wy = qw * y2, wz = qw * z2;
    const rcx = (1 - (yy + zz)) * cx + (xy - wz) * cy + (xz + wy) * cz;
    const rcy = (xy + wz) * cx + (1 - (xx + zz)) * cy + (yz - wx) * cz;
    const rcz = (xz - wy) * cx + (yz + wx) * cy + (1 - (xx + yy)) * cz;
    writeRotation(mesh, out, i, qx, qy, qz, qw, lx - rcx, ly - rcy, lz - rcz);
  }
}
