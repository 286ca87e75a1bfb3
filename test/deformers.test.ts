import { beforeAll, describe, expect, it } from 'vitest';
import { mat4FromTRS, mat4Multiply } from '../src/core/math.js';
import type { SkinnedMesh } from '../src/core/mesh.js';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { restPose, rotateJointWorld, skinningMatrices } from '../src/core/pose.js';
import { computeCentersOfRotation } from '../src/cor/precompute.js';
import { deform } from '../src/deformers/index.js';
import { extractSkinnedModels, type SkinnedModel } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { CESIUM_MAN } from './helpers/data.js';
import { cylinder } from './helpers/cylinder.js';

const METHODS = ['lbs', 'dqs', 'sbs', 'lms', 'cor'] as const;

function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

let cesium: SkinnedModel;
beforeAll(async () => {
  [cesium] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
  cesium.mesh.centersOfRotation = computeCentersOfRotation(cesium.mesh).centers;
});

function animatedSkinning(model: SkinnedModel, t: number): Float64Array {
  // A real frame of CesiumMan's walk, with an extra twist of one joint to make it harder.
  const pose = restPose(model.skeleton);
  for (let j = 0; j < model.skeleton.parents.length; j++)
    rotateJointWorld(model.skeleton, pose, j, [Math.sin(j), 1, Math.cos(j)], 0.3 * t);
  return skinningMatrices(model.skeleton, pose);
}

describe('every deformer', () => {
  it('equals LBS bit for bit when every vertex has a single influence (CesiumMan, rigidified)', () => {
    const m = cesium.mesh;
    const K = m.influences;
    const rigid: SkinnedMesh = { ...m, joints: m.joints.slice(), weights: m.weights.slice() };
    for (let i = 0; i < m.positions.length / 3; i++) {
      let best = K * i;
      for (let k = K * i; k < K * i + K; k++) if (m.weights[k] > m.weights[best]) best = k;
      for (let k = K * i; k < K * i + K; k++) {
        rigid.joints[k] = m.joints[best];
        rigid.weights[k] = k === K * i ? 1 : 0;
      }
    }
    const S = animatedSkinning(cesium, 1);
    const lbs = deform('lbs', rigid, S);
    for (const method of ['dqs', 'sbs', 'lms', 'cor'] as const) {
      const out = deform(method, rigid, S);
      expect(maxDiff(out.positions, lbs.positions)).toBe(0);
      expect(maxDiff(out.normals!, lbs.normals!)).toBe(0);
    }
  });

  it.each(METHODS)('%s reproduces a rigid motion of the whole skeleton exactly (CesiumMan)', (method) => {
    const J = cesium.skeleton.parents.length;
    const G = mat4FromTRS(new Float64Array(16), 0, [0.3, -1.2, 2.5], 0, [0.5, -0.5, 0.5, 0.5], 0, [1, 1, 1], 0);
    const S = new Float64Array(16 * J);
    for (let j = 0; j < J; j++) S.set(G, 16 * j);
    const out = deform(method, cesium.mesh, S);
    const p = cesium.mesh.positions;
    const nrm = cesium.mesh.normals!;
    const diag = boundingBoxDiagonal(p);
    let err = 0;
    let nerr = 0;
    for (let i = 0; i < p.length; i += 3) {
      for (let r = 0; r < 3; r++) {
        const e = G[r] * p[i] + G[4 + r] * p[i + 1] + G[8 + r] * p[i + 2] + G[12 + r];
        err = Math.max(err, Math.abs(out.positions[i + r] - e));
        const en = G[r] * nrm[i] + G[4 + r] * nrm[i + 1] + G[8 + r] * nrm[i + 2];
        nerr = Math.max(nerr, Math.abs(out.normals![i + r] - en));
      }
    }
    expect(err / diag).toBeLessThan(1e-6);
    expect(nerr).toBeLessThan(1e-5);
  });

  // LMS is left out: blending logarithms is not invariant under a change of world frame
  // (log(G·M) ≠ log G + log M), a known property of Alexa's linear combination.
  it.each(METHODS.filter((m) => m !== 'lms'))(
    '%s composes with a rigid motion applied after the pose (CesiumMan)',
    (method) => {
      const S = animatedSkinning(cesium, 1);
      const G = mat4FromTRS(
        new Float64Array(16),
        0,
        [1, 2, 3],
        0,
        [0, Math.sin(0.6), 0, Math.cos(0.6)],
        0,
        [1, 1, 1],
        0,
      );
      const GS = new Float64Array(S.length);
      for (let j = 0; j < S.length / 16; j++) mat4Multiply(GS, 16 * j, G, 0, S, 16 * j);
      const a = deform(method, cesium.mesh, S).positions;
      const b = deform(method, cesium.mesh, GS).positions;
      let err = 0;
      for (let i = 0; i < a.length; i += 3) {
        for (let r = 0; r < 3; r++)
          err = Math.max(err, Math.abs(G[r] * a[i] + G[4 + r] * a[i + 1] + G[8 + r] * a[i + 2] + G[12 + r] - b[i + r]));
      }
      expect(err / boundingBoxDiagonal(a)).toBeLessThan(1e-6);
    },
  );
});

