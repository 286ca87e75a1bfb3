/**
 * The normals in the skinning decomposition (`SsdrProblem.normals`, `src/bake/fit-normals.ts`):
 * a helper whose vertices lie on a line is free to turn about it as far as the positions go, and
 * the normals fix that turn; the bone update's closed form is a minimum of the objective measured
 * point by point; and the weight update's normal equations made from shared products give what
 * summing each vertex's samples gives.
 */
import { describe, expect, it } from 'vitest';
import { verticesErrors, type SsdrModel, type SsdrProblem } from '../src/bake/ssdr.js';
import { updateHelpers } from '../src/bake/ssdr-helpers.js';
import { influenceProducts, rightHandSides } from '../src/bake/ssdr-normal-equations.js';
import { updateVertexWeights } from '../src/bake/ssdr-weights.js';
import { rng } from './helpers/data.js';
import type { SkinnedMesh } from '../src/core/mesh.js';
import type { MethodSamples } from '../src/bake/sampling.js';
import { fitTargetNormals, NORMAL_FIT_LENGTH, NORMAL_FIT_TRUST } from '../src/bake/fit-normals.js';

/** The rotation by `angle` about the unit axis a, with translation t, 4×4 column-major. */
function turn(a: number[], angle: number, t = [0, 0, 0]): Float64Array {
  const [x, y, z] = a;
  const [s, c] = [Math.sin(angle), Math.cos(angle)];
  const C = 1 - c;
  return new Float64Array([
    c + x * x * C, y * x * C + z * s, z * x * C - y * s, 0,
    x * y * C - z * s, c + y * y * C, z * y * C + x * s, 0,
    x * z * C + y * s, y * z * C - x * s, c + z * z * C, 0,
    t[0], t[1], t[2], 1,
  ]); // prettier-ignore
}

/** A random unit vector. */
function unit(random: () => number): number[] {
  const v = [0, 0, 0].map(() => random() - 0.5);
  const l = Math.hypot(...v);
  return v.map((x) => x / l);
}

/** M (4×4 column-major at o) applied to v: a point (w = 1) or, with `linear`, a direction. */
function apply(M: Float64Array, o: number, v: ArrayLike<number>, i: number, linear = false): number[] {
  const h = linear ? 0 : 1;
  return [0, 1, 2].map((r) => M[o + r] * v[i] + M[o + 4 + r] * v[i + 1] + M[o + 8 + r] * v[i + 2] + h * M[o + 12 + r]);
}

/**
 * T samples of n vertices, J fixed joints and H helpers, every vertex on 4 of them, targets (and
 * target normals) made by `truth`'s helpers, noise added to both.
 */
function problem(random: () => number, n: number, T: number, J: number, H: number, noise: number) {
  const rest = Float32Array.from({ length: 3 * n }, () => random() * 2 - 1);
  const restNormals = Float32Array.from(Array.from({ length: n }, () => unit(random)).flat());
  const fixed = Array.from({ length: T }, () => {
    const F = new Float64Array(16 * J);
    for (let j = 0; j < J; j++) F.set(turn(unit(random), random() * 2, [random(), random(), random()]), 16 * j);
    return F;
  });
  const truth = Array.from({ length: T }, () => {
    const X = new Float64Array(16 * H);
    for (let h = 0; h < H; h++) X.set(turn(unit(random), random() * 2, [random(), random(), random()]), 16 * h);
    return X;
  });
  const joints = new Uint32Array(4 * n);
  const weights = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) {
    const w = [0, 1, 2, 3].map(() => 0.05 + random());
    const s = w.reduce((a, b) => a + b, 0);
    joints.set([0, 1, J, J + H - 1], 4 * i);
    weights.set(
      w.map((x) => x / s),
      4 * i,
    );
  }
  const made = (t: number, v: Float32Array, linear: boolean) => {
    const Y = new Float32Array(3 * n);
    for (let i = 0; i < n; i++)
      for (let k = 0; k < 4; k++) {
        const j = joints[4 * i + k];
        const p = j < J ? apply(fixed[t], 16 * j, v, 3 * i, linear) : apply(truth[t], 16 * (j - J), v, 3 * i, linear);
        for (let c = 0; c < 3; c++) Y[3 * i + c] += weights[4 * i + k] * p[c] + noise * (random() - 0.5);
      }
    return Y;
  };
  const p: SsdrProblem = {
    n,
    rest: fixed.map(() => rest),
    targets: fixed.map((_, t) => made(t, rest, false)),
    fixed,
    normals: {
      rest: restNormals,
      targets: fixed.map((_, t) => made(t, restNormals, true)),
      weights: Float32Array.from({ length: n }, () => 0.2 + random()),
    },
  };
  const model: SsdrModel = { helpers: H, transforms: truth.map((X) => X.slice()), influences: 4, joints, weights };
  return { p, model, truth };
}

