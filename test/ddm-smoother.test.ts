/**
 * The Direct Delta Mush precomputation's smoothing steps (`smoother.ts`): the WebAssembly SIMD
 * kernel (asm/ldlt.ts) gives bit for bit the JavaScript solve's result, and each step solves its
 * system — S X' = s ∘ X checked by multiplying back with S, independently of the factorisation —
 * on real meshes' smoothing systems (CesiumMan welded, both smoothing operators; the libigl
 * elephant, libigl's operator), for 1, 3, 10 and 80 columns; the minimum degree ordering is the
 * one a plain elimination graph in Sets gives; and a factor made with another system's ordering
 * (κ's, for λ's) is the one made on its own.
 */
import { describe, expect, it, vi } from 'vitest';
import { join } from 'node:path';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readObj } from '../src/io/libigl.js';
import { readDocument } from '../src/io/node-io.js';
import { weldedVertices } from '../src/metrics/weld.js';
import { cotangentLaplacian, smoothingSystem, type SymmetricCsr } from '../src/methods/ddm/laplacian.js';
import { factorLdlt, minimumDegree } from '../src/methods/ddm/ldlt.js';
import { createSmoother, SmootherKernels } from '../src/methods/ddm/smoother.js';
import { instantiateKernelsSync } from '../src/wasm/instance.js';
import { CESIUM_MAN, LIBIGL, rng, SHARED } from './helpers/data.js';
import { subdivideMidpoint } from '../bench/subdivide-mesh.js';

/** A mesh's smoothing system (step s, default 3) on its welded vertices, and the welded positions. */
function system(positions: ArrayLike<number>, triangles: ArrayLike<number>, smoothing: 'normalized' | 'libigl', s = 3) {
  const { vertexOf: rep, first } = weldedVertices(positions);
  const L = cotangentLaplacian(positions, triangles, rep, first.length, smoothing === 'normalized');
  const xyz = Float64Array.from(first.flatMap((i) => [positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]]));
  return { ...smoothingSystem(L, s, smoothing), xyz };
}

/** S X for row-major X with c columns (S stores both triangles). */
function multiply(S: SymmetricCsr, X: Float64Array, c: number): Float64Array {
  const out = new Float64Array(X.length);
  for (let r = 0; r < S.n; r++)
    for (let p = S.offsets[r]; p < S.offsets[r + 1]; p++)
      for (let q = 0; q < c; q++) out[r * c + q] += S.values[p] * X[S.columns[p] * c + q];
  return out;
}

/**
 * The minimum degree ordering written plainly (the reference): the elimination graph in
 * JavaScript Sets, and at each step a scan for the row of least degree, the first among equals.
 */
