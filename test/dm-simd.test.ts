/**
 * Delta Mush's WebAssembly SIMD kernel (asm/dm.ts, 32-bit floats) against its JavaScript
 * deformer (64-bit; itself checked against Blender's Corrective Smooth in dm.test.ts): every skin
 * of every shared character, with the defaults and with the other smoothing kind, pinned
 * borders and other iterations and step; a mirrored rig; the errors.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { samplePose } from '../src/core/animation.js';
import { CorskinError } from '../src/core/errors.js';
import { boundingBoxDiagonal, type SkinnedMesh } from '../src/core/mesh.js';
import { skinningMatrices } from '../src/core/pose.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { createDeltaMushDeformer } from '../src/methods/dm/deformer.js';
import type { DeltaMushParameters } from '../src/methods/dm/parameters.js';
import { createSimdDeformer } from '../src/wasm/simd-skinning.js';
import { CESIUM_MAN, SHARED } from './helpers/data.js';
import { simdDifferences } from './helpers/simd-compare.js';
import { KERNELS_RELAXED_WASM_BASE64, KERNELS_WASM_BASE64 } from '../src/wasm/kernels-binary.js';

const FILES = [
  CESIUM_MAN,
  ...['Fox.glb', 'ShibaInu.gltf', 'Soldier.glb', 'Ybot.glb', 'chicken.glb', 'rpm-avatar.glb', 'skeleton.glb'].map((f) =>
    join(SHARED, 'characters', f),
  ),
];

/** Largest SIMD − JavaScript differences (see simdDifferences) for Delta Mush with `parameters`. */
async function compare(mesh: SkinnedMesh, skinning: Float64Array, parameters: DeltaMushParameters) {
  const simd = await createSimdDeformer(mesh, 'dm', parameters as Record<string, unknown>);
  return simdDifferences(mesh, createDeltaMushDeformer(mesh, parameters), simd, skinning);
}

const OTHER: DeltaMushParameters = { smoothing: 'length-weighted', pinBorders: true, iterations: 7, step: 0.3 };

describe('Delta Mush on the SIMD kernels', () => {
  it.each([
    ['the defaults', {}],
    ['length-weighted, pinned borders, 7 iterations, step 0.3', OTHER],
  ] as const)(
    '%s: every skin of every shared character within 1e-5 of the diagonal, normals within 1e-3',
    async (_, parameters) => {
      for (const file of FILES)
        for (const model of extractSkinnedModels(await readDocument(file), file)) {
          const clip = model.animations[0];
          const S = skinningMatrices(model.skeleton, samplePose(model.skeleton, clip, 0.37 * (clip?.duration ?? 0)));
          const e = await compare(model.mesh, S, parameters);
          expect(e.position, `${file} ${model.name}`).toBeLessThan(1e-5); // measured ≤ 6.4e-7
          expect(e.normal, `${file} ${model.name}`).toBeLessThan(1e-3); // measured ≤ 1.5e-4
          expect(e.tangent, `${file} ${model.name}`).toBeLessThan(1e-3);
        }
    },
    360_000,
  );

  it('a mirrored rig (every matrix times diag(−1, 1, 1) in posed space): the same deformation, mirrored, as in JavaScript', async () => {
    const file = join(SHARED, 'characters/Fox.glb');
    const [model] = extractSkinnedModels(await readDocument(file), file);
    const clip = model.animations[0];
    const S = skinningMatrices(model.skeleton, samplePose(model.skeleton, clip, 0.5 * clip.duration));
    const mirrored = S.map((x, k) => (k % 4 === 0 ? -x : x));
    const e = await compare(model.mesh, mirrored, {});
    expect(e.position).toBeLessThan(1e-5);
    expect(e.normal).toBeLessThan(1e-3);
    // and it is the mirror image of the unmirrored pose (x negated)
    const simd = await createSimdDeformer(model.mesh, 'dm');
    simd.deform(S);
    const plain = Float32Array.from(simd.output.positions);
    simd.deform(mirrored);
    let worst = 0;
    for (let k = 0; k < plain.length; k++)
      worst = Math.max(worst, Math.abs(simd.output.positions[k] - (k % 3 === 0 ? -plain[k] : plain[k])));
    expect(worst / boundingBoxDiagonal(plain)).toBeLessThan(1e-5);
  });

  it('an invalid parameter or too few matrices: a CorskinError naming it', async () => {
    const [model] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
    await expect(createSimdDeformer(model.mesh, 'dm', { iterations: -1 })).rejects.toThrow(/iterations/);
    const simd = await createSimdDeformer(model.mesh, 'dm');
    expect(() => simd.deform(new Float64Array(16))).toThrow(CorskinError);
  });
});

describe("Delta Mush's corner kernel, both builds", () => {
  // A triangle two of whose (smoothed) corners coincide: at the third, the two edges are
  // opposite unit vectors, a corner with no frame. The JavaScript deformer gives it no weight;
  // the relaxed build's fused cross product left its normal rounding noise instead of 0, and the
  // kernel turned the corner's zero bisector into NaN.
  it.each([
    ['standard', KERNELS_WASM_BASE64],
    ['relaxed SIMD', KERNELS_RELAXED_WASM_BASE64],
  ])('%s: a corner whose two edges are opposite moves nothing and weighs nothing', (_, base64) => {
    const binary = Uint8Array.from(Buffer.from(base64, 'base64'));
    if (!WebAssembly.validate(binary)) return; // relaxed SIMD: its project runs it (vitest.config.ts)
    const memory = new WebAssembly.Memory({ initial: 2 });
    const kernels = new WebAssembly.Instance(new WebAssembly.Module(binary), { env: { memory } }).exports as {
      dmCorners: (...args: number[]) => void;
    };
    const f32 = new Float32Array(memory.buffer);
    const u32 = new Uint32Array(memory.buffer);
    // Byte offsets above the module's static data: triangles, X, Y, deltas, signs, MOV, TOT.
    const [TRI, X, Y, DEL, SIG, MOV, TOT] = [4096, 4160, 4224, 4288, 4352, 4416, 4480];
    u32.set([0, 1, 2], TRI >> 2);
    const far = [1.3, -0.1, 1.6];
    for (const [v, p] of [[0.2, -0.4, 0.9], far, far].entries()) f32.set([...p, 0], (X >> 2) + 4 * v);
    for (let c = 0; c < 3; c++) f32.set([0.01, 0.02, 0.03, 0], (DEL >> 2) + 4 * c);
    f32.set([1, 1, 1], SIG >> 2);
    kernels.dmCorners(3, 3, TRI, X, Y, DEL, 0, SIG, MOV, TOT, 0);
    for (let v = 0; v < 3; v++) {
      expect(Array.from(f32.subarray((MOV >> 2) + 4 * v, (MOV >> 2) + 4 * v + 3)), `moved at vertex ${v}`).toEqual([
        0, 0, 0,
      ]);
      expect(f32[(TOT >> 2) + v], `weight at vertex ${v}`).toBe(0);
    }
  });
});
