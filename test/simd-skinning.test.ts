/**
 * The WebAssembly SIMD kernels (32-bit floats) against the JavaScript deformers (64-bit, tested
 * on their own against analytic cases in deformers.test.ts and the candy-wrapper tests), on real
 * animated characters and on synthetic edge cases.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { samplePose } from '../src/core/animation.js';
import { CorskinError } from '../src/core/errors.js';
import { mat4FromTRS } from '../src/core/math.js';
import { boundingBoxDiagonal, type SkinnedMesh } from '../src/core/mesh.js';
import { skinningMatrices } from '../src/core/pose.js';
import { computeCentersOfRotation } from '../src/cor/precompute.js';
import type { DeformTarget } from '../src/deformers/contract.js';
import { commonScale, splitScale, uniformScale } from '../src/deformers/two-phase.js';
import type { SkinningMethod } from '../src/deformers/contract.js';
import { deform } from '../src/deformers/index.js';
import { twistPose, findJoint, bendPose } from '../src/evaluation/standard-poses.js';
import { extractSkinnedModels, type SkinnedModel } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { createSimdDeformer, type SimdSkinningMethod } from '../src/wasm/simd-skinning.js';
import { cylinder } from './helpers/cylinder.js';
import { ARM_GLB, CESIUM_MAN, rng, SHARED } from './helpers/data.js';

/** The kernels of the rig-free deformers (`deform`); Delta Mush's and DDM's have files of their own. */
type KernelMethod = Extract<SimdSkinningMethod, SkinningMethod>;
const METHODS: KernelMethod[] = ['lbs', 'dqs', 'sbs', 'lms', 'cor'];

function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

function target(mesh: SkinnedMesh): DeformTarget {
  const n = mesh.positions.length / 3;
  return {
    positions: new Float32Array(3 * n),
    normals: mesh.normals && new Float32Array(3 * n),
    tangents: mesh.tangents && new Float32Array(4 * n),
  };
}

/** Runs both paths on every frame; returns the largest position error / diag and normal error. */
async function compare(mesh: SkinnedMesh, method: KernelMethod, frames: Float64Array[]) {
  const simd = await createSimdDeformer(mesh, method);
  const out = target(mesh);
  let position = 0, normal = 0, tangent = 0; // prettier-ignore
  for (const S of frames) {
    simd.deform(S, out);
    const ref = deform(method, mesh, S);
    // ÷ the posed mesh's diagonal: on a rig scaled by 0.01 the bind mesh's is 100 times larger.
    position = Math.max(position, maxDiff(out.positions, ref.positions) / boundingBoxDiagonal(ref.positions));
    if (mesh.normals) normal = Math.max(normal, maxDiff(out.normals!, ref.normals!));
    if (mesh.tangents) tangent = Math.max(tangent, maxDiff(out.tangents!, ref.tangents!));
  }
  return { position, normal, tangent };
}

let cesium: SkinnedModel;
let arm: SkinnedModel;
beforeAll(async () => {
  [cesium] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
  cesium.mesh.centersOfRotation = computeCentersOfRotation(cesium.mesh).centers;
  [arm] = extractSkinnedModels(await readDocument(ARM_GLB), ARM_GLB);
  arm.mesh.centersOfRotation = computeCentersOfRotation(arm.mesh).centers;
});