function minimumDegreeBySets(S: SymmetricCsr, rows: Int32Array): Int32Array {
  const m = rows.length;
  const local = new Map<number, number>();
  rows.forEach((r, a) => local.set(r, a));
  const adjacent = Array.from(rows, (r, a) => {
    const set = new Set<number>();
    for (let p = S.offsets[r]; p < S.offsets[r + 1]; p++) {
      const b = local.get(S.columns[p]);
      if (b !== undefined && b !== a) set.add(b);
    }
    return set;
  });
  const done = new Uint8Array(m);
  const order = new Int32Array(m);
  for (let k = 0; k < m; k++) {
    let a = -1;
    for (let b = 0; b < m; b++) if (!done[b] && (a < 0 || adjacent[b].size < adjacent[a].size)) a = b;
    const neighbours = [...adjacent[a]];
    for (const b of neighbours) adjacent[b].delete(a);
    for (const b of neighbours) for (const c of neighbours) if (b !== c) adjacent[b].add(c);
    done[a] = 1;
    adjacent[a].clear();
    order[k] = rows[a];
  }
  return order;
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

  it('a kernel instance given back and taken by the next smoother gives what a fresh one gives; a released smoother refuses', async () => {
    const mesh = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN)[0].mesh;
    const big = system(mesh.positions, mesh.triangles, 'normalized', 3);
    const small = system(mesh.positions.slice(0, 3 * 400), mesh.triangles.filter((_, k, t) => t[k - (k % 3)] < 400 && t[k - (k % 3) + 1] < 400 && t[k - (k % 3) + 2] < 400), 'normalized', 1); // prettier-ignore
    expect(small.matrix.n).toBeGreaterThan(64); // on the kernel, not the JavaScript path
    const kernels = new SmootherKernels();
    const first = createSmoother(factorLdlt(big.matrix, big.xyz), big.scale, true, kernels);
    const X = Float64Array.from({ length: big.matrix.n * 10 }, (_, k) => Math.sin(k));
    first.smooth(X, 10, 2);
    first.release();
    expect(() => first.smooth(X, 10, 2)).toThrow(/released/);
    const factor = factorLdlt(small.matrix, small.xyz);
    const reused = createSmoother(factor, small.scale, true, kernels); // the first one's grown instance
    const fresh = createSmoother(factor, small.scale);
    const Y = Float64Array.from({ length: small.matrix.n * 3 }, (_, k) => Math.cos(k));
    expect(reused.smooth(Y.slice(), 3, 4)).toEqual(fresh.smooth(Y.slice(), 3, 4));
  });

  it('a system of under 64 rows (a piece such as the Soldier’s buttons) runs on the kernel, bit for bit the JavaScript solve', async () => {
    const mesh = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN)[0].mesh;
    const keep = (k: number, t: Uint32Array) =>
      t[k - (k % 3)] < 40 && t[k - (k % 3) + 1] < 40 && t[k - (k % 3) + 2] < 40;
    const tiny = system(
      mesh.positions.slice(0, 3 * 40),
      mesh.triangles.filter((_, k, t) => keep(k, t)),
      'normalized',
      1,
    );
    expect(tiny.matrix.n).toBeLessThan(64);
    const factor = factorLdlt(tiny.matrix, tiny.xyz);
    const kernels = new SmootherKernels();
    const take = vi.spyOn(kernels, 'take');
    const simd = createSmoother(factor, tiny.scale, true, kernels);
    expect(take).toHaveBeenCalledTimes(1); // on the kernel
    const js = createSmoother(factor, tiny.scale, false);
    const X = Float64Array.from({ length: tiny.matrix.n * 11 }, (_, k) => Math.sin(3 * k));
    const a = simd.smooth(X.slice(), 11, 20);
    const b = js.smooth(X.slice(), 11, 20);
    expect(Buffer.from(a.buffer).equals(Buffer.from(b.buffer))).toBe(true);
    simd.release();
  });

  it('the minimum degree ordering is the plain elimination graph’s, on whole systems and on subsets of rows (CesiumMan, the elephant, the Soldier)', async () => {
    const soldier = join(SHARED, 'characters', 'Soldier.glb');
    const meshes = [
      extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN)[0].mesh,
      await readObj(join(LIBIGL, 'elephant.obj')),
      extractSkinnedModels(await readDocument(soldier), soldier)[0].mesh,
    ];
    const random = rng(3);
    for (const mesh of meshes) {
      const { matrix } = system(mesh.positions, mesh.triangles, 'normalized');
      const all = Int32Array.from({ length: matrix.n }, (_, i) => i);
      const some = all.filter(() => random() < 0.3);
      for (const rows of [all, some]) expect(minimumDegree(matrix, rows)).toEqual(minimumDegreeBySets(matrix, rows));
    }
  });

  it('λ factorised with κ’s ordering is the factor computed on its own, bit for bit (minimum degree: CesiumMan; nested dissection: CesiumMan subdivided twice)', async () => {
    const cesiumMan = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN)[0].mesh;
    for (const mesh of [cesiumMan, subdivideMidpoint(subdivideMidpoint(cesiumMan))]) {
      const kappa = system(mesh.positions, mesh.triangles, 'normalized', 1);
      const lambda = system(mesh.positions, mesh.triangles, 'normalized', 3);
      if (mesh !== cesiumMan) expect(lambda.matrix.n).toBeGreaterThan(10_000); // nested dissection's size
      const own = factorLdlt(lambda.matrix, lambda.xyz);
      const reused = factorLdlt(lambda.matrix, lambda.xyz, false, factorLdlt(kappa.matrix, kappa.xyz).perm);
      for (const key of ['perm', 'Lp', 'Li', 'Lx', 'D'] as const)
        expect(Buffer.from(reused[key].buffer).equals(Buffer.from(own[key].buffer)), key).toBe(true);
      expect(() => factorLdlt(lambda.matrix, lambda.xyz, false, own.perm.subarray(1))).toThrow(/ordering has/);
      const twice = own.perm.slice();
      twice[1] = twice[0];
      expect(() => factorLdlt(lambda.matrix, lambda.xyz, false, twice)).toThrow(/not a permutation/);
    }
  });
});
