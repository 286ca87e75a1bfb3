// Two-phase skinning's stretched vertices for the DQS, CoR, SBS and LMS kernels (after Kavan,
// Collins, Žára, O'Sullivan, "Geometric Skinning with Approximate Dual Quaternion Blending", ACM
// TOG 2008, Sec. 4.2; corskin's form, about a per-vertex center c, is src/deformers/two-phase.ts):
// each skinning matrix M_j = [L_j | τ_j] split into a proper rotation R_j and a stretch
// K_j = R_jᵀ L_j, the stretches blended linearly about c, the rigid transforms [R_j | M_j(c) − c]
// by the method.
//
// Layout as asm/kernels.ts (P, N, T, C, JI, W, CNT, M, OP, ON, OT), plus per joint j at QK + 64·j
// R_j's unit quaternion (x, y, z, w ≥ 0; DQS and CoR only) then K_j's three columns (3 f32 and one
// of padding each); for SBS and LMS, RM: per joint at 128·j its rotation data in f64 (see
// sbsStretched, lmsStretched); and RIGID: one byte per joint, 1 where M_j is
// rigid (K_j = I). Only the vertices bound to a joint that is not rigid are written — the others keep
// what the rigid kernel wrote — each through three scalar stores (a 4-lane store would overwrite
// the next vertex's x).

import { madd, jointAt, weightAt, lane0, lane1, lane2, hsum, signedBy, cross, apply3, unitOr, rotate, dqTranslation, twistCoefficients, twistColumn, at, sbsCenterF64, centerX, centerY, centerZ, cofactorNormal } from './common';

/** Stores the xyz lanes of v at p (lane 3 not written). */
@inline function store3(p: usize, v: v128): void {
  store<f32>(p, f32x4.extract_lane(v, 0));
  store<f32>(p, f32x4.extract_lane(v, 1), 4);
  store<f32>(p, f32x4.extract_lane(v, 2), 8);
}

/**
 * Whether vertex i (c packed influences from slot `base`) needs no blend here: bound to rigid
 * joints only (left as the rigid kernel wrote it), or to one joint (its affine map, written here).
 */
@inline function doneWithoutBlend(i: i32, c: i32, base: usize, JI: usize, RIGID: usize, M: usize, P: usize, N: usize, T: usize, OP: usize, ON: usize, OT: usize): bool {
  let stretched = false;
  for (let k = 0; k < c; k++) if (!load<u8>(RIGID + jointAt(JI, base + <usize>k))) stretched = true;
  if (!stretched) return true;
  if (c == 1) writeStretchedAffine(i, M + (jointAt(JI, base) << 6), P, N, T, OP, ON, OT);
  return c == 1;
}

/**
 * Vertex i on one joint, whose matrix at m stretches: the affine map itself (normal by its
 * cofactor matrix, tangent by its linear part, both renormalised), as the JavaScript writeAffine.
 */
@inline function writeStretchedAffine(i: i32, m: usize, P: usize, N: usize, T: usize, OP: usize, ON: usize, OT: usize): void {
  const o = <usize>i;
  const a0 = v128.load(m), a1 = v128.load(m, 16), a2 = v128.load(m, 32);
  store3(OP + o * 12, f32x4.add(apply3(a0, a1, a2, v128.load(P + o * 12)), v128.load(m, 48)));
  if (ON) store3(ON + o * 12, cofactorNormal(a0, a1, a2, v128.load(N + o * 12)));
  if (OT) {
    const t = v128.load(T + (o << 4));
    v128.store(OT + (o << 4), f32x4.replace_lane(unitOr(apply3(a0, a1, a2, t), t), 3, f32x4.extract_lane(t, 3)));
  }
}

/** The tangent t (x, y, z, w) under the linear map with columns k0, k1, k2: unit (t where the map lost it), lane 3 zero. */
@inline function stretchedTangent(k0: v128, k1: v128, k2: v128, t: v128): v128 {
  return f32x4.replace_lane(unitOr(apply3(k0, k1, k2, t), t), 3, 0);
}

/**
 * Writes vertex i's normal and tangent: stretched by K̄ (columns k0, k1, k2; any positive multiple),
 * then rotated by the quaternion q of squared norm 2/s.
 */
