/**
 * What the SIMD kernels' tests compare: a method's SIMD deformer against its JavaScript deformer
 * on one pose.
 */
import { boundingBoxDiagonal, type SkinnedMesh } from '../../src/core/mesh.js';
import type { Deformer } from '../../src/deformers/contract.js';
import type { SimdDeformer } from '../../src/wasm/simd-skinning.js';

/**
 * Largest SIMD − JavaScript differences for `skinning`: positions ÷ the posed diagonal, normals,
 * tangents (0 where the mesh lacks them).
 */
export function simdDifferences(mesh: SkinnedMesh, deform: Deformer, simd: SimdDeformer, skinning: Float64Array) {
  const n = mesh.positions.length / 3;
  const ref = {
    positions: new Float32Array(3 * n),
    normals: mesh.normals && new Float32Array(3 * n),
    tangents: mesh.tangents && new Float32Array(4 * n),
  };
  deform(mesh, skinning, ref);
  simd.deform(skinning);
  const out = simd.output;
  const diff = (a?: Float32Array, b?: Float32Array) => {
    let e = 0;
    for (let k = 0; a && b && k < a.length; k++) e = Math.max(e, Math.abs(a[k] - b[k]));
    return e;
  };
  return {
    position: diff(out.positions, ref.positions) / boundingBoxDiagonal(ref.positions),
    normal: diff(out.normals, ref.normals),
    tangent: diff(out.tangents, ref.tangents),
  };
}
