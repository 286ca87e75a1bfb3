/**
 * Stretch skinning's WebAssembly SIMD kernel (asm/stretch.ts, 32-bit floats) against its
 * JavaScript deformer (64-bit; tested on its own in stretch.test.ts): every skin of every shared
 * character with and without twist compensation, the libigl arm twisted where the compensation
 * acts, and the errors.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { samplePose } from '../src/core/animation.js';
import { CorskinError } from '../src/core/errors.js';
import { boundingBoxDiagonal, type SkinnedMesh } from '../src/core/mesh.js';
import { skinningMatrices } from '../src/core/pose.js';
import { deform } from '../src/deformers/index.js';
import { createStretchDeformer, stretchRigFromSkeleton, type StretchRig } from '../src/deformers/stretch.js';
import { findJoint, twistPose } from '../src/evaluation/standard-poses.js';
import { stressPose } from '../src/evaluation/stress-pose.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { quantize } from '@gltf-transform/functions';
import { createSimdDeformer } from '../src/wasm/simd-skinning.js';
import { ARM_GLB, CESIUM_MAN, SHARED } from './helpers/data.js';

const FILES = [
  CESIUM_MAN,
  ...['Fox.glb', 'ShibaInu.gltf', 'Soldier.glb', 'Ybot.glb', 'chicken.glb', 'rpm-avatar.glb', 'skeleton.glb'].map((f) =>
    join(SHARED, 'characters', f),
  ),
];

/** Largest SIMD − JavaScript differences (positions ÷ the posed diagonal, normals, tangents) and the JavaScript positions. */
async function compare(mesh: SkinnedMesh, rig: StretchRig, skinning: Float64Array, twistCompensation: boolean) {
  const n = mesh.positions.length / 3;
  const ref = {
    positions: new Float32Array(3 * n),
    normals: mesh.normals && new Float32Array(3 * n),
    tangents: mesh.tangents && new Float32Array(4 * n),
  };
  createStretchDeformer(rig, { twistCompensation })(mesh, skinning, ref);
  const simd = await createSimdDeformer(mesh, 'stretch', { rig, twistCompensation });
  simd.deform(skinning);
  const diff = (a?: Float32Array, b?: Float32Array) => {
    let e = 0;
    for (let k = 0; a && b && k < a.length; k++) e = Math.max(e, Math.abs(a[k] - b[k]));
    return e;
  };
  const out = simd.output;
  return {
    position: diff(out.positions, ref.positions) / boundingBoxDiagonal(ref.positions),
    normal: diff(out.normals, ref.normals),
    tangent: diff(out.tangents, ref.tangents),
    ref: ref.positions,
  };
}

describe('stretch skinning on the SIMD kernels', () => {
  it.each([true, false])(
    'twist compensation %s: every skin of every shared character within 1e-5 of the diagonal',
    async (twist) => {
      for (const file of FILES)
        for (const model of extractSkinnedModels(await readDocument(file), file)) {
          const clip = model.animations[0];
          const S = skinningMatrices(model.skeleton, samplePose(model.skeleton, clip, 0.37 * (clip?.duration ?? 0)));
          const e = await compare(model.mesh, stretchRigFromSkeleton(model.skeleton), S, twist);
          expect(e.position, `${file} ${model.name}`).toBeLessThan(1e-5); // measured ≤ 1.3e-6
          expect(e.normal, `${file} ${model.name}`).toBeLessThan(1e-4);
          expect(e.tangent, `${file} ${model.name}`).toBeLessThan(1e-4);
        }
    },
    360_000,
  );

  it('the libigl arm twisted 150° about its forearm: the compensation acts, and the kernel follows it', async () => {
    const [arm] = extractSkinnedModels(await readDocument(ARM_GLB), ARM_GLB);
    const S = skinningMatrices(
      arm.skeleton,
      twistPose(arm.skeleton, findJoint(arm.skeleton, 'bone2'), (150 * Math.PI) / 180),
    );
    const e = await compare(arm.mesh, stretchRigFromSkeleton(arm.skeleton), S, true);
    expect(e.position).toBeLessThan(1e-5);
    expect(e.normal).toBeLessThan(1e-4);
    // not LBS: the twist is spread over the influences
    const lbs = deform('lbs', arm.mesh, S).positions;
    let apart = 0;
    for (let k = 0; k < lbs.length; k++) apart = Math.max(apart, Math.abs(lbs[k] - e.ref[k]));
    expect(apart / boundingBoxDiagonal(lbs)).toBeGreaterThan(1e-2);
  });

  it('no rig, a joint the rig lacks, too few matrices: a CorskinError', async () => {
    const [model] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
    const rig = stretchRigFromSkeleton(model.skeleton);
    await expect(createSimdDeformer(model.mesh, 'stretch')).rejects.toThrow(/needs its rig/);
    const small: StretchRig = { ...rig, jointPositions: rig.jointPositions.subarray(0, 6), boneAxes: rig.boneAxes.subarray(0, 6), stretchJoints: new Int32Array(0) }; // prettier-ignore
    await expect(createSimdDeformer(model.mesh, 'stretch', { rig: small })).rejects.toThrow(/the stretch rig has 2/);
    const simd = await createSimdDeformer(model.mesh, 'stretch', { rig });
    expect(() => simd.deform(new Float64Array(16))).toThrow(CorskinError);
  });
});

