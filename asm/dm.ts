// Delta Mush's per-frame step (Joe Mancewicz, Matt L. Derksen, Hans Rijpkema and Cyrus A. Wilson,
// "Delta Mush: smoothing deformations while preserving detail", DigiPro 2014) in AssemblyScript,
// compiled to WebAssembly SIMD with the other kernels (kernels.ts) and driven by
// src/methods/dm/simd.ts, which owns the memory layout and prepares the rest (the welded surface,
// the corner deltas and rest frames) as the JavaScript deformer does (src/methods/dm/deformer.ts).
// The JavaScript deformer's steps in 32-bit floats, one welded vertex (x, y, z, 0) per 128-bit
// register:
//
// 1. dmLbs: LBS of each welded vertex's representative, and σ, its blend of the joints' signed
//    uniform scales;
// 2. dmSmooth: the smoothing passes (Jacobi), an edge's difference added to one end and taken
//    from the other, as a displacement Y from the LBS positions X (float32 keeps the smoothed
//    surface's fine structure);
// 3. dmCorners: every corner's frame (t, b, n) on the smoothed surface and its weight
//    π − (corner angle), its rest delta turned into it and summed per welded vertex, and, for
//    normals and tangents, the blended frame change Σ ω F diag(1, 1, e) F̄ᵀ;
// 4. dmWrite: v' = S(LBS(v)) + |σ| Σ ω F δ / Σ ω per mesh vertex; normal and tangent turned by
//    the blended frame change, renormalised.
//
// Layout (byte offsets): X, Y, ACC, MOV the welded vertices, ER the edges (16 bytes each, lane 3
// kept 0); LS, KF, SIG, TOT one f32 per welded vertex; REP, VOF (u32) a welded vertex's representative and a mesh
// vertex's welded vertex; EDG the edges (u32 pairs); TRI the corners' welded vertices (u32, three
// per triangle); DEL a corner's delta (16 bytes); RF a corner's rest frame t̄, b̄, n̄ (48 bytes); BL a
// welded vertex's blended frame change (3 columns, 48 bytes); P, N, OP, ON 3 f32 per mesh vertex
// at 12·i (4-lane loads and stores, the caller pads), T and OT 4 f32 at 16·i; JI (u16) and W
// (f32) K influences per mesh vertex; M the skinning matrices (16 f32, column-major, 64·j); SC
// the joints' signed det(L_j)^(1/3).

import { apply3, cross, madd, hsum, jointAt, unitOr, weightAt } from './common';

@inline function at16(base: usize, k: usize): usize {
  return base + (k << 4);
}

/** LBS of each welded vertex's representative into X (lane 3 = 0) and σ into SIG. */
export function dmLbs(m: i32, K: i32, REP: usize, P: usize, JI: usize, W: usize, M: usize, SC: usize, X: usize, SIG: usize): void {
  for (let w = 0; w < m; w++) {
    const i = <usize>load<u32>(REP + (<usize>w << 2));
    const p = v128.load(P + i * 12);
    let acc = f32x4.splat(0);
    let s: f32 = 0;
    let sum: f32 = 0;
    for (let k = <usize>0; k < <usize>K; k++) {
      const slot = i * <usize>K + k;
      const wt = weightAt(W, slot);
      if (wt == 0) continue;
      const j = jointAt(JI, slot);
      const o = M + (j << 6);
      const c3 = v128.load(o, 48);
      const moved = f32x4.add(apply3(v128.load(o), v128.load(o, 16), v128.load(o, 32), p), c3);
      acc = madd(f32x4.splat(wt), moved, acc);
      s += wt * load<f32>(SC + (j << 2));
      sum += wt;
    }
    v128.store(at16(X, <usize>w), f32x4.replace_lane(acc, 3, 0));
    store<f32>(SIG + (<usize>w << 2), sum > 0 ? s / sum : 1);
  }
}

/**
 * `iterations` smoothing passes of X + Y, kept as the displacement Y from the LBS positions X
 * (Y starts at 0): float32 then keeps the smoothed surface's fine structure (a sliver smoothed
 * to 1e-5 of its size keeps its shape) that absolute positions would round away. Uniform:
 * y += KF·Σ (x_v − x_u); length-weighted: each difference times its length, and y += KF/Σ l ·
 * that sum (KF 0: a pinned or isolated vertex). ER holds the edges' x_v − x_u.
 */
