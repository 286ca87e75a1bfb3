/**
 * Per-vertex writers: a vertex's posed position, normal and tangent under an affine map or a
 * rotation, into the caller's {@link DeformTarget}.
 *
 * @module
 */
import type { SkinnedMesh } from '../core/mesh.js';
import type { DeformTarget } from './contract.js';

/**
 * Writes vertex i transformed by the 4×4 skinning matrix at `m[mo..]` (position by the affine
 * map, normal by the cofactor matrix — the inverse transpose up to scale — and tangent by the
 * linear part, both renormalised; where the map is degenerate enough to lose them, a joint scaled
 * to 0, the rest normal and tangent).
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
  mesh: SkinnedMesh, out: DeformTarget, i: number,
  a00: number, a10: number, a20: number, a01: number, a11: number, a21: number, a02: number, a12: number, a22: number,
  tx: number, ty: number, tz: number,
): void {
  const p = mesh.positions;
  const x = p[3 * i], y = p[3 * i + 1], z = p[3 * i + 2];
  const op = out.positions;
  op[3 * i] = a00 * x + a01 * y + a02 * z + tx;
  op[3 * i + 1] = a10 * x + a11 * y + a12 * z + ty;
  op[3 * i + 2] = a20 * x + a21 * y + a22 * z + tz;
  if (mesh.normals && out.normals) writeNormal(mesh.normals, out.normals, i, a00, a10, a20, a01, a11, a21, a02, a12, a22);
  if (mesh.tangents && out.tangents) writeTangent(mesh.tangents, out.tangents, i, a00, a10, a20, a01, a11, a21, a02, a12, a22);
}

/**
 * Writes vertex i moved by the rigid map `v ↦ R (v − c) + l`, R the rotation of the unit
 * quaternion (qx, qy, qz, qw): position, normal (R n) and tangent (R t, w copied). The ending of
 * every quaternion-blending deformer: DQS (c = 0, l = t), SBS and CoR (c the center of rotation,
 * l its blended image).
 */
export function writeRotated(
  mesh: SkinnedMesh, out: DeformTarget, i: number,
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
 * Writes vertex i moved by the dual quaternion (r, d), a blend's sum normalised here (Kavan,
 * Collins, Žára, O'Sullivan, "Geometric Skinning with Approximate Dual Quaternion Blending", ACM
 * TOG 2008, Sec. 3): rotation r/|r|, translation `t = 2 (d ⊗ r*)/|r|²`. The ending of DQS and of
 * the skinning templates' corrective blend.
 */
export function writeDualQuaternion(
  mesh: SkinnedMesh, out: DeformTarget, i: number,
  rx: number, ry: number, rz: number, rw: number, dx: number, dy: number, dz: number, dw: number,
): void { // prettier-ignore
  const inv = 1 / Math.sqrt(rx * rx + ry * ry + rz * rz + rw * rw);
  rx *= inv; ry *= inv; rz *= inv; rw *= inv; // prettier-ignore
  dx *= inv; dy *= inv; dz *= inv; dw *= inv; // prettier-ignore
  // t = 2 (d ⊗ r*) = 2 (r_w d_v − d_w r_v + r_v × d_v)
  const tx = 2 * (rw * dx - dw * rx + ry * dz - rz * dy);
  const ty = 2 * (rw * dy - dw * ry + rz * dx - rx * dz);
  const tz = 2 * (rw * dz - dw * rz + rx * dy - ry * dx);
  writeRotated(mesh, out, i, rx, ry, rz, rw, 0, 0, 0, tx, ty, tz);
}

/**
 * {@link writeRotated} with the rotation given as a matrix R (column-major r00 r10 r20 | r01 r11
 * r21 | r02 r12 r22): `v ↦ R (v − c) + l`, normal R n, tangent R t (w copied).
 */
