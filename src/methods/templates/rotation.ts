/**
 * 3×3 rotations for the template deformation functions (row-major, 9 numbers): axis–angle
 * (Rodrigues), products, application, and the geodesic angle between two rotations.
 *
 * @module
 */

/**
 * A 3×3 matrix or 3-vector the functions below write: a plain array by default, since per-frame
 * temporaries as plain arrays cost a small fraction of a typed array's allocation in V8.
 */
export type NumbersOut = number[] | Float64Array;

/** Nine zeros, a plain array (see {@link NumbersOut}). */
export const mat3 = (): number[] => [0, 0, 0, 0, 0, 0, 0, 0, 0];

/** Writes the rotation by `angle` (rad, right-handed) about the unit `axis` into `out[o..o+9)`. */
export function axisAngle<T extends NumbersOut = number[]>(axis: ArrayLike<number>, angle: number, out: T = mat3() as T, o = 0): T {
  const x = axis[0], y = axis[1], z = axis[2]; // prettier-ignore
  const c = Math.cos(angle), s = Math.sin(angle), t = 1 - c;
  out[o] = c + t * x * x;     out[o + 1] = t * x * y - s * z; out[o + 2] = t * x * z + s * y;
  out[o + 3] = t * x * y + s * z; out[o + 4] = c + t * y * y; out[o + 5] = t * y * z - s * x;
  out[o + 6] = t * x * z - s * y; out[o + 7] = t * y * z + s * x; out[o + 8] = c + t * z * z;
  return out;
}

/** out = a · b (3×3, row-major; `out` may not alias `a` or `b`). */
export function mul3<T extends NumbersOut = number[]>(a: ArrayLike<number>, b: ArrayLike<number>, out: T = mat3() as T): T {
  for (let r = 0; r < 3; r++)
    for (let c = 0; c < 3; c++) out[3 * r + c] = a[3 * r] * b[c] + a[3 * r + 1] * b[3 + c] + a[3 * r + 2] * b[6 + c];
  return out;
}

/** out = aᵀ · b (3×3, row-major). */
export function mulT3<T extends NumbersOut = number[]>(a: ArrayLike<number>, b: ArrayLike<number>, out: T = mat3() as T): T {
  for (let r = 0; r < 3; r++)
    for (let c = 0; c < 3; c++) out[3 * r + c] = a[r] * b[c] + a[3 + r] * b[3 + c] + a[6 + r] * b[6 + c];
  return out;
}

/** out[o..o+3) = R[ro..ro+9) · v[vo..vo+3) (out may alias v). */
export function apply3(R: ArrayLike<number>, ro: number, v: ArrayLike<number>, vo: number, out: NumbersOut, o: number): void {
  const x = v[vo], y = v[vo + 1], z = v[vo + 2];
  out[o] = R[ro] * x + R[ro + 1] * y + R[ro + 2] * z;
  out[o + 1] = R[ro + 3] * x + R[ro + 4] * y + R[ro + 5] * z;
  out[o + 2] = R[ro + 6] * x + R[ro + 7] * y + R[ro + 8] * z;
}

/** Geodesic angle (rad) between rotations a and b: the angle of a·bᵀ. */
export function rotationAngle(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let trace = 0;
  for (let r = 0; r < 3; r++) trace += a[3 * r] * b[3 * r] + a[3 * r + 1] * b[3 * r + 1] + a[3 * r + 2] * b[3 * r + 2];
  return Math.acos(Math.max(-1, Math.min(1, (trace - 1) / 2)));
}
