// Stretch smooth skinning (Yang & Zhang 2006, "Stretch It", Sec. 2.2.2–2.2.3) in AssemblyScript,
// compiled to WebAssembly SIMD with the other kernels (kernels.ts) and driven by
// src/wasm/stretch.ts, which owns the memory layout. The steps of the JavaScript deformer
// (src/deformers/stretch.ts, where the equations are reconstructed) in 32-bit floats, one
// 3-vector per 128-bit register:
//
// 1. twist compensation: each influence's twist α_k about its bone axis relative to the blend
//    of the influences' rotations (swing–twist of q̄⁻¹ ⊗ q_j, q̄ their QLERP on the heaviest
//    one's side), their weighted blend α', and each
//    influence's map S_j · Rot(a_j, α' − α_k; about joint j);
// 2. LBS of those maps (positions; normals by the blend of their linear parts' cofactor matrix,
//    tangents by that blend, renormalised: LBS's);
// 3. collapse compensation around each stretch joint the vertex is partly bound to, in the
//    rig's order (not the order of its influence slots, which is the file's).
//
// Layout (byte offsets): P, N, OP, ON 3 f32 per vertex at 12·i (4-lane loads and stores, the
// caller pads), T and OT 4 f32 at 16·i; JI (u16) and W (f32) K influence slots per vertex; M the
// skinning matrices (16 f32, column-major, 64·j); Q the joints' rotation quaternions (x, y, z, w,
// 16·j); JP the joints' bind positions and AX their unit bone axes (zero: no twist), 16 bytes per
// joint, lane 3 = 0; CE the stretch joints' posed positions (16·j) and ST (i32) per joint its
// place in the rig's order of stretch joints plus one (0: not one); IMG (16·K) and AL (4·K)
// scratch.

import { apply3, cofactorNormal, cross, madd, hsum, jointAt, unitOr, weightAt } from './common';

/** v turned by `angle` about the unit axis a (Rodrigues): cos·v + sin·(a × v) + (1 − cos)·a (a·v). */
@inline function turn(a: v128, c: v128, s: v128, t: v128, v: v128): v128 {
  return madd(a, f32x4.mul(t, f32x4.splat(hsum(f32x4.mul(a, v)))), madd(s, cross(a, v), f32x4.mul(c, v)));
}

