/**
 * The deformers by method name.
 * @module
 */
import { CorskinError } from '../core/errors.js';
import { jointsUsed, type SkinnedMesh } from '../core/mesh.js';
import { deformInto, type DeformTarget, type Deformer, type SkinningMethod } from './contract.js';
import { deformCor } from './cor.js';
import { deformDdm } from '../methods/ddm/deformer.js';
import { deformDqs } from './dqs.js';
import { deformLbs } from './lbs.js';
import { deformLms } from './lms.js';
import { deformSbs } from './sbs.js';

/**
 * Every rig-free deformer under its CLI name; all share the {@link Deformer} signature. (Stretch
 * skinning needs rig data: {@link createStretchDeformer}.)
 */
export const deformers: Readonly<Record<SkinningMethod, Deformer>> = {
  lbs: deformLbs,
  dqs: deformDqs,
  sbs: deformSbs,
  lms: deformLms,
  cor: deformCor,
  ddm: deformDdm,
};

/**
 * Deforms `mesh` with the named method into freshly allocated arrays (positions 3·n; normals and
 * tangents when the mesh has them, posed space, asset units). The skinning matrices are checked
 * first, in one pass over them (not per vertex): a non-finite one would give every vertex it
 * moves a NaN or infinite position; and that there are as many as the mesh's influences name.
 * For per-frame use, call the deformer itself with reused output arrays (no such checks).
 * @param skinning skinning matrices, 4×4 column-major, length 16·J (bind → posed space)
 * @throws CorskinError naming the joint when its skinning matrix holds a NaN or infinite value;
 *   when `skinning` has fewer matrices than the mesh's influences name; for an unknown method; and
 *   as the deformer does (e.g. CoR without centers of rotation)
 */
export function deform(method: SkinningMethod, mesh: SkinnedMesh, skinning: Float64Array): DeformTarget {
  const deformer = deformers[method];
  if (!deformer) throw new CorskinError(`unknown skinning method "${method}" (expected ${Object.keys(deformers).join(', ')})`);
  // x − x is NaN exactly for NaN and ±Infinity: one sum per matrix tells whether it is finite.
  for (let o = 0; o < skinning.length; o += 16) {
    let check = 0;
    for (let k = o; k < o + 16 && k < skinning.length; k++) check += skinning[k] - skinning[k];
    if (check !== 0) {
      let k = o;
      while (Number.isFinite(skinning[k])) k++;
      throw new CorskinError(
        `the skinning matrix of joint ${o / 16} is not finite (entry ${k - o} is ${skinning[k]}); nothing deformed`,
      );
    }
  }
  // The joints the mesh uses (one pass over its influences; the per-frame deformers leave it to
  // the readers, which check the influences against the skeleton once).
  const J = jointsUsed(mesh);
  if (skinning.length < 16 * J)
    throw new CorskinError(`${Math.floor(skinning.length / 16)} skinning matrices for a mesh that uses ${J} joints; nothing deformed`);
  return deformInto(deformer, mesh, skinning);
}
