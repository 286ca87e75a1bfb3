/**
 * Dual quaternion skinning (Kavan, Collins, Žára, O'Sullivan 2008; seed 002).
 *
 * Each skinning matrix `[R_j | t_j]` becomes the unit dual quaternion `q̂_j = q_j + ε·½(t_j ⊗ q_j)`
 * (q_j the quaternion of R_j). Per vertex the influences' dual quaternions are blended
 * linearly, each with its sign flipped where `q_j · q_pivot < 0` (antipodality, fixed per vertex
 * against the vertex's first non-zero influence), normalised by the real part's norm, and
 * applied as the rigid map `v' = R v + t` with `t = 2·(d ⊗ r*)`; normals and tangents are
 * rotated by R.
 *
 * Skinning matrices with scale or shear lose them here (only their rotation and translation are
 * used); vertices with a single influence still move exactly with their matrix.
 *
 * @module
 */
import type { SkinnedMesh } from '../core/mesh.js';
import {
  checkDeformArgs,
  jointQuaternions,
  singleInfluence,
  writeAffine,
  writeTransformed,
  type DeformTarget,
} from './common.js';

/**
 * Unit dual quaternion of each skinning matrix: 8 numbers per joint, real part (x, y, z, w) then
 * dual part (x, y, z, w).
 * @param skinning length 16·J; @returns length 8·J
 */
export function jointDualQuaternions(skinning: Float64Array): Float64Array {
  const J = skinning.length / 16;
  const q = jointQuaternions(skinning);
  const dq = new Float64Array(8 * J);
  for (let j = 0; j < J; j++) {
    const x = q[4 * j], y = q[4 * j + 1], z = q[4 * j + 2], w = q[4 * j + 3];
    const tx = skinning[16 * j + 12], ty = skinning[16 * j + 13], tz = skinning[16 * j + 14];
    dq.set([x, y, z, w], 8 * j);
    // ½ (t, 0) ⊗ (x, y, z, w)
    dq[8 * j + 4] = 0.5 * (tx * w + ty * z - tz * y);
    dq[8 * j + 5] = 0.5 * (-tx * z + ty * w + tz * x);
    dq[8 * j + 6] = 0.5 * (tx * y - ty * x + tz * w);
    dq[8 * j + 7] = -0.5 * (tx * x + ty * y + tz * z);
  }
  return dq;
}

/**
 * Deforms `mesh` by dual quaternion skinning (see {@link Deformer} for the shared contract).
 * @param skinning skinning matrices, 4×4 column-major, length 16·J (bind → posed space)
 * @param out posed positions (3·n), normals (3·n), tangents (4·n)
 * @throws CorskinError when `out` or `skinning` is too small for the mesh
 */
export function deformDqs(mesh: SkinnedMesh, skinning: Float64Array, out: DeformTarget): void {
  checkDeformArgs(mesh, skinning, out);
  const dq = jointDualQuaternions(skinning);
  const { joints, weights, influences: K } = mesh;
  const n = mesh.positions.length / 3;
  for (let i = 0; i < n; i++) {
    const single = singleInfluence(joints, weights, K, i);
    if (single >= 0) {
      writeAffine(mesh, out, i, skinning, 16 * joints[single]);
      continue;
    }
    let px = 0, py = 0, pz = 0, pw = 0; // pivot quaternion
    let rx = 0, ry = 0, rz = 0, rw = 0, dx = 0, dy = 0, dz = 0, dw = 0;
    let havePivot = false;
    for (let k = K * i; k < K * i + K; k++) {
      let w = weights[k];
      if (w === 0) continue;
      const o = 8 * joints[k];
      if (!havePivot) {
        px = dq[o]; py = dq[o + 1]; pz = dq[o + 2]; pw = dq[o + 3];
        havePivot = true;
      } else if (px * dq[o] + py * dq[o + 1] + pz * dq[o + 2] + pw * dq[o + 3] < 0) {
        w = -w;
      }
      rx += w * dq[o]; ry += w * dq[o + 1]; rz += w * dq[o + 2]; rw += w * dq[o + 3];
      dx += w * dq[o + 4]; dy += w * dq[o + 5]; dz += w * dq[o + 6]; dw += w * dq[o + 7];
    }
    const inv = 1 / Math.hypot(rx, ry, rz, rw);
    rx *= inv; ry *= inv; rz *= inv; rw *= inv;
    dx *= inv; dy *= inv; dz *= inv; dw *= inv;
    // t = 2 (d ⊗ r*) = 2 (r_w d_v − d_w r_v + r_v × d_v)
    const tx = 2 * (rw * dx - dw * rx + ry * dz - rz * dy);
    const ty = 2 * (rw * dy - dw * ry + rz * dx - rx * dz);
    const tz = 2 * (rw * dz - dw * rz + rx * dy - ry * dx);
    writeRotation(mesh, out, i, rx, ry, rz, rw, tx, ty, tz);
  }
}

/** Writes vertex i moved by the rigid map (rotation of unit quaternion (x,y,z,w), then t). */
export function writeRotation(
  mesh: SkinnedMesh,
  out: DeformTarget,
  i: number,
  x: number, y: number, z: number, w: number,
  tx: number, ty: number, tz: number,
): void {
  const x2 = x + x, y2 = y + y, z2 = z + z;
  const xx = x * x2, xy = x * y2, xz = x * z2, yy = y * y2, yz = y * z2, zz = z * z2;
  const wx = w * x2, wy = w * y2, wz = w * z2;
  writeTransformed(
    mesh, out, i,
    1 - (yy + zz), xy + wz, xz - wy,
    xy - wz, 1 - (xx + zz), yz + wx,
    xz + wy, yz - wx, 1 - (xx + yy),
    tx, ty, tz,
  );
}
