// Direct Delta Mush's run-time step (Binh Huy Le and J. P. Lewis, "Direct Delta Mush Skinning
// and Variants", ACM TOG 38(4), SIGGRAPH 2019, Alg. 1) in AssemblyScript, compiled to
// WebAssembly SIMD with the other kernels (kernels.ts) and driven by
// src/methods/ddm/simd.ts, which owns the memory layout. The steps of the JavaScript deformer
// (src/methods/ddm/deformer.ts) in 32-bit floats:
//
// 1. per vertex, Q = Σ_j [L_j | M_j(v)]·Ω'_ij (compact: (Σ_j ω_ij [L_j | M_j(v)])·Π'_i) about
//    the vertex's rest position v, one 128-bit register per column of Q's top three rows;
//    S = Q[0:3, 0:3]/Q₃₃ − q pᵀ, σ the vertex's blend of the joints' uniform scales;
// 2. the polar factor R of S, four vertices at a time, one vertex per lane, two such batches per
//    group: by Higham's scaled Newton iteration (`newtonPolar`, the two batches side by side);
//    where a lane's S is too near singular or rank 1, or has not converged, each vertex of the
//    group by the JavaScript deformer's own steps in 64-bit floats (`vertexF64`: deformer.ts and
//    polar.ts, from the same float32 inputs);
// 3. v' = q − σ R p; normal and tangent turned by R.
//
// Translations are relative to a reference point near the result (the first entry's joint's
// image of v): S does not depend on it, and a character far from the origin keeps float32's
// digits (absolute positions would cancel in S = Q/Q₃₃ − q pᵀ). A vertex with one entry (or none: joint 0)
//    moves by its joint's matrix.
//
// Layout (byte offsets): P, N, OP, ON 3 f32 per vertex at 12·i (4-lane loads and stores, the
// caller pads), T and OT 4 f32 at 16·i; OFF the n + 1 entry offsets (u32); JI the entries'
// joints (u16); X the symmetric 4×4 matrices as 10 f32 (X00 X01 X02 X03 X11 X12 X13 X22 X23 X33)
// per entry (full) or per vertex (compact: Π'); WE the entries' ω (compact; 0 for full); M the
// skinning matrices (16 f32, column-major, 64·j); SC the joints' |det L_j|^(1/3) (f32);
// BUF 2·34·16 bytes of scratch (two batches of four vertices), then 8·96 bytes where the group's
// vertices are staged (`STAGED`), then the float64 path's 51 doubles.

import { apply3, madd, writeAffine } from './common';

// Scratch slots of BUF (16 bytes each, lane k = the k-th vertex of the batch).
const S_ = 0; // S row-major, 9 slots
const Q_ = 9; // q, 3 slots
const PP = 12; // p, 3 slots
const SIG = 15; // σ
const R_ = 16; // R row-major, 9 slots (Newton's X while it iterates)
const L_ = 25; // v' − r = q − σ R p, 3 slots
const IDX = 28; // the batch's vertex indices (i32)
const O_ = 29; // the vertex's reference point r (posed space), 3 slots
const OK_ = 32; // Newton's mask: S within its bounds (step 0)
const MOVED = 33; // Newton's last step, squared
/** Bytes of one batch's slots. */
const BATCH: usize = 34 << 4;
/** Batches of four vertices whose polar factors are computed side by side (BUF holds them). */
const BATCHES: usize = 2;
/**
 * Bytes of one vertex's staged vectors, after the batches' slots: S's columns 0–2 (x, y, z, –),
 * q, r, (p, σ); a batch's four are transposed into its slots (`unstage`).
 */
const STAGED: usize = 6 << 4;
const LANES = <i32>(BATCHES << 2);

/** Bytes of the float64 path's scratch, after the staged vertices: S, V, R, T, Q (`FS`…). */
const F64_BYTES: usize = 51 << 3;

/** The bytes of BUF `ddm` uses (its caller checks its layout against this). */
export function ddmScratchBytes(): i32 {
  return <i32>(BATCHES * BATCH + 4 * BATCHES * STAGED + F64_BYTES);
}

/**
 * Rows 0 to rows − 1 of the four staged vectors at a, a + STAGED, a + 2·STAGED, a + 3·STAGED (a
 * 4×4 transpose by shuffles) into the slots slot, slot + stride, … of the batch at buf.
 */
@inline function transpose(buf: usize, slot: i32, stride: i32, a: usize, rows: i32): void {
  const x = v128.load(a), y = v128.load(a + STAGED), z = v128.load(a + 2 * STAGED), w = v128.load(a + 3 * STAGED);
  const t0 = i32x4.shuffle(x, y, 0, 4, 1, 5), t1 = i32x4.shuffle(z, w, 0, 4, 1, 5);
  const t2 = i32x4.shuffle(x, y, 2, 6, 3, 7), t3 = i32x4.shuffle(z, w, 2, 6, 3, 7);
  st(buf, slot, i32x4.shuffle(t0, t1, 0, 1, 4, 5));
  st(buf, slot + stride, i32x4.shuffle(t0, t1, 2, 3, 6, 7));
  st(buf, slot + 2 * stride, i32x4.shuffle(t2, t3, 0, 1, 4, 5));
  if (rows == 4) st(buf, slot + 3 * stride, i32x4.shuffle(t2, t3, 2, 3, 6, 7));
}

