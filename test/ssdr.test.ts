/**
 * The skinning decomposition's kernels (Le & Deng 2012; `src/bake/ssdr.ts`) on synthetic problems
 * with known answers: the weighted rigid fit recovers a rigid motion exactly, the bone update
 * recovers helpers that generated the targets, and the weight update never raises a vertex's
 * error — measured directly, point by point, not through the normal equations it uses.
 */
import { mat4LinearDeterminant, mat4Multiply } from '../src/core/math.js';
import { describe, expect, it } from 'vitest';
import { vertexError, vertexErrors, verticesErrors, type SsdrModel, type SsdrProblem } from '../src/bake/ssdr.js';
import { BETWEEN_PRIOR_STRENGTH, rigidFit, updateHelpers } from '../src/bake/ssdr-helpers.js';
import {
  addPairProduct,
  influenceProducts,
  rightHandSides,
  storedInfluenceProducts,
} from '../src/bake/ssdr-normal-equations.js';
import { updateVertexWeights } from '../src/bake/ssdr-weights.js';
import { solveRoom, sparseLeastSquares } from '../src/bake/small-least-squares.js';
import { rng } from './helpers/data.js';

/** A random rotation (unit quaternion) as a 4×4 column-major matrix with translation t. */
function rigid(random: () => number, t: number[], mirrored = false): Float64Array {
  const q = [0, 0, 0, 0].map(() => random() - 0.5);
  const l = Math.hypot(...q);
  const [x, y, z, w] = q.map((v) => v / l);
  const M = new Float64Array([
    1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y), 0,
    2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x), 0,
    2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y), 0,
    t[0], t[1], t[2], 1,
  ]); // prettier-ignore
  if (mirrored) for (let c = 0; c < 3; c++) M[4 * c] = -M[4 * c]; // R·diag(−1, 1, 1): first row negated
  return M;
}

function apply(M: Float64Array, o: number, p: ArrayLike<number>, i: number): number[] {
  const [x, y, z] = [p[i], p[i + 1], p[i + 2]];
  return [0, 1, 2].map((r) => M[o + r] * x + M[o + 4 + r] * y + M[o + 8 + r] * z + M[o + 12 + r]);
}

