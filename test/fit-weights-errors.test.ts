/**
 * The helper fit's weight update gives each vertex's error as it leaves it (`runFitTask`'s
 * `weights` task, `src/bake/fit.ts`): from the normal equations' quadratic form plus the targets'
 * squared norms (`FitData.targetNorms`), never reading a sample again. The alternation stops on
 * these sums (`fitHelpers`), so they must be the errors the model then has: checked here against
 * `verticesErrors`, which skins every vertex at every sample and sums the squared distances, on
 * random problems — with and without the normals' rows, with morph targets (rest positions per
 * sample: no pair products), and with vertices whose start has an influence outside their
 * candidates (their error before measured directly).
 */
import { describe, expect, it } from 'vitest';
import { fitData, fitViews, runFitTaskHere, type FitData } from '../src/bake/fit.js';
import type { MethodSamples } from '../src/bake/sampling.js';
import { verticesErrors } from '../src/bake/ssdr.js';
import { rng } from './helpers/data.js';

/** A rotation about a random axis by up to 1 rad, then a translation of up to 0.5: 4×4 column-major. */
function rigid(next: () => number): number[] {
  const axis = [next() - 0.5, next() - 0.5, next() - 0.5];
  const length = Math.hypot(...axis);
  const [x, y, z] = axis.map((v) => v / length);
  const angle = next();
  const [c, s, C] = [Math.cos(angle), Math.sin(angle), 1 - Math.cos(angle)];
  // prettier-ignore
  return [
    c + x * x * C, y * x * C + z * s, z * x * C - y * s, 0,
    x * y * C - z * s, c + y * y * C, z * y * C + x * s, 0,
    x * z * C + y * s, y * z * C - x * s, c + z * z * C, 0,
    next() - 0.5, next() - 0.5, next() - 0.5, 1,
  ];
}

const [n, T, J, H, K] = [40, 12, 3, 2, 2];

/**
 * A random fit: n vertices near the origin, T samples of J joints' and H helpers' rigid
 * transforms, targets a random blend of them plus noise; each vertex's candidates the joints
 * and the helpers, its start joints 0 and 1 — but every fifth vertex's candidates lack joint 1.
 */
function problem(seed: number, options: { normals?: boolean; morphs?: boolean }): FitData {
  const next = rng(seed);
  const point = () => Float32Array.from({ length: 3 * n }, () => next() - 0.5);
  const base = point();
  const rest = Array.from({ length: T }, () => (options.morphs ? base.map((x) => x + 0.05 * (next() - 0.5)) : base));
  const fixed = Array.from({ length: T }, () => Float64Array.from(Array.from({ length: J }, () => rigid(next)).flat()));
  const transforms = Array.from({ length: T }, () => Float64Array.from(Array.from({ length: H }, () => rigid(next)).flat())); // prettier-ignore
  const targets = rest.map((r, t) => {
    const y = new Float32Array(3 * n);
    for (let i = 0; i < n; i++) {
      const w = [next(), next(), next()];
      const M = [fixed[t].subarray(0, 16), fixed[t].subarray(16, 32), transforms[t].subarray(0, 16)];
      const sum = w[0] + w[1] + w[2];
      for (let c = 0; c < 3; c++) {
        let v = 0.02 * (next() - 0.5);
        M.forEach((m, k) => (v += (w[k] / sum) * (m[c] * r[3 * i] + m[4 + c] * r[3 * i + 1] + m[8 + c] * r[3 * i + 2] + m[12 + c]))); // prettier-ignore
        y[3 * i + c] = v;
      }
    }
    return y;
  });
  const samples: MethodSamples = {
    clips: [],
    rest,
    targets,
    lbsSquared: targets.map(() => new Float64Array(n)),
    fixed,
    rate: 30,
    between: false,
  };
  const joints = new Uint32Array(K * n);
  const weights = new Float32Array(K * n);
  for (let i = 0; i < n; i++) {
    joints.set([0, 1], K * i);
    weights.set([0.6, 0.4], K * i);
  }
  const active = Array.from({ length: n }, (_, i) => i);
  const candidates = active.map((i) => (i % 5 === 0 ? [0, 2, 3, 4] : [0, 1, 2, 3, 4]));
  const normals = options.normals
    ? {
        rest: Float32Array.from({ length: 3 * n }, () => next() - 0.5),
        targets: () => Float32Array.from({ length: 3 * n }, () => next() - 0.5),
        weights: Float32Array.from({ length: n }, () => 0.5 * next()),
      }
    : undefined;
  const fitted = Int32Array.from({ length: T - 2 }, (_, k) => k + 1);
  return fitData(samples, { helpers: H, transforms, influences: K, joints, weights }, active, candidates, [0, 1], fitted, { normals }); // prettier-ignore
}

/** Each vertex's error over the fit's samples, skinned and summed directly. */
function measured(data: FitData): Float64Array {
  const { problem: p, model } = fitViews(data, false);
  const [sum, max] = [new Float64Array(data.n), new Float64Array(data.n)];
  verticesErrors(
    p,
    model,
    Int32Array.from({ length: data.n }, (_, i) => i),
    sum,
    max,
  );
  return sum;
}

describe("the weight update's errors (the alternation's stopping rule reads them)", () => {
  for (const [name, options] of [
    ['positions', {}],
    ['positions and normals', { normals: true }],
    ['morph targets (rest positions per sample)', { morphs: true }],
  ] as const)
    it(`equal each vertex's error skinned and summed after the update: ${name}`, () => {
      for (const seed of [1, 2, 3]) {
        const data = problem(seed, options);
        // Before: every vertex on joints 0 and 1 (not all of them the update's candidates).
        const start = measured(data);
        for (let round = 0; round < 2; round++) {
          if (!data.restPerSample) runFitTaskHere(data, { kind: 'products' });
          const errors = runFitTaskHere(data, { kind: 'weights' })!;
          const direct = measured(data);
          expect(errors.length).toBe(n);
          for (let i = 0; i < n; i++) {
            expect(Math.abs(errors[i] - direct[i])).toBeLessThan(1e-9 * (1 + data.targetNorms[i]));
            // The update never raises a vertex's error.
            expect(direct[i]).toBeLessThanOrEqual(start[i] * (1 + 1e-9));
          }
          // And moves some (the start is not the least-squares fit).
          if (round === 0)
            expect(direct.reduce((s, e) => s + e, 0)).toBeLessThan(0.9 * start.reduce((s, e) => s + e, 0));
          runFitTaskHere(data, { kind: 'helpers', full: false, passes: 1 });
        }
      }
    });
});
