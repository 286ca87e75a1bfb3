import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  mat4FromTRS,
  mat4Invert,
  mat4InvertBlended,
  mat4Multiply,
  quatClosestRotation,
  quatFromMat4,
  quatPolarRotation,
  quatSlerp,
} from '../src/core/math.js';

const unitQuat = fc
  .tuple(
    fc.double({ min: -1, max: 1, noNaN: true }),
    fc.double({ min: -1, max: 1, noNaN: true }),
    fc.double({ min: -1, max: 1, noNaN: true }),
    fc.double({ min: -1, max: 1, noNaN: true }),
  )
  .filter((q) => Math.hypot(...q) > 0.1)
  .map((q) => {
    const n = Math.hypot(...q) * (q[3] < 0 ? -1 : 1);
    return q.map((x) => x / n);
  });

describe('4×4 and quaternion kernels', () => {
  it('quatFromMat4 inverts mat4FromTRS, with or without positive scale', () => {
    fc.assert(
      fc.property(unitQuat, fc.double({ min: 0.1, max: 10, noNaN: true }), (q, s) => {
        const m = mat4FromTRS(new Float64Array(16), 0, [1, 2, 3], 0, q, 0, [s, 2 * s, 0.5 * s], 0);
        const r = new Float64Array(4);
        quatFromMat4(r, 0, m, 0);
        // q and −q are the same rotation: compare up to sign.
        const dot = r[0] * q[0] + r[1] * q[1] + r[2] * q[2] + r[3] * q[3];
        expect(Math.abs(dot)).toBeCloseTo(1, 9);
        expect(r[3]).toBeGreaterThanOrEqual(0);
      }),
    );
  });

  it('rotation matrices are orthonormal and match the axis-angle formula (Rodrigues)', () => {
    const angle = 1.234;
    const axis = [1, 2, -0.5].map((x) => x / Math.hypot(1, 2, -0.5));
    const q = [...axis.map((x) => x * Math.sin(angle / 2)), Math.cos(angle / 2)];
    const m = mat4FromTRS(new Float64Array(16), 0, [0, 0, 0], 0, q, 0, [1, 1, 1], 0);
    const v = [0.3, -0.7, 2];
    const [kx, ky, kz] = axis;
    const kv = kx * v[0] + ky * v[1] + kz * v[2];
    const kxv = [ky * v[2] - kz * v[1], kz * v[0] - kx * v[2], kx * v[1] - ky * v[0]];
    const expected = v.map(
      (x, i) => x * Math.cos(angle) + kxv[i] * Math.sin(angle) + axis[i] * kv * (1 - Math.cos(angle)),
    );
    for (let r = 0; r < 3; r++) {
      const got = m[r] * v[0] + m[4 + r] * v[1] + m[8 + r] * v[2];
      expect(got).toBeCloseTo(expected[r], 12);
    }
  });

  it("mat4InvertBlended: mat4Invert's inverse of blended skinning matrices (weights summing to s), and of any other", () => {
    const rand = (seed: number) => () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
    const r = rand(7);
    const [a, b] = [new Float64Array(16), new Float64Array(16)];
    for (let trial = 0; trial < 200; trial++) {
      // A blend of two rigid-and-scaled matrices with weights w and v (w + v = s, not always 1).
      const m = new Float64Array(16);
      const [w, v] = [0.2 + Math.abs(r()), trial % 2 ? 1 : 0.5 * Math.abs(r())];
      for (const [weight, k] of [
        [w, 0],
        [v, 1],
      ] as const) {
        const q = [r(), r(), r(), r() + 2];
        const l = Math.hypot(...q);
        const part = mat4FromTRS(new Float64Array(16), 0, [10 * r(), 10 * r(), 10 * r()], 0, q.map((x) => x / l), 0, [1 + k, 1, 0.01 + Math.abs(r())], 0); // prettier-ignore
        for (let i = 0; i < 16; i++) m[i] += weight * part[i];
      }
      expect(mat4InvertBlended(a, m)).toBe(true);
      expect(mat4Invert(b, 0, m, 0)).toBe(true);
      const size = Math.max(...Array.from(b, Math.abs));
      for (let i = 0; i < 16; i++) expect(Math.abs(a[i] - b[i])).toBeLessThan(1e-9 * size);
    }
    // Not of that form (a projective last row): mat4Invert's answer.
    const p = [2, 0, 0, 0.5, 0, 3, 0, 0, 0, 0, 4, 0, 1, 2, 3, 1];
    expect(mat4InvertBlended(a, p)).toBe(mat4Invert(b, 0, p, 0));
    expect(Array.from(a)).toEqual(Array.from(b));
    // A singular linear part, and a zero last entry.
    expect(mat4InvertBlended(a, [1, 2, 3, 0, 2, 4, 6, 0, 0, 1, 0, 0, 5, 5, 5, 1])).toBe(false);
    expect(mat4InvertBlended(a, [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 5, 5, 5, 0])).toBe(false);
  });

  it('mat4Invert gives the inverse and refuses singular matrices', () => {
    const m = mat4FromTRS(
      new Float64Array(16),
      0,
      [1, -2, 3],
      0,
      [0.1, 0.2, 0.3, Math.sqrt(1 - 0.14)],
      0,
      [2, 3, 4],
      0,
    );
    const inv = new Float64Array(16);
    expect(mat4Invert(inv, 0, m, 0)).toBe(true);
    const id = mat4Multiply(new Float64Array(16), 0, m, 0, inv, 0);
    for (let i = 0; i < 16; i++) expect(id[i]).toBeCloseTo(i % 5 === 0 ? 1 : 0, 12);
    expect(mat4Invert(inv, 0, new Float64Array(16), 0)).toBe(false);
    // rank 3 by two equal rows or two equal columns: elimination leaves only rounding as a pivot
    expect(mat4Invert(inv, 0, [1, 1, 3, 0, 2, 2, 3, 0, 0.3, 0.3, 7, 0, 4, 4, 1, 1], 0)).toBe(false);
    expect(mat4Invert(inv, 0, [1, 2, 3, 0, 1, 2, 3, 0, 0.5, 0.1, 7, 0, 1, 1, 1, 1], 0)).toBe(false);
    const twoEqualRows = [
      [
        0.396, 0.396, 0.368, -0.064, 0.845, 0.845, -0.754, 0.026, 0.846, 0.846, 0.288, 0.155, 0.824, 0.824, -0.256,
        -0.329,
      ],
      [
        -0.825, -0.825, -0.003, -0.424, -0.988, -0.988, -0.025, 0.504, -0.359, -0.359, -0.016, 0.34, 0.3, 0.3, 0.658,
        0.659,
      ],
    ];
    for (const m of twoEqualRows) expect(mat4Invert(inv, 0, m, 0)).toBe(false);
    // a joint scaled by 1e-3 far from the origin is not singular
    expect(mat4Invert(inv, 0, [1e-3, 0, 0, 0, 0, 1e-3, 0, 0, 0, 0, 1e-3, 0, 50, 50, 50, 1], 0)).toBe(true);
    expect(inv[0]).toBeCloseTo(1000, 9);
    expect(inv[12]).toBeCloseTo(-50000, 6);
  });

  it('slerp moves at constant angular speed along the shortest arc', () => {
    const a = [0, 0, 0, 1];
    const b = [0, 0, -Math.sin(1), -Math.cos(1)]; // rotation by 2 rad about z, opposite sign
    const out = new Float64Array(4);
    quatSlerp(out, 0, a, 0, b, 0, 0.25);
    expect(2 * Math.atan2(Math.abs(out[2]), out[3])).toBeCloseTo(0.5, 12);
  });
});

