/**
 * A star-shaped cage around any mesh: a geodesic sphere around the mesh's centroid whose vertices
 * are pulled in to just outside the mesh in their direction. Closed, 2-manifold, outward-facing
 * and enclosing by construction; not convex, so it exercises positive mean value coordinates'
 * visibility. The automatic cage of `corskin bind-cage --cage auto`.
 *
 * @module
 */
import type { Cage } from './cage.js';
import { pointsOutside } from './winding-number.js';

/** Options of {@link starCage}. */
export interface StarCageOptions {
  /** Icosahedron subdivisions: 20·4^levels triangles; default 2 (320 triangles, 162 vertices). */
  levels?: number;
  /** Clearance over the mesh, relative to its bounding-box diagonal; default 0.03. */
  margin?: number;
}

/**
 * A star-shaped cage around `positions` (3·n). Each cage vertex, in direction d from the
 * centroid, sits at the largest distance of the mesh vertices within the angular neighbourhood of
 * d (the cage's own edge angle), plus the margin; grown by 10% steps while a vertex is outside.
 * @throws RangeError for levels outside 0–5 or an empty mesh
 */
export function starCage(positions: ArrayLike<number>, options: StarCageOptions = {}): Cage {
  const levels = options.levels ?? 2;
  if (!(Number.isInteger(levels) && levels >= 0 && levels <= 5)) throw new RangeError(`levels must be 0 to 5, got ${levels}`);
  const n = positions.length / 3;
  if (n < 1) throw new RangeError('a star cage needs at least one point');
  const c = [0, 0, 0];
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < 3 * n; i++) {
    c[i % 3] += positions[i] / n;
    lo[i % 3] = Math.min(lo[i % 3], positions[i]);
    hi[i % 3] = Math.max(hi[i % 3], positions[i]);
  }
  const diag = Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) || 1;
  const margin = (options.margin ?? 0.03) * diag;
  const { dirs, triangles } = geodesicSphere(levels);
  const m = dirs.length / 3;
  // Angular reach of a cage vertex: its farthest neighbour's angle.
  let reach = 0;
  for (let f = 0; f < triangles.length; f += 3)
    for (let k = 0; k < 3; k++) {
      const a = 3 * triangles[f + k], b = 3 * triangles[f + ((k + 1) % 3)];
      reach = Math.max(reach, Math.acos(Math.min(1, dirs[a] * dirs[b] + dirs[a + 1] * dirs[b + 1] + dirs[a + 2] * dirs[b + 2])));
    }
  const cosReach = Math.cos(Math.min(Math.PI / 2, 1.5 * reach));
  const radius = new Float64Array(m);
  for (let i = 0; i < n; i++) {
    const x = positions[3 * i] - c[0], y = positions[3 * i + 1] - c[1], z = positions[3 * i + 2] - c[2];
    const r = Math.hypot(x, y, z);
    if (r === 0) continue;
    for (let v = 0; v < m; v++) {
      if ((x * dirs[3 * v] + y * dirs[3 * v + 1] + z * dirs[3 * v + 2]) / r >= cosReach && r > radius[v]) radius[v] = r;
    }
  }
  let floor = 0;
  for (let v = 0; v < m; v++) floor = Math.max(floor, radius[v]);
  floor *= 0.05;
  for (let grow = 1; ; grow *= 1.1) {
    const p = new Float64Array(3 * m);
    for (let v = 0; v < m; v++) {
      const r = (Math.max(radius[v], floor) + margin) * grow;
      for (let k = 0; k < 3; k++) p[3 * v + k] = c[k] + r * dirs[3 * v + k];
    }
    const cage = { positions: p, triangles };
    if (grow > 3 || !pointsOutside(cage, positions).length) return cage;
  }
}

/** Unit directions (3·m) and outward triangles of an icosahedron subdivided `levels` times (20·4^levels triangles). */
export function geodesicSphere(levels: number): { dirs: Float64Array; triangles: Uint32Array } {
  const g = (1 + Math.sqrt(5)) / 2;
  const p = [-1, g, 0, 1, g, 0, -1, -g, 0, 1, -g, 0, 0, -1, g, 0, 1, g, 0, -1, -g, 0, 1, -g, g, 0, -1, g, 0, 1, -g, 0, -1, -g, 0, 1];
  let t = [0, 11, 5, 0, 5, 1, 0, 1, 7, 0, 7, 10, 0, 10, 11, 1, 5, 9, 5, 11, 4, 11, 10, 2, 10, 7, 6, 7, 1, 8, 3, 9, 4, 3, 4, 2, 3, 2, 6, 3, 6, 8, 3, 8, 9, 4, 9, 5, 2, 4, 11, 6, 2, 10, 8, 6, 7, 9, 8, 1];
  for (let l = 0; l < levels; l++) {
    const mid = new Map<number, number>();
    const count = p.length / 3;
    const mp = (a: number, b: number) => {
      const key = Math.min(a, b) * count * 4 + Math.max(a, b);
      let v = mid.get(key);
      if (v === undefined) {
        v = p.length / 3;
        mid.set(key, v);
        p.push((p[3 * a] + p[3 * b]) / 2, (p[3 * a + 1] + p[3 * b + 1]) / 2, (p[3 * a + 2] + p[3 * b + 2]) / 2);
      }
      return v;
    };
    const next: number[] = [];
    for (let f = 0; f < t.length; f += 3) {
      const [a, b, c] = [t[f], t[f + 1], t[f + 2]];
      const ab = mp(a, b), bc = mp(b, c), ca = mp(c, a);
      next.push(a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca);
    }
    t = next;
  }
  const dirs = new Float64Array(p.length);
  for (let i = 0; i < p.length; i += 3) {
    const l = Math.hypot(p[i], p[i + 1], p[i + 2]);
    for (let k = 0; k < 3; k++) dirs[i + k] = p[i + k] / l;
  }
  return { dirs, triangles: Uint32Array.from(t) };
}
