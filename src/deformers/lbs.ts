/**
 * Linear blend skinning (Magnenat-Thalmann et al. 1988; seed 002):
 * `v' = Σ_j w_ij (R_j v + t_j)`, normals by the blended matrix's cofactor (inverse transpose).
 *
 * @module
 */
import type { SkinnedMesh } from '../core/mesh.js';
import { checkDeformArgs, singleInfluence, writeAffine, writeTransformed, type DeformTarget } from './common.js';

/**
 * Deforms `mesh` by linear blend skinning (see {@link Deformer} for the shared contract).
 * @param skinning skinning matrices, 4×4 column-major, length 16·J (bind → posed space)
 * @param out posed positions (3·n), normals (3·n), tangents (4·n)
 * @throws CorskinError when `out` or `skinning` is too small for the mesh
 */
export function deformLbs(mesh: SkinnedMesh, skinning: Float64Array, out: DeformTarget): void {
  checkDeformArgs(mesh, skinning, out);
  const { joints, weights, influences: K } = mesh;
  const n = mesh.positions.length / 3;
  for (let i = 0; i < n; i++) {
    const single = singleInfluence(joints, weights, K, i);
    if (single >= 0) {
      writeAffine(mesh, out, i, skinning, 16 * joints[single]);
      continue;
    }
    let a00 = 0, a10 = 0, a20 = 0, a01 = 0, a11 = 0, a21 = 0, a02 = 0, a12 = 0, a22 = 0, tx = 0, ty = 0, tz = 0;
    for (let k = K * i; k < K * i + K; k++) {
      const w = weights[k];
      if (w === 0) continue;
      const m = 16 * joints[k];
      a00 += w * skinning[m]; a10 += w * skinning[m + 1]; a20 += w * skinning[m + 2];
      a01 += w * skinning[m + 4]; a11 += w * skinning[m + 5]; a21 += w * skinning[m + 6];
      a02 += w * skinning[m + 8]; a12 += w * skinning[m + 9]; a22 += w * skinning[m + 10];
      tx += w * skinning[m + 12]; ty += w * skinning[m + 13]; tz += w * skinning[m + 14];
    }
    writeTransformed(mesh, out, i, a00, a10, a20, a01, a11, a21, a02, a12, a22, tx, ty, tz);
  }
}