describe('SIMD skinning kernels', () => {
  // Every shared character (scaled armatures, 16 influences, 40 skins, morphs, .gltf), every skin,
  // at a time in its first clip (CoR, which needs its precomputation, on CesiumMan and the arm).
  it.each(['lbs', 'dqs', 'sbs', 'lms'] as const)(
    '%s matches on every skin of every shared character',
    async (method) => {
      const files = [CESIUM_MAN, ...['Fox.glb', 'ShibaInu.gltf', 'Soldier.glb', 'Ybot.glb', 'chicken.glb', 'rpm-avatar.glb', 'skeleton.glb'].map((f) => join(SHARED, 'characters', f))]; // prettier-ignore
      for (const file of files)
        for (const model of extractSkinnedModels(await readDocument(file), file)) {
          const clip = model.animations[0];
          const frame = skinningMatrices(
            model.skeleton,
            samplePose(model.skeleton, clip, 0.37 * (clip?.duration ?? 0)),
          );
          const { position, normal } = await compare(model.mesh, method, [frame]);
          expect(position, `${file} ${model.name}`).toBeLessThan(1e-5);
          expect(normal, `${file} ${model.name}`).toBeLessThan(1e-3);
        }
    },
  );

  it.each(METHODS)('%s matches the JavaScript deformer on CesiumMan’s walk (10 frames)', async (method) => {
    const clip = cesium.animations[0];
    const frames = Array.from({ length: 10 }, (_, f) =>
      skinningMatrices(cesium.skeleton, samplePose(cesium.skeleton, clip, (clip.duration * f) / 10)),
    );
    const e = await compare(cesium.mesh, method, frames);
    expect(e.position).toBeLessThan(1e-5);
    expect(e.normal).toBeLessThan(1e-4);
  });

  it.each(METHODS)('%s matches on the arm twisted 180° and 175° and bent 126°', async (method) => {
    const j = findJoint(arm.skeleton, 'bone2');
    const frames = [
      skinningMatrices(arm.skeleton, twistPose(arm.skeleton, j, Math.PI)),
      skinningMatrices(arm.skeleton, twistPose(arm.skeleton, j, 0.97 * Math.PI)),
      skinningMatrices(arm.skeleton, bendPose(arm.skeleton, j, [0, 0, 1], (126 * Math.PI) / 180)),
    ];
    const e = await compare(arm.mesh, method, frames);
    expect(e.position).toBeLessThan(1e-5);
    expect(e.normal).toBeLessThan(1e-4);
  });

  it.each(METHODS)('%s handles 8 influences, repeated joints, zero weights and tangents', async (method) => {
    const { mesh: base } = cylinder();
    const n = base.positions.length / 3;
    const random = rng(3);
    // Split each weight over two slots of the same joint, in a shuffled order, with empty slots.
    const joints = new Uint32Array(8 * n);
    const weights = new Float32Array(8 * n);
    const tangents = new Float32Array(4 * n);
    for (let i = 0; i < n; i++) {
      const slots = [0, 1, 2, 3, 4, 5, 6, 7].sort(() => random() - 0.5);
      for (let j = 0; j < 2; j++) {
        const w = base.weights[4 * i + j];
        joints[8 * i + slots[2 * j]] = joints[8 * i + slots[2 * j + 1]] = base.joints[4 * i + j];
        weights[8 * i + slots[2 * j]] = 0.25 * w;
        weights[8 * i + slots[2 * j + 1]] = 0.75 * w;
      }
      tangents.set([0, Math.cos(i), Math.sin(i), i % 2 ? 1 : -1], 4 * i);
    }
    const mesh: SkinnedMesh = { ...base, influences: 8, joints, weights, tangents };
    mesh.centersOfRotation = computeCentersOfRotation(mesh).centers;
    // Twists of joint 1 about the bone, and a pair whose quaternions (as extracted from the
    // matrices, w ≥ 0) lie in opposite hemispheres: 128° about +x and about −x, i.e.
    // (±0.899, 0, 0, 0.438), dot −0.62 — the sign fix must act (the short way is 104°).
    const twist = (S: Float64Array, o: number, angle: number) =>
      mat4FromTRS(S, o, [0.1, 0.2, -0.1], 0, [Math.sin(angle / 2), 0, 0, Math.cos(angle / 2)], 0, [1, 1, 1], 0);
    const frames = [0.5, 2, 3].map((a) => {
      const S = new Float64Array(32);
      twist(S, 0, 0);
      twist(S, 16, a);
      return S;
    });
    const opposite = new Float64Array(32);
    twist(opposite, 0, (128 * Math.PI) / 180);
    twist(opposite, 16, (-128 * Math.PI) / 180);
    frames.push(opposite);
    const e = await compare(mesh, method, frames);
    expect(e.position).toBeLessThan(1e-5);
    expect(e.normal).toBeLessThan(1e-4);
    expect(e.tangent).toBeLessThan(1e-4);
  });

  it('exposes the result in its own output views, without a copy, identical to the copied one', async () => {
    const clip = cesium.animations[0];
    const simd = await createSimdDeformer(cesium.mesh, 'cor');
    const views = simd.output;
    const out = target(cesium.mesh);
    simd.deform(skinningMatrices(cesium.skeleton, samplePose(cesium.skeleton, clip, 0.3)), out);
    const S = skinningMatrices(cesium.skeleton, samplePose(cesium.skeleton, clip, 1.1));
    simd.deform(S);
    expect(simd.output).toBe(views);
    expect(Array.from(views.positions)).not.toEqual(Array.from(out.positions));
    simd.deform(S, out);
    expect(Array.from(views.positions)).toEqual(Array.from(out.positions));
    expect(Array.from(views.normals!)).toEqual(Array.from(out.normals!));
  });

  it('takes the two-phase path for the vertices of scaled joints: DQS, SBS, LMS and CoR as in JavaScript', async () => {
    const clip = cesium.animations[0];
    const S = skinningMatrices(cesium.skeleton, samplePose(cesium.skeleton, clip, 0.7));
    // Joint 3 (the torso) scaled non-uniformly in its bind frame: S₃ ← S₃ · diag(1.3, 0.8, 1.1).
    const scale = [1.3, 0.8, 1.1];
    for (let c = 0; c < 3; c++) for (let r = 0; r < 3; r++) S[16 * 3 + 4 * c + r] *= scale[c];
    expect(splitScale(S)).not.toBeNull();
    const { joints, weights, influences: K, positions } = cesium.mesh;
    const onJoint3 = (i: number) => Array.from({ length: K }, (_, k) => K * i + k).some((k) => joints[k] === 3 && weights[k] > 0); // prettier-ignore
    const diag = boundingBoxDiagonal(positions);
    for (const method of ['dqs', 'sbs', 'lms', 'cor'] as const) {
      const simd = await createSimdDeformer(cesium.mesh, method);
      const out = target(cesium.mesh);
      simd.deform(S, out);
      const js = deform(method, cesium.mesh, S).positions;
      // Joint 3's vertices: the two-phase kernels; the others: the kernels (float32).
      let stretched = 0;
      for (let i = 0; i < positions.length / 3; i++) {
        const a = Array.from(out.positions.subarray(3 * i, 3 * i + 3));
        const b = Array.from(js.subarray(3 * i, 3 * i + 3));
        if (onJoint3(i)) stretched++;
        for (let c = 0; c < 3; c++) expect(Math.abs(a[c] - b[c])).toBeLessThan(1e-6 * diag);
      }
      expect(stretched).toBeGreaterThan(100);
    }
  });

  it('a rig scaled by 0.01 with stretches near the 1e-5 tolerance: SIMD takes the path JavaScript takes (LMS, CoR)', async () => {
    const clip = cesium.animations[0];
    const S = skinningMatrices(cesium.skeleton, samplePose(cesium.skeleton, clip, 0.7));
    // Joint 0's stretch diag(s, s(1 − 0.9e-5), s(1 − 0.9e-5)), every other joint s(1 + 0.9e-5)·I:
    // uniform by uniformScale (against joint 0's first entry), not by commonScale's test.
    const J = S.length / 16;
    for (let j = 0; j < J; j++)
      for (let c = 0; c < 3; c++) {
        const f = 0.01 * (j === 0 ? (c === 0 ? 1 : 1 - 0.9e-5) : 1 + 0.9e-5);
        for (let r = 0; r < 3; r++) S[16 * j + 4 * c + r] *= f;
      }
    expect(commonScale(S)).toBe(0);
    expect(uniformScale(splitScale(S)!)).toBeCloseTo(0.01, 6);
    const diag = boundingBoxDiagonal(cesium.mesh.positions); // the joints' translations keep the unscaled size
    for (const method of ['lms', 'cor'] as const) {
      const out = target(cesium.mesh);
      (await createSimdDeformer(cesium.mesh, method)).deform(S, out);
      const js = deform(method, cesium.mesh, S).positions;
      let worst = 0;
      for (let k = 0; k < js.length; k++) worst = Math.max(worst, Math.abs(out.positions[k] - js[k]));
      expect(worst, method).toBeLessThan(1e-6 * diag);
    }
  });

  it('moves single-influence vertices by their joint’s matrix and keeps a rigid motion rigid', async () => {
    const J = cesium.skeleton.parents.length;
    const S = new Float64Array(16 * J);
    for (let j = 0; j < J; j++) mat4FromTRS(S, 16 * j, [0.3, -1.2, 2.5], 0, [0.5, -0.5, 0.5, 0.5], 0, [1, 1, 1], 0);
    const diag = boundingBoxDiagonal(cesium.mesh.positions);
    const P = cesium.mesh.positions;
    for (const method of METHODS) {
      const out = target(cesium.mesh);
      (await createSimdDeformer(cesium.mesh, method)).deform(S, out);
      let err = 0;
      for (let i = 0; i < P.length; i += 3) {
        // Every joint has the same matrix: every vertex moves by it, whatever its weights.
        const x = P[i], y = P[i + 1], z = P[i + 2]; // prettier-ignore
        const e = [
          S[0] * x + S[4] * y + S[8] * z + S[12],
          S[1] * x + S[5] * y + S[9] * z + S[13],
          S[2] * x + S[6] * y + S[10] * z + S[14],
        ];
        err = Math.max(
          err,
          Math.abs(out.positions[i] - e[0]),
          Math.abs(out.positions[i + 1] - e[1]),
          Math.abs(out.positions[i + 2] - e[2]),
        );
      }
      expect(err / diag).toBeLessThan(1e-6);
    }
  });

  it('rejects CoR without centers, too few skinning matrices and unknown methods', async () => {
    const bare: SkinnedMesh = { ...cesium.mesh, centersOfRotation: undefined };
    await expect(createSimdDeformer(bare, 'cor')).rejects.toThrow(/centers of rotation/);
    await expect(createSimdDeformer(bare, 'stretch' as SimdSkinningMethod)).rejects.toThrow(CorskinError);
    const simd = await createSimdDeformer(bare, 'lbs');
    expect(() => simd.deform(new Float64Array(16), target(bare))).toThrow(/skinning matrices/);
  });

  it('takes the skinning matrices as a plain array from JavaScript as it takes a Float64Array; anything else is a clear error', async () => {
    const S = skinningMatrices(cesium.skeleton, samplePose(cesium.skeleton, cesium.animations[0], 0.7));
    for (const method of ['lbs', 'dqs'] as const) {
      const simd = await createSimdDeformer(cesium.mesh, method);
      const typed = target(cesium.mesh);
      const plain = target(cesium.mesh);
      simd.deform(S, typed);
      simd.deform(Array.from(S) as unknown as Float64Array, plain);
      expect(plain.positions).toEqual(typed.positions);
      expect(() => simd.deform('matrices' as unknown as Float64Array, plain)).toThrow(/expected a Float64Array/);
    }
  });
});
