/**
 * Wavefront OBJ output of posed meshes (positions, normals, one group per glTF primitive).
 *
 * @module
 */

/** One mesh to write: positions (3·n), optional normals (3·n), triangles (3·t, 0-based). */
export interface ObjGroup {
  name: string;
  positions: ArrayLike<number>;
  normals?: ArrayLike<number>;
  triangles: ArrayLike<number>;
}

/** Formats groups as OBJ text (indices continue across groups). */
export function formatObj(groups: ObjGroup[], header = 'written by corskin'): string {
  const lines: string[] = [`# ${header}`];
  let base = 1;
  for (const g of groups) {
    lines.push(`o ${g.name.replace(/\s+/g, '_') || 'mesh'}`);
    const n = g.positions.length / 3;
    for (let i = 0; i < n; i++)
      lines.push(`v ${g.positions[3 * i]} ${g.positions[3 * i + 1]} ${g.positions[3 * i + 2]}`);
    if (g.normals)
      for (let i = 0; i < n; i++) lines.push(`vn ${g.normals[3 * i]} ${g.normals[3 * i + 1]} ${g.normals[3 * i + 2]}`);
    for (let t = 0; t < g.triangles.length; t += 3) {
      const [a, b, c] = [g.triangles[t] + base, g.triangles[t + 1] + base, g.triangles[t + 2] + base];
      lines.push(g.normals ? `f ${a}//${a} ${b}//${b} ${c}//${c}` : `f ${a} ${b} ${c}`);
    }
    base += n;
  }
  return lines.join('\n') + '\n';
}
