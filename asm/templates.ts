// Skinning templates' corrective blend (Ju, Zhou, van de Panne, Cohen-Or & Neumann, "Reusable
// Skinning Templates Using Cage-based Deformations", SIGGRAPH Asia 2008; corskin's correction of
// DQS, src/methods/templates/deformer.ts) in AssemblyScript, compiled to WebAssembly SIMD with the
// other kernels and driven by src/methods/templates/simd.ts, which owns the memory layout.
//
// Layout (byte offsets): BND (u32) the bound skin vertices; ST (u32, nb + 1) each one's first
// binding entry; EN the entries, 8 bytes each: the cage vertex (u32) and its weight (f32); ID (f32,
// nb) each bound vertex's share left to DQS, max(0, 1 − Σ weights); DQ the cage vertices'
// corrections as unit dual quaternions, 32 bytes each (real x, y, z, w with w ≥ 0, then dual
// x, y, z, w); OP, ON (3 f32 per vertex at 12·i) and OT (4 f32 at 16·i) the DQS-posed vertices,
// corrected in place.

import { dqTranslation, hsum, rotate } from './common';

/**
 * Per bound vertex, its cage entries' dual quaternions blended with the identity for the share
 * left to DQS (no sign flips: every real part has w ≥ 0), then applied as DQS applies a blend —
 * R from the real part with s = 2/|b₀|², t = s·(w₀·e − e_w·q + q × e) — to the posed position,
 * normal and tangent (handedness kept).
 */
export function templates(nb: i32, BND: usize, ST: usize, EN: usize, ID: usize, DQ: usize, OP: usize, ON: usize, OT: usize): void {
  const zero = f32x4.splat(0);
  for (let b = 0; b < nb; b++) {
    const i = load<u32>(BND + (<usize>b << 2));
    let e = <usize>load<u32>(ST + (<usize>b << 2));
    const end = <usize>load<u32>(ST + (<usize>b << 2), 4);
    // Two entries a step into two pairs of sums: about 49 entries a vertex, whose one chain of
    // additions would wait on each addition's latency.
    let b0 = zero, be = zero, c0 = zero, ce = zero; // prettier-ignore
    for (; e + 1 < end; e += 2) {
      const p = EN + (e << 3);
      const d = DQ + (<usize>load<u32>(p) << 5);
      const f = DQ + (<usize>load<u32>(p, 8) << 5);
      const ws = v128.load32_splat(p, 4);
      const wt = v128.load32_splat(p, 12);
      b0 = f32x4.add(b0, f32x4.mul(ws, v128.load(d)));
      be = f32x4.add(be, f32x4.mul(ws, v128.load(d, 16)));
      c0 = f32x4.add(c0, f32x4.mul(wt, v128.load(f)));
      ce = f32x4.add(ce, f32x4.mul(wt, v128.load(f, 16)));
    }
    if (e < end) {
      const p = EN + (e << 3);
      const d = DQ + (<usize>load<u32>(p) << 5);
      const ws = v128.load32_splat(p, 4);
      b0 = f32x4.add(b0, f32x4.mul(ws, v128.load(d)));
      be = f32x4.add(be, f32x4.mul(ws, v128.load(d, 16)));
    }
    b0 = f32x4.add(b0, c0);
    be = f32x4.add(be, ce);
    b0 = f32x4.replace_lane(b0, 3, f32x4.extract_lane(b0, 3) + load<f32>(ID + (<usize>b << 2)));
    const s = f32x4.splat(2 / hsum(f32x4.mul(b0, b0)));
    const t = dqTranslation(b0, be, s);
    // In place: a 4-lane store of position or normal also covers the next vertex's x, which is
    // put back as it was read (even where a degenerate blend gives NaN).
    const o = <usize>i;
    const w = f32x4.shuffle(b0, b0, 3, 3, 3, 3);
    const p = v128.load(OP + o * 12);
    v128.store(OP + o * 12, f32x4.replace_lane(f32x4.add(rotate(b0, w, s, p), t), 3, f32x4.extract_lane(p, 3)));
    if (ON) {
      const n = v128.load(ON + o * 12);
      v128.store(ON + o * 12, f32x4.replace_lane(rotate(b0, w, s, n), 3, f32x4.extract_lane(n, 3)));
    }
    if (OT) {
      const g = v128.load(OT + (o << 4));
      v128.store(OT + (o << 4), f32x4.replace_lane(rotate(b0, w, s, g), 3, f32x4.extract_lane(g, 3)));
    }
  }
}
