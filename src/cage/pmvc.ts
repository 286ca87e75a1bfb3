/**
 * Positive mean value coordinates (Lipman, Kopf, Cohen-Or, Levin, "GPU-assisted positive mean
 * value coordinates for mesh deformations", SGP 2007): the mean value integral
 * λ_i(x) ∝ ∫ φ_i(p₁(ω)) / |p₁(ω) − x| dω over the unit sphere of directions ω, where only the
 * first hit p₁(ω) of each ray counts. Every coordinate is ≥ 0 and a point is influenced only by
 * the part of the cage it sees.
 *
 * Two facts make most of the work unnecessary. A ray from a point inside a closed, outward-facing
 * cage first hits the cage where it leaves the volume, so only the triangles whose plane has the
 * point on its inner side can be first hits. And when every triangle has the point on its inner
 * side, the point is in the cage's kernel (the intersection of those half-spaces): every ray
 * crosses the cage once, nothing is hidden, and PMVC equals MVC, computed exactly.
 *
 * Elsewhere the integral is evaluated as the paper does, by rasterising into a cube map around
 * the point, here in software: for each of the 6 faces of a cube of R × R texels, each candidate
 * triangle is clipped to the half-space in front of the face and projected; the texel centres in
 * its projection (scanline by scanline) are tested with the ray–triangle test of Möller &
 * Trumbore ("Fast, Minimum Storage Ray/Triangle Intersection", JGT 2(1), 1997), which gives the
 * distance and the barycentrics, and the nearest hit wins. Texel weights are their exact solid
 * angles; antipodal texels have equal weights, so Σ Ω ω = 0 and linear precision
 * (Σ λ_i p_i = x) holds for a point inside the cage to round-off. The quadrature error falls as
 * 1/R² and grows as the triangles seen from the point get smaller.
 *
 * @module
 */
import type { Cage } from './cage.js';
import { meanValueCoordinates } from './mvc.js';

/** Default cube-map resolution R (texels per face side): within ~5e-5 of MVC in a convex cage. */
export const DEFAULT_PMVC_RESOLUTION = 32;

/** The largest cube-map resolution R: 6·R² texels (6.3M at 1024) are rasterized per skin vertex. */
export const MAX_PMVC_RESOLUTION = 1024;

/** Per-resolution tables of a cube map: texel solid angles and centre directions. */
export interface CubeMap {
  /** Texels per face side R. */
  resolution: number;
  /** Solid angle of texel (i, j) of a face, R², the same on every face. */
  solidAngles: Float64Array;
  /** Texel centre coordinates in [−1, 1], R. */
  centres: Float64Array;
}

/**
 * The cube-map tables for resolution R (exact texel solid angles, texel centres).
 * @throws RangeError unless R is a whole number from 2 to {@link MAX_PMVC_RESOLUTION}
 */
export function createCubeMap(resolution = DEFAULT_PMVC_RESOLUTION): CubeMap {
  if (!(Number.isInteger(resolution) && resolution >= 2 && resolution <= MAX_PMVC_RESOLUTION))
    throw new RangeError(`PMVC resolution must be a whole number from 2 to ${MAX_PMVC_RESOLUTION}, got ${resolution}`);
  const R = resolution;
  const A = (x: number, y: number) => Math.atan2(x * y, Math.sqrt(x * x + y * y + 1));
  const solidAngles = new Float64Array(R * R);
  const centres = new Float64Array(R);
  for (let i = 0; i < R; i++) centres[i] = ((i + 0.5) / R) * 2 - 1;
  for (let i = 0; i < R; i++) {
    const x0 = (i / R) * 2 - 1, x1 = ((i + 1) / R) * 2 - 1;
    for (let j = 0; j < R; j++) {
      const y0 = (j / R) * 2 - 1, y1 = ((j + 1) / R) * 2 - 1;
      solidAngles[i * R + j] = A(x0, y0) - A(x0, y1) - A(x1, y0) + A(x1, y1);
    }
  }
  return { resolution: R, solidAngles, centres };
}