describe('normals in the skinning decomposition (Le & Deng 2012, positions and normals)', () => {
  it('a helper whose vertices lie on a line: the positions leave its turn about the line free, the normals fix it at the turn that made them', () => {
    const random = rng(5);
    const n = 8;
    const axis = unit(random);
    // Vertices on a line along `axis`, normals across it; one fixed joint (the identity) that no vertex uses.
    const rest = Float32Array.from({ length: 3 * n }, (_, k) => 0.3 + (Math.floor(k / 3) - 3.5) * axis[k % 3]);
    const across = unit(random).map((v, c, u) => v - axis[c] * (u[0] * axis[0] + u[1] * axis[1] + u[2] * axis[2]));
    const normals = new Float32Array(3 * n);
    for (let i = 0; i < n; i++) {
      // Across the line, turned about it by i·45°.
      const R = turn(axis, (i * Math.PI) / 4);
      const v = apply(R, 0, across, 0, true);
      const l = Math.hypot(...v);
      normals.set(
        v.map((x) => x / l),
        3 * i,
      );
    }
    const truth = [turn(unit(random), 2.1, [0.2, -0.4, 1]), turn(unit(random), 0.7, [1, 0, 0])];
    const fixed = truth.map(() => turn([1, 0, 0], 0));
    const targets = truth.map((X) =>
      Float32Array.from({ length: 3 * n }, (_, k) => apply(X, 0, rest, 3 * Math.floor(k / 3))[k % 3]),
    );
    const targetNormals = truth.map((X) => Float32Array.from({ length: 3 * n }, (_, k) => apply(X, 0, normals, 3 * Math.floor(k / 3), true)[k % 3])); // prettier-ignore
    const base: SsdrProblem = { n, rest: truth.map(() => rest), targets, fixed };
    const members = [Int32Array.from({ length: n }, (_, i) => i)];
    const fit = (p: SsdrProblem) => {
      // Started 100° about the line from the truth: the same positions.
      const model: SsdrModel = {
        helpers: 1,
        transforms: truth.map((X) => {
          const M = new Float64Array(16);
          const R = turn(axis, (100 * Math.PI) / 180);
          for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) M[4 * c + r] = [0, 1, 2, 3].reduce((s, k) => s + X[4 * k + r] * R[4 * c + k], 0); // prettier-ignore
          return M;
        }),
        influences: 4,
        joints: Uint32Array.from({ length: 4 * n }, (_, k) => (k % 4 ? 0 : 1)),
        weights: Float32Array.from({ length: 4 * n }, (_, k) => (k % 4 ? 0 : 1)),
      };
      updateHelpers(p, model, members, 1);
      return model;
    };
    const normalsOff = (model: SsdrModel) =>
      Math.max(...truth.flatMap((_, t) => Array.from({ length: n }, (_, i) => {
        const v = apply(model.transforms[t], 0, normals, 3 * i, true);
        const m = targetNormals[t].subarray(3 * i, 3 * i + 3);
        return Math.acos(Math.min(1, (v[0] * m[0] + v[1] * m[1] + v[2] * m[2]) / Math.hypot(...v)));
      }))); // prettier-ignore
    const positionsOnly = fit(base);
    const withNormals = fit({
      ...base,
      normals: { rest: normals, targets: targetNormals, weights: new Float32Array(n).fill(0.01) },
    });
    // Both place the vertices (the line) exactly; only the fit with normals turns them as the truth did.
    for (const model of [positionsOnly, withNormals]) {
      const sum = new Float64Array(n);
      verticesErrors(
        base,
        model,
        Int32Array.from({ length: n }, (_, i) => i),
        sum,
        new Float64Array(n),
      );
      expect(Math.max(...sum)).toBeLessThan(1e-10);
    }
    expect(normalsOff(positionsOnly)).toBeGreaterThan(0.5); // the premise: positions leave the turn
    expect(normalsOff(withNormals)).toBeLessThan(1e-3); // float32 targets: acos near 1 resolves about 2e-4 rad
    for (let t = 0; t < 2; t++)
      for (let k = 0; k < 16; k++) expect(withNormals.transforms[t][k]).toBeCloseTo(truth[t][k], 5);
  });

  it('the bone update with normals lands on a minimum of the positions and normals error, measured point by point (no turn or shift of a helper lowers it)', () => {
    const random = rng(17);
    const { p, model } = problem(random, 30, 4, 2, 2, 0.3);
    for (const X of model.transforms)
      for (let k = 0; k < X.length; k++) if (k % 4 !== 3) X[k] += 0.1 * (random() - 0.5);
    const members = [0, 1].map(() => Int32Array.from({ length: 30 }, (_, i) => i));
    updateHelpers(p, model, members, 1, [2]); // helper 0 then 1; helper 1's fit is its exact block minimum
    const all = Int32Array.from({ length: 30 }, (_, i) => i);
    const error = (m: SsdrModel) => {
      const sum = new Float64Array(30);
      verticesErrors({ ...p, rest: [p.rest[2]], targets: [p.targets[2]], fixed: [p.fixed[2]], normals: { ...p.normals!, targets: [p.normals!.targets[2]] } }, { ...m, transforms: [m.transforms[2]] }, all, sum, new Float64Array(30)); // prettier-ignore
      return sum.reduce((a, b) => a + b, 0);
    };
    const at = error(model);
    for (let trial = 0; trial < 40; trial++) {
      const moved = { ...model, transforms: model.transforms.map((X) => X.slice()) };
      const R = turn(unit(random), 0.02 * random(), [0.01 * (random() - 0.5), 0.01 * (random() - 0.5), 0.01 * (random() - 0.5)]); // prettier-ignore
      // Helper 1's transform turned about its own frame: R · X.
      const X = moved.transforms[2];
      const Y = new Float64Array(16);
      for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) Y[4 * c + r] = [0, 1, 2, 3].reduce((s, k) => s + R[4 * k + r] * X[16 + 4 * c + k], 0); // prettier-ignore
      X.set(Y, 16);
      expect(error(moved)).toBeGreaterThanOrEqual(at * (1 - 1e-9));
    }
    // And the normals count: without them, the same update lands elsewhere, with a larger error here.
    const without = { ...model, transforms: model.transforms.map((X) => X.slice()) };
    updateHelpers({ ...p, normals: undefined }, without, members, 1, [2]);
    expect(error(without)).toBeGreaterThan(at);
  });

  it("the weight update with normals from shared products and summed right-hand sides writes what summing each vertex's samples writes", () => {
    const { p, model } = problem(rng(29), 40, 7, 4, 2, 0.2);
    const candidates = [0, 1, 2, 3, 4, 5];
    const [summed, shared] = [0, 1].map(() => ({ ...model, joints: model.joints.slice(), weights: model.weights.slice() })); // prettier-ignore
    const products = influenceProducts(p, model);
    const starts = Int32Array.from({ length: 41 }, (_, i) => 6 * i);
    const rhs = rightHandSides(
      p,
      model,
      0,
      40,
      Int32Array.from({ length: 240 }, (_, e) => e % 6),
      starts,
    );
    let changed = 0;
    for (let i = 0; i < 40; i++) {
      updateVertexWeights(p, summed, i, candidates);
      updateVertexWeights(p, shared, i, candidates, undefined, undefined, products, rhs.subarray(6 * i, 6 * i + 6));
      for (let k = 4 * i; k < 4 * i + 4; k++) {
        expect(shared.joints[k]).toBe(summed.joints[k]);
        expect(shared.weights[k]).toBeCloseTo(summed.weights[k], 5);
      }
      // And the normals are in it: without them the weights differ somewhere.
      const plain = { ...model, joints: model.joints.slice(), weights: model.weights.slice() };
      updateVertexWeights({ ...p, normals: undefined }, plain, i, candidates);
      if (plain.weights.some((w, k) => Math.abs(w - summed.weights[k]) > 1e-4)) changed++;
    }
    expect(changed).toBeGreaterThan(20);
  });
});