describe('skinning decomposition kernels (Le & Deng 2012)', () => {
  it.each([1, -1, 0.01, -37])(
    'rigidFit recovers a rigid motion at scale %s (negative: mirrored) from weighted points exactly',
    (scale) => {
      const random = rng(7);
      for (let trial = 0; trial < 50; trial++) {
        const count = 4 + Math.floor(random() * 30);
        const M = rigid(random, [random() * 4 - 2, random() * 4 - 2, random() * 4 - 2], scale < 0);
        for (let k = 0; k < 12; k++) M[k] *= Math.abs(scale);
        const P = Float64Array.from({ length: 3 * count }, () => random() * 2 - 1);
        const Q = new Float64Array(3 * count);
        for (let i = 0; i < count; i++) Q.set(apply(M, 0, P, 3 * i), 3 * i);
        const u = Float64Array.from({ length: count }, () => 0.1 + random());
        const out = new Float64Array(16);
        rigidFit(P, Q, u, count, out, 0, scale);
        for (let k = 0; k < 16; k++) expect(out[k]).toBeCloseTo(M[k], 9);
      }
    },
  );

  it("rigidFit's prior: where the points leave the rotation free (on a line) it is the prior's; where they fix it, the prior moves it by about 4e-3 rad at most", () => {
    const random = rng(11);
    const linear = (M: Float64Array) => [0, 1, 2, 4, 5, 6, 8, 9, 10].map((k) => M[k]);
    for (let trial = 0; trial < 20; trial++) {
      const truth = rigid(random, [random() * 4 - 2, random() * 4 - 2, random() * 4 - 2]);
      // Points on a line through c along d: any turn about d fits them exactly.
      const d = [random() - 0.5, random() - 0.5, random() - 0.5];
      const l = Math.hypot(...d);
      const c = [random(), random(), random()];
      const count = 6;
      const P = Float64Array.from(
        { length: 3 * count },
        (_, k) => c[k % 3] + ((Math.floor(k / 3) - 2.5) * d[k % 3]) / l,
      );
      const Q = new Float64Array(3 * count);
      for (let i = 0; i < count; i++) Q.set(apply(truth, 0, P, 3 * i), 3 * i);
      const u = Float64Array.from({ length: count }, () => 0.5 + random());
      // The prior: the truth turned 110° about d (in bind space), at a uniform scale of 3.
      const [x, y, z] = d.map((v) => v / l);
      const [s, co] = [Math.sin(0.61 * Math.PI), Math.cos(0.61 * Math.PI)];
      const turn = new Float64Array([
        co + x * x * (1 - co), y * x * (1 - co) + z * s, z * x * (1 - co) - y * s, 0,
        x * y * (1 - co) - z * s, co + y * y * (1 - co), z * y * (1 - co) + x * s, 0,
        x * z * (1 - co) + y * s, y * z * (1 - co) - x * s, co + z * z * (1 - co), 0,
        0, 0, 0, 1,
      ]); // prettier-ignore
      const prior = new Float64Array(16);
      mat4Multiply(prior, 0, truth, 0, turn, 0);
      for (let k = 0; k < 12; k++) prior[k] *= 3;
      const out = new Float64Array(16);
      rigidFit(P, Q, u, count, out, 0, 1, undefined, prior, 0, BETWEEN_PRIOR_STRENGTH);
      linear(out).forEach((v, k) => expect(v).toBeCloseTo(linear(prior)[k] / 3, 9));
      for (let i = 0; i < count; i++) apply(out, 0, P, 3 * i).forEach((v, r) => expect(v).toBeCloseTo(Q[3 * i + r], 9));
      // Points spread in a cube fix the rotation: a prior far from it moves it a little.
      const spread = Float64Array.from({ length: 30 }, () => random() * 2 - 1);
      const target = new Float64Array(30);
      for (let i = 0; i < 10; i++) target.set(apply(truth, 0, spread, 3 * i), 3 * i);
      rigidFit(
        spread,
        target,
        new Float64Array(10).fill(1),
        10,
        out,
        0,
        1,
        undefined,
        rigid(random, [0, 0, 0]),
        0,
        BETWEEN_PRIOR_STRENGTH,
      );
      const trace = linear(out).reduce((t, v, k) => t + v * linear(truth)[k], 0); // tr(Rᵀ R_true) = 1 + 2 cos θ
      expect(Math.acos(Math.min(1, (trace - 1) / 2))).toBeLessThan(6e-3);
    }
  });

  /**
   * n vertices, J fixed joints (≥ 2) and 2 helpers, T samples; targets made by `weights` (K = 4)
   * over joints 0, 1 and the helpers (the other fixed joints are decoys).
   */
  function problem(random: () => number, n: number, T: number, noise: number, J = 2) {
    const H = 2;
    const rest = Float32Array.from({ length: 3 * n }, () => random() * 2 - 1);
    const fixed = Array.from({ length: T }, () => {
      const F = new Float64Array(16 * J);
      for (let j = 0; j < J; j++) F.set(rigid(random, [random(), random(), random()]), 16 * j);
      return F;
    });
    const truth = Array.from({ length: T }, () => {
      const X = new Float64Array(16 * H);
      for (let h = 0; h < H; h++) X.set(rigid(random, [random(), random(), random()]), 16 * h);
      return X;
    });
    const joints = new Uint32Array(4 * n);
    const weights = new Float32Array(4 * n);
    for (let i = 0; i < n; i++) {
      const w = [0, 1, 2, 3].map(() => 0.05 + random());
      const s = w.reduce((a, b) => a + b, 0);
      joints.set([0, 1, J, J + 1], 4 * i);
      weights.set(
        w.map((x) => x / s),
        4 * i,
      );
    }
    const targets = fixed.map((F, t) => {
      const Y = new Float32Array(3 * n);
      for (let i = 0; i < n; i++)
        for (let k = 0; k < 4; k++) {
          const j = joints[4 * i + k];
          const v = j < J ? apply(F, 16 * j, rest, 3 * i) : apply(truth[t], 16 * (j - J), rest, 3 * i);
          for (let c = 0; c < 3; c++) Y[3 * i + c] += weights[4 * i + k] * v[c] + noise * (random() - 0.5);
        }
      return Y;
    });
    const p: SsdrProblem = { n, rest: fixed.map(() => rest), targets, fixed };
    const model: SsdrModel = { helpers: H, transforms: truth.map((X) => X.slice()), influences: 4, joints, weights };
    return { p, model, truth, J };
  }

  it('the bone update recovers the helpers that made the targets, from a perturbed start, at the samples asked', () => {
    const random = rng(11);
    const { p, model, truth } = problem(random, 40, 6, 0);
    for (const X of model.transforms)
      for (let k = 0; k < X.length; k++) if (k % 4 !== 3) X[k] += 0.05 * (random() - 0.5);
    const members = [0, 1].map(() => Int32Array.from({ length: 40 }, (_, i) => i));
    const before = model.transforms.map((X) => X.slice());
    updateHelpers(p, model, members, 40, [1, 3, 4]);
    for (const t of [1, 3, 4]) for (let k = 0; k < 32; k++) expect(model.transforms[t][k]).toBeCloseTo(truth[t][k], 4);
    for (const t of [0, 2, 5]) expect(model.transforms[t]).toEqual(before[t]); // the others untouched
  });

  it("the bone update at one rest for every sample (from sums over each helper's members) gives the per-sample fits' transforms, mirrored and leaning on a prior too", () => {
    for (const [mirror, strength] of [
      [false, 0],
      [true, 0],
      [false, 1e-3],
      [true, 1e-3],
    ] as const) {
      const random = rng(mirror ? 71 : 72);
      const { p, model } = problem(random, 40, 6, 0.2, 3);
      // Joint 0 mirrored (its helpers fit mirrored, jointScale < 0); the helpers hang from joints 0 and 2.
      if (mirror) for (const F of p.fixed) for (let r = 0; r < 3; r++) F[4 * r] = -F[4 * r];
      const hung: SsdrProblem = { ...p, helperJoints: [0, 2] };
      for (const X of model.transforms)
        for (let k = 0; k < X.length; k++) if (k % 4 !== 3) X[k] += 0.05 * (random() - 0.5);
      const members = [0, 1].map(() => Int32Array.from({ length: 40 }, (_, i) => i));
      const [shared, own] = [0, 1].map(() => ({ ...model, transforms: model.transforms.map((X) => X.slice()) }));
      updateHelpers(hung, shared, members, 3, [0, 2, 5], strength);
      // The same rest positions in an array per sample: the per-sample path.
      updateHelpers({ ...hung, rest: hung.rest.map((r) => r.slice()) }, own, members, 3, [0, 2, 5], strength);
      for (const t of [0, 2, 5])
        for (let k = 0; k < 32; k++) expect(shared.transforms[t][k]).toBeCloseTo(own.transforms[t][k], 9);
      if (mirror) expect(mat4LinearDeterminant(shared.transforms[0], 0)).toBeLessThan(0);
    }
  });

  it('the weight update with sample weights equals the update over the samples repeated that many times, and fits a heavy sample closer', () => {
    const random = rng(23);
    const { p, model, J } = problem(random, 30, 6, 0.2);
    const candidates = [0, 1, J, J + 1];
    // Sample 0 listed three times: what weight 3 on it means.
    const repeated: SsdrProblem = {
      n: p.n,
      rest: [p.rest[0], p.rest[0], ...p.rest],
      targets: [p.targets[0], p.targets[0], ...p.targets],
      fixed: [p.fixed[0], p.fixed[0], ...p.fixed],
    };
    const copy = () => ({ ...model, joints: model.joints.slice(), weights: model.weights.slice() });
    for (let i = 0; i < 30; i++) {
      const [weighted, listed, plain, heavy] = [copy(), copy(), copy(), copy()];
      updateVertexWeights(p, weighted, i, candidates, undefined, [3, 1, 1, 1, 1, 1]);
      updateVertexWeights(repeated, { ...listed, transforms: [model.transforms[0], model.transforms[0], ...model.transforms] }, i, candidates); // prettier-ignore
      for (let k = 4 * i; k < 4 * i + 4; k++) {
        expect(weighted.joints[k]).toBe(listed.joints[k]);
        expect(weighted.weights[k]).toBeCloseTo(listed.weights[k], 5);
      }
      updateVertexWeights(p, plain, i, candidates);
      updateVertexWeights(p, heavy, i, candidates, undefined, [1e4, 1, 1, 1, 1, 1]);
      const [ePlain, eHeavy] = [plain, heavy].map((m) => {
        const perSample = new Float32Array(6 * 30);
        vertexErrors(p, m, i, perSample);
        return perSample[i]; // sample 0
      });
      expect(eHeavy).toBeLessThanOrEqual(ePlain * (1 + 1e-6) + 1e-12);
    }
  });

  it("the weight update from shared influence products writes what summing each vertex's samples writes (6 and 10 candidates, noisy targets)", () => {
    for (const J of [4, 8]) {
      const { p, model } = problem(rng(40 + J), 50, 9, 0.3, J);
      const candidates = Array.from({ length: J + 2 }, (_, k) => k);
      const [summed, shared] = [0, 1].map(() => ({ ...model, joints: model.joints.slice(), weights: model.weights.slice() })); // prettier-ignore
      const products = influenceProducts(p, model);
      // The products against a brute-force sum over the samples, for one pair and one point.
      const x = [0.3, -0.7, 0.2];
      let direct = 0;
      for (let t = 0; t < 9; t++) {
        const a = apply(p.fixed[t], 16 * 1, x, 0);
        const b = apply(model.transforms[t], 16 * 1, x, 0);
        direct += a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
      }
      expect(products.form(J + 1, 1, x[0], x[1], x[2])).toBeCloseTo(direct, 10);
      expect(products.form(1, J + 1, x[0], x[1], x[2])).toBeCloseTo(direct, 10);
      for (let i = 0; i < 50; i++) {
        updateVertexWeights(p, summed, i, candidates);
        updateVertexWeights(p, shared, i, candidates, undefined, undefined, products);
        expect(Array.from(shared.joints.subarray(4 * i, 4 * i + 4))).toEqual(Array.from(summed.joints.subarray(4 * i, 4 * i + 4))); // prettier-ignore
        for (let k = 4 * i; k < 4 * i + 4; k++) expect(shared.weights[k]).toBeCloseTo(summed.weights[k], 6);
      }
    }
    // Morph targets (rest positions per sample): no shared products.
    const { p, model } = problem(rng(1), 4, 2, 0);
    expect(() => influenceProducts({ ...p, rest: [p.rest[0], p.rest[0].slice()] }, model)).toThrow(RangeError);
  });

  it('products made beforehand in any split, and right-hand sides summed across vertices, give the weight update the same bits', () => {
    const J = 6;
    const { p, model } = problem(rng(77), 30, 8, 0.3, J);
    const N = J + model.helpers;
    // Each vertex's candidates: a varying subset of the influences (helpers always in).
    const lists = Array.from({ length: 30 }, (_, i) => [0, 1, 2, 3, 4, 5, J, J + 1].filter((k, a) => a > 5 || (i + a) % 3 !== 0)); // prettier-ignore
    const candidates = Int32Array.from(lists.flat());
    const candidateStart = Int32Array.from([0, ...lists.map((_, i) => lists.slice(0, i + 1).flat().length)]);
    // Every pair, its products made in two ranges (as two threads would) into one store.
    const index = new Int32Array(N * N).fill(-1);
    const pairs: [number, number][] = [];
    for (let a = 0; a < N; a++) for (let b = a; b < N; b++) index[a * N + b] = pairs.push([a, b]) - 1;
    const store = new Float64Array(16 * pairs.length);
    for (const [from, to] of [
      [0, 7],
      [7, pairs.length],
    ])
      for (let k = from; k < to; k++) addPairProduct(p, model, pairs[k][0], pairs[k][1], store, 16 * k);
    const lazy = influenceProducts(p, model);
    const stored = storedInfluenceProducts(store, index, N);
    for (const [a, b] of [
      [0, 0],
      [2, J + 1],
      [J + 1, 2],
      [J, J + 1],
    ])
      expect(stored.form(a, b, 0.3, -0.2, 0.9)).toBe(lazy.form(a, b, 0.3, -0.2, 0.9));
    // The right-hand sides of vertices 5…24 against those the update sums itself: the same weights, bit for bit.
    const rhs = rightHandSides(p, model, 5, 25, candidates, candidateStart);
    const [own, given] = [0, 1].map(() => ({ ...model, joints: model.joints.slice(), weights: model.weights.slice() })); // prettier-ignore
    for (let i = 5; i < 25; i++) {
      const [start, end] = [candidateStart[i] - candidateStart[5], candidateStart[i + 1] - candidateStart[5]];
      updateVertexWeights(p, own, i, lists[i], undefined, undefined, lazy);
      updateVertexWeights(p, given, i, lists[i], undefined, undefined, stored, rhs.subarray(start, end));
    }
    expect(given.joints).toEqual(own.joints);
    expect(given.weights).toEqual(own.weights);
    expect(given.weights).not.toEqual(model.weights); // the update moved them
    // The fixed joints' entries kept between calls: summed the first time (the same), read the next.
    const fixedTerms = new Float64Array(candidates.length).fill(NaN);
    expect(rightHandSides(p, model, 5, 25, candidates, candidateStart, fixedTerms)).toEqual(rhs);
    const e = candidateStart[5]; // vertex 5's first candidate, a fixed joint
    expect(fixedTerms[e]).toBe(rhs[0]);
    expect(Number.isNaN(fixedTerms[candidateStart[6] - 1])).toBe(true); // its last, a helper: not kept
    fixedTerms[e] = 42;
    const again = rightHandSides(p, model, 5, 25, candidates, candidateStart, fixedTerms);
    expect(again[0]).toBe(42);
    expect(again.subarray(1)).toEqual(rhs.subarray(1));
    // Right-hand sides need the products; neither takes rest positions per sample.
    expect(() => updateVertexWeights(p, given, 0, lists[0], undefined, undefined, undefined, rhs)).toThrow(RangeError);
    const perSample = { ...p, rest: p.rest.map((r) => r.slice()) };
    expect(() => rightHandSides(perSample, model, 0, 2, candidates, candidateStart)).toThrow(RangeError);
  });

  it('verticesErrors, sample by sample, gives what vertexErrors gives vertex by vertex, bit for bit', () => {
    const { p, model } = problem(rng(31), 40, 7, 0.3);
    const vertices = [3, 0, 39, 17, 18, 5];
    const [sum, max] = [new Float64Array(6), new Float64Array(6)];
    const [together, one] = [new Float32Array(7 * 40).fill(-1), new Float32Array(7 * 40).fill(-1)];
    verticesErrors(p, model, vertices, sum, max, together);
    vertices.forEach((i, a) => {
      const e = vertexErrors(p, model, i, one);
      expect([sum[a], max[a]]).toEqual([e.sum, e.max]);
      expect(e.sum).toBeGreaterThan(0);
    });
    expect(together).toEqual(one);
    // Vertices not listed are left as they were.
    expect(together[7]).toBe(-1);
  });

  it('the weight update never raises a vertex’s error (measured point by point), and finds the weights that made exact targets', () => {
    const random = rng(5);
    for (const noise of [0, 0.2]) {
      const { p, model, J } = problem(random, 60, 8, noise);
      const exact = model.weights.slice();
      // Start from other weights: the vertex's two joints only (halves on the 16-bit grid).
      for (let i = 0; i < 60; i++) model.weights.set([32768 / 65535, 32767 / 65535, 0, 0], 4 * i);
      for (let i = 0; i < 60; i++) {
        const before = vertexError(p, model, i);
        updateVertexWeights(p, model, i, [0, 1, J, J + 1]);
        const after = vertexError(p, model, i);
        expect(after).toBeLessThanOrEqual(before * (1 + 1e-12) + 1e-18);
        // As the file stores them: each weight a whole number of 16-bit steps, summing to 1.
        const steps = Array.from(model.weights.subarray(4 * i, 4 * i + 4), (w) => w * 65535);
        for (const x of steps) expect(Math.abs(x - Math.round(x))).toBeLessThan(1e-2); // float32: 4e-3 near 1
        expect(steps.reduce((a, x) => a + Math.round(x), 0)).toBe(65535);
        if (noise === 0) {
          // The exact weights, whatever slot order the update wrote them in.
          const got = new Map<number, number>();
          for (let k = 0; k < 4; k++) got.set(model.joints[4 * i + k], model.weights[4 * i + k]);
          for (let k = 0; k < 4; k++) expect(got.get([0, 1, J, J + 1][k]) ?? 0).toBeCloseTo(exact[4 * i + k], 3);
        }
      }
    }
  });

  it.each([
    ['6 candidates (every support tried)', 4],
    ['10 candidates (supports among the 9 heaviest)', 8],
  ])(
    'the weight update over %s never raises a vertex’s error, from its own start or from joints that are not candidates',
    (_, J) => {
      const random = rng(J);
      const { p, model } = problem(random, 80, 8, 0.3, J);
      const candidates = Array.from({ length: J + 2 }, (_, k) => k);
      let changed = 0;
      for (let i = 0; i < 80; i++) {
        // Half the vertices start on a decoy joint left out of their candidates (the direct-error path).
        if (i % 2) {
          model.joints.set([J - 1, 0, 0, 0], 4 * i);
          model.weights.set([1, 0, 0, 0], 4 * i);
        }
        const before = vertexError(p, model, i);
        const start = model.weights.slice(4 * i, 4 * i + 4).join();
        updateVertexWeights(p, model, i, i % 2 ? candidates.filter((k) => k !== J - 1) : candidates);
        expect(vertexError(p, model, i)).toBeLessThanOrEqual(before * (1 + 1e-12) + 1e-18);
        if (model.weights.slice(4 * i, 4 * i + 4).join() !== start) changed++;
      }
      expect(changed).toBeGreaterThan(40); // it does update
    },
  );

  it('the weight update finds the best 4 weights of 8 candidates, ≥ 0 and summing to 1 (projected gradient on every 4-subset as the reference)', () => {
    const random = rng(21);
    const n = 24;
    const { p, model } = problem(random, n, 8, 0.6, 6);
    const candidates = Array.from({ length: 8 }, (_, k) => k);
    const J = 6;
    let worse = 0;
    for (let i = 0; i < n; i++) {
      // The columns of vertex i (each candidate's transform applied to its rest position) and its targets.
      const columns = candidates.map((j) =>
        p.fixed.flatMap((F, t) =>
          j < J ? apply(F, 16 * j, p.rest[t], 3 * i) : apply(model.transforms[t], 16 * (j - J), p.rest[t], 3 * i),
        ),
      );
      const y = p.targets.flatMap((Y) => Array.from(Y.subarray(3 * i, 3 * i + 3)));
      const error = (S: number[], w: number[]) =>
        y.reduce((e, v, r) => e + (S.reduce((s, a, k) => s + w[k] * columns[a][r], 0) - v) ** 2, 0);
      let reference = Infinity;
      for (const S of subsets(8, 4))
        reference = Math.min(
          reference,
          error(
            S,
            projectedLeastSquares(
              S.map((a) => columns[a]),
              y,
              true,
              3000,
            ),
          ),
        );
      model.joints.set([0, 0, 0, 0], 4 * i);
      model.weights.set([1, 0, 0, 0], 4 * i);
      updateVertexWeights(p, model, i, candidates);
      const got = vertexError(p, model, i);
      expect(got).toBeGreaterThanOrEqual(reference * (1 - 1e-6) - 1e-12); // no 4 weights do better
      if (got > reference * (1 + 1e-4) + 1e-12) worse++;
    }
    expect(worse).toBe(0);
  });
});

