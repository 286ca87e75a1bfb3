/**
 * The small least-squares systems of the helper bake's weight update (`ssdr-weights.ts`: one per
 * vertex, over its few candidate influences), as normal equations G w = b: the objective
 * wᵀGw − 2bᵀw, the exact sparse non-negative minimum over every support of at most K (by
 * Cholesky factors grown one candidate at a time), the drop-only active set that picks which
 * candidates a large vertex searches (after Lawson & Hanson, "Solving Least Squares Problems",
 * 1974, Ch. 23), and Gaussian elimination.
 *
 * @module
 */

/** Room for the solvers of this module, for systems of up to c unknowns ({@link solveRoom}). */
export interface SolveRoom {
  /** A system of up to c × c. */
  A: Float64Array;
  /** Its right-hand side and solution, and a full-length trial vector (c each). */
  x: Float64Array;
  trial: Float64Array;
  /** A set of unknowns, and a support's positions in its pool (c each). */
  set: Int32Array;
  at: Int32Array;
  /** |y|² of each prefix of a support's forward substitution (c + 1). */
  norm: Float64Array;
}

/** A {@link SolveRoom} for up to c unknowns. */
export function solveRoom(c: number): SolveRoom {
  return { A: new Float64Array(c * c), x: new Float64Array(c), trial: new Float64Array(c), set: new Int32Array(c), at: new Int32Array(c), norm: new Float64Array(c + 1) }; // prettier-ignore
}

/** (w₁ − w₀)ᵀ G (w₁ + w₀) − 2 bᵀ (w₁ − w₀): the change of wᵀGw − 2bᵀw from w₀ to w₁ (G symmetric c × c). */
export function quadraticChange(
  G: Float64Array,
  b: Float64Array,
  c: number,
  w0: Float64Array,
  w1: Float64Array,
): number {
  let f = 0;
  for (let a = 0; a < c; a++) {
    const d = w1[a] - w0[a];
    if (d === 0) continue;
    let g = 0;
    for (let e = 0; e < c; e++) g += G[a * c + e] * (w1[e] + w0[e]);
    f += d * (g - 2 * b[a]);
  }
  return f;
}

/** wᵀGw − 2bᵀw (G symmetric c × c, row-major; b and w length ≥ c): the least-squares objective up to a constant. */
export function objective(G: Float64Array, b: Float64Array, c: number, w: Float64Array): number {
  let f = 0;
  for (let a = 0; a < c; a++) {
    if (w[a] === 0) continue;
    let g = 0;
    for (let d = 0; d < c; d++) g += G[a * c + d] * w[d];
    f += w[a] * (g - 2 * b[a]);
  }
  return f;
}

/**
 * The minimum of wᵀGw − 2bᵀw over w ≥ 0 with at most K non-zero weights, all among `pool`
 * (indices into the c candidates): every support of 1 … K of them solved unconstrained, the least
 * objective among the solutions with no weight < 0 kept. Exact: at the minimum, the weights on its
 * support solve the system restricted to it (where one is 0, a smaller support holds the same).
 * The supports are visited depth first, each extending its parent by one candidate, so each
 * costs one new row of the Cholesky factor L Lᵀ = G restricted to it and one step of the forward
 * substitution L y = b: its objective at its unconstrained minimum is −|y|², and only a support
 * that would beat the best so far is solved back (Lᵀ w = y) for its signs. A candidate that is a
 * combination of its support's others (a pivot ≤ 1e-14 of its diagonal) spans nothing new there:
 * that support and those it would lead to are the smaller ones', and are skipped.
 * Writes w (the first c numbers). G is c × c, row-major, symmetric positive semi-definite; `room`
 * from {@link solveRoom}(c).
 */
