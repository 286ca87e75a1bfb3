/** Closed test cages, outward-facing: a box, a U shape (non-convex), a geodesic sphere, tubes along bones. */
import type { Cage } from '../../src/cage/cage.js';
import { geodesicSphere } from '../../src/cage/star.js';

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
  const { dirs, triangles } = geodesicSphere(levels);
  return { positions: dirs.map((d, i) => centre[i % 3] + r * d), triangles };
}

export { tubeCage } from '../../src/cage/tube.js';
