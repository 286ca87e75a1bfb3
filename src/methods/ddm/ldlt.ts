/**
 * Sparse LDLᵀ factorisation of a symmetric matrix and solves with a block of right-hand sides —
 * the up-looking algorithm of T. A. Davis, "Algorithm 849: A concise sparse Cholesky
 * factorization package", ACM TOMS 31(4), 2005 (elimination tree, row patterns by the tree's
 * reach), after a fill-reducing ordering: minimum degree for systems of up to 10,000 rows (W. F.
 * Tinney, J. W. Walker, "Direct solutions of sparse network equations by optimally ordered
 * triangular factorization", Proc. IEEE 55(11), 1967; A. George, J. W. H. Liu, "The evolution of
 * the minimum degree ordering algorithm", SIAM Review 31(1), 1989), a geometric nested
 * dissection above (recursive coordinate bisection with vertex separators; A. George, "Nested
 * dissection of a regular finite element mesh", SIAM J. Numer. Anal. 10(2), 1973), which keeps
 * the fill of a surface mesh near O(n log n).
 *
 * Used by the Direct Delta Mush precomputation: one factorisation per smoothing system, then p
 * solves of many columns each. No pivoting: the systems are symmetric positive definite.
 *
 * @module
 */
import type { SymmetricCsr } from './laplacian.js';

/** A factorisation P A Pᵀ = L D Lᵀ (L unit lower triangular, stored by columns without its diagonal). */
export interface LdltFactor {
  n: number;
  /** The ordering: row k of the factor is row `perm[k]` of A. */
  perm: Int32Array;
  /** Column starts of L, length n + 1. */
  Lp: Int32Array;
  /** Row of each entry of L (> its column). */
  Li: Int32Array;
  Lx: Float64Array;
  D: Float64Array;
}

/**
 * Factorises S (symmetric, both triangles stored) as P S Pᵀ = L D Lᵀ.
 * @param coordinates 3 numbers per row (the vertex positions), for the nested-dissection ordering
 *   (systems of more than 10,000 rows)
 * @param shared the factor's arrays in SharedArrayBuffers (worker threads then read them without a copy)
 * @param ordering the fill-reducing ordering to use (`perm` of a factor of a matrix with the same
 *   sparsity pattern: the ordering depends on the pattern and coordinates only, so the result is
 *   the same bit for bit, without its cost); default: computed here
 * @throws RangeError when a pivot is zero or not finite (S singular or not finite), or when
 *   `ordering` is not a permutation of S's rows
 */
