/**
 * Spherical blend skinning and log-matrix skinning against hand-computed two-bone cases.
 */
import { describe, expect, it } from 'vitest';
import { mat4FromTRS } from '../src/core/math.js';
import type { SkinnedMesh } from '../src/core/mesh.js';
import { deform } from '../src/deformers/index.js';

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
});
