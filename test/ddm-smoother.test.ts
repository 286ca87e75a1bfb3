/**
 * The Direct Delta Mush precomputation's smoothing steps (`smoother.ts`): the WebAssembly SIMD
 * kernel (asm/ldlt.ts) gives bit for bit the JavaScript solve's result, and each step solves its
 * system — S X' = s ∘ X checked by multiplying back with S, independently of the factorisation —
 * on real meshes' smoothing systems (CesiumMan welded, both smoothing operators; the libigl
 * elephant, libigl's operator), for 1, 3, 10 and 80 columns.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readObj } from '../src/io/libigl.js';
import { readDocument } from '../src/io/node-io.js';
import { weldedVertices } from '../src/metrics/weld.js';
import { cotangentLaplacian, smoothingSystem, type SymmetricCsr } from '../src/methods/ddm/laplacian.js';
import { factorLdlt } from '../src/methods/ddm/ldlt.js';
import { createSmoother } from '../src/methods/ddm/smoother.js';
import { instantiateKernelsSync } from '../src/wasm/instance.js';
import { CESIUM_MAN, LIBIGL, rng } from './helpers/data.js';

/** A mesh's smoothing system on its welded vertices, and the welded positions. */
function system(positions: ArrayLike<number>, triangles: ArrayLike<number>, smoothing: 'normalized' | 'libigl') {
  const { vertexOf: rep, first } = weldedVertices(positions);
  const L = cotangentLaplacian(positions, triangles, rep, first.length, smoothing === 'normalized');
  const xyz = Float64Array.from(first.flatMap((i) => [positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]]));
  return { ...smoothingSystem(L, 3, smoothing), xyz };
}

/** S X for row-major X with c columns (S stores both triangles). */
function multiply(S: SymmetricCsr, X: Float64Array, c: number): Float64Array {
  const out = new Float64Array(X.length);
  for (let r = 0; r < S.n; r++)
    for (let p = S.offsets[r]; p < S.offsets[r + 1]; p++)
      for (let q = 0; q < c; q++) out[r * c + q] += S.values[p] * X[S.columns[p] * c + q];
  return out;
}

const cases = [
  { name: 'CesiumMan, normalized', smoothing: 'normalized' as const },
  { name: 'CesiumMan, libigl', smoothing: 'libigl' as const },
  { name: 'elephant, libigl', smoothing: 'libigl' as const, elephant: true },
];

describe('DDM smoothing steps (SIMD kernel and JavaScript)', () => {
  it('the kernel is instantiated synchronously in Node (the comparisons below are not JavaScript against itself)', () => {
    expect(instantiateKernelsSync(1 << 16)?.exports.ldltSmooth).toBeTypeOf('function');
  });

  for (const { name, smoothing, elephant } of cases) {
    it(`${name}: bit-identical, and S X' = s ∘ X at every step`, async () => {
      const mesh = elephant
        ? await readObj(join(LIBIGL, 'elephant.obj'))
        : extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN)[0].mesh;
      const { matrix, scale, xyz } = system(mesh.positions, mesh.triangles, smoothing);
      const factor = factorLdlt(matrix, xyz);
      const simd = createSmoother(factor, scale);
      const js = createSmoother(factor, scale, false);
      const random = rng(7);
      for (const c of [1, 3, 10, 80]) {
        const X = Float64Array.from({ length: matrix.n * c }, () => random() - 0.5);
        const a = simd.smooth(X.slice(), c, 3);
        const b = js.smooth(X.slice(), c, 3);
        expect(Buffer.from(a.buffer).equals(Buffer.from(b.buffer)), `${c} columns`).toBe(true);
        // One step, multiplied back: S X' against s ∘ X.
        const step = simd.smooth(X.slice(), c, 1);
        const back = multiply(matrix, step, c);
        let worst = 0;
        let size = 0;
        for (let k = 0; k < X.length; k++) {
          const target = scale[Math.floor(k / c)] * X[k];
          worst = Math.max(worst, Math.abs(back[k] - target));
          size = Math.max(size, Math.abs(target));
        }
        expect(worst / size, `${c} columns`).toBeLessThan(1e-11);
      }
    });
  }
});
