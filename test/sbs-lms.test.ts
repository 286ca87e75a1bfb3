/**
 * Spherical blend skinning and log-matrix skinning against hand-computed two-bone cases, and
 * log-matrix skinning of real characters turned round.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { samplePose } from '../src/core/animation.js';
import { mat4FromTRS } from '../src/core/math.js';
import { boundingBoxDiagonal, type SkinnedMesh } from '../src/core/mesh.js';
import { skinningMatrices } from '../src/core/pose.js';
import { deform } from '../src/deformers/index.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { createSimdDeformer } from '../src/wasm/simd-skinning.js';
import { CESIUM_MAN, SHARED } from './helpers/data.js';

/** One vertex per entry, influenced 50/50 (or as given) by joints 0 and 1. */
function mesh(points: number[][], w1 = 0.5): SkinnedMesh {
  const n = points.length;
  const joints = new Uint32Array(4 * n);
  const weights = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) {
    joints[4 * i + 1] = 1;
    weights[4 * i] = 1 - w1;
    weights[4 * i + 1] = w1;
  }
  return { positions: Float32Array.from(points.flat()), triangles: new Uint32Array(0), influences: 4, joints, weights };
}

const identity = mat4FromTRS(new Float64Array(16), 0, [0, 0, 0], 0, [0, 0, 0, 1], 0, [1, 1, 1], 0);
/** Rotation by `angle` about +z through the point c. */
function rotZAbout(angle: number, c: number[]): Float64Array {
  const [s, co] = [Math.sin(angle), Math.cos(angle)];
  const m = mat4FromTRS(
    new Float64Array(16),
    0,
    [0, 0, 0],
    0,
    [0, 0, Math.sin(angle / 2), Math.cos(angle / 2)],
    0,
    [1, 1, 1],
    0,
  );
  m[12] = c[0] - (co * c[0] - s * c[1]);
  m[13] = c[1] - (s * c[0] + co * c[1]);
  return m;
}
const pair = (a: Float64Array, b: Float64Array) => Float64Array.from([...a, ...b]);

describe('spherical blend skinning (Kavan & Žára 2005)', () => {
  it('rotates a 50/50 vertex by half the angle about the common center of the two bones', () => {
    const c = [1, 0.5, 0];
    const S = pair(identity, rotZAbout(Math.PI / 2, c));
    const pts = [
      [2, 0.5, 0.3],
      [1, -1, 0],
    ];
    const out = deform('sbs', mesh(pts), S).positions;
    const a = Math.PI / 4;
    pts.forEach(([x, y, z], i) => {
      // Hand computation: r = c (both bones fix it), v' = R_45°(v − c) + c.
      const dx = x - c[0], dy = y - c[1]; // prettier-ignore
      expect(out[3 * i]).toBeCloseTo(c[0] + Math.cos(a) * dx - Math.sin(a) * dy, 5);
      expect(out[3 * i + 1]).toBeCloseTo(c[1] + Math.sin(a) * dx + Math.cos(a) * dy, 5);
      expect(out[3 * i + 2]).toBeCloseTo(z, 5);
    });
  });

  it('the center does not depend on the weights (unlike CoR): a 90/10 vertex still rotates about c', () => {
    const c = [0, 0, 0];
    const S = pair(identity, rotZAbout(Math.PI / 2, c));
    const out = deform('sbs', mesh([[1, 0, 0]], 0.1), S).positions;
    // QLERP of 0° and 90° with weights 0.9/0.1: angle 2·atan(0.1·sin45° / (0.9 + 0.1·cos45°)).
    const ang = 2 * Math.atan2(0.1 * Math.sin(Math.PI / 4), 0.9 + 0.1 * Math.cos(Math.PI / 4));
    expect(out[0]).toBeCloseTo(Math.cos(ang), 5);
    expect(out[1]).toBeCloseTo(Math.sin(ang), 5);
  });

  it('is exact for equal transforms (the least squares has no information: r = v)', () => {
    const G = mat4FromTRS(new Float64Array(16), 0, [1, 2, 3], 0, [0, Math.sin(0.4), 0, Math.cos(0.4)], 0, [1, 1, 1], 0);
    const out = deform('sbs', mesh([[0.3, -0.2, 0.9]]), pair(G, G)).positions;
    const [x, y, z] = [0.3, -0.2, 0.9];
    for (let r = 0; r < 3; r++) expect(out[r]).toBeCloseTo(G[r] * x + G[4 + r] * y + G[8 + r] * z + G[12 + r], 6);
  });
});

