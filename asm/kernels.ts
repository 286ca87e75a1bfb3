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

// ---- influence slots and small vector helpers (inlined) ----

/** Joint of influence slot s. */
@inline function jointAt(JI: usize, s: usize): usize {
  return <usize>load<u16>(JI + (s << 1));
}
/** Weight of influence slot s. */
@inline function weightAt(W: usize, s: usize): f32 {
  return load<f32>(W + (s << 2));
}

@inline function lane0(v: v128): v128 {
  return f32x4.shuffle(v, v, 0, 0, 0, 0);
}
@inline function lane1(v: v128): v128 {
  return f32x4.shuffle(v, v, 1, 1, 1, 1);
}
@inline function lane2(v: v128): v128 {
  return f32x4.shuffle(v, v, 2, 2, 2, 2);
}
@inline function hsum(v: v128): f32 {
  const a = f32x4.add(v, f32x4.shuffle(v, v, 2, 3, 0, 1));
  return f32x4.extract_lane(f32x4.add(a, f32x4.shuffle(a, a, 1, 0, 3, 2)), 0);
}
/** ws with its sign flipped in every lane where the 4-lane dot product a·b is negative. */
@inline function signedBy(ws: v128, a: v128, b: v128): v128 {
  const d = f32x4.mul(a, b);
  const e = f32x4.add(d, f32x4.shuffle(d, d, 2, 3, 0, 1));
  return v128.xor(ws, v128.and(f32x4.add(e, f32x4.shuffle(e, e, 1, 0, 3, 2)), i32x4.splat(0x80000000)));
}
/** a × b of the xyz lanes (lane 3 of the result is 0). */
@inline function cross(a: v128, b: v128): v128 {
  return f32x4.sub(
    f32x4.mul(f32x4.shuffle(a, a, 1, 2, 0, 3), f32x4.shuffle(b, b, 2, 0, 1, 3)),
    f32x4.mul(f32x4.shuffle(a, a, 2, 0, 1, 3), f32x4.shuffle(b, b, 1, 2, 0, 3)),
  );
}
/** c0·v.x + c1·v.y + c2·v.z */
@inline function apply3(c0: v128, c1: v128, c2: v128, v: v128): v128 {
  return f32x4.add(f32x4.add(f32x4.mul(c0, lane0(v)), f32x4.mul(c1, lane1(v))), f32x4.mul(c2, lane2(v)));
}
@inline function normalized(v: v128): v128 {
  const l2 = hsum(f32x4.mul(v, v));
  return l2 > 0 ? f32x4.mul(v, f32x4.splat(1 / Mathf.sqrt(l2))) : v;
}

/**
 * Writes vertex i moved by the affine map with columns a0, a1, a2 (linear part) and a3
 * (translation): position a·p, normal by the cofactor matrix (inverse transpose up to scale,
 * sign fixed by det), tangent by the linear part; both renormalised.
 */
@inline function writeAffine(i: i32, a0: v128, a1: v128, a2: v128, a3: v128, P: usize, N: usize, T: usize, OP: usize, ON: usize, OT: usize): void {
  const o = <usize>i;
  v128.store(OP + o * 12, f32x4.add(apply3(a0, a1, a2, v128.load(P + o * 12)), a3));
  if (ON) {
    const c0 = cross(a1, a2);
    const c1 = cross(a2, a0);
    const c2 = cross(a0, a1);
    const det = hsum(f32x4.mul(a0, c0));
    let r = apply3(c0, c1, c2, v128.load(N + o * 12));
    const l2 = hsum(f32x4.mul(r, r));
    const s: f32 = (det < 0 ? <f32>-1 : <f32>1) / (l2 > 0 ? Mathf.sqrt(l2) : <f32>1);
    v128.store(ON + o * 12, f32x4.mul(r, f32x4.splat(s)));
  }
  if (OT) {
    const t = v128.load(T + (o << 4));
    const r = normalized(apply3(a0, a1, a2, t));
    v128.store(OT + (o << 4), f32x4.replace_lane(r, 3, f32x4.extract_lane(t, 3)));
  }
}

/** Writes vertex i moved by the rigid map with columns a0, a1, a2 (a rotation) and a3. */
@inline function writeRigid(i: i32, m: usize, P: usize, N: usize, T: usize, OP: usize, ON: usize, OT: usize): void {
  const o = <usize>i;
  const a0 = v128.load(m), a1 = v128.load(m, 16), a2 = v128.load(m, 32);
  v128.store(OP + o * 12, f32x4.add(apply3(a0, a1, a2, v128.load(P + o * 12)), v128.load(m, 48)));
  if (ON) v128.store(ON + o * 12, apply3(a0, a1, a2, v128.load(N + o * 12)));
  if (OT) {
    const t = v128.load(T + (o << 4));
    v128.store(OT + (o << 4), f32x4.replace_lane(apply3(a0, a1, a2, t), 3, f32x4.extract_lane(t, 3)));
  }
}

/**
 * v rotated by the quaternion q = (u, w) of squared norm 2/s (need not be unit):
 * Rv = v + s·(w·t + u × t), t = u × v. Lane 3 of v passes through unchanged.
 */
@inline function rotate(q: v128, w: v128, s: v128, v: v128): v128 {
  const t = cross(q, v);
  return f32x4.add(v, f32x4.mul(s, f32x4.add(f32x4.mul(w, t), cross(q, t))));
}

/**
 * Writes vertex i rotated by the quaternion q (squared norm 2/s) about center c and moved to
 * l: R(p − c) + l; normal and tangent rotated by R (tangent handedness kept).
 */
@inline function writeRotated(i: i32, q: v128, s: v128, c: v128, l: v128, P: usize, N: usize, T: usize, OP: usize, ON: usize, OT: usize): void {
  const o = <usize>i;
  const w = f32x4.shuffle(q, q, 3, 3, 3, 3);
  v128.store(OP + o * 12, f32x4.add(rotate(q, w, s, f32x4.sub(v128.load(P + o * 12), c)), l));
  if (ON) v128.store(ON + o * 12, rotate(q, w, s, v128.load(N + o * 12)));
  if (OT) v128.store(OT + (o << 4), rotate(q, w, s, v128.load(T + (o << 4))));
}

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