export function factorLdlt(
  S: SymmetricCsr,
  coordinates: ArrayLike<number>,
  shared = false,
  ordering: ArrayLike<number> = fillReducingOrdering(S, coordinates),
): LdltFactor {
  const { n, offsets: Ap, columns: Ai, values: Ax } = S;
  if (ordering.length !== n) throw new RangeError(`the ordering has ${ordering.length} rows, the system ${n}`);
  const Buffer = shared ? SharedArrayBuffer : ArrayBuffer;
  const perm = new Int32Array(new Buffer(4 * n));
  perm.set(ordering);
  const pinv = new Int32Array(n).fill(-1);
  for (let k = 0; k < n; k++) {
    if (!(perm[k] >= 0 && perm[k] < n) || pinv[perm[k]] >= 0)
      throw new RangeError(`the ordering is not a permutation of the system's ${n} rows (at ${k}: ${perm[k]})`);
    pinv[perm[k]] = k;
  }
  // Symbolic: elimination tree and column counts.
  const parent = new Int32Array(n);
  const flag = new Int32Array(n);
  const lnz = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    parent[k] = -1;
    flag[k] = k;
    const kk = perm[k];
    for (let p = Ap[kk]; p < Ap[kk + 1]; p++) {
      for (let i = pinv[Ai[p]]; i < k && flag[i] !== k; i = parent[i]) {
        if (parent[i] === -1) parent[i] = k;
        lnz[i]++;
        flag[i] = k;
      }
    }
  }
  const Lp = new Int32Array(new Buffer(4 * (n + 1)));
  for (let k = 0; k < n; k++) Lp[k + 1] = Lp[k] + lnz[k];
  const Li = new Int32Array(new Buffer(4 * Lp[n]));
  const Lx = new Float64Array(new Buffer(8 * Lp[n]));
  const D = new Float64Array(new Buffer(8 * n));
  const Y = new Float64Array(n);
  const pattern = new Int32Array(n);
  // Numeric, row by row.
  for (let k = 0; k < n; k++) {
    let top = n;
    flag[k] = k;
    lnz[k] = 0;
    const kk = perm[k];
    for (let p = Ap[kk]; p < Ap[kk + 1]; p++) {
      let i = pinv[Ai[p]];
      if (i > k) continue;
      Y[i] += Ax[p];
      let len = 0;
      for (; flag[i] !== k; i = parent[i]) {
        pattern[len++] = i;
        flag[i] = k;
      }
      while (len > 0) pattern[--top] = pattern[--len];
    }
    let d = Y[k];
    Y[k] = 0;
    for (; top < n; top++) {
      const i = pattern[top];
      const yi = Y[i];
      Y[i] = 0;
      const p2 = Lp[i] + lnz[i];
      for (let p = Lp[i]; p < p2; p++) Y[Li[p]] -= Lx[p] * yi;
      const l = yi / D[i];
      d -= l * yi;
      Li[p2] = k;
      Lx[p2] = l;
      lnz[i]++;
    }
    if (!(d !== 0) || !Number.isFinite(d))
      throw new RangeError(`the smoothing system is singular (pivot ${k} is ${d})`);
    D[k] = d;
  }
  return { n, perm, Lp, Li, Lx, D };
}

/**
 * Solves S X = B for c columns with a factorisation of S (the column loops unrolled by 4: the
 * libigl elephant's Direct Delta Mush precomputation 9.2 → 5.7 s in V8).
 * @param B row-major n × c (read)
 * @param X row-major n × c (written; may be B)
 * @param work scratch of length ≥ n·c
 */
export function solveLdlt(F: LdltFactor, B: Float64Array, X: Float64Array, c: number, work: Float64Array): void {
  const { n, perm, Lp, Li, Lx, D } = F;
  const Y = work;
  for (let k = 0; k < n; k++) {
    const s = perm[k] * c;
    for (let q = 0; q < c; q++) Y[k * c + q] = B[s + q];
  }
  for (let j = 0; j < n; j++) {
    const yj = j * c;
    for (let p = Lp[j]; p < Lp[j + 1]; p++) {
      subtractScaled(Y, Li[p] * c, yj, Lx[p], c);
    }
  }
  for (let j = 0; j < n; j++) {
    const d = 1 / D[j];
    for (let q = j * c, e = q + c; q < e; q++) Y[q] *= d;
  }
  for (let j = n - 1; j >= 0; j--) {
    const yj = j * c;
    for (let p = Lp[j]; p < Lp[j + 1]; p++) {
      subtractScaled(Y, yj, Li[p] * c, Lx[p], c);
    }
  }
  for (let k = 0; k < n; k++) {
    const s = perm[k] * c;
    for (let q = 0; q < c; q++) X[s + q] = Y[k * c + q];
  }
}

/** Y[to … to + c) −= l · Y[from … from + c), unrolled by 4 (V8 runs it about 1.6× faster so). */
function subtractScaled(Y: Float64Array, to: number, from: number, l: number, c: number): void {
  let q = 0;
  for (; q + 4 <= c; q += 4) {
    Y[to + q] -= l * Y[from + q];
    Y[to + q + 1] -= l * Y[from + q + 1];
    Y[to + q + 2] -= l * Y[from + q + 2];
    Y[to + q + 3] -= l * Y[from + q + 3];
  }
  for (; q < c; q++) Y[to + q] -= l * Y[from + q];
}

