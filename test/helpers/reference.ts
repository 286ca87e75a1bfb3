/**
 * Brute-force reference of the CoR precomputation, written independently of src/cor:
 * dense weights, a global edge-splitting subdivision with an edge→midpoint map (passes until no
 * edge is longer than ε in weight space), and Eq. 4 of seed 000 evaluated literally with the
 * ordered double sum over j ≠ k of Eq. 1.
 */
import type { SkinnedMesh } from '../../src/core/mesh.js';

export interface ReferenceDomain {
  J: number;
  /** Per sub-triangle: area, centroid (3), mean dense weights (J). */
  areas: number[];
  centroids: number[][];
  weights: Float64Array[];
}

function dist(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let j = 0; j < a.length; j++) s += (a[j] - b[j]) ** 2;
  return Math.sqrt(s);
}

export function referenceDomain(mesh: SkinnedMesh, epsilon: number): ReferenceDomain {
  let J = 0;
  for (let i = 0; i < mesh.joints.length; i++) if (mesh.weights[i] > 0) J = Math.max(J, mesh.joints[i] + 1);
  const n = mesh.positions.length / 3;
  const P: number[][] = [];
  const W: Float64Array[] = [];
  for (let i = 0; i < n; i++) {
    P.push([mesh.positions[3 * i], mesh.positions[3 * i + 1], mesh.positions[3 * i + 2]]);
    const w = new Float64Array(J);
    for (let k = 0; k < mesh.influences; k++) {
      const x = mesh.weights[mesh.influences * i + k];
      if (x > 0) w[mesh.joints[mesh.influences * i + k]] += x;
    }
    W.push(w);
  }
  let tris: number[][] = [];
  for (let t = 0; t < mesh.triangles.length; t += 3)
    tris.push([mesh.triangles[t], mesh.triangles[t + 1], mesh.triangles[t + 2]]);
  const area = (t: number[]) => {
    const [a, b, c] = t.map((v) => P[v]);
    const u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    const v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    return 0.5 * Math.hypot(u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]);
  };
  tris = tris.filter((t) => area(t) > 0);
  const mids = new Map<string, number>();
  const mid = (a: number, b: number) => {
    const key = a < b ? `${a},${b}` : `${b},${a}`;
    let m = mids.get(key);
    if (m === undefined) {
      m = P.length;
      P.push(P[a].map((x, d) => 0.5 * (x + P[b][d])));
      W.push(W[a].map((x, j) => 0.5 * (x + W[b][j])));
      mids.set(key, m);
    }
    return m;
  };
  for (let pass = 0; pass < 60; pass++) {
    const next: number[][] = [];
    let split = false;
    for (const t of tris) {
      const long = [0, 1, 2].map((e) => dist(W[t[e]], W[t[(e + 1) % 3]]) > epsilon);
      const marks = long.filter(Boolean).length;
      if (marks === 0) {
        next.push(t);
        continue;
      }
      split = true;
      let r = 0;
      if (marks === 1) r = long.indexOf(true);
      else if (marks === 2) r = (long.indexOf(false) + 1) % 3; // unmarked edge becomes (c, a)
      const [a, b, c] = [t[r], t[(r + 1) % 3], t[(r + 2) % 3]];
      if (marks === 1) {
        const m = mid(a, b);
        next.push([a, m, c], [m, b, c]);
      } else if (marks === 3) {
        const ab = mid(a, b),
          bc = mid(b, c),
          ca = mid(c, a);
        next.push([a, ab, ca], [ab, b, bc], [ca, bc, c], [ab, bc, ca]);
      } else {
        const ab = mid(a, b),
          bc = mid(b, c);
        next.push([ab, b, bc]);
        if (dist(W[a], W[bc]) <= dist(W[ab], W[c])) next.push([a, ab, bc], [a, bc, c]);
        else next.push([a, ab, c], [ab, bc, c]);
      }
    }
    tris = next;
    if (!split) break;
  }
  const dom: ReferenceDomain = { J, areas: [], centroids: [], weights: [] };
  for (const t of tris) {
    dom.areas.push(area(t));
    dom.centroids.push([0, 1, 2].map((d) => (P[t[0]][d] + P[t[1]][d] + P[t[2]][d]) / 3));
    dom.weights.push(W[t[0]].map((x, j) => (x + W[t[1]][j] + W[t[2]][j]) / 3));
  }
  return dom;
}

/** Eq. 1, literally: ordered pairs j ≠ k. */
export function similarity(wp: Float64Array, wv: Float64Array, sigma: number, pairs: [number, number][]): number {
  let s = 0;
  for (const [j, k] of pairs) {
    const d = wp[j] * wv[k] - wp[k] * wv[j];
    s += wp[j] * wp[k] * wv[j] * wv[k] * Math.exp(-(d * d) / (sigma * sigma));
  }
  return s;
}

/** Eq. 4 for vertex i; null when the vertex has fewer than two influences. */
export function referenceCenter(mesh: SkinnedMesh, dom: ReferenceDomain, i: number, sigma: number): number[] | null {
  const wp = new Float64Array(dom.J);
  for (let k = 0; k < mesh.influences; k++) {
    const x = mesh.weights[mesh.influences * i + k];
    if (x > 0) wp[mesh.joints[mesh.influences * i + k]] += x;
  }
  const pairs: [number, number][] = [];
  for (let j = 0; j < dom.J; j++)
    for (let k = 0; k < dom.J; k++) if (j !== k && wp[j] > 0 && wp[k] > 0) pairs.push([j, k]);
  if (!pairs.length) return null;
  const num = [0, 0, 0];
  let den = 0;
  for (let t = 0; t < dom.areas.length; t++) {
    const s = similarity(wp, dom.weights[t], sigma, pairs) * dom.areas[t];
    den += s;
    for (let d = 0; d < 3; d++) num[d] += s * dom.centroids[t][d];
  }
  return num.map((x) => x / den);
}

/** p-th percentile (0..100) of values. */
export function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}
