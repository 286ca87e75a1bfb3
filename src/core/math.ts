/**
 * Small linear-algebra kernels on typed arrays, in the style of gl-matrix: every function
 * writes into an `out` array at an offset and allocates nothing.
 *
 * Conventions (the glTF ones):
 * - 4×4 matrices are column-major, 16 numbers: element (row r, column c) is at `16·i + 4c + r`;
 *   a point `p` maps to `M·[p 1]`.
 * - Quaternions are `(x, y, z, w)` with `w` the scalar part.
 *
 * @module
 */

/** Any flat numeric array the kernels read from. */
export type NumArray = Float32Array | Float64Array | number[];

/** Writes the 4×4 identity into `out` at matrix offset `o` (in numbers). */
export function mat4Identity(out: Float64Array, o = 0): Float64Array {
  out.fill(0, o, o + 16);
  out[o] = out[o + 5] = out[o + 10] = out[o + 15] = 1;
  return out;
}

/** `out[o..o+16) = a[ao..] · b[bo..]` (4×4 column-major). `out` may alias `a` or `b`. */
export function mat4Multiply(
  out: Float64Array,
  o: number,
  a: NumArray,
  ao: number,
  b: NumArray,
  bo: number,
): Float64Array {
  const a00 = a[ao], a10 = a[ao + 1], a20 = a[ao + 2], a30 = a[ao + 3];
  const a01 = a[ao + 4], a11 = a[ao + 5], a21 = a[ao + 6], a31 = a[ao + 7];
  const a02 = a[ao + 8], a12 = a[ao + 9], a22 = a[ao + 10], a32 = a[ao + 11];
  const a03 = a[ao + 12], a13 = a[ao + 13], a23 = a[ao + 14], a33 = a[ao + 15];
  for (let c = 0; c < 4; c++) {
    const b0 = b[bo + 4 * c], b1 = b[bo + 4 * c + 1], b2 = b[bo + 4 * c + 2], b3 = b[bo + 4 * c + 3];
    out[o + 4 * c] = a00 * b0 + a01 * b1 + a02 * b2 + a03 * b3;
    out[o + 4 * c + 1] = a10 * b0 + a11 * b1 + a12 * b2 + a13 * b3;
    out[o + 4 * c + 2] = a20 * b0 + a21 * b1 + a22 * b2 + a23 * b3;
    out[o + 4 * c + 3] = a30 * b0 + a31 * b1 + a32 * b2 + a33 * b3;
  }
  return out;
}

/**
 * The determinant of the linear part (upper-left 3×3) of the 4×4 column-major matrix `m[o..]`:
 * its volume scale, negative for a mirroring.
 */
export function mat4LinearDeterminant(m: NumArray, o = 0): number {
  return (
    m[o] * (m[o + 5] * m[o + 10] - m[o + 6] * m[o + 9]) -
    m[o + 4] * (m[o + 1] * m[o + 10] - m[o + 2] * m[o + 9]) +
    m[o + 8] * (m[o + 1] * m[o + 6] - m[o + 2] * m[o + 5])
  );
}

/**
 * The inverse of a 4×4 column-major matrix whose last row is (0, 0, 0, s) with s ≠ 0 — a blend of
 * skinning matrices with weights summing to s, [A t; 0 s] — into `out` (16, column-major):
 * [A⁻¹ −A⁻¹t/s; 0 1/s], A⁻¹ by its adjugate; any other matrix by {@link mat4Invert}. The same
 * inverse as `mat4Invert` to rounding, without its allocation and elimination (the morph bake
 * inverts one per vertex and sample: 28M for Ybot).
 * @param minDeterminant a blended matrix whose |det A| is not above this is refused (its
 *   determinant is computed here anyway; default 0)
 * @returns false when |det A| ≤ `minDeterminant` or not finite (or `mat4Invert` finds another
 *   matrix singular)
 */
