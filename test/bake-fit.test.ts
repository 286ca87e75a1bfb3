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

/**
 * The problem's samples and the fit's data: vertex i's candidates `candidates[i]`, the
 * alternation's subset samples 1–19. By default the three joints above; `move(j, t)`, where given,
 * how far along d joint j (of `joints`) moves the mesh at sample t, and `target(i, t)` the method's
 * a_i(t) (`atZero[i]` at sample 0 whatever it says).
 */
function problem(
  atZero: number[],
  candidates: number[][],
  move = (j: number, t: number): number => (j === 1 || (j === 2 && t === 0) ? 1 : 0),
  target = (_i: number, _t: number) => 0.5,
  joints_ = 3,
) {
  const n = atZero.length;
  const positions = Float32Array.from({ length: 3 * n }, (_, k) => (k % 3 === 0 ? k / 3 : 0));
  const a = (i: number, t: number) => (t === 0 ? atZero[i] : target(i, t));
  const samples: MethodSamples = {
    clips: [],
    rest: Array.from({ length: T }, () => positions),
    targets: Array.from({ length: T }, (_, t) => positions.map((x, k) => (k % 3 === 1 ? x + a(Math.floor(k / 3), t) : x))), // prettier-ignore
    lbsSquared: Array.from({ length: T }, (_, t) => Float64Array.from({ length: n }, (_, i) => a(i, t) ** 2)),
    fixed: Array.from({ length: T }, (_, t) => {
      const m = new Float64Array(16 * joints_);
      for (let j = 0; j < joints_; j++) {
        [0, 5, 10, 15].forEach((k) => (m[16 * j + k] = 1));
        m[16 * j + 13] = move(j, t);
      }
      return m;
    }),
    rate: 30,
    between: false,
  };
  const joints = new Uint32Array(K * n);
  const weights = new Float32Array(K * n);
  for (let i = 0; i < n; i++) {
    joints.set([0, 1, 2, joints_ > 3 ? 3 : 0], K * i);
    weights.set([0.5, 0.5, 0, 0], K * i);
  }
  const model = { helpers: 0, transforms: Array.from({ length: T }, () => new Float64Array(0)), influences: K, joints, weights }; // prettier-ignore
  const subset = Int32Array.from({ length: T - 1 }, (_, k) => k + 1);
  const active = Array.from({ length: n }, (_, i) => i);
  const data = fitData(samples, model, active, candidates, [], subset);
  /** Vertex i's weight on each joint as the fit holds them. */
  const played = (i: number) =>
    Array.from({ length: joints_ }, (_, j) => {
      let w = 0;
      for (let k = 0; k < K; k++) if (data.joints[K * i + k] === j) w += data.weights[K * i + k];
      return w;
    });
  return { samples, data, active, played, a, move };
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

  it('a peak’s solve is kept only where `holds` passes it too (the normals’ guard): refused, the vertex keeps its fitted weights', () => {
    // As above; `holds` refuses every weights of vertex 0 but those it was fitted with.
    const { samples, data, active, played } = problem(
      [1.0, 0.6, 0.9],
      [
        [0, 1, 2],
        [0, 1, 2],
        [0, 1],
      ],
    );
    const asked: number[] = [];
    const holds = (a: number) => {
      asked.push(a);
      return a !== 0 || played(0)[2] === 0;
    };
    const { kept, peaks } = keepFittedWeights(samples, active, data, undefined, holds);
    expect(Array.from(kept)).toEqual([1, 1, 1]);
    expect(peaks()).toEqual([]);
    expect(asked).toContain(0);
    expect(played(0)).toEqual([0.5, 0.5, 0]);
  });

  it('a peak whose solve breaks LBS’s largest at a quiet sample is solved again with that sample pinned', () => {
    // Joint 1 moves d at every sample but 10 (0.2 d there), where the method and every vertex
    // move 0.1 d: LBS's largest at sample 10 is 0.1. Joint 2 moves d at sample 0 and 0.4 d at
    // sample 10; joint 3 d at sample 0 and ±0.1 d at the others (by turns: no other weight can
    // make up for it). Vertex 0 (a peak: 1 at sample 0, 0.5 off) is cheapest in least squares on a
    // blend leaning on joint 2 (0.16 w2² against 0.19 w3²), which plays past LBS's 0.1 at sample
    // 10: rejected (with one attempt, no peak is solved); with sample 10 pinned, joint 3 takes the
    // peak, within 0.2 of the method at every sample.
    const move = (j: number, t: number) =>
      j === 1
        ? t === 10
          ? 0.2
          : 1
        : j === 2
          ? t === 0
            ? 1
            : t === 10
              ? 0.4
              : 0
          : j === 3
            ? t === 0
              ? 1
              : t % 2
                ? -0.1
                : 0.1
            : 0;
    const target = (_i: number, t: number) => (t === 10 ? 0.1 : 0.5);
    const { samples, data, active, played, a } = problem(
      [1.0, 0.5],
      [
        [0, 1, 2, 3],
        [0, 1],
      ],
      move,
      target,
      4,
    );
    const { kept, peaks } = keepFittedWeights(samples, active, data);
    expect(Array.from(kept)).toEqual([1, 1]);
    expect(peaks()).toEqual([0]);
    const w = played(0);
    const distance = (t: number) => Math.abs(w.reduce((s, wj, j) => s + wj * move(j, t), 0) - a(0, t));
    expect(distance(10)).toBeLessThanOrEqual(0.1);
    for (let t = 0; t < T; t++) expect(distance(t)).toBeLessThan(0.2); // 0.5 at sample 0 before
    expect(w[3]).toBeGreaterThan(w[2]);
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
