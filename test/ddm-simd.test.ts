/**
 * Direct Delta Mush on the WebAssembly SIMD kernel (asm/ddm.ts, `methods/ddm/simd.ts`) against
 * the JavaScript deformer (float64): every skin of every shared character at a time of its first
 * clip, the full and compact variants, positions within 1e-5 of the bounding-box diagonal,
 * normals and tangents within 1e-3; a character posed far from the origin (within float32's
 * storage of its positions); a rig mirrored and scaled ×0.01 as a whole (the reflection kept
 * by the polar factor, σ the joints' scale); and joints collapsed to a point (S singular).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { samplePose } from '../src/core/animation.js';
import { boundingBoxDiagonal, type SkinnedMesh } from '../src/core/mesh.js';
import { restPose, skinningMatrices } from '../src/core/pose.js';
import { quatFromAxisAngle, quatMultiply } from '../src/core/math.js';
import { setDdmModel } from '../src/methods/ddm/data.js';
import { deformDdm } from '../src/methods/ddm/deformer.js';
import { computeDirectDeltaMush, type DdmVariant } from '../src/methods/ddm/precompute.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { createSimdDeformer } from '../src/wasm/simd-skinning.js';
import { stressPose } from '../src/evaluation/stress-pose.js';
import { CESIUM_MAN, SHARED } from './helpers/data.js';

const CHARACTERS = [
  CESIUM_MAN,
  ...['Fox.glb', 'ShibaInu.gltf', 'Soldier.glb', 'Ybot.glb', 'chicken.glb', 'rpm-avatar.glb', 'skeleton.glb'].map((f) =>
    join(SHARED, 'characters', f),
  ),
];

const maxDiff = (a: Float32Array, b: Float32Array) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

/** The SIMD deformer's and the JavaScript deformer's results for one pose, and the posed diagonal. */
async function both(mesh: SkinnedMesh, variant: DdmVariant, S: Float64Array) {
  const m = { ...mesh };
  setDdmModel(m, computeDirectDeltaMush(m, { variant }));
  const n = m.positions.length / 3;
  const expected = {
    positions: new Float32Array(3 * n),
    normals: m.normals && new Float32Array(3 * n),
    tangents: m.tangents && new Float32Array(4 * n),
  };
  deformDdm(m, S, expected);
  const simd = await createSimdDeformer(m, 'ddm');
  simd.deform(S);
  return { expected, got: simd.output, diagonal: boundingBoxDiagonal(expected.positions) };
}

