// Shared helpers of corskin's WebAssembly SIMD kernels (AssemblyScript, inlined where used):
// influence slots, 4-lane vector helpers and the vertex writers. Imported by kernels.ts (LBS,
// DQS, SBS, LMS, CoR), ddm.ts (Direct Delta Mush), dm.ts (Delta Mush) and stretch.ts; each
// kernel file documents its memory layout.

// ---- influence slots and small vector helpers (inlined) ----

/** Joint of influence slot s. */
@inline export function jointAt(JI: usize, s: usize): usize {
  return <usize>load<u16>(JI + (s << 1));
}
/** Weight of influence slot s. */
@inline export function weightAt(W: usize, s: usize): f32 {
  return load<f32>(W + (s << 2));
}

@inline export function lane0(v: v128): v128 {
  return f32x4.shuffle(v, v, 0, 0, 0, 0);
}
@inline export function lane1(v: v128): v128 {
  return f32x4.shuffle(v, v, 1, 1, 1, 1);
}
@inline export function lane2(v: v128): v128 {
  return f32x4.shuffle(v, v, 2, 2, 2, 2);
}
/**
 * a·b + c in every lane: one fused multiply-add where the module is built with relaxed SIMD and
 * the CPU has it (`f32x4.relaxed_madd`: fused or not, by the hardware), else a multiply and an add
 * (the same bits as writing them out).
 */
@inline export function madd(a: v128, b: v128, c: v128): v128 {
  if (ASC_FEATURE_RELAXED_SIMD) return f32x4.relaxed_madd(a, b, c);
  return f32x4.add(c, f32x4.mul(a, b));
}
/** c − a·b in every lane, fused as {@link madd}. */
@inline export function nmadd(a: v128, b: v128, c: v128): v128 {
  if (ASC_FEATURE_RELAXED_SIMD) return f32x4.relaxed_nmadd(a, b, c);
  return f32x4.sub(c, f32x4.mul(a, b));
}
@inline export function hsum(v: v128): f32 {
  const a = f32x4.add(v, f32x4.shuffle(v, v, 2, 3, 0, 1));
  return f32x4.extract_lane(f32x4.add(a, f32x4.shuffle(a, a, 1, 0, 3, 2)), 0);
}
/** ws with its sign flipped in every lane where the 4-lane dot product a·b is negative. */
@inline export function signedBy(ws: v128, a: v128, b: v128): v128 {
  const d = f32x4.mul(a, b);
  const e = f32x4.add(d, f32x4.shuffle(d, d, 2, 3, 0, 1));
  return v128.xor(ws, v128.and(f32x4.add(e, f32x4.shuffle(e, e, 1, 0, 3, 2)), i32x4.splat(0x80000000)));
}
/** a × b of the xyz lanes (lane 3 of the result is 0). */
@inline export function cross(a: v128, b: v128): v128 {
  return nmadd(
    f32x4.shuffle(a, a, 2, 0, 1, 3),
    f32x4.shuffle(b, b, 1, 2, 0, 3),
    f32x4.mul(f32x4.shuffle(a, a, 1, 2, 0, 3), f32x4.shuffle(b, b, 2, 0, 1, 3)),
  );
}
/** c0·v.x + c1·v.y + c2·v.z */
@inline export function apply3(c0: v128, c1: v128, c2: v128, v: v128): v128 {
  return madd(c2, lane2(v), madd(c1, lane1(v), f32x4.mul(c0, lane0(v))));
}
@inline export function normalized(v: v128): v128 {
  const l2 = hsum(f32x4.mul(v, v));
  return l2 > 0 ? f32x4.mul(v, f32x4.splat(1 / Mathf.sqrt(l2))) : v;
}

/** v's direction, or `rest` where v has no length (a map that lost it: joints scaled to 0). */
@inline export function unitOr(v: v128, rest: v128): v128 {
  const l2 = hsum(f32x4.mul(v, v));
  return l2 > 0 ? f32x4.mul(v, f32x4.splat(1 / Mathf.sqrt(l2))) : rest;
}

/**
 * The normal n under the linear map with columns a0, a1, a2 (lane 3 zero): its cofactor matrix
 * times n, unit, on n's side (n itself where the map lost it). The columns are first divided by
 * their largest entry: the cofactors' squares grow as the map's fourth power, which in float32
 * underflows for a map scaled by 1e-6 (a joint scaled to nearly 0 under a rig scaled 0.01).
 */
