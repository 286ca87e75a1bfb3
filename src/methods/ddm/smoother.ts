/**
 * The smoothing of the Direct Delta Mush precomputation (Binh Huy Le and J. P. Lewis, "Direct
 * Delta Mush Skinning and Variants", ACM TOG 38(4), SIGGRAPH 2019, Eq. 11): p steps of
 * X ← S⁻¹ (s ∘ X) for a block of columns, S factorised once (`ldlt.ts`). On the WebAssembly
 * SIMD kernel (asm/ldlt.ts, two columns per instruction, the block kept in the kernel's memory
 * for all p steps; the factor copied into that memory once) where the runtime compiles it
 * synchronously, else in JavaScript
 * (`solveLdlt`); both do the same floating-point operations in the same order, so the result is
 * bit-identical either way.
 *
 * @module
 */
import { instantiateKernelsSync, KERNEL_LAYOUT_START } from '../../wasm/instance.js';
import { solveLdlt, type LdltFactor } from './ldlt.js';

/** p smoothing steps with one factorised system (see {@link createSmoother}). */
export interface Smoother {
  /**
   * X ← (S⁻¹ diag(s))^p X in place.
   * @param X row-major rows × c (rows in the system's order, not the factor's)
   * @param each called after every step (progress, abort checks; what it throws propagates)
   * @returns X
   * @throws Error once the smoother is released
   */
  smooth(X: Float64Array, c: number, p: number, each?: () => void): Float64Array;
  /** Gives its kernel instance back to the {@link SmootherKernels} it came from (nothing without one). */
  release(): void;
}

/**
 * Kernel instances for the smoothers of one thread to reuse, each released one's for the next:
 * a new instance's memory is fresh pages, and two threads of one process fault pages in, and
 * give them back, in turn (measured: a loop allocating 4.8 MB buffers ran 1.6–2× slower on each of
 * two worker threads than alone; reusing them, not at all). Owned by one computation, or by a
 * worker thread for all its calls.
 */
export class SmootherKernels {
  private readonly spare: KernelInstance[] = [];

  /** A spare instance with at least `bytes` of memory (grown), or a new one; undefined where the runtime has none. */
  take(bytes: number): KernelInstance | undefined {
    const instance = this.spare.pop();
    if (!instance) return instantiateKernelsSync(bytes);
    return growTo(instance.memory, bytes) ? instance : instantiateKernelsSync(bytes);
  }

  give(instance: KernelInstance): void {
    this.spare.push(instance);
  }
}

type KernelInstance = NonNullable<ReturnType<typeof instantiateKernelsSync>>;

/** Grows `memory` to at least `bytes`; false where the runtime gives no more. */
function growTo(memory: WebAssembly.Memory, bytes: number): boolean {
  if (memory.buffer.byteLength >= bytes) return true;
  try {
    memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / 65536));
    return true;
  } catch {
    return false;
  }
}

/**
 * A {@link Smoother} for S = `factor` (P S Pᵀ = L D Lᵀ) and row scales s = `scale` (length n).
 * @param simd false: always the JavaScript path (tests compare the two)
 * @param kernels where to take the kernel instance from and give it back on `release` (default:
 *   a new instance each time). Reused from system to system, an instance pays on every piece: on
 *   the Soldier's 35 pieces of 16–50 rows (buttons, straps) 0.09–0.11 ms each against
 *   0.26–1.5 ms in JavaScript.
 */
export function createSmoother(
  factor: LdltFactor,
  scale: Float64Array,
  simd = true,
  kernels = new SmootherKernels(),
): Smoother {
  return (simd && simdSmoother(factor, scale, kernels)) || jsSmoother(factor, scale);
}

function jsSmoother(factor: LdltFactor, scale: Float64Array): Smoother {
  const n = factor.n;
  return {
    smooth(X, c, p, each) {
      const work = new Float64Array(X.length);
      for (let it = 0; it < p; it++) {
        for (let a = 0; a < n; a++) for (let q = 0, k = a * c; q < c; q++, k++) X[k] *= scale[a];
        solveLdlt(factor, X, X, c, work);
        each?.();
      }
      return X;
    },
    release() {},
  };
}

/** The kernel's smoother, or undefined where the kernels cannot be instantiated here. */
function simdSmoother(factor: LdltFactor, scale: Float64Array, kernels: SmootherKernels): Smoother | undefined {
  const { n, perm, Lp, Li, Lx, D } = factor;
  const nnz = Lp[n];
  // Layout: LP, LI (i32), then LX, DI, SC, Y (f64), each 16-byte aligned.
  const at16 = (bytes: number) => Math.ceil(bytes / 16) * 16;
  const LP = KERNEL_LAYOUT_START; // above the module's static data
  const LI = at16(LP + 4 * (n + 1));
  const LX = at16(LI + 4 * nnz);
  const DI = at16(LX + 8 * nnz);
  const SC = at16(DI + 8 * n);
  const Y = at16(SC + 8 * n);
  let instance = kernels.take(Y + 8 * n);
  if (!instance) return undefined;
  const { memory, exports } = instance;
  new Int32Array(memory.buffer, LP, n + 1).set(Lp);
  new Int32Array(memory.buffer, LI, nnz).set(Li.subarray(0, nnz));
  new Float64Array(memory.buffer, LX, nnz).set(Lx.subarray(0, nnz));
  const di = new Float64Array(memory.buffer, DI, n);
  const sc = new Float64Array(memory.buffer, SC, n);
  for (let k = 0; k < n; k++) {
    di[k] = 1 / D[k];
    sc[k] = scale[perm[k]];
  }
  const js = jsSmoother(factor, scale);
  return {
    smooth(X, c, p, each) {
      if (!instance) throw new Error('this smoother was released');
      if (!growTo(memory, Y + 8 * n * c)) return js.smooth(X, c, p, each); // more than the runtime gives a memory
      const y = new Float64Array(memory.buffer, Y, n * c);
      for (let k = 0; k < n; k++) for (let q = 0, s = perm[k] * c, t = k * c; q < c; q++) y[t + q] = X[s + q];
      for (let it = 0; it < p; it++) {
        exports.ldltSmooth(n, c, LP, LI, LX, DI, SC, Y);
        each?.();
      }
      for (let k = 0; k < n; k++) for (let q = 0, s = perm[k] * c, t = k * c; q < c; q++) X[s + q] = y[t + q];
      return X;
    },
    release() {
      if (instance) kernels.give(instance);
      instance = undefined;
    },
  };
}
