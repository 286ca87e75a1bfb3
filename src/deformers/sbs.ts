/**
 * Spherical blend skinning (Kavan & Žára, "Spherical Blend Skinning: A Real-time Deformation of
 * Articulated Models", I3D 2005; compared by Le & Hodgins 2016).
 *
 * Per vertex: the rotation is the QLERP of the influences' quaternions (sign-fixed against the
 * pivot, the influence with the largest weight, normalised); the center of rotation r is solved at run time from the
 * influences' transforms, as the point they move most alike — least squares over the pairs
 * (a, b) of influences: `Σ_{a<b} |(R_a − R_b) r + (t_a − t_b)|² → min`. With two bones the
 * solution is a line (the relative rotation's axis); as in the paper's pseudo-inverse, the
 * minimiser closest to a reference point is taken — here the vertex's own bind position, which
 * keeps the method free of rig data. A Tikhonov term `λ = 1e-8 + 1e-9·trace` keeps the 3×3 solve
 * regular: rotations that differ by less than about 1e-4 rad (equal joints, float noise) leave
 * the center at the vertex, where it no longer matters — equal transforms give exactly the
 * rigid motion.
 * Then `v' = R (v − r) + Σ_j w_j (R_j r + t_j)`, `n' = R n`.
 *
 * Known weaknesses, reproduced rather than hidden: the center depends only on which bones
 * influence a vertex, not on the weights, so all vertices of a two-bone region rotate about the
 * joint like DQS (bulge when bent), and neighbouring vertices with different influence sets can
 * get very different centers (seams; Le & Hodgins 2016, Figs. 11–12).
 *
 * @module
 */
import type { SkinnedMesh } from '../core/mesh.js';
import type { DeformTarget } from './contract.js';
import { jointQuaternions } from './joint-rotations.js';
import { writeAffine, writeRotated } from './vertex-writers.js';
import { deformRigidOrTwoPhase } from './two-phase.js';
import { poseUnmirrored } from './mirror.js';

/**
 * Deforms `mesh` by spherical blend skinning (see {@link Deformer} for the shared contract).
 * @param skinning skinning matrices, 4×4 column-major, length 16·J (bind → posed space)
 * @param out posed positions (3·n), normals (3·n), tangents (4·n)
 * @throws CorskinError when `out` is too small for the mesh or `skinning` is not 16 numbers per
 *   joint (fewer matrices than the influences name is checked by `deform`, not per frame)
 */
export function deformSbs(mesh: SkinnedMesh, skinning: Float64Array, out: DeformTarget): void {
  // A mirrored rig: the unmirrored skeleton posed and the result mirrored back (see mirror.ts).
  poseUnmirrored(mesh, skinning, out, (S) => deformRigidOrTwoPhase(mesh, S, out, sbsRigid, 'vertex'));
}

/**
 * SBS for proper rigid skinning matrices, unchecked (the second phase of
 * `deformTwoPhase`); arguments as the checked deformer's,
 * and the matrices' rotations when the caller has them (see `RigidDeformer`).
 */
