/**
 * The bake's order statistics (src/bake/percentile.ts) against sorting a copy.
 */
import { describe, expect, it } from 'vitest';
import {
  kthSmallest,
  maxAndP99,
  MaxAndP99Stream,
  maxAndP99Within,
  percentileIndex,
  select,
} from '../src/bake/percentile.js';
import { rng } from '../scripts/rng.mjs';

describe('select: the k-th smallest without sorting', () => {
  it('equals the sorted array at k on 3,000 random arrays (ties, constant, sorted, reversed)', () => {
    const random = rng(7);
    for (let trial = 0; trial < 3000; trial++) {
      const n = 1 + Math.floor(random() * 300);
      const kind = trial % 4;
      const a = Float32Array.from({ length: n }, (_, i) =>
        kind === 0 ? random() : kind === 1 ? Math.floor(random() * 4) : kind === 2 ? i : n - i,
      );
      if (trial % 50 === 0) a.fill(0.5);
      const sorted = a.slice().sort();
      const k = Math.floor(random() * n);
      expect(select(a.slice(), k)).toBe(sorted[k]);
    }
  });
});

describe('kthSmallest: a sample brackets the k-th value, one pass finds it', () => {
  const random = rng(11);
  // Layouts the bake's distances take (blocks of one sample's vertices, a few far outliers,
  // many exact zeros where vertices keep their influences) and ones that defeat a bracket.
  const layouts: Record<string, (n: number) => Float32Array> = {
    uniform: (n) => Float32Array.from({ length: n }, () => random()),
    'heavy tail': (n) => Float32Array.from({ length: n }, () => random() ** 8),
    'mostly zero': (n) => Float32Array.from({ length: n }, () => (random() < 0.995 ? 0 : random())),
    'four values': (n) => Float32Array.from({ length: n }, () => Math.floor(random() * 4)),
    constant: (n) => new Float32Array(n).fill(0.25),
    sorted: (n) => Float32Array.from({ length: n }, (_, i) => i),
    reversed: (n) => Float32Array.from({ length: n }, (_, i) => n - i),
    'blocks of 997': (n) => Float32Array.from({ length: n }, (_, i) => (i % 997) / 997 + Math.floor(i / 997) * 1e-6),
    'one huge value': (n) => Float32Array.from({ length: n }, (_, i) => (i === n >> 1 ? 1e30 : random())),
  };
  for (const [name, make] of Object.entries(layouts))
    it(`equals a sorted copy at the 99th percentile and elsewhere, and leaves the array as it was: ${name}`, () => {
      for (const n of [4097, 50_000, 1_200_000]) {
        const a = make(n);
        const before = a.slice();
        const sorted = a.slice().sort();
        for (const k of [percentileIndex(n), 0, n - 1, n >> 1, Math.floor(random() * n)])
          expect(kthSmallest(a, k)).toBe(sorted[k]);
        expect(a.every((x, i) => Object.is(x, before[i]))).toBe(true);
        const [max, p99] = maxAndP99(a);
        expect([max, p99]).toEqual([sorted[n - 1], sorted[percentileIndex(n)]]);
      }
    });

  it('maxAndP99: NaN counts as the largest; empty gives zeros', () => {
    const a = new Float32Array(10_000).fill(1);
    a[5] = NaN;
    expect(maxAndP99(a)).toEqual([NaN, NaN]);
    expect(maxAndP99(new Float32Array(0))).toEqual([0, 0]);
    // Above the bracket's threshold too, where the largest comes from the bracketing pass; the
    // k-th smallest there is the one among the other values (NaN is outside every bracket).
    const random = rng(3);
    const b = Float32Array.from({ length: 50_000 }, () => random());
    b[777] = NaN;
    expect(maxAndP99(b)).toEqual([NaN, NaN]);
    const others = b.filter((x) => !Number.isNaN(x)).sort();
    expect(kthSmallest(b, percentileIndex(b.length))).toBe(others[percentileIndex(b.length)]);
  });
});

describe('maxAndP99Within: the bounds checked by counting, as comparing the selected figures', () => {
  it('agrees with maxAndP99 compared to the bounds, of the values and of their square roots', () => {
    const random = rng(5);
    for (let trial = 0; trial < 2000; trial++) {
      const n = 1 + Math.floor(random() * 400);
      const a = Float32Array.from({ length: n }, () => (trial % 3 === 0 ? Math.floor(random() * 5) : random()));
      const [max, p99] = maxAndP99(a);
      // Bounds at, just above and just below the figures, and at random.
      const pick = (x: number) => [x, x + 1e-9, x - 1e-9, random()][trial % 4];
      const [maxBound, p99Bound] = [pick(max), pick(p99)];
      expect(maxAndP99Within(a, maxBound, p99Bound)).toBe(max <= maxBound && p99 <= p99Bound);
      const [rootMax, rootP99] = [Math.sqrt(max), Math.sqrt(p99)];
      const [rMaxBound, rP99Bound] = [pick(rootMax), pick(rootP99)];
      expect(maxAndP99Within(a, rMaxBound, rP99Bound, true)).toBe(rootMax <= rMaxBound && rootP99 <= rP99Bound);
    }
  });

  it('NaN is past any bound; an empty array is within', () => {
    expect(maxAndP99Within(Float32Array.of(0, NaN, 0), Infinity, Infinity)).toBe(false);
    expect(maxAndP99Within(new Float32Array(0), 0, 0)).toBe(true);
  });
});