@inline export function cofactorNormal(a0: v128, a1: v128, a2: v128, n: v128): v128 {
  const big = f32x4.max(f32x4.max(f32x4.abs(a0), f32x4.abs(a1)), f32x4.abs(a2));
  const mx = max<f32>(max<f32>(f32x4.extract_lane(big, 0), f32x4.extract_lane(big, 1)), f32x4.extract_lane(big, 2));
  if (mx > 0) {
    const f = f32x4.splat(1 / mx);
    a0 = f32x4.mul(a0, f);
    a1 = f32x4.mul(a1, f);
    a2 = f32x4.mul(a2, f);
  }
  const c0 = cross(a1, a2);
  const r = apply3(c0, cross(a2, a0), cross(a0, a1), n);
  const l2 = hsum(f32x4.mul(r, r));
  if (!(l2 > 0)) return n;
  return f32x4.mul(r, f32x4.splat((hsum(f32x4.mul(a0, c0)) < 0 ? <f32>-1 : <f32>1) / Mathf.sqrt(l2)));
}

/**
 * Writes vertex i moved by the affine map with columns a0, a1, a2 (linear part) and a3
 * (translation): position a·p, normal by the cofactor matrix (inverse transpose up to scale,
 * sign fixed by det), tangent by the linear part; both renormalised.
 */
