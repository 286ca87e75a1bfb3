/**
 * correctionBasis: every sample reproduced within its limits at every vertex, checked by brute
 * force against the samples; a basis no larger than the rank the samples were made with; vertices
 * within their limits everywhere left out; no basis where none can be.
 */
import { describe, expect, it } from 'vitest';
import { correctionBasis, type SampleCorrection } from '../src/bake/morph-basis.js';
import { quantizeTargets } from '../src/bake/target-quantization.js';
import { rng } from './helpers/data.js';

/** S samples of n vertices, A arrays: random combinations of `rank` random fields, plus `noise` × limit per value. */
function synthetic(S: number, n: number, A: number, rank: number, noise: number, seed: number) {
  const random = rng(seed);
  const limits = Array.from({ length: A }, () => Float32Array.from({ length: n }, () => 1e-3 * (0.5 + 1.5 * random())));
  const quiet = new Set(Array.from({ length: n / 5 }, (_, k) => 5 * k)); // every fifth vertex: noise only
  const fields = Array.from({ length: rank }, () =>
    Array.from({ length: A }, () => Float32Array.from({ length: 3 * n }, () => 0.05 * (random() - 0.5))),
  );
  const samples: SampleCorrection[] = Array.from({ length: S }, () => {
    const w = fields.map(() => 2 * random() - 1);
    return Array.from({ length: A }, (_, a) =>
      Float32Array.from({ length: 3 * n }, (_, i) => {
        const v = Math.floor(i / 3);
        const signal = quiet.has(v) ? 0 : fields.reduce((x, f, k) => x + w[k] * f[a][i], 0);
        return signal + (noise * limits[a][v] * (random() - 0.5)) / Math.sqrt(3);
      }),
    );
  });
  return { samples, limits, quiet };
}

/** The largest |x − Σ w B| ÷ limit over every sample, vertex and array (in double precision). */
function worst(
  samples: readonly SampleCorrection[],
  limits: readonly Float32Array[],
  basis: NonNullable<ReturnType<typeof correctionBasis>>,
): number {
  let worst = 0;
  samples.forEach((x, s) =>
    x.forEach((d, a) => {
      for (let v = 0; v < limits[a].length; v++) {
        const r = [0, 1, 2].map(
          (c) => d[3 * v + c] - basis.targets.reduce((y, t, k) => y + basis.weights[s][k] * t[a][3 * v + c], 0),
        );
        const off = Math.hypot(r[0], r[1], r[2]);
        worst = Math.max(worst, limits[a][v] > 0 ? off / limits[a][v] : off > 0 ? Infinity : 0);
      }
    }),
  );
  return worst;
}

