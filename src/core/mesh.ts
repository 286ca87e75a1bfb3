/**
 * Skinned mesh data: bind-space geometry plus K influences (joint index, weight) per vertex.
 *
 * @module
 */
import { CorskinError } from './errors.js';

/**
 * A triangle mesh bound to a skeleton, all in bind space (n vertices, t triangles).
 */
export interface SkinnedMesh {
  /** Bind-space positions (x, y, z per vertex), length 3·n, asset units (glTF: metres). */
  positions: Float32Array;
  /** Unit bind-space normals, length 3·n, when the mesh has them. */
  normals?: Float32Array;
  /** Bind-space tangents (x, y, z, handedness w = ±1), length 4·n, when the mesh has them. */
  tangents?: Float32Array;
  /** Vertex indices of the triangles, length 3·t (may be empty for point/line primitives). */
  triangles: Uint32Array;
  /** Number of influences per vertex K (4 or 8 from glTF; any K ≥ 1 is accepted). */
  influences: number;
  /** Joint index of each influence, length K·n (vertex-major: vertex i's are `[K·i, K·i+K)`). */
  joints: Uint32Array;
  /** Weight of each influence, length K·n, non-negative, summing to 1 per vertex. */
  weights: Float32Array;
  /** Bind-space centers of rotation (x, y, z per vertex), length 3·n, once precomputed. */
  centersOfRotation?: Float32Array;
  /**
   * What method modules prepared for this mesh or read from its file, by method id (Direct Delta
   * Mush's model under its id); each method reads and writes its own key, through its own
   * accessors (`ddmModelOf`). Not carried over by {@link mergeSkinnedMeshes}.
   */
  methodData?: Readonly<Record<string, unknown>>;
}

/** Number of vertices of a mesh. */
export function vertexCount(mesh: SkinnedMesh): number {
  return mesh.positions.length / 3;
}

/** What {@link normalizeWeights} changed. */
export interface WeightNormalization {
  /** Vertices whose weight sum differed from 1 by more than the tolerance and were rescaled. */
  renormalized: number;
  /** Largest |sum − 1| seen. */
  maxDeviation: number;
}

/**
 * The number of skinning matrices the mesh's influences need: 1 + the largest joint index with a
 * non-zero weight (0 when no weight is). One pass over the influences.
 */
export function jointsUsed(mesh: SkinnedMesh): number {
  const { joints, weights } = mesh;
  let J = 0;
  for (let k = 0; k < joints.length; k++) if (weights[k] !== 0 && joints[k] >= J) J = joints[k] + 1;
  return J;
}

/**
 * Rescales every vertex's weights to sum to 1 (in place).
 * @param tolerance sums within `1 ± tolerance` are left as they are (glTF allows 2e-3 for
 *   normalized integer weights; 1e-3 is used by default)
 * @throws CorskinError (naming `file`) when a vertex's weights are all zero
 */
export function normalizeWeights(mesh: SkinnedMesh, tolerance = 1e-3, file?: string): WeightNormalization {
  const { weights, influences: K } = mesh;
  const n = weights.length / K;
  let renormalized = 0;
  let maxDeviation = 0;
  for (let i = 0; i < n; i++) {
    let sum = 0;
    for (let k = 0; k < K; k++) sum += weights[K * i + k];
    const dev = Math.abs(sum - 1);
    if (dev > maxDeviation) maxDeviation = dev;
    if (dev > tolerance) {
      if (!(sum > 0)) throw new CorskinError(`vertex ${i} has no positive weight`, file);
      for (let k = 0; k < K; k++) weights[K * i + k] /= sum;
      renormalized++;
    }
  }
  return { renormalized, maxDeviation };
}

/**
 * Checks, in O(1), that the mesh's arrays fit one another: positions 3·n long, a whole number
 * K ≥ 1 of influences per vertex, joints and weights K·n long.
 * @throws CorskinError naming the mismatch (and `file`)
 */
export function checkMeshShape(mesh: SkinnedMesh, file?: string): void {
  const { positions, joints, weights, influences: K } = mesh;
  if (positions.length % 3) throw new CorskinError(`mesh positions: length ${positions.length} is not a multiple of 3`, file); // prettier-ignore
  const n = positions.length / 3;
  if (!(Number.isInteger(K) && K >= 1)) throw new CorskinError(`mesh influences per vertex must be a whole number ≥ 1, got ${K}`, file); // prettier-ignore
  if (joints.length !== K * n || weights.length !== K * n)
    throw new CorskinError(
      `mesh joints and weights must hold ${K} influences for each of the ${n} vertices (${K * n} each), got ${joints.length} and ${weights.length}`,
      file,
    );
}