describe('Direct Delta Mush, SIMD kernel = JavaScript deformer', () => {
  it.each(CHARACTERS.map((f, k) => [f.split('/').pop()!, k % 2 ? 'compact' : 'full', f] as const))(
    '%s, every skin (%s, then alternate variants), within 1e-5 of the diagonal',
    async (_, first, file) => {
      const models = extractSkinnedModels(await readDocument(file), file);
      for (const [k, model] of models.entries()) {
        const clip = model.animations[0];
        const pose = samplePose(model.skeleton, clip, 0.4 * clip.duration);
        const variant: DdmVariant = k % 2 ? (first === 'full' ? 'compact' : 'full') : first;
        const { expected, got, diagonal } = await both(model.mesh, variant, skinningMatrices(model.skeleton, pose));
        expect(maxDiff(got.positions, expected.positions) / diagonal, `${model.name} ${variant}`).toBeLessThan(1e-5);
        if (expected.normals) expect(maxDiff(got.normals!, expected.normals)).toBeLessThan(1e-3);
        if (expected.tangents) expect(maxDiff(got.tangents!, expected.tangents)).toBeLessThan(1e-3);
      }
    },
    360_000,
  );

  it('the last, partial group of blended vertices: 1 to 8 lanes filled, each as the JavaScript deformer', async () => {
    // The kernel solves the polar factors of blended vertices (two or more entries) eight at a
    // time; the mesh cut after its 9th to 16th blended vertex leaves 1 to 8 of them in the last group.
    const [model] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
    const full = computeDirectDeltaMush(model.mesh);
    const S = skinningMatrices(model.skeleton, stressPose(model.skeleton));
    const blended: number[] = [];
    for (let i = 0; i < full.offsets.length - 1 && blended.length < 24; i++)
      if (full.offsets[i + 1] - full.offsets[i] > 1) blended.push(i);
    for (const last of blended.slice(8, 16)) {
      const n = last + 1;
      const cut: SkinnedMesh = {
        positions: model.mesh.positions.slice(0, 3 * n),
        normals: model.mesh.normals?.slice(0, 3 * n),
        triangles: new Uint32Array(0),
        influences: model.mesh.influences,
        joints: model.mesh.joints.slice(0, model.mesh.influences * n),
        weights: model.mesh.weights.slice(0, model.mesh.influences * n),
      };
      setDdmModel(cut, { ...full, offsets: full.offsets.slice(0, n + 1) });
      const expected = { positions: new Float32Array(3 * n), normals: new Float32Array(3 * n) };
      deformDdm(cut, S, expected);
      const simd = await createSimdDeformer(cut, 'ddm');
      simd.deform(S);
      const diagonal = boundingBoxDiagonal(model.mesh.positions);
      expect(maxDiff(simd.output.positions, expected.positions) / diagonal, `${n} vertices`).toBeLessThan(1e-5);
      expect(maxDiff(simd.output.normals!, expected.normals), `${n} vertices`).toBeLessThan(1e-3);
    }
  });

  it('too few skinning matrices: both deformers say how many the model uses', async () => {
    const [model] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
    const mesh = { ...model.mesh };
    setDdmModel(mesh, computeDirectDeltaMush(mesh));
    const J = model.skeleton.jointNames.length;
    const short = skinningMatrices(model.skeleton, samplePose(model.skeleton, model.animations[0], 0)).slice(
      0,
      16 * (J - 1),
    );
    const out = { positions: new Float32Array(mesh.positions.length) };
    expect(() => deformDdm(mesh, short, out)).toThrow(`${J - 1} skinning matrices for a model that uses ${J} joints`);
    const simd = await createSimdDeformer(mesh, 'ddm');
    expect(() => simd.deform(short)).toThrow(`${J - 1} skinning matrices for a model that uses ${J} joints`);
  });

  it.each(['full', 'compact'] as const)(
    'the Fox at the stress pose, 1,000 units from the origin (%s): float32 keeps its digits',
    async (variant) => {
      const file = join(SHARED, 'characters', 'Fox.glb');
      const [model] = extractSkinnedModels(await readDocument(file), file);
      const S = skinningMatrices(model.skeleton, stressPose(model.skeleton));
      for (let j = 0; j < S.length; j += 16) S[j + 12] += 1000; // posed space moved along x
      const { expected, got, diagonal } = await both(model.mesh, variant, S);
      // float32 holds 1,000 to about 6e-5: the bound is storage, as for the LBS kernel.
      const storage = (1000 * 2 ** -23) / diagonal;
      expect(maxDiff(got.positions, expected.positions) / diagonal).toBeLessThan(4 * storage);
      expect(maxDiff(got.normals!, expected.normals!)).toBeLessThan(1e-3);
    },
  );

  it('joints collapsed to a point, then every matrix 0 (S = 0: the kernel leaves Newton for float64)', async () => {
    // Joint k, then joints k and k + 1, then every joint with its 3×3 part zero (S singular or
    // nearly so where they move the neighbourhood), then every matrix zero.
    const [model] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
    const mesh = { ...model.mesh };
    // libigl's reach (λ and κ as given): every vertex's neighbourhood then spans several joints,
    // so that one collapsed joint leaves S of rank 3 (unique normals) everywhere.
    setDdmModel(mesh, computeDirectDeltaMush(mesh, { resolution: 'fixed' }));
    const n = mesh.positions.length / 3;
    const simd = await createSimdDeformer(mesh, 'ddm');
    const J = model.skeleton.jointNames.length;
    const sets = [...Array.from({ length: J }, (_, k) => [k]), ...Array.from({ length: J - 1 }, (_, k) => [k, k + 1])];
    for (const collapsed of [...sets, Array.from({ length: J }, (_, k) => k), 'origin' as const]) {
      const S = skinningMatrices(model.skeleton, samplePose(model.skeleton, model.animations[0], 0.5));
      // 'origin': every matrix 0, S = 0 exactly (Newton's first step divides 0 by 0).
      if (collapsed === 'origin') S.fill(0);
      else for (const k of collapsed) for (const c of [0, 1, 2, 4, 5, 6, 8, 9, 10]) S[16 * k + c] = 0;
      const expected = { positions: new Float32Array(3 * n), normals: new Float32Array(3 * n) };
      deformDdm(mesh, S, expected);
      simd.deform(S);
      const diagonal = boundingBoxDiagonal(mesh.positions);
      const label =
        collapsed === 'origin' ? collapsed : `joints ${collapsed.length > 2 ? 'all' : collapsed.join(', ')}`;
      expect(maxDiff(simd.output.positions, expected.positions) / diagonal, label).toBeLessThan(1e-5);
      // Normals where R is unique (S of rank 3): where S has rank 1 or less, a SᵀS eigenvector
      // basis of its null space is any, and float32 picks another than float64.
      if (collapsed === 'origin' || collapsed.length === 1)
        expect(maxDiff(simd.output.normals!, expected.normals), label).toBeLessThan(1e-3);
    }
  });

  it.each([
    ['skeleton.glb', 'skin 68', 'full', 170],
    ['rpm-avatar.glb', 'Armature', 'compact', 180],
  ] as const)(
    '%s %s (%s), every bone twisted %d° about itself: S near rank 2, the float64 path',
    async (name, skin, variant, degrees) => {
      // S's smallest singular value is 1e-7–1e-8 of its largest at the worst vertices: float32
      // cannot resolve its direction (a float32 eigen-decomposition put them 3.8e-2 of the
      // diagonal off, normals flipped); the kernel takes them in float64 from its float32 inputs.
      const file = join(SHARED, 'characters', name);
      const models = extractSkinnedModels(await readDocument(file), file);
      const model = models.find((m) => m.name === skin)!;
      const { skeleton } = model;
      const pose = restPose(skeleton);
      const q = new Float64Array(4);
      for (let j = 0; j < skeleton.jointNames.length; j++) {
        // About the bone: towards its first child, or y at a leaf.
        const c = Array.from(skeleton.parents).indexOf(j);
        let axis = c >= 0 ? Array.from(skeleton.restTranslations.subarray(3 * c, 3 * c + 3)) : [0, 1, 0];
        if (!(Math.hypot(...axis) > 0)) axis = [0, 1, 0];
        quatFromAxisAngle(q, 0, axis[0], axis[1], axis[2], (degrees * Math.PI) / 180);
        quatMultiply(pose.rotations, 4 * j, pose.rotations, 4 * j, q, 0);
      }
      const { expected, got, diagonal } = await both(model.mesh, variant, skinningMatrices(skeleton, pose));
      expect(maxDiff(got.positions, expected.positions) / diagonal).toBeLessThan(1e-5);
      expect(maxDiff(got.normals!, expected.normals!)).toBeLessThan(1e-3);
    },
    180_000,
  );

  it.each(['full', 'compact'] as const)('CesiumMan under a node mirrored and scaled ×0.01 (%s)', async (variant) => {
    const file = CESIUM_MAN;
    const [model] = extractSkinnedModels(await readDocument(file), file);
    const clip = model.animations[0];
    const S = skinningMatrices(model.skeleton, samplePose(model.skeleton, clip, 0.5));
    // G·M_j for every joint, G = diag(−0.01, 0.01, 0.01): a reflection with a uniform scale.
    for (let j = 0; j < S.length; j += 16) for (const c of [0, 4, 8, 12]) S[j + c] *= -1;
    for (let k = 0; k < S.length; k++) if (k % 4 !== 3) S[k] *= 0.01;
    const { expected, got, diagonal } = await both(model.mesh, variant, S);
    expect(maxDiff(got.positions, expected.positions) / diagonal).toBeLessThan(1e-5);
    expect(maxDiff(got.normals!, expected.normals!)).toBeLessThan(1e-3);
  });
});