export function stretch(
  n: i32, K: i32, twist: i32,
  P: usize, N: usize, T: usize, JI: usize, W: usize,
  M: usize, Q: usize, JP: usize, AX: usize, CE: usize, ST: usize, IMG: usize, AL: usize,
  OP: usize, ON: usize, OT: usize,
): void {
  const zero = f32x4.splat(0);
  for (let i = 0; i < n; i++) {
    const o = <usize>i;
    const base = o * <usize>K;
    const v = f32x4.replace_lane(v128.load(P + o * 12), 3, 0);
    let blended: f32 = 0;
    if (twist) {
      // the heaviest influence (of equal ones, the lowest joint)
      let ref = base;
      for (let k = base + 1; k < base + <usize>K; k++) {
        const wk = weightAt(W, k), wr = weightAt(W, ref);
        if (wk > wr || (wk == wr && jointAt(JI, k) < jointAt(JI, ref))) ref = k;
      }
      // q̄⁻¹: the influences' rotations blended on the heaviest one's side, normalised
      const h = v128.load(Q + (jointAt(JI, ref) << 4));
      let m = f32x4.splat(0);
      for (let k = base; k < base + <usize>K; k++) {
        const q = v128.load(Q + (jointAt(JI, k) << 4));
        const w = weightAt(W, k);
        m = madd(f32x4.splat(hsum(f32x4.mul(q, h)) < 0 ? -w : w), q, m);
      }
      const l = Mathf.sqrt(hsum(f32x4.mul(m, m)));
      m = l > 0 ? f32x4.div(m, f32x4.splat(l)) : h;
      const rx = -f32x4.extract_lane(m, 0), ry = -f32x4.extract_lane(m, 1), rz = -f32x4.extract_lane(m, 2), rw = f32x4.extract_lane(m, 3); // q̄⁻¹
      for (let k = 0; k < K; k++) {
        const slot = base + <usize>k;
        store<f32>(AL + (<usize>k << 2), 0);
        const w = weightAt(W, slot);
        if (w == 0) continue;
        const j = jointAt(JI, slot);
        const a = v128.load(AX + (j << 4));
        if (hsum(f32x4.mul(a, a)) == 0) continue;
        // q = q_r⁻¹ ⊗ q_j, then its twist about a_j
        const b = Q + (j << 4);
        const bx = load<f32>(b), by = load<f32>(b, 4), bz = load<f32>(b, 8), bw = load<f32>(b, 12);
        const qx = rw * bx + rx * bw + ry * bz - rz * by;
        const qy = rw * by - rx * bz + ry * bw + rz * bx;
        const qz = rw * bz + rx * by - ry * bx + rz * bw;
        const qw = rw * bw - rx * bx - ry * by - rz * bz;
        const sgn: f32 = qw < 0 ? -1 : 1;
        const along = qx * f32x4.extract_lane(a, 0) + qy * f32x4.extract_lane(a, 1) + qz * f32x4.extract_lane(a, 2);
        const alpha: f32 = <f32>2 * Mathf.atan2(sgn * along, sgn * qw);
        store<f32>(AL + (<usize>k << 2), alpha);
        blended += w * alpha;
      }
    }
    const frame = N || T;
    let p = zero, a0 = zero, a1 = zero, a2 = zero; // the position and the maps' linear parts, blended
    for (let k = 0; k < K; k++) {
      const slot = base + <usize>k;
      const w = weightAt(W, slot);
      if (w == 0) continue;
      const j = jointAt(JI, slot);
      const m = M + (j << 6);
      const c0 = v128.load(m), c1 = v128.load(m, 16), c2 = v128.load(m, 32), c3 = v128.load(m, 48);
      const a = v128.load(AX + (j << 4));
      const delta: f32 = twist && hsum(f32x4.mul(a, a)) != 0 ? blended - load<f32>(AL + (<usize>k << 2)) : 0;
      let x = v, l0 = c0, l1 = c1, l2 = c2;
      if (delta != 0) {
        // the influence's extra twist about its joint: Rot(a_j, Δ) (bind space)
        const cs = Mathf.cos(delta), sn = Mathf.sin(delta);
        const c = f32x4.splat(cs), s = f32x4.splat(sn), t = f32x4.splat(1 - cs);
        const origin = v128.load(JP + (j << 4));
        x = f32x4.add(origin, turn(a, c, s, t, f32x4.sub(v, origin)));
        if (frame) {
          l0 = apply3(c0, c1, c2, turn(a, c, s, t, f32x4(1, 0, 0, 0)));
          l1 = apply3(c0, c1, c2, turn(a, c, s, t, f32x4(0, 1, 0, 0)));
          l2 = apply3(c0, c1, c2, turn(a, c, s, t, f32x4(0, 0, 1, 0)));
        }
      }
      const image = f32x4.add(apply3(c0, c1, c2, x), c3);
      v128.store(IMG + (<usize>k << 4), image);
      const ws = f32x4.splat(w);
      p = madd(ws, image, p);
      if (frame) {
        a0 = madd(ws, l0, a0);
        a1 = madd(ws, l1, a1);
        a2 = madd(ws, l2, a2);
      }
    }
    // Collapse compensation around each stretch joint the vertex is partly bound to (its weight
    // on the joint in (0, 1)), in the rig's order.
    for (let last: i32 = 0; ; ) {
      let next: i32 = 0;
      for (let k = 0; k < K; k++) {
        const slot = base + <usize>k;
        const rank = load<i32>(ST + (jointAt(JI, slot) << 2));
        if (rank > last && weightAt(W, slot) > 0 && (next == 0 || rank < next)) next = rank;
      }
      if (next == 0) break;
      last = next;
      let w: f32 = 0;
      let j: usize = 0;
      for (let k = 0; k < K; k++) {
        const slot = base + <usize>k;
        if (load<i32>(ST + (jointAt(JI, slot) << 2)) != next) continue;
        w += weightAt(W, slot);
        j = jointAt(JI, slot);
      }
      if (!(w > 0 && w < 1)) continue;
      const centre = f32x4.replace_lane(v128.load(CE + (j << 4)), 3, 0);
      const d = f32x4.sub(f32x4.replace_lane(p, 3, 0), centre);
      const l2 = Mathf.sqrt(hsum(f32x4.mul(d, d)));
      if (l2 == 0) continue;
      let l1: f32 = 0;
      for (let r = 0; r < K; r++) {
        const wr = weightAt(W, base + <usize>r);
        if (!(wr > 0)) continue;
        const e = f32x4.sub(f32x4.replace_lane(v128.load(IMG + (<usize>r << 4)), 3, 0), centre);
        l1 += wr * Mathf.sqrt(hsum(f32x4.mul(e, e)));
      }
      const beta: f32 = 1 - 4 * (w - 0.5) * (w - 0.5);
      p = madd(d, f32x4.splat((beta * l1 + (1 - beta) * l2) / l2), centre);
    }
    v128.store(OP + o * 12, p);
    if (N) v128.store(ON + o * 12, cofactorNormal(a0, a1, a2, f32x4.replace_lane(v128.load(N + o * 12), 3, 0)));
    if (T) {
      const tv = v128.load(T + (o << 4));
      const tg = unitOr(apply3(a0, a1, a2, tv), f32x4.replace_lane(tv, 3, 0));
      v128.store(OT + (o << 4), f32x4.replace_lane(tg, 3, f32x4.extract_lane(tv, 3)));
    }
  }
}