export function writeRotatedBy(
  mesh: SkinnedMesh, out: DeformTarget, i: number,
  r00: number, r10: number, r20: number, r01: number, r11: number, r21: number, r02: number, r12: number, r22: number,
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
    // A rotation that degenerated (its joints scaled to 0, no quaternion to blend): the rest normal.
    // (A rotation keeps the length; a NaN or collapsed one does not.)
    if (!(ON[p] * ON[p] + ON[p + 1] * ON[p + 1] + ON[p + 2] * ON[p + 2] > 0.5 * (nx * nx + ny * ny + nz * nz)))
      copyRest(N, ON, p, 3);
  }
  if (mesh.tangents && out.tangents) writeTangent(mesh.tangents, out.tangents, i, r00, r10, r20, r01, r11, r21, r02, r12, r22);
}

/**
 * Writes normal i (x, y, z) transformed by the linear map A (column-major): by its cofactor
 * matrix C = det(A)·A⁻ᵀ (the inverse transpose up to scale, so that the normal stays normal to the
 * mapped surface), its sign fixed so that C·n keeps the normal's side, renormalised; where the map
 * loses it (a joint scaled to 0), the rest normal.
 */
export function writeNormal(
  nIn: Float32Array, nOut: Float32Array, i: number,
  a00: number, a10: number, a20: number, a01: number, a11: number, a21: number, a02: number, a12: number, a22: number,
): void { // prettier-ignore
  const c00 = a11 * a22 - a21 * a12, c10 = a21 * a02 - a01 * a22, c20 = a01 * a12 - a11 * a02;
  const c01 = a20 * a12 - a10 * a22, c11 = a00 * a22 - a20 * a02, c21 = a10 * a02 - a00 * a12;
  const c02 = a10 * a21 - a20 * a11, c12 = a20 * a01 - a00 * a21, c22 = a00 * a11 - a10 * a01;
  const det = a00 * c00 + a01 * c01 + a02 * c02;
  const nx = nIn[3 * i], ny = nIn[3 * i + 1], nz = nIn[3 * i + 2];
  const rx = c00 * nx + c01 * ny + c02 * nz;
  const ry = c10 * nx + c11 * ny + c12 * nz;
  const rz = c20 * nx + c21 * ny + c22 * nz;
  const len = Math.sqrt(rx * rx + ry * ry + rz * rz);
  if (!(len > 0)) return copyRest(nIn, nOut, 3 * i, 3); // a degenerate map: the rest normal
  const l = (det < 0 ? -1 : 1) / len;
  nOut[3 * i] = rx * l;
  nOut[3 * i + 1] = ry * l;
  nOut[3 * i + 2] = rz * l;
}

/**
 * Writes tangent i (x, y, z, w) transformed by the linear part A (column-major), renormalised,
 * handedness w copied.
 */
export function writeTangent(
  tIn: Float32Array, tOut: Float32Array, i: number,
  a00: number, a10: number, a20: number, a01: number, a11: number, a21: number, a02: number, a12: number, a22: number,
): void { // prettier-ignore
  const x = tIn[4 * i], y = tIn[4 * i + 1], z = tIn[4 * i + 2]; // prettier-ignore
  const rx = a00 * x + a01 * y + a02 * z, ry = a10 * x + a11 * y + a12 * z, rz = a20 * x + a21 * y + a22 * z; // prettier-ignore
  const len = Math.sqrt(rx * rx + ry * ry + rz * rz);
  if (!(len > 0)) return copyRest(tIn, tOut, 4 * i, 4); // a degenerate map: the rest tangent
  tOut[4 * i] = rx / len;
  tOut[4 * i + 1] = ry / len;
  tOut[4 * i + 2] = rz / len;
  tOut[4 * i + 3] = tIn[4 * i + 3];
}

/** out[o … o+c) = rest[o … o+c): the documented fallback for a direction a degenerate map loses. */
function copyRest(rest: Float32Array, out: Float32Array, o: number, c: number): void {
  for (let k = 0; k < c; k++) out[o + k] = rest[o + k];
}
