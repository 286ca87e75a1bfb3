import { describe, expect, it } from 'vitest';
import { samplePose, type AnimationClip } from '../src/core/animation.js';
import { globalMatrices, restPose, rotateJointWorld, skinningMatrices } from '../src/core/pose.js';
import { createSkeleton } from '../src/core/skeleton.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { ARM_GLB, CESIUM_MAN } from './helpers/data.js';

const chain = () => createSkeleton({ parents: [-1, 0, 1], restTranslations: [1, 0, 0, 0, 2, 0, 0, 0, 3] });

describe('forward kinematics', () => {
  it('composes translations down the chain', () => {
    const g = globalMatrices(chain(), restPose(chain()));
    expect([...g.subarray(32 + 12, 32 + 15)]).toEqual([1, 2, 3]);
  });

  it('rotating a joint about a world axis moves its subtree rigidly about the joint', () => {
    const s = chain();
    const pose = restPose(s);
    rotateJointWorld(s, pose, 1, [0, 0, 1], Math.PI / 2);
    const g = globalMatrices(s, pose);
    // joint 1 stays at (1, 2, 0); joint 2 was at (1, 2, 3): on the z axis, unchanged by a z rotation.
    expect(g[16 + 12]).toBeCloseTo(1, 12);
    expect(g[16 + 13]).toBeCloseTo(2, 12);
    expect(g[32 + 14]).toBeCloseTo(3, 12);
    rotateJointWorld(s, pose, 1, [1, 0, 0], Math.PI / 2); // now (0,0,3) offset → (0,−3,0)
    const h = globalMatrices(s, pose);
    expect(h[32 + 12]).toBeCloseTo(1, 12);
    expect(h[32 + 13]).toBeCloseTo(-1, 12);
    expect(h[32 + 14]).toBeCloseTo(0, 12);
  });

  it("skinning matrices of the converted arm's rest pose are the identity", async () => {
    const [model] = extractSkinnedModels(await readDocument(ARM_GLB), ARM_GLB);
    const S = skinningMatrices(model.skeleton, restPose(model.skeleton));
    for (let j = 0; j < S.length / 16; j++) {
      for (let i = 0; i < 16; i++) expect(Math.abs(S[16 * j + i] - (i % 5 === 0 ? 1 : 0))).toBeLessThan(1e-6);
    }
  });

  it("CesiumMan's node rest pose is its bind pose up to one common rigid transform (Z-up → Y-up)", async () => {
    const [model] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
    const S = skinningMatrices(model.skeleton, restPose(model.skeleton));
    for (let j = 1; j < S.length / 16; j++) {
      for (let i = 0; i < 16; i++) expect(Math.abs(S[16 * j + i] - S[i])).toBeLessThan(1e-5);
    }
    // The common transform is a rotation: orthonormal columns, determinant 1.
    const c = [0, 4, 8].map((o) => [S[o], S[o + 1], S[o + 2]]);
    for (let a = 0; a < 3; a++)
      for (let b = 0; b < 3; b++)
        expect(c[a][0] * c[b][0] + c[a][1] * c[b][1] + c[a][2] * c[b][2]).toBeCloseTo(a === b ? 1 : 0, 5);
  });
});

describe('animation sampling', () => {
  const s = createSkeleton({ parents: [-1] });
  const clip = (
    interpolation: 'LINEAR' | 'STEP' | 'CUBICSPLINE',
    values: number[],
    path: 'translation' | 'rotation' = 'translation',
  ): AnimationClip => ({
    name: 'c',
    duration: 2,
    channels: [{ joint: 0, path, interpolation, times: Float32Array.from([0, 2]), values: Float32Array.from(values) }],
  });

  it('LINEAR interpolates translations linearly and clamps outside the keys', () => {
    const c = clip('LINEAR', [0, 0, 0, 4, 2, 0]);
    expect([...samplePose(s, c, 0.5).translations]).toEqual([1, 0.5, 0]);
    expect([...samplePose(s, c, 5).translations]).toEqual([4, 2, 0]);
    expect([...samplePose(s, c, -1).translations]).toEqual([0, 0, 0]);
  });

  it('STEP holds the previous key', () => {
    expect([...samplePose(s, clip('STEP', [0, 0, 0, 4, 2, 0]), 1.99).translations]).toEqual([0, 0, 0]);
  });

  it('LINEAR rotations are slerped (constant angular velocity)', () => {
    const a = Math.PI / 2; // 0 → 90° about z
    const p = samplePose(s, clip('LINEAR', [0, 0, 0, 1, 0, 0, Math.sin(a / 2), Math.cos(a / 2)], 'rotation'), 0.5);
    expect(2 * Math.atan2(p.rotations[2], p.rotations[3])).toBeCloseTo(a / 4, 6);
  });

  it('reads CUBICSPLINE rotations with zero tangents (a flat curve) and plays their keys', async () => {
    // Every rotation channel of CesiumMan as CUBICSPLINE with the same key values and zero
    // tangents: valid glTF (the tangents of a flat curve), played at the keys as the LINEAR file.
    const doc = await readDocument(CESIUM_MAN);
    const [linear] = extractSkinnedModels(doc, CESIUM_MAN);
    for (const sampler of doc
      .getRoot()
      .listAnimations()
      .flatMap((a) => a.listSamplers())) {
      const out = sampler.getOutput()!;
      if (out.getElementSize() !== 4) continue;
      const keys = out.getArray()!;
      const cubic = new Float32Array(3 * keys.length);
      for (let k = 0; k < keys.length / 4; k++) cubic.set(keys.subarray(4 * k, 4 * k + 4), 4 * (3 * k + 1));
      sampler.setInterpolation('CUBICSPLINE').setOutput(doc.createAccessor().setType('VEC4').setArray(cubic));
    }
    const [cubic] = extractSkinnedModels(doc, CESIUM_MAN);
    const clip = linear.animations[0];
    const times = clip.channels.find((c) => c.path === 'rotation')!.times;
    expect(cubic.animations[0].channels.filter((c) => c.interpolation === 'CUBICSPLINE').length).toBeGreaterThan(10);
    for (const t of [times[0], times[7], times[times.length - 1]]) {
      const [a, b] = [samplePose(linear.skeleton, clip, t), samplePose(cubic.skeleton, cubic.animations[0], t)];
      for (let k = 0; k < a.rotations.length; k++) expect(Math.abs(b.rotations[k] - a.rotations[k])).toBeLessThan(1e-6);
    }
  });

  it('CUBICSPLINE follows the Hermite curve: x(t) = t³ from tangents 0 and 3·dt', () => {
    // keys at 0 and 2 with values 0 and 8; x(t) = t³ has x'(0) = 0, x'(2) = 12.
    const values = [0, 0, 0, 0, 0, 0, 0, 0, 0, /* key 1: in-tangent */ 12, 0, 0, 8, 0, 0, 0, 0, 0];
    for (const t of [0.5, 1, 1.5])
      expect(samplePose(s, clip('CUBICSPLINE', values), t).translations[0]).toBeCloseTo(t ** 3, 5);
  });
});
