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
//    group: by Higham's scaled Newton iteration (`newtonPolar`, the two batches side by side); a group where
//    a lane's S is too near singular or rank 1, or has not converged, takes the steps of
//    src/methods/ddm/polar.ts instead (Jacobi sweeps on SᵀS — the caller's
//    count, 3 — with each rotation written as in `jacobi` below, descending eigenvalues,
//    Gram–Schmidt, u_c's sign), the two batches side by side;
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
// BUF 2·56·16 bytes of scratch (two batches of four vertices), then 8·96 bytes where the group's
// vertices are staged (`STAGED`).

import { apply3, writeAffine } from './common';

// Scratch slots of BUF (16 bytes each, lane k = the k-th vertex of the batch).
const S_ = 0; // S row-major, 9 slots
const Q_ = 9; // q, 3 slots
const PP = 12; // p, 3 slots
const SIG = 15; // σ
const A_ = 16; // SᵀS: a00 a01 a02 a11 a12 a22
const V_ = 22; // eigenvectors v0, v1, v2 (x, y, z each)
const R_ = 31; // R row-major, 9 slots
const L_ = 40; // v' = q − σ R p, 3 slots
const IDX = 43; // the batch's vertex indices (i32)
const O_ = 44; // the vertex's reference point r (posed space), 3 slots
const ROOT = 47; // √ of the largest eigenvalue of SᵀS
const UA = 48; // u_a, 3 slots
const UB = 51; // u_b, 3 slots
const TRACE = 54; // what SᵀS was divided by: its trace (or 1 where not scaled)
/** Bytes of one batch's slots. */
const BATCH: usize = 56 << 4;
/** Batches of four vertices whose polar factors are computed side by side (BUF holds them). */
const BATCHES: usize = 2;
/**
 * Bytes of one vertex's staged vectors, after the batches' slots: S's columns 0–2 (x, y, z, –),
 * q, r, (p, σ); a batch's four are transposed into its slots (`unstage`).
 */
const STAGED: usize = 6 << 4;
const LANES = <i32>(BATCHES << 2);

