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
