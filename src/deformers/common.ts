/**
 * What every deformer shares: the signature, the output arrays, and the per-joint rotation
 * quaternions that DQS and CoR skinning blend.
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';
import { quatFromMat4 } from '../core/math.js';
import type { SkinnedMesh } from '../core/mesh.js';

/**
 * Caller-provided output arrays of a deformer, posed space: `positions` length 3·n; `normals`
 * (3·n) and `tangents` (4·n, w copied from the input) are written only when both the mesh and
 * the target have them.
 */
export interface DeformTarget {
  positions: Float32Array;
  normals?: Float32Array;
  tangents?: Float32Array;
}

/**
 * The shared deformer signature: deform `mesh` (bind space) by the skinning matrices
 * `skinning` (4×4 column-major, length 16·J, bind space → posed space, see
 * {@link skinningMatrices}) into `out`, allocating nothing per vertex.
 */
export type Deformer = (mesh: SkinnedMesh, skinning: Float64Array, out: DeformTarget) => void;

/** The deformers' names, as used on the CLI and in reports. */
export type SkinningMethod = 'lbs' | 'dqs' | 'sbs' | 'lms' | 'cor';

/**
 * Checks that `out` fits `mesh` (O(1): the per-vertex data is checked once, by
 * {@link validateSkinnedMesh}, when the mesh is read — influences must reference joints < J).
 * @throws CorskinError on a size mismatch
 */
export function checkDeformArgs(mesh: SkinnedMesh, skinning: Float64Array, out: DeformTarget): void {
  const n = mesh.positions.length / 3;
  if (out.positions.length < 3 * n) throw new CorskinError(`output positions hold fewer than ${n} vertices`);
  if (out.normals && mesh.normals && out.normals.length < 3 * n) throw new CorskinError(`output normals hold fewer than ${n} vertices`);
  if (out.tangents && mesh.tangents && out.tangents.length < 4 * n) throw new CorskinError(`output tangents hold fewer than ${n} vertices`);
  if (skinning.length === 0 || skinning.length % 16) throw new CorskinError('skinning matrices length is not a positive multiple of 16');
}

/**
 * Unit quaternion (x, y, z, w) of each skinning matrix's rotation, computed once per frame.
 * @param skinning length 16·J; @param out length 4·J (allocated when omitted)
 */
export function jointQuaternions<T extends Float32Array | Float64Array = Float64Array>(skinning: Float64Array, out?: T): T {
  const J = skinning.length / 16;
  const q = out ?? (new Float64Array(4 * J) as T);
  for (let j = 0; j < J; j++) quatFromMat4(q, 4 * j, skinning, 16 * j);
  return q;
}

/**
 * Writes vertex i transformed by the 4×4 skinning matrix at `m[mo..]` (position by the affine
 * map, normal by the cofactor matrix — the inverse transpose up to scale — and tangent by the
 * linear part, both renormalised).
 */
export function writeAffine(mesh: SkinnedMesh, out: DeformTarget, i: number, m: Float64Array, mo: number): void {
  writeTransformed(
    mesh, out, i,
    m[mo], m[mo + 1], m[mo + 2], m[mo + 4], m[mo + 5], m[mo + 6], m[mo + 8], m[mo + 9], m[mo + 10],
    m[mo + 12], m[mo + 13], m[mo + 14],
  );
}

/**
 * Writes vertex i transformed by the affine map with linear part A (column-major a00 a10 a20 |
 * a01 a11 a21 | a02 a12 a22) and translation (tx, ty, tz).
 */
