/**
 * Scale and shear: two-phase skinning (Kavan et al. 2008) for non-rigid skinning matrices.
 */
import { describe, expect, it } from 'vitest';
import { restPose, rotateJointWorld, skinningMatrices } from '../src/core/pose.js';
import { computeCentersOfRotation } from '../src/cor/precompute.js';
import { mat3FromQuat } from '../src/core/math.js';
import { commonScale, splitScale, uniformScale } from '../src/deformers/two-phase.js';
import { deform } from '../src/deformers/index.js';
import { cylinder } from './helpers/cylinder.js';

const METHODS = ['dqs', 'sbs', 'lms', 'cor'] as const;

describe('a scaled joint', () => {
  const { mesh, skeleton } = cylinder();
  mesh.centersOfRotation = computeCentersOfRotation(mesh).centers;

  it('splitScale recovers rotation and stretch: R·P = L, R orthonormal, P symmetric', () => {
    const pose = restPose(skeleton);
    pose.scales.set([1.5, 0.8, 1.2], 3);
    rotateJointWorld(skeleton, pose, 1, [1, 1, 0], 0.7);
    const S = skinningMatrices(skeleton, pose);
    const split = splitScale(S)!;
    expect(split).not.toBeNull();
    const R = new Float64Array(9);
    mat3FromQuat(R, 0, split.rotations, 4);
    const P = split.stretch.subarray(9, 18);
    for (let c = 0; c < 3; c++) {
      for (let r = 0; r < 3; r++) {
        const rp = R[r] * P[3 * c] + R[3 + r] * P[3 * c + 1] + R[6 + r] * P[3 * c + 2];
        expect(rp).toBeCloseTo(S[16 + 4 * c + r], 12);
        expect(P[3 * c + r]).toBeCloseTo(P[3 * r + c], 12);
        expect(R[3 * c] * R[3 * r] + R[3 * c + 1] * R[3 * r + 1] + R[3 * c + 2] * R[3 * r + 2]).toBeCloseTo(
          c === r ? 1 : 0,
          12,
        );
      }
    }
    expect(splitScale(skinningMatrices(skeleton, restPose(skeleton)))).toBeNull();
  });

  it('commonScale: 1 when rigid, s for a rig under one uniformly scaled node (as uniformScale of the split), 0 otherwise', () => {
    const pose = restPose(skeleton);
    rotateJointWorld(skeleton, pose, 1, [1, 1, 0], 0.7);
    expect(commonScale(skinningMatrices(skeleton, pose))).toBe(1);
    pose.scales.set([0.01, 0.01, 0.01], 0); // the root: every joint scales by 0.01
    const S = skinningMatrices(skeleton, pose);
    expect(commonScale(S)).toBeCloseTo(0.01, 12);
    expect(commonScale(S)).toBeCloseTo(uniformScale(splitScale(S)!), 12);
    // Mirrored (det < 0), one joint scaled differently, non-uniform scale: no common scale.
    const mirrored = S.map((x, k) => (k % 16 < 3 ? -x : x)); // first column negated: a reflection
    expect(commonScale(mirrored)).toBe(0);
    pose.scales.set([1.5, 1.5, 1.5], 3);
    expect(commonScale(skinningMatrices(skeleton, pose))).toBe(0);
    pose.scales.set([1, 1, 1], 3);
    pose.scales.set([0.01, 0.01, 0.02], 0);
    expect(commonScale(skinningMatrices(skeleton, pose))).toBe(0);
  });

  it.each(METHODS)('%s equals LBS when the joints only scale (no rotation): Σ w (P_j v + t_j)', (method) => {
    const pose = restPose(skeleton);
    pose.scales.set([1.5, 1.5, 1.5], 3);
    const S = skinningMatrices(skeleton, pose);
    const lbs = deform('lbs', mesh, S).positions;
    const out = deform(method, mesh, S).positions;
    for (let i = 0; i < lbs.length; i++) expect(Math.abs(out[i] - lbs[i])).toBeLessThan(1e-5);
  });

  it.each(METHODS)(
    '%s moves single-influence vertices exactly by their scaled matrix and stays continuous',
    (method) => {
      const pose = restPose(skeleton);
      pose.scales.set([1.4, 1.4, 1.4], 3);
      rotateJointWorld(skeleton, pose, 1, [0, 0, 1], Math.PI / 3);
      const S = skinningMatrices(skeleton, pose);
      const out = deform(method, mesh, S).positions;
      const p = mesh.positions;
      let worstEdgeRatio = 0;
      for (let i = 0; i < p.length / 3; i++) {
        if (mesh.weights[4 * i + 1] !== 1) continue;
        for (let r = 0; r < 3; r++) {
          const e = S[16 + r] * p[3 * i] + S[20 + r] * p[3 * i + 1] + S[24 + r] * p[3 * i + 2] + S[28 + r];
          expect(Math.abs(out[3 * i + r] - e)).toBeLessThan(1e-5);
        }
      }
      // No tearing: every edge at most 2× its rest length times the scale.
      for (let t = 0; t < mesh.triangles.length; t += 3) {
        for (let k = 0; k < 3; k++) {
          const a = mesh.triangles[t + k], b = mesh.triangles[t + ((k + 1) % 3)]; // prettier-ignore
          const rest = Math.hypot(p[3 * a] - p[3 * b], p[3 * a + 1] - p[3 * b + 1], p[3 * a + 2] - p[3 * b + 2]);
          const posed = Math.hypot(
            out[3 * a] - out[3 * b],
            out[3 * a + 1] - out[3 * b + 1],
            out[3 * a + 2] - out[3 * b + 2],
          );
          worstEdgeRatio = Math.max(worstEdgeRatio, posed / rest);
        }
      }
      expect(worstEdgeRatio).toBeLessThan(2 * 1.4);
    },
  );
});
