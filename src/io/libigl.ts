/**
 * Readers for the libigl tutorial formats: OBJ (triangle meshes), TGF (skeletons), DMAT (dense
 * matrices, ASCII and binary) and the per-frame bone transforms stored in a DMAT.
 * Layouts as libigl's `readOBJ`, `readTGF` and `readDMAT` read them.
 *
 * @module
 */
import { readBytes } from './files.js';
import { CorskinError } from '../core/errors.js';

/** A triangle mesh read from OBJ: n vertices, t triangles. */
export interface ObjMesh {
  /** Positions, length 3·n. */
  positions: Float32Array;
  /** 0-based vertex indices, length 3·t (polygons fan-triangulated). */
  triangles: Uint32Array;
}

/** A libigl skeleton: joints (points) and bones (edges between joints). */
export interface TgfSkeleton {
  /** Joint positions, length 3·(joints). */
  joints: Float64Array;
  /** Bones as 0-based (parent-side joint, child-side joint) pairs, length 2·(bones). */
  bones: Int32Array;
}

/** A dense matrix, column-major: element (r, c) is `data[r + rows·c]`. */
export interface DenseMatrix {
  /** Number of rows. */
  rows: number;
  /** Number of columns. */
  cols: number;
  /** The elements, column-major, length rows·cols. */
  data: Float64Array;
}

async function readText(path: string): Promise<string> {
  return (await readBytes(path)).toString('utf8');
}

/** The largest finite 32-bit float: glTF stores positions, matrices and keys as 32-bit floats. */
const F32_MAX = 3.4028234663852886e38;

/**
 * Reads the `v` and `f` lines of a Wavefront OBJ (`f a/ta/na …`, 1-based or negative indices).
 * @throws CorskinError naming the file and line for malformed numbers, coordinates beyond the
 *   32-bit float range or out-of-range indices, or when the file has no vertex or no face (no
 *   triangle to skin)
 */
export async function readObj(path: string): Promise<ObjMesh> {
  const text = await readText(path);
  const pos: number[] = [];
  const tri: number[] = [];
  const lines = text.split('\n');
  const face: number[] = [];
  for (let l = 0; l < lines.length; l++) {
    const parts = lines[l].trim().split(/\s+/); // spaces or tabs
    if (parts[0] === 'v') {
      const [x, y, z] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
      // Positions are stored as 32-bit floats: beyond ±3.4e38 they would be infinite.
      if (![x, y, z].every((c) => Number.isFinite(c) && Math.abs(c) <= F32_MAX)) {
        throw new CorskinError(`line ${l + 1}: invalid vertex "${lines[l].trim()}"`, path);
      }
      pos.push(x, y, z);
    } else if (parts[0] === 'f') {
      face.length = 0;
      const n = pos.length / 3;
      for (const token of parts.slice(1)) {
        const head = token.split('/')[0];
        const i = /^-?\d+$/.test(head) ? Number(head) : NaN;
        const idx = i < 0 ? n + i : i - 1;
        if (!Number.isInteger(i) || i === 0 || idx < 0 || idx >= n) {
          throw new CorskinError(`line ${l + 1}: face index "${token}" is not a vertex (${n} vertices so far)`, path);
        }
        face.push(idx);
      }
      if (face.length < 3) throw new CorskinError(`line ${l + 1}: a face needs at least 3 vertices`, path);
      for (let k = 1; k + 1 < face.length; k++) tri.push(face[0], face[k], face[k + 1]);
    }
  }
  if (pos.length === 0) throw new CorskinError('no vertices (is this an OBJ file?)', path);
  if (tri.length === 0)
    throw new CorskinError(
      `no triangles: ${pos.length / 3} ${pos.length === 3 ? 'vertex' : 'vertices'} but no "f" (face) line`,
      path,
    );
  return { positions: Float32Array.from(pos), triangles: Uint32Array.from(tri) };
}

/**
 * Reads a TGF skeleton: joint lines `index x y z [more]`, `#`, bone lines `a b [more]` (1-based
 * joints), `#`, optional further sections (ignored).
 * @throws CorskinError naming the file and line for malformed lines, joint coordinates beyond the
 *   32-bit float range or unknown joints
 */
export async function readTgf(path: string): Promise<TgfSkeleton> {
  const text = await readText(path);
  const joints: number[] = [];
  const bones: number[] = [];
  let section = 0;
  const lines = text.split('\n');
  for (let l = 0; l < lines.length && section < 2; l++) {
    const line = lines[l].trim();
    if (!line) continue;
    if (line.startsWith('#')) {
      section++;
      continue;
    }
    const parts = line.split(/\s+/).map(Number);
    if (section === 0) {
      if (parts.length < 4 || parts.slice(1, 4).some((x) => !Number.isFinite(x))) {
        throw new CorskinError(`line ${l + 1}: expected "index x y z"`, path);
      }
      // Joint positions end up in 32-bit float matrices: beyond ±3.4e38 they would be infinite.
      if (parts.slice(1, 4).some((x) => Math.abs(x) > F32_MAX))
        throw new CorskinError(`line ${l + 1}: joint coordinate out of the 32-bit float range (±3.4e38)`, path);
      joints.push(parts[1], parts[2], parts[3]);
    } else {
      const [a, b] = parts;
      const J = joints.length / 3;
      if (!(Number.isInteger(a) && Number.isInteger(b) && a >= 1 && b >= 1 && a <= J && b <= J)) {
        throw new CorskinError(`line ${l + 1}: bone "${line}" references a joint outside 1..${J}`, path);
      }
      bones.push(a - 1, b - 1);
    }
  }
  // Each joint ends at most one bone, and following bones back from a joint never returns to it.
  const parentOf = new Map<number, number>();
  for (let k = 0; k < bones.length; k += 2) {
    if (parentOf.has(bones[k + 1])) throw new CorskinError(`joint ${bones[k + 1] + 1} ends two bones`, path);
    parentOf.set(bones[k + 1], bones[k]);
  }
  for (const start of parentOf.keys()) {
    const seen = new Set([start]);
    for (let j = parentOf.get(start); j !== undefined; j = parentOf.get(j)) {
      if (seen.has(j)) throw new CorskinError(`the bones form a cycle through joint ${j + 1}`, path);
      seen.add(j);
    }
  }
  if (joints.length === 0) throw new CorskinError('no joints (is this a TGF file?)', path);
  return { joints: Float64Array.from(joints), bones: Int32Array.from(bones) };
}

