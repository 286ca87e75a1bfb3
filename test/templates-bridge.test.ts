/**
 * The minimal-area bridge between two rings of a template cage (Fuchs, Kedem, Uselton 1977):
 * against a brute-force search over every band (every start and every order of advancing on the
 * two rings), and the band's topology.
 */
import { describe, expect, it } from 'vitest';
import { minimalAreaBridge } from '../src/methods/templates/bridge.js';

/** Two rings about the z axis: A (m vertices) at z = 0, B (n) at z = h, B turned by `turn` rad; noisy. */
function rings(m: number, n: number, turn: number, seed: number) {
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5;
  const positions: number[] = [];
  const ring = (count: number, z: number, r: number, phase: number) =>
    Array.from({ length: count }, (_, i) => {
      const t = phase + (2 * Math.PI * i) / count;
      positions.push((r + 0.2 * rnd()) * Math.cos(t), (r + 0.2 * rnd()) * Math.sin(t), z + 0.1 * rnd());
      return positions.length / 3 - 1;
    });
  const a = ring(m, 0, 1, 0);
  const b = ring(n, 0.7, 0.8, turn);
  return { positions, a, b };
}

const triangleArea = (p: number[], i: number, j: number, k: number) => {
  const u = [0, 1, 2].map((c) => p[3 * j + c] - p[3 * i + c]);
  const v = [0, 1, 2].map((c) => p[3 * k + c] - p[3 * i + c]);
  return 0.5 * Math.hypot(u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]);
};

/**
 * Every band: each start partner of a_0, each order of m steps on A and n on B — a band only
 * when every edge between the rings lies in two of its triangles (an order that fans one ring to
 * a vertex of the other and back puts one edge in four). `degenerate` counts those too.
 */
function bruteForce(p: number[], a: number[], b: number[], degenerate = false): number {
  const m = a.length, n = b.length; // prettier-ignore
  let best = Infinity;
  for (let o = 0; o < n; o++)
    for (let mask = 0; mask < 2 ** (m + n); mask++) {
      let ones = 0;
      for (let k = 0; k < m + n; k++) ones += (mask >> k) & 1;
      if (ones !== m) continue; // bit set: a step on A
      let [i, j, total] = [0, 0, 0];
      const across = new Map<string, number>();
      const edge = (x: number, y: number) => across.set(`${x},${y}`, (across.get(`${x},${y}`) ?? 0) + 1);
      for (let k = 0; k < m + n; k++) {
        const onA = (mask >> k) & 1;
        const [ai, bj] = [a[i % m], b[(o + j) % n]];
        if (onA) {
          total += triangleArea(p, ai, a[(i + 1) % m], bj);
          edge(ai, bj);
          edge(a[(i + 1) % m], bj);
          i++;
        } else {
          total += triangleArea(p, ai, b[(o + j + 1) % n], bj);
          edge(ai, bj);
          edge(ai, b[(o + j + 1) % n]);
          j++;
        }
      }
      if (degenerate || [...across.values()].every((c) => c === 2)) best = Math.min(best, total);
    }
  return best;
}