/** The four vertices staged at `stage` into the slots of the batch at buf: S, q, r, p and σ. */
@inline function unstage(buf: usize, stage: usize): void {
  // Column c of S: its rows are slots S_ + c, S_ + 3 + c, S_ + 6 + c.
  for (let c = 0; c < 3; c++) transpose(buf, S_ + c, 3, stage + (<usize>c << 4), 3);
  transpose(buf, Q_, 1, stage + 48, 3);
  transpose(buf, O_, 1, stage + 64, 3);
  transpose(buf, PP, 1, stage + 80, 4); // p, then σ in slot SIG = PP + 3
}

@inline function ld(buf: usize, slot: i32): v128 {
  return v128.load(buf + (<usize>slot << 4));
}
@inline function st(buf: usize, slot: i32, v: v128): void {
  v128.store(buf + (<usize>slot << 4), v);
}
@inline function X(x: usize, k: i32): v128 {
  return v128.load32_splat(x + (<usize>k << 2));
}

/**
 * Steps of {@link newtonPolar}: the first SCALED_STEPS with Higham's scaling ζ, the later ones,
 * near convergence, with ζ = 1 (one division instead of five square roots and divisions). With
 * 3 + 2, over CesiumMan ×3's clip, 0 to 5 of its 19,634 groups leave for the float64 path; with
 * 3 + 1, 3%; with 2 + 3, 1%; with 4 scaled steps and no others, 26%.
 */
const NEWTON_STEPS = 5;
const SCALED_STEPS = 3;
/**
 * The S that {@link newtonPolar} takes: its condition number ‖S‖_F‖S⁻¹‖_F at most MAX_CONDITION,
 * and its second singular value (through ‖cof S‖_F ≥ σ₁σ₂) at least MIN_SECOND of ‖S‖_F. Nearer
 * to rank 1, float32's det and cofactors lose the sign of S's smallest direction and Newton can
 * settle on the other reflection, its last step as small (the float64 path then takes the
 * vertex). In a float32 simulation of these steps on 100,000 random S (singular values 1, σ₂ and
 * ±σ₃ down to 1e-8), the accepted ones are within 1.9e-5 of the polar factor; without these
 * bounds, 3.6% are a reflection off. On the shared characters and CesiumMan ×3 no S is outside.
 */
const MAX_CONDITION: f32 = 1e5;
const MIN_SECOND: f32 = 1e-3;

/**
 * The polar factors R of the S in BATCHES batches of four at BUF by Higham's scaled Newton
 * iteration (N. J. Higham, "Computing the Polar Decomposition — with Applications", SIAM J. Sci.
 * Stat. Comput. 7(4), 1986): X₀ = S/‖S‖_F, X_{k+1} = (ζ_k X_k + X_k⁻ᵀ/ζ_k)/2 with
 * ζ_k = (‖X_k⁻¹‖_F/‖X_k‖_F)^½ and X⁻ᵀ = cof(X)/det X, {@link NEWTON_STEPS} steps, each step for
 * one batch, then the other (two independent chains of divisions and square roots side by side:
 * 0.92× the time of one batch's steps after the other's on CesiumMan ×3). R is the orthogonal
 * polar factor U·Vᵀ, the same as `polar.ts`'s (a reflection where det S < 0). Then
 * v' = q − σ R p (slots R_ and L_). Returns false, leaving the group to the float64 path
 * ({@link vertexF64}), where a lane's S is nearly singular or nearly of rank 1
 * ({@link MAX_CONDITION}), or has not converged (its last step moved X by more than 1e-4 in the
 * Frobenius norm; S = 0 or not finite): Newton's quadratic convergence leaves about the square of
 * the last step.
 */
function newtonPolar(buf: usize): bool {
  for (let b: usize = 0; b < BATCHES; b++) newtonStart(buf + b * BATCH);
  for (let step = 0; step < NEWTON_STEPS; step++)
    for (let b: usize = 0; b < BATCHES; b++) newtonStep(buf + b * BATCH, step);
  // Every lane conditioned and converged (NaN compares false): the last step moved X by less than 1e-4.
  let ok = i32x4.splat(-1);
  for (let b: usize = 0; b < BATCHES; b++) ok = v128.and(ok, v128.and(ld(buf + b * BATCH, OK_), f32x4.lt(ld(buf + b * BATCH, MOVED), f32x4.splat(1e-8))));
  if (!i32x4.all_true(ok)) return false;
  for (let b: usize = 0; b < BATCHES; b++) {
    const o = buf + b * BATCH;
    const sig = ld(o, SIG);
    const px = ld(o, PP), py = ld(o, PP + 1), pz = ld(o, PP + 2);
    for (let r = 0; r < 3; r++)
      st(o, L_ + r, f32x4.sub(ld(o, Q_ + r), f32x4.mul(sig, dot3(ld(o, R_ + 3 * r), ld(o, R_ + 3 * r + 1), ld(o, R_ + 3 * r + 2), px, py, pz))));
  }
  return true;
}

/** X₀ = S/‖S‖_F (the same polar factor), so that the cofactors' squares stay in float32's range: slots R_. */
@inline function newtonStart(buf: usize): void {
  let n = f32x4.splat(0);
  for (let k = 0; k < 9; k++) n = madd(ld(buf, S_ + k), ld(buf, S_ + k), n);
  const unit = f32x4.div(f32x4.splat(1), f32x4.sqrt(n));
  for (let k = 0; k < 9; k++) st(buf, R_ + k, f32x4.mul(ld(buf, S_ + k), unit));
}

