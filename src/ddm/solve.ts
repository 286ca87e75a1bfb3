/**
 * Preconditioned conjugate gradients on a block of right-hand sides at once, for the symmetric
 * positive-definite smoothing systems of Direct Delta Mush (see `laplacian.ts`). Their condition
 * number is small (about 1 + 2s), so a Jacobi-preconditioned CG reaches a relative residual of
 * 1e-12 in a few dozen iterations; the block layout (row-major, the c columns of a row
 * contiguous) makes each sparse product one pass over the matrix for all columns.
 *
 * @module
 */
import type { SymmetricCsr } from './laplacian.js';

/** Options of {@link solveBlock}. */
export interface BlockSolveOptions {
  /** Stop a column when ‖b − S x‖ ≤ tolerance · ‖b‖; default 1e-12. */
  tolerance?: number;
  /** Iteration limit; default 500. */
  maxIterations?: number;
}

/**
 * Solves S X = B for c columns (Jacobi-preconditioned conjugate gradients, each column with its
 * own step lengths), starting from the X given.
 * @param S symmetric positive-definite, n × n
 * @param B right-hand sides, row-major n × c (entry (i, col) at `i·c + col`)
 * @param X the start on input, the solution on output, row-major n × c
 * @param c columns
 * @returns the iterations taken (the most of any column)
 * @throws RangeError when a column does not converge within `maxIterations` (S not positive
 *   definite, or not finite)
 */
export function solveBlock(S: SymmetricCsr, B: Float64Array, X: Float64Array, c: number, options: BlockSolveOptions = {}): number {
  const { n, offsets, columns, values } = S;
  const tol = options.tolerance ?? 1e-12;
  const maxIt = options.maxIterations ?? 500;
  const inv = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    for (let p = offsets[i]; p < offsets[i + 1]; p++) if (columns[p] === i) inv[i] = 1 / values[p];
  }
  const size = n * c;
  const R = new Float64Array(size);
  const Z = new Float64Array(size);
  const P = new Float64Array(size);
  const AP = new Float64Array(size);
  const rz = new Float64Array(c);
  const bnorm = new Float64Array(c);
  const active = new Uint8Array(c);
  multiply(S, X, R, c);
  for (let k = 0; k < size; k++) R[k] = B[k] - R[k];
  for (let i = 0; i < n; i++) {
    for (let col = 0, k = i * c; col < c; col++, k++) {
      Z[k] = inv[i] * R[k];
      P[k] = Z[k];
      rz[col] += R[k] * Z[k];
      bnorm[col] += B[k] * B[k];
    }
  }
  const rr = new Float64Array(c);
  const limit = new Float64Array(c);
  for (let col = 0; col < c; col++) limit[col] = tol * tol * bnorm[col];
  let remaining = 0;
  residualNorms(R, rr, n, c);
  for (let col = 0; col < c; col++) if (rr[col] > limit[col]) (active[col] = 1), remaining++;
  const pAp = new Float64Array(c);
  const alpha = new Float64Array(c);
  const beta = new Float64Array(c);
  const rzNew = new Float64Array(c);
  let it = 0;
  for (; remaining > 0; it++) {
    if (it >= maxIt) throw new RangeError(`the smoothing solve did not converge in ${maxIt} iterations (is the mesh degenerate?)`);
    multiply(S, P, AP, c);
    pAp.fill(0);
    for (let i = 0; i < n; i++) for (let col = 0, k = i * c; col < c; col++, k++) pAp[col] += P[k] * AP[k];
    for (let col = 0; col < c; col++) alpha[col] = active[col] ? rz[col] / pAp[col] : 0;
    rzNew.fill(0);
    rr.fill(0);
    for (let i = 0; i < n; i++) {
      const d = inv[i];
      for (let col = 0, k = i * c; col < c; col++, k++) {
        const a = alpha[col];
        X[k] += a * P[k];
        const r = R[k] - a * AP[k];
        R[k] = r;
        const z = d * r;
        Z[k] = z;
        rzNew[col] += r * z;
        rr[col] += r * r;
      }
    }
    remaining = 0;
    for (let col = 0; col < c; col++) {
      if (!active[col]) continue;
      if (!(rr[col] > limit[col])) {
        if (!Number.isFinite(rr[col])) throw new RangeError('the smoothing solve produced a non-finite value');
        active[col] = 0;
        continue;
      }
      remaining++;
      beta[col] = rzNew[col] / rz[col];
      rz[col] = rzNew[col];
    }
    for (let i = 0; i < n; i++) {
      for (let col = 0, k = i * c; col < c; col++, k++) if (active[col]) P[k] = Z[k] + beta[col] * P[k];
    }
  }
  return it;
}

function residualNorms(R: Float64Array, out: Float64Array, n: number, c: number): void {
  out.fill(0);
  for (let i = 0; i < n; i++) for (let col = 0, k = i * c; col < c; col++, k++) out[col] += R[k] * R[k];
}

/** Y = S·X for row-major n × c blocks. */
export function multiply(S: SymmetricCsr, X: Float64Array, Y: Float64Array, c: number): void {
  const { n, offsets, columns, values } = S;
  Y.fill(0, 0, n * c);
  for (let i = 0; i < n; i++) {
    const yi = i * c;
    for (let p = offsets[i]; p < offsets[i + 1]; p++) {
      const a = values[p];
      const xk = columns[p] * c;
      for (let col = 0; col < c; col++) Y[yi + col] += a * X[xk + col];
    }
  }
}
