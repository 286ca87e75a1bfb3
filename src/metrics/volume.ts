/**
 * Enclosed volume of a triangle mesh (divergence theorem).
 *
 * @module
 */

/**
 * Signed volume `Σ_t (a − o)·((b − o) × (c − o)) / 6` over triangles (a, b, c), asset units³,
 * with `o` the mean of the positions. For a closed, consistently outward-oriented mesh this is
 * its enclosed volume and does not depend on `o`; for an open mesh (an arm cut at the shoulder)
 * it is the volume of the cone from `o` over the surface, which still compares poses of the
 * same mesh because `o` moves with the mesh.
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