@inline function writeFrame(i: i32, k0: v128, k1: v128, k2: v128, q: v128, s: v128, N: usize, T: usize, ON: usize, OT: usize): void {
  const o = <usize>i;
  const w = f32x4.shuffle(q, q, 3, 3, 3, 3);
  if (ON) store3(ON + o * 12, rotate(q, w, s, cofactorNormal(k0, k1, k2, v128.load(N + o * 12))));
  if (OT) {
    const t = v128.load(T + (o << 4));
    v128.store(OT + (o << 4), f32x4.replace_lane(rotate(q, w, s, stretchedTangent(k0, k1, k2, t)), 3, f32x4.extract_lane(t, 3)));
  }
}

/**
 * DQS's two-phase path (center c = the vertex v, so K̄(v − c) = 0): the joints' dual quaternions
 * of [R_j | M_j(v) − v] blended (signs fixed against the pivot, the first packed influence),
 * v' = v + t; normal by K̄'s cofactor matrix, tangent by K̄, then both rotated. The blend's
 * translation is linear in the joints' translations and keeps a common one, so v' is computed as
 * the translation of the blend of [R_j | M_j(v)]: the same number without the cancellation of
 * v + (M_j(v) − v), which in float32 costs 6e-8·|v| — 1/s times the result's own rounding on a
 * rig whose matrices scale by s (a Mixamo rig under a node scaled 0.01).
 */
export function dqsStretched(n: i32, K: i32, P: usize, N: usize, T: usize, JI: usize, W: usize, CNT: usize, M: usize, QK: usize, RIGID: usize, OP: usize, ON: usize, OT: usize): void {
  const half = f32x4.splat(0.5);
  for (let i = 0; i < n; i++) {
    const c = <i32>load<u8>(CNT + <usize>i);
    const base = <usize>(K * i);
    if (doneWithoutBlend(i, c, base, JI, RIGID, M, P, N, T, OP, ON, OT)) continue;
    const v = f32x4.replace_lane(v128.load(P + <usize>i * 12), 3, 1);
    const pivot = v128.load(QK + (jointAt(JI, base) << 6));
    let b0 = f32x4.splat(0), be = b0, k0 = b0, k1 = b0, k2 = b0;
    for (let k = 0; k < c; k++) {
      const s = base + <usize>k;
      const j = jointAt(JI, s);
      const w = f32x4.splat(weightAt(W, s));
      const m = M + (j << 6);
      const g = QK + (j << 6);
      const q = v128.load(g);
      // t = M_j(v) (lane 3 zeroed); d = ½ (t, 0) ⊗ q = ½ (q_w t + t × q, −t·q).
      const t = f32x4.replace_lane(f32x4.add(apply3(v128.load(m), v128.load(m, 16), v128.load(m, 32), v), v128.load(m, 48)), 3, 0);
      const dv = madd(f32x4.shuffle(q, q, 3, 3, 3, 3), t, cross(t, q));
      const d = f32x4.mul(half, f32x4.replace_lane(dv, 3, -hsum(f32x4.mul(t, q))));
      const ws = signedBy(w, pivot, q);
      b0 = madd(ws, q, b0);
      be = madd(ws, d, be);
      k0 = madd(w, v128.load(g, 16), k0);
      k1 = madd(w, v128.load(g, 32), k1);
      k2 = madd(w, v128.load(g, 48), k2);
    }
    const s2 = f32x4.splat(2 / hsum(f32x4.mul(b0, b0)));
    store3(OP + <usize>i * 12, dqTranslation(b0, be, s2));
    writeFrame(i, k0, k1, k2, b0, s2, N, T, ON, OT);
  }
}

/**
 * CoR skinning's two-phase path (center c = the vertex's center of rotation): R the QLERP of the
 * joints' rotations R_j (signs fixed against the pivot), v' = R K̄ (v − c) + Σ w_j M_j(c), the
 * weights divided by their sum (so that c cancels); normal and tangent as in {@link dqsStretched}.
 */