export function mat4InvertBlended(out: Float64Array, a: NumArray, minDeterminant = 0): boolean {
  const s = a[15];
  if (a[3] !== 0 || a[7] !== 0 || a[11] !== 0 || !(s !== 0)) return mat4Invert(out, 0, a, 0);
  const a00 = a[0], a10 = a[1], a20 = a[2], a01 = a[4], a11 = a[5], a21 = a[6], a02 = a[8], a12 = a[9], a22 = a[10]; // prettier-ignore
  const c00 = a11 * a22 - a12 * a21;
  const c10 = a12 * a20 - a10 * a22;
  const c20 = a10 * a21 - a11 * a20;
  const det = a00 * c00 + a01 * c10 + a02 * c20;
  if (!(Math.abs(det) > minDeterminant && Number.isFinite(det))) return false;
  const d = 1 / det;
  out[0] = c00 * d;
  out[1] = c10 * d;
  out[2] = c20 * d;
  out[4] = (a02 * a21 - a01 * a22) * d;
  out[5] = (a00 * a22 - a02 * a20) * d;
  out[6] = (a01 * a20 - a00 * a21) * d;
  out[8] = (a01 * a12 - a02 * a11) * d;
  out[9] = (a02 * a10 - a00 * a12) * d;
  out[10] = (a00 * a11 - a01 * a10) * d;
  const t0 = a[12] / s, t1 = a[13] / s, t2 = a[14] / s; // prettier-ignore
  for (let r = 0; r < 3; r++) out[12 + r] = -(out[r] * t0 + out[4 + r] * t1 + out[8 + r] * t2);
  out[3] = out[7] = out[11] = 0;
  out[15] = 1 / s;
  return true;
}

/**
 * Inverts the 4×4 matrix `a[ao..]` into `out[o..]`.
 * @returns false (and leaves `out` untouched) when the matrix is singular.
 */
export function mat4Invert(out: Float64Array, o: number, a: NumArray, ao: number): boolean {
  // Gauss–Jordan elimination with partial pivoting on [A | I], rows r of A = a[ao + r + 4c]. A
  // pivot under 1e-12 of the largest entry is rounding left of a zero (two equal rows leave about
  // 1e-17): the matrix is singular.
  const m = new Float64Array(32);
  let largest = 0;
  for (let r = 0; r < 4; r++) {
    for (let c = 0; c < 4; c++) largest = Math.max(largest, Math.abs((m[8 * r + c] = a[ao + r + 4 * c])));
    m[8 * r + 4 + r] = 1;
  }
  for (let c = 0; c < 4; c++) {
    let p = c;
    for (let r = c + 1; r < 4; r++) if (Math.abs(m[8 * r + c]) > Math.abs(m[8 * p + c])) p = r;
    const pivot = m[8 * p + c];
    if (!(Math.abs(pivot) > 1e-12 * largest) || !Number.isFinite(pivot)) return false;
    for (let k = 0; k < 8; k++) {
      const t = m[8 * p + k];
      m[8 * p + k] = m[8 * c + k];
      m[8 * c + k] = t / pivot;
    }
    for (let r = 0; r < 4; r++) {
      const f = m[8 * r + c];
      if (r === c || f === 0) continue;
      for (let k = 0; k < 8; k++) m[8 * r + k] -= f * m[8 * c + k];
    }
  }
  for (let k = 0; k < 16; k++) if (!Number.isFinite(m[8 * (k & 3) + 4 + (k >> 2)])) return false;
  for (let k = 0; k < 16; k++) out[o + k] = m[8 * (k & 3) + 4 + (k >> 2)];
  return true;
}

/**
 * Composes `T · R · S` (glTF node order) into `out[o..]` from translation `t[to..to+3)`,
 * unit quaternion `r[ro..ro+4)` (x, y, z, w) and scale `s[so..so+3)`.
 */
export function mat4FromTRS(
  out: Float64Array,
  o: number,
  t: NumArray,
  to: number,
  r: NumArray,
  ro: number,
  s: NumArray,
  so: number,
): Float64Array {
  const x = r[ro], y = r[ro + 1], z = r[ro + 2], w = r[ro + 3];
  const sx = s[so], sy = s[so + 1], sz = s[so + 2];
  const x2 = x + x, y2 = y + y, z2 = z + z;
  const xx = x * x2, xy = x * y2, xz = x * z2, yy = y * y2, yz = y * z2, zz = z * z2;
  const wx = w * x2, wy = w * y2, wz = w * z2;
  out[o] = (1 - (yy + zz)) * sx;
  out[o + 1] = (xy + wz) * sx;
  out[o + 2] = (xz - wy) * sx;
  out[o + 3] = 0;
  out[o + 4] = (xy - wz) * sy;
  out[o + 5] = (1 - (xx + zz)) * sy;
  out[o + 6] = (yz + wx) * sy;
  out[o + 7] = 0;
  out[o + 8] = (xz + wy) * sz;
  out[o + 9] = (yz - wx) * sz;
  out[o + 10] = (1 - (xx + yy)) * sz;
  out[o + 11] = 0;
  out[o + 12] = t[to];
  out[o + 13] = t[to + 1];
  out[o + 14] = t[to + 2];
  out[o + 15] = 1;
  return out;
}