/**
 * One Newton step on the X in slots R_ of a batch; at step 0 the lanes' mask of S within the
 * bounds into slot OK_, at the last step how far X moved (squared) into slot MOVED.
 */
@inline function newtonStep(buf: usize, step: i32): void {
  const x00 = ld(buf, R_), x01 = ld(buf, R_ + 1), x02 = ld(buf, R_ + 2);
  const x10 = ld(buf, R_ + 3), x11 = ld(buf, R_ + 4), x12 = ld(buf, R_ + 5);
  const x20 = ld(buf, R_ + 6), x21 = ld(buf, R_ + 7), x22 = ld(buf, R_ + 8);
  const half = f32x4.splat(0.5);
  const c00 = f32x4.sub(f32x4.mul(x11, x22), f32x4.mul(x12, x21));
  const c01 = f32x4.sub(f32x4.mul(x12, x20), f32x4.mul(x10, x22));
  const c02 = f32x4.sub(f32x4.mul(x10, x21), f32x4.mul(x11, x20));
  const c10 = f32x4.sub(f32x4.mul(x02, x21), f32x4.mul(x01, x22));
  const c11 = f32x4.sub(f32x4.mul(x00, x22), f32x4.mul(x02, x20));
  const c12 = f32x4.sub(f32x4.mul(x01, x20), f32x4.mul(x00, x21));
  const c20 = f32x4.sub(f32x4.mul(x01, x12), f32x4.mul(x02, x11));
  const c21 = f32x4.sub(f32x4.mul(x02, x10), f32x4.mul(x00, x12));
  const c22 = f32x4.sub(f32x4.mul(x00, x11), f32x4.mul(x01, x10));
  const det = madd(x02, c02, madd(x01, c01, f32x4.mul(x00, c00)));
  let a = half, b: v128;
  if (step < SCALED_STEPS) {
    const nx = f32x4.add(f32x4.add(sq3(x00, x01, x02), sq3(x10, x11, x12)), sq3(x20, x21, x22));
    const nc = f32x4.add(f32x4.add(sq3(c00, c01, c02), sq3(c10, c11, c12)), sq3(c20, c21, c22));
    // ‖S‖_F‖S⁻¹‖_F = √(nx·nc)/|det| ≤ MAX_CONDITION and ‖cof S‖_F ≥ MIN_SECOND·‖S‖_F².
    if (step == 0)
      st(
        buf,
        OK_,
        v128.and(
          f32x4.le(f32x4.mul(nx, nc), f32x4.mul(f32x4.mul(det, det), f32x4.splat(MAX_CONDITION * MAX_CONDITION))),
          f32x4.ge(nc, f32x4.mul(f32x4.mul(nx, nx), f32x4.splat(MIN_SECOND * MIN_SECOND))),
        ),
      );
    // ζ = (‖cof X‖_F / (|det X|·‖X‖_F))^½; X' = (ζ/2)·X + (1/(2ζ det X))·cof X
    const zeta = f32x4.sqrt(f32x4.div(f32x4.sqrt(f32x4.div(nc, nx)), f32x4.abs(det)));
    a = f32x4.mul(half, zeta);
    b = f32x4.div(half, f32x4.mul(zeta, det));
  } else b = f32x4.div(half, det);
  const y00 = madd(b, c00, f32x4.mul(a, x00));
  const y01 = madd(b, c01, f32x4.mul(a, x01));
  const y02 = madd(b, c02, f32x4.mul(a, x02));
  const y10 = madd(b, c10, f32x4.mul(a, x10));
  const y11 = madd(b, c11, f32x4.mul(a, x11));
  const y12 = madd(b, c12, f32x4.mul(a, x12));
  const y20 = madd(b, c20, f32x4.mul(a, x20));
  const y21 = madd(b, c21, f32x4.mul(a, x21));
  const y22 = madd(b, c22, f32x4.mul(a, x22));
  if (step == NEWTON_STEPS - 1)
    st(
      buf,
      MOVED,
      f32x4.add(
        f32x4.add(sq3(f32x4.sub(y00, x00), f32x4.sub(y01, x01), f32x4.sub(y02, x02)), sq3(f32x4.sub(y10, x10), f32x4.sub(y11, x11), f32x4.sub(y12, x12))),
        sq3(f32x4.sub(y20, x20), f32x4.sub(y21, x21), f32x4.sub(y22, x22)),
      ),
    );
  st(buf, R_, y00); st(buf, R_ + 1, y01); st(buf, R_ + 2, y02);
  st(buf, R_ + 3, y10); st(buf, R_ + 4, y11); st(buf, R_ + 5, y12);
  st(buf, R_ + 6, y20); st(buf, R_ + 7, y21); st(buf, R_ + 8, y22);
}

@inline function sq3(a: v128, b: v128, c: v128): v128 {
  return dot3(a, b, c, a, b, c);
}
@inline function dot3(a: v128, b: v128, c: v128, x: v128, y: v128, z: v128): v128 {
  return madd(c, z, madd(b, y, f32x4.mul(a, x)));
}

// ---- the float64 path: a vertex by the JavaScript deformer's own steps ----

/**
 * Slots of the float64 scratch F (f64 each): S, V and R (row-major 3×3), a joint's T = [L | M v]
 * and Q's top rows (row-major 3×4).
 */