/** A cage prepared for {@link positiveMeanValueCoordinates}: outward triangle normals (unnormalised). */
export interface PreparedCage {
  /** The cage the normals are of. */
  cage: Cage;
  /** Outward normal of each triangle, (p1 − p0) × (p2 − p0), 3·f. */
  normals: Float64Array;
}

/** Computes the triangle normals of `cage` once, for many points. */
export function prepareCage(cage: Cage): PreparedCage {
  const p = cage.positions;
  const t = cage.triangles;
  const normals = new Float64Array(t.length);
  for (let f = 0; f < t.length; f += 3) {
    const a = 3 * t[f], b = 3 * t[f + 1], c = 3 * t[f + 2];
    const ux = p[b] - p[a], uy = p[b + 1] - p[a + 1], uz = p[b + 2] - p[a + 2];
    const vx = p[c] - p[a], vy = p[c + 1] - p[a + 1], vz = p[c + 2] - p[a + 2];
    normals[f] = uy * vz - uz * vy;
    normals[f + 1] = uz * vx - ux * vz;
    normals[f + 2] = ux * vy - uy * vx;
  }
  return { cage, normals };
}

/** Scratch buffers of {@link positiveMeanValueCoordinates} (one per thread). */
export interface PmvcScratch {
  /** The cube-map tables the scratch is sized for. */
  cube: CubeMap;
  /** Per texel of the 6 faces: nearest hit distance, triangle, barycentrics. */
  depth: Float64Array;
  /** Per texel (6·R²), the nearest triangle hit, or −1. */
  triangle: Int32Array;
  /** Per texel (6·R²), the hit's barycentric weight of the triangle's second vertex. */
  b1: Float64Array;
  /** Per texel (6·R²), the hit's barycentric weight of the triangle's third vertex. */
  b2: Float64Array;
  /** Candidate triangles of the current point. */
  candidates: Int32Array;
  /** The current triangle's vertex offsets from the point, 3 × (x, y, z) (9). */
  e: Float64Array;
  /** The clipped, projected polygon, up to 4 (u, v) pairs (8). */
  poly: Float64Array;
}

/** Scratch for `cage` at the cube map's resolution. */
export function createPmvcScratch(cube: CubeMap, cage: Cage): PmvcScratch {
  const n = 6 * cube.resolution * cube.resolution;
  return {
    cube,
    depth: new Float64Array(n),
    triangle: new Int32Array(n),
    b1: new Float64Array(n),
    b2: new Float64Array(n),
    candidates: new Int32Array(cage.triangles.length / 3),
    e: new Float64Array(9),
    poly: new Float64Array(8),
  };
}

/** Options of {@link positiveMeanValueCoordinates}. */
export interface PmvcOptions {
  /**
   * Use the cube map even where the point sees the whole cage (default false: there PMVC is MVC,
   * computed exactly). For testing the quadrature.
   */
  alwaysRasterize?: boolean;
}

/**
 * Writes the positive mean value coordinates of the point `x[xo..xo+3)` (inside the cage) into
 * `out` (length m, overwritten): all ≥ 0, summing to 1, zero on the cage vertices the point
 * cannot see. A point in the cage's kernel gets its MVC (exact), a point on the cage too (there:
 * barycentric). Cost: MVC's (m + f) for a point in the kernel, else about 6R² ray–triangle tests
 * per unit of depth complexity.
 * @param prepared from {@link prepareCage}
 * @param scratch from {@link createPmvcScratch} (reused between calls)
 * @returns `out`
 */
