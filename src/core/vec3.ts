/**
 * Small 3-vector helpers on plain arrays, for set-up code (cage and template construction): those
 * that return a vector allocate it, so not for per-vertex hot loops ({@link length3} allocates
 * nothing and is meant for them).
 *
 * @module
 */

/** a − b. */
export const sub = (a: ArrayLike<number>, b: ArrayLike<number>): number[] => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
/** a · b. */
export const dot = (a: ArrayLike<number>, b: ArrayLike<number>): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
/** a × b. */
export const cross = (a: ArrayLike<number>, b: ArrayLike<number>): number[] => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
];
/**
 * |(x, y, z)| as √(x² + y² + z²): for per-frame code, where V8's `Math.hypot` (which guards
 * against overflow of the squares, beyond 1e154) costs about ten times as much.
 */
export const length3 = (x: number, y: number, z: number): number => Math.sqrt(x * x + y * y + z * z);
/** a / |a| (NaN for the zero vector). */
export const normalize = (a: ArrayLike<number>): number[] => {
  const l = length3(a[0], a[1], a[2]);
  return [a[0] / l, a[1] / l, a[2] / l];
};
/** Point i (x, y, z) of a flat array. */
export const point = (a: ArrayLike<number>, i: number): number[] => [a[3 * i], a[3 * i + 1], a[3 * i + 2]];