describe('sparseLeastSquares (the exact sparse non-negative solve)', () => {
  it('matches projected gradient on every K-subset, where candidates are combinations of others too', () => {
    const random = rng(5);
    const [c, m] = [7, 12];
    for (let problem = 0; problem < 30; problem++) {
      const K = 2 + (problem % 3);
      const columns = Array.from({ length: c }, () => Array.from({ length: m }, () => random() - 0.3));
      // Candidates that span nothing new: a convex and a signed combination of others.
      if (problem % 2 === 0) columns[6] = columns[0].map((v, r) => 0.5 * v + 0.5 * columns[1][r]);
      if (problem % 3 === 0) columns[5] = columns[2].map((v, r) => v - columns[3][r]);
      const y = Array.from({ length: m }, () => 2 * random() - 0.5);
      const G = new Float64Array(c * c);
      const b = new Float64Array(c);
      for (let a = 0; a < c; a++) {
        b[a] = columns[a].reduce((s, v, r) => s + v * y[r], 0);
        for (let e = 0; e < c; e++) G[a * c + e] = columns[a].reduce((s, v, r) => s + v * columns[e][r], 0);
      }
      const error = (w: ArrayLike<number>) =>
        y.reduce((s, v, r) => s + (columns.reduce((t, col, a) => t + w[a] * col[r], 0) - v) ** 2, 0);
      let reference = Infinity;
      for (const S of subsets(c, K)) {
        const wS = projectedLeastSquares(
          S.map((a) => columns[a]),
          y,
          false,
          20000,
        );
        const w = new Float64Array(c);
        S.forEach((a, k) => (w[a] = wS[k]));
        reference = Math.min(reference, error(w));
      }
      const w = new Float64Array(c);
      sparseLeastSquares(
        G,
        b,
        c,
        Int32Array.from({ length: c }, (_, k) => k),
        K,
        w,
        solveRoom(c),
      );
      expect(w.every((v) => v >= 0)).toBe(true);
      expect(w.filter((v) => v > 0).length).toBeLessThanOrEqual(K);
      const got = error(w);
      expect(got).toBeGreaterThanOrEqual(reference - 1e-9);
      expect(got).toBeLessThanOrEqual(reference + 1e-6 * (1 + reference));
    }
  });
});

