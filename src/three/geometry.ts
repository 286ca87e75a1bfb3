/**
 * corskin's view of a three.js skinned mesh: its geometry as a corskin mesh, its influence sets,
 * its skinning matrices in bind space — what the CPU deformers and precomputations read — and
 * the joint texture the GPU methods read them from.
 *
 * @module
 */
import { Matrix4, Mesh, Vector3, type BufferAttribute, type InterleavedBufferAttribute, type SkinnedMesh } from 'three';
import type { SkinnedMesh as CorskinMesh } from '../core/mesh.js';
import { jointQuaternions } from '../deformers/joint-rotations.js';
import { splitScale } from '../deformers/two-phase.js';
import { TEXELS_PER_JOINT } from './chunks.js';

/** Number of influence sets of a geometry: skinIndex/skinWeight, then joints_1/weights_1, … */
export function influenceSets(mesh: SkinnedMesh): number {
  const g = mesh.geometry;
  let sets = 1;
  while (g.getAttribute(`joints_${sets}`) && g.getAttribute(`weights_${sets}`)) sets++;
  return sets;
}

const M = new Matrix4();

/**
 * The mesh's skinning matrices in its bind space, `bindMatrixInverse · boneMatrix · bindMatrix`
 * from `skeleton.boneMatrices` (which three updates before rendering), 4×4 column-major,
 * length 16·J — the input of corskin's CPU deformers for the same pose.
 */
export function bindSpaceSkinningMatrices(mesh: SkinnedMesh, out?: Float64Array): Float64Array {
  const bones = mesh.skeleton.boneMatrices!;
  const J = mesh.skeleton.bones.length;
  const S = out ?? new Float64Array(16 * J);
  for (let j = 0; j < J; j++) {
    M.fromArray(bones, 16 * j)
      .premultiply(mesh.bindMatrixInverse)
      .multiply(mesh.bindMatrix);
    S.set(M.elements, 16 * j);
  }
  return S;
}

/**
 * The mesh's skinning matrices from its bind space to world space, `matrixWorld ·`
 * {@link bindSpaceSkinningMatrices} — the space corskin's glTF reader poses a skin in (joint world
 * matrices times inverse bind matrices), where every CPU method gives the reader's result (log-
 * matrix skinning's blend of logarithms depends on the space it is posed in). 4×4 column-major,
 * length 16·J.
 */
export function worldSkinningMatrices(mesh: SkinnedMesh, out?: Float64Array): Float64Array {
  const S = bindSpaceSkinningMatrices(mesh, out);
  for (let o = 0; o < S.length; o += 16) S.set(M.fromArray(S, o).premultiply(mesh.matrixWorld).elements, o);
  return S;
}

/**
 * A geometry attribute's values, `itemSize` per vertex in vertex order, in a new array of `type`:
 * read element by element, so that an interleaved attribute (whose `array` is its whole buffer,
 * the other attributes' values included) gives its own values alone.
 */
export function attributeValues<T extends Float32Array | Float64Array | Uint32Array>(
  attribute: BufferAttribute | InterleavedBufferAttribute,
  type: new (length: number) => T,
): T {
  const { count, itemSize } = attribute;
  const out = new type(count * itemSize);
  for (let i = 0; i < count; i++)
    for (let c = 0; c < itemSize; c++) out[itemSize * i + c] = attribute.getComponent(i, c);
  return out;
}

/**
 * three.js's GLTFLoader scales every skinned mesh's first influence set (`skinWeight`) to sum 1
 * on its own (`SkinnedMesh.normalizeSkinWeights`), whatever the other sets hold: on a vertex with
 * more than 4 influences the sets then sum to 1 + r, r the other sets' share, and the first set
 * weighs 1 / (1 − r) times what the file says (the chicken's 16 influences: LBS up to 4% of the
 * diagonal from the file's). Where vertex `i`'s first set sums to 1 and the others to r > 0,
 * this scales the first set by 1 − r, which gives back the file's weights wherever they summed
 * to 1 (as glTF asks); a first set of zeros that the loader made (1, 0, 0, 0) goes back to zeros.
 * @param weights K per vertex, the first 4 the first set (in place)
 * @param tolerance how close to 1 the first set's sum counts as normalised ({@link firstSetTolerance})
 */
function undoFirstSetNormalization(weights: Float32Array, K: number, i: number, tolerance: number): void {
  const o = K * i;
  const first = weights[o] + weights[o + 1] + weights[o + 2] + weights[o + 3];
  let rest = 0;
  for (let k = o + 4; k < o + K; k++) rest += weights[k];
  if (!(rest > 0) || Math.abs(first - 1) > tolerance) return;
  const scale = Math.max(0, 1 - rest);
  for (let k = o; k < o + 4; k++) weights[k] *= scale;
}

/**
 * How close to 1 a first influence set's sum counts as the loader's normalisation: float weights
 * come out within float32 rounding; normalised 8- or 16-bit ones, written back quantized, within
 * 4 steps.
 */
function firstSetTolerance(weights: BufferAttribute | InterleavedBufferAttribute): number {
  const a = weights.array;
  if (!weights.normalized || a instanceof Float32Array) return 1e-5;
  return 4 / (a instanceof Uint8Array ? 255 : 65535);
}