/** Pieces of a dissection at or below this size are ordered by minimum degree. */
const DISSECTION_LEAF = 48;

/**
 * Systems of up to this many rows are ordered by minimum degree, larger ones by nested
 * dissection. Minimum degree fills the factor less (the libigl elephant: 134K entries against
 * 223K, the arm 146K against 325K, the Soldier 59K against 103K; Eigen's AMD gives the elephant
 * 117K) but its explicit graph slows down as the fill grows: on CesiumMan subdivided ×3 (150K
 * rows) it took 3× the dissection's time for 3% less fill.
 */
const MINIMUM_DEGREE_ROWS = 10000;

/**
 * A nested-dissection ordering: split the rows at the median of their longest coordinate axis;
 * the rows of the lower half with a neighbour in the upper half form the separator; order the
 * halves recursively, then the separator.
 */
function nestedDissection(S: SymmetricCsr, xyz: ArrayLike<number>): Int32Array {
  const { n, offsets, columns } = S;
  const order = new Int32Array(n);
  let next = 0;
  const side = new Int8Array(n); // scratch: 1 lower half, 2 upper half of the current split
  const split = (rows: Int32Array): void => {
    if (rows.length <= DISSECTION_LEAF) {
      for (const r of minimumDegree(S, rows)) order[next++] = r;
      return;
    }
    let axis = 0;
    let extent = -1;
    for (let a = 0; a < 3; a++) {
      let lo = Infinity;
      let hi = -Infinity;
      for (const r of rows) {
        const v = xyz[3 * r + a];
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
      if (hi - lo > extent) {
        extent = hi - lo;
        axis = a;
      }
    }
    const sorted = Int32Array.from(rows).sort((a, b) => xyz[3 * a + axis] - xyz[3 * b + axis] || a - b);
    const half = sorted.length >> 1;
    for (let q = 0; q < sorted.length; q++) side[sorted[q]] = q < half ? 1 : 2;
    const lower: number[] = [];
    const upper: number[] = [];
    const separator: number[] = [];
    for (let q = 0; q < half; q++) {
      const r = sorted[q];
      let cut = false;
      for (let p = offsets[r]; p < offsets[r + 1] && !cut; p++) cut = side[columns[p]] === 2;
      (cut ? separator : lower).push(r);
    }
    for (let q = half; q < sorted.length; q++) upper.push(sorted[q]);
    for (const r of rows) side[r] = 0;
    split(Int32Array.from(lower));
    split(Int32Array.from(upper));
    for (const r of separator) order[next++] = r;
  };
  split(Int32Array.from({ length: n }, (_, i) => i));
  return order;
}

/**
 * The fill-reducing ordering of {@link factorLdlt}: minimum degree up to 10,000 rows, nested
 * dissection above. It depends on S's pattern (symmetric, both triangles stored) and the
 * coordinates only.
 * @param coordinates 3 numbers per row
 * @returns the rows of S in elimination order
 */
export function fillReducingOrdering(S: SymmetricCsr, coordinates: ArrayLike<number>): Int32Array {
  return S.n <= MINIMUM_DEGREE_ROWS
    ? minimumDegree(
        S,
        Int32Array.from({ length: S.n }, (_, i) => i),
      )
    : nestedDissection(S, coordinates);
}

/**
 * A minimum-degree ordering of the rows `rows` of S (their induced graph; Tinney & Walker's
 * scheme 2, George & Liu 1989): repeatedly the row of least degree in the elimination graph (the
 * lowest index among equal degrees) is eliminated, its neighbours joined into a clique. On the
 * explicit elimination graph with exact degrees (no quotient graph), for systems of up to
 * {@link MINIMUM_DEGREE_ROWS} rows and a dissection's leaves; each row's neighbours a bit set
 * (m² bits: 12.5 MB at 10,000 rows), so that joining the eliminated row's neighbours into each of
 * theirs reads only the words where it has some (rpm-avatar's 2,060-row piece: 24 → 10 ms against
 * lists merged by marking). S's pattern must be symmetric (both triangles stored).
 * @returns the rows of S in elimination order
 */
export function minimumDegree(S: SymmetricCsr, rows: Int32Array): Int32Array {
  const m = rows.length;
  const W = (m + 31) >>> 5;
  // Row r of S is row a here: the identity where `rows` are all of S in order (a system's own ordering).
  const identity = m === S.n && rows.every((r, a) => r === a);
  const local = new Map<number, number>();
  if (!identity) rows.forEach((r, a) => local.set(r, a));
  const bits = new Int32Array(m * W);
  const degree = new Int32Array(m);
  for (let a = 0; a < m; a++) {
    const r = rows[a];
    for (let p = S.offsets[r]; p < S.offsets[r + 1]; p++) {
      const b = identity ? S.columns[p] : local.get(S.columns[p]);
      if (b !== undefined && b !== a) bits[a * W + (b >>> 5)] |= 1 << (b & 31);
    }
    for (let w = a * W; w < a * W + W; w++) degree[a] += popcount(bits[w]);
  }
  // A binary heap of degree · m + row (the smallest degree, then the first row), stale entries skipped.
  const heap: number[] = [];
  const push = (x: number) => {
    let i = heap.push(x) - 1;
    while (i > 0 && heap[(i - 1) >> 1] > x) {
      heap[i] = heap[(i - 1) >> 1];
      i = (i - 1) >> 1;
    }
    heap[i] = x;
  };
  const pop = (): number => {
    const top = heap[0];
    const last = heap.pop()!;
    if (heap.length) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const c = l + 1 < heap.length && heap[l + 1] < heap[l] ? l + 1 : l;
        if (c >= heap.length || heap[c] >= last) break;
        heap[i] = heap[c];
        i = c;
      }
      heap[i] = last;
    }
    return top;
  };
  for (let a = 0; a < m; a++) push(degree[a] * m + a);
  const done = new Uint8Array(m);
  const order = new Int32Array(m);
  const neighbours = new Int32Array(m);
  const words = new Int32Array(W); // the words of the eliminated row that are not 0
  let k = 0;
  while (heap.length) {
    const x = pop();
    const a = x % m;
    if (done[a] || Math.floor(x / m) !== degree[a]) continue;
    const rowA = a * W;
    let d = 0;
    let nw = 0;
    for (let w = 0; w < W; w++) {
      let y = bits[rowA + w];
      if (!y) continue;
      words[nw++] = w;
      while (y) {
        const low = y & -y;
        neighbours[d++] = (w << 5) + 31 - Math.clz32(low);
        y ^= low;
      }
    }
    // Each neighbour b joins a's other neighbours: its degree grows by those it lacked, less a
    // (eliminated) and itself (a neighbour of a).
    for (let i = 0; i < d; i++) {
      const b = neighbours[i];
      const rowB = b * W;
      let added = 0;
      for (let q = 0; q < nw; q++) {
        const w = words[q];
        const missing = bits[rowA + w] & ~bits[rowB + w];
        if (missing) {
          added += popcount(missing);
          bits[rowB + w] |= missing;
        }
      }
      bits[rowB + (b >>> 5)] &= ~(1 << (b & 31));
      bits[rowB + (a >>> 5)] &= ~(1 << (a & 31));
      // A degree unchanged keeps its entry in the heap.
      if (added !== 2) push((degree[b] += added - 2) * m + b);
    }
    done[a] = 1;
    degree[a] = 0;
    bits.fill(0, rowA, rowA + W);
    order[k++] = rows[a];
  }
  return order;
}

/** The set bits of a 32-bit word. */
function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}
