/**
 * Linear blend skinning (Magnenat-Thalmann et al. 1988):
 * `v' = Σ_j w_ij (R_j v + t_j)`, normals by the blended matrix's cofactor (inverse transpose,
 * up to scale), renormalised; tangents by the blended linear part, renormalised (where the
 * blended map is degenerate enough to lose them — its joints scaled to 0 — the rest ones).
 *
 * @module
 */
import type { SkinnedMesh } from '../core/mesh.js';
import { checkDeformArgs, type DeformTarget } from './contract.js';
import { writeTangent } from './vertex-writers.js';

/**
 * Deforms `mesh` by linear blend skinning (see {@link Deformer} for the shared contract).
 * A vertex whose influences all name one joint moves exactly by that joint's matrix.
 * @param skinning skinning matrices, 4×4 column-major, length 16·J (bind → posed space)
 * @param out posed positions (3·n), normals (3·n), tangents (4·n)
 * @throws CorskinError when `out` is too small for the mesh or `skinning` is not 16 numbers per
 *   joint (fewer matrices than the influences name is checked by `deform`, not per frame)
 */
export function deformLbs(mesh: SkinnedMesh, skinning: Float64Array, out: DeformTarget): void {
  checkDeformArgs(mesh, skinning, out);
  const S = skinning;
  const { positions: P, normals: N, tangents: TI, joints: MJ, weights: MW, influences: K } = mesh;
  const OP = out.positions;
  const ON = N ? out.normals : undefined;
  const OT = TI ? out.tangents : undefined;
  const n = P.length / 3;
  for (let i = 0; i < n; i++) {
    let a00 = 0, a10 = 0, a20 = 0, a01 = 0, a11 = 0, a21 = 0, a02 = 0, a12 = 0, a22 = 0, tx = 0, ty = 0, tz = 0; // prettier-ignore
    let single = -1;
    let several = false;
    for (let k = K * i, end = k + K; k < end; k++) {
      const w = MW[k];
      if (w === 0) continue;
      const j = MJ[k];
      if (single < 0) single = j;
      else if (j !== single) several = true;
      const o = j << 4;
      a00 += w * S[o]; a10 += w * S[o + 1]; a20 += w * S[o + 2]; // prettier-ignore
      a01 += w * S[o + 4]; a11 += w * S[o + 5]; a21 += w * S[o + 6]; // prettier-ignore
      a02 += w * S[o + 8]; a12 += w * S[o + 9]; a22 += w * S[o + 10]; // prettier-ignore
      tx += w * S[o + 12]; ty += w * S[o + 13]; tz += w * S[o + 14]; // prettier-ignore
    }
    if (!several && single >= 0) {
      // One joint: its own matrix, whatever the weight's rounding (exactly rigid).
      const o = single << 4;
      a00 = S[o]; a10 = S[o + 1]; a20 = S[o + 2]; a01 = S[o + 4]; a11 = S[o + 5]; a21 = S[o + 6]; // prettier-ignore
      a02 = S[o + 8]; a12 = S[o + 9]; a22 = S[o + 10]; tx = S[o + 12]; ty = S[o + 13]; tz = S[o + 14]; // prettier-ignore
    }
    const p = 3 * i;
    const x = P[p], y = P[p + 1], z = P[p + 2]; // prettier-ignore
    OP[p] = a00 * x + a01 * y + a02 * z + tx;
    OP[p + 1] = a10 * x + a11 * y + a12 * z + ty;
    OP[p + 2] = a20 * x + a21 * y + a22 * z + tz;
    if (ON) {
      // Cofactor matrix C = det(A)·A⁻ᵀ (columns a1×a2, a2×a0, a0×a1); sign fixed by det(A).
      const nx = N![p], ny = N![p + 1], nz = N![p + 2]; // prettier-ignore
      const c00 = a11 * a22 - a21 * a12, c10 = a21 * a02 - a01 * a22, c20 = a01 * a12 - a11 * a02; // prettier-ignore
      const rx = c00 * nx + (a20 * a12 - a10 * a22) * ny + (a10 * a21 - a20 * a11) * nz;
      const ry = c10 * nx + (a00 * a22 - a20 * a02) * ny + (a20 * a01 - a00 * a21) * nz;
      const rz = c20 * nx + (a10 * a02 - a00 * a12) * ny + (a00 * a11 - a10 * a01) * nz;
      const det = a00 * c00 + a10 * c10 + a20 * c20;
      const len = Math.sqrt(rx * rx + ry * ry + rz * rz);
      const l = (det < 0 ? -1 : 1) / len;
      // A map that loses the normal (joints scaled to 0): the rest normal.
      ON[p] = len > 0 ? rx * l : nx;
      ON[p + 1] = len > 0 ? ry * l : ny;
      ON[p + 2] = len > 0 ? rz * l : nz;
    }
    if (OT) writeTangent(TI!, OT, i, a00, a10, a20, a01, a11, a21, a02, a12, a22);
  }
}
