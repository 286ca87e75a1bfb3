/**
 * Delta Mush on the WebAssembly SIMD kernels (Joe Mancewicz, Matt L. Derksen, Hans Rijpkema and
 * Cyrus A. Wilson, "Delta Mush: smoothing deformations while preserving detail", DigiPro 2014):
 * the memory layout and driver of the `dm*` kernels (asm/dm.ts) — the JavaScript deformer's
 * per-frame steps (`deformer.ts`) in 32-bit floats, one welded vertex per 128-bit register; the
 * rest (welded surface, corner deltas and frames) prepared by the same {@link prepareDeltaMushRest}.
 *
 * @module
 */
import { CorskinError } from '../../core/errors.js';
import { jointsUsed, type SkinnedMesh } from '../../core/mesh.js';
import * as wasm from '../../wasm/instance.js';
import type { SimdDeformer } from '../../wasm/simd-skinning.js';
import { prepareDeltaMushRest } from './deformer.js';
import type { DeltaMushParameters } from './parameters.js';

/**
 * Prepares Delta Mush for `mesh` on the SIMD kernels. Inputs in bind space, outputs in the
 * skinning matrices' posed space, asset units; within about 1e-6 of the bounding-box diagonal of
 * the JavaScript deformer ({@link createDeltaMushDeformer}; float32 instead of float64).
 * @param mesh bind-space mesh (positions 3·n, triangles 3·t); the kernels work on a copy of its arrays
 * @param parameters as {@link createDeltaMushDeformer}'s (iterations, step, smoothing, pinned borders)
 * @throws CorskinError naming the parameter when one is invalid, when the mesh names more than
 *   65,536 joints, or when the runtime has no WebAssembly SIMD
 */
export async function createDeltaMushSimdDeformer(
  mesh: SkinnedMesh,
  parameters: DeltaMushParameters = {},
): Promise<SimdDeformer> {
  const rest = prepareDeltaMushRest(mesh, parameters);
  const { iterations, step, smoothing } = rest.parameters;
  const lengthWeighted = smoothing === 'length-weighted';
  const { representative, vertexOf, triangles, edges, degree } = rest.surface;
  const { positions, joints, weights, influences: K } = mesh;
  const n = positions.length / 3;
  const m = representative.length;
  const corners = triangles.length;
  const E = edges.length / 2;
  const J = Math.max(1, jointsUsed(mesh));
  if (J > 65536) throw new CorskinError(`the SIMD kernels take at most 65,536 joints, the mesh uses ${J}`);
  const turn = Boolean(mesh.normals || mesh.tangents);

  const layout = wasm.kernelLayout();
  const { take } = layout;
  const V = wasm.takeVertexArrays(layout, mesh);
  const { P, N, T, OP, ON, OT } = V;
  const X = take(16 * m);
  const Y = take(16 * m);
  const ER = take(16 * E);
  const ACC = take(16 * m);
  const MOV = take(16 * m);
  const LS = take(4 * m);
  const KF = take(4 * m);
  const SIG = take(4 * m);
  const TOT = take(4 * m);
  const REP = take(4 * m);
  const VOF = take(4 * n);
  const EDG = take(8 * E);
  const TRI = take(4 * corners);
  const DEL = take(16 * corners);
  const RF = turn ? take(48 * corners) : 0;
  const BL = turn ? take(48 * m) : 0;
  const JI = take(2 * K * n);
  const W = take(4 * K * n);
  const M = take(64 * J);
  const SC = take(4 * J);
  const { memory, exports: kernels } = await wasm.instantiateKernels(layout.size);
  const f32 = new Float32Array(memory.buffer);
  const u32 = new Uint32Array(memory.buffer);
  new Uint16Array(memory.buffer).set(joints, JI >> 1);
  f32.set(weights, W >> 2);
  u32.set(representative, REP >> 2);
  u32.set(vertexOf, VOF >> 2);
  u32.set(edges, EDG >> 2);
  u32.set(triangles, TRI >> 2);
  // A pass moves a vertex by KF times its sum of differences (length-weighted: over Σ l as well).
  for (let w = 0; w < m; w++) {
    const share = degree[w] ? rest.weight[w] / degree[w] : 0;
    f32[(KF >> 2) + w] = (lengthWeighted ? 2 : 1) * step * share;
  }
  for (let c = 0; c < corners; c++) {
    f32.set(rest.delta.subarray(3 * c, 3 * c + 3), (DEL >> 2) + 4 * c);
    if (RF)
      for (let a = 0; a < 3; a++)
        f32.set(rest.restFrames.subarray(9 * c + 3 * a, 9 * c + 3 * a + 3), (RF >> 2) + 12 * c + 4 * a);
  }

  return wasm.simdDeformer('dm', mesh, memory, V, { J, owner: 'a mesh', M }, (skinning) => {
    wasm.storeJointScales(f32, SC, skinning, J, true); // σ's per-joint signed det(L_j)^(1/3) (deformer.ts)
    kernels.dmLbs(m, K, REP, P, JI, W, M, SC, X, SIG);
    kernels.dmSmooth(m, E, iterations, lengthWeighted ? 1 : 0, EDG, KF, X, Y, ER, ACC, LS);
    kernels.dmCorners(m, corners, TRI, X, Y, DEL, RF, SIG, MOV, TOT, BL);
    kernels.dmWrite(n, VOF, X, Y, MOV, TOT, BL, SIG, N, T, OP, ON, OT);
  });
}
