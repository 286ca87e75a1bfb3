/**
 * The bake's 99th percentile by selection (`select` in src/bake/measure.ts) against sorting.
 */
import { describe, expect, it } from 'vitest';
import { select } from '../src/bake/measure.js';
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
