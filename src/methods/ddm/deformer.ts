/**
 * Direct Delta Mush skinning (Binh Huy Le and J. P. Lewis, "Direct Delta Mush Skinning and
 * Variants", ACM TOG 38(4), SIGGRAPH 2019, Alg. 1): per vertex,
 *
 *   Q = Σ_j M_j Ω_ij,  Q ← Q / Q₃₃,  S = Q[0:3, 0:3] − q pᵀ  (q = Q[0:3, 3], p = Q[3, 0:3]ᵀ),
 *   R = polar(S),  t = q − R p,  v' = R v + t
 *
 * with the precomputed Ω of `ddm/precompute.ts`. Those are stored about the vertex's rest
 * position, so M_j is taken in that frame, `[R_j | M_j(v)]`, and v' = t. The `compact` model
 * stores Ω_ij = ω_ij Π_i: Q = (Σ_j ω_ij M_j) Π_i.
 *
 * A vertex with one entry moves exactly by its joint's matrix. Normals and tangents turn by R.
 *
 * Scale: the paper assumes rigid joints. With scaled skinning matrices (a rig scaled as a whole,
 * squash and stretch) Q carries the scale but the polar factor drops it, so the vertex's offset
 * from its smoothed centre p would not scale. corskin scales it by the vertex's blend of the
 * joints' uniform scales, σ = Σ_j (Ω_ij[3,3] / Q₃₃)·|det L_j|^{1/3} (L_j the linear part of
 * M_j): v' = q − σ R p. σ = 1 for rigid joints (the paper's formula exactly); a scale shared by
 * every joint is then exact, and a mirrored rig (det < 0) is kept by the polar factor.
 *
 * @module
 */
import { mat4LinearDeterminant } from '../../core/math.js';
import { CorskinError } from '../../core/errors.js';
import type { SkinnedMesh } from '../../core/mesh.js';
import { polarFactor } from './polar.js';
import { checkDeformArgs, type DeformTarget } from '../../deformers/contract.js';
import { writeAffine, writeRotatedBy } from '../../deformers/vertex-writers.js';
import { ddmModelOf } from './data.js';

/**
 * Deforms `mesh` by Direct Delta Mush (see {@link Deformer} for the shared contract).
 * @param mesh must carry its model ({@link ddmModelOf}; see {@link computeDirectDeltaMush})
 * @param skinning skinning matrices, 4×4 column-major, length 16·J (bind → posed space)
 * @param out posed positions (3·n), normals (3·n), tangents (4·n)
 * @throws CorskinError when the mesh has no Direct Delta Mush data, it does not fit the mesh, or
 *   `skinning` has fewer matrices than the model's joints
 */