/**
 * corskin's view of a three.js skinned geometry (bind space = the geometry's own space), for
 * the CPU deformers and the CoR precomputation.
 * @throws Error when the geometry lacks position, skinIndex or skinWeight
 */
export function meshFromGeometry(mesh: SkinnedMesh): CorskinMesh {
  const g = mesh.geometry;
  const pos = g.getAttribute('position');
  if (!pos || !g.getAttribute('skinIndex') || !g.getAttribute('skinWeight'))
    throw new Error(`${mesh.name || 'SkinnedMesh'}: geometry needs position, skinIndex and skinWeight`);
  const sets = influenceSets(mesh);
  const K = 4 * sets;
  const n = pos.count;
  const positions = new Float32Array(3 * n);
  const joints = new Uint32Array(K * n);
  const weights = new Float32Array(K * n);
  for (let set = 0; set < sets; set++) {
    const idx = g.getAttribute(set ? `joints_${set}` : 'skinIndex');
    const wgt = g.getAttribute(set ? `weights_${set}` : 'skinWeight');
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < 4; k++) {
        joints[K * i + 4 * set + k] = idx.getComponent(i, k);
        weights[K * i + 4 * set + k] = wgt.getComponent(i, k);
      }
    }
  }
  const tolerance = firstSetTolerance(g.getAttribute('skinWeight'));
  for (let i = 0; i < n; i++) {
    positions.set([pos.getX(i), pos.getY(i), pos.getZ(i)], 3 * i);
    if (sets > 1) undoFirstSetNormalization(weights, K, i, tolerance);
    let s = 0;
    for (let k = 0; k < K; k++) s += weights[K * i + k];
    if (s > 0 && Math.abs(s - 1) > 1e-6) for (let k = 0; k < K; k++) weights[K * i + k] /= s;
  }
  const index = g.getIndex();
  const triangles = index ? Uint32Array.from(index.array) : Uint32Array.from({ length: n - (n % 3) }, (_, i) => i);
  const nrm = g.getAttribute('normal');
  const normals = nrm ? attributeValues(nrm, Float32Array) : undefined;
  return { positions, normals, triangles, influences: K, joints, weights };
}

/**
 * Fills `out` with the mesh's joint data for its current skeleton state (`TEXELS_PER_JOINT` = 4
 * RGBA texels per joint; see `chunks.ts`): each bind-space skinning matrix as three rows, then
 * the quaternion of its proper rotation (of the two-phase split when some matrix has scale,
 * shear or reflection).
 * @param scratch reused for the bind-space matrices (16·J) so a frame allocates nothing for them
 * @returns true when the two-phase path is needed (some matrix is not a proper rigid motion)
 */
export function writeJointTexture(mesh: SkinnedMesh, out: Float32Array, scratch?: Float64Array): boolean {
  const S = bindSpaceSkinningMatrices(mesh, scratch);
  const J = S.length / 16;
  const split = splitScale(S);
  const q = split ? split.rotations : jointQuaternions(S);
  const stride = 4 * TEXELS_PER_JOINT;
  for (let j = 0; j < J; j++) {
    const o = stride * j;
    const m = 16 * j;
    for (let r = 0; r < 3; r++) {
      out[o + 4 * r] = S[m + r];
      out[o + 4 * r + 1] = S[m + 4 + r];
      out[o + 4 * r + 2] = S[m + 8 + r];
      out[o + 4 * r + 3] = S[m + 12 + r];
    }
    out[o + 12] = q[4 * j];
    out[o + 13] = q[4 * j + 1];
    out[o + 14] = q[4 * j + 2];
    out[o + 15] = q[4 * j + 3];
  }
  return split !== null;
}

/**
 * Vertex positions of `mesh` at its skeleton's current pose as corskin's LBS computes them: morph
 * targets first, then linear blend skinning with every influence {@link meshFromGeometry} reads
 * (three's `getVertexPosition` skins the first 4 alone). The returned function writes vertex i
 * (mesh space, the units of the geometry) into `out` and returns it, at the pose of the call to
 * this function (it updates the skeleton's bone matrices from the bones' world matrices then).
 * @throws Error as {@link meshFromGeometry}
 */
export function linearBlendVertex(mesh: SkinnedMesh): (i: number, out: Vector3) => Vector3 {
  const { influences: K, joints, weights } = meshFromGeometry(mesh);
  mesh.skeleton.update();
  const S = bindSpaceSkinningMatrices(mesh);
  const p = new Vector3();
  return (i, out) => {
    Mesh.prototype.getVertexPosition.call(mesh, i, p); // morphed, not skinned
    out.set(0, 0, 0);
    for (let k = K * i; k < K * i + K; k++) {
      const o = 16 * joints[k], w = weights[k]; // prettier-ignore
      if (w === 0) continue; // an empty slot's joint may be any index
      out.x += w * (S[o] * p.x + S[o + 4] * p.y + S[o + 8] * p.z + S[o + 12]);
      out.y += w * (S[o + 1] * p.x + S[o + 5] * p.y + S[o + 9] * p.z + S[o + 13]);
      out.z += w * (S[o + 2] * p.x + S[o + 6] * p.y + S[o + 10] * p.z + S[o + 14]);
    }
    return out;
  };
}