const FS = 0;
const FV = 9;
const FR = 18;
const FT = 27;
const FQ = 39;
/** Jacobi sweeps of {@link polarF64}: `polar.ts`'s POLAR_JACOBI_SWEEPS. */
const F64_SWEEPS = 5;

@inline function fl(F: usize, k: i32): f64 {
  return load<f64>(F + (<usize>k << 3));
}
@inline function fs(F: usize, k: i32, x: f64): void {
  store<f64>(F + (<usize>k << 3), x);
}

/**
 * Vertex i by the JavaScript deformer's steps in 64-bit floats (src/methods/ddm/deformer.ts, its
 * polar factor src/methods/ddm/polar.ts, step for step) from the same float32 inputs: R into lane
 * k of the batch at buf, and v' − r (r the lane's reference point, slot O_). For the vertices whose
 * S Newton's float32 iteration does not take: near rank 1 or 2 (a bone twisted 170°, a joint
 * squashed), float32 cannot resolve S's smallest direction, and a float32 eigen-decomposition
 * picks either reflection; from the float32 inputs, float64 arithmetic is within 3e-7 of the
 * diagonal of the JavaScript deformer there.
 */
function vertexF64(i: usize, compact: i32, P: usize, OFF: usize, JI: usize, Xs: usize, WE: usize, M: usize, SC: usize, F: usize, buf: usize, k: i32): void {
  const e0 = <usize>load<u32>(OFF + (i << 2));
  const e1 = <usize>load<u32>(OFF + (i << 2), 4);
  // (Locals, not arrays: the stub runtime never frees an allocation.)
  const vx = <f64>load<f32>(P + i * 12), vy = <f64>load<f32>(P + i * 12, 4), vz = <f64>load<f32>(P + i * 12, 8);
  for (let c = 0; c < 12; c++) fs(F, FQ + c, 0);
  // Q's bottom row (b0 b1 b2 c); compact: B = Σ ω M_j first (in T), taken to the vertex's frame.
  let b0: f64 = 0, b1: f64 = 0, b2: f64 = 0, c: f64 = 0, sigma: f64 = 0, sw: f64 = 0;
  if (compact) for (let t = 0; t < 12; t++) fs(F, FT + t, 0);
  for (let e = e0; e < e1; e++) {
    const j = <usize>load<u16>(JI + (e << 1));
    const m = M + (j << 6);
    const scale = <f64>load<f32>(SC + (j << 2));
    if (compact) {
      // T += ω [L_j | t_j] (row-major 3×4; M column-major)
      const w = <f64>load<f32>(WE + (e << 2));
      sw += w;
      sigma += w * scale;
      for (let r = 0; r < 3; r++)
        for (let col = 0; col < 4; col++) fs(F, FT + 4 * r + col, fl(F, FT + 4 * r + col) + w * <f64>load<f32>(m + (<usize>(4 * col + r) << 2)));
      continue;
    }
    // [L_j | M_j v]: the joint's matrix in the frame at the vertex
    for (let r = 0; r < 3; r++) {
      const l0 = <f64>load<f32>(m + (<usize>r << 2)), l1 = <f64>load<f32>(m + (<usize>(4 + r) << 2)), l2 = <f64>load<f32>(m + (<usize>(8 + r) << 2));
      fs(F, FT + 4 * r, l0);
      fs(F, FT + 4 * r + 1, l1);
      fs(F, FT + 4 * r + 2, l2);
      fs(F, FT + 4 * r + 3, l0 * vx + l1 * vy + l2 * vz + <f64>load<f32>(m + (<usize>(12 + r) << 2)));
    }
    const x = Xs + e * 40;
    addTimesSymmetric(F, x);
    const x33 = <f64>load<f32>(x, 36);
    sigma += x33 * scale;
    b0 += load<f32>(x, 12);
    b1 += load<f32>(x, 24);
    b2 += load<f32>(x, 32);
    c += x33;
  }
  if (compact) {
    // Q = [B | B v] Π' (bottom row (0 0 0 Σω); Π'₃₃ = 1)
    for (let r = 0; r < 3; r++)
      fs(F, FT + 4 * r + 3, fl(F, FT + 4 * r) * vx + fl(F, FT + 4 * r + 1) * vy + fl(F, FT + 4 * r + 2) * vz + fl(F, FT + 4 * r + 3));
    const x = Xs + i * 40;
    addTimesSymmetric(F, x);
    b0 = sw * load<f32>(x, 12);
    b1 = sw * load<f32>(x, 24);
    b2 = sw * load<f32>(x, 32);
    c = sw * load<f32>(x, 36);
    sigma /= sw;
  } else sigma /= c;
  const ic = 1 / c;
  const px = b0 * ic, py = b1 * ic, pz = b2 * ic;
  for (let r = 0; r < 3; r++) {
    const q = fl(F, FQ + 4 * r + 3) * ic;
    fs(F, FS + 3 * r, fl(F, FQ + 4 * r) * ic - q * px);
    fs(F, FS + 3 * r + 1, fl(F, FQ + 4 * r + 1) * ic - q * py);
    fs(F, FS + 3 * r + 2, fl(F, FQ + 4 * r + 2) * ic - q * pz);
  }
  polarF64(F);
  const o = buf + (<usize>k << 2);
  for (let r = 0; r < 3; r++) {
    const r0 = fl(F, FR + 3 * r), r1 = fl(F, FR + 3 * r + 1), r2 = fl(F, FR + 3 * r + 2);
    store<f32>(o + (<usize>(R_ + 3 * r) << 4), <f32>r0);
    store<f32>(o + (<usize>(R_ + 3 * r + 1) << 4), <f32>r1);
    store<f32>(o + (<usize>(R_ + 3 * r + 2) << 4), <f32>r2);
    // v' = q − σ R p (absolute), less the lane's reference point
    const q = fl(F, FQ + 4 * r + 3) * ic;
    store<f32>(o + (<usize>(L_ + r) << 4), <f32>(q - sigma * (r0 * px + r1 * py + r2 * pz) - <f64>load<f32>(o + (<usize>(O_ + r) << 4))));
  }
}