describe('two-bone analytic cases (cylinder, bone 1 bent 90° about z at its joint)', () => {
  const { mesh, skeleton, length } = cylinder();
  const pose = restPose(skeleton);
  rotateJointWorld(skeleton, pose, 1, [0, 0, 1], Math.PI / 2);
  const S = skinningMatrices(skeleton, pose);
  const mid = length / 2;
  const half = (i: number) => Math.abs(mesh.weights[4 * i] - 0.5) < 1e-6;

  it('LBS: a 50/50 vertex goes to the average of the two rigid images', () => {
    const out = deform('lbs', mesh, S).positions;
    let checked = 0;
    for (let i = 0; i < out.length / 3; i++) {
      if (!half(i)) continue;
      const [x, y, z] = [mesh.positions[3 * i], mesh.positions[3 * i + 1], mesh.positions[3 * i + 2]];
      // bone 0: identity; bone 1: rotation by 90° about z around (mid, 0, 0): (x, y) → (mid − y, x − mid)
      expect(out[3 * i]).toBeCloseTo(0.5 * (x + mid - y), 5);
      expect(out[3 * i + 1]).toBeCloseTo(0.5 * (y + x - mid), 5);
      expect(out[3 * i + 2]).toBeCloseTo(z, 5);
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('DQS: a 50/50 vertex rotates by 45° about the joint (Kavan et al. 2008)', () => {
    const out = deform('dqs', mesh, S).positions;
    const c = Math.SQRT1_2;
    for (let i = 0; i < out.length / 3; i++) {
      if (!half(i)) continue;
      const [x, y] = [mesh.positions[3 * i] - mid, mesh.positions[3 * i + 1]];
      expect(out[3 * i]).toBeCloseTo(mid + c * x - c * y, 5);
      expect(out[3 * i + 1]).toBeCloseTo(c * x + c * y, 5);
    }
  });

  it('CoR: rotation by QLERP about the LBS image of the center (Algorithm 1)', () => {
    const cor = new Float32Array(mesh.positions.length);
    for (let i = 0; i < cor.length; i += 3) cor[i] = mesh.positions[i]; // a center on the axis below each vertex
    const out = deform('cor', { ...mesh, centersOfRotation: cor }, S).positions;
    const c = Math.SQRT1_2;
    for (let i = 0; i < out.length / 3; i++) {
      if (!half(i)) continue;
      const [px, py] = [cor[3 * i], 0];
      const lbsC = [0.5 * (px + mid - py), 0.5 * (py + px - mid)];
      const [dx, dy] = [mesh.positions[3 * i] - px, mesh.positions[3 * i + 1] - py];
      expect(out[3 * i]).toBeCloseTo(lbsC[0] + c * dx - c * dy, 5);
      expect(out[3 * i + 1]).toBeCloseTo(lbsC[1] + c * dx + c * dy, 5);
    }
  });

  it('CoR refuses a mesh without centers of rotation', () => {
    expect(() => deform('cor', mesh, S)).toThrow(/centers of rotation/);
  });
});

describe('deform() with too few skinning matrices', () => {
  it('throws naming the counts, for every method (the per-frame deformers leave it to the readers)', async () => {
    const [{ mesh }] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
    mesh.centersOfRotation = mesh.positions.slice();
    let J = 0;
    for (let k = 0; k < mesh.joints.length; k++) if (mesh.weights[k] > 0) J = Math.max(J, mesh.joints[k] + 1);
    const S = new Float64Array(16 * (J - 1));
    for (let o = 0; o < S.length; o += 16) S[o] = S[o + 5] = S[o + 10] = S[o + 15] = 1;
    for (const method of ['lbs', 'dqs', 'sbs', 'lms', 'cor'] as const)
      expect(() => deform(method, mesh, S)).toThrow(`${J - 1} skinning matrices for a mesh that uses ${J} joints`);
  });
});
