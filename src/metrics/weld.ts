/**
 * Welding by position: vertices at exactly the same position (UV seams, normal creases, split
 * primitives) treated as one, as the surface they describe is one.
 *
 * @module
 */

/**
 * For every vertex, the index of the first vertex at exactly the same position.
 * @param positions length 3·n
 * @returns Uint32Array, length n; `map[i] ≤ i`, `map[map[i]] = map[i]`
 */
export function weldByPosition(positions: ArrayLike<number>): Uint32Array {
  const n = positions.length / 3;
  const first = new Map<string, number>();
  const map = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const key = `${positions[3 * i]},${positions[3 * i + 1]},${positions[3 * i + 2]}`;
    const f = first.get(key);
    if (f === undefined) {
      first.set(key, i);
      map[i] = i;
    } else map[i] = f;
  }
  return map;
}

/**
 * The welded vertices of `positions` ({@link weldByPosition}) numbered 0 … m−1 in order of first
 * appearance.
 * @param positions length 3·n
 * @returns `vertexOf` (length n: each vertex's welded vertex) and `first` (length m: each welded
 *   vertex's first vertex)
 */
export function weldedVertices(positions: ArrayLike<number>): { vertexOf: Uint32Array; first: number[] } {
  const n = positions.length / 3;
  const weld = weldByPosition(positions);
  const vertexOf = new Uint32Array(n);
  const first: number[] = [];
  for (let i = 0; i < n; i++) {
    if (weld[i] === i) {
      vertexOf[i] = first.length;
      first.push(i);
    } else vertexOf[i] = vertexOf[weld[i]];
  }
  return { vertexOf, first };
}