/** Q += T·X (F's slots; X symmetric, 10 f32 at x: X00 X01 X02 X03 X11 X12 X13 X22 X23 X33), as deformer.ts' addTimesSymmetric. */
function addTimesSymmetric(F: usize, x: usize): void {
  const x00 = <f64>load<f32>(x), x01 = <f64>load<f32>(x, 4), x02 = <f64>load<f32>(x, 8), x03 = <f64>load<f32>(x, 12);
  const x11 = <f64>load<f32>(x, 16), x12 = <f64>load<f32>(x, 20), x13 = <f64>load<f32>(x, 24);
  const x22 = <f64>load<f32>(x, 28), x23 = <f64>load<f32>(x, 32), x33 = <f64>load<f32>(x, 36);
  for (let r = 0; r < 12; r += 4) {
    const a = fl(F, FT + r), b = fl(F, FT + r + 1), c = fl(F, FT + r + 2), d = fl(F, FT + r + 3);
    fs(F, FQ + r, fl(F, FQ + r) + (a * x00 + b * x01 + c * x02 + d * x03));
    fs(F, FQ + r + 1, fl(F, FQ + r + 1) + (a * x01 + b * x11 + c * x12 + d * x13));
    fs(F, FQ + r + 2, fl(F, FQ + r + 2) + (a * x02 + b * x12 + c * x22 + d * x23));
    fs(F, FQ + r + 3, fl(F, FQ + r + 3) + (a * x03 + b * x13 + c * x23 + d * x33));
  }
}

/** {@link vertexF64} for lane k of the group at BUF (the vertex its IDX slot names). */
@inline function laneF64(k: i32, compact: i32, P: usize, OFF: usize, JI: usize, Xs: usize, WE: usize, M: usize, SC: usize, F: usize, BUF: usize): void {
  const buf = BUF + (<usize>(k >> 2)) * BATCH;
  const i = <usize>load<i32>(buf + (<usize>IDX << 4) + (<usize>(k & 3) << 2));
  vertexF64(i, compact, P, OFF, JI, Xs, WE, M, SC, F, buf, k & 3);
}

/**
 * `polar.ts`'s polarFactor (not its `rotation` mode) in 64-bit floats, step for step: the S at
 * F[FS..] to R at F[FR..] (V at F[FV..]).
 */
