/**
 * How the bake shares its helper joints out between joint regions (`helperCounts` in
 * src/bake/placement.ts, `--placement departure`), against an exhaustive search over every
 * allocation, and on CesiumMan's DQS bake against the even split.
 */
import { describe, expect, it } from 'vitest';
import { helperCounts } from '../src/bake/placement.js';
import { measureBake } from '../src/bake/measure.js';
import { deformers } from '../src/deformers/index.js';
import { bakeHelperJoints } from '../src/io/helper-bake.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { rng } from '../scripts/rng.mjs';
import { CESIUM_MAN } from './helpers/data.js';

/**
 * Brute force: of every allocation with each region between its floor (perRegion where its
 * largest departure is ≥ ¼ of the largest, else 1) and its cap (3·perRegion), each at most one
 * helper per 4 vertices, spending the budget (perRegion per region, at most one per 4 vertices)
 * or as much of it as the caps allow, the least Σ E_r / k_r.
 */
function bestAllocation(sizes: number[], energy: number[], most: number[], perRegion: number): number[] {
  const top = Math.max(...most);
  const room = sizes.map((s) => Math.floor(s / 4));
  const floor = room.map((r, i) => (r < 1 ? 0 : most[i] >= 0.25 * top ? Math.min(perRegion, r) : 1));
  const cap = room.map((r) => Math.min(3 * perRegion, r));
  const budget = room.reduce((t, r) => t + Math.min(perRegion, r), 0);
  const spend = Math.min(
    budget,
    cap.reduce((t, c) => t + c, 0),
  );
  let best: number[] = [];
  let bestCost = Infinity;
  const k = floor.slice();
  const visit = (r: number, used: number): void => {
    if (r === sizes.length) {
      if (used !== spend) return;
      const cost = k.reduce((t, x, i) => t + (x ? energy[i] / x : 0), 0);
      if (cost < bestCost - 1e-12) [best, bestCost] = [k.slice(), cost];
      return;
    }
    for (let x = floor[r]; x <= cap[r]; x++) {
      k[r] = x;
      visit(r + 1, used + x);
    }
    k[r] = floor[r];
  };
  visit(0, 0);
  return best;
}

describe('helperCounts: the helpers shared out by the departure', () => {
  it('spends the budget where it lowers Σ E_r / k_r the most, as an exhaustive search does (400 random cases)', () => {
    const random = rng(11);
    for (let trial = 0; trial < 400; trial++) {
      const regions = 1 + Math.floor(random() * 5);
      const perRegion = 1 + Math.floor(random() * 3);
      const departure: number[] = [];
      const lists = new Map<number, number[]>();
      const sizes: number[] = [], energy: number[] = [], most: number[] = []; // prettier-ignore
      for (let r = 0; r < regions; r++) {
        const size = 1 + Math.floor(random() * 30);
        const scale = random() ** 3;
        const list: number[] = [];
        for (let v = 0; v < size; v++) {
          list.push(departure.length);
          departure.push(scale * random());
        }
        lists.set(10 + r, list);
        sizes.push(size);
        energy.push(list.reduce((t, i) => t + departure[i] ** 2, 0));
        most.push(Math.max(...list.map((i) => departure[i])));
      }
      const counts = helperCounts(lists, Float64Array.from(departure), perRegion);
      const got = sizes.map((_, r) => counts.get(10 + r) ?? 0);
      const want = bestAllocation(sizes, energy, most, perRegion);
      const cost = (k: number[]) => k.reduce((t, x, i) => t + (x ? energy[i] / x : 0), 0);
      expect(
        got.reduce((a, b) => a + b, 0),
        `trial ${trial}`,
      ).toBe(want.reduce((a, b) => a + b, 0));
      expect(cost(got), `trial ${trial}: ${got} vs ${want}`).toBeCloseTo(cost(want), 9);
    }
  });

  it('keeps the old even split where every region departs far, and gives a quiet region 1', () => {
    const departure = Float64Array.from([...Array(40).fill(1), ...Array(40).fill(0.9), ...Array(40).fill(0.01)]);
    const ids = (from: number) => Array.from({ length: 40 }, (_, i) => from + i);
    const counts = helperCounts(new Map([[1, ids(0)], [2, ids(40)], [3, ids(80)]]), departure, 2); // prettier-ignore
    // Regions 1 and 2 keep 2; region 3 gets 1; its other helper goes to region 1 (E 40 against 32.4).
    expect([counts.get(1), counts.get(2), counts.get(3)]).toEqual([3, 2, 1]);
  });
});

describe('bake --placement on a real character', () => {
  it('CesiumMan, DQS: departure has no more helpers than even, more of the gap removed and no larger a max; auto keeps the closer as measured on the written file', async () => {
    const [original] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
    const bake = async (placement: 'auto' | 'even' | 'departure') => {
      const document = await readDocument(CESIUM_MAN);
      const [model] = extractSkinnedModels(document, CESIUM_MAN);
      const result = bakeHelperJoints(document, model, deformers.dqs, { placement });
      const [baked] = extractSkinnedModels(document, CESIUM_MAN);
      const m = measureBake(original, baked, deformers.dqs);
      // The bar auto measures against: 90% of the p99 gap removed, the max within a quarter of LBS's.
      return { result, m, score: m.p99 / m.lbsP99 / 0.1 + m.max / m.lbsMax / 0.25 };
    };
    const even = await bake('even');
    const shared = await bake('departure');
    // Measured: 36 helpers each; 89.4% → 90.6% of LBS's p99 distance removed, max 0.15 of LBS's both.
    expect(shared.result.helpers).toBeLessThanOrEqual(even.result.helpers);
    expect(1 - shared.m.p99 / shared.m.lbsP99).toBeGreaterThan(1 - even.m.p99 / even.m.lbsP99);
    expect(shared.m.max).toBeLessThanOrEqual(even.m.max * 1.01);
    const auto = await bake('auto');
    const closer = shared.score < even.score ? shared : even;
    expect(auto.result.placement).toBe(closer.result.placement);
    expect([auto.m.p99, auto.m.max]).toEqual([closer.m.p99, closer.m.max]);
  }, 180_000);
});
