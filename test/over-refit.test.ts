/**
 * The helpers refitted at a sample where a fitted vertex is past plain LBS's largest distance
 * there (`bake/over-refit.ts`), on one helper worked out by hand: five vertices on it, the
 * method moving one of them off the rigid motion, so that the least-squares helper leaves that
 * vertex farther from the method than plain LBS's largest allows. Distances are checked by
 * skinning the vertices here, not by the fit's own error code.
 */
import { describe, expect, it } from 'vitest';
import { fitData, fitViews, type FitData } from '../src/bake/fit.js';
import { refitOverSamples } from '../src/bake/over-refit.js';
import type { MethodSamples } from '../src/bake/sampling.js';
import { updateHelpers } from '../src/bake/ssdr-helpers.js';

const identity = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
// Five vertices on helper 0 (joint 1 of the fit; joint 0, fixed, is the identity throughout):
// four about (−1, 0, 0), symmetric about the x axis, and vertex 4 at (1, 0, 0).
const rest = Float32Array.of(-1, 0.1, 0, -1, -0.1, 0, -1, 0, 0.1, -1, 0, -0.1, 1, 0, 0);
// Sample 0: the rest. Sample 1: vertex 4 moved 0.2 along x, the others where they were. A rigid
// helper can only slide along x (by symmetry no turn helps): with vertex 4 weighing W against the
// four, by 0.2·W/(4 + W), leaving vertex 4 0.8/(4 + W) from the method and the four 0.2·W/(4 + W).
const targets = [rest, Float32Array.of(-1, 0.1, 0, -1, -0.1, 0, -1, 0, 0.1, -1, 0, -0.1, 1.2, 0, 0)];
const all = [0, 1, 2, 3, 4];
/** Plain LBS's squared distances at both samples: 0 at the rest, `largest` at vertex 4 at sample 1 (its largest over the mesh there). */
const lbsSquared = (largest: number) => [new Float64Array(5), Float64Array.of(0, 0, 0, 0, largest ** 2)];

/** The fit, every vertex on the helper alone, its transforms the least-squares fit at both samples. */
function fitted(): FitData {
  const samples = {
    clips: [],
    rest: [rest, rest],
    targets,
    lbsSquared: lbsSquared(0),
    fixed: [Float64Array.from(identity), Float64Array.from(identity)],
    rate: 1,
    between: false,
  } as MethodSamples;
  const data = fitData(
    samples,
    { helpers: 1, influences: 1, transforms: [Float64Array.from(identity), Float64Array.from(identity)], joints: Uint32Array.of(1, 1, 1, 1, 1), weights: Float32Array.of(1, 1, 1, 1, 1) }, // prettier-ignore
    all,
    all.map(() => [0, 1]),
    [0],
    Int32Array.of(0, 1),
  );
  const { problem, model } = fitViews(data, true);
  updateHelpers(problem, model, [Int32Array.from(all)], 4);
  return data;
}

/** Each vertex's distance to the method at sample t, the helper's transform applied to its rest position here. */
function distances(data: FitData, t: number): number[] {
  const X = data.transforms.subarray(16 * t, 16 * t + 16);
  return all.map((i) => {
    const [x, y, z] = rest.subarray(3 * i, 3 * i + 3);
    const p = [0, 1, 2].map((r) => X[r] * x + X[4 + r] * y + X[8 + r] * z + X[12 + r]);
    return Math.hypot(p[0] - targets[t][3 * i], p[1] - targets[t][3 * i + 1], p[2] - targets[t][3 * i + 2]);
  });
}

describe('refitOverSamples: the helpers refitted where a fitted vertex is past LBS’s largest', () => {
  it('the least-squares helper: vertex 4 at 0.16 from the method, the four at 0.04', () => {
    const d = distances(fitted(), 1);
    expect(d[4]).toBeCloseTo(0.16, 6);
    for (const i of [0, 1, 2, 3]) expect(d[i]).toBeCloseTo(0.04, 6);
  });

  it('a bound of 0.12 (vertex 4 alone past it): refitted with it weighing 4, every vertex at 0.1; sample 0 untouched', () => {
    const data = fitted();
    const rest0 = data.transforms.slice(0, 16);
    const done = refitOverSamples(data, lbsSquared(0.12), [0, 1], 1e-9, 4);
    expect(done).toEqual({ samples: 1, refitted: 1, before: 1, after: 0 });
    for (const d of distances(data, 1)) expect(d).toBeCloseTo(0.1, 6);
    expect(Array.from(data.transforms.subarray(0, 16))).toEqual(Array.from(rest0));
  });

  it.each([
    { bound: 0.05, past: 1, why: 'weighing 4 puts all five at 0.1, 16 and 64 the four past 0.05' },
    { bound: 0.01, past: 5, why: 'below every vertex’s distance, no weight leaves fewer past' },
  ])('a bound of $bound ($why): none kept, the transforms restored', ({ bound, past }) => {
    const data = fitted();
    const saved = data.transforms.slice();
    const done = refitOverSamples(data, lbsSquared(bound), [0, 1], 1e-9, 4);
    expect(done).toEqual({ samples: 1, refitted: 0, before: past, after: past });
    expect(Array.from(data.transforms)).toEqual(Array.from(saved));
  });
});
