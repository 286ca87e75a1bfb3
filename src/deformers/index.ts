/**
 * The deformers by method name.
 * @module
 */
import { CorskinError } from '../core/errors.js';
import type { SkinnedMesh } from '../core/mesh.js';
import type { DeformTarget, Deformer, SkinningMethod } from './contract.js';
import { deformCor } from './cor.js';
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
};

/**
 * Deforms `mesh` with the named method into freshly allocated arrays (positions 3·n; normals and
 * tangents when the mesh has them). For per-frame use, call the deformer itself with reused
 * output arrays.
 * @param skinning skinning matrices, 4×4 column-major, length 16·J
 * @throws CorskinError as the deformer does (e.g. CoR without centers of rotation)
 */
export function deform(method: SkinningMethod, mesh: SkinnedMesh, skinning: Float64Array): DeformTarget {
  const n = mesh.positions.length / 3;
  const out: DeformTarget = { positions: new Float32Array(3 * n) };
  if (mesh.normals) out.normals = new Float32Array(3 * n);
  if (mesh.tangents) out.tangents = new Float32Array(4 * n);
  const deformer = deformers[method];
  if (!deformer) throw new CorskinError(`unknown skinning method "${method}" (expected ${Object.keys(deformers).join(', ')})`);
  deformer(mesh, skinning, out);
  return out;
}