describe('quatClosestRotation', () => {
  it('of R·S (S symmetric positive definite) is R, from a cold start and warm-started from a nearby rotation', () => {
    fc.assert(
      fc.property(
        fc.tuple(
          fc.double({ min: -1, max: 1, noNaN: true }),
          fc.double({ min: -1, max: 1, noNaN: true }),
          fc.double({ min: -1, max: 1, noNaN: true }),
        ),
        fc.double({ min: 0.1, max: 3, noNaN: true }),
        fc.tuple(fc.double({ min: 0.5, max: 2, noNaN: true }), fc.double({ min: 0.5, max: 2, noNaN: true })),
        ([ax, ay, az], angle, [s1, s2]) => {
          const l = Math.hypot(ax, ay, az);
          if (l < 1e-3) return;
          const h = angle / 2;
          const q = [(ax / l) * Math.sin(h), (ay / l) * Math.sin(h), (az / l) * Math.sin(h), Math.cos(h)];
          // A = R · diag(s1, s2, 1): the closest rotation is R (polar decomposition).
          const R = mat4FromTRS(new Float64Array(16), 0, [0, 0, 0], 0, q, 0, [1, 1, 1], 0);
          const S = mat4FromTRS(new Float64Array(16), 0, [0, 0, 0], 0, [0, 0, 0, 1], 0, [s1, s2, 1], 0);
          const A = mat4Multiply(new Float64Array(16), 0, R, 0, S, 0);
          const cold = new Float64Array(4);
          quatClosestRotation(cold, 0, A, 0);
          // Warm start: R turned by 0.2 rad about z (last frame's rotation, a little off).
          const warm = Float64Array.from(quatMul(q, [0, 0, Math.sin(0.1), Math.cos(0.1)]));
          quatClosestRotation(warm, 0, A, 0, false, { warmStart: true, tolerance: 1e-9 });
          for (const got of [cold, warm]) {
            const dot = Math.abs(got[0] * q[0] + got[1] * q[1] + got[2] * q[2] + got[3] * q[3]);
            expect(dot).toBeGreaterThan(1 - 1e-9);
          }
        },
      ),
      { seed: 7, numRuns: 200 },
    );
  });
});