export function deformDdm(mesh: SkinnedMesh, skinning: Float64Array, out: DeformTarget): void {
  checkDeformArgs(mesh, skinning, out);
  const model = ddmModelOf(mesh);
  const n = mesh.positions.length / 3;
  if (!model)
    throw new CorskinError(
      'Direct Delta Mush needs its model on the mesh (computeDirectDeltaMush and setDdmModel, or prepareMethod)',
    );
  if (model.offsets.length !== n + 1)
    throw new CorskinError(`the Direct Delta Mush data is for ${model.offsets.length - 1} vertices, the mesh has ${n}`);
  const { offsets, joints, matrices: X, weights: w } = model;
  const compact = model.variant === 'compact';
  const M = skinning;
  const P = mesh.positions;
  // |det L_j|^{1/3} per joint
  const J = skinning.length >> 4;
  // Checked where read (no scan of the entries per frame): a joint beyond the matrices.
  const tooFew = () => {
    let used = 0;
    for (let e = 0; e < offsets[n]; e++) used = Math.max(used, joints[e] + 1);
    return new CorskinError(`${J} skinning matrices for a model that uses ${used} joints`);
  };
  const scale = new Float64Array(J);
  for (let j = 0; j < J; j++) {
    scale[j] = Math.cbrt(Math.abs(mat4LinearDeterminant(M, j << 4)));
  }
  const S = new Float64Array(9);
  const R = new Float64Array(9);
  const work = new Float64Array(18);
  for (let i = 0; i < n; i++) {
    const e0 = offsets[i];
    const e1 = offsets[i + 1];
    if (e1 - e0 === 1 || e1 === e0) {
      if (e1 > e0 && joints[e0] >= J) throw tooFew();
      writeAffine(mesh, out, i, M, e1 === e0 ? 0 : joints[e0] << 4);
      continue;
    }
    const vx = P[3 * i], vy = P[3 * i + 1], vz = P[3 * i + 2]; // prettier-ignore
    // Q's top three rows (q00 … q23) and bottom row (b0 b1 b2 c).
    let q00 = 0, q01 = 0, q02 = 0, q03 = 0, q10 = 0, q11 = 0, q12 = 0, q13 = 0, q20 = 0, q21 = 0, q22 = 0, q23 = 0; // prettier-ignore
    let b0 = 0, b1 = 0, b2 = 0, c = 0; // prettier-ignore
    // compact: the blended matrix first, times Π once.
    let sigma = 0; // Σ share · scale, divided by the shares' total below
    let m00 = 0, m01 = 0, m02 = 0, m03 = 0, m10 = 0, m11 = 0, m12 = 0, m13 = 0, m20 = 0, m21 = 0, m22 = 0, m23 = 0; // prettier-ignore
    for (let e = e0; e < e1; e++) {
      if (joints[e] >= J) throw tooFew();
      const m = joints[e] << 4;
      // [R_j | M_j v]: the joint's matrix in the frame at the vertex
      const a00 = M[m], a10 = M[m + 1], a20 = M[m + 2], a01 = M[m + 4], a11 = M[m + 5], a21 = M[m + 6]; // prettier-ignore
      const a02 = M[m + 8], a12 = M[m + 9], a22 = M[m + 10]; // prettier-ignore
      const t0 = a00 * vx + a01 * vy + a02 * vz + M[m + 12];
      const t1 = a10 * vx + a11 * vy + a12 * vz + M[m + 13];
      const t2 = a20 * vx + a21 * vy + a22 * vz + M[m + 14];
      if (compact) {
        const we = w![e];
        sigma += we * scale[joints[e]];
        m00 += we * a00;
        m01 += we * a01;
        m02 += we * a02;
        m03 += we * t0;
        m10 += we * a10;
        m11 += we * a11;
        m12 += we * a12;
        m13 += we * t1;
        m20 += we * a20;
        m21 += we * a21;
        m22 += we * a22;
        m23 += we * t2;
        continue;
      }
      const o = 10 * e;
      const x00 = X[o], x01 = X[o + 1], x02 = X[o + 2], x03 = X[o + 3], x11 = X[o + 4]; // prettier-ignore
      const x12 = X[o + 5], x13 = X[o + 6], x22 = X[o + 7], x23 = X[o + 8], x33 = X[o + 9]; // prettier-ignore
      q00 += a00 * x00 + a01 * x01 + a02 * x02 + t0 * x03;
      q01 += a00 * x01 + a01 * x11 + a02 * x12 + t0 * x13;
      q02 += a00 * x02 + a01 * x12 + a02 * x22 + t0 * x23;
      q03 += a00 * x03 + a01 * x13 + a02 * x23 + t0 * x33;
      q10 += a10 * x00 + a11 * x01 + a12 * x02 + t1 * x03;
      q11 += a10 * x01 + a11 * x11 + a12 * x12 + t1 * x13;
      q12 += a10 * x02 + a11 * x12 + a12 * x22 + t1 * x23;
      q13 += a10 * x03 + a11 * x13 + a12 * x23 + t1 * x33;
      q20 += a20 * x00 + a21 * x01 + a22 * x02 + t2 * x03;
      q21 += a20 * x01 + a21 * x11 + a22 * x12 + t2 * x13;
      q22 += a20 * x02 + a21 * x12 + a22 * x22 + t2 * x23;
      q23 += a20 * x03 + a21 * x13 + a22 * x23 + t2 * x33;
      sigma += x33 * scale[joints[e]];
      b0 += x03;
      b1 += x13;
      b2 += x23;
      c += x33;
    }
    if (compact) {
      // Q = B Π, B = Σ ω M_j (bottom row (0 0 0 Σω)); Π's Π₃₃ = 1.
      const o = 10 * i;
      const x00 = X[o], x01 = X[o + 1], x02 = X[o + 2], x03 = X[o + 3], x11 = X[o + 4]; // prettier-ignore
      const x12 = X[o + 5], x13 = X[o + 6], x22 = X[o + 7], x23 = X[o + 8], x33 = X[o + 9]; // prettier-ignore
      let sw = 0;
      for (let e = e0; e < e1; e++) sw += w![e];
      q00 = m00 * x00 + m01 * x01 + m02 * x02 + m03 * x03;
      q01 = m00 * x01 + m01 * x11 + m02 * x12 + m03 * x13;
      q02 = m00 * x02 + m01 * x12 + m02 * x22 + m03 * x23;
      q03 = m00 * x03 + m01 * x13 + m02 * x23 + m03 * x33;
      q10 = m10 * x00 + m11 * x01 + m12 * x02 + m13 * x03;
      q11 = m10 * x01 + m11 * x11 + m12 * x12 + m13 * x13;
      q12 = m10 * x02 + m11 * x12 + m12 * x22 + m13 * x23;
      q13 = m10 * x03 + m11 * x13 + m12 * x23 + m13 * x33;
      q20 = m20 * x00 + m21 * x01 + m22 * x02 + m23 * x03;
      q21 = m20 * x01 + m21 * x11 + m22 * x12 + m23 * x13;
      q22 = m20 * x02 + m21 * x12 + m22 * x22 + m23 * x23;
      q23 = m20 * x03 + m21 * x13 + m22 * x23 + m23 * x33;
      b0 = sw * x03;
      b1 = sw * x13;
      b2 = sw * x23;
      c = sw * x33;
      sigma /= sw;
    } else sigma /= c;
    const ic = 1 / c;
    const qx = q03 * ic, qy = q13 * ic, qz = q23 * ic; // prettier-ignore
    const px = b0 * ic, py = b1 * ic, pz = b2 * ic; // prettier-ignore
    S[0] = q00 * ic - qx * px;
    S[1] = q01 * ic - qx * py;
    S[2] = q02 * ic - qx * pz;
    S[3] = q10 * ic - qy * px;
    S[4] = q11 * ic - qy * py;
    S[5] = q12 * ic - qy * pz;
    S[6] = q20 * ic - qz * px;
    S[7] = q21 * ic - qz * py;
    S[8] = q22 * ic - qz * pz;
    polarFactor(S, R, work);
    // v' = t = q − σ R p (the vertex is the frame's origin)
    const lx = qx - sigma * (R[0] * px + R[1] * py + R[2] * pz);
    const ly = qy - sigma * (R[3] * px + R[4] * py + R[5] * pz);
    const lz = qz - sigma * (R[6] * px + R[7] * py + R[8] * pz);
    writeRotatedBy(mesh, out, i, R[0], R[3], R[6], R[1], R[4], R[7], R[2], R[5], R[8], vx, vy, vz, lx, ly, lz);
  }
}