function polarF64(F: usize): void {
  // A = SᵀS: a00 a01 a02 a11 a12 a22
  const s0 = fl(F, 0), s1 = fl(F, 1), s2 = fl(F, 2), s3 = fl(F, 3), s4 = fl(F, 4), s5 = fl(F, 5), s6 = fl(F, 6), s7 = fl(F, 7), s8 = fl(F, 8);
  let a00 = s0 * s0 + s3 * s3 + s6 * s6, a01 = s0 * s1 + s3 * s4 + s6 * s7, a02 = s0 * s2 + s3 * s5 + s6 * s8;
  let a11 = s1 * s1 + s4 * s4 + s7 * s7, a12 = s1 * s2 + s4 * s5 + s7 * s8, a22 = s2 * s2 + s5 * s5 + s8 * s8;
  for (let k = 0; k < 9; k++) fs(F, FV + k, k == 0 || k == 4 || k == 8 ? 1 : 0);
  for (let sweep = 0; sweep < F64_SWEEPS; sweep++) {
    for (let pair = 0; pair < 3; pair++) {
      const p = pair == 2 ? 1 : 0;
      const q = pair == 0 ? 1 : 2;
      const apq = p == 0 ? (q == 1 ? a01 : a02) : a12;
      if (apq == 0) continue;
      const app = p == 0 ? a00 : a11;
      const aqq = q == 1 ? a11 : a22;
      // Rotation zeroing a_pq (Golub & Van Loan, Alg. 8.4.1).
      const tau = (aqq - app) / (2 * apq);
      const t = (tau >= 0 ? 1.0 : -1.0) / (Math.abs(tau) + Math.sqrt(1 + tau * tau));
      const cs = 1 / Math.sqrt(1 + t * t);
      const sn = t * cs;
      const r = 3 - p - q;
      const apr = r == 0 ? a01 : r == 1 ? (p == 0 ? a01 : a12) : p == 0 ? a02 : a12;
      const aqr = r == 0 ? a02 : a12;
      const nApp = app - t * apq, nAqq = aqq + t * apq;
      const nApr = cs * apr - sn * aqr, nAqr = sn * apr + cs * aqr;
      if (p == 0 && q == 1) {
        a00 = nApp; a11 = nAqq; a01 = 0; a02 = nApr; a12 = nAqr;
      } else if (p == 0) {
        a00 = nApp; a22 = nAqq; a02 = 0; a01 = nApr; a12 = nAqr;
      } else {
        a11 = nApp; a22 = nAqq; a12 = 0; a01 = nApr; a02 = nAqr;
      }
      for (let k = 0; k < 3; k++) {
        const vp = fl(F, FV + 3 * k + p), vq = fl(F, FV + 3 * k + q);
        fs(F, FV + 3 * k + p, cs * vp - sn * vq);
        fs(F, FV + 3 * k + q, sn * vp + cs * vq);
      }
    }
  }
  // Descending eigenvalue order a, b, c (a sorting network's three compare-and-swaps).
  const swap01 = a00 < a11;
  let ia = swap01 ? 1 : 0;
  let ib = 1 - ia;
  let ic = 2;
  let ea = swap01 ? a11 : a00;
  const eb = swap01 ? a00 : a11;
  let ec = a22;
  if (ea < ec) {
    const t = ia; ia = ic; ic = t;
    ec = ea; ea = a22;
  }
  if (eb < ec) {
    const t = ib; ib = ic; ic = t;
  }
  // u_a = S v_a / |S v_a| (v_a where S = 0)
  let ux = s0 * fl(F, FV + ia) + s1 * fl(F, FV + 3 + ia) + s2 * fl(F, FV + 6 + ia);
  let uy = s3 * fl(F, FV + ia) + s4 * fl(F, FV + 3 + ia) + s5 * fl(F, FV + 6 + ia);
  let uz = s6 * fl(F, FV + ia) + s7 * fl(F, FV + 3 + ia) + s8 * fl(F, FV + 6 + ia);
  let l = Math.sqrt(ux * ux + uy * uy + uz * uz);
  const ax = l > 0 ? ux / l : fl(F, FV + ia), ay = l > 0 ? uy / l : fl(F, FV + 3 + ia), az = l > 0 ? uz / l : fl(F, FV + 6 + ia);
  // u_b ⟂ u_a
  ux = s0 * fl(F, FV + ib) + s1 * fl(F, FV + 3 + ib) + s2 * fl(F, FV + 6 + ib);
  uy = s3 * fl(F, FV + ib) + s4 * fl(F, FV + 3 + ib) + s5 * fl(F, FV + 6 + ib);
  uz = s6 * fl(F, FV + ib) + s7 * fl(F, FV + 3 + ib) + s8 * fl(F, FV + 6 + ib);
  const d = ux * ax + uy * ay + uz * az;
  ux -= d * ax;
  uy -= d * ay;
  uz -= d * az;
  l = Math.sqrt(ux * ux + uy * uy + uz * uz);
  if (!(l > 1e-12 * Math.sqrt(ea))) {
    // Rank ≤ 1: any unit vector orthogonal to u_a.
    const px = Math.abs(ax) < 0.6 ? 1.0 : 0.0;
    const py = px != 0 ? 0.0 : 1.0;
    ux = py * az;
    uy = -px * az;
    uz = px * ay - py * ax;
    l = Math.sqrt(ux * ux + uy * uy + uz * uz);
  }
  const bx = ux / l, by = uy / l, bz = uz / l;
  // u_c = ±u_a × u_b
  const wx = ay * bz - az * by, wy = az * bx - ax * bz, wz = ax * by - ay * bx;
  const cx = s0 * fl(F, FV + ic) + s1 * fl(F, FV + 3 + ic) + s2 * fl(F, FV + 6 + ic);
  const cy = s3 * fl(F, FV + ic) + s4 * fl(F, FV + 3 + ic) + s5 * fl(F, FV + 6 + ic);
  const cz = s6 * fl(F, FV + ic) + s7 * fl(F, FV + 3 + ic) + s8 * fl(F, FV + 6 + ic);
  const dc = cx * wx + cy * wy + cz * wz;
  let sign: f64;
  if (Math.abs(dc) > 1e-9 * Math.sqrt(ea)) sign = dc > 0 ? 1 : -1;
  else {
    // det[v_a v_b v_c] = ±1 (the order's parity); make det R = +1.
    const v0 = fl(F, FV + 3 + ia) * fl(F, FV + 6 + ib) - fl(F, FV + 6 + ia) * fl(F, FV + 3 + ib);
    const v1 = fl(F, FV + 6 + ia) * fl(F, FV + ib) - fl(F, FV + ia) * fl(F, FV + 6 + ib);
    const v2 = fl(F, FV + ia) * fl(F, FV + 3 + ib) - fl(F, FV + 3 + ia) * fl(F, FV + ib);
    sign = v0 * fl(F, FV + ic) + v1 * fl(F, FV + 3 + ic) + v2 * fl(F, FV + 6 + ic) > 0 ? 1 : -1;
  }
  // R = u_a v_aᵀ + u_b v_bᵀ + u_c v_cᵀ
  for (let r = 0; r < 3; r++) {
    const ua = r == 0 ? ax : r == 1 ? ay : az;
    const ub = r == 0 ? bx : r == 1 ? by : bz;
    const uc = sign * (r == 0 ? wx : r == 1 ? wy : wz);
    for (let c = 0; c < 3; c++)
      fs(F, FR + 3 * r + c, ua * fl(F, FV + 3 * c + ia) + ub * fl(F, FV + 3 * c + ib) + uc * fl(F, FV + 3 * c + ic));
  }
}

