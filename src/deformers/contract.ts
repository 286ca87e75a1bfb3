/**
 * The deformer contract: the shared signature, the caller-owned output arrays, and the argument
 * check every deformer runs first.
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';
import { checkMeshShape, type SkinnedMesh } from '../core/mesh.js';
import type { SKINNING_METHODS } from './registry.js';

/**
 * Caller-provided output arrays of a deformer, posed space: `positions` length 3·n; `normals`
 * (3·n) and `tangents` (4·n, w copied from the input) are written only when both the mesh and
 * the target have them.
 */
export interface DeformTarget {
  /** Deformed positions, posed space, 3·n. */
  positions: Float32Array;
  /** Deformed unit normals, posed space, 3·n. */
  normals?: Float32Array;
  /** Deformed tangents (x, y, z, w), posed space, 4·n. */
  tangents?: Float32Array;
}

/**
 * The shared deformer signature: deform `mesh` (bind space) by the skinning matrices
 * `skinning` (4×4 column-major, length 16·J, bind space → posed space, see
 * {@link skinningMatrices}) into `out`, allocating nothing per vertex.
 */
export type Deformer = (mesh: SkinnedMesh, skinning: Float64Array, out: DeformTarget) => void;

/**
 * A deformer for proper rigid skinning matrices (DQS, SBS, LMS, CoR: the second phase of two-phase
 * skinning), unchecked, which takes the matrices' rotations when the caller has them.
 * @param rotations unit quaternions (x, y, z, w with w ≥ 0) of the matrices' rotations, 4·J;
 *   computed from the matrices when omitted
 */
export type RigidDeformer = (
  mesh: SkinnedMesh,
  skinning: Float64Array,
  out: DeformTarget,
  rotations?: Float64Array,
) => void;

/**
 * The rigid phase of two-phase skinning for one vertex (`deformStretchedVertices`), for the
 * methods whose blend needs no batch of vertices (DQS, CoR): `vertex` holds that one vertex
 * (positions 3, normals 3, tangents 4; 64-bit), already stretched and centered at its center c
 * (its center of rotation, for CoR, is the origin); its `count` influences are the rigid
 * transforms `[R_a | t_a]` with unit quaternions `rotations` (4·count, w ≥ 0), translations
 * `t_a = M_a(c) − c` (3·count) and `weights` (count, summing to 1, in increasing joint order: the
 * pivot is the first of the largest weights). Writes the moved vertex, c not added back, into
 * `out` (one vertex, 64-bit). The same numbers as the method's {@link RigidDeformer} on a batch
 * holding this vertex.
 */
export type RigidVertexDeformer = (
  vertex: SkinnedMesh,
  out: DeformTarget,
  rotations: Float64Array,
  translations: Float64Array,
  weights: Float64Array,
  count: number,
) => void;

/** The rig-free deformers' names, as used on the CLI and in reports (see the registry). */
export type SkinningMethod = Extract<(typeof SKINNING_METHODS)[number], { needsRig: false }>['id'];

/**
 * `skinning` as a Float64Array (16 per joint, column-major): itself, or a copy of a plain array
 * of numbers from a JavaScript caller (the kernels take typed arrays' views).
 * @throws CorskinError when it is neither
 */
export function skinningArray(skinning: ArrayLike<number>): Float64Array {
  if (skinning instanceof Float64Array) return skinning;
  if (Array.isArray(skinning) || ArrayBuffer.isView(skinning)) return Float64Array.from(skinning);
  throw new CorskinError(`skinning matrices: expected a Float64Array (16 numbers per joint), got ${typeof skinning}`);
}

/**
 * Checks that the mesh's arrays fit one another and `out` fits `mesh` (O(1): the per-vertex data
 * is checked once, by {@link validateSkinnedMesh}, when the mesh is read — influences must
 * reference joints < J).
 * @throws CorskinError on a size mismatch: positions not 3·n long, influences per vertex not a
 *   whole number ≥ 1, joints or weights not influences·n long, an output too short, skinning
 *   matrices not a positive multiple of 16 long
 */
export function checkDeformArgs(mesh: SkinnedMesh, skinning: Float64Array, out: DeformTarget): void {
  checkMeshShape(mesh);
  const n = mesh.positions.length / 3;
  if (out.positions.length < 3 * n) throw new CorskinError(`output positions hold fewer than ${n} vertices`);
  if (out.normals && mesh.normals && out.normals.length < 3 * n) throw new CorskinError(`output normals hold fewer than ${n} vertices`);
  if (out.tangents && mesh.tangents && out.tangents.length < 4 * n) throw new CorskinError(`output tangents hold fewer than ${n} vertices`);
  if (skinning.length === 0 || skinning.length % 16) throw new CorskinError('skinning matrices length is not a positive multiple of 16');
}

/**
 * Runs `deformer` on `mesh` into freshly allocated arrays: positions (3·n), and normals (3·n) and
 * tangents (4·n) where the mesh has them; posed space, asset units.
 * @throws as the deformer does
 */
export function deformInto(deformer: Deformer, mesh: SkinnedMesh, skinning: Float64Array): DeformTarget {
  const n = mesh.positions.length / 3;
  const out: DeformTarget = { positions: new Float32Array(3 * n) };
  if (mesh.normals) out.normals = new Float32Array(3 * n);
  if (mesh.tangents) out.tangents = new Float32Array(4 * n);
  deformer(mesh, skinning, out);
  return out;
}
