/**
 * The surface Delta Mush smooths: the mesh welded by position (so UV seams and split normals do
 * not tear it), its unique edges, its border, and the smoothing passes and tangent frames on it.
 *
 * Smoothing (Mancewicz et al. 2014, §3): a pass moves every vertex a `step` toward the average of
 * its edge neighbours, all vertices at once (Jacobi). `uniform` averages the neighbours alike;
 * `length-weighted` weights each by its edge's length and, as Blender's Corrective Smooth, moves
 * by 2·step/(edge count) of that weighted average, so both kinds smooth about as strongly.
 * Pinned vertices (the border, with `pinBorders`) do not move.
 *
 * Frames (§3, "deltas in a local coordinate frame"): every corner of every triangle of the
 * smoothed surface has an orthonormal frame — n the triangle's normal, t the corner's bisector
 * direction (the sum of the unit edge vectors into and out of the corner), b = n × t — and a
 * weight π − (the corner's angle). A vertex's delta is stored in each of its corners' frames and
 * put back as the weighted mean of what they give: no tangent is chosen arbitrarily, and the
 * result is what Blender 3.4's Corrective Smooth computes, which makes Blender an independent
 * reference.
 *
 * @module
 */
import { weldedVertices } from '../../metrics/weld.js';

/** The welded surface of a mesh (indices: `w` welded vertex, `i` mesh vertex). */
export interface MushSurface {
  /** Welded vertex of every mesh vertex, length n, values < m. */
  vertexOf: Uint32Array;
  /** One mesh vertex per welded vertex (the first at its position), length m. */
  representative: Uint32Array;
  /** Unique edges as welded vertex pairs, length 2·E. */
  edges: Uint32Array;
  /** Edges per welded vertex, length m. */
  degree: Float64Array;
  /** 1 for a welded vertex on an edge of exactly one triangle, length m. */
  border: Uint8Array;
  /** Triangles in welded vertices, in the mesh's order, those whose corners weld together dropped; length 3·T. */
  triangles: Uint32Array;
}

/**
 * Welds `positions` and finds the edges and the border of `triangles`.
 * @param positions bind-space positions, length 3·n
 * @param triangles vertex indices, length 3·t
 */
export function mushSurface(positions: Float32Array, triangles: Uint32Array): MushSurface {
  const { vertexOf, first: reps } = weldedVertices(positions);
  const m = reps.length;
  const tris: number[] = [];
  const faces = new Map<number, number>(); // edge key → triangles using it
  const edges: number[] = [];
  const degree = new Float64Array(m);
  for (let f = 0; f + 2 < triangles.length; f += 3) {
    const a = vertexOf[triangles[f]], b = vertexOf[triangles[f + 1]], c = vertexOf[triangles[f + 2]]; // prettier-ignore
    if (a === b || b === c || c === a) continue;
    tris.push(a, b, c);
    for (const [u, v] of [
      [a, b],
      [b, c],
      [c, a],
    ]) {
      const key = u < v ? u * m + v : v * m + u;
      const count = faces.get(key);
      if (count === undefined) {
        faces.set(key, 1);
        edges.push(u, v);
        degree[u]++;
        degree[v]++;
      } else faces.set(key, count + 1);
    }
  }
  const border = new Uint8Array(m);
  for (let e = 0; e < edges.length; e += 2) {
    const u = edges[e], v = edges[e + 1]; // prettier-ignore
    if (faces.get(u < v ? u * m + v : v * m + u) === 1) border[u] = border[v] = 1;
  }
  return {
    vertexOf,
    representative: Uint32Array.from(reps),
    edges: Uint32Array.from(edges),
    degree,
    border,
    triangles: Uint32Array.from(tris),
  };
}

/**
 * Smooths `x` in place by `iterations` passes (see the module comment).
 * @param x welded positions, length 3·m, any space (smoothing commutes with rigid motions)
 * @param weight per welded vertex, the share of a pass it moves (0 pinned, 1 free), length m
 * @param scratch length 4·m, overwritten
 */