@inline function lane(buf: usize, slot: i32, k: i32): f32 {
  return load<f32>(buf + (<usize>slot << 4) + (<usize>k << 2));
}

/** Writes the batch's `count` vertices: position v', normal and tangent turned by R. */
function writeBatch(buf: usize, count: i32, N: usize, T: usize, OP: usize, ON: usize, OT: usize): void {
  for (let k = 0; k < count; k++) {
    const i = <usize>load<i32>(buf + (<usize>IDX << 4) + (<usize>k << 2));
    const r0 = lane(buf, R_, k), r1 = lane(buf, R_ + 1, k), r2 = lane(buf, R_ + 2, k);
    const r3 = lane(buf, R_ + 3, k), r4 = lane(buf, R_ + 4, k), r5 = lane(buf, R_ + 5, k);
    const r6 = lane(buf, R_ + 6, k), r7 = lane(buf, R_ + 7, k), r8 = lane(buf, R_ + 8, k);
    store<f32>(OP + i * 12, lane(buf, L_, k) + lane(buf, O_, k));
    store<f32>(OP + i * 12, lane(buf, L_ + 1, k) + lane(buf, O_ + 1, k), 4);
    store<f32>(OP + i * 12, lane(buf, L_ + 2, k) + lane(buf, O_ + 2, k), 8);
    if (ON) {
      const nx = load<f32>(N + i * 12), ny = load<f32>(N + i * 12, 4), nz = load<f32>(N + i * 12, 8);
      let x = r0 * nx + r1 * ny + r2 * nz, y = r3 * nx + r4 * ny + r5 * nz, z = r6 * nx + r7 * ny + r8 * nz;
      // A rotation keeps the length; a degenerate one (NaN) gives the rest normal back.
      if (!(x * x + y * y + z * z > <f32>0.5 * (nx * nx + ny * ny + nz * nz))) {
        x = nx;
        y = ny;
        z = nz;
      }
      store<f32>(ON + i * 12, x);
      store<f32>(ON + i * 12, y, 4);
      store<f32>(ON + i * 12, z, 8);
    }
    if (OT) {
      const t = T + (i << 4);
      const tx = load<f32>(t), ty = load<f32>(t, 4), tz = load<f32>(t, 8);
      let x = r0 * tx + r1 * ty + r2 * tz, y = r3 * tx + r4 * ty + r5 * tz, z = r6 * tx + r7 * ty + r8 * tz;
      const len = Mathf.sqrt(x * x + y * y + z * z);
      if (len > 0) {
        x /= len;
        y /= len;
        z /= len;
      } else {
        x = tx;
        y = ty;
        z = tz;
      }
      const o = OT + (i << 4);
      store<f32>(o, x);
      store<f32>(o, y, 4);
      store<f32>(o, z, 8);
      store<f32>(o, load<f32>(t, 12), 12);
    }
  }
}

/**
 * Direct Delta Mush for n vertices (see the file comment for the layout). `compact` selects the
 * variant of X and WE.
 */
