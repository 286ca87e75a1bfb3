/**
 * correctionBasis: every sample reproduced within its limits at every vertex, checked by brute
 * force against the samples; a basis no larger than the rank the samples were made with; vertices
 * within their limits everywhere left out; no basis where none can be.
 */
import { describe, expect, it } from 'vitest';
import { correctionBasis, type SampleCorrection } from '../src/bake/morph-basis.js';
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
    // Weights a player does not clamp: in [0, 1], the offset (last) at 1.
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
    });
  });
});
