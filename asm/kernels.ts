// corskin run-time skinning kernels in AssemblyScript, compiled to WebAssembly SIMD (128-bit)
// by `npm run build:wasm` into src/wasm/kernels-binary.ts. Driven by src/wasm/simd-skinning.ts,
// which owns the memory layout; every pointer here is a byte offset in that memory.
//
// Layout (per vertex i): rest positions P, normals N and centers of rotation C as 3 f32 at 12·i
// (read 4 lanes at a time: lane 3 holds the next vertex's x, or padding, and never reaches a
// result lane 0–2); tangents T as (x, y, z, w) at 16·i; K influence slots per vertex, slot
// s = K·i + k with joint JI[s] (u16, at 2·s) and weight W[s] (f32, at 4·s), of which CNT[i]
// (u8) are used: distinct joints, non-zero weights, in the mesh's order (a vertex with one
// joint has weight exactly 1). Per joint j: skinning matrix M at 64·j (4 f32 columns,
// column-major), rotation quaternion Q at 16·j (x, y, z, w), dual quaternion DQ at 32·j (real
// x, y, z, w, dual x, y, z, w); LMS: per (pivot, joint) pair its twist L at 32·pair (ω, 0, u, 0)
// and per slot its pair PR (u32, at 4·s), the pivot being slot 0 (packInfluences puts the
// largest weight first). Outputs: OP and ON 3 f32 at 12·i (each store writes 4 lanes;
// the caller pads 4 bytes), OT 4 f32 at 16·i. A zero pointer N, T or ON/OT means "absent".

import { madd, jointAt, weightAt, lane0, lane1, lane2, hsum, signedBy, apply3, writeAffine, writeRigid, writeRotated, dqTranslation, twistCoefficients, twistColumn, twistTranslation, at, sbsCenter } from './common';

/** Linear blend skinning (Magnenat-Thalmann et al. 1988): v' = Σ w_j M_j v. */
export function lbs(n: i32, K: i32, P: usize, N: usize, T: usize, JI: usize, W: usize, CNT: usize, M: usize, OP: usize, ON: usize, OT: usize): void {
  for (let i = 0; i < n; i++) {
    const c = <i32>load<u8>(CNT + <usize>i);
    const base = <usize>(K * i);
    let a0 = f32x4.splat(0), a1 = a0, a2 = a0, a3 = a0;
    for (let k = 0; k < c; k++) {
      const s = base + <usize>k;
      const w = f32x4.splat(weightAt(W, s));
      const m = M + (jointAt(JI, s) << 6);
      a0 = madd(w, v128.load(m), a0);
      a1 = madd(w, v128.load(m, 16), a1);
      a2 = madd(w, v128.load(m, 32), a2);
      a3 = madd(w, v128.load(m, 48), a3);
    }
    writeAffine(i, a0, a1, a2, a3, P, N, T, OP, ON, OT);
  }
}

/** Multiplies the `count` f32 at X by s (the posed positions of a uniformly scaled rig). */
export function scale(X: usize, count: i32, s: f32): void {
  const v = f32x4.splat(s);
  let k = 0;
  for (; k + 4 <= count; k += 4) v128.store(X + (<usize>k << 2), f32x4.mul(v128.load(X + (<usize>k << 2)), v));
  for (; k < count; k++) store<f32>(X + (<usize>k << 2), load<f32>(X + (<usize>k << 2)) * s);
}

/**
 * Dual quaternion skinning (Kavan et al. 2008): blend the joints' unit dual quaternions (signs
 * fixed against the pivot: the first packed influence, the largest weight), normalise, apply as rotation + translation
 * t = 2(w₀·e − e_w·q + q × e).
 */
export function dqs(n: i32, K: i32, P: usize, N: usize, T: usize, JI: usize, W: usize, CNT: usize, M: usize, DQ: usize, OP: usize, ON: usize, OT: usize): void {
  for (let i = 0; i < n; i++) {
    const c = <i32>load<u8>(CNT + <usize>i);
    const base = <usize>(K * i);
    if (c == 1) {
      writeRigid(i, M + (jointAt(JI, base) << 6), P, N, T, OP, ON, OT);
      continue;
    }
    // First influence: the pivot of the quaternion signs.
    const d0 = DQ + (jointAt(JI, base) << 5);
    const w0 = f32x4.splat(weightAt(W, base));
    const pivot = v128.load(d0);
    let b0 = f32x4.mul(w0, pivot);
    let be = f32x4.mul(w0, v128.load(d0, 16));
    for (let k = 1; k < c; k++) {
      const s = base + <usize>k;
      const d = DQ + (jointAt(JI, s) << 5);
      const q = v128.load(d);
      const ws = signedBy(f32x4.splat(weightAt(W, s)), pivot, q);
      b0 = madd(ws, q, b0);
      be = madd(ws, v128.load(d, 16), be);
    }
    // Unnormalised: R from b0 with s = 2/|b0|².
    const s = f32x4.splat(2 / hsum(f32x4.mul(b0, b0)));
    writeRotated(i, b0, s, f32x4.splat(0), dqTranslation(b0, be, s), P, N, T, OP, ON, OT);
  }
}

