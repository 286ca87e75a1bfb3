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
// x, y, z, w, dual x, y, z, w). Outputs: OP and ON 3 f32 at 12·i (each store writes 4 lanes;
// the caller pads 4 bytes), OT 4 f32 at 16·i. A zero pointer N, T or ON/OT means "absent".

import { jointAt, weightAt, lane0, lane1, lane2, hsum, signedBy, cross, apply3, normalized, writeAffine, writeRigid, rotate, writeRotated } from './common';

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
      a0 = f32x4.add(a0, f32x4.mul(w, v128.load(m)));
      a1 = f32x4.add(a1, f32x4.mul(w, v128.load(m, 16)));
      a2 = f32x4.add(a2, f32x4.mul(w, v128.load(m, 32)));
      a3 = f32x4.add(a3, f32x4.mul(w, v128.load(m, 48)));
    }
    writeAffine(i, a0, a1, a2, a3, P, N, T, OP, ON, OT);
  }
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
      b0 = f32x4.add(b0, f32x4.mul(ws, q));
      be = f32x4.add(be, f32x4.mul(ws, v128.load(d, 16)));
    }
    // Unnormalised: R from b0 with s = 2/|b0|², t = 2(w₀·e − e_w·q + q × e)/|b0|².
    const s = f32x4.splat(2 / hsum(f32x4.mul(b0, b0)));
    const qv = f32x4.replace_lane(b0, 3, 0);
    const ev = f32x4.replace_lane(be, 3, 0);
    const t = f32x4.mul(
      f32x4.add(f32x4.sub(f32x4.mul(ev, f32x4.shuffle(b0, b0, 3, 3, 3, 3)), f32x4.mul(qv, f32x4.shuffle(be, be, 3, 3, 3, 3))), cross(qv, ev)),
      s,
    );
    writeRotated(i, b0, s, f32x4.splat(0), t, P, N, T, OP, ON, OT);
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
    // First influence: the pivot of the quaternion signs.
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
      a0 = f32x4.add(a0, f32x4.mul(ws, v128.load(m)));
      a1 = f32x4.add(a1, f32x4.mul(ws, v128.load(m, 16)));
      a2 = f32x4.add(a2, f32x4.mul(ws, v128.load(m, 32)));
      a3 = f32x4.add(a3, f32x4.mul(ws, v128.load(m, 48)));
      const q = v128.load(Q + (j << 4));
      qa = f32x4.add(qa, f32x4.mul(signedBy(ws, pivot, q), q));
    }
    const center = v128.load(C + <usize>i * 12);
    const s = f32x4.splat(2 / hsum(f32x4.mul(qa, qa)));
    writeRotated(i, qa, s, center, f32x4.add(apply3(a0, a1, a2, center), a3), P, N, T, OP, ON, OT);
  }
}
