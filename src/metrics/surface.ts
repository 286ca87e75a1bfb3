/**
 * Surface area and self-intersections of a triangle mesh.
 *
 * @module
 */
import { BufferAttribute, BufferGeometry, Matrix4, Vector3, type Triangle } from 'three';
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
      // three-mesh-bvh's test reports some coplanar triangles that lie apart (on a flat side of
      // the bar moved rigidly) as crossing: coplanar pairs are tested here.
      if (coplanar(t1, t2) ? overlapInPlane(t1, t2) : t1.intersectsTriangle(t2)) count++;
      return false;
    },
  });
  return count;
}

/** Whether two triangles lie in one plane (to 1e-6 of their size). */
function coplanar(t1: Triangle, t2: Triangle): boolean {
  const n = t1.getNormal(new Vector3());
  const size = Math.max(t1.a.distanceTo(t1.b), t1.b.distanceTo(t1.c), t2.a.distanceTo(t2.b), t2.b.distanceTo(t2.c));
  return [t2.a, t2.b, t2.c].every((p) => Math.abs(n.dot(p.clone().sub(t1.a))) <= 1e-6 * size);
}

/**
 * Whether two coplanar triangles overlap with positive area (touching along an edge or at a point
 * is no crossing): the separating axis test in their plane, on the six edge normals.
 */
function overlapInPlane(t1: Triangle, t2: Triangle): boolean {
  const n = t1.getNormal(new Vector3());
  const p1 = [t1.a, t1.b, t1.c], p2 = [t2.a, t2.b, t2.c]; // prettier-ignore
  const size = Math.max(...p1.map((p, i) => p.distanceTo(p1[(i + 1) % 3])), ...p2.map((p, i) => p.distanceTo(p2[(i + 1) % 3])));
  for (const pts of [p1, p2])
    for (let i = 0; i < 3; i++) {
      const axis = new Vector3().subVectors(pts[(i + 1) % 3], pts[i]).cross(n);
      const range = (q: Vector3[]) => [Math.min(...q.map((p) => axis.dot(p))), Math.max(...q.map((p) => axis.dot(p)))];
      const [lo1, hi1] = range(p1), [lo2, hi2] = range(p2); // prettier-ignore
      if (Math.min(hi1, hi2) - Math.max(lo1, lo2) <= 1e-9 * size * axis.length()) return false;
    }
  return true;
}