describe('stretch skinning whatever the order of a vertex’s influence slots', () => {
  // Files store a vertex's influences in any order (glTF-Transform's quantize() sorts them by
  // weight): the collapse compensations around a vertex's stretch joints follow the rig's order,
  // and the twists' reference is the influence nearest a root. CesiumMan with 8-bit weights moved
  // 3.8e-2 of the diagonal at the stress pose before (a new user's check).
  it.each([CESIUM_MAN, join(SHARED, 'characters', 'Soldier.glb'), join(SHARED, 'characters', 'chicken.glb')])(
    '%s at the stress pose: the slots reversed give the same result (JavaScript and SIMD)',
    async (file) => {
      const [model] = extractSkinnedModels(await readDocument(file), file);
      const { mesh, skeleton } = model;
      const K = mesh.influences;
      const reversed = { ...mesh, joints: mesh.joints.slice(), weights: mesh.weights.slice() };
      for (let o = 0; o < mesh.joints.length; o += K)
        for (let k = 0; k < K; k++) {
          reversed.joints[o + k] = mesh.joints[o + K - 1 - k];
          reversed.weights[o + k] = mesh.weights[o + K - 1 - k];
        }
      const rig = stretchRigFromSkeleton(skeleton);
      const S = skinningMatrices(skeleton, stressPose(skeleton, 1));
      const n = mesh.positions.length / 3;
      const js = (m: SkinnedMesh) => {
        const out = { positions: new Float32Array(3 * n) };
        createStretchDeformer(rig)(m, S, out);
        return out.positions;
      };
      const simd = async (m: SkinnedMesh) => {
        const d = await createSimdDeformer(m, 'stretch', { rig });
        d.deform(S);
        return d.output.positions.slice(0, 3 * n);
      };
      const [a, b, c, d] = [js(mesh), js(reversed), await simd(mesh), await simd(reversed)];
      const diag = boundingBoxDiagonal(a);
      let [worstJs, worstSimd] = [0, 0];
      for (let k = 0; k < 3 * n; k++) {
        worstJs = Math.max(worstJs, Math.abs(a[k] - b[k]) / diag);
        worstSimd = Math.max(worstSimd, Math.abs(c[k] - d[k]) / diag);
      }
      expect(worstJs).toBeLessThan(1e-6);
      expect(worstSimd).toBeLessThan(1e-5);
    },
  );
});

describe('stretch skinning of a copy with 8-bit weights', () => {
  // glTF-Transform's quantize() rounds weights to 8 bits (and sorts the slots): a tie between a
  // vertex's two heaviest weights, or a weight of 0.001 rounded to 0, once changed the twists'
  // reference (the heaviest influence) and the result jumped, up to 5e-2 of the diagonal on the
  // Soldier at the stress pose (a new user's check). The reference is now the blend of the
  // influences' rotations: stretch skinning moves about as LBS does, by the rounding.
  it.each([CESIUM_MAN, join(SHARED, 'characters', 'Soldier.glb'), join(SHARED, 'characters', 'Fox.glb')])(
    '%s at the stress pose: within 3× the distance LBS moves',
    async (file) => {
      /** Every skin posed, concatenated (quantize() may reorder the skins, not their vertices). */
      const posed = async (quantized: boolean) => {
        const doc = await readDocument(file);
        if (quantized) await doc.transform(quantize());
        const [stretch, lbs]: number[][] = [[], []];
        for (const { mesh, skeleton } of extractSkinnedModels(doc, file)) {
          const S = skinningMatrices(skeleton, stressPose(skeleton, 1));
          const out = { positions: new Float32Array(mesh.positions.length) };
          createStretchDeformer(stretchRigFromSkeleton(skeleton))(mesh, S, out);
          stretch.push(...out.positions);
          lbs.push(...deform('lbs', mesh, S).positions);
        }
        return { stretch: Float32Array.from(stretch), lbs: Float32Array.from(lbs) };
      };
      const [a, b] = [await posed(false), await posed(true)];
      expect(b.lbs.length).toBe(a.lbs.length);
      const moved = (x: Float32Array, y: Float32Array) => {
        let worst = 0;
        for (let i = 0; i < x.length; i += 3) worst = Math.max(worst, Math.hypot(x[i] - y[i], x[i + 1] - y[i + 1], x[i + 2] - y[i + 2])); // prettier-ignore
        return worst / boundingBoxDiagonal(x);
      };
      const [stretch, lbs] = [moved(a.stretch, b.stretch), moved(a.lbs, b.lbs)];
      expect(lbs).toBeGreaterThan(1e-5); // the copy is rounded
      expect(stretch).toBeLessThan(3 * lbs);
    },
  );
});