export function sparseLeastSquares(
  G: Float64Array,
  b: Float64Array,
  c: number,
  pool: Int32Array,
  K: number,
  w: Float64Array,
  room: SolveRoom,
): void {
  const { A: L, x, trial: y, set: support, at, norm } = room;
  w.fill(0, 0, c);
  let best = Infinity;
  const p = pool.length;
  const depth = Math.min(K, p);
  // The support's r-th candidate is pool[at[r]]; row r of L (stride `depth`) and y[r] are its.
  let r = 0;
  at[0] = 0;
  norm[0] = 0;
  while (r >= 0) {
    if (at[r] >= p) {
      if (--r >= 0) at[r]++;
      continue;
    }
    const j = pool[at[r]];
    support[r] = j;
    const row = r * depth;
    let d = G[j * c + j];
    for (let q = 0; q < r; q++) {
      let s = G[j * c + support[q]];
      for (let t = 0; t < q; t++) s -= L[row + t] * L[q * depth + t];
      s /= L[q * depth + q];
      L[row + q] = s;
      d -= s * s;
    }
    if (!(d > 1e-14 * G[j * c + j])) {
      at[r]++;
      continue;
    }
    const l = Math.sqrt(d);
    L[row + r] = l;
    let s = b[j];
    for (let q = 0; q < r; q++) s -= L[row + q] * y[q];
    y[r] = s / l;
    norm[r + 1] = norm[r] + y[r] * y[r];
    if (-norm[r + 1] < best) {
      let feasible = true;
      for (let k = r; k >= 0 && feasible; k--) {
        let t = y[k];
        for (let q = k + 1; q <= r; q++) t -= L[q * depth + k] * x[q];
        x[k] = t / L[k * depth + k];
        feasible = x[k] >= 0;
      }
      if (feasible) {
        best = -norm[r + 1];
        w.fill(0, 0, c);
        for (let k = 0; k <= r; k++) w[support[k]] = x[k];
      }
    }
    // The next support: one more candidate where there is room, else this one moved on.
    if (r + 1 < depth && at[r] + 1 < p) {
      at[r + 1] = at[r] + 1;
      r++;
    } else at[r]++;
  }
}

/**
 * Non-negative least squares of the normal equations G w = b restricted to `active`, by a
 * drop-only active set (after Lawson & Hanson 1974, Ch. 23, for small systems): solve on the
 * passive set, drop the most negative weight, repeat. A dropped weight never comes back, so the
 * result is not always the NNLS minimum: it only picks which candidates the exact sparse solve
 * ({@link sparseLeastSquares}) searches among where a vertex has many.
 * Writes w (length c; zero outside the final passive set) and that set into `room.set`.
 * @param room from {@link solveRoom}(c)
 * @returns the size of the final passive set
 */
export function nnls(
  G: Float64Array,
  b: Float64Array,
  c: number,
  active: Iterable<number>,
  w: Float64Array,
  room: SolveRoom,
): number {
  const { A, x: sol, set } = room;
  let m = 0;
  for (const a of active) set[m++] = a;
  w.fill(0);
  while (m) {
    for (let x = 0; x < m; x++) {
      sol[x] = b[set[x]];
      for (let y = 0; y < m; y++) A[x * m + y] = G[set[x] * c + set[y]];
    }
    solveInPlace(A, sol, m);
    let worst = -1;
    for (let x = 0; x < m; x++) if (!(sol[x] >= 0) && (worst < 0 || sol[x] < sol[worst])) worst = x;
    if (worst < 0) {
      for (let x = 0; x < m; x++) w[set[x]] = sol[x];
      break;
    }
    set.copyWithin(worst, worst + 1, m--);
  }
  return m;
}

/**
 * Solves the small symmetric system a x = r, m × m (row-major, the first m² numbers of `a`), by
 * Gaussian elimination with partial pivoting, in place: `a` is overwritten, `x` holds r in and the
 * solution out.
 */
export function solveInPlace(a: Float64Array, x: Float64Array, m: number): void {
  for (let k = 0; k < m; k++) {
    let p = k;
    for (let i = k + 1; i < m; i++) if (Math.abs(a[i * m + k]) > Math.abs(a[p * m + k])) p = i;
    if (p !== k) {
      for (let j = 0; j < m; j++) {
        const t = a[k * m + j];
        a[k * m + j] = a[p * m + j];
        a[p * m + j] = t;
      }
      const t = x[k];
      x[k] = x[p];
      x[p] = t;
    }
    const d = a[k * m + k];
    if (Math.abs(d) < 1e-300) continue;
    for (let i = k + 1; i < m; i++) {
      const f = a[i * m + k] / d;
      if (f === 0) continue;
      for (let j = k; j < m; j++) a[i * m + j] -= f * a[k * m + j];
      x[i] -= f * x[k];
    }
  }
  for (let k = m - 1; k >= 0; k--) {
    let s = x[k];
    for (let j = k + 1; j < m; j++) s -= a[k * m + j] * x[j];
    const d = a[k * m + k];
    x[k] = Math.abs(d) < 1e-300 ? 0 : s / d;
  }
}
