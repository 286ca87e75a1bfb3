/**
 * Generalised winding number of a closed triangle mesh at a point: the solid angle the mesh
 * subtends, over 4π (Jacobson, Kavan, Sorkine-Hornung, "Robust Inside-Outside Segmentation using
 * Generalized Winding Numbers", ACM TOG 32(4), SIGGRAPH 2013). 1 inside a closed outward-facing
 * cage, 0 outside, ½ on its surface; robust to small gaps.
 *
 * @module
 */
import type { Cage } from './cage.js';

/**
 * Winding number of `cage` at the point `x[xo..xo+3)`: Σ over triangles of their signed solid
 * angle (Van Oosterom & Strackee, "The Solid Angle of a Plane Triangle", IEEE Trans. Biomed. Eng.
 * 30(2), 1983) / 4π.
 */
export function windingNumber(cage: Cage, x: ArrayLike<number>, xo = 0): number {
  const p = cage.positions;
  const t = cage.triangles;
  const x0 = x[xo], x1 = x[xo + 1], x2 = x[xo + 2];
  let sum = 0;
  for (let f = 0; f < t.length; f += 3) sum += solidAngle(p, 3 * t[f], 3 * t[f + 1], 3 * t[f + 2], x0, x1, x2);
  return sum / (4 * Math.PI);
}

/**
 * Signed solid angle (steradians) of the triangle with corners `p[a..a+3)`, `p[b..]`, `p[c..]`
 * seen from (x0, x1, x2) (Van Oosterom & Strackee 1983): `2 atan2(det[a b c], |a||b||c| + (a·b)|c|
 * + (b·c)|a| + (c·a)|b|)` with the corners taken relative to the point; positive when the
 * corners run counter-clockwise seen from it.
 */
function solidAngle(p: ArrayLike<number>, a: number, b: number, c: number, x0: number, x1: number, x2: number): number {
  const ax = p[a] - x0, ay = p[a + 1] - x1, az = p[a + 2] - x2;
  const bx = p[b] - x0, by = p[b + 1] - x1, bz = p[b + 2] - x2;
  const cx = p[c] - x0, cy = p[c + 1] - x1, cz = p[c + 2] - x2;
  const la = Math.hypot(ax, ay, az), lb = Math.hypot(bx, by, bz), lc = Math.hypot(cx, cy, cz);
  const det = ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx);
  const den = la * lb * lc + (ax * bx + ay * by + az * bz) * lc + (bx * cx + by * cy + bz * cz) * la + (cx * ax + cy * ay + cz * az) * lb;
  return 2 * Math.atan2(det, den);
}

/**
 * Indices of the points (`positions`, 3·n) that are not inside `cage` (winding number < ½).
 * Cost n × cage triangles.
 */
export function pointsOutside(cage: Cage, positions: ArrayLike<number>): number[] {
  const outside: number[] = [];
  for (let i = 0; i < positions.length / 3; i++) if (!(windingNumber(cage, positions, 3 * i) >= 0.5)) outside.push(i);
  return outside;
}