/**
 * Skinning with optimized centers of rotation (Le & Hodgins 2016, Algorithm 1): R from the QLERP of the
 * joints' quaternions (signs fixed against the pivot, the first packed influence), t = LBS(p*) − R p*,
 * v' = R(v − p*) + LBS(p*).
 */
export function cor(n: i32, K: i32, P: usize, N: usize, T: usize, C: usize, JI: usize, W: usize, CNT: usize, M: usize, Q: usize, OP: usize, ON: usize, OT: usize): void {
  for (let i = 0; i < n; i++) {
    const c = <i32>load<u8>(CNT + <usize>i);
    const base = <usize>(K * i);
    if (c == 1) {
      writeRigid(i, M + (jointAt(JI, base) << 6), P, N, T, OP, ON, OT);
      continue;
    }
    rotateAbout(i, c, base, v128.load(C + <usize>i * 12), JI, W, M, Q, P, N, T, OP, ON, OT);
  }
}

/**
 * CoR's and SBS's blend of vertex i (c packed influences from slot `base`) about `center`: R the
 * QLERP of the joints' quaternions (signs fixed against the pivot, the first packed influence),
 * v' = R(v − center) + Σ w_j M_j center.
 */
@inline function rotateAbout(i: i32, c: i32, base: usize, center: v128, JI: usize, W: usize, M: usize, Q: usize, P: usize, N: usize, T: usize, OP: usize, ON: usize, OT: usize): void {
  const j0 = jointAt(JI, base);
  const w0 = f32x4.splat(weightAt(W, base));
  const m0 = M + (j0 << 6);
  let a0 = f32x4.mul(w0, v128.load(m0));
  let a1 = f32x4.mul(w0, v128.load(m0, 16));
  let a2 = f32x4.mul(w0, v128.load(m0, 32));
  let a3 = f32x4.mul(w0, v128.load(m0, 48));
  const pivot = v128.load(Q + (j0 << 4));
  let qa = f32x4.mul(w0, pivot);
  for (let k = 1; k < c; k++) {
    const s = base + <usize>k;
    const j = jointAt(JI, s);
    const ws = f32x4.splat(weightAt(W, s));
    const m = M + (j << 6);
    a0 = madd(ws, v128.load(m), a0);
    a1 = madd(ws, v128.load(m, 16), a1);
    a2 = madd(ws, v128.load(m, 32), a2);
    a3 = madd(ws, v128.load(m, 48), a3);
    const q = v128.load(Q + (j << 4));
    qa = madd(signedBy(ws, pivot, q), q, qa);
  }
  const s = f32x4.splat(2 / hsum(f32x4.mul(qa, qa)));
  writeRotated(i, qa, s, center, f32x4.add(apply3(a0, a1, a2, center), a3), P, N, T, OP, ON, OT);
}

/**
 * Spherical blend skinning (Kavan & Žára 2005): R from the QLERP of the joints' quaternions (signs
 * fixed against the pivot, the first packed influence), the center of rotation r solved per vertex
 * as the point the influences move most alike — Σ_{a<b} |(R_a − R_b) r + (t_a − t_b)|² → min, the
 * minimiser closest to the vertex, with the Tikhonov term λ = 1e-8 + 1e-9·trace, in f64 as
 * src/deformers/sbs.ts — and v' = R(v − r) + Σ w_j M_j r.
 */
