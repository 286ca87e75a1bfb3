/**
 * The helper fit's peaks (`src/bake/never-worse.ts`) on a synthetic problem with known answers,
 * one pose unlike the others (as Ybot's `dance` opens on), and how a fit plays them
 * (`applyPeaks`, `src/bake/helper-fit.ts`).
 *
 * Three joints: 0 at rest, 1 moving the mesh by d = (0, 1, 0) at every sample, 2 by d at sample 0
 * alone. A vertex with weights (w0, w1, w2) plays x + (w1 + [t = 0]·w2)·d; the method's target is
 * x + a_i(t)·d, so its distance is |w1 + [t = 0]·w2 − a_i(t)|, with a_i(t) = 0.5 at every sample
 * but 0, where it is `atZero[i]`. Every vertex starts at (0.5, 0.5, 0) (the fit of samples 1–19,
 * which leave w2 free) and plays LBS with its own weights (1, 0, 0).
 */
import { describe, expect, it } from 'vitest';
import { fitData } from '../src/bake/fit.js';
import { applyPeaks, type HelperCandidate } from '../src/bake/helper-fit.js';
import { keepFittedWeights } from '../src/bake/never-worse.js';
import type { MethodSamples } from '../src/bake/sampling.js';

const T = 20;
const K = 4;

/** The problem's samples and the fit's data: vertex i's candidates `candidates[i]`, the alternation's subset samples 1–19. */
function problem(atZero: number[], candidates: number[][]) {
  const n = atZero.length;
  const positions = Float32Array.from({ length: 3 * n }, (_, k) => (k % 3 === 0 ? k / 3 : 0));
  const a = (i: number, t: number) => (t === 0 ? atZero[i] : 0.5);
  const samples: MethodSamples = {
    clips: [],
    rest: Array.from({ length: T }, () => positions),
    targets: Array.from({ length: T }, (_, t) => positions.map((x, k) => (k % 3 === 1 ? x + a(Math.floor(k / 3), t) : x))), // prettier-ignore
    lbsSquared: Array.from({ length: T }, (_, t) => Float64Array.from({ length: n }, (_, i) => a(i, t) ** 2)),
    fixed: Array.from({ length: T }, (_, t) => {
      const m = new Float64Array(48);
      for (const j of [0, 1, 2]) [0, 5, 10, 15].forEach((k) => (m[16 * j + k] = 1));
      m[16 + 13] = 1;
      if (t === 0) m[32 + 13] = 1;
      return m;
    }),
    rate: 30,
    between: false,
  };
  const joints = new Uint32Array(K * n);
  const weights = new Float32Array(K * n);
  for (let i = 0; i < n; i++) {
    joints.set([0, 1, 2, 0], K * i);
    weights.set([0.5, 0.5, 0, 0], K * i);
  }
  const model = { helpers: 0, transforms: Array.from({ length: T }, () => new Float64Array(0)), influences: K, joints, weights }; // prettier-ignore
  const subset = Int32Array.from({ length: T - 1 }, (_, k) => k + 1);
  const active = Array.from({ length: n }, (_, i) => i);
  const data = fitData(samples, model, active, candidates, [], subset);
  /** Vertex i's weight on joints 0, 1 and 2 as the fit holds them. */
  const played = (i: number) =>
    [0, 1, 2].map((j) => {
      let w = 0;
      for (let k = 0; k < K; k++) if (data.joints[K * i + k] === j) w += data.weights[K * i + k];
      return w;
    });
  return { samples, data, active, played };
}

describe("the helper fit's peaks, on a pose unlike the others", () => {
  it('a kept vertex past 0.2 of LBS’s largest distance is solved again where that lowers its largest at little cost; others are left alone', () => {
    // LBS's largest over the mesh is 1 (vertex 0 at sample 0): a peak is past 0.2. Vertex 0 may
    // take joint 2; vertex 1 too, but is within the share (0.1 off at sample 0); vertex 2 may not
    // (joints 0 and 1 only): lowering its largest (0.4) costs more than 1.5× its summed squares.
    // (The peaks' solves weigh every keyed sample, and sample 0 more.)
    const { samples, data, active, played } = problem(
      [1.0, 0.6, 0.9],
      [
        [0, 1, 2],
        [0, 1, 2],
        [0, 1],
      ],
    );
    const { kept, givenBack, peaks } = keepFittedWeights(samples, active, data);
    expect(Array.from(kept)).toEqual([1, 1, 1]);
    expect(givenBack).toBe(0);
    expect(peaks()).toEqual([0]);
    played(0).forEach((w, j) => expect(w).toBeCloseTo([0, 0.5, 0.5][j], 3));
    for (const i of [1, 2]) expect(played(i)).toEqual([0.5, 0.5, 0]);
  });

  it('applyPeaks plays the rows on the kept fit, drops a helper no vertex plays any more, and leaves the model as it was when told not to keep them', () => {
    // J = 2 joints, helpers 2 and 3 (H = 2), K = 2: vertex 0 on joint 0 and helper 2, vertex 1 on
    // joint 1 and helper 3; vertex 1's peak row takes it off helper 3, which no one else plays.
    const J = 2;
    const candidate = () =>
      ({
        model: {
          helpers: 2,
          transforms: [Float64Array.from({ length: 32 }, (_, k) => k)],
          influences: 2,
          joints: new Uint32Array([0, 2, 1, 3]),
          weights: new Float32Array([0.5, 0.5, 0.6, 0.4]),
        },
        own: new Uint8Array([0, 0]),
        used: new Uint8Array([1, 1]),
        helpersKept: 2,
        peaks: [{ vertex: 1, joints: new Uint32Array([1, 0]), weights: new Float32Array([1, 0]) }],
      }) as unknown as HelperCandidate;
    const refused = candidate();
    expect(applyPeaks(refused, J, () => false)).toBe(0);
    expect(Array.from(refused.model.joints)).toEqual([0, 2, 1, 3]);
    expect(Array.from(refused.model.weights)).toEqual([0.5, 0.5, 0.6, 0.4].map(Math.fround));
    expect(refused.helpersKept).toBe(2);
    expect(refused.peaks).toEqual([]); // played once at most
    const kept = candidate();
    expect(applyPeaks(kept, J)).toBe(1);
    expect(Array.from(kept.model.joints)).toEqual([0, 2, 1, 0]);
    expect(Array.from(kept.model.weights)).toEqual([0.5, 0.5, 1, 0]);
    expect(kept.helpersKept).toBe(1);
    expect(kept.model.helpers).toBe(1);
    expect(Array.from(kept.used)).toEqual([1, 0]);
    expect(Array.from(kept.model.transforms[0])).toEqual(Array.from({ length: 16 }, (_, k) => k)); // helper 2's
  });
});
