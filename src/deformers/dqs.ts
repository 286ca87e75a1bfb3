/**
 * Dual quaternion skinning (Kavan, Collins, Žára, O'Sullivan, "Geometric Skinning with
 * Approximate Dual Quaternion Blending", ACM TOG 2008).
 *
 * Each skinning matrix `[R_j | t_j]` becomes the unit dual quaternion `q̂_j = q_j + ε·½(t_j ⊗ q_j)`
 * (q_j the quaternion of R_j). Per vertex the influences' dual quaternions are blended
 * linearly, each with its sign flipped where `q_j · q_pivot < 0` (antipodality, fixed per vertex
 * against its pivot: the influence with the largest weight, ties to the smaller joint index —
 * the same rule in every corskin kernel, CPU, SIMD and GPU), normalised by the real part's norm, and
 * applied as the rigid map `v' = R v + t` with `t = 2·(d ⊗ r*)`; normals and tangents are
 * rotated by R.
 *
 * Skinning matrices with scale, shear or reflection are handled in two phases
 * (`deformTwoPhase`: the blended stretch about the vertex, then the rigid blend).
 *
 * @module
 */
import type { SkinnedMesh } from '../core/mesh.js';
import { quatFromMat4 } from '../core/math.js';
import type { DeformTarget, RigidVertexDeformer } from './contract.js';
import { pivotJoint } from './joint-rotations.js';
import { writeAffine, writeDualQuaternion } from './vertex-writers.js';
import { deformRigidOrTwoPhase } from './two-phase.js';

/**
 * Unit dual quaternion of each skinning matrix: 8 numbers per joint, real part (x, y, z, w) then
 * dual part (x, y, z, w).
 * @param skinning length 16·J; @param out length ≥ 8·J (allocated when omitted)
 * @param rotations the matrices' unit quaternions, 4·J, when the caller has them
 * @returns out
 */
export function jointDualQuaternions<T extends Float32Array | Float64Array = Float64Array>(
  skinning: Float64Array,
  out?: T,
  rotations?: Float64Array,
): T {
  const J = skinning.length / 16;
  const dq = out ?? (new Float64Array(8 * J) as T);
  const q = rotations ?? new Float64Array(4);
  for (let j = 0; j < J; j++) {
    const o = rotations ? 4 * j : 0;
    if (!rotations) quatFromMat4(q, 0, skinning, 16 * j);
    const x = q[o], y = q[o + 1], z = q[o + 2], w = q[o + 3]; // prettier-ignore
    const tx = skinning[16 * j + 12], ty = skinning[16 * j + 13], tz = skinning[16 * j + 14];
    dq[8 * j] = x; dq[8 * j + 1] = y; dq[8 * j + 2] = z; dq[8 * j + 3] = w; // prettier-ignore
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
 * A vertex whose influences all name one joint moves exactly by that joint's matrix.
 * @param skinning skinning matrices, 4×4 column-major, length 16·J (bind → posed space)
 * @param out posed positions (3·n), normals (3·n), tangents (4·n)
 * @throws CorskinError when `out` is too small for the mesh or `skinning` is not 16 numbers per
 *   joint (fewer matrices than the influences name is checked by `deform`, not per frame)
 */
export function deformDqs(mesh: SkinnedMesh, skinning: Float64Array, out: DeformTarget): void {
  deformRigidOrTwoPhase(mesh, skinning, out, dqsRigid, 'vertex', dqsRigidVertex);
}

/**
 * DQS for proper rigid skinning matrices, unchecked (the second phase of
 * `deformTwoPhase`); arguments as the checked deformer's,
 * and the matrices' rotations when the caller has them (see `RigidDeformer`).
 */
export function dqsRigid(mesh: SkinnedMesh, skinning: Float64Array, out: DeformTarget, rotations?: Float64Array): void {
  const dq = jointDualQuaternions(skinning, undefined, rotations);
  const { joints: MJ, weights: MW, influences: K } = mesh;
  const n = mesh.positions.length / 3;
  for (let i = 0; i < n; i++) {
    // Pivot of the signs (pivotJoint); a vertex on one joint moves exactly by its matrix.
    const pivot = pivotJoint(MJ, MW, K, i);
    if (pivot < 0) {
      writeAffine(mesh, out, i, skinning, (pivot === -1 ? 0 : -2 - pivot) << 4);
      continue;
    }
    const po = pivot << 3;
    const px = dq[po], py = dq[po + 1], pz = dq[po + 2], pw = dq[po + 3]; // prettier-ignore
    let rx = 0, ry = 0, rz = 0, rw = 0, dx = 0, dy = 0, dz = 0, dw = 0; // prettier-ignore
    for (let k = K * i, end = k + K; k < end; k++) {
      let w = MW[k];
      if (w === 0) continue;
      const o = MJ[k] << 3;
      if (px * dq[o] + py * dq[o + 1] + pz * dq[o + 2] + pw * dq[o + 3] < 0) w = -w;
      rx += w * dq[o]; ry += w * dq[o + 1]; rz += w * dq[o + 2]; rw += w * dq[o + 3]; // prettier-ignore
      dx += w * dq[o + 4]; dy += w * dq[o + 5]; dz += w * dq[o + 6]; dw += w * dq[o + 7]; // prettier-ignore
    }
    writeDualQuaternion(mesh, out, i, rx, ry, rz, rw, dx, dy, dz, dw);
  }
}

/**
 * DQS's rigid phase for one stretched vertex of two-phase skinning (see {@link RigidVertexDeformer}):
 * the blend of {@link dqsRigid}, per vertex, with each transform's dual quaternion formed here.
 */
export const dqsRigidVertex: RigidVertexDeformer = (vertex, out, rotations, translations, weights, count) => {
  let pivot = 0;
  for (let a = 1; a < count; a++) if (weights[a] > weights[pivot]) pivot = a;
  const px = rotations[4 * pivot], py = rotations[4 * pivot + 1], pz = rotations[4 * pivot + 2], pw = rotations[4 * pivot + 3]; // prettier-ignore
  let rx = 0, ry = 0, rz = 0, rw = 0, dx = 0, dy = 0, dz = 0, dw = 0; // prettier-ignore
  for (let a = 0; a < count; a++) {
    let w = weights[a];
    if (w === 0) continue;
    const x = rotations[4 * a], y = rotations[4 * a + 1], z = rotations[4 * a + 2], qw = rotations[4 * a + 3]; // prettier-ignore
    const tx = translations[3 * a], ty = translations[3 * a + 1], tz = translations[3 * a + 2]; // prettier-ignore
    if (px * x + py * y + pz * z + pw * qw < 0) w = -w;
    rx += w * x; ry += w * y; rz += w * z; rw += w * qw; // prettier-ignore
    // ½ (t, 0) ⊗ q, as jointDualQuaternions
    dx += w * (0.5 * (tx * qw + ty * z - tz * y));
    dy += w * (0.5 * (-tx * z + ty * qw + tz * x));
    dz += w * (0.5 * (tx * y - ty * x + tz * qw));
    dw += w * (-0.5 * (tx * x + ty * y + tz * z));
  }
  writeDualQuaternion(vertex, out, 0, rx, ry, rz, rw, dx, dy, dz, dw);
};