@inline export function writeAffine(i: i32, a0: v128, a1: v128, a2: v128, a3: v128, P: usize, N: usize, T: usize, OP: usize, ON: usize, OT: usize): void {
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
@inline export function writeRigid(i: i32, m: usize, P: usize, N: usize, T: usize, OP: usize, ON: usize, OT: usize): void {
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
@inline export function rotate(q: v128, w: v128, s: v128, v: v128): v128 {
  const t = cross(q, v);
  return madd(s, madd(w, t, cross(q, t)), v);
}

/**
 * The translation of the blended dual quaternion (b0, be), b0 of squared norm 2/s (Kavan et al.
 * 2008): t = 2(w₀·e − e_w·q + q × e)/|b0|², lane 3 zero.
 */
@inline export function dqTranslation(b0: v128, be: v128, s: v128): v128 {
  const qv = f32x4.replace_lane(b0, 3, 0);
  const ev = f32x4.replace_lane(be, 3, 0);
  return f32x4.mul(
    f32x4.add(f32x4.sub(f32x4.mul(ev, f32x4.shuffle(b0, b0, 3, 3, 3, 3)), f32x4.mul(qv, f32x4.shuffle(be, be, 3, 3, 3, 3))), cross(qv, ev)),
    s,
  );
}

/**
 * Writes vertex i rotated by the quaternion q (squared norm 2/s) about center c and moved to
 * l: R(p − c) + l; normal and tangent rotated by R (tangent handedness kept).
 */
@inline export function writeRotated(i: i32, q: v128, s: v128, c: v128, l: v128, P: usize, N: usize, T: usize, OP: usize, ON: usize, OT: usize): void {
  const o = <usize>i;
  const w = f32x4.shuffle(q, q, 3, 3, 3, 3);
  v128.store(OP + o * 12, f32x4.add(rotate(q, w, s, f32x4.sub(v128.load(P + o * 12), c)), l));
  if (ON) v128.store(ON + o * 12, rotate(q, w, s, v128.load(N + o * 12)));
  if (OT) v128.store(OT + (o << 4), rotate(q, w, s, v128.load(T + (o << 4))));
}

// ---- the exponential of a twist (ω, u) of se(3), log-matrix skinning (Alexa 2002) ----

const PI32: f32 = 3.14159265358979;
const HALF_PI: f32 = 1.57079632679490;

/** sin x for |x| ≤ π/2: its Taylor polynomial to x¹³ (error below 6e-9 there), in f32. */
@inline function sinHalfPi(x: f32): f32 {
  const x2 = x * x;
  return x * (1 - (x2 / 6) * (1 - (x2 / 20) * (1 - (x2 / 42) * (1 - (x2 / 72) * (1 - (x2 / 110) * (1 - x2 / 156))))));
}

/**
 * The coefficients of exp of a twist with |ω|² = t2: (A, B, C, 1 − B·t2), R = I + A[ω]× + B[ω]×²
 * and V = I + B[ω]× + C[ω]×². In f32 without a library call: series below θ = 0.25, else sin and
 * cos by odd polynomials on [−π/2, π/2] (error below 1e-7).
 */
@inline export function twistCoefficients(t2: f32): v128 {
  let A: f32, B: f32, C: f32;
  if (t2 < 0.0625) {
    A = 1 - (t2 / 6) * (1 - (t2 / 20) * (1 - t2 / 42));
    B = 0.5 - (t2 / 24) * (1 - (t2 / 30) * (1 - t2 / 56));
    C = <f32>(1.0 / 6.0) - (t2 / 120) * (1 - (t2 / 42) * (1 - t2 / 72));
  } else {
    const theta = Mathf.sqrt(t2);
    const sn = sinHalfPi(theta > HALF_PI ? PI32 - theta : theta);
    const cs = sinHalfPi(HALF_PI - theta);
    A = sn / theta;
    B = (1 - cs) / t2;
    C = (theta - sn) / (t2 * theta);
  }
  return f32x4(A, B, C, 1 - B * t2);
}

/**
 * Column c of R = exp([ω]×) (coefficients from {@link twistCoefficients}): e_c + A ω×e_c +
 * B ω×(ω×e_c), with ω×(ω×e_c) = ω_c ω − θ² e_c; `e` the unit vector e_c, `omc` ω_c in every lane.
 */
@inline export function twistColumn(om: v128, coef: v128, e: v128, omc: v128): v128 {
  const bw = f32x4.mul(f32x4.shuffle(coef, coef, 1, 1, 1, 1), om);
  return madd(f32x4.shuffle(coef, coef, 0, 0, 0, 0), cross(om, e), madd(omc, bw, f32x4.mul(f32x4.shuffle(coef, coef, 3, 3, 3, 3), e)));
}

/** The translation V u of exp of the twist (ω, u): u + B ω×u + C ω×(ω×u). */
@inline export function twistTranslation(om: v128, coef: v128, u: v128): v128 {
  const cu = cross(om, u);
  return f32x4.add(u, madd(f32x4.shuffle(coef, coef, 2, 2, 2, 2), cross(om, cu), f32x4.mul(f32x4.shuffle(coef, coef, 1, 1, 1, 1), cu)));
}

// ---- spherical blend skinning's center of rotation (Kavan & Žára 2005) ----

/** Component (r, c) of the 4×4 column-major matrix at m (16-byte columns; c = 3: the translation), widened to f64. */
@inline export function at(m: usize, r: i32, c: i32): f64 {
  return <f64>load<f32>(m + <usize>((c << 4) + (r << 2)));
}

/**
 * {@link sbsCenterF64}'s result, in f64: module globals, since AssemblyScript returns one value.
 * They are WebAssembly globals, private to each instance (each deformer, each worker thread), not
 * in the shared memory, and are read right after the call that writes them.
 */
export let centerX: f64 = 0;
export let centerY: f64 = 0;
export let centerZ: f64 = 0;

/**
 * SBS's center of rotation from the normal equations M r = b of its pairwise least squares
 * (M symmetric: m00 … m22): the minimiser closest to v, r = v + δ with (M + λI) δ = b − M v and
 * the Tikhonov term λ = 1e-8 + 1e-9·trace, in f64 as src/deformers/sbs.ts; v itself where the
 * system is singular. Written to {@link centerX}, {@link centerY}, {@link centerZ}.
 */
@inline export function sbsCenterF64(m00: f64, m01: f64, m02: f64, m11: f64, m12: f64, m22: f64, b0: f64, b1: f64, b2: f64, vx: f64, vy: f64, vz: f64): void {
  const lambda = 1e-8 + 1e-9 * (m00 + m11 + m22);
  const a00 = m00 + lambda, a11 = m11 + lambda, a22 = m22 + lambda;
  const r0 = b0 - (m00 * vx + m01 * vy + m02 * vz);
  const r1 = b1 - (m01 * vx + m11 * vy + m12 * vz);
  const r2 = b2 - (m02 * vx + m12 * vy + m22 * vz);
  const c00 = a11 * a22 - m12 * m12, c01 = m02 * m12 - m01 * a22, c02 = m01 * m12 - m02 * a11;
  const det = a00 * c00 + m01 * c01 + m02 * c02;
  let rx = vx, ry = vy, rz = vz;
  if (det > 0) {
    const c11 = a00 * a22 - m02 * m02, c12 = m01 * m02 - a00 * m12, c22 = a00 * a11 - m01 * m01;
    rx += (c00 * r0 + c01 * r1 + c02 * r2) / det;
    ry += (c01 * r0 + c11 * r1 + c12 * r2) / det;
    rz += (c02 * r0 + c12 * r1 + c22 * r2) / det;
  }
  centerX = rx;
  centerY = ry;
  centerZ = rz;
}

/** {@link sbsCenterF64} in f32 lanes 0–2, lane 3 zero. */
@inline export function sbsCenter(m00: f64, m01: f64, m02: f64, m11: f64, m12: f64, m22: f64, b0: f64, b1: f64, b2: f64, vx: f64, vy: f64, vz: f64): v128 {
  sbsCenterF64(m00, m01, m02, m11, m12, m22, b0, b1, b2, vx, vy, vz);
  let center = f32x4.splat(0);
  center = f32x4.replace_lane(center, 0, <f32>centerX);
  center = f32x4.replace_lane(center, 1, <f32>centerY);
  return f32x4.replace_lane(center, 2, <f32>centerZ);
}
