/**
 * Mean value coordinates by the trigonometric formula of Ju, Schaefer, Warren, "Mean Value
 * Coordinates for Closed Triangular Meshes" (SIGGRAPH 2005, Fig. 4's pseudo-code), written
 * independently of src/cage/mvc.ts (which uses the mean-vector form) as its test twin.
 */
import type { Cage } from '../../src/cage/cage.js';

export function mvcTrigonometric(cage: Cage, x: number[]): Float64Array {
  const p = cage.positions;
  const m = p.length / 3;
  const w = new Float64Array(m);
  const eps = 1e-12;
  const u: number[][] = [];
  const d: number[] = [];
  for (let i = 0; i < m; i++) {
    const e = [p[3 * i] - x[0], p[3 * i + 1] - x[1], p[3 * i + 2] - x[2]];
    d[i] = Math.hypot(...e);
    if (d[i] < eps) {
      w[i] = 1;
      return w;
    }
    u[i] = e.map((c) => c / d[i]);
  }
  const t = cage.triangles;
  for (let f = 0; f < t.length; f += 3) {
    const idx = [t[f], t[f + 1], t[f + 2]];
    const l = [0, 1, 2].map((i) => {
      const a = u[idx[(i + 1) % 3]],
        b = u[idx[(i + 2) % 3]];
      return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
    });
    const th = l.map((li) => 2 * Math.asin(Math.min(1, li / 2)));
    const h = (th[0] + th[1] + th[2]) / 2;
    if (Math.PI - h < 1e-9) {
      // x lies on t: barycentric coordinates.
      w.fill(0);
      const b = [0, 1, 2].map((i) => Math.sin(th[i]) * d[idx[(i + 2) % 3]] * d[idx[(i + 1) % 3]]);
      const s = b[0] + b[1] + b[2];
      for (let i = 0; i < 3; i++) w[idx[i]] = b[i] / s;
      return w;
    }
    const c = [0, 1, 2].map(
      (i) => (2 * Math.sin(h) * Math.sin(h - th[i])) / (Math.sin(th[(i + 1) % 3]) * Math.sin(th[(i + 2) % 3])) - 1,
    );
    const [a0, a1, a2] = idx.map((i) => u[i]);
    const det =
      a0[0] * (a1[1] * a2[2] - a1[2] * a2[1]) -
      a0[1] * (a1[0] * a2[2] - a1[2] * a2[0]) +
      a0[2] * (a1[0] * a2[1] - a1[1] * a2[0]);
    const s = c.map((ci) => Math.sign(det) * Math.sqrt(Math.max(0, 1 - ci * ci)));
    if (s.some((si) => Math.abs(si) <= eps)) continue; // x outside t, in its plane
    for (let i = 0; i < 3; i++) {
      const ip = (i + 1) % 3,
        im = (i + 2) % 3;
      w[idx[i]] += (th[i] - c[ip] * th[im] - c[im] * th[ip]) / (d[idx[i]] * Math.sin(th[ip]) * s[im]);
    }
  }
  const total = w.reduce((a, b) => a + b, 0);
  return w.map((v) => v / total);
}