/**
 * Reads a DMAT matrix. ASCII: first line `cols rows`, then cols·rows numbers, column-major.
 * Binary: first line `0 0`, second line `cols rows`, then cols·rows little-endian float64.
 * @throws CorskinError naming the file when the header is malformed or the data is short
 */
export async function readDmat(path: string): Promise<DenseMatrix> {
  const bytes = await readBytes(path);
  const nl = bytes.indexOf(0x0a);
  const header = bytes
    .subarray(0, nl < 0 ? bytes.length : nl)
    .toString('latin1')
    .trim()
    .split(/\s+/)
    .map(Number);
  if (header.length !== 2 || !header.every((x) => Number.isInteger(x) && x >= 0)) {
    throw new CorskinError('not a DMAT file (first line must be "cols rows")', path);
  }
  let [cols, rows] = header;
  if (cols === 0 && rows === 0) {
    const nl2 = bytes.indexOf(0x0a, nl + 1);
    const h2 = bytes
      .subarray(nl + 1, nl2)
      .toString('latin1')
      .trim()
      .split(/\s+/)
      .map(Number);
    if (nl2 < 0 || h2.length !== 2 || !h2.every((x) => Number.isInteger(x) && x >= 0)) {
      throw new CorskinError('binary DMAT without a valid "cols rows" second line', path);
    }
    [cols, rows] = h2;
    const start = nl2 + 1;
    const need = 8 * cols * rows;
    if (bytes.length - start < need) {
      throw new CorskinError(
        `truncated binary DMAT: ${cols}×${rows} needs ${need} bytes, found ${bytes.length - start}`,
        path,
      );
    }
    const data = new Float64Array(cols * rows);
    const view = new DataView(bytes.buffer, bytes.byteOffset + start, need);
    for (let i = 0; i < data.length; i++) {
      data[i] = view.getFloat64(8 * i, true);
      if (!Number.isFinite(data[i])) throw new CorskinError(`element ${i} is not a finite number (${data[i]})`, path);
    }
    return { rows, cols, data };
  }
  if (nl < 0 && cols * rows > 0)
    throw new CorskinError(`truncated DMAT: no data after the "${cols} ${rows}" header`, path);
  const tokens = bytes
    .subarray(nl + 1)
    .toString('latin1')
    .split(/\s+/)
    .filter((s) => s.length);
  if (tokens.length < cols * rows) {
    throw new CorskinError(`truncated DMAT: expected ${cols * rows} numbers, found ${tokens.length}`, path);
  }
  const data = new Float64Array(cols * rows);
  for (let i = 0; i < data.length; i++) {
    const x = Number(tokens[i]);
    if (!Number.isFinite(x)) throw new CorskinError(`invalid number "${tokens[i]}" at element ${i}`, path);
    data[i] = x;
  }
  return { rows, cols, data };
}

/**
 * Decodes per-frame bone transforms stored as in libigl's `elephant-anim.dmat`: one column per
 * frame, each a (4B)×3 matrix stored column-major, where rows 4j..4j+3 form the 4×3 block `B_j`
 * that maps a rest point `x` to `[x 1]·B_j` (absolute: rest pose → frame pose).
 * @param boneCount B
 * @returns one array per frame of B skinning matrices (4×4 column-major, `M_j = B_jᵀ`), length 16·B
 * @throws CorskinError (naming `file`) when the row count is not 12·B, or when a value lies
 *   outside the 32-bit float range (±3.4e38) that glTF animations are stored in
 */
export function decodeBoneAnimation(m: DenseMatrix, boneCount: number, file?: string): Float64Array[] {
  if (m.rows !== 12 * boneCount) {
    throw new CorskinError(
      `animation has ${m.rows} rows per frame, expected 12 × ${boneCount} bones = ${12 * boneCount}`,
      file,
    );
  }
  const frames: Float64Array[] = [];
  const R = 4 * boneCount;
  for (let f = 0; f < m.cols; f++) {
    const M = new Float64Array(16 * boneCount);
    const base = f * m.rows;
    for (let j = 0; j < boneCount; j++) {
      for (let r = 0; r < 4; r++) {
        for (let c = 0; c < 3; c++) {
          const x = m.data[base + 4 * j + r + R * c];
          // Finite as a double, infinite as the float32 a glTF animation stores.
          if (!(Math.abs(x) <= F32_MAX))
            throw new CorskinError(
              `frame ${f}, bone ${j}: value ${x} is out of the 32-bit float range (±3.4e38) glTF animations are stored in`,
              file,
            );
          M[16 * j + 4 * r + c] = x;
        }
      }
      M[16 * j + 15] = 1;
    }
    frames.push(M);
  }
  return frames;
}