/**
 * Quaternion (x, y, z, w) of the rotation part of the affine matrix `m[mo..mo+16)`, written to
 * `out[oo..oo+4)` with `w ≥ 0`. Scale is removed by normalising the three columns first, so for
 * a matrix `R·S` (glTF nodes, positive scale) this is exactly `R`; a sheared or reflected
 * matrix gets the rotation of its normalised columns, an approximation (see the scale/shear
 * handling of the deformers). Shepperd's method: stable for every rotation angle.
 */
export function quatFromMat4(out: NumArray, oo: number, m: NumArray, mo: number): void {
  let m00 = m[mo], m10 = m[mo + 1], m20 = m[mo + 2];
  let m01 = m[mo + 4], m11 = m[mo + 5], m21 = m[mo + 6];
  let m02 = m[mo + 8], m12 = m[mo + 9], m22 = m[mo + 10];
  // √ of the sums, not Math.hypot (about ten times the cost in V8; no overflow at matrix sizes).
  const l0 = Math.sqrt(m00 * m00 + m10 * m10 + m20 * m20) || 1, l1 = Math.sqrt(m01 * m01 + m11 * m11 + m21 * m21) || 1, l2 = Math.sqrt(m02 * m02 + m12 * m12 + m22 * m22) || 1; // prettier-ignore
  m00 /= l0; m10 /= l0; m20 /= l0; m01 /= l1; m11 /= l1; m21 /= l1; m02 /= l2; m12 /= l2; m22 /= l2;
  const tr = m00 + m11 + m22;
  let x: number, y: number, z: number, w: number;
  if (tr > 0) {
    const s = 2 * Math.sqrt(tr + 1);
    w = 0.25 * s;
    x = (m21 - m12) / s;
    y = (m02 - m20) / s;
    z = (m10 - m01) / s;
  } else if (m00 > m11 && m00 > m22) {
    const s = 2 * Math.sqrt(1 + m00 - m11 - m22);
    w = (m21 - m12) / s;
    x = 0.25 * s;
    y = (m01 + m10) / s;
    z = (m02 + m20) / s;
  } else if (m11 > m22) {
    const s = 2 * Math.sqrt(1 + m11 - m00 - m22);
    w = (m02 - m20) / s;
    x = (m01 + m10) / s;
    y = 0.25 * s;
    z = (m12 + m21) / s;
  } else {
    const s = 2 * Math.sqrt(1 + m22 - m00 - m11);
    w = (m10 - m01) / s;
    x = (m02 + m20) / s;
    y = (m12 + m21) / s;
    z = 0.25 * s;
  }
  writeUnitQuaternion(out, oo, x, y, z, w, w < 0 ? -1 : 1);
}

/** Writes (x, y, z, w)·sign normalised to unit length at `out[o..o+4)`. */
function writeUnitQuaternion(out: NumArray, o: number, x: number, y: number, z: number, w: number, sign = 1): void {
  const n = sign / Math.sqrt(x * x + y * y + z * z + w * w);
  out[o] = x * n;
  out[o + 1] = y * n;
  out[o + 2] = z * n;
  out[o + 3] = w * n;
}