describe('MaxAndP99Stream: the figures of values given a block at a time, without holding them', () => {
  const random = rng(13);
  /** Blocks of the bake's sizes and of odd ones, in layouts that cut often or never. */
  const layouts: Record<string, (n: number) => Float32Array> = {
    uniform: (n) => Float32Array.from({ length: n }, () => random()),
    rising: (n) => Float32Array.from({ length: n }, (_, i) => i + random()), // every block past the cut
    falling: (n) => Float32Array.from({ length: n }, (_, i) => n - i),
    'mostly zero': (n) => Float32Array.from({ length: n }, () => (random() < 0.995 ? 0 : random())),
    'two values': (n) => Float32Array.from({ length: n }, () => (random() < 0.5 ? 1 : 2)), // ties at the cut
    constant: (n) => new Float32Array(n).fill(0.125),
  };
  for (const [name, make] of Object.entries(layouts))
    it(`equals a sorted copy's largest and 99th percentile: ${name}`, () => {
      for (const [n, block] of [
        [1, 1],
        [777, 100],
        [65_537, 4096],
        [400_000, 35_000],
        [1_000_003, 997],
      ]) {
        const a = make(n);
        const stream = new MaxAndP99Stream(n);
        for (let i = 0; i < n; i += block) stream.push(a.subarray(i, i + block));
        const sorted = a.slice().sort();
        expect(stream.result()).toEqual([sorted[n - 1], sorted[percentileIndex(n)]]);
      }
    });

  it('two streams merged by their states give the figures of all their values (as two threads do)', () => {
    const n = 1_000_003;
    for (const [name, make] of Object.entries(layouts)) {
      const a = make(n);
      const sorted = a.slice().sort();
      // Uneven shares, each stream given its share in blocks (both cut before the merge).
      for (const share of [0.13, 0.5, 0.91]) {
        const k = Math.floor(share * n);
        const [mine, theirs] = [new MaxAndP99Stream(n), new MaxAndP99Stream(n)];
        for (let i = 0; i < k; i += 35_000) mine.push(a.subarray(i, Math.min(k, i + 35_000)));
        for (let i = k; i < n; i += 35_000) theirs.push(a.subarray(i, i + 35_000));
        mine.merge(theirs.state());
        expect(mine.result(), `${name}, ${share}`).toEqual([sorted[n - 1], sorted[percentileIndex(n)]]);
      }
    }
    // A NaN on the merged side only; values that are all −∞; a stream of another total.
    const [mine, theirs] = [new MaxAndP99Stream(100_000), new MaxAndP99Stream(100_000)];
    mine.push(new Float32Array(60_000).fill(1));
    theirs.push(Float32Array.from({ length: 40_000 }, (_, i) => (i === 7 ? NaN : 2)));
    mine.merge(theirs.state());
    expect(mine.result()).toEqual([NaN, NaN]);
    const [low, lower] = [new MaxAndP99Stream(1000), new MaxAndP99Stream(1000)];
    low.push(new Float32Array(500).fill(-Infinity));
    lower.push(new Float32Array(500).fill(-Infinity));
    low.merge(lower.state());
    expect(low.result()).toEqual([-Infinity, -Infinity]);
    expect(() => low.merge(new MaxAndP99Stream(999).state())).toThrow(/of 999 values into one of 1000/);
  });

  it('NaN makes both NaN, as maxAndP99; none gives zeros; a wrong count throws', () => {
    const withNan = new MaxAndP99Stream(200_000);
    const a = Float32Array.from({ length: 200_000 }, () => random());
    a[123_456] = NaN;
    withNan.push(a);
    expect(withNan.result()).toEqual([NaN, NaN]);
    expect(new MaxAndP99Stream(0).result()).toEqual([0, 0]);
    const short = new MaxAndP99Stream(10);
    short.push(new Float32Array(9));
    expect(() => short.result()).toThrow(/10 values expected, 9 given/);
    expect(() => new MaxAndP99Stream(-1)).toThrow(RangeError);
  });
});