export function dmSmooth(m: i32, E: i32, iterations: i32, lengthWeighted: i32, EDG: usize, KF: usize, X: usize, Y: usize, ER: usize, ACC: usize, LS: usize): void {
  const zero = f32x4.splat(0);
  for (let w = 0; w < m; w++) v128.store(at16(Y, <usize>w), zero);
  for (let e = 0; e < E; e++) {
    const u = load<u32>(EDG + (<usize>e << 3));
    const v = load<u32>(EDG + (<usize>e << 3), 4);
    v128.store(at16(ER, <usize>e), f32x4.sub(v128.load(at16(X, <usize>v)), v128.load(at16(X, <usize>u))));
  }
  for (let pass = 0; pass < iterations; pass++) {
    for (let w = 0; w < m; w++) v128.store(at16(ACC, <usize>w), zero);
    if (lengthWeighted) for (let w = 0; w < m; w++) store<f32>(LS + (<usize>w << 2), 0);
    for (let e = 0; e < E; e++) {
      const u = load<u32>(EDG + (<usize>e << 3));
      const v = load<u32>(EDG + (<usize>e << 3), 4);
      let d = f32x4.add(f32x4.sub(v128.load(at16(Y, <usize>v)), v128.load(at16(Y, <usize>u))), v128.load(at16(ER, <usize>e)));
      if (lengthWeighted) {
        const l = Mathf.sqrt(hsum(f32x4.mul(d, d)));
        d = f32x4.mul(d, f32x4.splat(l));
        store<f32>(LS + (<usize>u << 2), load<f32>(LS + (<usize>u << 2)) + l);
        store<f32>(LS + (<usize>v << 2), load<f32>(LS + (<usize>v << 2)) + l);
      }
      v128.store(at16(ACC, <usize>u), f32x4.add(v128.load(at16(ACC, <usize>u)), d));
      v128.store(at16(ACC, <usize>v), f32x4.sub(v128.load(at16(ACC, <usize>v)), d));
    }
    for (let w = 0; w < m; w++) {
      let k = load<f32>(KF + (<usize>w << 2));
      if (k == 0) continue;
      if (lengthWeighted) {
        const l = load<f32>(LS + (<usize>w << 2));
        if (!(l > 0)) continue;
        k /= l;
      }
      v128.store(at16(Y, <usize>w), madd(f32x4.splat(k), v128.load(at16(ACC, <usize>w)), v128.load(at16(Y, <usize>w))));
    }
  }
}

/** x_b − x_a of the smoothed surface (X + Y), its fine part first. */
@inline function edge(X: usize, Y: usize, a: u32, b: u32): v128 {
  return f32x4.add(f32x4.sub(v128.load(at16(Y, <usize>b)), v128.load(at16(Y, <usize>a))), f32x4.sub(v128.load(at16(X, <usize>b)), v128.load(at16(X, <usize>a))));
}