export function sbs(n: i32, K: i32, P: usize, N: usize, T: usize, JI: usize, W: usize, CNT: usize, M: usize, Q: usize, OP: usize, ON: usize, OT: usize): void {
  for (let i = 0; i < n; i++) {
    const c = <i32>load<u8>(CNT + <usize>i);
    const base = <usize>(K * i);
    if (c == 1) {
      writeRigid(i, M + (jointAt(JI, base) << 6), P, N, T, OP, ON, OT);
      continue;
    }
    const p = P + <usize>i * 12;
    const vx = <f64>load<f32>(p), vy = <f64>load<f32>(p, 4), vz = <f64>load<f32>(p, 8);
    // Normal equations M r = b of the pairwise least squares.
    let m00: f64 = 0, m01: f64 = 0, m02: f64 = 0, m11: f64 = 0, m12: f64 = 0, m22: f64 = 0, b0: f64 = 0, b1: f64 = 0, b2: f64 = 0;
    for (let a = 0; a < c; a++) {
      const A = M + (jointAt(JI, base + <usize>a) << 6);
      for (let e = a + 1; e < c; e++) {
        const B = M + (jointAt(JI, base + <usize>e) << 6);
        const d00 = at(A, 0, 0) - at(B, 0, 0), d10 = at(A, 1, 0) - at(B, 1, 0), d20 = at(A, 2, 0) - at(B, 2, 0);
        const d01 = at(A, 0, 1) - at(B, 0, 1), d11 = at(A, 1, 1) - at(B, 1, 1), d21 = at(A, 2, 1) - at(B, 2, 1);
        const d02 = at(A, 0, 2) - at(B, 0, 2), d12 = at(A, 1, 2) - at(B, 1, 2), d22 = at(A, 2, 2) - at(B, 2, 2);
        const e0 = at(B, 0, 3) - at(A, 0, 3), e1 = at(B, 1, 3) - at(A, 1, 3), e2 = at(B, 2, 3) - at(A, 2, 3);
        m00 += d00 * d00 + d10 * d10 + d20 * d20;
        m01 += d00 * d01 + d10 * d11 + d20 * d21;
        m02 += d00 * d02 + d10 * d12 + d20 * d22;
        m11 += d01 * d01 + d11 * d11 + d21 * d21;
        m12 += d01 * d02 + d11 * d12 + d21 * d22;
        m22 += d02 * d02 + d12 * d12 + d22 * d22;
        b0 += d00 * e0 + d10 * e1 + d20 * e2;
        b1 += d01 * e0 + d11 * e1 + d21 * e2;
        b2 += d02 * e0 + d12 * e1 + d22 * e2;
      }
    }
    rotateAbout(i, c, base, sbsCenter(m00, m01, m02, m11, m12, m22, b0, b1, b2, vx, vy, vz), JI, W, M, Q, P, N, T, OP, ON, OT);
  }
}

/**
 * Log-matrix skinning (Alexa 2002) relative to the vertex's pivot p (the first packed influence,
 * the largest weight), as src/deformers/lms.ts: v' = M_p (R̄ v + t̄) with (R̄, t̄) = exp(Σ w_j
 * log(M_p⁻¹ M_j) / Σ w_j) — R̄ = I + A[ω̄]× + B[ω̄]×², t̄ = V(ω̄) ū = ū + B ω̄×ū + C ω̄×(ω̄×ū);
 * normals and tangents turn by R_p R̄. L: per (pivot, joint) pair 8 f32 at 32·pair, ω, 0, u, 0
 * (`relativeTwist`); PR: each slot's pair (u32, K per vertex; the pivot's own slot 0 unread).
 */
export function lms(n: i32, K: i32, P: usize, N: usize, T: usize, JI: usize, W: usize, CNT: usize, M: usize, L: usize, PR: usize, OP: usize, ON: usize, OT: usize): void {
  for (let i = 0; i < n; i++) {
    const c = <i32>load<u8>(CNT + <usize>i);
    const base = <usize>(K * i);
    const mp = M + (jointAt(JI, base) << 6);
    if (c == 1) {
      writeRigid(i, mp, P, N, T, OP, ON, OT);
      continue;
    }
    let om = f32x4.splat(0), u = om;
    let sum = weightAt(W, base);
    for (let k = 1; k < c; k++) {
      const s = base + <usize>k;
      const l = L + (<usize>load<u32>(PR + (s << 2)) << 5);
      const wt = weightAt(W, s);
      sum += wt;
      const w = f32x4.splat(wt);
      om = madd(w, v128.load(l), om);
      u = madd(w, v128.load(l, 16), u);
    }
    const inv = f32x4.splat(1 / sum);
    om = f32x4.mul(om, inv);
    u = f32x4.mul(u, inv);
    const v = v128.load(P + <usize>i * 12);
    const coef = twistCoefficients(hsum(f32x4.mul(om, om)));
    const a0 = twistColumn(om, coef, f32x4(1, 0, 0, 0), lane0(om));
    const a1 = twistColumn(om, coef, f32x4(0, 1, 0, 0), lane1(om));
    const a2 = twistColumn(om, coef, f32x4(0, 0, 1, 0), lane2(om));
    const t = twistTranslation(om, coef, u);
    // Then M_p, rigid: normals and tangents turn with it, no renormalisation.
    const m0 = v128.load(mp), m1 = v128.load(mp, 16), m2 = v128.load(mp, 32);
    const o = <usize>i;
    v128.store(OP + o * 12, f32x4.add(apply3(m0, m1, m2, f32x4.add(apply3(a0, a1, a2, v), t)), v128.load(mp, 48)));
    if (ON) v128.store(ON + o * 12, apply3(m0, m1, m2, apply3(a0, a1, a2, v128.load(N + o * 12))));
    if (OT) {
      const tg = v128.load(T + (o << 4));
      v128.store(OT + (o << 4), f32x4.replace_lane(apply3(m0, m1, m2, apply3(a0, a1, a2, tg)), 3, f32x4.extract_lane(tg, 3)));
    }
  }
}
