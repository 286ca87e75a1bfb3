/**
 * A cage: a coarse closed triangle mesh around a skin that drives it through generalised
 * barycentric coordinates (Ju, Zhou, van de Panne, Cohen-Or, Neumann, "Reusable Skinning
 * Templates Using Cage-based Deformations", ACM TOG 27(5), SIGGRAPH Asia 2008). Coordinates only
 * behave on a cage that is closed, 2-manifold and consistently oriented outwards: {@link checkCage}
 * says what is wrong with one that is not.
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';
import { enclosedVolume } from '../metrics/volume.js';

/** A closed triangle cage, in the skin's bind space (same units). */
export interface Cage {
  /** Cage vertex positions (x, y, z), length 3·m. */
  positions: Float32Array | Float64Array;
  /** Vertex indices of the triangles, counter-clockwise seen from outside, length 3·f. */
  triangles: Uint32Array;
}

/** Number of vertices of a cage. */
export function cageVertexCount(cage: Cage): number {
  return cage.positions.length / 3;
}

const list = (items: string[], total: number) =>
  items.slice(0, 5).join(', ') + (total > 5 ? ` and ${total - 5} more` : '');

/**
 * Checks that `cage` can carry mean value coordinates: finite positions, indices in range, no
 * degenerate triangle, every edge shared by exactly two triangles in opposite directions (closed,
 * 2-manifold, consistently oriented), one fan of triangles around every vertex (no pinched
 * vertex), and faces pointing outwards (positive volume).
 * @param file named in error messages
 * @throws CorskinError naming the problem and the first offending edges, vertices or triangles
 */
export function checkCage(cage: Cage, file?: string): void {
  const p = cage.positions;
  const t = cage.triangles;
  const m = p.length / 3;
  const fail = (msg: string): never => {
    throw new CorskinError(`the cage ${msg}`, file);
  };
  if (!Number.isInteger(m) || m < 4) fail(`has ${m} vertices; a closed cage needs at least 4`);
  if (t.length % 3 || t.length < 12) fail(`has ${t.length / 3} triangles; a closed cage needs at least 4`);
  for (let i = 0; i < p.length; i++) if (!Number.isFinite(p[i])) fail(`has a non-finite coordinate at vertex ${Math.floor(i / 3)}`);
  let scale = 0;
  for (let i = 0; i < p.length; i++) scale = Math.max(scale, Math.abs(p[i]));
  const degenerate: string[] = [];
  for (let f = 0; f < t.length; f += 3) {
    const [a, b, c] = [t[f], t[f + 1], t[f + 2]];
    if (a >= m || b >= m || c >= m) fail(`triangle ${f / 3} names vertex ${Math.max(a, b, c)} of ${m}`);
    const ux = p[3 * b] - p[3 * a], uy = p[3 * b + 1] - p[3 * a + 1], uz = p[3 * b + 2] - p[3 * a + 2];
    const vx = p[3 * c] - p[3 * a], vy = p[3 * c + 1] - p[3 * a + 1], vz = p[3 * c + 2] - p[3 * a + 2];
    const area2 = Math.hypot(uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx);
    if (a === b || b === c || a === c || !(area2 > 1e-12 * scale * scale)) degenerate.push(`${f / 3}`);
  }
  if (degenerate.length) fail(`has ${degenerate.length} degenerate (zero-area) triangle(s): ${list(degenerate, degenerate.length)}`);
  // Directed edges: each must appear once, and its reverse once.
  const directed = new Map<number, number>();
  const key = (a: number, b: number) => a * m + b;
  for (let f = 0; f < t.length; f += 3)
    for (let k = 0; k < 3; k++) {
      const e = key(t[f + k], t[f + ((k + 1) % 3)]);
      directed.set(e, (directed.get(e) ?? 0) + 1);
    }
  const open: string[] = [];
  const nonManifold: string[] = [];
  const flipped: string[] = [];
  for (const [e, count] of directed) {
    const a = Math.floor(e / m), b = e % m;
    const back = directed.get(key(b, a)) ?? 0;
    if (count + back > 2) {
      if (a < b || !directed.has(key(b, a))) nonManifold.push(`${a}–${b}`);
    } else if (count === 2) flipped.push(`${a}–${b}`);
    else if (back === 0) open.push(`${a}–${b}`);
  }
  if (nonManifold.length) fail(`is not 2-manifold: ${nonManifold.length} edge(s) shared by more than two triangles (${list(nonManifold, nonManifold.length)})`);
  if (open.length) fail(`is not closed: ${open.length} boundary edge(s) (${list(open, open.length)})`);
  if (flipped.length) fail(`is not consistently oriented: ${flipped.length} edge(s) run the same way in both of their triangles (${list(flipped, flipped.length)})`);
  // One fan per vertex: following next[a] = b around each vertex visits all its triangles.
  const around: number[][] = Array.from({ length: m }, () => []);
  for (let f = 0; f < t.length; f += 3) for (let k = 0; k < 3; k++) around[t[f + k]].push(t[f + ((k + 1) % 3)], t[f + ((k + 2) % 3)]);
  const pinched: string[] = [];
  const unused: string[] = [];
  for (let v = 0; v < m; v++) {
    const ring = around[v];
    if (!ring.length) {
      unused.push(`${v}`);
      continue;
    }
    const next = new Map<number, number>();
    for (let i = 0; i < ring.length; i += 2) next.set(ring[i], ring[i + 1]);
    let steps = 0;
    for (let a = ring[0]; ; ) {
      a = next.get(a)!;
      steps++;
      if (a === ring[0] || a === undefined || steps > next.size) break;
    }
    if (steps !== next.size) pinched.push(`${v}`);
  }
  if (pinched.length) fail(`is not 2-manifold at ${pinched.length} vertex(es) where separate sheets touch (${list(pinched, pinched.length)})`);
  if (unused.length) fail(`has ${unused.length} vertex(es) in no triangle (${list(unused, unused.length)})`);
  if (!(enclosedVolume(cage.positions, cage.triangles) > 0)) fail('is inverted: its triangles face inwards (negative volume); reverse their winding');
}