export function corStretched(n: i32, K: i32, P: usize, N: usize, T: usize, C: usize, JI: usize, W: usize, CNT: usize, M: usize, QK: usize, RIGID: usize, OP: usize, ON: usize, OT: usize): void {
  for (let i = 0; i < n; i++) {
    const c = <i32>load<u8>(CNT + <usize>i);
    const base = <usize>(K * i);
    if (doneWithoutBlend(i, c, base, JI, RIGID, M, P, N, T, OP, ON, OT)) continue;
    const center = f32x4.replace_lane(v128.load(C + <usize>i * 12), 3, 1);
    const pivot = v128.load(QK + (jointAt(JI, base) << 6));
    let qa = f32x4.splat(0), l = qa, k0 = qa, k1 = qa, k2 = qa;
    let sum: f32 = 0;
    for (let k = 0; k < c; k++) {
      const s = base + <usize>k;
      const j = jointAt(JI, s);
      const wt = weightAt(W, s);
      const w = f32x4.splat(wt);
      const m = M + (j << 6);
      const g = QK + (j << 6);
      const q = v128.load(g);
      sum += wt;
      l = madd(w, f32x4.add(apply3(v128.load(m), v128.load(m, 16), v128.load(m, 32), center), v128.load(m, 48)), l);
      qa = madd(signedBy(w, pivot, q), q, qa);
      k0 = madd(w, v128.load(g, 16), k0);
      k1 = madd(w, v128.load(g, 32), k1);
      k2 = madd(w, v128.load(g, 48), k2);
    }
    const inv = f32x4.splat(1 / sum);
    const u = f32x4.mul(inv, apply3(k0, k1, k2, f32x4.sub(v128.load(P + <usize>i * 12), center)));
    const s2 = f32x4.splat(2 / hsum(f32x4.mul(qa, qa)));
    store3(OP + <usize>i * 12, madd(inv, l, rotate(qa, f32x4.shuffle(qa, qa, 3, 3, 3, 3), s2, u)));
    writeFrame(i, k0, k1, k2, qa, s2, N, T, ON, OT);
  }
}

/**
 * Log-matrix skinning's two-phase path (center c = the vertex v, so K̄(v − c) = 0), relative to
 * the vertex's pivot p (the first packed influence) as the `lms` kernel: the twists (ω_j, u_j)
 * of [R_p | t_p]⁻¹ [R_j | t_j], t_j = M_j(v) − v — ω_j the principal logarithm of R_pᵀ R_j and
 * u_j = V(ω_j)⁻¹ R_pᵀ (t_j − t_p) — blended with the weights divided by their sum and
 * exponentiated: v' = v + t_p + R_p V(ω̄) ū; normal by K̄'s cofactor matrix, tangent by K̄, then
 * both rotated by R_p exp(ω̄). RM: per joint at 128·j its R_j (9 f64, column-major); PL: per
 * (pivot, joint) pair at 32·pair ω (3 f64) and the coefficient c of V(ω)⁻¹ = I − ½[ω]× + c[ω]×²;
 * PR: each slot's pair (u32). The position in f64: t_j is of the size of v, and v + t_p + …
 * cancels it back to the posed size (float32 would lose 6e-8·|v|, 1/s times the result's
 * rounding on a rig whose matrices scale by s).
 */