/** Hamilton product `out = a ⊗ b` of quaternions (x, y, z, w) at offsets. `out` may alias. */
export function quatMultiply(out: NumArray, o: number, a: NumArray, ao: number, b: NumArray, bo: number): void {
  const ax = a[ao], ay = a[ao + 1], az = a[ao + 2], aw = a[ao + 3];
  const bx = b[bo], by = b[bo + 1], bz = b[bo + 2], bw = b[bo + 3];
  out[o] = aw * bx + ax * bw + ay * bz - az * by;
  out[o + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[o + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
}

/** Writes the unit quaternion of a rotation by `angle` radians about unit `axis` to `out`. */
export function quatFromAxisAngle(out: NumArray, o: number, ax: number, ay: number, az: number, angle: number): void {
  const n = Math.hypot(ax, ay, az);
  if (n === 0) throw new RangeError('rotation axis has zero length');
  const s = Math.sin(angle / 2) / n;
  out[o] = ax * s;
  out[o + 1] = ay * s;
  out[o + 2] = az * s;
  out[o + 3] = Math.cos(angle / 2);
}

/**
 * Spherical linear interpolation between unit quaternions `a` and `b` (shortest arc) at
 * parameter `t ∈ [0, 1]`, the glTF LINEAR interpolation of rotations.
 */
export function quatSlerp(out: NumArray, o: number, a: NumArray, ao: number, b: NumArray, bo: number, t: number): void {
  const ax = a[ao], ay = a[ao + 1], az = a[ao + 2], aw = a[ao + 3];
  let bx = b[bo], by = b[bo + 1], bz = b[bo + 2], bw = b[bo + 3];
  let cos = ax * bx + ay * by + az * bz + aw * bw;
  if (cos < 0) {
    cos = -cos;
    bx = -bx;
    by = -by;
    bz = -bz;
    bw = -bw;
  }
  let s0: number, s1: number;
  if (cos > 1 - 1e-9) {
    s0 = 1 - t;
    s1 = t;
  } else {
    const omega = Math.acos(cos);
    const sin = Math.sin(omega);
    s0 = Math.sin((1 - t) * omega) / sin;
    s1 = Math.sin(t * omega) / sin;
  }
  writeUnitQuaternion(out, o, s0 * ax + s1 * bx, s0 * ay + s1 * by, s0 * az + s1 * bz, s0 * aw + s1 * bw);
}

/**
 * Unit quaternion (x, y, z, w), `w ≥ 0`, of the proper rotation closest to the 3×3 linear part
 * of the column-major 4×4 `m[mo..]` (right-multiplied by the reflection diag(−1, 1, 1) when
 * `reflect`): the R maximising tr(Rᵀ A) — for det A > 0 the rotation of the polar decomposition
 * A = R P. Müller, Bender, Chentanez, Macklin, "A Robust Method to Extract the Rotational Part of
 * Deformations", MIG 2016: fixed-point iteration from the rotation of the normalised columns;
 * defined for every input, including singular and zero matrices (then the start itself).
 * Writes `out[oo..oo+4)`.
 * @param options `warmStart`: start from the unit quaternion already in `out[oo..oo+4)` (the last
 *   frame's, for a real-time caller) instead of the normalised columns; `tolerance`: the step
 *   angle (radians) at which the iteration stops (default 1e-15: converged to rounding)
 */
export function quatClosestRotation(
  out: NumArray,
  oo: number,
  m: NumArray,
  mo: number,
  reflect = false,
  options: { warmStart?: boolean; tolerance?: number } = {},
): void {
  const s = reflect ? -1 : 1;
  const a0x = s * m[mo], a0y = s * m[mo + 1], a0z = s * m[mo + 2]; // prettier-ignore
  const a1x = m[mo + 4], a1y = m[mo + 5], a1z = m[mo + 6]; // prettier-ignore
  const a2x = m[mo + 8], a2y = m[mo + 9], a2z = m[mo + 10]; // prettier-ignore
  const f = Number.isFinite;
  if (!(f(a0x) && f(a0y) && f(a0z) && f(a1x) && f(a1y) && f(a1z) && f(a2x) && f(a2y) && f(a2z))) {
    out[oo] = out[oo + 1] = out[oo + 2] = 0;
    out[oo + 3] = 1;
    return;
  }
  if (!options.warmStart)
    quatFromMat4(out, oo, [a0x, a0y, a0z, 0, a1x, a1y, a1z, 0, a2x, a2y, a2z, 0, 0, 0, 0, 1], 0);
  let x = out[oo], y = out[oo + 1], z = out[oo + 2], w = out[oo + 3]; // prettier-ignore
  if (!Number.isFinite(x + y + z + w)) {
    x = y = z = 0;
    w = 1;
  }
  // Plain arrays: a Float64Array costs V8 about 20 times an array literal's allocation.
  const Q = [0, 0, 0, 0];
  const R = [0, 0, 0, 0, 0, 0, 0, 0, 0];
  for (let it = 0; it < 100; it++) {
    Q[0] = x; Q[1] = y; Q[2] = z; Q[3] = w; // prettier-ignore
    mat3FromQuat(R, 0, Q, 0);
    // Columns of R.
    const r0x = R[0], r0y = R[1], r0z = R[2], r1x = R[3], r1y = R[4], r1z = R[5], r2x = R[6], r2y = R[7], r2z = R[8]; // prettier-ignore
    // ω = Σ r_i × a_i / (|Σ r_i · a_i| + ε)
    const ox = r0y * a0z - r0z * a0y + r1y * a1z - r1z * a1y + r2y * a2z - r2z * a2y;
    const oy = r0z * a0x - r0x * a0z + r1z * a1x - r1x * a1z + r2z * a2x - r2x * a2z;
    const oz = r0x * a0y - r0y * a0x + r1x * a1y - r1y * a1x + r2x * a2y - r2y * a2x;
    const d = Math.abs(r0x * a0x + r0y * a0y + r0z * a0z + r1x * a1x + r1y * a1y + r1z * a1z + r2x * a2x + r2y * a2y + r2z * a2z);
    const scale = d + 1e-300;
    const wxo = ox / scale, wyo = oy / scale, wzo = oz / scale; // prettier-ignore
    const angle = Math.sqrt(wxo * wxo + wyo * wyo + wzo * wzo);
    if (!(angle > (options.tolerance ?? 1e-15))) break;
    // q ← quat(ω/|ω|, |ω|) ⊗ q
    const h = Math.sin(angle / 2) / angle;
    const px = wxo * h, py = wyo * h, pz = wzo * h, pw = Math.cos(angle / 2); // prettier-ignore
    const nx = pw * x + px * w + py * z - pz * y;
    const ny = pw * y - px * z + py * w + pz * x;
    const nz = pw * z + px * y - py * x + pz * w;
    const nw = pw * w - px * x - py * y - pz * z;
    const l = 1 / Math.sqrt(nx * nx + ny * ny + nz * nz + nw * nw);
    x = nx * l;
    y = ny * l;
    z = nz * l;
    w = nw * l;
  }
  const sign = w < 0 ? -1 : 1;
  out[oo] = x * sign;
  out[oo + 1] = y * sign;
  out[oo + 2] = z * sign;
  out[oo + 3] = w * sign;
}

/**
 * Unit quaternion (x, y, z, w), `w ≥ 0`, of the rotation of the polar decomposition A = R P of
 * the 3×3 linear part of the column-major 4×4 `m[mo..]`, by the scaled Newton iteration
 * X ← ½(γX + X⁻ᵀ/γ), γ = (‖X⁻¹‖_F / ‖X‖_F)^½ (Higham, "Computing the polar decomposition — with
 * applications", SIAM J. Sci. Stat. Comput. 7(4), 1986): quadratic convergence, 2 to 5 steps
 * (mostly 4) on the template cages' rings where {@link quatClosestRotation}'s fixed point took
 * about 15. Defined
 * for det A > 0 only (then R is the closest proper rotation): returns false and writes nothing
 * otherwise (det ≤ 0, not finite, or no convergence in 30 steps), for the caller to fall back on
 * {@link quatClosestRotation}.
 */
export function quatPolarRotation(out: NumArray, oo: number, m: NumArray, mo: number): boolean {
  let a = m[mo], b = m[mo + 1], c = m[mo + 2], d = m[mo + 4], e = m[mo + 5], f = m[mo + 6], g = m[mo + 8], h = m[mo + 9], i = m[mo + 10]; // prettier-ignore
  for (let it = 0; it < 30; it++) {
    // Columns (a, b, c), (d, e, f), (g, h, i); the cofactors, C = det · X⁻ᵀ, column by column.
    const ca = e * i - f * h, cb = f * g - d * i, cc = d * h - e * g; // prettier-ignore
    const cd = c * h - b * i, ce = a * i - c * g, cf = b * g - a * h; // prettier-ignore
    const cg = b * f - c * e, ch = c * d - a * f, ci = a * e - b * d; // prettier-ignore
    const det = a * ca + d * cd + g * cg;
    const norm = Math.sqrt(a * a + b * b + c * c + d * d + e * e + f * f + g * g + h * h + i * i);
    const cofNorm = Math.sqrt(ca * ca + cb * cb + cc * cc + cd * cd + ce * ce + cf * cf + cg * cg + ch * ch + ci * ci); // prettier-ignore
    if (!(det > 0 && norm > 0 && Number.isFinite(det))) return false;
    const gamma = Math.sqrt(cofNorm / det / norm);
    const s = 0.5 * gamma, t = 0.5 / (gamma * det); // prettier-ignore
    const na = s * a + t * ca, nb = s * b + t * cb, nc = s * c + t * cc; // prettier-ignore
    const nd = s * d + t * cd, ne = s * e + t * ce, nf = s * f + t * cf; // prettier-ignore
    const ng = s * g + t * cg, nh = s * h + t * ch, ni = s * i + t * ci; // prettier-ignore
    const step = Math.abs(na - a) + Math.abs(nb - b) + Math.abs(nc - c) + Math.abs(nd - d) + Math.abs(ne - e) + Math.abs(nf - f) + Math.abs(ng - g) + Math.abs(nh - h) + Math.abs(ni - i); // prettier-ignore
    a = na; b = nb; c = nc; d = nd; e = ne; f = nf; g = ng; h = nh; i = ni; // prettier-ignore
    if (step < 1e-13) {
      quatFromMat4(out, oo, [a, b, c, 0, d, e, f, 0, g, h, i, 0, 0, 0, 0, 1], 0);
      return true;
    }
  }
  return false;
}

/**
 * Unit quaternion (x, y, z, w), `w ≥ 0`, of the proper rotation closest to the 3×3 linear part L
 * of the column-major 4×4 `m[mo..]` — of `L·diag(−1, 1, 1)` when det L < 0 (a mirrored joint) —
 * as two-phase skinning splits a skinning matrix: {@link quatPolarRotation} (scaled Newton, 2–5
 * steps), else {@link quatClosestRotation} (singular matrices; its fixed point took 11–20
 * iterations per joint on rpm-avatar's rig). Writes `out[oo..oo+4)`.
 */
export function quatRotationPart(out: NumArray, oo: number, m: NumArray, mo: number): void {
  const reflect = mat4LinearDeterminant(m, mo) < 0;
  const s = reflect ? -1 : 1;
  const L = [s * m[mo], s * m[mo + 1], s * m[mo + 2], 0, m[mo + 4], m[mo + 5], m[mo + 6], 0, m[mo + 8], m[mo + 9], m[mo + 10]]; // prettier-ignore
  if (!quatPolarRotation(out, oo, L, 0)) quatClosestRotation(out, oo, m, mo, reflect);
}

/**
 * The 3×3 rotation matrix (column-major, 9 numbers) of the unit quaternion (x, y, z, w)
 * `q[qo..]`, written to `out[o..o+9)`.
 */
export function mat3FromQuat(out: NumArray, o: number, q: NumArray, qo: number): void {
  const x = q[qo], y = q[qo + 1], z = q[qo + 2], w = q[qo + 3]; // prettier-ignore
  const x2 = x + x, y2 = y + y, z2 = z + z; // prettier-ignore
  const xx = x * x2, xy = x * y2, xz = x * z2, yy = y * y2, yz = y * z2, zz = z * z2; // prettier-ignore
  const wx = w * x2, wy = w * y2, wz = w * z2; // prettier-ignore
  out[o] = 1 - (yy + zz);
  out[o + 1] = xy + wz;
  out[o + 2] = xz - wy;
  out[o + 3] = xy - wz;
  out[o + 4] = 1 - (xx + zz);
  out[o + 5] = yz + wx;
  out[o + 6] = xz + wy;
  out[o + 7] = yz - wx;
  out[o + 8] = 1 - (xx + yy);
}

/**
 * Distance from point `p[i..i+3)` to the segment [a, b] (same units as the inputs; a degenerate
 * segment is its point a).
 */
export function segmentDistance(p: ArrayLike<number>, i: number, a: ArrayLike<number>, b: ArrayLike<number>): number {
  const dx = b[0] - a[0], dy = b[1] - a[1], dz = b[2] - a[2];
  const px = p[i] - a[0], py = p[i + 1] - a[1], pz = p[i + 2] - a[2];
  const len2 = dx * dx + dy * dy + dz * dz;
  const t = len2 > 0 ? Math.min(1, Math.max(0, (px * dx + py * dy + pz * dz) / len2)) : 0;
  return Math.hypot(px - t * dx, py - t * dy, pz - t * dz);
}

/**
 * Whether the 3×3 linear part of the column-major 4×4 matrix at `m[o..o+16)` is singular: its
 * determinant at most 1e-12 of the product of its columns' lengths (a zero column included), so
 * a matrix that scales, even unevenly and by any amount, is not.
 */
export function mat4LinearPartSingular(m: ArrayLike<number>, o = 0): boolean {
  const [a, b, c, d, e, f, g, h, k] = [m[o], m[o + 1], m[o + 2], m[o + 4], m[o + 5], m[o + 6], m[o + 8], m[o + 9], m[o + 10]]; // prettier-ignore
  const det = a * (e * k - f * h) - d * (b * k - c * h) + g * (b * f - c * e);
  return !(Math.abs(det) > 1e-12 * Math.hypot(a, b, c) * Math.hypot(d, e, f) * Math.hypot(g, h, k));
}