/** The bytes of BUF `ddm` uses (its caller checks its layout against this). */
export function ddmScratchBytes(): i32 {
  return <i32>(BATCHES * BATCH + 4 * BATCHES * STAGED);
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
 * A Jacobi rotation zeroing a_pq of the symmetric SᵀS (r the third index), applied to the
 * eigenvectors vp and vq; no rotation where a_pq is already 0. With d = a_qq − a_pp, e = 2a_pq:
 * t = tan θ = sgn(d)·e / (|d| + √(d² + e²)) (Golub & Van Loan's t = sgn(τ)/(|τ| + √(1 + τ²)),
 * τ = d/e, times |e|/|e|), c = D/g and s = N/g with N, D that fraction's numerator and
 * denominator and g = √(D² + N²): two square roots and one division on the path to c and s
 * (t = N/D, the other division, is off it; τ's form has three on it). SᵀS is normalised by its trace first (symmetricSquare), so d² + e²
 * stays in range.
 */
@inline function jacobi(buf: usize, app: i32, aqq: i32, apq: i32, apr: i32, aqr: i32, vp: i32, vq: i32): void {
  const one = f32x4.splat(1);
  const zero = f32x4.splat(0);
  const pp = ld(buf, app), qq = ld(buf, aqq), pq = ld(buf, apq);
  const d = f32x4.sub(qq, pp);
  const e = f32x4.add(pq, pq);
  const h = f32x4.sqrt(f32x4.add(f32x4.mul(d, d), f32x4.mul(e, e)));
  const den = f32x4.add(f32x4.abs(d), h);
  const num = v128.bitselect(e, f32x4.neg(e), f32x4.ge(d, zero));
  const ig = f32x4.div(one, f32x4.sqrt(f32x4.add(f32x4.mul(den, den), f32x4.mul(num, num))));
  // No rotation where a_pq = 0, or where d and e are so small (against SᵀS's trace, 1) that
  // their squares would underflow: that part of SᵀS is already diagonal to float32 precision.
  const none = v128.or(f32x4.eq(pq, zero), f32x4.le(h, f32x4.splat(1e-18)));
  const t = v128.bitselect(zero, f32x4.div(num, den), none);
  const c = v128.bitselect(one, f32x4.mul(den, ig), none);
  const s = v128.bitselect(zero, f32x4.mul(num, ig), none);
  const pr = ld(buf, apr), qr = ld(buf, aqr);
  st(buf, app, f32x4.sub(pp, f32x4.mul(t, pq)));
  st(buf, aqq, f32x4.add(qq, f32x4.mul(t, pq)));
  st(buf, apq, zero);
  st(buf, apr, f32x4.sub(f32x4.mul(c, pr), f32x4.mul(s, qr)));
  st(buf, aqr, f32x4.add(f32x4.mul(s, pr), f32x4.mul(c, qr)));
  for (let k = 0; k < 3; k++) {
    const a = ld(buf, vp + k), b = ld(buf, vq + k);
    st(buf, vp + k, f32x4.sub(f32x4.mul(c, a), f32x4.mul(s, b)));
    st(buf, vq + k, f32x4.add(f32x4.mul(s, a), f32x4.mul(c, b)));
  }
}

/** Swaps eigenpairs (e, v) and (f, w) in the lanes where e < f. */
@inline function order(buf: usize, e: i32, f: i32, v: i32, w: i32): void {
  const a = ld(buf, e), b = ld(buf, f);
  const m = f32x4.lt(a, b);
  st(buf, e, v128.bitselect(b, a, m));
  st(buf, f, v128.bitselect(a, b, m));
  for (let k = 0; k < 3; k++) {
    const x = ld(buf, v + k), y = ld(buf, w + k);
    st(buf, v + k, v128.bitselect(y, x, m));
    st(buf, w + k, v128.bitselect(x, y, m));
  }
}

/** Component r of S·v (v at slot v: x, y, z), four lanes. */
@inline function sv(buf: usize, r: i32, v: i32): v128 {
  return f32x4.add(
    f32x4.add(f32x4.mul(ld(buf, S_ + 3 * r), ld(buf, v)), f32x4.mul(ld(buf, S_ + 3 * r + 1), ld(buf, v + 1))),
    f32x4.mul(ld(buf, S_ + 3 * r + 2), ld(buf, v + 2)),
  );
}

/**
 * The polar factor R of the S in BATCHES batches of four at BUF, then v' = q − σ R p, into each
 * batch: by Newton's iteration (`newtonPolar`) where every lane of every batch converges, else
 * by the JavaScript deformer's steps (src/methods/ddm/polar.ts: Jacobi sweeps on SᵀS, then the
 * axes). There each step runs for every batch in turn: a Jacobi rotation is a chain of dependent
 * square roots and divisions, and independent chains side by side keep the processor busy where
 * one leaves it waiting (the same operations per lane).
 */
function polarBatches(buf: usize, sweeps: i32): void {
  if (newtonPolar(buf)) return;
  for (let b: usize = 0; b < BATCHES; b++) symmetricSquare(buf + b * BATCH);
  // Slots: a00 16, a01 17, a02 18, a11 19, a12 20, a22 21; v0 22, v1 25, v2 28.
  for (let sweep = 0; sweep < sweeps; sweep++) {
    for (let b: usize = 0; b < BATCHES; b++) jacobi(buf + b * BATCH, A_, A_ + 3, A_ + 1, A_ + 2, A_ + 4, V_, V_ + 3);
    for (let b: usize = 0; b < BATCHES; b++) jacobi(buf + b * BATCH, A_, A_ + 5, A_ + 2, A_ + 1, A_ + 4, V_, V_ + 6);
    for (let b: usize = 0; b < BATCHES; b++) jacobi(buf + b * BATCH, A_ + 3, A_ + 5, A_ + 4, A_ + 1, A_ + 2, V_ + 3, V_ + 6);
  }
  for (let b: usize = 0; b < BATCHES; b++) firstAxis(buf + b * BATCH);
  for (let b: usize = 0; b < BATCHES; b++) secondAxis(buf + b * BATCH);
  for (let b: usize = 0; b < BATCHES; b++) thirdAxis(buf + b * BATCH);
}

/**
 * Steps of {@link newtonPolar}: the first SCALED_STEPS with Higham's scaling ζ, the later ones,
 * near convergence, with ζ = 1 (one division instead of five square roots and divisions). With
 * 3 + 2, over CesiumMan ×3's clip, 0 to 5 of its 19,634 groups leave for the Jacobi path; with
 * 3 + 1, 3%; with 2 + 3, 1%; with 4 scaled steps and no others, 26%.
 */
const NEWTON_STEPS = 5;
const SCALED_STEPS = 3;
/**
 * The S that {@link newtonPolar} takes: its condition number ‖S‖_F‖S⁻¹‖_F at most MAX_CONDITION,
 * and its second singular value (through ‖cof S‖_F ≥ σ₁σ₂) at least MIN_SECOND of ‖S‖_F. Nearer
 * to rank 1, float32's det and cofactors lose the sign of S's smallest direction and Newton can
 * settle on the other reflection, its last step as small; the Jacobi path takes that sign from
 * S v_c. In a float32 simulation of these steps on 100,000 random S (singular values 1, σ₂ and
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
 * polar factor U·Vᵀ, the same as the Jacobi path's (a reflection where det S < 0). Then
 * v' = q − σ R p (slots R_ and L_). Returns false, leaving the group to the Jacobi path, where a
 * lane's S is nearly singular or nearly of rank 1 ({@link MAX_CONDITION}), or has not converged
 * (its last step moved X by more than 1e-4 in the Frobenius norm; S = 0 or not finite): Newton's
 * quadratic convergence leaves about the square of the last step.
 */
function newtonPolar(buf: usize): bool {
  for (let b: usize = 0; b < BATCHES; b++) newtonStart(buf + b * BATCH);
  for (let step = 0; step < NEWTON_STEPS; step++)
    for (let b: usize = 0; b < BATCHES; b++) newtonStep(buf + b * BATCH, step);
  // Every lane conditioned and converged (NaN compares false): the last step moved X by less than 1e-4.
  let ok = i32x4.splat(-1);
  for (let b: usize = 0; b < BATCHES; b++) ok = v128.and(ok, v128.and(ld(buf + b * BATCH, A_), f32x4.lt(ld(buf + b * BATCH, A_ + 1), f32x4.splat(1e-8))));
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
  for (let k = 0; k < 9; k++) n = f32x4.add(n, f32x4.mul(ld(buf, S_ + k), ld(buf, S_ + k)));
  const unit = f32x4.div(f32x4.splat(1), f32x4.sqrt(n));
  for (let k = 0; k < 9; k++) st(buf, R_ + k, f32x4.mul(ld(buf, S_ + k), unit));
}

/**
 * One Newton step on the X in slots R_ of a batch; at step 0 the lanes' conditioning mask into
 * slot A_, at the last step how far X moved (squared) into slot A_ + 1 (the Jacobi path's slots,
 * which it fills afresh).
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
  const det = f32x4.add(f32x4.add(f32x4.mul(x00, c00), f32x4.mul(x01, c01)), f32x4.mul(x02, c02));
  let a = half, b: v128;
  if (step < SCALED_STEPS) {
    const nx = f32x4.add(f32x4.add(sq3(x00, x01, x02), sq3(x10, x11, x12)), sq3(x20, x21, x22));
    const nc = f32x4.add(f32x4.add(sq3(c00, c01, c02), sq3(c10, c11, c12)), sq3(c20, c21, c22));
    // ‖S‖_F‖S⁻¹‖_F = √(nx·nc)/|det| ≤ MAX_CONDITION and ‖cof S‖_F ≥ MIN_SECOND·‖S‖_F².
    if (step == 0)
      st(
        buf,
        A_,
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
  const y00 = f32x4.add(f32x4.mul(a, x00), f32x4.mul(b, c00));
  const y01 = f32x4.add(f32x4.mul(a, x01), f32x4.mul(b, c01));
  const y02 = f32x4.add(f32x4.mul(a, x02), f32x4.mul(b, c02));
  const y10 = f32x4.add(f32x4.mul(a, x10), f32x4.mul(b, c10));
  const y11 = f32x4.add(f32x4.mul(a, x11), f32x4.mul(b, c11));
  const y12 = f32x4.add(f32x4.mul(a, x12), f32x4.mul(b, c12));
  const y20 = f32x4.add(f32x4.mul(a, x20), f32x4.mul(b, c20));
  const y21 = f32x4.add(f32x4.mul(a, x21), f32x4.mul(b, c21));
  const y22 = f32x4.add(f32x4.mul(a, x22), f32x4.mul(b, c22));
  if (step == NEWTON_STEPS - 1)
    st(
      buf,
      A_ + 1,
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
  return f32x4.add(f32x4.add(f32x4.mul(a, x), f32x4.mul(b, y)), f32x4.mul(c, z));
}

/**
 * A = SᵀS of a batch, normalised by its trace (the factor that scales it back kept in slot TRACE),
 * and V = I: the Jacobi sweeps' start.
 */
@inline function symmetricSquare(buf: usize): void {
  const zero = f32x4.splat(0);
  const one = f32x4.splat(1);
  // A = SᵀS: a_ij = (column i of S)·(column j of S).
  for (let i = 0; i < 3; i++)
    for (let j = i; j < 3; j++) {
      let a = zero;
      for (let r = 0; r < 3; r++) a = f32x4.add(a, f32x4.mul(ld(buf, S_ + 3 * r + i), ld(buf, S_ + 3 * r + j)));
      st(buf, A_ + (i == 0 ? j : i == 1 ? 2 + j : 5), a);
    }
  // Normalised by its trace (the eigenvectors stay; the eigenvalues are scaled back below), so
  // the rotations' d² + e² stay within float32's range at any asset scale.
  const trace = f32x4.add(f32x4.add(ld(buf, A_), ld(buf, A_ + 3)), ld(buf, A_ + 5));
  // (Not where the trace is 0 or subnormal, 1/trace infinite: there SᵀS is left as it is.)
  const scaled = f32x4.gt(trace, f32x4.splat(1.1754944e-38));
  const inv = v128.bitselect(f32x4.div(one, trace), one, scaled);
  for (let k = 0; k < 6; k++) st(buf, A_ + k, f32x4.mul(ld(buf, A_ + k), inv));
  for (let k = 0; k < 9; k++) st(buf, V_ + k, k == 0 || k == 4 || k == 8 ? one : zero);
  st(buf, TRACE, v128.bitselect(trace, one, scaled));
}

/**
 * From a batch's swept A and V: the eigenvalues in descending order, √a (slot ROOT) and
 * u_a = S v_a / |S v_a| (slots UA; v_a where S v_a = 0).
 */
@inline function firstAxis(buf: usize): void {
  const zero = f32x4.splat(0);
  const one = f32x4.splat(1);
  // Descending eigenvalues: a in slot a00 with v0, b in a11 with v1, c in a22 with v2.
  order(buf, A_, A_ + 3, V_, V_ + 3);
  order(buf, A_, A_ + 5, V_, V_ + 6);
  order(buf, A_ + 3, A_ + 5, V_ + 3, V_ + 6);
  const root = f32x4.sqrt(f32x4.mul(ld(buf, A_), ld(buf, TRACE)));
  // u_a = S v_a / |S v_a| (v_a where S v_a = 0)
  const ax = sv(buf, 0, V_), ay = sv(buf, 1, V_), az = sv(buf, 2, V_);
  const l = f32x4.sqrt(f32x4.add(f32x4.add(f32x4.mul(ax, ax), f32x4.mul(ay, ay)), f32x4.mul(az, az)));
  const ok = f32x4.gt(l, zero);
  st(buf, ROOT, root);
  storeUnitOr(buf, UA, ax, ay, az, f32x4.div(one, l), ok, ld(buf, V_), ld(buf, V_ + 1), ld(buf, V_ + 2));
}

/** Stores (x, y, z) · inverse into slots at `slot` where `ok`, the fallback (fx, fy, fz) elsewhere. */
@inline function storeUnitOr(buf: usize, slot: i32, x: v128, y: v128, z: v128, inverse: v128, ok: v128, fx: v128, fy: v128, fz: v128): void {
  st(buf, slot, v128.bitselect(f32x4.mul(x, inverse), fx, ok));
  st(buf, slot + 1, v128.bitselect(f32x4.mul(y, inverse), fy, ok));
  st(buf, slot + 2, v128.bitselect(f32x4.mul(z, inverse), fz, ok));
}

/** u_b = S v_b made orthogonal to u_a, normalised (slots UB); where that vanishes, a unit vector ⟂ u_a. */
@inline function secondAxis(buf: usize): void {
  const zero = f32x4.splat(0);
  const one = f32x4.splat(1);
  const ax = ld(buf, UA), ay = ld(buf, UA + 1), az = ld(buf, UA + 2);
  let bx = sv(buf, 0, V_ + 3), by = sv(buf, 1, V_ + 3), bz = sv(buf, 2, V_ + 3);
  const d = f32x4.add(f32x4.add(f32x4.mul(bx, ax), f32x4.mul(by, ay)), f32x4.mul(bz, az));
  bx = f32x4.sub(bx, f32x4.mul(d, ax));
  by = f32x4.sub(by, f32x4.mul(d, ay));
  bz = f32x4.sub(bz, f32x4.mul(d, az));
  const l = f32x4.sqrt(f32x4.add(f32x4.add(f32x4.mul(bx, bx), f32x4.mul(by, by)), f32x4.mul(bz, bz)));
  const ok = f32x4.gt(l, f32x4.mul(ld(buf, ROOT), f32x4.splat(1e-12)));
  const fx0 = v128.bitselect(one, zero, f32x4.lt(f32x4.abs(ax), f32x4.splat(0.6)));
  const fy0 = f32x4.sub(one, fx0);
  const fx = f32x4.mul(fy0, az);
  const fy = f32x4.neg(f32x4.mul(fx0, az));
  const fz = f32x4.sub(f32x4.mul(fx0, ay), f32x4.mul(fy0, ax));
  const fl = f32x4.sqrt(f32x4.add(f32x4.add(f32x4.mul(fx, fx), f32x4.mul(fy, fy)), f32x4.mul(fz, fz)));
  const ifl = f32x4.div(one, fl);
  storeUnitOr(buf, UB, bx, by, bz, f32x4.div(one, l), ok, f32x4.mul(fx, ifl), f32x4.mul(fy, ifl), f32x4.mul(fz, ifl));
}

/** u_c = ±u_a × u_b, R = Σ u_k v_kᵀ, then v' = q − σ R p (slots R_ and L_). */
@inline function thirdAxis(buf: usize): void {
  const zero = f32x4.splat(0);
  const one = f32x4.splat(1);
  const ax = ld(buf, UA), ay = ld(buf, UA + 1), az = ld(buf, UA + 2);
  const bx = ld(buf, UB), by = ld(buf, UB + 1), bz = ld(buf, UB + 2);
  // u_c = ±u_a × u_b: the sign of (S v_c)·(u_a × u_b), or det[v_a v_b v_c] where S v_c vanishes.
  const wx = f32x4.sub(f32x4.mul(ay, bz), f32x4.mul(az, by));
  const wy = f32x4.sub(f32x4.mul(az, bx), f32x4.mul(ax, bz));
  const wz = f32x4.sub(f32x4.mul(ax, by), f32x4.mul(ay, bx));
  const dc = f32x4.add(
    f32x4.add(f32x4.mul(sv(buf, 0, V_ + 6), wx), f32x4.mul(sv(buf, 1, V_ + 6), wy)),
    f32x4.mul(sv(buf, 2, V_ + 6), wz),
  );
  const vax = ld(buf, V_), vay = ld(buf, V_ + 1), vaz = ld(buf, V_ + 2);
  const vbx = ld(buf, V_ + 3), vby = ld(buf, V_ + 4), vbz = ld(buf, V_ + 5);
  const vcx = ld(buf, V_ + 6), vcy = ld(buf, V_ + 7), vcz = ld(buf, V_ + 8);
  const det = f32x4.add(
    f32x4.add(
      f32x4.mul(f32x4.sub(f32x4.mul(vay, vbz), f32x4.mul(vaz, vby)), vcx),
      f32x4.mul(f32x4.sub(f32x4.mul(vaz, vbx), f32x4.mul(vax, vbz)), vcy),
    ),
    f32x4.mul(f32x4.sub(f32x4.mul(vax, vby), f32x4.mul(vay, vbx)), vcz),
  );
  const minus = f32x4.splat(-1);
  const sign = v128.bitselect(
    v128.bitselect(one, minus, f32x4.gt(dc, zero)),
    v128.bitselect(one, minus, f32x4.gt(det, zero)),
    f32x4.gt(f32x4.abs(dc), f32x4.mul(ld(buf, ROOT), f32x4.splat(1e-9))),
  );
  const cx = f32x4.mul(sign, wx), cy = f32x4.mul(sign, wy), cz = f32x4.mul(sign, wz);
  // R = u_a v_aᵀ + u_b v_bᵀ + u_c v_cᵀ, row-major
  rRow(buf, 0, ax, bx, cx);
  rRow(buf, 1, ay, by, cy);
  rRow(buf, 2, az, bz, cz);
  // v' = q − σ R p
  const sig = ld(buf, SIG);
  for (let r = 0; r < 3; r++) {
    const rp = f32x4.add(
      f32x4.add(f32x4.mul(ld(buf, R_ + 3 * r), ld(buf, PP)), f32x4.mul(ld(buf, R_ + 3 * r + 1), ld(buf, PP + 1))),
      f32x4.mul(ld(buf, R_ + 3 * r + 2), ld(buf, PP + 2)),
    );
    st(buf, L_ + r, f32x4.sub(ld(buf, Q_ + r), f32x4.mul(sig, rp)));
  }
}

/** Row r of R: components r of u_a, u_b, u_c times v_a, v_b, v_c. */
@inline function rRow(buf: usize, r: i32, ua: v128, ub: v128, uc: v128): void {
  for (let c = 0; c < 3; c++)
    st(
      buf,
      R_ + 3 * r + c,
      f32x4.add(
        f32x4.add(f32x4.mul(ua, ld(buf, V_ + c)), f32x4.mul(ub, ld(buf, V_ + 3 + c))),
        f32x4.mul(uc, ld(buf, V_ + 6 + c)),
      ),
    );
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
 * variant of X and WE; `sweeps` is the polar factor's Jacobi sweep count.
 */
export function ddm(
  n: i32,
  compact: i32,
  sweeps: i32,
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
        c0 = f32x4.add(c0, f32x4.mul(w, a0));
        c1 = f32x4.add(c1, f32x4.mul(w, a1));
        c2 = f32x4.add(c2, f32x4.mul(w, a2));
        c3 = f32x4.add(c3, f32x4.mul(w, t));
        sigma += we * scale;
        sw += we;
        continue;
      }
      const x = Xs + e * 40;
      // Q column k += Σ_c A[:, c]·X[c][k] (X symmetric: X00 X01 X02 X03 X11 X12 X13 X22 X23 X33)
      c0 = f32x4.add(c0, f32x4.add(f32x4.add(f32x4.mul(a0, X(x, 0)), f32x4.mul(a1, X(x, 1))), f32x4.add(f32x4.mul(a2, X(x, 2)), f32x4.mul(t, X(x, 3)))));
      c1 = f32x4.add(c1, f32x4.add(f32x4.add(f32x4.mul(a0, X(x, 1)), f32x4.mul(a1, X(x, 4))), f32x4.add(f32x4.mul(a2, X(x, 5)), f32x4.mul(t, X(x, 6)))));
      c2 = f32x4.add(c2, f32x4.add(f32x4.add(f32x4.mul(a0, X(x, 2)), f32x4.mul(a1, X(x, 5))), f32x4.add(f32x4.mul(a2, X(x, 7)), f32x4.mul(t, X(x, 8)))));
      c3 = f32x4.add(c3, f32x4.add(f32x4.add(f32x4.mul(a0, X(x, 3)), f32x4.mul(a1, X(x, 6))), f32x4.add(f32x4.mul(a2, X(x, 8)), f32x4.mul(t, X(x, 9)))));
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
      c0 = f32x4.add(f32x4.add(f32x4.mul(m0, X(x, 0)), f32x4.mul(m1, X(x, 1))), f32x4.add(f32x4.mul(m2, X(x, 2)), f32x4.mul(m3, X(x, 3))));
      c1 = f32x4.add(f32x4.add(f32x4.mul(m0, X(x, 1)), f32x4.mul(m1, X(x, 4))), f32x4.add(f32x4.mul(m2, X(x, 5)), f32x4.mul(m3, X(x, 6))));
      c2 = f32x4.add(f32x4.add(f32x4.mul(m0, X(x, 2)), f32x4.mul(m1, X(x, 5))), f32x4.add(f32x4.mul(m2, X(x, 7)), f32x4.mul(m3, X(x, 8))));
      c3 = f32x4.add(f32x4.add(f32x4.mul(m0, X(x, 3)), f32x4.mul(m1, X(x, 6))), f32x4.add(f32x4.mul(m2, X(x, 8)), f32x4.mul(m3, X(x, 9))));
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
      polarBatches(BUF, sweeps);
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
    polarBatches(BUF, sweeps);
    for (let b = 0; b < (count + 3) >> 2; b++) writeBatch(BUF + <usize>b * BATCH, min(count - 4 * b, 4), N, T, OP, ON, OT);
  }
}
