/**
 * The smoothing operator of Direct Delta Mush (Le & Lewis 2019, Sec. 3.2): the cotangent
 * Laplacian of the rest mesh, normalised by its diagonal, in the implicit smoothing step
 * `(I + s·L̃)⁻¹` that the precomputation applies p times (s = λ for the moment matrices Ψ,
 * s = κ for the translation weights).
 *
 * The cotangent weights follow libigl's `cotmatrix` (Kahan's stable Heron area; half-cotangents
 * `(l²_a + l²_b − l²_c) / (2A) / 4`), so that the `libigl` smoothing reproduces
 * `igl::direct_delta_mush_precomputation` to rounding.
 *
 * @module
 */

/** A symmetric sparse matrix in compressed sparse row form (both triangles stored). */
export interface SymmetricCsr {
  /** Rows (= columns) n. */
  n: number;
  /** Row starts, length n + 1. */
  offsets: Int32Array;
  /** Column of each stored entry, ascending within a row, length nnz. */
  columns: Int32Array;
  /** Value of each stored entry, length nnz. */
  values: Float64Array;
}

/** The cotangent Laplacian L (positive semi-definite: L_ii = Σ_k −L_ik) of a welded mesh. */
export interface CotangentLaplacian extends SymmetricCsr {
  /** The diagonal L_ii, length n. */
  diagonal: Float64Array;
}

/**
 * How the Laplacian is normalised in the smoothing step `x ← (I + s·L̃)⁻¹ x`:
 * - `normalized` (default): L̃ = D⁻¹L, D = diag(L), the random-walk normalisation the paper
 *   describes; solved as the symmetric system (D + s·L) x' = D x, so it does not depend on
 *   vertex order and it keeps constants (a partition of unity stays one). Negative cotangent
 *   edge weights are clamped to 0 (see `cotangentLaplacian`): with them, smoothing has
 *   negative lobes, and on meshes with slivers (a CesiumMan decimated to half by meshoptimizer:
 *   11 of 2,056 vertices) the smoothed covariance of a vertex turns indefinite, so its polar
 *   factor is a reflection even at the bind pose.
 * - `libigl`: exactly what libigl's `direct_delta_mush_precomputation` (2020) solves: it hands
 *   (I + s·L·D⁻¹)ᵀ to a symmetric LDLᵀ solver that reads only its lower triangle, so the matrix
 *   solved has 1 + s on the diagonal and s·L_ik / L_mm off it, m = max(i, k). Results depend
 *   on vertex order; offered to reproduce libigl's output.
 */
export type DdmSmoothing = 'normalized' | 'libigl';

/**
 * The cotangent Laplacian of a triangle mesh, vertices given by `vertexOf` (a weld map: equal
 * entries are one vertex).
 * @param positions rest positions, length 3·n (any units)
 * @param triangles vertex indices, length 3·t
 * @param vertexOf for each input vertex, its index in the Laplacian (0 … n' − 1), length n
 * @param size n', the Laplacian's size
 * @param clampNegative true: an edge whose summed weight ½(cot α + cot β) is negative (the two
 *   angles facing it add up to more than π, as on the slivers of decimated or game meshes) gets
 *   weight 0, and the diagonal is the sum of the clamped weights. L is then an M-matrix, so
 *   (D + s·L)⁻¹·D has no negative entry: smoothing stays a weighted average, and every moment
 *   matrix it produces stays positive semi-definite (see `normalized` at {@link DdmSmoothing}).
 * @returns L with L_ik = −½(cot α + cot β) over the triangles sharing edge ik (with
 *   `clampNegative`, min(that, 0)); triangles of zero area (or whose corners weld together) add
 *   nothing
 */
export function cotangentLaplacian(
  positions: ArrayLike<number>,
  triangles: ArrayLike<number>,
  vertexOf: ArrayLike<number>,
  size: number,
  clampNegative = false,
): CotangentLaplacian {
  const t = triangles.length / 3;
  // Off-diagonal entries as (row, col, value) triplets, `e` of them; summed per (row, col) below.
  const rows = new Int32Array(6 * t);
  const cols = new Int32Array(6 * t);
  const vals = new Float64Array(6 * t);
  let e = 0;
  const diagonal = new Float64Array(size);
  const ids = [0, 0, 0];
  const corner = [0, 0, 0];
  const l2 = [0, 0, 0];
  for (let f = 0; f < t; f++) {
    for (let c = 0; c < 3; c++) {
      corner[c] = triangles[3 * f + c];
      ids[c] = vertexOf[corner[c]];
    }
    if (ids[0] === ids[1] || ids[1] === ids[2] || ids[0] === ids[2]) continue;
    for (let k = 0; k < 3; k++) {
      const a = 3 * corner[(k + 1) % 3];
      const b = 3 * corner[(k + 2) % 3];
      const dx = positions[a] - positions[b];
      const dy = positions[a + 1] - positions[b + 1];
      const dz = positions[a + 2] - positions[b + 2];
      l2[k] = dx * dx + dy * dy + dz * dz;
    }
    const dblA = doubleArea(Math.sqrt(l2[0]), Math.sqrt(l2[1]), Math.sqrt(l2[2]));
    if (!(dblA > 0)) continue;
    for (let k = 0; k < 3; k++) {
      const C = (l2[(k + 1) % 3] + l2[(k + 2) % 3] - l2[k]) / dblA / 4;
      const s = ids[(k + 1) % 3];
      const d = ids[(k + 2) % 3];
      rows[e] = s;
      cols[e] = d;
      vals[e++] = -C;
      rows[e] = d;
      cols[e] = s;
      vals[e++] = -C;
      diagonal[s] += C;
      diagonal[d] += C;
    }
  }
  const csr = assembleCsr(size, rows.subarray(0, e), cols.subarray(0, e), vals.subarray(0, e), diagonal);
  if (clampNegative) {
    // Off-diagonal entries are −(edge weight): clamp the positive ones, rebuild the diagonal.
    diagonal.fill(0);
    for (let i = 0; i < size; i++) {
      for (let q = csr.offsets[i]; q < csr.offsets[i + 1]; q++) {
        if (csr.columns[q] === i) continue;
        if (csr.values[q] > 0) csr.values[q] = 0;
        diagonal[i] -= csr.values[q];
      }
    }
    for (let i = 0; i < size; i++) {
      for (let q = csr.offsets[i]; q < csr.offsets[i + 1]; q++) if (csr.columns[q] === i) csr.values[q] = diagonal[i];
    }
  }
  return { ...csr, diagonal };
}