function writeTransformed(
  mesh: SkinnedMesh,
  out: DeformTarget,
  i: number,
  a00: number, a10: number, a20: number,
  a01: number, a11: number, a21: number,
  a02: number, a12: number, a22: number,
  tx: number, ty: number, tz: number,
): void {
  const p = mesh.positions;
  const x = p[3 * i], y = p[3 * i + 1], z = p[3 * i + 2];
  const op = out.positions;
  op[3 * i] = a00 * x + a01 * y + a02 * z + tx;
  op[3 * i + 1] = a10 * x + a11 * y + a12 * z + ty;
  op[3 * i + 2] = a20 * x + a21 * y + a22 * z + tz;
  const nIn = mesh.normals, nOut = out.normals;
  if (nIn && nOut) {
    // Cofactor matrix C = det(A)·A⁻ᵀ; its sign is fixed so that C·n keeps the normal's side.
    const c00 = a11 * a22 - a21 * a12, c10 = a21 * a02 - a01 * a22, c20 = a01 * a12 - a11 * a02;
    const c01 = a20 * a12 - a10 * a22, c11 = a00 * a22 - a20 * a02, c21 = a10 * a02 - a00 * a12;
    const c02 = a10 * a21 - a20 * a11, c12 = a20 * a01 - a00 * a21, c22 = a00 * a11 - a10 * a01;
    const det = a00 * c00 + a01 * c01 + a02 * c02;
    const nx = nIn[3 * i], ny = nIn[3 * i + 1], nz = nIn[3 * i + 2];
    const rx = c00 * nx + c01 * ny + c02 * nz;
    const ry = c10 * nx + c11 * ny + c12 * nz;
    const rz = c20 * nx + c21 * ny + c22 * nz;
    const l = (det < 0 ? -1 : 1) / (Math.sqrt(rx * rx + ry * ry + rz * rz) || 1);
    nOut[3 * i] = rx * l;
    nOut[3 * i + 1] = ry * l;
    nOut[3 * i + 2] = rz * l;
  }
  if (mesh.tangents && out.tangents) writeTangent(mesh.tangents, out.tangents, i, a00, a10, a20, a01, a11, a21, a02, a12, a22);
}

/**
 * Writes vertex i moved by the rigid map `v ↦ R (v − c) + l`, R the rotation of the unit
 * quaternion (qx, qy, qz, qw): position, normal (R n) and tangent (R t, w copied). The ending of
 * every quaternion-blending deformer: DQS (c = 0, l = t), SBS and CoR (c the center of rotation,
 * l its blended image).
 */
export function writeRotated(
  mesh: SkinnedMesh,
  out: DeformTarget,
  i: number,
  qx: number, qy: number, qz: number, qw: number,
  cx: number, cy: number, cz: number,
  lx: number, ly: number, lz: number,
): void { // prettier-ignore
  const x2 = qx + qx, y2 = qy + qy, z2 = qz + qz; // prettier-ignore
  const xx = qx * x2, xy = qx * y2, xz = qx * z2, yy = qy * y2, yz = qy * z2, zz = qz * z2; // prettier-ignore
  const wx = qw * x2, wy = qw * y2, wz = qw * z2; // prettier-ignore
  writeRotatedBy(
    mesh, out, i,
    1 - (yy + zz), xy + wz, xz - wy,
    xy - wz, 1 - (xx + zz), yz + wx,
    xz + wy, yz - wx, 1 - (xx + yy),
    cx, cy, cz, lx, ly, lz,
  ); // prettier-ignore
}

/**
 * {@link writeRotated} with the rotation given as a matrix R (column-major r00 r10 r20 | r01 r11
 * r21 | r02 r12 r22): `v ↦ R (v − c) + l`, normal R n, tangent R t (w copied).
 */