export function lmsStretched(n: i32, K: i32, P: usize, N: usize, T: usize, JI: usize, W: usize, CNT: usize, M: usize, QK: usize, RM: usize, PL: usize, PR: usize, RIGID: usize, OP: usize, ON: usize, OT: usize): void {
  for (let i = 0; i < n; i++) {
    const c = <i32>load<u8>(CNT + <usize>i);
    const base = <usize>(K * i);
    if (doneWithoutBlend(i, c, base, JI, RIGID, M, P, N, T, OP, ON, OT)) continue;
    const p = P + <usize>i * 12;
    const vx = <f64>load<f32>(p), vy = <f64>load<f32>(p, 4), vz = <f64>load<f32>(p, 8);
    const jp = jointAt(JI, base);
    const mp = M + (jp << 6);
    const R = RM + (jp << 7);
    const r00 = load<f64>(R), r10 = load<f64>(R, 8), r20 = load<f64>(R, 16);
    const r01 = load<f64>(R, 24), r11 = load<f64>(R, 32), r21 = load<f64>(R, 40);
    const r02 = load<f64>(R, 48), r12 = load<f64>(R, 56), r22 = load<f64>(R, 64);
    const px = affineRow(mp, 0, vx, vy, vz) - vx, py = affineRow(mp, 1, vx, vy, vz) - vy, pz = affineRow(mp, 2, vx, vy, vz) - vz;
    const w0 = weightAt(W, base);
    let ox: f64 = 0, oy: f64 = 0, oz: f64 = 0, ux: f64 = 0, uy: f64 = 0, uz: f64 = 0, sum: f64 = <f64>w0;
    const g0 = QK + (jp << 6);
    const w0x4 = f32x4.splat(w0);
    let k0 = f32x4.mul(w0x4, v128.load(g0, 16)), k1 = f32x4.mul(w0x4, v128.load(g0, 32)), k2 = f32x4.mul(w0x4, v128.load(g0, 48));
    for (let k = 1; k < c; k++) {
      const s = base + <usize>k;
      const j = jointAt(JI, s);
      const wt = weightAt(W, s);
      const w = f32x4.splat(wt);
      const m = M + (j << 6);
      const g = QK + (j << 6);
      // d = R_pᵀ (t_j − t_p), t_j = M_j(v) − v; u_j = d − ½ ω×d + c ω×(ω×d).
      const ex = affineRow(m, 0, vx, vy, vz) - vx - px, ey = affineRow(m, 1, vx, vy, vz) - vy - py, ez = affineRow(m, 2, vx, vy, vz) - vz - pz;
      const dx = r00 * ex + r10 * ey + r20 * ez, dy = r01 * ex + r11 * ey + r21 * ez, dz = r02 * ex + r12 * ey + r22 * ez;
      const L = PL + (<usize>load<u32>(PR + (s << 2)) << 5);
      const wx = load<f64>(L), wy = load<f64>(L, 8), wz = load<f64>(L, 16), cj = load<f64>(L, 24);
      const ax = wy * dz - wz * dy, ay = wz * dx - wx * dz, az = wx * dy - wy * dx;
      const bx = wy * az - wz * ay, by = wz * ax - wx * az, bz = wx * ay - wy * ax;
      const wd = <f64>wt;
      sum += wd;
      ox += wd * wx; oy += wd * wy; oz += wd * wz;
      ux += wd * (dx - 0.5 * ax + cj * bx);
      uy += wd * (dy - 0.5 * ay + cj * by);
      uz += wd * (dz - 0.5 * az + cj * bz);
      k0 = madd(w, v128.load(g, 16), k0);
      k1 = madd(w, v128.load(g, 32), k1);
      k2 = madd(w, v128.load(g, 48), k2);
    }
    ox /= sum; oy /= sum; oz /= sum; ux /= sum; uy /= sum; uz /= sum;
    // exp: t = V u = u + B ω×u + C ω×(ω×u), the coefficients as src/deformers/lms.ts.
    const t2 = ox * ox + oy * oy + oz * oz;
    const theta = Math.sqrt(t2);
    let B: f64, C: f64;
    if (theta > 1e-6) {
      const sn = Math.sin(theta);
      B = (1 - Math.cos(theta)) / t2;
      C = (theta - sn) / (t2 * theta);
    } else {
      B = 0.5 - t2 / 24;
      C = 1.0 / 6.0 - t2 / 120;
    }
    const cx = oy * uz - oz * uy, cy = oz * ux - ox * uz, cz = ox * uy - oy * ux;
    const ccx = oy * cz - oz * cy, ccy = oz * cx - ox * cz, ccz = ox * cy - oy * cx;
    const tx = ux + B * cx + C * ccx, ty = uy + B * cy + C * ccy, tz = uz + B * cz + C * ccz;
    const o = <usize>i;
    store<f32>(OP + o * 12, <f32>(vx + px + r00 * tx + r01 * ty + r02 * tz));
    store<f32>(OP + o * 12, <f32>(vy + py + r10 * tx + r11 * ty + r12 * tz), 4);
    store<f32>(OP + o * 12, <f32>(vz + pz + r20 * tx + r21 * ty + r22 * tz), 8);
    // Normal and tangent: stretched by K̄, turned by exp([ω̄]×) then R_p, in f32.
    let om = f32x4.splat(0);
    om = f32x4.replace_lane(om, 0, <f32>ox);
    om = f32x4.replace_lane(om, 1, <f32>oy);
    om = f32x4.replace_lane(om, 2, <f32>oz);
    const coef = twistCoefficients(hsum(f32x4.mul(om, om)));
    const a0 = twistColumn(om, coef, f32x4(1, 0, 0, 0), lane0(om));
    const a1 = twistColumn(om, coef, f32x4(0, 1, 0, 0), lane1(om));
    const a2 = twistColumn(om, coef, f32x4(0, 0, 1, 0), lane2(om));
    const q0 = f32x4(<f32>r00, <f32>r10, <f32>r20, 0), q1 = f32x4(<f32>r01, <f32>r11, <f32>r21, 0), q2 = f32x4(<f32>r02, <f32>r12, <f32>r22, 0);
    if (ON) store3(ON + o * 12, apply3(q0, q1, q2, apply3(a0, a1, a2, cofactorNormal(k0, k1, k2, v128.load(N + o * 12)))));
    if (OT) {
      const t = v128.load(T + (o << 4));
      v128.store(OT + (o << 4), f32x4.replace_lane(apply3(q0, q1, q2, apply3(a0, a1, a2, stretchedTangent(k0, k1, k2, t))), 3, f32x4.extract_lane(t, 3)));
    }
  }
}

