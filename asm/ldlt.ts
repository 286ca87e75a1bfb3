// One smoothing step of the Direct Delta Mush precomputation (Binh Huy Le and J. P. Lewis, "Direct
// Delta Mush Skinning and Variants", ACM TOG 38(4), SIGGRAPH 2019, Eq. 11): Y ← S⁻¹ (s ∘ Y) with
// S = L D Lᵀ factorised by src/methods/ddm/ldlt.ts (T. A. Davis, "Algorithm 849", ACM TOMS 2005),
// for c right-hand sides at once, two columns per 128-bit register (an odd last column alone). Driven by
// src/methods/ddm/smoother.ts, which owns the memory layout. The operations are those of the
// JavaScript solve (`solveLdlt`: the same products and differences in the same order, no fused
// multiply-add), so the two agree to the last bit.
//
// Layout (byte offsets), rows in the factor's order: LP (i32, n + 1) the column starts of L, LI
// (i32) and LX (f64) its entries' rows and values, DI (f64, n) 1 / D, SC (f64, n) the row scales
// s, Y (f64, n × c, row-major) the right-hand sides, overwritten by the solution.

/** Y[to … to + c) −= l · Y[from … from + c): the columns in pairs, an odd last one alone. */
@inline function subtractScaled(to: usize, from: usize, l: f64, c: usize): void {
  const ll = f64x2.splat(l);
  let q: usize = 0;
  for (; q + 4 <= c; q += 4) {
    const a = to + (q << 3);
    const b = from + (q << 3);
    v128.store(a, f64x2.sub(v128.load(a), f64x2.mul(ll, v128.load(b))));
    v128.store(a, f64x2.sub(v128.load(a, 16), f64x2.mul(ll, v128.load(b, 16))), 16);
  }
  for (; q + 2 <= c; q += 2) {
    const a = to + (q << 3);
    v128.store(a, f64x2.sub(v128.load(a), f64x2.mul(ll, v128.load(from + (q << 3)))));
  }
  if (q < c) {
    const a = to + (q << 3);
    store<f64>(a, load<f64>(a) - l * load<f64>(from + (q << 3)));
  }
}

/** Rows A and B −= lA · row `from` and lB · row `from`: the source read once for both. */
@inline function subtractScaledTwice(toA: usize, toB: usize, from: usize, lA: f64, lB: f64, c: usize): void {
  const la = f64x2.splat(lA);
  const lb = f64x2.splat(lB);
  let q: usize = 0;
  for (; q + 2 <= c; q += 2) {
    const o = q << 3;
    const x = v128.load(from + o);
    v128.store(toA + o, f64x2.sub(v128.load(toA + o), f64x2.mul(la, x)));
    v128.store(toB + o, f64x2.sub(v128.load(toB + o), f64x2.mul(lb, x)));
  }
  if (q < c) {
    const o = q << 3;
    const x = load<f64>(from + o);
    store<f64>(toA + o, load<f64>(toA + o) - lA * x);
    store<f64>(toB + o, load<f64>(toB + o) - lB * x);
  }
}

/** Row `to` −= lA · row A, then −= lB · row B (in that order): the target read and written once. */
@inline function subtractTwoScaled(to: usize, fromA: usize, fromB: usize, lA: f64, lB: f64, c: usize): void {
  const la = f64x2.splat(lA);
  const lb = f64x2.splat(lB);
  let q: usize = 0;
  for (; q + 2 <= c; q += 2) {
    const o = q << 3;
    const y = f64x2.sub(v128.load(to + o), f64x2.mul(la, v128.load(fromA + o)));
    v128.store(to + o, f64x2.sub(y, f64x2.mul(lb, v128.load(fromB + o))));
  }
  if (q < c) {
    const o = q << 3;
    store<f64>(to + o, load<f64>(to + o) - lA * load<f64>(fromA + o) - lB * load<f64>(fromB + o));
  }
}

/** Multiplies each row k of Y (n rows of c f64) by the f64 at S + 8k. */
@inline function scaleRows(Y: usize, S: usize, n: i32, c: usize): void {
  const row = c << 3;
  for (let k = <usize>0; k < <usize>n; k++) {
    const s = load<f64>(S + (k << 3));
    const y = Y + k * row;
    for (let q: usize = 0; q < c; q++) store<f64>(y + (q << 3), load<f64>(y + (q << 3)) * s);
  }
}

/** Scales row k by s_k, then solves L D Lᵀ Y' = Y in place (n rows, c columns). */
export function ldltSmooth(n: i32, c: i32, LP: usize, LI: usize, LX: usize, DI: usize, SC: usize, Y: usize): void {
  const cc = <usize>c;
  const row = cc << 3;
  scaleRows(Y, SC, n, cc);
  // L Z = Y
  for (let j = <usize>0; j < <usize>n; j++) {
    const from = Y + j * row;
    const p1 = <usize>load<i32>(LP + ((j + 1) << 2));
    let p = <usize>load<i32>(LP + (j << 2));
    for (; p + 2 <= p1; p += 2) {
      const toA = Y + <usize>load<i32>(LI + (p << 2)) * row;
      const toB = Y + <usize>load<i32>(LI + (p << 2), 4) * row;
      subtractScaledTwice(toA, toB, from, load<f64>(LX + (p << 3)), load<f64>(LX + (p << 3), 8), cc);
    }
    if (p < p1) subtractScaled(Y + <usize>load<i32>(LI + (p << 2)) * row, from, load<f64>(LX + (p << 3)), cc);
  }
  // D W = Z
  scaleRows(Y, DI, n, cc);
  // Lᵀ Y' = W
  for (let j = <usize>n; j-- > 0; ) {
    const to = Y + j * row;
    const p1 = <usize>load<i32>(LP + ((j + 1) << 2));
    let p = <usize>load<i32>(LP + (j << 2));
    for (; p + 2 <= p1; p += 2) {
      const fromA = Y + <usize>load<i32>(LI + (p << 2)) * row;
      const fromB = Y + <usize>load<i32>(LI + (p << 2), 4) * row;
      subtractTwoScaled(to, fromA, fromB, load<f64>(LX + (p << 3)), load<f64>(LX + (p << 3), 8), cc);
    }
    if (p < p1) subtractScaled(to, Y + <usize>load<i32>(LI + (p << 2)) * row, load<f64>(LX + (p << 3)), cc);
  }
}