describe('correctionBasis', () => {
  it('reproduces 60 samples of rank 6 (with noise under half the limits) within the limits everywhere, with at most 6 fields and an offset', () => {
    const { samples, limits, quiet } = synthetic(60, 300, 2, 6, 0.5, 1);
    const basis = correctionBasis(samples, limits, 59)!;
    expect(basis.targets.length).toBeGreaterThan(1);
    expect(basis.targets.length).toBeLessThanOrEqual(7);
    expect(basis.weights).toHaveLength(60);
    // Weights a player does not clamp: in [0, 1], the offset (last; the fields' weights change sign) at 1.
    for (const w of basis.weights) {
      expect(Math.min(...w)).toBeGreaterThanOrEqual(0);
      expect(Math.max(...w)).toBeLessThanOrEqual(1);
      expect(w[w.length - 1]).toBe(1);
    }
    expect(worst(samples, limits, basis)).toBeLessThanOrEqual(1 + 1e-5);
    // The noise-only vertices are within their limits at every sample: 0 in every target.
    for (const t of basis.targets)
      for (const a of t) for (const v of quiet) expect([a[3 * v], a[3 * v + 1], a[3 * v + 2]]).toEqual([0, 0, 0]);
  });

  it('needs more targets when the noise exceeds the limits, and still holds every sample', () => {
    const { samples, limits } = synthetic(30, 120, 1, 3, 4, 2);
    const basis = correctionBasis(samples, limits, 30)!;
    expect(basis.targets.length).toBeGreaterThan(4);
    expect(worst(samples, limits, basis)).toBeLessThanOrEqual(1 + 1e-5);
  });

  it('gives none when more targets than allowed would be needed, or a limit is 0 under a correction', () => {
    const { samples, limits } = synthetic(30, 120, 1, 8, 0.5, 3);
    expect(correctionBasis(samples, limits, 5)).toBeUndefined();
    expect(correctionBasis(samples, limits, 8)?.targets.length).toBeLessThanOrEqual(9);
    const zero = [limits[0].map((l, v) => (v === 7 ? 0 : l))];
    expect(correctionBasis(samples, zero, 30)).toBeUndefined();
    // A zero limit where that array is 0 at every sample (a zero-length rest normal) is no obstacle.
    for (const x of samples) x[0].fill(0, 21, 24);
    expect(worst(samples, zero, correctionBasis(samples, zero, 30)!)).toBeLessThanOrEqual(1 + 1e-5);
  });

  it('gives an empty basis when every sample is within its limits', () => {
    const { samples, limits } = synthetic(10, 50, 2, 0, 0.9, 4);
    expect(correctionBasis(samples, limits, 9)).toEqual({
      targets: [],
      weights: Array.from({ length: 10 }, () => new Float64Array(0)),
      positionResidual: Float32Array.from({ length: 50 }, (_, v) => Math.max(...samples.map(([x]) => Math.hypot(x[3 * v], x[3 * v + 1], x[3 * v + 2])))), // prettier-ignore
    });
  });

  it("reports each vertex's largest residual over the samples, as brute force measures it", () => {
    const { samples, limits } = synthetic(40, 90, 1, 4, 1.5, 5);
    const basis = correctionBasis(samples, limits, 39)!;
    for (let v = 0; v < 90; v++) {
      let largest = 0;
      samples.forEach((x, s) => {
        const r = [0, 1, 2].map((c) => x[0][3 * v + c] - basis.targets.reduce((y, t, k) => y + basis.weights[s][k] * t[0][3 * v + c], 0)); // prettier-ignore
        largest = Math.max(largest, Math.hypot(r[0], r[1], r[2]));
      });
      // Within float32 rounding of the stored targets (the basis measures before it).
      expect(Math.abs(basis.positionResidual[v] - largest)).toBeLessThan(1e-5 * limits[0][v]);
      expect(basis.positionResidual[v]).toBeLessThanOrEqual(limits[0][v] * (1 + 1e-5));
    }
  });

  it('localizes the fields (varimax): two regions whose corrections carry the same energy, one target each', () => {
    // Region A (vertices 0–49) moves with sample weight a, region B (50–99) with b, independent
    // and of the same spread: their principal directions are any mix of the two, nonzero on both.
    const random = rng(6);
    const n = 100;
    const limits = [new Float32Array(n).fill(1e-4)];
    const shape = Float32Array.from({ length: 3 * n }, () => 0.01 * (random() - 0.5));
    const samples: SampleCorrection[] = Array.from({ length: 50 }, () => {
      const [a, b] = [2 * random() - 1, 2 * random() - 1];
      return [shape.map((x, i) => x * (i < 150 ? a : b))];
    });
    const basis = correctionBasis(samples, limits, 49)!;
    expect(worst(samples, limits, basis)).toBeLessThanOrEqual(1 + 1e-5);
    // Two fields (and the offset): each on one region only.
    const fields = basis.targets.slice(0, 2);
    expect(basis.targets.length).toBeLessThanOrEqual(3);
    const onRegion = (t: Float32Array[], from: number) => t[0].slice(3 * from, 3 * from + 150).some((x) => x !== 0);
    expect(fields.map((t) => [onRegion(t, 0), onRegion(t, 50)].filter(Boolean).length)).toEqual([1, 1]);
  });

  it("needs no offset target where every field's weights keep one sign, and each weight spans [0, 1]", () => {
    // Every sample a non-negative multiple of one field: one target, weights in [0, 1], no offset.
    const random = rng(7);
    const n = 60;
    const limits = [new Float32Array(n).fill(1e-4)];
    const field = Float32Array.from({ length: 3 * n }, () => 0.01 * (random() - 0.5));
    const a = Array.from({ length: 20 }, () => random());
    const samples: SampleCorrection[] = a.map((x) => [field.map((y) => x * y)]);
    const basis = correctionBasis(samples, limits, 19)!;
    expect(basis.targets).toHaveLength(1);
    expect(worst(samples, limits, basis)).toBeLessThanOrEqual(1 + 1e-5);
    const w = basis.weights.map((x) => x[0]);
    expect([Math.min(...w), Math.max(...w)]).toEqual([expect.closeTo(Math.min(...a) / Math.max(...a), 6), 1]);
  });

  it('with shortPositions, leaves each vertex room for the 16-bit rounding: quantizeTargets keeps every target short, and the rounded basis holds every sample (brute force)', () => {
    // Corrections of rank 3 whose 16-bit steps are a few percent of the limits, plus noise of
    // 0.8 × the limits (fitted to 0.9 of them, then dropped up to the limits).
    const random = rng(8);
    const n = 150;
    const limits = [new Float32Array(n).fill(5e-4)];
    const fields = Array.from({ length: 3 }, () => Float32Array.from({ length: 3 * n }, () => 0.3 * (random() - 0.5)));
    const samples: SampleCorrection[] = Array.from({ length: 40 }, () => {
      const w = fields.map(() => 2 * random() - 1);
      const x = Float32Array.from({ length: 3 * n }, (_, i) => fields.reduce((y, f, k) => y + w[k] * f[i], 0));
      for (let v = 0; v < n; v++) {
        const d = [random() - 0.5, random() - 0.5, random() - 0.5];
        const l = Math.hypot(d[0], d[1], d[2]);
        for (let c = 0; c < 3; c++) x[3 * v + c] += (0.8 * 5e-4 * d[c]) / l;
      }
      return [x];
    });
    const gain = new Float32Array(n).fill(1);
    for (const shortPositions of [false, true]) {
      const basis = correctionBasis(samples, limits, 39, undefined, { fit: 0.9, shortPositions })!;
      const budget = limits[0].map((l, v) => l - basis.positionResidual[v]);
      const { steps } = quantizeTargets(
        basis.targets.map((t) => t[0]),
        basis.weights,
        gain,
        budget,
      );
      // Without the room, some target must stay float to hold the samples.
      expect(Array.from(steps).every((q) => q > 0)).toBe(shortPositions);
      const rounded = { ...basis, targets: basis.targets.map((t, k) => [steps[k] ? t[0].map((x) => steps[k] * Math.round(x / steps[k])) : t[0]]) }; // prettier-ignore
      expect(worst(samples, limits, rounded)).toBeLessThanOrEqual(1 + 1e-5);
    }
  });
});
