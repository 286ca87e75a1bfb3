/**
 * Mean value coordinates of a point with respect to a closed triangle cage (Ju, Schaefer, Warren,
 * "Mean Value Coordinates for Closed Triangular Meshes", ACM TOG 24(3), SIGGRAPH 2005; Floater,
 * Kós, Reimers, "Mean value coordinates in 3D", CAGD 22(7), 2005), in the robust "mean vector"
 * form: per triangle, the integral of the unit direction over its spherical projection,
 * m = ½ Σ_k θ_k n_k, split among its three vertices by w_k = (n_k · m) / (n_k · (p_k − x)).
 * Smooth, Σλ = 1, linear precision (Σ λ_i p_i = x) inside and outside; negative in places inside
 * non-convex cages (every crossing of a ray counts, with its sign).
 *
 * @module
 */
import type { Cage } from './cage.js';

/** Relative size under which a point is taken to be at a cage vertex, or in a triangle's plane. */
const EPS = 1e-12;

/**
 * The angle between unit vectors u and v, accurate near 0 and near π: from the chord |u − v|
 * below a right angle, from |u + v| above it (2·asin(|u − v|/2) alone lost 1.5e-8 next to π, so a
 * point on an edge two cage triangles share — u = −v — was not found on either of them, and both
 * were left out: 0.34 off on a cube's face diagonal).
 */
function arc(ux: number, uy: number, uz: number, vx: number, vy: number, vz: number): number {
  const dx = ux - vx, dy = uy - vy, dz = uz - vz; // prettier-ignore
  const chord2 = dx * dx + dy * dy + dz * dz;
  if (chord2 <= 2) return 2 * Math.asin(Math.sqrt(chord2) / 2);
  const sx = ux + vx, sy = uy + vy, sz = uz + vz; // prettier-ignore
  return Math.PI - 2 * Math.asin(Math.min(1, Math.sqrt(sx * sx + sy * sy + sz * sz) / 2));
}

/**
 * Writes the mean value coordinates of the point `x[xo..xo+3)` into `out` (length m, the cage's
 * vertex count; overwritten). A point at a cage vertex gets that vertex's unit coordinate, a
 * point on a triangle its barycentric coordinates (the limit of MVC there). Cost O(m + f).
 * @param scratch 4·m doubles, reused between calls (allocated when omitted)
 * @returns `out`
 */
export function meanValueCoordinates(
  cage: Cage,
  x: ArrayLike<number>,
  xo: number,
  out: Float64Array,
  scratch: Float64Array = new Float64Array(4 * (cage.positions.length / 3)),
): Float64Array {
  const p = cage.positions;
  const t = cage.triangles;
  const m = p.length / 3;
  const x0 = x[xo], x1 = x[xo + 1], x2 = x[xo + 2];
  out.fill(0, 0, m);
  // Unit directions and distances to every cage vertex (scratch: ux, uy, uz, d per vertex).
  const u = scratch;
  let scale = 0;
  for (let i = 0; i < m; i++) {
    const ex = p[3 * i] - x0, ey = p[3 * i + 1] - x1, ez = p[3 * i + 2] - x2;
    const d = Math.sqrt(ex * ex + ey * ey + ez * ez);
    u[4 * i] = ex / d;
    u[4 * i + 1] = ey / d;
    u[4 * i + 2] = ez / d;
    u[4 * i + 3] = d;
    if (d > scale) scale = d;
  }
  for (let i = 0; i < m; i++) {
    if (u[4 * i + 3] <= EPS * scale) {
      // At a cage vertex: that vertex.
      out[i] = 1;
      return out;
    }
  }
  let total = 0;
  for (let f = 0; f < t.length; f += 3) {
    const i0 = 4 * t[f], i1 = 4 * t[f + 1], i2 = 4 * t[f + 2];
    const ax = u[i0], ay = u[i0 + 1], az = u[i0 + 2], da = u[i0 + 3];
    const bx = u[i1], by = u[i1 + 1], bz = u[i1 + 2], db = u[i1 + 3];
    const cx = u[i2], cy = u[i2 + 1], cz = u[i2 + 2], dc = u[i2 + 3];
    // θ_k: the arc opposite vertex k (stable near 0 and π: see arc).
    const t0 = arc(bx, by, bz, cx, cy, cz);
    const t1 = arc(cx, cy, cz, ax, ay, az);
    const t2 = arc(ax, ay, az, bx, by, bz);
    if (Math.PI - (t0 + t1 + t2) / 2 < 1e-9) {
      // x lies on this triangle: its barycentric coordinates (Ju et al. 2005, with distances).
      const w0 = Math.sin(t0) * db * dc, w1 = Math.sin(t1) * dc * da, w2 = Math.sin(t2) * da * db;
      const sum = w0 + w1 + w2;
      out.fill(0, 0, m);
      out[t[f]] += w0 / sum;
      out[t[f + 1]] += w1 / sum;
      out[t[f + 2]] += w2 / sum;
      return out;
    }
    // N_k = u_{k+1} × u_{k+2}; det = u_0 · N_0.
    const n0x = by * cz - bz * cy, n0y = bz * cx - bx * cz, n0z = bx * cy - by * cx;
    const n1x = cy * az - cz * ay, n1y = cz * ax - cx * az, n1z = cx * ay - cy * ax;
    const n2x = ay * bz - az * by, n2y = az * bx - ax * bz, n2z = ax * by - ay * bx;
    const det = ax * n0x + ay * n0y + az * n0z;
    if (Math.abs(det) < EPS) continue; // in the triangle's plane, outside it: no contribution
    // Mean vector m = ½ Σ θ_k N_k / |N_k|.
    const l0 = Math.sqrt(n0x * n0x + n0y * n0y + n0z * n0z);
    const l1 = Math.sqrt(n1x * n1x + n1y * n1y + n1z * n1z);
    const l2 = Math.sqrt(n2x * n2x + n2y * n2y + n2z * n2z);
    const s0 = l0 > 0 ? t0 / (2 * l0) : 0, s1 = l1 > 0 ? t1 / (2 * l1) : 0, s2 = l2 > 0 ? t2 / (2 * l2) : 0;
    const mx = s0 * n0x + s1 * n1x + s2 * n2x;
    const my = s0 * n0y + s1 * n1y + s2 * n2y;
    const mz = s0 * n0z + s1 * n1z + s2 * n2z;
    const w0 = (n0x * mx + n0y * my + n0z * mz) / (det * da);
    const w1 = (n1x * mx + n1y * my + n1z * mz) / (det * db);
    const w2 = (n2x * mx + n2y * my + n2z * mz) / (det * dc);
    out[t[f]] += w0;
    out[t[f + 1]] += w1;
    out[t[f + 2]] += w2;
    total += w0 + w1 + w2;
  }
  for (let i = 0; i < m; i++) out[i] /= total;
  return out;
}