describe('fitTargetNormals', () => {
  it('scales each method normal by its joint scale, weighs λ²/s², and gives a zero or NaN normal weight 0 and a finite target', () => {
    // Three vertices on one joint that scales by 2 and turns 90° about z; vertex 1's bind normal
    // is zero, and vertex 2's method normal is NaN at the second sample.
    const mesh: SkinnedMesh = {
      positions: new Float32Array(9),
      normals: new Float32Array([1, 0, 0, 0, 0, 0, 0, 1, 0]),
      triangles: new Uint32Array([0, 1, 2]),
      influences: 1,
      joints: new Uint32Array(3),
      weights: new Float32Array([1, 1, 1]),
    };
    const M = turn([0, 0, 1], Math.PI / 2);
    for (let k = 0; k < 12; k++) M[k] *= 2;
    const samples = { fixed: [M, M] } as unknown as MethodSamples;
    const method = [
      new Float32Array([0, 1, 0, 1, 0, 0, -1, 0, 0]),
      new Float32Array([0, 1, 0, 1, 0, 0, NaN, NaN, NaN]),
    ];
    const diagonal = 3;
    const fit = fitTargetNormals(mesh, samples, (t) => method[t], [0, 1, 2], diagonal);
    const targets = [0, 1].map((t) => Array.from(fit.targets(t)));
    // Each target is the method's normal times the joint's scale, 2 (the length a player's Σ w L n has).
    expect(targets[0].slice(0, 3)).toEqual([0, 2, 0]);
    expect(targets[0].slice(6, 9)).toEqual([-2, 0, 0]);
    for (const t of targets) expect(t.every(Number.isFinite)).toBe(true);
    // λ²/s²: the residual ‖Σ w L n − s m‖ is s times the normal's angle, so an angle weighs as
    // at scale 1 (float32).
    expect(fit.weights[0] / ((NORMAL_FIT_LENGTH * diagonal) / 2) ** 2).toBeCloseTo(1, 6);
    expect(fit.weights[1]).toBe(0);
    expect(fit.weights[2]).toBe(0);
    expect(Array.from(fit.rest).every(Number.isFinite)).toBe(true);
  });

  it('weighs a vertex whose method normal turns θ > 30° from plain LBS’s by (30°/θ)²', () => {
    const mesh: SkinnedMesh = {
      positions: new Float32Array(3),
      normals: new Float32Array([1, 0, 0]),
      triangles: new Uint32Array(0),
      influences: 1,
      joints: new Uint32Array(1),
      weights: new Float32Array([1]),
    };
    const I = turn([0, 0, 1], 0);
    const angle = (60 * Math.PI) / 180; // the method's normal 60° from LBS's (1, 0, 0)
    const method = new Float32Array([Math.cos(angle), Math.sin(angle), 0]);
    const fit = fitTargetNormals(mesh, { fixed: [I] } as unknown as MethodSamples, () => method, [0], 1);
    fit.targets(0);
    expect(fit.weights[0] / (NORMAL_FIT_LENGTH ** 2 * (NORMAL_FIT_TRUST / angle) ** 2)).toBeCloseTo(1, 6);
  });
});
