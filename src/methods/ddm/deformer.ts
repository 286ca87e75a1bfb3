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
  const Q = new Float64Array(12);
  const T = new Float64Array(12);
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
    // Q's top three rows (row-major 3×4) and bottom row (b0 b1 b2 c); compact: B = Σ ω M_j first
    // (l, t), taken to the vertex's frame and times Π once.
    for (let k = 0; k < 12; k++) Q[k] = 0;
    let l00 = 0, l10 = 0, l20 = 0, l01 = 0, l11 = 0, l21 = 0, l02 = 0, l12 = 0, l22 = 0, t0 = 0, t1 = 0, t2 = 0; // prettier-ignore
    let b0 = 0, b1 = 0, b2 = 0, c = 0; // prettier-ignore
    let sigma = 0; // Σ share · scale, divided by the shares' total below
    let sw = 0; // compact: Σ ω
    for (let e = e0; e < e1; e++) {
      if (joints[e] >= J) throw tooFew();
      const m = joints[e] << 4;
      // prettier-ignore
      if (compact) {
        const we = w![e];
        sw += we;
        sigma += we * scale[joints[e]];
        l00 += we * M[m]; l10 += we * M[m + 1]; l20 += we * M[m + 2];
        l01 += we * M[m + 4]; l11 += we * M[m + 5]; l21 += we * M[m + 6];
        l02 += we * M[m + 8]; l12 += we * M[m + 9]; l22 += we * M[m + 10];
        t0 += we * M[m + 12]; t1 += we * M[m + 13]; t2 += we * M[m + 14];
        continue;
      }
      // [R_j | M_j v]: the joint's matrix in the frame at the vertex
      frameAt(T, M, m, vx, vy, vz);
      const o = 10 * e;
      addTimesSymmetric(Q, T, X, o);
      sigma += X[o + 9] * scale[joints[e]];
      b0 += X[o + 3];
      b1 += X[o + 6];
      b2 += X[o + 8];
      c += X[o + 9];
    }
    // prettier-ignore
    if (compact) {
      // Q = [B | B v] Π (bottom row (0 0 0 Σω)); Π's Π₃₃ = 1.
      T[0] = l00; T[1] = l01; T[2] = l02; T[3] = l00 * vx + l01 * vy + l02 * vz + t0;
      T[4] = l10; T[5] = l11; T[6] = l12; T[7] = l10 * vx + l11 * vy + l12 * vz + t1;
      T[8] = l20; T[9] = l21; T[10] = l22; T[11] = l20 * vx + l21 * vy + l22 * vz + t2;
      const o = 10 * i;
      addTimesSymmetric(Q, T, X, o);
      b0 = sw * X[o + 3];
      b1 = sw * X[o + 6];
      b2 = sw * X[o + 8];
      c = sw * X[o + 9];
      sigma /= sw;
    } else sigma /= c;
    const ic = 1 / c;
    const px = b0 * ic, py = b1 * ic, pz = b2 * ic; // prettier-ignore
    for (let r = 0; r < 3; r++) {
      const q = Q[4 * r + 3] * ic;
      S[3 * r] = Q[4 * r] * ic - q * px;
      S[3 * r + 1] = Q[4 * r + 1] * ic - q * py;
      S[3 * r + 2] = Q[4 * r + 2] * ic - q * pz;
    }
    const qx = Q[3] * ic, qy = Q[7] * ic, qz = Q[11] * ic; // prettier-ignore
    polarFactor(S, R, work);
    // v' = t = q − σ R p (the vertex is the frame's origin)
    const lx = qx - sigma * (R[0] * px + R[1] * py + R[2] * pz);
    const ly = qy - sigma * (R[3] * px + R[4] * py + R[5] * pz);
    const lz = qz - sigma * (R[6] * px + R[7] * py + R[8] * pz);
    writeRotatedBy(mesh, out, i, R[0], R[3], R[6], R[1], R[4], R[7], R[2], R[5], R[8], vx, vy, vz, lx, ly, lz);
  }
}

/**
 * `Q += T · X`: Q and T 3×4 row-major, X the symmetric 4×4 Ω packed as its upper triangle row by
 * row (x00 x01 x02 x03 x11 x12 x13 x22 x23 x33) at `X[o..o+10)`.
 */
function addTimesSymmetric(Q: Float64Array, T: Float64Array, X: ArrayLike<number>, o: number): void {
  const x00 = X[o], x01 = X[o + 1], x02 = X[o + 2], x03 = X[o + 3], x11 = X[o + 4]; // prettier-ignore
  const x12 = X[o + 5], x13 = X[o + 6], x22 = X[o + 7], x23 = X[o + 8], x33 = X[o + 9]; // prettier-ignore
  for (let r = 0; r < 12; r += 4) {
    const a = T[r], b = T[r + 1], c = T[r + 2], d = T[r + 3]; // prettier-ignore
    Q[r] += a * x00 + b * x01 + c * x02 + d * x03;
    Q[r + 1] += a * x01 + b * x11 + c * x12 + d * x13;
    Q[r + 2] += a * x02 + b * x12 + c * x22 + d * x23;
    Q[r + 3] += a * x03 + b * x13 + c * x23 + d * x33;
  }
}

/**
 * `T = [L | L v + τ]` (3×4 row-major): the 4×4 column-major affine matrix `[L | τ]` at `M[m..]`
 * in the frame at v — its linear part and its image of v.
 */
function frameAt(T: Float64Array, M: ArrayLike<number>, m: number, vx: number, vy: number, vz: number): void {
  for (let r = 0; r < 3; r++) {
    const a = M[m + r], b = M[m + 4 + r], c = M[m + 8 + r]; // prettier-ignore
    T[4 * r] = a;
    T[4 * r + 1] = b;
    T[4 * r + 2] = c;
    T[4 * r + 3] = a * vx + b * vy + c * vz + M[m + 12 + r];
  }
}