/**
 * Checks a skinned mesh for the problems that would make any deformer produce garbage.
 * @param jointCount number of joints J of the skeleton the mesh is bound to
 * @param file the file the mesh came from, for the error message
 * @throws CorskinError on inconsistent array lengths, NaN/Inf positions, normals or weights,
 *   negative weights, joint indices ≥ J (with a non-zero weight) or triangle indices ≥ n
 */
export function validateSkinnedMesh(mesh: SkinnedMesh, jointCount: number, file?: string): void {
  const { positions, joints, weights, influences: K } = mesh;
  checkMeshShape(mesh, file);
  const n = positions.length / 3;
  for (let i = 0; i < 3 * n; i++) {
    if (!Number.isFinite(positions[i])) {
      throw new CorskinError(`vertex ${Math.floor(i / 3)} has a non-finite position (NaN or Inf)`, file);
    }
  }
  for (const [name, a] of [['normal', mesh.normals], ['tangent', mesh.tangents]] as const) {
    if (!a) continue;
    const c = name === 'tangent' ? 4 : 3;
    if (a.length !== c * n) throw new CorskinError(`${name}s do not match ${n} vertices`, file);
    for (let i = 0; i < a.length; i++) {
      if (!Number.isFinite(a[i])) throw new CorskinError(`vertex ${Math.floor(i / c)} has a non-finite ${name}`, file);
    }
  }
  for (let i = 0; i < K * n; i++) {
    const w = weights[i];
    if (!Number.isFinite(w) || w < 0) {
      throw new CorskinError(`vertex ${Math.floor(i / K)} has an invalid weight ${w}`, file);
    }
    if (w > 0 && joints[i] >= jointCount) {
      throw new CorskinError(
        `vertex ${Math.floor(i / K)} references joint ${joints[i]}, but the skin has only ${jointCount} joints`,
        file,
      );
    }
  }
  checkTriangles(mesh, file);
}

/**
 * Checks, in O(t), that the mesh's triangles are whole (3 indices each) and name its vertices.
 * @throws CorskinError naming the first triangle that does not (and `file`)
 */
export function checkTriangles(mesh: SkinnedMesh, file?: string): void {
  const { triangles } = mesh;
  const n = mesh.positions.length / 3;
  if (triangles.length % 3) throw new CorskinError(`mesh triangles: length ${triangles.length} is not a multiple of 3`, file); // prettier-ignore
  for (let i = 0; i < triangles.length; i++) {
    if (!(triangles[i] < n)) throw new CorskinError(`triangle ${Math.floor(i / 3)} references vertex ${triangles[i]} ≥ ${n}`, file); // prettier-ignore
  }
}

/**
 * Axis-aligned bounding-box diagonal of the positions (asset units); the scale every tolerance
 * in corskin's tests and reports is relative to.
 */
export function boundingBoxDiagonal(positions: ArrayLike<number>): number {
  let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
  for (let i = 0; i < positions.length; i += 3) {
    const x = positions[i], y = positions[i + 1], z = positions[i + 2];
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
    if (z < z0) z0 = z;
    if (z > z1) z1 = z;
  }
  return positions.length ? Math.hypot(x1 - x0, y1 - y0, z1 - z0) : 0;
}

/**
 * Area-weighted vertex normals of a triangle mesh (unit length; zero for isolated vertices).
 * @param positions length 3·n; @param triangles length 3·t
 * @returns Float32Array, length 3·n
 */
export function computeVertexNormals(positions: ArrayLike<number>, triangles: ArrayLike<number>): Float32Array {
  const n = positions.length / 3;
  const acc = new Float64Array(3 * n);
  for (let t = 0; t < triangles.length; t += 3) {
    const a = 3 * triangles[t], b = 3 * triangles[t + 1], c = 3 * triangles[t + 2];
    const ux = positions[b] - positions[a], uy = positions[b + 1] - positions[a + 1], uz = positions[b + 2] - positions[a + 2];
    const vx = positions[c] - positions[a], vy = positions[c + 1] - positions[a + 1], vz = positions[c + 2] - positions[a + 2];
    const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    for (const v of [a, b, c]) {
      acc[v] += nx;
      acc[v + 1] += ny;
      acc[v + 2] += nz;
    }
  }
  const out = new Float32Array(3 * n);
  for (let i = 0; i < 3 * n; i += 3) {
    const l = Math.hypot(acc[i], acc[i + 1], acc[i + 2]);
    if (l > 0) {
      out[i] = acc[i] / l;
      out[i + 1] = acc[i + 1] / l;
      out[i + 2] = acc[i + 2] / l;
    }
  }
  return out;
}

/** What {@link limitInfluences} dropped. */
export interface InfluenceLimit {
  /** The mesh with at most `influences` slots per vertex (the input itself when nothing changed). */
  mesh: SkinnedMesh;
  /** Vertices that lost at least one non-zero influence. */
  verticesAffected: number;
  /** Largest weight dropped (before renormalisation), 0 when none. */
  largestDroppedWeight: number;
}