export function positiveMeanValueCoordinates(
  prepared: PreparedCage,
  x: ArrayLike<number>,
  xo: number,
  out: Float64Array,
  scratch: PmvcScratch,
  options: PmvcOptions = {},
): Float64Array {
  const { cage, normals } = prepared;
  const p = cage.positions;
  const t = cage.triangles;
  const m = p.length / 3;
  const { cube, depth, triangle, b1, b2, candidates, e, poly } = scratch;
  const R = cube.resolution;
  const { centres, solidAngles } = cube;
  const x0 = x[xo], x1 = x[xo + 1], x2 = x[xo + 2];
  let scale = 0;
  for (let i = 0; i < p.length; i += 3) scale = Math.max(scale, Math.abs(p[i] - x0), Math.abs(p[i + 1] - x1), Math.abs(p[i + 2] - x2));
  // Candidates: triangles with the point strictly on their inner side.
  let count = 0;
  let behind = false;
  for (let f = 0; f < t.length; f += 3) {
    const a = 3 * t[f];
    const s = (p[a] - x0) * normals[f] + (p[a + 1] - x1) * normals[f + 1] + (p[a + 2] - x2) * normals[f + 2];
    const n2 = normals[f] * normals[f] + normals[f + 1] * normals[f + 1] + normals[f + 2] * normals[f + 2];
    if (s * s <= 1e-24 * scale * scale * n2) return meanValueCoordinates(cage, x, xo, out); // in a face's plane
    if (s > 0) candidates[count++] = f / 3;
    else behind = true;
  }
  if (!behind && !options.alwaysRasterize) return meanValueCoordinates(cage, x, xo, out);
  depth.fill(Infinity);
  triangle.fill(-1);
  const near = 1e-12 * scale;
  const jTol = 1e-9;
  for (let ci = 0; ci < count; ci++) {
    const tri = candidates[ci];
    const f = 3 * tri;
    const ia = 3 * t[f], ib = 3 * t[f + 1], ic = 3 * t[f + 2];
    e[0] = p[ia] - x0; e[1] = p[ia + 1] - x1; e[2] = p[ia + 2] - x2;
    e[3] = p[ib] - x0; e[4] = p[ib + 1] - x1; e[5] = p[ib + 2] - x2;
    e[6] = p[ic] - x0; e[7] = p[ic + 1] - x1; e[8] = p[ic + 2] - x2;
    // A triangle whose three vertices lie in one face's cone (convex) projects onto that face only.
    const f0 = dominantFace(e, 0), f1 = dominantFace(e, 3), f2 = dominantFace(e, 6);
    const only = f0 === f1 && f1 === f2;
    for (let face = only ? f0 : 0; face < (only ? f0 + 1 : 6); face++) {
      const a = face >> 1, sign = face & 1 ? -1 : 1;
      const b = a === 2 ? 0 : a + 1, c = a === 0 ? 2 : a - 1;
      // The triangle clipped to the half-space in front of this face, projected: ≤ 4 vertices.
      let nPoly = 0;
      let umin = Infinity, umax = -Infinity, vmin = Infinity, vmax = -Infinity;
      for (let k = 0; k < 3; k++) {
        const k2 = k === 2 ? 0 : k + 1;
        const z = sign * e[3 * k + a], z2 = sign * e[3 * k2 + a];
        let u = NaN, v = NaN;
        if (z > near) {
          u = poly[2 * nPoly] = e[3 * k + b] / z;
          v = poly[2 * nPoly + 1] = e[3 * k + c] / z;
          nPoly++;
          if (u < umin) umin = u;
          if (u > umax) umax = u;
          if (v < vmin) vmin = v;
          if (v > vmax) vmax = v;
        }
        if (z > near !== z2 > near) {
          const s = (near - z) / (z2 - z);
          u = poly[2 * nPoly] = (e[3 * k + b] + s * (e[3 * k2 + b] - e[3 * k + b])) / near;
          v = poly[2 * nPoly + 1] = (e[3 * k + c] + s * (e[3 * k2 + c] - e[3 * k + c])) / near;
          nPoly++;
          if (u < umin) umin = u;
          if (u > umax) umax = u;
          if (v < vmin) vmin = v;
          if (v > vmax) vmax = v;
        }
      }
      if (nPoly < 3 || umax < -1 || umin > 1 || vmax < -1 || vmin > 1) continue;
      // Möller–Trumbore in the face's frame (X = e_b, Y = e_c, Z = sign·e_a; the ray is
      // d = (u, v, 1)): for a column of fixed u, det, both barycentric numerators and the hit
      // distance numerator are affine in v.
      const X0 = e[b], Y0 = e[c], Z0 = sign * e[a];
      const e1x = e[3 + b] - X0, e1y = e[3 + c] - Y0, e1z = sign * e[3 + a] - Z0;
      const e2x = e[6 + b] - X0, e2y = e[6 + c] - Y0, e2z = sign * e[6 + a] - Z0;
      const sx = -X0, sy = -Y0, sz = -Z0;
      const qx = sy * e1z - sz * e1y, qy = sz * e1x - sx * e1z, qz = sx * e1y - sy * e1x;
      const H = e2x * qx + e2y * qy + e2z * qz;
      // p(v) = d × e2 = (v e2z − e2y, e2x − u e2z, u e2y − v e2x)
      const Dv = e1x * e2z - e1z * e2x, Uv = sx * e2z - sz * e2x;
      const i0 = Math.max(0, Math.ceil(((umin + 1) / 2) * R - 0.5 - jTol));
      const i1 = Math.min(R - 1, Math.floor(((umax + 1) / 2) * R - 0.5 + jTol));
      const base = face * R * R;
      for (let i = i0; i <= i1; i++) {
        const u = centres[i];
        // The polygon's v-interval on this column of texel centres.
        let vlo = Infinity, vhi = -Infinity;
        for (let k = 0; k < nPoly; k++) {
          const k2 = k + 1 === nPoly ? 0 : k + 1;
          const ua = poly[2 * k], va = poly[2 * k + 1], ub = poly[2 * k2], vb = poly[2 * k2 + 1];
          if ((ua - u) * (ub - u) > 0) continue;
          if (ua === ub) {
            vlo = Math.min(vlo, va, vb);
            vhi = Math.max(vhi, va, vb);
          } else {
            const v = va + ((u - ua) / (ub - ua)) * (vb - va);
            if (v < vlo) vlo = v;
            if (v > vhi) vhi = v;
          }
        }
        if (!(vlo <= vhi) || vhi < -1 || vlo > 1) continue;
        const j0 = Math.max(0, Math.ceil(((vlo + 1) / 2) * R - 0.5 - jTol));
        const j1 = Math.min(R - 1, Math.floor(((vhi + 1) / 2) * R - 0.5 + jTol));
        const D0 = -e1x * e2y + e1y * (e2x - u * e2z) + e1z * u * e2y;
        const U0 = -sx * e2y + sy * (e2x - u * e2z) + sz * u * e2y;
        const V0 = u * qx + qz;
        const row = base + i * R;
        for (let j = j0; j <= j1; j++) {
          const v = centres[j];
          const det = D0 + v * Dv;
          if (det === 0) continue;
          const inv = 1 / det;
          const bu = (U0 + v * Uv) * inv;
          if (bu < -1e-12 || bu > 1 + 1e-12) continue;
          const bv = (V0 + v * qy) * inv;
          if (bv < -1e-12 || bu + bv > 1 + 1e-12) continue;
          const hit = H * inv; // ray parameter: x + hit·d
          if (!(hit > 0)) continue;
          const r = hit * Math.sqrt(1 + u * u + v * v);
          const texel = row + j;
          if (r < depth[texel]) {
            depth[texel] = r;
            triangle[texel] = tri;
            b1[texel] = bu;
            b2[texel] = bv;
          }
        }
      }
    }
  }
  out.fill(0, 0, m);
  let total = 0;
  for (let face = 0; face < 6; face++) {
    const base = face * R * R;
    for (let texel = 0; texel < R * R; texel++) {
      const tri = triangle[base + texel];
      if (tri < 0) continue; // a ray that leaves through a gap (the point is outside the cage)
      const w = solidAngles[texel] / depth[base + texel];
      const u = b1[base + texel], v = b2[base + texel];
      out[t[3 * tri]] += w * (1 - u - v);
      out[t[3 * tri + 1]] += w * u;
      out[t[3 * tri + 2]] += w * v;
      total += w;
    }
  }
  for (let i = 0; i < m; i++) out[i] /= total;
  return out;
}

/** The cube face (2·axis + (negative ? 1 : 0)) whose cone contains the vector e[o..o+3). */
function dominantFace(e: Float64Array, o: number): number {
  const ax = Math.abs(e[o]), ay = Math.abs(e[o + 1]), az = Math.abs(e[o + 2]);
  if (ax >= ay && ax >= az) return e[o] < 0 ? 1 : 0;
  if (ay >= az) return e[o + 1] < 0 ? 3 : 2;
  return e[o + 2] < 0 ? 5 : 4;
}
