/**
 * Direct Delta Mush (Le & Lewis 2019) on real characters: the rest pose and a rigid motion of
 * the whole skeleton are reproduced exactly, a rigid prop stays rigid, the compact variant
 * agrees with the full one where the joints' moments agree, and bad parameters name themselves.
 */
import { describe, expect, it } from 'vitest';
import { samplePose } from '../src/core/animation.js';
import { CorskinError } from '../src/core/errors.js';
import { boundingBoxDiagonal, type SkinnedMesh } from '../src/core/mesh.js';
import { skinningMatrices } from '../src/core/pose.js';
import { computeDirectDeltaMush } from '../src/methods/ddm/precompute.js';
import { deform } from '../src/deformers/index.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { CESIUM_MAN, SHARED } from './helpers/data.js';
import { join } from 'node:path';
import { ddmModelOf, setDdmModel, withDdmModel } from '../src/methods/ddm/data.js';

async function character(path: string) {
  const [model] = extractSkinnedModels(await readDocument(path), path);
  return model;
}

function worst(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let w = 0;
  for (let i = 0; i < a.length; i += 3)
    w = Math.max(w, Math.hypot(a[i] - b[i], a[i + 1] - b[i + 1], a[i + 2] - b[i + 2]));
  return w;
}

/** x ↦ A x + t for a column-major 4×4 A. */
function apply(A: ArrayLike<number>, o: number, x: ArrayLike<number>, i: number): number[] {
  const [a, b, c] = [x[i], x[i + 1], x[i + 2]];
  return [0, 1, 2].map((r) => A[o + r] * a + A[o + 4 + r] * b + A[o + 8 + r] * c + A[o + 12 + r]);
}

describe('Direct Delta Mush on the shared characters', () => {
  // The bind pose and a rigid motion of the whole skeleton: ddm-bind-pose.test.ts (every shared
  // character and variants, through the file).

  it('a blade attached to the Soldier’s hand (its own piece, one influence) moves rigidly with the hand through the clip', async () => {
    const model = await character(join(SHARED, 'characters/Soldier.glb'));
    const m = model.mesh;
    const n = m.positions.length / 3;
    const hand = model.skeleton.jointNames.findIndex((s) => /righthand$/i.test(s));
    expect(hand).toBeGreaterThanOrEqual(0);
    // A thin box 0.9 m long at the hand's bind position (8 vertices, 12 triangles).
    const ibm = model.skeleton.inverseBindMatrices;
    const at = (() => {
      // the hand's bind position: the inverse of its inverse bind matrix applied to the origin
      const A = ibm.subarray(16 * hand, 16 * hand + 16);
      const t = [A[12], A[13], A[14]];
      return [0, 1, 2].map((r) => -(A[4 * r] * t[0] + A[4 * r + 1] * t[1] + A[4 * r + 2] * t[2]));
    })();
    const box: number[] = [];
    for (let k = 0; k < 8; k++)
      box.push(at[0] + (k & 1 ? 0.9 : 0), at[1] + (k & 2 ? 0.03 : -0.03), at[2] + (k & 4 ? 0.01 : -0.01));
    const faces = [
      0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1, 2, 3, 7, 2, 7, 6, 0, 2, 6, 0, 6, 4, 1, 5, 7, 1, 7, 3,
    ];
    const K = m.influences;
    const mesh: SkinnedMesh = {
      positions: Float32Array.from([...m.positions, ...box]),
      triangles: Uint32Array.from([...m.triangles, ...faces.map((f) => f + n)]),
      influences: K,
      joints: Uint32Array.from([...m.joints, ...Array.from({ length: 8 * K }, (_, k) => (k % K === 0 ? hand : 0))]),
      weights: Float32Array.from([...m.weights, ...Array.from({ length: 8 * K }, (_, k) => (k % K === 0 ? 1 : 0))]),
    };
    setDdmModel(mesh, computeDirectDeltaMush(mesh));
    const diag = boundingBoxDiagonal(mesh.positions);
    const clip = model.animations[0];
    for (const f of [0.25, 0.5, 0.75]) {
      const S = skinningMatrices(model.skeleton, samplePose(model.skeleton, clip, f * clip.duration));
      const out = deform('ddm', mesh, S).positions;
      let e = 0;
      for (let i = n; i < n + 8; i++) {
        const x = apply(S, 16 * hand, mesh.positions, 3 * i);
        e = Math.max(e, Math.hypot(out[3 * i] - x[0], out[3 * i + 1] - x[1], out[3 * i + 2] - x[2]));
      }
      expect(e / diag, `${f}`).toBeLessThan(1e-6);
    }
  });

  it('the compact variant equals the full one where the vertex has one joint, and stays within 2% of the diagonal of it on CesiumMan’s walk', async () => {
    const model = await character(CESIUM_MAN);
    const full: SkinnedMesh = withDdmModel(model.mesh, computeDirectDeltaMush(model.mesh));
    const compact: SkinnedMesh = withDdmModel(model.mesh, computeDirectDeltaMush(model.mesh, { variant: 'compact' }));
    const diag = boundingBoxDiagonal(model.mesh.positions);
    const clip = model.animations[0];
    const S = skinningMatrices(model.skeleton, samplePose(model.skeleton, clip, 0.5 * clip.duration));
    const a = deform('ddm', full, S).positions;
    const b = deform('ddm', compact, S).positions;
    const e = worst(a, b) / diag;
    expect(e).toBeGreaterThan(0); // they are different methods
    expect(e).toBeLessThan(0.02);
    const F = ddmModelOf(full)!;
    for (let i = 0; i + 1 < F.offsets.length; i++) {
      if (F.offsets[i + 1] - F.offsets[i] !== 1) continue;
      expect(Math.hypot(a[3 * i] - b[3 * i], a[3 * i + 1] - b[3 * i + 1], a[3 * i + 2] - b[3 * i + 2])).toBeLessThan(
        1e-6 * diag,
      );
    }
  });

  it('bad parameters are errors naming the parameter', async () => {
    const model = await character(CESIUM_MAN);
    const cases: [object, RegExp][] = [
      [{ kappa: 3, lambda: 3 }, /kappa must be smaller than lambda/],
      [{ kappa: 4 }, /kappa must be smaller than lambda/],
      [{ alpha: 1 }, /alpha must lie in \[0, 1\)/],
      [{ alpha: -0.1 }, /alpha must lie in \[0, 1\)/],
      [{ iterations: 0 }, /iterations p \(--iterations\) must be a whole number from 1 to 1000 \(got 0\)/],
      [{ iterations: 2.5 }, /iterations p \(--iterations\) must be a whole number from 1 to 1000/],
      [{ iterations: 1e7 }, /iterations p \(--iterations\) must be a whole number from 1 to 1000 \(got 10000000\)/],
      [{ lambda: -1 }, /lambda must be a positive number/],
      [{ lambda: 1e308 }, /lambda must be a positive number up to 1000000 \(got 1e\+308\)/],
    ];
    for (const [options, message] of cases) {
      expect(() => computeDirectDeltaMush(model.mesh, options)).toThrow(CorskinError);
      expect(() => computeDirectDeltaMush(model.mesh, options)).toThrow(message);
    }
  });
});