export function ddm(
  n: i32,
  compact: i32,
  P: usize,
  N: usize,
  T: usize,
  OFF: usize,
  JI: usize,
  Xs: usize,
  WE: usize,
  M: usize,
  SC: usize,
  BUF: usize,
  OP: usize,
  ON: usize,
  OT: usize,
): void {
  const STAGE = BUF + BATCHES * BATCH;
  const F = STAGE + 4 * BATCHES * STAGED;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const e0 = <usize>load<u32>(OFF + (<usize>i << 2));
    const e1 = <usize>load<u32>(OFF + (<usize>i << 2), 4);
    if (e1 - e0 <= 1) {
      const m = M + (e1 == e0 ? 0 : <usize>load<u16>(JI + (e0 << 1)) << 6);
      writeAffine(i, v128.load(m), v128.load(m, 16), v128.load(m, 32), v128.load(m, 48), P, N, T, OP, ON, OT);
      continue;
    }
    const v = v128.load(P + <usize>i * 12);
    // The translations are taken relative to r = M_j0(v), the first entry's joint's image of v:
    // S is the same for any r (Q − r bᵀ gives q − r and the same S) and 32-bit floats keep their
    // digits far from the origin, where M_j(v) − r is small and M_j(v) is not.
    const m0 = M + (<usize>load<u16>(JI + (e0 << 1)) << 6);
    const r = f32x4.add(apply3(v128.load(m0), v128.load(m0, 16), v128.load(m0, 32), v), v128.load(m0, 48));
    // Columns of Q's top three rows (compact: of Σ ω [L_j | M_j(v) − r] first).
    let c0 = f32x4.splat(0), c1 = c0, c2 = c0, c3 = c0;
    let b0: f32 = 0, b1: f32 = 0, b2: f32 = 0, c: f32 = 0, sigma: f32 = 0, sw: f32 = 0;
    for (let e = e0; e < e1; e++) {
      const j = <usize>load<u16>(JI + (e << 1));
      const m = M + (j << 6);
      const a0 = v128.load(m), a1 = v128.load(m, 16), a2 = v128.load(m, 32);
      const t = f32x4.sub(f32x4.add(apply3(a0, a1, a2, v), v128.load(m, 48)), r);
      const scale = load<f32>(SC + (j << 2));
      if (compact) {
        const we = load<f32>(WE + (e << 2));
        const w = f32x4.splat(we);
        c0 = madd(w, a0, c0);
        c1 = madd(w, a1, c1);
        c2 = madd(w, a2, c2);
        c3 = madd(w, t, c3);
        sigma += we * scale;
        sw += we;
        continue;
      }
      const x = Xs + e * 40;
      // Q column k += Σ_c A[:, c]·X[c][k] (X symmetric: X00 X01 X02 X03 X11 X12 X13 X22 X23 X33)
      c0 = f32x4.add(c0, f32x4.add(madd(a1, X(x, 1), f32x4.mul(a0, X(x, 0))), madd(t, X(x, 3), f32x4.mul(a2, X(x, 2)))));
      c1 = f32x4.add(c1, f32x4.add(madd(a1, X(x, 4), f32x4.mul(a0, X(x, 1))), madd(t, X(x, 6), f32x4.mul(a2, X(x, 5)))));
      c2 = f32x4.add(c2, f32x4.add(madd(a1, X(x, 5), f32x4.mul(a0, X(x, 2))), madd(t, X(x, 8), f32x4.mul(a2, X(x, 7)))));
      c3 = f32x4.add(c3, f32x4.add(madd(a1, X(x, 6), f32x4.mul(a0, X(x, 3))), madd(t, X(x, 9), f32x4.mul(a2, X(x, 8)))));
      const x33 = load<f32>(x, 36);
      b0 += load<f32>(x, 12);
      b1 += load<f32>(x, 24);
      b2 += load<f32>(x, 32);
      c += x33;
      sigma += x33 * scale;
    }
    if (compact) {
      // Q = B Π (B's bottom row (0 0 0 Σω); Π₃₃ = 1)
      const x = Xs + <usize>i * 40;
      const m0 = c0, m1 = c1, m2 = c2, m3 = c3;
      c0 = f32x4.add(madd(m1, X(x, 1), f32x4.mul(m0, X(x, 0))), madd(m3, X(x, 3), f32x4.mul(m2, X(x, 2))));
      c1 = f32x4.add(madd(m1, X(x, 4), f32x4.mul(m0, X(x, 1))), madd(m3, X(x, 6), f32x4.mul(m2, X(x, 5))));
      c2 = f32x4.add(madd(m1, X(x, 5), f32x4.mul(m0, X(x, 2))), madd(m3, X(x, 8), f32x4.mul(m2, X(x, 7))));
      c3 = f32x4.add(madd(m1, X(x, 6), f32x4.mul(m0, X(x, 3))), madd(m3, X(x, 9), f32x4.mul(m2, X(x, 8))));
      b0 = sw * load<f32>(x, 12);
      b1 = sw * load<f32>(x, 24);
      b2 = sw * load<f32>(x, 32);
      c = sw * load<f32>(x, 36);
      sigma /= sw;
    } else sigma /= c;
    const ic: f32 = 1 / c;
    const q = f32x4.mul(c3, f32x4.splat(ic));
    const px = b0 * ic, py = b1 * ic, pz = b2 * ic;
    // Staged as vertex `count` of the group: S = Q₃ₓ₃/Q₃₃ − q pᵀ by columns, q, r, p and σ.
    const o = STAGE + <usize>count * STAGED;
    const icv = f32x4.splat(ic);
    v128.store(o, f32x4.sub(f32x4.mul(c0, icv), f32x4.mul(q, f32x4.splat(px))));
    v128.store(o, f32x4.sub(f32x4.mul(c1, icv), f32x4.mul(q, f32x4.splat(py))), 16);
    v128.store(o, f32x4.sub(f32x4.mul(c2, icv), f32x4.mul(q, f32x4.splat(pz))), 32);
    v128.store(o, q, 48);
    v128.store(o, r, 64);
    store<f32>(o, px, 80);
    store<f32>(o, py, 84);
    store<f32>(o, pz, 88);
    store<f32>(o, sigma, 92);
    store<i32>(BUF + (<usize>(count >> 2)) * BATCH + (<usize>IDX << 4) + (<usize>(count & 3) << 2), i);
    if (++count == LANES) {
      for (let b: usize = 0; b < BATCHES; b++) unstage(BUF + b * BATCH, STAGE + 4 * b * STAGED);
      if (!newtonPolar(BUF)) for (let k = 0; k < LANES; k++) laneF64(k, compact, P, OFF, JI, Xs, WE, M, SC, F, BUF);
      for (let b: usize = 0; b < BATCHES; b++) writeBatch(BUF + b * BATCH, 4, N, T, OP, ON, OT);
      count = 0;
    }
  }
  if (count) {
    // The last, partial batches: the unused lanes get S = I (any finite input).
    for (let k = count; k < LANES; k++) {
      const o = STAGE + <usize>k * STAGED;
      for (let s = 0; s < 24; s++) store<f32>(o + (<usize>s << 2), s == 0 || s == 5 || s == 10 ? 1 : 0);
    }
    for (let b: usize = 0; b < BATCHES; b++) unstage(BUF + b * BATCH, STAGE + 4 * b * STAGED);
    if (!newtonPolar(BUF)) for (let k = 0; k < count; k++) laneF64(k, compact, P, OFF, JI, Xs, WE, M, SC, F, BUF);
    for (let b = 0; b < (count + 3) >> 2; b++) writeBatch(BUF + <usize>b * BATCH, min(count - 4 * b, 4), N, T, OP, ON, OT);
  }
}
