/**
 * Mirrored rigs (an armature under a node scaled −1 along an axis, so that every joint's skinning
 * matrix reflects): a method that is not invariant under the reflection (skinning templates, log-
 * matrix and spherical blend skinning) poses the unmirrored skeleton — x ↦ −x in posed space — and
 * its result is mirrored back, so a mirrored character gets the mirror image of the character.
 *
 * @module
 */
import { mat4LinearDeterminant } from '../core/math.js';
import type { SkinnedMesh } from '../core/mesh.js';
import type { DeformTarget } from './contract.js';

/**
 * The skinning matrices to pose: `skinning` itself, or — when every joint reflects (an
 * armature under a mirroring node) — the unmirrored skeleton's (x ↦ −x in posed space, into
 * `scratch`, or a new array where it is too short), the result to be mirrored back with
 * {@link mirrorPosed}.
 * @returns the matrices and whether they were unmirrored
 */
export function unmirroredSkinning(
  skinning: Float64Array,
  scratch: Float64Array = new Float64Array(0),
): { skinning: Float64Array; mirrored: boolean } {
  if (!skinningReflects(skinning)) return { skinning, mirrored: false };
  if (scratch.length < skinning.length) scratch = new Float64Array(skinning.length);
  scratch.set(skinning);
  for (let o = 0; o < skinning.length; o += 4) scratch[o] = -skinning[o]; // row x of every column
  return { skinning: scratch.subarray(0, skinning.length), mirrored: true };
}

/**
 * Runs `pose` (a deformer of `mesh` into `out`) on the unmirrored skeleton's matrices where every
 * joint reflects ({@link unmirroredSkinning}, into `scratch` when long enough), and mirrors the
 * posed positions, normals and tangents the mesh has back; else on `skinning` itself.
 */
export function poseUnmirrored(
  mesh: SkinnedMesh,
  skinning: Float64Array,
  out: DeformTarget,
  pose: (skinning: Float64Array) => void,
  scratch?: Float64Array,
): void {
  const { skinning: S, mirrored } = unmirroredSkinning(skinning, scratch);
  pose(S);
  if (mirrored) mirrorPosed({ positions: out.positions, normals: mesh.normals && out.normals, tangents: mesh.tangents && out.tangents }, mesh.positions.length / 3); // prettier-ignore
}

/** Mirrors posed positions, normals and tangents of n vertices back (x ↦ −x; see {@link unmirroredSkinning}). */
export function mirrorPosed(out: DeformTarget, n: number): void {
  flipX(out.positions, 3, n);
  if (out.normals) flipX(out.normals, 3, n);
  if (out.tangents) flipX(out.tangents, 4, n);
}

/** Negates the x of `count` vectors of `stride` numbers in place. */
function flipX(v: Float32Array, stride: number, count: number): void {
  for (let o = 0; o < stride * count; o += stride) v[o] = -v[o];
}

/**
 * Whether the skinning matrices (16·J, column-major, bind space → posed space) reflect: some
 * determinant of their linear parts negative, none positive (joints scaled to zero, which hide a
 * part, have determinant 0 and do not count). A mesh posed by them is turned inside out: in
 * posed space its triangles wind the other way round.
 */
export function skinningReflects(skinning: Float64Array): boolean {
  let negative = false;
  for (let o = 0; o < skinning.length; o += 16) {
    const det = mat4LinearDeterminant(skinning, o);
    if (det > 0) return false;
    if (det < 0) negative = true;
  }
  return negative;
}
