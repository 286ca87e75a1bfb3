/**
 * Wavefront OBJ output of posed meshes (positions, normals, one group per glTF primitive).
 *
 * @module
 */

/** One mesh to write: positions (3·n), optional normals (3·n), triangles (3·t, 0-based). */
export interface ObjGroup {
  /** Object name (`o` line; whitespace becomes `_`, empty: `mesh`). */
  name: string;
  /** Vertex positions, 3·n. */
  positions: ArrayLike<number>;
  /** Vertex normals, 3·n. */
  normals?: ArrayLike<number>;
  /** Triangles, 0-based vertex indices, 3·t. */
  triangles: ArrayLike<number>;
}

/**
 * Formats groups as OBJ text (indices continue across groups), encoded as UTF-8 in pieces of
 * 65,536 lines: millions of vertices would exceed a JavaScript string's maximum length.
 */
export function formatObj(groups: ObjGroup[], header = 'written by corskin'): Uint8Array {
  const encoder = new TextEncoder();
  const pieces: Uint8Array[] = [];
  let lines: string[] = [`# ${header}`];
  const push = (line: string) => {
    lines.push(line);
    if (lines.length >= 65536) flush();
  };
  const flush = () => {
    if (lines.length) pieces.push(encoder.encode(lines.join('\n') + '\n'));
    lines = [];
  };
  let base = 1;
  for (const g of groups) {
    push(`o ${g.name.replace(/\s+/g, '_') || 'mesh'}`);
    const n = g.positions.length / 3;
    for (let i = 0; i < n; i++) push(`v ${g.positions[3 * i]} ${g.positions[3 * i + 1]} ${g.positions[3 * i + 2]}`);
    if (g.normals)
      for (let i = 0; i < n; i++) push(`vn ${g.normals[3 * i]} ${g.normals[3 * i + 1]} ${g.normals[3 * i + 2]}`);
    for (let t = 0; t < g.triangles.length; t += 3) {
      const [a, b, c] = [g.triangles[t] + base, g.triangles[t + 1] + base, g.triangles[t + 2] + base];
      push(g.normals ? `f ${a}//${a} ${b}//${b} ${c}//${c}` : `f ${a} ${b} ${c}`);
    }
    base += n;
  }
  flush();
  const out = new Uint8Array(pieces.reduce((sum, p) => sum + p.length, 0));
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