export function writeRotatedBy(
  mesh: SkinnedMesh,
  out: DeformTarget,
  i: number,
  r00: number, r10: number, r20: number,
  r01: number, r11: number, r21: number,
  r02: number, r12: number, r22: number,
  cx: number, cy: number, cz: number,
  lx: number, ly: number, lz: number,
): void { // prettier-ignore
  const P = mesh.positions, OP = out.positions; // prettier-ignore
  const p = 3 * i;
  const x = P[p] - cx, y = P[p + 1] - cy, z = P[p + 2] - cz; // prettier-ignore
  OP[p] = r00 * x + r01 * y + r02 * z + lx;
  OP[p + 1] = r10 * x + r11 * y + r12 * z + ly;
  OP[p + 2] = r20 * x + r21 * y + r22 * z + lz;
  const N = mesh.normals, ON = out.normals; // prettier-ignore
  if (N && ON) {
    const nx = N[p], ny = N[p + 1], nz = N[p + 2]; // prettier-ignore
    ON[p] = r00 * nx + r01 * ny + r02 * nz;
    ON[p + 1] = r10 * nx + r11 * ny + r12 * nz;
    ON[p + 2] = r20 * nx + r21 * ny + r22 * nz;
  }
  if (mesh.tangents && out.tangents) writeTangent(mesh.tangents, out.tangents, i, r00, r10, r20, r01, r11, r21, r02, r12, r22);
}

/**
 * Writes tangent i (x, y, z, w) transformed by the linear part A (column-major), renormalised,
 * handedness w copied.
 */
export function writeTangent(
  tIn: Float32Array,
  tOut: Float32Array,
  i: number,
  a00: number, a10: number, a20: number,
  a01: number, a11: number, a21: number,
  a02: number, a12: number, a22: number,
): void { // prettier-ignore
  const x = tIn[4 * i], y = tIn[4 * i + 1], z = tIn[4 * i + 2]; // prettier-ignore
  const rx = a00 * x + a01 * y + a02 * z, ry = a10 * x + a11 * y + a12 * z, rz = a20 * x + a21 * y + a22 * z; // prettier-ignore
  const l = 1 / (Math.sqrt(rx * rx + ry * ry + rz * rz) || 1);
  tOut[4 * i] = rx * l;
  tOut[4 * i + 1] = ry * l;
  tOut[4 * i + 2] = rz * l;
  tOut[4 * i + 3] = tIn[4 * i + 3];
}

/**
 * Two-phase skinning for non-rigid skinning matrices (Kavan et al. 2008, Sec. 4.2): each
 * skinning matrix `M_j = [L_j | t_j]` is split by the polar decomposition `L_j = R_j P_j` (R_j a
 * rotation, P_j symmetric: the joint's scale/shear in bind space) into a rigid `[R_j | t_j]` and
 * the stretch P_j, so that `M_j v = R_j (P_j v) + t_j` exactly.
 * @param skinning length 16·J
 * @returns null when every matrix is rigid to float precision (|LᵀL − I| ≤ 1e-5, as glTF float32
 *   data gives), else the rigid matrices (16·J)
 *   and the stretches P_j (3×3 column-major, 9·J)
 */
export function splitScale(skinning: Float64Array): { rigid: Float64Array; stretch: Float64Array } | null {
  const J = skinning.length / 16;
  let rigid = true;
  for (let j = 0; j < J && rigid; j++) {
    const m = 16 * j;
    for (let a = 0; a < 3 && rigid; a++) {
      for (let b = a; b < 3; b++) {
        const d = skinning[m + 4 * a] * skinning[m + 4 * b] + skinning[m + 4 * a + 1] * skinning[m + 4 * b + 1] + skinning[m + 4 * a + 2] * skinning[m + 4 * b + 2];
        if (Math.abs(d - (a === b ? 1 : 0)) > 1e-5) {
          rigid = false;
          break;
        }
      }
    }
  }
  if (rigid) return null;
  const out = skinning.slice();
  const stretch = new Float64Array(9 * J);
  const X = new Float64Array(9);
  for (let j = 0; j < J; j++) {
    const m = 16 * j;
    for (let c = 0; c < 3; c++) for (let r = 0; r < 3; r++) X[3 * c + r] = skinning[m + 4 * c + r];
    polarRotation(X);
    // P = Rᵀ L
    for (let c = 0; c < 3; c++) {
      for (let r = 0; r < 3; r++) {
        stretch[9 * j + 3 * c + r] = X[3 * r] * skinning[m + 4 * c] + X[3 * r + 1] * skinning[m + 4 * c + 1] + X[3 * r + 2] * skinning[m + 4 * c + 2];
        out[m + 4 * c + r] = X[3 * c + r];
      }
    }
  }
  return { rigid: out, stretch };
}