/**
 * Spherical blend skinning's two-phase path (center c = the vertex v, so K̄(v − c) = 0): the
 * center of rotation r of the transforms [R_j | t_j], t_j = M_j(v) − v, solved as the sbs kernel
 * solves it (pairwise least squares in f64, the minimiser closest to the stretched vertex, 0),
 * R the QLERP of the R_j, v' = v − R r + Σ w_j (R_j r + t_j) / Σ w_j = −R r + Σ ŵ_j (R_j r +
 * M_j(v)); normal and tangent as in {@link dqsStretched}. Where two joints turn alike but
 * stretch differently, r lies far from the vertex and R r and the R_j r cancel: the position is
 * computed in f64 from each joint's rotation in f64 — RM: per joint at 128·j its unit
 * quaternion (4 f64) then R_j (9 f64, column-major) — so that R and the R_j agree to f64's
 * rounding (float32's would leave 6e-8·|r|).
 */
export function sbsStretched(n: i32, K: i32, P: usize, N: usize, T: usize, JI: usize, W: usize, CNT: usize, M: usize, QK: usize, RM: usize, RIGID: usize, OP: usize, ON: usize, OT: usize): void {
  for (let i = 0; i < n; i++) {
    const c = <i32>load<u8>(CNT + <usize>i);
    const base = <usize>(K * i);
    if (doneWithoutBlend(i, c, base, JI, RIGID, M, P, N, T, OP, ON, OT)) continue;
    const p = P + <usize>i * 12;
    const vx = <f64>load<f32>(p), vy = <f64>load<f32>(p, 4), vz = <f64>load<f32>(p, 8);
    // Normal equations M r = b of the pairwise least squares: D = R_a − R_b, e = t_b − t_a.
    let m00: f64 = 0, m01: f64 = 0, m02: f64 = 0, m11: f64 = 0, m12: f64 = 0, m22: f64 = 0, b0: f64 = 0, b1: f64 = 0, b2: f64 = 0;
    for (let a = 0; a < c; a++) {
      const ja = jointAt(JI, base + <usize>a);
      const A = RM + (ja << 7), MA = M + (ja << 6);
      for (let e = a + 1; e < c; e++) {
        const jb = jointAt(JI, base + <usize>e);
        const B = RM + (jb << 7), MB = M + (jb << 6);
        const d00 = rot(A, 0, 0) - rot(B, 0, 0), d10 = rot(A, 1, 0) - rot(B, 1, 0), d20 = rot(A, 2, 0) - rot(B, 2, 0);
        const d01 = rot(A, 0, 1) - rot(B, 0, 1), d11 = rot(A, 1, 1) - rot(B, 1, 1), d21 = rot(A, 2, 1) - rot(B, 2, 1);
        const d02 = rot(A, 0, 2) - rot(B, 0, 2), d12 = rot(A, 1, 2) - rot(B, 1, 2), d22 = rot(A, 2, 2) - rot(B, 2, 2);
        // t_b − t_a = M_b(v) − M_a(v).
        const e0 = affineRow(MB, 0, vx, vy, vz) - affineRow(MA, 0, vx, vy, vz);
        const e1 = affineRow(MB, 1, vx, vy, vz) - affineRow(MA, 1, vx, vy, vz);
        const e2 = affineRow(MB, 2, vx, vy, vz) - affineRow(MA, 2, vx, vy, vz);
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
    sbsCenterF64(m00, m01, m02, m11, m12, m22, b0, b1, b2, 0, 0, 0);
    const rx = centerX, ry = centerY, rz = centerZ;
    const g0 = RM + (jointAt(JI, base) << 7);
    const px = load<f64>(g0), py = load<f64>(g0, 8), pz = load<f64>(g0, 16), pw = load<f64>(g0, 24);
    let k0 = f32x4.splat(0), k1 = k0, k2 = k0;
    let qx: f64 = 0, qy: f64 = 0, qz: f64 = 0, qw: f64 = 0, lx: f64 = 0, ly: f64 = 0, lz: f64 = 0, sum: f64 = 0;
    for (let k = 0; k < c; k++) {
      const s = base + <usize>k;
      const j = jointAt(JI, s);
      const wt = <f64>weightAt(W, s);
      const m = M + (j << 6);
      const g = QK + (j << 6);
      const R = RM + (j << 7);
      const w = f32x4.splat(<f32>wt);
      k0 = madd(w, v128.load(g, 16), k0);
      k1 = madd(w, v128.load(g, 32), k1);
      k2 = madd(w, v128.load(g, 48), k2);
      // The QLERP sum (signs against the pivot), and Σ w_j (R_j r + M_j(v)).
      const x = load<f64>(R), y = load<f64>(R, 8), z = load<f64>(R, 16), q3 = load<f64>(R, 24);
      const ws = px * x + py * y + pz * z + pw * q3 < 0 ? -wt : wt;
      qx += ws * x; qy += ws * y; qz += ws * z; qw += ws * q3;
      sum += wt;
      lx += wt * (rot(R, 0, 0) * rx + rot(R, 0, 1) * ry + rot(R, 0, 2) * rz + affineRow(m, 0, vx, vy, vz));
      ly += wt * (rot(R, 1, 0) * rx + rot(R, 1, 1) * ry + rot(R, 1, 2) * rz + affineRow(m, 1, vx, vy, vz));
      lz += wt * (rot(R, 2, 0) * rx + rot(R, 2, 1) * ry + rot(R, 2, 2) * rz + affineRow(m, 2, vx, vy, vz));
    }
    // R r = r + 2 q_w (q × r) + 2 q × (q × r) for the unit q.
    const l2 = qx * qx + qy * qy + qz * qz + qw * qw;
    const inv = 1 / Math.sqrt(l2);
    const ux = qx * inv, uy = qy * inv, uz = qz * inv, uw = qw * inv;
    const tx = 2 * (uy * rz - uz * ry), ty = 2 * (uz * rx - ux * rz), tz = 2 * (ux * ry - uy * rx);
    const o = OP + <usize>i * 12;
    store<f32>(o, <f32>(lx / sum - (rx + uw * tx + (uy * tz - uz * ty))));
    store<f32>(o, <f32>(ly / sum - (ry + uw * ty + (uz * tx - ux * tz))), 4);
    store<f32>(o, <f32>(lz / sum - (rz + uw * tz + (ux * ty - uy * tx))), 8);
    // Normal and tangent: the blended rotation in f32.
    let qa = f32x4.splat(0);
    qa = f32x4.replace_lane(qa, 0, <f32>ux);
    qa = f32x4.replace_lane(qa, 1, <f32>uy);
    qa = f32x4.replace_lane(qa, 2, <f32>uz);
    qa = f32x4.replace_lane(qa, 3, <f32>uw);
    writeFrame(i, k0, k1, k2, qa, f32x4.splat(2 / hsum(f32x4.mul(qa, qa))), N, T, ON, OT);
  }
}

/** Entry (r, c) of the f64 rotation matrix R_j of SBS's per-joint block at g (see {@link sbsStretched}). */
@inline function rot(g: usize, r: i32, c: i32): f64 {
  return load<f64>(g + 32 + (<usize>(3 * c + r) << 3));
}

/** Row r of the affine map of the 4×4 column-major matrix at m applied to (x, y, z), in f64. */
@inline function affineRow(m: usize, r: i32, x: f64, y: f64, z: f64): f64 {
  return at(m, r, 0) * x + at(m, r, 1) * y + at(m, r, 2) * z + at(m, r, 3);
}