export function sbsRigid(mesh: SkinnedMesh, skinning: Float64Array, out: DeformTarget, rotations?: Float64Array): void {
  const S = skinning;
  const q = rotations ?? jointQuaternions(S);
  const { positions: P, joints: MJ, weights: MW, influences: K } = mesh;
  const js = new Int32Array(K);
  const ws = new Float64Array(K);
  const n = P.length / 3;
  for (let i = 0; i < n; i++) {
    let u = 0;
    for (let k = K * i; k < K * i + K; k++) {
      if (MW[k] === 0) continue;
      const at = js.subarray(0, u).indexOf(MJ[k]);
      if (at >= 0) ws[at] += MW[k];
      else {
        js[u] = MJ[k];
        ws[u++] = MW[k];
      }
    }
    if (u <= 1) {
      writeAffine(mesh, out, i, S, (u ? js[0] : 0) << 4);
      continue;
    }
    const vx = P[3 * i], vy = P[3 * i + 1], vz = P[3 * i + 2]; // prettier-ignore
    // Normal equations M r = b of the pairwise least squares.
    let m00 = 0, m01 = 0, m02 = 0, m11 = 0, m12 = 0, m22 = 0, b0 = 0, b1 = 0, b2 = 0; // prettier-ignore
    for (let a = 0; a < u; a++) {
      for (let c = a + 1; c < u; c++) {
        const A = js[a] << 4, B = js[c] << 4; // prettier-ignore
        // D = R_a − R_b (column-major), e = t_b − t_a
        const d00 = S[A] - S[B], d10 = S[A + 1] - S[B + 1], d20 = S[A + 2] - S[B + 2]; // prettier-ignore
        const d01 = S[A + 4] - S[B + 4], d11 = S[A + 5] - S[B + 5], d21 = S[A + 6] - S[B + 6]; // prettier-ignore
        const d02 = S[A + 8] - S[B + 8], d12 = S[A + 9] - S[B + 9], d22 = S[A + 10] - S[B + 10]; // prettier-ignore
        const e0 = S[B + 12] - S[A + 12], e1 = S[B + 13] - S[A + 13], e2 = S[B + 14] - S[A + 14]; // prettier-ignore
        m00 += d00 * d00 + d10 * d10 + d20 * d20;
        m01 += d00 * d01 + d10 * d11 + d20 * d21;
        m02 += d00 * d02 + d10 * d12 + d20 * d22;
        m11 += d01 * d01 + d11 * d11 + d21 * d21;
        m12 += d01 * d02 + d11 * d12 + d21 * d22;
        m22 += d02 * d02 + d12 * d12 + d22 * d22;
        b0 += d00 * e0 + d10 * e1 + d20 * e2;
        b1 += d01 * e0 + d11 * e1 + d21 * e2;
        b2 += d02 * e0 + d12 * e1 + d22 * e2;
      }
    }
    // r = v + δ with (M + λI) δ = b − M v: the minimiser closest to the vertex.
    const lambda = 1e-8 + 1e-9 * (m00 + m11 + m22);
    const a00 = m00 + lambda, a11 = m11 + lambda, a22 = m22 + lambda; // prettier-ignore
    const r0 = b0 - (m00 * vx + m01 * vy + m02 * vz);
    const r1 = b1 - (m01 * vx + m11 * vy + m12 * vz);
    const r2 = b2 - (m02 * vx + m12 * vy + m22 * vz);
    const c00 = a11 * a22 - m12 * m12, c01 = m02 * m12 - m01 * a22, c02 = m01 * m12 - m02 * a11; // prettier-ignore
    const det = a00 * c00 + m01 * c01 + m02 * c02;
    let rx = vx, ry = vy, rz = vz; // prettier-ignore
    if (det > 0) {
      const c11 = a00 * a22 - m02 * m02, c12 = m01 * m02 - a00 * m12, c22 = a00 * a11 - m01 * m01; // prettier-ignore
      rx += (c00 * r0 + c01 * r1 + c02 * r2) / det;
      ry += (c01 * r0 + c11 * r1 + c12 * r2) / det;
      rz += (c02 * r0 + c12 * r1 + c22 * r2) / det;
    }
    // QLERP and the LBS image of the center.
    let qx = 0, qy = 0, qz = 0, qw = 0, lx = 0, ly = 0, lz = 0; // prettier-ignore
    let pivot = 0; // the largest weight (ties: the smaller joint index)
    for (let a = 1; a < u; a++) if (ws[a] > ws[pivot] || (ws[a] === ws[pivot] && js[a] < js[pivot])) pivot = a;
    const p0 = js[pivot] << 2;
    for (let a = 0; a < u; a++) {
      const w = ws[a];
      const o = js[a] << 2;
      const m = js[a] << 4;
      const s = q[p0] * q[o] + q[p0 + 1] * q[o + 1] + q[p0 + 2] * q[o + 2] + q[p0 + 3] * q[o + 3] < 0 ? -w : w;
      qx += s * q[o]; qy += s * q[o + 1]; qz += s * q[o + 2]; qw += s * q[o + 3]; // prettier-ignore
      lx += w * (S[m] * rx + S[m + 4] * ry + S[m + 8] * rz + S[m + 12]);
      ly += w * (S[m + 1] * rx + S[m + 5] * ry + S[m + 9] * rz + S[m + 13]);
      lz += w * (S[m + 2] * rx + S[m + 6] * ry + S[m + 10] * rz + S[m + 14]);
    }
    const inv = 1 / Math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw);
    qx *= inv; qy *= inv; qz *= inv; qw *= inv; // prettier-ignore
    writeRotated(mesh, out, i, qx, qy, qz, qw, rx, ry, rz, lx, ly, lz);
  }
}