/** Every k-element subset of 0 … n − 1. */
function subsets(n: number, k: number): number[][] {
  if (k === 0) return [[]];
  const out: number[][] = [];
  for (let a = k - 1; a < n; a++) for (const s of subsets(a, k - 1)) out.push([...s, a]);
  return out;
}

/**
 * min ‖Σ_k w_k columns[k] − y‖² over w ≥ 0 with Σ w = 1 (or, `simplex` false, over w ≥ 0 alone), by
 * accelerated projected gradient (Beck & Teboulle's FISTA; the projection onto the simplex by
 * sorting, Duchi et al. 2008).
 */
function projectedLeastSquares(columns: number[][], y: number[], simplex: boolean, iterations: number): number[] {
  const m = columns.length;
  const H = columns.map((a) => columns.map((b) => a.reduce((s, v, r) => s + v * b[r], 0)));
  const g = columns.map((a) => a.reduce((s, v, r) => s + v * y[r], 0));
  const L = 2 * H.reduce((s, row, k) => s + row[k], 0); // ≥ the gradient's Lipschitz constant
  const project = (v: Float64Array) => {
    let theta = 0;
    if (simplex) {
      const u = Array.from(v).sort((a, b) => b - a);
      let sum = 0;
      for (let k = 0; k < m; k++) {
        sum += u[k];
        const t = (sum - 1) / (k + 1);
        if (u[k] - t > 0) theta = t;
      }
    }
    for (let k = 0; k < m; k++) v[k] = Math.max(0, v[k] - theta);
  };
  let w = new Float64Array(m).fill(simplex ? 1 / m : 0);
  const z = w.slice();
  const next = new Float64Array(m);
  let s = 1;
  for (let it = 0; it < iterations; it++) {
    for (let k = 0; k < m; k++) {
      let hz = 0;
      for (let l = 0; l < m; l++) hz += H[k][l] * z[l];
      next[k] = z[k] - (2 * (hz - g[k])) / L;
    }
    project(next);
    const sNext = (1 + Math.sqrt(1 + 4 * s * s)) / 2;
    for (let k = 0; k < m; k++) z[k] = next[k] + ((s - 1) / sNext) * (next[k] - w[k]);
    w = next.slice();
    s = sNext;
  }
  return Array.from(w);
}