/** Replaces the 3×3 column-major X by the rotation of its polar decomposition (Higham's iteration). */
function polarRotation(X: Float64Array): void {
  for (let it = 0; it < 50; it++) {
    // X⁻ᵀ = cofactor(X) / det(X)
    const [a, b, c, d, e, f, g, h, k] = X; // columns (a b c), (d e f), (g h k)
    const c0 = e * k - f * h, c1 = f * g - d * k, c2 = d * h - e * g; // prettier-ignore
    const det = a * c0 + b * c1 + c * c2;
    if (!det) return;
    const inv = [c0, c1, c2, c * h - b * k, a * k - c * g, b * g - a * h, b * f - c * e, c * d - a * f, a * e - b * d];
    let change = 0;
    for (let i = 0; i < 9; i++) {
      const next = 0.5 * (X[i] + inv[i] / det);
      change = Math.max(change, Math.abs(next - X[i]));
      X[i] = next;
    }
    if (change < 1e-15) return;
  }
}

/**
 * Phase one of two-phase skinning: the mesh with every vertex (and its normal, tangent and
 * center of rotation) moved by its blended stretch `Σ_j w_j P_j` (bind space), ready for the
 * rigid phase. Allocates the new arrays (only non-rigid rigs pay for it).
 */
export function stretchedMesh(mesh: SkinnedMesh, stretch: Float64Array): SkinnedMesh {
  const { positions: P, normals: N, tangents: T, centersOfRotation: C, joints: MJ, weights: MW, influences: K } = mesh;
  const n = P.length / 3;
  const out: SkinnedMesh = { ...mesh, positions: new Float32Array(3 * n) };
  if (N) out.normals = new Float32Array(3 * n);
  if (T) out.tangents = new Float32Array(4 * n);
  if (C) out.centersOfRotation = new Float32Array(3 * n);
  const A = new Float64Array(9);
  for (let i = 0; i < n; i++) {
    A.fill(0);
    for (let k = K * i; k < K * i + K; k++) {
      const w = MW[k];
      if (w === 0) continue;
      for (let e = 0; e < 9; e++) A[e] += w * stretch[9 * MJ[k] + e];
    }
    const tr = (src: ArrayLike<number>, dst: Float32Array, o: number) => {
      const x = src[o], y = src[o + 1], z = src[o + 2]; // prettier-ignore
      dst[o] = A[0] * x + A[3] * y + A[6] * z;
      dst[o + 1] = A[1] * x + A[4] * y + A[7] * z;
      dst[o + 2] = A[2] * x + A[5] * y + A[8] * z;
    };
    tr(P, out.positions, 3 * i);
    if (C) tr(C, out.centersOfRotation!, 3 * i);
    if (T) {
      tr(T, out.tangents!, 4 * i);
      out.tangents![4 * i + 3] = T[4 * i + 3];
    }
    if (N) {
      // Normals by the cofactor (inverse transpose) of the symmetric A, renormalised.
      const [a, b, c, , e, f, , , k] = A;
      const x = N[3 * i], y = N[3 * i + 1], z = N[3 * i + 2]; // prettier-ignore
      const c00 = e * k - f * f, c01 = c * f - b * k, c02 = b * f - c * e, c11 = a * k - c * c, c12 = b * c - a * f, c22 = a * e - b * b; // prettier-ignore
      const rx = c00 * x + c01 * y + c02 * z, ry = c01 * x + c11 * y + c12 * z, rz = c02 * x + c12 * y + c22 * z; // prettier-ignore
      const l = 1 / (Math.hypot(rx, ry, rz) || 1);
      out.normals![3 * i] = rx * l;
      out.normals![3 * i + 1] = ry * l;
      out.normals![3 * i + 2] = rz * l;
    }
  }
  return out;
}
