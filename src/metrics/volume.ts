/**
 * Enclosed volume of a triangle mesh (divergence theorem).
 *
 * @module
 */

/**
 * Signed volume `Σ_t (a − o)·((b − o) × (c − o)) / 6` over triangles (a, b, c), asset units³,
 * with `o` the mean of the positions. For a closed, consistently outward-oriented mesh this is
 * its enclosed volume. For an open mesh it depends on `o` and means nothing (an LBS arm could
 * seem to gain volume): use {@link cappedVolume}.
 * @param positions length 3·n; @param triangles length 3·t
 */
export function enclosedVolume(positions: ArrayLike<number>, triangles: ArrayLike<number>): number {
  const n = positions.length / 3;
  let ox = 0, oy = 0, oz = 0;
  for (let i = 0; i < n; i++) {
    ox += positions[3 * i];
    oy += positions[3 * i + 1];
    oz += positions[3 * i + 2];
  }
  ox /= n || 1;
  oy /= n || 1;
  oz /= n || 1;
  let v = 0;
  for (let t = 0; t < triangles.length; t += 3) {
    const a = 3 * triangles[t], b = 3 * triangles[t + 1], c = 3 * triangles[t + 2];
    const ax = positions[a] - ox, ay = positions[a + 1] - oy, az = positions[a + 2] - oz;
    const bx = positions[b] - ox, by = positions[b + 1] - oy, bz = positions[b + 2] - oz;
    const cx = positions[c] - ox, cy = positions[c + 1] - oy, cz = positions[c + 2] - oz;
    v += ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx);
  }
  return v / 6;
}

/** Result of {@link cappedVolume}. */
export interface CappedVolume {
  /** Enclosed volume after capping, asset units³. */
  volume: number;
  /** Open boundary loops that were capped (0: the mesh was closed). */
  capped: number;
}

/**
 * Volume of a mesh that may be open (an arm cut at the shoulder): vertices are welded by
 * `weld` (see `weldByPosition`; seams would otherwise open the surface), each boundary loop is
 * closed by a fan from the loop's centroid, and the closed surface's {@link enclosedVolume} is
 * returned. The caps move with the mesh, so posed and rest volumes compare the same solid.
 * @param positions length 3·n; @param triangles length 3·t
 * @param weld canonical vertex of each vertex (length n), from the rest positions
 * @returns null when the welded mesh is not an oriented 2-manifold with simple boundary loops
 *   (an edge shared by more than two triangles or twice in one direction, or a pinched
 *   boundary): its volume is not defined
 */
export function cappedVolume(positions: ArrayLike<number>, triangles: ArrayLike<number>, weld: ArrayLike<number>): CappedVolume | null {
  const directed = new Set<string>();
  const next = new Map<number, number>();
  const tris = Array.from(triangles, (v) => weld[v]);
  for (let t = 0; t < tris.length; t += 3) {
    for (let e = 0; e < 3; e++) {
      const key = `${tris[t + e]},${tris[t + ((e + 1) % 3)]}`;
      if (directed.has(key)) return null;
      directed.add(key);
    }
  }
  for (let t = 0; t < tris.length; t += 3) {
    for (let e = 0; e < 3; e++) {
      const a = tris[t + e], b = tris[t + ((e + 1) % 3)]; // prettier-ignore
      if (a === b || directed.has(`${b},${a}`)) continue;
      if (next.has(a)) return null; // pinched boundary
      next.set(a, b);
    }
  }
  const all = Array.from(positions);
  const extra: number[] = [];
  let capped = 0;
  const seen = new Set<number>();
  for (const start of next.keys()) {
    if (seen.has(start)) continue;
    const loop: number[] = [];
    for (let v: number | undefined = start; v !== undefined && !seen.has(v); v = next.get(v)) {
      seen.add(v);
      loop.push(v);
    }
    if (next.get(loop[loop.length - 1]) !== start) return null;
    const c = all.length / 3;
    const centre = [0, 1, 2].map((d) => loop.reduce((s, v) => s + positions[3 * v + d], 0) / loop.length);
    all.push(...centre);
    for (const a of loop) extra.push(c, next.get(a)!, a);
    capped++;
  }
  return { volume: enclosedVolume(all, [...tris, ...extra]), capped };
}
