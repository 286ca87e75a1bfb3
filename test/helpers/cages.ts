/** Closed test cages, outward-facing: a box, a U shape (non-convex), a geodesic sphere, tubes along bones. */
import type { Cage } from '../../src/cage/cage.js';

/** Axis-aligned box [lo, hi]³ (12 triangles). */
export function boxCage(lo: number[] = [-1, -1, -1], hi: number[] = [1, 1, 1]): Cage {
  const p: number[] = [];
  for (let i = 0; i < 8; i++) p.push(i & 1 ? hi[0] : lo[0], i & 2 ? hi[1] : lo[1], i & 4 ? hi[2] : lo[2]);
  // Faces as quads (counter-clockwise from outside).
  const quads = [
    [0, 2, 3, 1], // z = lo
    [4, 5, 7, 6], // z = hi
    [0, 1, 5, 4], // y = lo
    [2, 6, 7, 3], // y = hi
    [0, 4, 6, 2], // x = lo
    [1, 3, 7, 5], // x = hi
  ];
  return {
    positions: Float64Array.from(p),
    triangles: Uint32Array.from(quads.flatMap(([a, b, c, d]) => [a, b, c, a, c, d])),
  };
}

/**
 * A closed surface from a grid of quads on the faces of a union of unit cells: `cells` lists
 * occupied cells (integer x, y, z); the boundary faces between occupied and empty cells are
 * triangulated (2 triangles per face), vertices shared. A U shape: [[0,0,0],[1,0,0],[2,0,0],[0,1,0],[2,1,0]].
 */
export function voxelCage(cells: number[][], size = 1): Cage {
  const occupied = new Set(cells.map((c) => c.join(',')));
  const ids = new Map<string, number>();
  const p: number[] = [];
  const vertex = (x: number, y: number, z: number) => {
    const k = `${x},${y},${z}`;
    if (!ids.has(k)) {
      ids.set(k, p.length / 3);
      p.push(x * size, y * size, z * size);
    }
    return ids.get(k)!;
  };
  const tris: number[] = [];
  for (const [x, y, z] of cells) {
    for (let axis = 0; axis < 3; axis++)
      for (const dir of [-1, 1]) {
        const n = [x, y, z];
        n[axis] += dir;
        if (occupied.has(n.join(','))) continue;
        // The face's four corners, ordered counter-clockwise seen from the outside (along dir).
        const b = (axis + 1) % 3,
          c = (axis + 2) % 3;
        const corner = (s: number, t: number) => {
          const q = [x, y, z];
          q[axis] += dir > 0 ? 1 : 0;
          q[b] += s;
          q[c] += t;
          return vertex(q[0], q[1], q[2]);
        };
        const quad =
          dir > 0
            ? [corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1)]
            : [corner(0, 0), corner(0, 1), corner(1, 1), corner(1, 0)];
        tris.push(quad[0], quad[1], quad[2], quad[0], quad[2], quad[3]);
      }
  }
  return { positions: Float64Array.from(p), triangles: Uint32Array.from(tris) };
}

/** A geodesic sphere (icosahedron subdivided `levels` times: 20·4^levels triangles) of radius r. */
export function sphereCage(levels = 2, r = 1, centre = [0, 0, 0]): Cage {
  const g = (1 + Math.sqrt(5)) / 2;
  let p = [
    -1,
    g,
    0,
    1,
    g,
    0,
    -1,
    -g,
    0,
    1,
    -g,
    0,
    0,
    -1,
    g,
    0,
    1,
    g,
    0,
    -1,
    -g,
    0,
    1,
    -g,
    g,
    0,
    -1,
    g,
    0,
    1,
    -g,
    0,
    -1,
    -g,
    0,
    1,
  ];
  let t = [
    0, 11, 5, 0, 5, 1, 0, 1, 7, 0, 7, 10, 0, 10, 11, 1, 5, 9, 5, 11, 4, 11, 10, 2, 10, 7, 6, 7, 1, 8, 3, 9, 4, 3, 4, 2,
    3, 2, 6, 3, 6, 8, 3, 8, 9, 4, 9, 5, 2, 4, 11, 6, 2, 10, 8, 6, 7, 9, 8, 1,
  ];
  for (let l = 0; l < levels; l++) {
    const mid = new Map<string, number>();
    const mp = (a: number, b: number) => {
      const k = a < b ? `${a},${b}` : `${b},${a}`;
      if (!mid.has(k)) {
        mid.set(k, p.length / 3);
        p = p.concat([0, 1, 2].map((i) => (p[3 * a + i] + p[3 * b + i]) / 2));
      }
      return mid.get(k)!;
    };
    const next: number[] = [];
    for (let f = 0; f < t.length; f += 3) {
      const [a, b, c] = [t[f], t[f + 1], t[f + 2]];
      const ab = mp(a, b),
        bc = mp(b, c),
        ca = mp(c, a);
      next.push(a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca);
    }
    t = next;
  }
  const positions = new Float64Array(p.length);
  for (let i = 0; i < p.length; i += 3) {
    const l = Math.hypot(p[i], p[i + 1], p[i + 2]);
    for (let k = 0; k < 3; k++) positions[i + k] = centre[k] + (r * p[i + k]) / l;
  }
  return { positions, triangles: Uint32Array.from(t) };
}

export { tubeCage } from '../../src/cage/tube.js';