/** The corners' frames on the smoothed X + Y, their turned deltas summed into MOV and TOT, and (BL ≠ 0) the blended frame changes. */
export function dmCorners(m: i32, corners: i32, TRI: usize, X: usize, Y: usize, DEL: usize, RF: usize, SIG: usize, MOV: usize, TOT: usize, BL: usize): void {
  const zero = f32x4.splat(0);
  for (let w = 0; w < m; w++) {
    v128.store(at16(MOV, <usize>w), zero);
    store<f32>(TOT + (<usize>w << 2), 0);
    if (BL) for (let c = 0; c < 3; c++) v128.store(at16(BL, <usize>(3 * w + c)), zero);
  }
  for (let f = 0; f < corners; f += 3) {
    for (let k = 0; k < 3; k++) {
      const c = f + k;
      const prev = load<u32>(TRI + (<usize>(f + (k + 2) % 3) << 2));
      const w = load<u32>(TRI + (<usize>c << 2));
      const next = load<u32>(TRI + (<usize>(f + (k + 1) % 3) << 2));
      let a = edge(X, Y, w, prev);
      let b = edge(X, Y, next, w);
      const la = Mathf.sqrt(hsum(f32x4.mul(a, a)));
      const lb = Mathf.sqrt(hsum(f32x4.mul(b, b)));
      if (!(la > 0 && lb > 0)) continue;
      a = f32x4.mul(a, f32x4.splat(1 / la));
      b = f32x4.mul(b, f32x4.splat(1 / lb));
      let n = cross(a, b);
      const ln = Mathf.sqrt(hsum(f32x4.mul(n, n)));
      if (!(ln > 1e-12)) continue; // a degenerate corner: no weight
      n = f32x4.mul(n, f32x4.splat(1 / ln));
      let t = f32x4.add(a, b);
      // Opposite edges: relaxed SIMD's fused cross product leaves n rounding noise, not 0.
      const lt = Mathf.sqrt(hsum(f32x4.mul(t, t)));
      if (!(lt > 0)) continue;
      t = f32x4.mul(t, f32x4.splat(1 / lt));
      const bt = cross(n, t);
      const cw = Mathf.acos(Mathf.max(-1, Mathf.min(1, hsum(f32x4.mul(a, b))))); // π − the corner's angle
      if (cw == 0) continue;
      // a mirrored rig turns the corner frames' n against the mirrored surface's
      const e: f32 = load<f32>(SIG + (<usize>w << 2)) < 0 ? -1 : 1;
      const d = v128.load(at16(DEL, <usize>c));
      const turned = apply3(t, bt, f32x4.mul(n, f32x4.splat(e)), d);
      v128.store(at16(MOV, <usize>w), madd(f32x4.splat(cw), turned, v128.load(at16(MOV, <usize>w))));
      store<f32>(TOT + (<usize>w << 2), load<f32>(TOT + (<usize>w << 2)) + cw);
      if (!BL) continue;
      // F diag(1, 1, e) F̄ᵀ, column `col`: t·t̄[col] + b·b̄[col] + e·n·n̄[col], times the weight
      const o = RF + (<usize>c) * 48;
      const rt = f32x4.mul(v128.load(o), f32x4.splat(cw));
      const rb = f32x4.mul(v128.load(o, 16), f32x4.splat(cw));
      const rn = f32x4.mul(v128.load(o, 32), f32x4.splat(cw * e));
      // the rest frame's rows: lanes col of t̄, b̄, n̄
      const r0 = f32x4.shuffle(rt, rb, 0, 4, 0, 0), r1 = f32x4.shuffle(rt, rb, 1, 5, 0, 0), r2 = f32x4.shuffle(rt, rb, 2, 6, 0, 0);
      const col0 = apply3(t, bt, n, f32x4.replace_lane(r0, 2, f32x4.extract_lane(rn, 0)));
      const col1 = apply3(t, bt, n, f32x4.replace_lane(r1, 2, f32x4.extract_lane(rn, 1)));
      const col2 = apply3(t, bt, n, f32x4.replace_lane(r2, 2, f32x4.extract_lane(rn, 2)));
      const B = at16(BL, 3 * <usize>w);
      v128.store(B, f32x4.add(v128.load(B), col0));
      v128.store(B, f32x4.add(v128.load(B, 16), col1), 16);
      v128.store(B, f32x4.add(v128.load(B, 32), col2), 32);
    }
  }
}

/** The mesh vertices: v' = x + y + |σ| MOV / TOT of their welded vertex (LBS where TOT = 0); normals and tangents turned by BL. */
export function dmWrite(n: i32, VOF: usize, X: usize, Y: usize, MOV: usize, TOT: usize, BL: usize, SIG: usize, N: usize, T: usize, OP: usize, ON: usize, OT: usize): void {
  const ex = f32x4(1, 0, 0, 0), ey = f32x4(0, 1, 0, 0), ez = f32x4(0, 0, 1, 0);
  for (let i = 0; i < n; i++) {
    const o = <usize>i;
    const w = load<u32>(VOF + (o << 2));
    const tw = load<f32>(TOT + (<usize>w << 2));
    const k: f32 = tw > 0 ? Mathf.abs(load<f32>(SIG + (<usize>w << 2))) / tw : 0; // a vertex in no triangle: LBS
    const fine = madd(f32x4.splat(k), v128.load(at16(MOV, <usize>w)), v128.load(at16(Y, <usize>w)));
    v128.store(OP + o * 12, f32x4.add(v128.load(at16(X, <usize>w)), fine));
    if (!BL) continue;
    const B = at16(BL, 3 * <usize>w);
    // no corner: the identity (the rest normal)
    const c0 = tw > 0 ? v128.load(B) : ex, c1 = tw > 0 ? v128.load(B, 16) : ey, c2 = tw > 0 ? v128.load(B, 32) : ez;
    if (ON) {
      const nv = v128.load(N + o * 12);
      v128.store(ON + o * 12, unitOr(apply3(c0, c1, c2, nv), nv));
    }
    if (OT) {
      const tv = v128.load(T + (o << 4));
      const out = unitOr(apply3(c0, c1, c2, tv), tv); // a degenerate map: the rest tangent
      v128.store(OT + (o << 4), f32x4.replace_lane(out, 3, f32x4.extract_lane(tv, 3)));
    }
  }
}
