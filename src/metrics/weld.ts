/**
 * Welding by position: vertices at exactly the same position (UV seams, normal creases, split
 * primitives) treated as one, as the surface they describe is one.
 *
 * @module
 */

/**
 * For every vertex, the index of the first vertex at exactly the same position (−0 is 0, and
 * every NaN one value, as the positions' decimal strings compare), found by hashing the
 * coordinates' bits in an open-addressing table.
 * @param positions length 3·n
 * @returns Uint32Array, length n; `map[i] ≤ i`, `map[map[i]] = map[i]`
 */
export function weldByPosition(positions: ArrayLike<number>): Uint32Array {
  const n = positions.length / 3;
  const map = new Uint32Array(n);
  // Each vertex's coordinates with −0 → 0 and one NaN, read back as six 32-bit words.
  const key = new Float64Array(3 * n);
  for (let k = 0; k < 3 * n; k++) {
    const v = positions[k];
    key[k] = v === v ? v + 0 : NaN;
  }
  const bits = new Uint32Array(key.buffer);
  let size = 16;
  while (size < 2 * n) size *= 2;
  const table = new Int32Array(size).fill(-1);
  for (let i = 0; i < n; i++) {
    const b = 6 * i;
    // FNV-1a over the words, then MurmurHash3's finaliser (quantised coordinates differ in few bits).
    let h = 0x811c9dc5;
    for (let w = 0; w < 6; w++) h = Math.imul(h ^ bits[b + w], 0x01000193);
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    h ^= h >>> 16;
    for (let slot = h & (size - 1); ; slot = (slot + 1) & (size - 1)) {
      const j = table[slot];
      if (j < 0) {
        table[slot] = i;
        map[i] = i;
        break;
      }
      let same = true;
      for (let w = 0; w < 6 && same; w++) same = bits[6 * j + w] === bits[b + w];
      if (same) {
        map[i] = j;
        break;
      }
    }
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
