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

/** Scales row k by s_k, then solves L D Lᵀ Y' = Y in place (n rows, c columns). */
export function ldltSmooth(n: i32, c: i32, LP: usize, LI: usize, LX: usize, DI: usize, SC: usize, Y: usize): void {
  const cc = <usize>c;
  const row = cc << 3;
  for (let k = <usize>0; k < <usize>n; k++) {
    const s = load<f64>(SC + (k << 3));
    const y = Y + k * row;
    for (let q: usize = 0; q < cc; q++) store<f64>(y + (q << 3), load<f64>(y + (q << 3)) * s);
  }
  // L Z = Y
  for (let j = <usize>0; j < <usize>n; j++) {
    const from = Y + j * row;
    const p1 = <usize>load<i32>(LP + ((j + 1) << 2));
    for (let p = <usize>load<i32>(LP + (j << 2)); p < p1; p++) {
      subtractScaled(Y + <usize>load<i32>(LI + (p << 2)) * row, from, load<f64>(LX + (p << 3)), cc);
    }
  }
  // D W = Z
  for (let j = <usize>0; j < <usize>n; j++) {
    const d = load<f64>(DI + (j << 3));
    const y = Y + j * row;
    for (let q: usize = 0; q < cc; q++) store<f64>(y + (q << 3), load<f64>(y + (q << 3)) * d);
  }
  // Lᵀ Y' = W
  for (let j = <usize>n; j-- > 0; ) {
    const to = Y + j * row;
    const p1 = <usize>load<i32>(LP + ((j + 1) << 2));
    for (let p = <usize>load<i32>(LP + (j << 2)); p < p1; p++) {
      subtractScaled(to, Y + <usize>load<i32>(LI + (p << 2)) * row, load<f64>(LX + (p << 3)), cc);
    }
  }
}
