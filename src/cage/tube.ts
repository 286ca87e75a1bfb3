/**
 * Tube cages around joint chains: the simplest cage for a limb, and the one corskin's benchmark
 * and tests put around the bar, the arm and CesiumMan's leg.
 *
 * @module
 */
import { cross, dot, normalize, sub } from '../core/vec3.js';
import type { Cage } from './cage.js';
import { pointsOutside } from './winding-number.js';

/**
 * A closed tube around a polyline (`points`, x, y, z each): a `sides`-gon ring of radius `radius`
 * at every point, perpendicular to the mean of the adjacent segment directions (ring frames
 * carried along by parallel transport), joined by quads, capped at both ends by a fan around an
 * extra vertex pushed out by `cap` along the end segment; faces outwards.
 * @returns a cage of sides·points + 2 vertices and 2·sides·points triangles
 * @throws RangeError for fewer than 2 points or 3 sides
 */
export function tubeCage(points: number[][], radius: number, sides = 8, cap = radius): Cage {
  if (points.length < 2) throw new RangeError('a tube needs at least two points');
  if (!(sides >= 3)) throw new RangeError(`a tube needs at least 3 sides, got ${sides}`);
  const p: number[] = [];
  const tris: number[] = [];
  const n = points.length;
  const axis0 = normalize(sub(points[1], points[0]));
  // A reference direction perpendicular to the first segment, carried along (parallel transport).
  let ref = normalize(cross(axis0, Math.abs(axis0[0]) < 0.9 ? [1, 0, 0] : [0, 1, 0]));
  for (let k = 0; k < n; k++) {
    const dir = normalize(
      k === 0
        ? sub(points[1], points[0])
        : k === n - 1
          ? sub(points[k], points[k - 1])
          : sub(points[k + 1], points[k - 1]),
    );
    const d = ref.reduce((s, x, i) => s + x * dir[i], 0);
    ref = normalize(ref.map((x, i) => x - d * dir[i]));
    const other = cross(dir, ref);
    for (let s = 0; s < sides; s++) {
      const a = (2 * Math.PI * s) / sides;
      p.push(...points[k].map((x, i) => x + radius * (Math.cos(a) * ref[i] + Math.sin(a) * other[i])));
    }
  }
  for (let k = 0; k + 1 < n; k++)
    for (let s = 0; s < sides; s++) {
      const a = k * sides + s,
        b = k * sides + ((s + 1) % sides),
        c = (k + 1) * sides + ((s + 1) % sides),
        d = (k + 1) * sides + s;
      tris.push(a, b, c, a, c, d);
    }
  const start = p.length / 3;
  p.push(...points[0].map((x, i) => x - cap * axis0[i]));
  const axisN = normalize(sub(points[n - 1], points[n - 2]));
  const end = start + 1;
  p.push(...points[n - 1].map((x, i) => x + cap * axisN[i]));
  for (let s = 0; s < sides; s++) {
    tris.push(start, (s + 1) % sides, s);
    tris.push(end, (n - 1) * sides + s, (n - 1) * sides + ((s + 1) % sides));
  }
  const cage = { positions: Float64Array.from(p), triangles: Uint32Array.from(tris) };
  // The ring winding depends on the frame's handedness: make the faces point outwards.
  let vol = 0;
  for (let f = 0; f < tris.length; f += 3) {
    const [a, b, c] = [tris[f], tris[f + 1], tris[f + 2]].map((v) => p.slice(3 * v, 3 * v + 3));
    vol += a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
  }
  if (vol < 0)
    for (let f = 0; f < tris.length; f += 3)
      [cage.triangles[f + 1], cage.triangles[f + 2]] = [cage.triangles[f + 2], cage.triangles[f + 1]];
  return cage;
}

/** Options of {@link enclosingTubeCage}. */
export interface EnclosingTubeOptions {
  /** Ring polygon sides; default 8. */
  sides?: number;
  /** Radius margin over the farthest vertex, relative; default 0.15. */
  margin?: number;
}

/**
 * A tube cage around `chain` (polyline points, e.g. bind joint positions) enclosing every point of
 * `positions` (3·n): the chain is extended at both ends past the farthest vertex along it, and the
 * radius is the largest distance of a vertex to the polyline over the ring polygon's inradius
 * factor, plus `margin`, widened by steps of 25% (up to 4×) while some point is outside.
 */
export function enclosingTubeCage(positions: ArrayLike<number>, chain: number[][], options: EnclosingTubeOptions = {}): Cage {
  const sides = options.sides ?? 8;
  const margin = options.margin ?? 0.15;
  const n = positions.length / 3;
  const dirStart = sub(chain[0], chain[1]), dirEnd = sub(chain[chain.length - 1], chain[chain.length - 2]);
  const ls = Math.sqrt(dot(dirStart, dirStart)), le = Math.sqrt(dot(dirEnd, dirEnd));
  // How far the vertices reach past each end, along the end segments.
  let before = 0, after = 0, radius = 0;
  for (let i = 0; i < n; i++) {
    const p = [positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]];
    before = Math.max(before, dot(sub(p, chain[0]), dirStart) / ls);
    after = Math.max(after, dot(sub(p, chain[chain.length - 1]), dirEnd) / le);
  }
  let length = 0;
  for (let s = 0; s + 1 < chain.length; s++) length += Math.sqrt(dot(sub(chain[s + 1], chain[s]), sub(chain[s + 1], chain[s])));
  before = Math.max(before * 1.02, 0.02 * length);
  after = Math.max(after * 1.02, 0.02 * length);
  const points = [
    chain[0].map((x, k) => x + (dirStart[k] / ls) * before),
    ...chain,
    chain[chain.length - 1].map((x, k) => x + (dirEnd[k] / le) * after),
  ];
  for (let i = 0; i < n; i++) {
    const p = [positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]];
    let best = Infinity;
    for (let s = 0; s + 1 < points.length; s++) {
      const d = sub(points[s + 1], points[s]);
      const q = sub(p, points[s]);
      const t = Math.max(0, Math.min(1, dot(q, d) / dot(d, d)));
      best = Math.min(best, Math.hypot(q[0] - t * d[0], q[1] - t * d[1], q[2] - t * d[2]));
    }
    radius = Math.max(radius, best);
  }
  // Where the chain bends, the rings are tilted and the tube narrows on the inside of the bend:
  // widen it until every point is inside.
  for (let grow = 1; ; grow *= 1.25) {
    const r = (radius / Math.cos(Math.PI / sides)) * (1 + margin) * grow;
    const cage = tubeCage(points, r, sides, r * margin);
    if (grow > 4 || !pointsOutside(cage, positions).length) return cage;
  }
}