describe('log-matrix skinning (Alexa 2002)', () => {
  it('blends rotations about a common axis by the weighted angle', () => {
    const out = deform(
      'lms',
      mesh([[1, 0, 0]], 0.25),
      pair(identity, rotZAbout((2 * Math.PI) / 3, [0, 0, 0])),
    ).positions;
    expect(out[0]).toBeCloseTo(Math.cos(Math.PI / 6), 6);
    expect(out[1]).toBeCloseTo(Math.sin(Math.PI / 6), 6);
  });

  it('blends a screw motion along the helix: half the rotation and half the axial slide', () => {
    const screw = rotZAbout(Math.PI / 2, [0, 0, 0]);
    screw[14] = 2; // then slide 2 along the axis
    const out = deform('lms', mesh([[1, 0, 0]]), pair(identity, screw)).positions;
    expect(out[0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(out[1]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(out[2]).toBeCloseTo(1, 6);
  });

  it('blends a rotation about an off-origin point: the arc about that point', () => {
    const c = [2, 1, 0];
    const out = deform('lms', mesh([[3, 1, 0]]), pair(identity, rotZAbout(Math.PI / 2, c))).positions;
    expect(out[0]).toBeCloseTo(c[0] + Math.SQRT1_2, 6);
    expect(out[1]).toBeCloseTo(c[1] + Math.SQRT1_2, 6);
  });

  it('wraps past 180°: a 240° rotation is blended as −120° (the principal logarithm)', () => {
    const out = deform('lms', mesh([[1, 0, 0]]), pair(identity, rotZAbout((4 * Math.PI) / 3, [0, 0, 0]))).positions;
    expect(out[0]).toBeCloseTo(Math.cos(-Math.PI / 3), 6);
    expect(out[1]).toBeCloseTo(Math.sin(-Math.PI / 3), 6);
  });

  // Each influence's logarithm on its pivot's side of π: 175° and 185° (−175° principal) about z
  // blend 50/50 to 180°, where the principal logarithms would blend to no turn at all. In
  // JavaScript and on the SIMD kernels, rigid and (a stretch along z, the two-phase path) not.
  it.each([
    ['rigid', 1],
    ['stretched along z', 2],
  ])('blends rotations on either side of 180° across it, not back through 0° (%s)', async (_, stretch) => {
    const rot = (deg: number) => {
      const m = rotZAbout((deg * Math.PI) / 180, [0, 0, 0]);
      for (let r = 0; r < 3; r++) m[8 + r] *= stretch;
      return m;
    };
    const m = mesh([
      [1, 0, 0],
      [0, 2, 0],
    ]);
    const S = pair(rot(175), rot(185));
    const simd = await createSimdDeformer(m, 'lms');
    const fromSimd = { positions: new Float32Array(6) };
    simd.deform(S, fromSimd);
    for (const out of [deform('lms', m, S).positions, fromSimd.positions]) {
      for (const [i, x, y] of [
        [0, -1, 0],
        [1, 0, -2],
      ]) {
        expect(out[3 * i]).toBeCloseTo(x, 5);
        expect(out[3 * i + 1]).toBeCloseTo(y, 5);
        expect(out[3 * i + 2]).toBeCloseTo(0, 5);
      }
    }
  });

  // A character turned round about its up axis: every skinning rotation near 180°. The blend of
  // logarithms is not invariant under a turn (the measure at 90°, where nothing wraps, is
  // 2e-4 to 1.3e-2 of the diagonal), but wrapping broke the Soldier, CesiumMan and the Fox apart
  // at 170°–190° (0.11 to 0.59 of the diagonal off the turned pose).
  it('keeps a character turned round about its up axis in one piece (CesiumMan, the Fox, the Soldier)', async () => {
    for (const file of [CESIUM_MAN, join(SHARED, 'characters/Fox.glb'), join(SHARED, 'characters/Soldier.glb')]) {
      const [model] = extractSkinnedModels(await readDocument(file), file);
      const S = skinningMatrices(model.skeleton, samplePose(model.skeleton, model.animations[0], 0.5));
      const base = deform('lms', model.mesh, S).positions;
      const simd = await createSimdDeformer(model.mesh, 'lms');
      const fromSimd = { positions: new Float32Array(base.length) };
      /** Largest distance of the LMS of the turned matrices from the turned LMS, ÷ the diagonal. */
      const offTurned = (deg: number) => {
        const c = Math.cos((deg * Math.PI) / 180), s = Math.sin((deg * Math.PI) / 180); // prettier-ignore
        const turned = S.map((x, k) => (k % 4 === 0 ? c * x + s * S[k + 2] : k % 4 === 2 ? c * x - s * S[k - 2] : x));
        const out = deform('lms', model.mesh, turned).positions;
        simd.deform(turned, fromSimd);
        let worst = 0, simdOff = 0; // prettier-ignore
        for (let i = 0; i < base.length; i += 3) {
          const [x, y, z] = [c * base[i] + s * base[i + 2], base[i + 1], c * base[i + 2] - s * base[i]];
          worst = Math.max(worst, Math.hypot(out[i] - x, out[i + 1] - y, out[i + 2] - z));
          for (let e = 0; e < 3; e++) simdOff = Math.max(simdOff, Math.abs(fromSimd.positions[i + e] - out[i + e]));
        }
        const diag = boundingBoxDiagonal(out);
        expect(simdOff / diag, `${file} SIMD at ${deg}°`).toBeLessThan(1e-5);
        return worst / diag;
      };
      const quarter = offTurned(90);
      for (const deg of [170, 180, 190]) expect(offTurned(deg), `${file} at ${deg}°`).toBeLessThan(6 * quarter);
    }
  });
});