describe('minimal-area bridge between two rings', () => {
  it.each([
    [5, 4, 0.3, 1],
    [4, 6, 2.0, 2],
    [6, 6, 1.1, 3],
    [3, 7, -0.8, 4],
  ])('%i and %i vertices, turned %f rad: the least total area of every band (brute force)', (m, n, turn, seed) => {
    const { positions, a, b } = rings(m, n, turn, seed);
    const bridge = minimalAreaBridge(positions, a, b);
    expect(bridge.area).toBeCloseTo(bruteForce(positions, a, b), 12);
    // Its triangles sum to its area, and it is a closed band: every ring edge once, a_i → a_{i+1}
    // and b_{j+1} → b_j, every edge between the rings twice (once each way).
    let total = 0;
    const edges = new Map<string, number>();
    const t = bridge.triangles;
    expect(t.length).toBe(3 * (m + n));
    for (let f = 0; f < t.length; f += 3) {
      total += triangleArea(positions, t[f], t[f + 1], t[f + 2]);
      for (let c = 0; c < 3; c++) {
        const key = `${t[f + c]}>${t[f + ((c + 1) % 3)]}`;
        edges.set(key, (edges.get(key) ?? 0) + 1);
      }
    }
    expect(total).toBeCloseTo(bridge.area, 12);
    for (let i = 0; i < m; i++) expect(edges.get(`${a[i]}>${a[(i + 1) % m]}`)).toBe(1);
    for (let j = 0; j < n; j++) expect(edges.get(`${b[(j + 1) % n]}>${b[j]}`)).toBe(1);
    for (const [key, count] of edges) {
      expect(count).toBe(1);
      const [x, y] = key.split('>').map(Number);
      if (a.includes(x) !== a.includes(y)) expect(edges.get(`${y}>${x}`)).toBe(1);
    }
  });

  it('rings that cross or lie far apart (a sharply bent joint): still a band of the least area, never a ring fanned to one vertex and back', () => {
    let s = 11;
    const rnd = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5;
    let fannedWouldWin = 0;
    for (let trial = 0; trial < 60; trial++) {
      // A: a unit square at z = 0; B: a square of random size, place and tilt.
      const positions: number[] = [];
      const [cx, cy, r, tilt] = [2 * rnd(), 2 * rnd(), 0.05 + Math.abs(rnd()), 3 * rnd()];
      for (let i = 0; i < 4; i++) positions.push(Math.cos((i * Math.PI) / 2), Math.sin((i * Math.PI) / 2), 0);
      for (let j = 0; j < 4; j++) {
        const t = (j * Math.PI) / 2;
        positions.push(cx + r * Math.cos(t), cy + r * Math.sin(t) * Math.cos(tilt), r * Math.sin(t) * Math.sin(tilt));
      }
      const [a, b] = [
        [0, 1, 2, 3],
        [4, 5, 6, 7],
      ];
      const bridge = minimalAreaBridge(positions, a, b);
      expect(bridge.area).toBeCloseTo(bruteForce(positions, a, b), 12);
      const across = new Map<string, number>();
      for (let f = 0; f < bridge.triangles.length; f += 3)
        for (let c = 0; c < 3; c++) {
          const [x, y] = [bridge.triangles[f + c], bridge.triangles[f + ((c + 1) % 3)]];
          if (a.includes(x) !== a.includes(y)) across.set(`${Math.min(x, y)},${Math.max(x, y)}`, (across.get(`${Math.min(x, y)},${Math.max(x, y)}`) ?? 0) + 1); // prettier-ignore
        }
      for (const count of across.values()) expect(count).toBe(2);
      if (bruteForce(positions, a, b, true) < bridge.area - 1e-12) fannedWouldWin++;
    }
    // The cases the test is for: where a fan to one vertex and back would have had less area.
    expect(fannedWouldWin).toBeGreaterThan(0);
  });

  it('matches a turned ring to its nearest partners: two 8-vertex rings turned by two steps bridge like unturned ones', () => {
    const square = rings(8, 8, 0, 9);
    const turned = { ...square, b: [...square.b.slice(2), ...square.b.slice(0, 2)] }; // same ring, numbered from b_2
    const fixed = (r: typeof square) => {
      // The fixed pairing a_i ↔ b_i, each quad split along a_i b_{i+1}.
      let total = 0;
      for (let i = 0; i < 8; i++)
        total += triangleArea(r.positions, r.a[i], r.a[(i + 1) % 8], r.b[(i + 1) % 8]) + triangleArea(r.positions, r.a[i], r.b[(i + 1) % 8], r.b[i]); // prettier-ignore
      return total;
    };
    const ours = minimalAreaBridge(turned.positions, turned.a, turned.b).area;
    expect(ours).toBeCloseTo(minimalAreaBridge(square.positions, square.a, square.b).area, 12);
    expect(ours).toBeLessThanOrEqual(fixed(square) + 1e-12);
    expect(fixed(turned)).toBeGreaterThan(1.3 * ours); // the fixed pairing twists the band
  });
});