export function smoothSurface(
  surface: MushSurface,
  x: Float64Array,
  iterations: number,
  step: number,
  lengthWeighted: boolean,
  weight: Float64Array,
  scratch: Float64Array,
): void {
  const { edges, degree } = surface;
  const m = degree.length;
  const acc = scratch; // 3·m sums, then m edge-length sums
  for (let pass = 0; pass < iterations; pass++) {
    acc.fill(0);
    for (let e = 0; e < edges.length; e += 2) {
      const u = 3 * edges[e], v = 3 * edges[e + 1]; // prettier-ignore
      let dx = x[v] - x[u], dy = x[v + 1] - x[u + 1], dz = x[v + 2] - x[u + 2]; // prettier-ignore
      if (lengthWeighted) {
        const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
        dx *= l;
        dy *= l;
        dz *= l;
        acc[3 * m + edges[e]] += l;
        acc[3 * m + edges[e + 1]] += l;
      }
      acc[u] += dx;
      acc[u + 1] += dy;
      acc[u + 2] += dz; // prettier-ignore
      acc[v] -= dx;
      acc[v + 1] -= dy;
      acc[v + 2] -= dz; // prettier-ignore
    }
    for (let w = 0; w < m; w++) {
      if (!degree[w] || !weight[w]) continue;
      let k: number;
      if (lengthWeighted) {
        const div = acc[3 * m + w] * degree[w];
        if (!(div > 0)) continue;
        k = (2 * step * weight[w]) / div;
      } else k = (step * weight[w]) / degree[w];
      x[3 * w] += k * acc[3 * w];
      x[3 * w + 1] += k * acc[3 * w + 1];
      x[3 * w + 2] += k * acc[3 * w + 2];
    }
  }
}

/**
 * The corner frames of the welded surface at `x` (see the module comment): per corner of every
 * triangle (in {@link MushSurface.triangles} order, corner k of triangle f is index 3f + k), the
 * orthonormal frame (t, b, n) and its weight π − (corner angle); a degenerate corner gets weight 0.
 * @param x welded positions, length 3·m
 * @param frames out: columns t, b, n per corner, length 27·T (column-major 3×3 each)
 * @param weights out: length 3·T
 */
export function cornerFrames(
  surface: MushSurface,
  x: Float64Array,
  frames: Float64Array | Float32Array,
  weights: Float64Array,
): void {
  const tris = surface.triangles;
  for (let f = 0; f < tris.length; f += 3) {
    for (let k = 0; k < 3; k++) {
      const c = f + k; // the corner at vertex tris[f + k]: previous vertex tris[f + k − 1], next tris[f + k + 1]
      const prev = 3 * tris[f + ((k + 2) % 3)], cur = 3 * tris[c], next = 3 * tris[f + ((k + 1) % 3)]; // prettier-ignore
      let ax = x[prev] - x[cur], ay = x[prev + 1] - x[cur + 1], az = x[prev + 2] - x[cur + 2]; // prettier-ignore
      let bx = x[cur] - x[next], by = x[cur + 1] - x[next + 1], bz = x[cur + 2] - x[next + 2]; // prettier-ignore
      const la = Math.hypot(ax, ay, az), lb = Math.hypot(bx, by, bz); // prettier-ignore
      let nx = 0, ny = 0, nz = 0, ln = 0; // prettier-ignore
      if (la > 0 && lb > 0) {
        ax /= la;
        ay /= la;
        az /= la; // prettier-ignore
        bx /= lb;
        by /= lb;
        bz /= lb; // prettier-ignore
        nx = ay * bz - az * by;
        ny = az * bx - ax * bz;
        nz = ax * by - ay * bx; // prettier-ignore
        ln = Math.hypot(nx, ny, nz);
      }
      const o = 9 * c;
      if (!(ln > 1e-12)) {
        // a degenerate corner: no weight (an identity frame keeps the arrays finite)
        weights[c] = 0;
        frames.fill(0, o, o + 9);
        frames[o] = frames[o + 4] = frames[o + 8] = 1;
        continue;
      }
      nx /= ln;
      ny /= ln;
      nz /= ln; // prettier-ignore
      let tx = ax + bx, ty = ay + by, tz = az + bz; // prettier-ignore
      const lt = Math.hypot(tx, ty, tz);
      tx /= lt;
      ty /= lt;
      tz /= lt; // prettier-ignore
      weights[c] = Math.acos(Math.max(-1, Math.min(1, ax * bx + ay * by + az * bz))); // π − the corner's angle
      frames[o] = tx;
      frames[o + 1] = ty;
      frames[o + 2] = tz; // prettier-ignore
      frames[o + 3] = ny * tz - nz * ty;
      frames[o + 4] = nz * tx - nx * tz;
      frames[o + 5] = nx * ty - ny * tx; // prettier-ignore
      frames[o + 6] = nx;
      frames[o + 7] = ny;
      frames[o + 8] = nz; // prettier-ignore
    }
  }
}
