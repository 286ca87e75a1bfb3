/**
 * Incremental centers of rotation (a weight-painting session): after random sequences of edits
 * the centers equal a from-scratch precomputation of the final weights; weights stay normalised
 * and non-negative; undo and redo return bit-identical weights and centers.
 */
import { describe, expect, it } from 'vitest';
import { boundingBoxDiagonal, type SkinnedMesh } from '../src/core/mesh.js';
import { CorskinError } from '../src/core/errors.js';
import { createCorSession, type CorSession } from '../src/cor/session.js';
import { computeCentersOfRotation } from '../src/cor/precompute.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { ARM_GLB, CESIUM_MAN, SHARED, rng } from './helpers/data.js';
import { join } from 'node:path';

/** A brush dab: the vertices within `radius` of vertex `centre` get more (or less) of `joint`. */
function dab(s: CorSession, centre: number, radius: number, joint: number, gain: number) {
  const { positions, influences: K } = s.mesh;
  const n = positions.length / 3;
  const vertices: number[] = [],
    joints: number[] = [],
    weights: number[] = [];
  for (let i = 0; i < n; i++) {
    const d = Math.hypot(
      positions[3 * i] - positions[3 * centre],
      positions[3 * i + 1] - positions[3 * centre + 1],
      positions[3 * i + 2] - positions[3 * centre + 2],
    );
    if (d > radius) continue;
    vertices.push(i);
    // The joint goes into the vertex's smallest slot when it is not among its influences.
    let slot = -1,
      smallest = 0;
    for (let k = 0; k < K; k++) {
      if (s.mesh.joints[K * i + k] === joint && s.mesh.weights[K * i + k] > 0) slot = k;
      if (s.mesh.weights[K * i + k] < s.mesh.weights[K * i + smallest]) smallest = k;
    }
    const falloff = 1 - d / radius;
    for (let k = 0; k < K; k++) {
      const isJoint = k === (slot >= 0 ? slot : smallest);
      joints.push(isJoint ? joint : s.mesh.joints[K * i + k]);
      const w = isJoint && slot < 0 ? 0.05 : s.mesh.weights[K * i + k];
      weights.push(isJoint ? w * (1 + gain * falloff) : w);
    }
  }
  return s.setWeights(vertices, joints, weights);
}

const CASES: [string, string][] = [
  ['CesiumMan', CESIUM_MAN],
  ['the libigl arm', ARM_GLB],
  ['the Fox', join(SHARED, 'characters/Fox.glb')],
];

describe.each(CASES)('a CoR painting session on %s', (_name, file) => {
  it('ends every random sequence of edits with the centers of a from-scratch precomputation; undo and redo are exact', async () => {
    const [model] = extractSkinnedModels(await readDocument(file), file);
    const mesh: SkinnedMesh = model.mesh;
    const J = model.skeleton.parents.length;
    const session = createCorSession(mesh, { jointCount: J });
    const n = mesh.positions.length / 3;
    const diag = boundingBoxDiagonal(mesh.positions);
    const random = rng(file.length);
    const snapshots: { weights: Float32Array; joints: Uint32Array; centers: Float32Array }[] = [];
    for (let e = 0; e < 4; e++) {
      snapshots.push({
        weights: session.mesh.weights.slice(),
        joints: session.mesh.joints.slice(),
        centers: session.centers.slice(),
      });
      const u = dab(
        session,
        Math.floor(random() * n),
        (0.03 + 0.05 * random()) * diag,
        Math.floor(random() * J),
        random() < 0.5 ? 2 : -0.7,
      );
      expect(u.recomputed.length).toBeGreaterThan(0);
    }
    // Normalised, non-negative.
    const K = mesh.influences;
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (let k = 0; k < K; k++) {
        expect(session.mesh.weights[K * i + k]).toBeGreaterThanOrEqual(0);
        sum += session.mesh.weights[K * i + k];
      }
      expect(Math.abs(sum - 1)).toBeLessThan(1e-5);
    }
    const full = computeCentersOfRotation(session.mesh).centers;
    let err = 0;
    for (let i = 0; i < full.length; i++) err = Math.max(err, Math.abs(full[i] - session.centers[i]));
    expect(err).toBeLessThanOrEqual(1e-9 * diag);
    // Undo all, then redo one: bit-identical states.
    for (let e = snapshots.length - 1; e >= 0; e--) {
      session.undo();
      expect(session.mesh.weights).toEqual(snapshots[e].weights);
      expect(session.mesh.joints).toEqual(snapshots[e].joints);
      expect(session.centers).toEqual(snapshots[e].centers);
    }
    expect(session.undo()).toBe(false);
    session.redo();
    expect(session.centers).toEqual(snapshots[1].centers);
  });
});

describe('CoR session input checks', () => {
  it('refuses negative or non-finite weights, a vertex without weight, and joints past the skeleton', async () => {
    const [model] = extractSkinnedModels(await readDocument(ARM_GLB), ARM_GLB);
    const s = createCorSession(model.mesh, { jointCount: 4 });
    const K = model.mesh.influences;
    const slots = (w: number[], j = [0, 1, 2, 3]) => [j.slice(0, K), w.slice(0, K)] as const;
    expect(() => s.setWeights([0], ...slots([1, -0.5, 0, 0]))).toThrow(CorskinError);
    expect(() => s.setWeights([0], ...slots([NaN, 1, 0, 0]))).toThrow(/vertex 0 has weight NaN/);
    expect(() => s.setWeights([0], ...slots([0, 0, 0, 0]))).toThrow(/vertex 0 has no weight/);
    expect(() => s.setWeights([0], ...slots([1, 0, 0, 0], [9, 1, 2, 3]))).toThrow(/names joint 9 of 4/);
    expect(() => s.setWeights([99999], ...slots([1, 0, 0, 0]))).toThrow(/no vertex 99999/);
  });
});