describe('quatPolarRotation (scaled Newton)', () => {
  it('of R·Q·diag(s)·Qᵀ (any symmetric positive definite stretch, down to nearly singular) is R; det ≤ 0 is refused, leaving the output as it was', () => {
    fc.assert(
      fc.property(
        unitQuat,
        unitQuat,
        fc.tuple(
          fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
          fc.double({ min: 1e-3, max: 1e3, noNaN: true }),
          fc.double({ min: 1e-4, max: 1e3, noNaN: true }),
        ),
        (q, p, s) => {
          const R = mat4FromTRS(new Float64Array(16), 0, [0, 0, 0], 0, q, 0, [1, 1, 1], 0);
          const Q = mat4FromTRS(new Float64Array(16), 0, [0, 0, 0], 0, p, 0, [1, 1, 1], 0);
          const D = mat4FromTRS(new Float64Array(16), 0, [0, 0, 0], 0, [0, 0, 0, 1], 0, s, 0);
          const Qt = new Float64Array(16);
          for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) Qt[4 * c + r] = Q[4 * r + c];
          const P = mat4Multiply(new Float64Array(16), 0, mat4Multiply(new Float64Array(16), 0, Q, 0, D, 0), 0, Qt, 0);
          const A = mat4Multiply(new Float64Array(16), 0, R, 0, P, 0);
          const got = new Float64Array(4);
          expect(quatPolarRotation(got, 0, A, 0)).toBe(true);
          expect(got[3]).toBeGreaterThanOrEqual(0);
          const dot = Math.abs(got[0] * q[0] + got[1] * q[1] + got[2] * q[2] + got[3] * q[3]);
          expect(dot).toBeGreaterThan(1 - 1e-12);
          // A reflection (det < 0) and a singular matrix are left to quatClosestRotation.
          const mirrored = A.slice();
          for (let r = 0; r < 3; r++) mirrored[r] = -mirrored[r];
          const untouched = Float64Array.of(9, 9, 9, 9);
          expect(quatPolarRotation(untouched, 0, mirrored, 0)).toBe(false);
          expect(quatPolarRotation(untouched, 0, new Float64Array(16), 0)).toBe(false);
          expect(Array.from(untouched)).toEqual([9, 9, 9, 9]);
        },
      ),
      { seed: 11, numRuns: 300 },
    );
  });
});

function quatMul(a: number[], b: number[]): number[] {
  return [
    a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
    a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
  ];
}