/**
 * Keeps each vertex's `influences` largest weights (repeated joints summed first; ties to the
 * smaller joint index) and renormalises them to sum 1 — what GPU skinning and the run-time
 * deformers take; the CoR precomputation uses every influence. Returns the input mesh itself
 * when it has at most `influences` slots, else a new mesh sharing positions, normals,
 * tangents, triangles and CoRs (vertices that keep every joint keep their weights).
 * @param influences the number of slots to keep, K ≥ 1
 * @throws RangeError when `influences` < 1
 */
export function limitInfluences(mesh: SkinnedMesh, influences: number): InfluenceLimit {
  if (!(influences >= 1)) throw new RangeError(`influences must be ≥ 1, got ${influences}`);
  const K = mesh.influences;
  if (K <= influences) return { mesh, verticesAffected: 0, largestDroppedWeight: 0 };
  const n = mesh.positions.length / 3;
  const L = influences;
  const joints = new Uint32Array(L * n);
  const weights = new Float32Array(L * n);
  const js = new Uint32Array(K);
  const ws = new Float64Array(K);
  const order = Array.from({ length: K }, (_, k) => k);
  let affected = 0;
  let largest = 0;
  for (let i = 0; i < n; i++) {
    let u = 0;
    for (let k = K * i; k < K * i + K; k++) {
      const w = mesh.weights[k];
      if (w === 0) continue;
      let a = 0;
      while (a < u && js[a] !== mesh.joints[k]) a++;
      if (a === u) {
        js[u] = mesh.joints[k];
        ws[u++] = w;
      } else ws[a] += w;
    }
    const idx = order.slice(0, u).sort((a, b) => ws[b] - ws[a] || js[a] - js[b]);
    let kept = 1; // weights of a vertex that keeps every joint stay as they are
    if (u > L) {
      affected++;
      largest = Math.max(largest, ws[idx[L]]);
      kept = 0;
      for (let r = 0; r < L; r++) kept += ws[idx[r]];
    }
    for (let r = 0; r < Math.min(u, L); r++) {
      joints[L * i + r] = js[idx[r]];
      weights[L * i + r] = ws[idx[r]] / kept;
    }
  }
  return { mesh: { ...mesh, influences: L, joints, weights }, verticesAffected: affected, largestDroppedWeight: largest };
}

/** Index of the first NaN or ±Infinity in `a`, or −1 when every number is finite. */
export function firstNonFinite(a: ArrayLike<number>): number {
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i])) return i;
  return -1;
}

/**
 * One skinned mesh of the parts of a skin (meshes in the same bind space, skinned by the same
 * skeleton; e.g. three.js's one SkinnedMesh per glTF primitive): positions, triangles (re-indexed)
 * and influences concatenated in order, each vertex's influences padded with zero weights to the
 * largest K. Normals, tangents and centers of rotation only where every part has them.
 * @throws RangeError for no parts
 */
export function mergeSkinnedMeshes(parts: readonly SkinnedMesh[]): SkinnedMesh {
  if (!parts.length) throw new RangeError('no meshes to merge');
  const K = Math.max(...parts.map((p) => p.influences));
  const n = parts.reduce((t, p) => t + p.positions.length / 3, 0);
  const joined = (get: (p: SkinnedMesh) => Float32Array | undefined, width: number) =>
    parts.every(get) ? concatFloats(parts.map((p) => get(p)!), width * n) : undefined;
  const mesh: SkinnedMesh = {
    positions: joined((p) => p.positions, 3)!,
    triangles: new Uint32Array(parts.reduce((t, p) => t + p.triangles.length, 0)),
    influences: K,
    joints: new Uint32Array(K * n),
    weights: new Float32Array(K * n),
  };
  const optional = { normals: joined((p) => p.normals, 3), tangents: joined((p) => p.tangents, 4), centersOfRotation: joined((p) => p.centersOfRotation, 3) }; // prettier-ignore
  for (const [key, value] of Object.entries(optional)) if (value) mesh[key as keyof typeof optional] = value;
  let v0 = 0, t0 = 0; // prettier-ignore
  for (const p of parts) {
    const m = p.positions.length / 3, k = p.influences; // prettier-ignore
    for (let t = 0; t < p.triangles.length; t++) mesh.triangles[t0 + t] = p.triangles[t] + v0;
    for (let i = 0; i < m; i++)
      for (let c = 0; c < k; c++) {
        mesh.joints[K * (v0 + i) + c] = p.joints[k * i + c];
        mesh.weights[K * (v0 + i) + c] = p.weights[k * i + c];
      }
    v0 += m;
    t0 += p.triangles.length;
  }
  return mesh;
}

function concatFloats(arrays: Float32Array[], length: number): Float32Array {
  const out = new Float32Array(length);
  let o = 0;
  for (const a of arrays) {
    out.set(a, o);
    o += a.length;
  }
  return out;
}
