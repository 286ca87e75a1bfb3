/**
 * Weight-painting brushes on CesiumMan, through an incremental CoR session: weights stay
 * non-negative and normalised; add / subtract / replace move the painted joint's weight the right
 * way at the dab's centre; smooth lowers the weights' roughness over the mesh edges; the mirrored
 * dab paints the mirrored joint on the other side; joint names mirror.
 */
import { describe, expect, it } from 'vitest';
import { createCorSession } from '../src/cor/session.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { brushDab, mirrorJoints } from '../src/weights/brush.js';
import { CESIUM_MAN } from './helpers/data.js';

describe('weight-painting brushes', () => {
  it('names mirror', () => {
    expect(
      Array.from(
        mirrorJoints(['Hips', 'LeftArm', 'RightArm', 'arm_L', 'arm_R', 'L_leg', 'R_leg', 'hand.L', 'hand.R', 'Lid']),
      ),
    ).toEqual([0, 2, 1, 4, 3, 6, 5, 8, 7, 9]);
  });

  it('add, subtract, replace and smooth on CesiumMan keep weights normalised and move them as asked', async () => {
    const [model] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
    const J = model.skeleton.parents.length;
    const s = createCorSession(model.mesh, { jointCount: J });
    const { positions, influences: K, triangles } = s.mesh;
    const n = positions.length / 3;
    const rings: number[][] = Array.from({ length: n }, () => []);
    for (let t = 0; t < triangles.length; t += 3)
      for (let c = 0; c < 3; c++)
        rings[triangles[t + c]].push(triangles[t + ((c + 1) % 3)], triangles[t + ((c + 2) % 3)]);
    const weightOf = (i: number, j: number) => {
      let w = 0;
      for (let k = K * i; k < K * i + K; k++) if (s.mesh.joints[k] === j) w += s.mesh.weights[k];
      return w;
    };
    const elbow = model.skeleton.jointNames.indexOf('Skeleton_arm_joint_L__3_');
    // The vertex most weighted to the left elbow.
    let c = 0;
    for (let i = 0; i < n; i++) if (weightOf(i, elbow) > weightOf(c, elbow)) c = i;
    const centre = Array.from(positions.subarray(3 * c, 3 * c + 3));
    const paint = (mode: 'add' | 'subtract' | 'replace' | 'smooth', strength: number) => {
      const edit = brushDab(
        s.mesh,
        { mode, joint: elbow, centre, radius: 0.08, strength, fallbackJoint: model.skeleton.parents[elbow] },
        J,
        rings,
      );
      expect(edit.vertices.length).toBeGreaterThan(5);
      s.setWeights(edit.vertices, edit.joints, edit.weights);
      for (let i = 0; i < n; i++) {
        let sum = 0;
        for (let k = K * i; k < K * i + K; k++) {
          expect(s.mesh.weights[k]).toBeGreaterThanOrEqual(0);
          sum += s.mesh.weights[k];
        }
        expect(Math.abs(sum - 1)).toBeLessThan(1e-5);
      }
    };
    const w0 = weightOf(c, elbow);
    paint('subtract', 0.3);
    expect(weightOf(c, elbow)).toBeCloseTo(Math.max(0, w0 - 0.3), 5);
    paint('add', 0.5);
    expect(weightOf(c, elbow)).toBeCloseTo(Math.min(1, Math.max(0, w0 - 0.3) + 0.5), 5);
    paint('replace', 0.4);
    expect(weightOf(c, elbow)).toBeCloseTo(0.4, 5);
    // Smoothing lowers the roughness Σ over edges (w_a − w_b)² of the elbow's weights.
    const roughness = () => {
      let r = 0;
      for (let t = 0; t < triangles.length; t += 3)
        for (let e = 0; e < 3; e++)
          r += (weightOf(triangles[t + e], elbow) - weightOf(triangles[t + ((e + 1) % 3)], elbow)) ** 2;
      return r;
    };
    const before = roughness();
    paint('smooth', 1);
    expect(roughness()).toBeLessThan(before);
  });

  it('a mirrored dab paints the mirrored joint on the other side', () => {
    // A symmetric strip of vertices along x in [−1, 1], joints 0 (left, x > 0) and 1 (right) with 50/50 weights.
    const n = 21;
    const mesh = {
      positions: Float32Array.from({ length: 3 * n }, (_, k) =>
        k % 3 === 0 ? -1 + (2 * Math.floor(k / 3)) / (n - 1) : 0,
      ),
      triangles: new Uint32Array(0),
      influences: 2,
      joints: Uint32Array.from({ length: 2 * n }, (_, k) => k % 2),
      weights: new Float32Array(2 * n).fill(0.5),
    };
    const edit = brushDab(
      mesh,
      { mode: 'add', joint: 0, centre: [0.6, 0, 0], radius: 0.3, strength: 0.4, mirror: { axis: 0, joints: [1, 0] } },
      2,
    );
    const w = (x: number, j: number) => {
      const i = Math.round(((x + 1) * (n - 1)) / 2);
      const v = Array.from(edit.vertices).indexOf(i);
      let sum = 0;
      for (let k = 0; k < 2; k++) if (edit.joints[2 * v + k] === j) sum += edit.weights[2 * v + k];
      return sum;
    };
    expect(w(0.6, 0)).toBeCloseTo(0.9, 6);
    expect(w(-0.6, 1)).toBeCloseTo(0.9, 6);
    expect(w(0.7, 0)).toBeCloseTo(w(-0.7, 1), 6);
  });
});
