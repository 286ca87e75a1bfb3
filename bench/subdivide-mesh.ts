/**
 * Loop-free 1→4 midpoint subdivision of a skinned mesh for the benchmark's growth series: every
 * edge gets its midpoint (position, normal, weights interpolated; influences merged, the K
 * largest kept and renormalised). Not Loop/Catmull–Clark smoothing: the shape is unchanged, only
 * the vertex count grows about 4× per step.
 */
import type { SkinnedMesh } from '../src/core/mesh.js';

export function subdivideMidpoint(mesh: SkinnedMesh): SkinnedMesh {
  const K = mesh.influences;
  const n = mesh.positions.length / 3;
  const T = mesh.triangles;
  const mids = new Map<number, number>();
  const pos: number[] = Array.from(mesh.positions);
  const nrm: number[] = mesh.normals ? Array.from(mesh.normals) : [];
  const jts: number[] = Array.from(mesh.joints);
  const wts: number[] = Array.from(mesh.weights);
  const tri: number[] = [];
  const mid = (a: number, b: number): number => {
    const key = a < b ? a * n * 4 + b : b * n * 4 + a;
    const found = mids.get(key);
    if (found !== undefined) return found;
    const m = pos.length / 3;
    for (let d = 0; d < 3; d++) pos.push(0.5 * (pos[3 * a + d] + pos[3 * b + d]));
    if (mesh.normals) {
      const v = [0, 1, 2].map((d) => nrm[3 * a + d] + nrm[3 * b + d]);
      const l = Math.hypot(v[0], v[1], v[2]) || 1;
      nrm.push(v[0] / l, v[1] / l, v[2] / l);
    }
    const acc = new Map<number, number>();
    for (const v of [a, b]) {
      for (let k = 0; k < K; k++) {
        const w = wts[K * v + k];
        if (w > 0) acc.set(jts[K * v + k], (acc.get(jts[K * v + k]) ?? 0) + 0.5 * w);
      }
    }
    const top = [...acc.entries()].sort((x, y) => y[1] - x[1] || x[0] - y[0]).slice(0, K);
    const sum = top.reduce((s, [, w]) => s + w, 0);
    for (let k = 0; k < K; k++) {
      jts.push(top[k]?.[0] ?? 0);
      wts.push(top[k] ? top[k][1] / sum : 0);
    }
    mids.set(key, m);
    return m;
  };
  for (let t = 0; t < T.length; t += 3) {
    const [a, b, c] = [T[t], T[t + 1], T[t + 2]];
    const ab = mid(a, b), bc = mid(b, c), ca = mid(c, a); // prettier-ignore
    tri.push(a, ab, ca, ab, b, bc, ca, bc, c, ab, bc, ca);
  }
  return {
    positions: Float32Array.from(pos),
    normals: mesh.normals ? Float32Array.from(nrm) : undefined,
    triangles: Uint32Array.from(tri),
    influences: K,
    joints: Uint32Array.from(jts),
    weights: Float32Array.from(wts),
  };
}