/** Twice a triangle's area from its edge lengths: Kahan's stable Heron formula, as libigl's `doublearea`. */
function doubleArea(l0: number, l1: number, l2: number): number {
  // a ≥ b ≥ c
  let a = l0;
  let b = l1;
  let c = l2;
  if (a < b) [a, b] = [b, a];
  if (a < c) [a, c] = [c, a];
  if (b < c) [b, c] = [c, b];
  const r = 0.5 * Math.sqrt((a + (b + c)) * (c - (a - b)) * (c + (a - b)) * (a + (b - c)));
  return Number.isNaN(r) ? 0 : r;
}

/**
 * Sums triplets into CSR with the diagonal `diagonal` (entries in ascending column order; equal
 * (row, column) pairs summed in the triplets' order).
 */
function assembleCsr(
  n: number,
  rows: Int32Array,
  cols: Int32Array,
  vals: Float64Array,
  diagonal: Float64Array,
): SymmetricCsr {
  const count = new Int32Array(n + 1);
  for (let e = 0; e < rows.length; e++) count[rows[e] + 1]++;
  for (let i = 0; i < n; i++) count[i + 1] += count[i];
  // Scatter by row, then sort each row by column (an insertion sort: rows are short, and it keeps
  // the triplets' order among equal columns) and merge it with its diagonal.
  const fill = count.slice(0, n);
  const tc = new Int32Array(rows.length);
  const tv = new Float64Array(rows.length);
  for (let e = 0; e < rows.length; e++) {
    const p = fill[rows[e]]++;
    tc[p] = cols[e];
    tv[p] = vals[e];
  }
  const offsets = new Int32Array(n + 1);
  const columns = new Int32Array(rows.length + n);
  const values = new Float64Array(rows.length + n);
  let q = 0;
  for (let i = 0; i < n; i++) {
    const lo = count[i];
    const hi = count[i + 1];
    for (let p = lo + 1; p < hi; p++) {
      const c = tc[p];
      const v = tv[p];
      let r = p - 1;
      for (; r >= lo && tc[r] > c; r--) {
        tc[r + 1] = tc[r];
        tv[r + 1] = tv[r];
      }
      tc[r + 1] = c;
      tv[r + 1] = v;
    }
    let diagonalDone = false;
    for (let p = lo; p < hi;) {
      const col = tc[p];
      if (!diagonalDone && col > i) {
        columns[q] = i;
        values[q++] = diagonal[i];
        diagonalDone = true;
      }
      let v = 0;
      for (; p < hi && tc[p] === col; p++) v += tv[p];
      columns[q] = col;
      values[q++] = v;
    }
    if (!diagonalDone) {
      columns[q] = i;
      values[q++] = diagonal[i];
    }
    offsets[i + 1] = q;
  }
  return { n, offsets, columns: columns.slice(0, q), values: values.slice(0, q) };
}

/**
 * The symmetric system of one implicit smoothing step `x ← (I + s·L̃)⁻¹ x`: the matrix S and
 * the row scaling r with `(I + s·L̃)⁻¹ x = S⁻¹ (r ∘ x)`.
 * - `normalized`: S = D + s·L, r = diag(L) (a row with L_ii = 0, an isolated vertex, gets
 *   S_ii = 1, r_i = 1: it keeps its value).
 * - `libigl`: S as described at {@link DdmSmoothing}, r = 1.
 * @throws RangeError when s is not a positive finite number
 */
export function smoothingSystem(
  L: CotangentLaplacian,
  s: number,
  smoothing: DdmSmoothing,
): { matrix: SymmetricCsr; scale: Float64Array } {
  if (!(s > 0) || !Number.isFinite(s)) throw new RangeError(`smoothing step s must be a positive number (got ${s})`);
  const { n, offsets, columns, values, diagonal } = L;
  const out = new Float64Array(values.length);
  const scale = new Float64Array(n).fill(1);
  for (let i = 0; i < n; i++) {
    const di = diagonal[i] === 0 ? 0 : 1 / diagonal[i];
    for (let p = offsets[i]; p < offsets[i + 1]; p++) {
      const k = columns[p];
      if (smoothing === 'normalized') {
        out[p] = diagonal[i] === 0 ? (k === i ? 1 : 0) : k === i ? diagonal[i] + s * values[p] : s * values[p];
      } else if (k === i) out[p] = 1 + s * (values[p] * di);
      else {
        const m = Math.max(i, k);
        const dm = diagonal[m] === 0 ? 0 : 1 / diagonal[m];
        out[p] = s * (values[p] * dm);
      }
    }
    if (smoothing === 'normalized' && diagonal[i] !== 0) scale[i] = diagonal[i];
  }
  return { matrix: { n, offsets, columns, values: out }, scale };
}
