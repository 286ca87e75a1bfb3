/**
 * Surface area and self-intersections of a triangle mesh.
 *
 * @module
 */
import { BufferAttribute, BufferGeometry, Matrix4 } from 'three';
import { MeshBVH } from 'three-mesh-bvh';
import { weldByPosition } from './weld.js';

/** Total triangle area, asset units². @param positions 3·n; @param triangles 3·t */
export function surfaceArea(positions: ArrayLike<number>, triangles: ArrayLike<number>): number {
  let area = 0;
  for (let t = 0; t < triangles.length; t += 3) {
    const a = 3 * triangles[t], b = 3 * triangles[t + 1], c = 3 * triangles[t + 2]; // prettier-ignore
    const ux = positions[b] - positions[a], uy = positions[b + 1] - positions[a + 1], uz = positions[b + 2] - positions[a + 2]; // prettier-ignore
    const vx = positions[c] - positions[a], vy = positions[c + 1] - positions[a + 1], vz = positions[c + 2] - positions[a + 2]; // prettier-ignore
    area += 0.5 * Math.hypot(uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx);
  }
  return area;
}

/**
 * Number of pairs of triangles that intersect each other, pairs sharing a vertex excluded
 * (neighbours always touch) — after welding vertices by position, so triangles that meet
 * across a UV seam or a normal crease count as neighbours. Broad phase with a bounding volume
 * hierarchy (three-mesh-bvh's BVH-against-BVH cast), exact triangle–triangle tests.
 * @param positions 3·n; @param triangles 3·t
 * @param weld canonical vertex of each vertex (length n); default: welded by these positions
 *   (pass the rest mesh's welding to measure a posed mesh whose seam vertices drifted apart)
 */
export function selfIntersections(
  positions: ArrayLike<number>,
  triangles: ArrayLike<number>,
  weld: ArrayLike<number> = weldByPosition(positions),
): number {
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', new BufferAttribute(Float32Array.from(positions), 3));
  geometry.setIndex(new BufferAttribute(Uint32Array.from(triangles), 1));
  // indirect: keep the index buffer in our triangle order.
  const bvh = new MeshBVH(geometry, { indirect: true });
  const index = geometry.index!.array;
  const resolve = (i: number) => (bvh.resolveTriangleIndex ? bvh.resolveTriangleIndex(i) : i);
  let count = 0;
  bvh.bvhcast(bvh, new Matrix4(), {
    intersectsTriangles(t1, t2, i1, i2) {
      const a = resolve(i1), b = resolve(i2); // prettier-ignore
      if (a >= b) return false;
      for (let x = 0; x < 3; x++) for (let y = 0; y < 3; y++) if (weld[index[3 * a + x]] === weld[index[3 * b + y]]) return false;
      if (t1.intersectsTriangle(t2)) count++;
      return false;
    },
  });
  return count;
}
