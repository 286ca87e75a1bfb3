/**
 * One of asm/kernels.ts' kernels (LBS, DQS, SBS, LMS, CoR) run on a range of a prepared mesh's
 * vertices: what the single-threaded SIMD deformer runs on all of them and each worker thread of
 * `parallel-simd.ts` on its share, over one memory. No Node or browser API: the worker-thread
 * script imports it alone.
 *
 * @module
 */

/** The methods of asm/kernels.ts. */
export const SKINNING_KERNEL_METHODS = ['lbs', 'dqs', 'sbs', 'lms', 'cor'] as const;
/** One of {@link SKINNING_KERNEL_METHODS}. */
export type SkinningKernelMethod = (typeof SKINNING_KERNEL_METHODS)[number];

/**
 * A mesh prepared on one of asm/kernels.ts' kernels: its method, vertex count n, influence slots
 * per vertex K, and the byte offsets of its arrays in the kernels' memory (asm/kernels.ts' names
 * and layout; 0: the mesh lacks the array). A plain object: it crosses to worker threads.
 */
export interface SkinningKernelCall {
  method: SkinningKernelMethod;
  n: number;
  K: number;
  /** Bind-space positions, normals, tangents and centers of rotation. */
  P: number;
  N: number;
  T: number;
  C: number;
  /** Influence slots: joints, weights, used counts. */
  JI: number;
  W: number;
  CNT: number;
  /** The frame's skinning matrices and its per-joint data (quaternions, dual quaternions; LMS: per (pivot, joint) pair, twists). */
  M: number;
  Q: number;
  /** LMS: each influence slot's (pivot, joint) pair (0 for the other methods). */
  PR: number;
  /** The posed positions, normals and tangents. */
  OP: number;
  ON: number;
  OT: number;
}

/** The kernels' exports by name (functions taking byte offsets in their memory). */
export type KernelExports = Record<string, (...args: number[]) => void>;

/** Bytes of scratch {@link runKernelRange} needs for a range that ends before the last vertex. */
export const RANGE_SCRATCH_BYTES = 32;

/**
 * Runs `call`'s kernel on vertices [from, to) (the frame's matrices and joint data already in the
 * memory), then multiplies their posed positions by `s` (a uniformly scaled rig's, 1: none).
 * The kernels store 4 lanes per position and normal, the fourth over the next vertex's x: a range
 * that ends before the last vertex has its last vertex written through `scratch` (a block of
 * {@link RANGE_SCRATCH_BYTES} of its own) and copied, so that it never writes the next range's
 * first vertex, which another thread owns. The results are those of one run on all vertices,
 * bit for bit.
 * @param f32 a Float32Array over the whole memory
 */
export function runKernelRange(
  exports: KernelExports,
  call: SkinningKernelCall,
  from: number,
  to: number,
  s: number,
  scratch: number,
  f32: Float32Array,
): void {
  if (to <= from) return;
  if (to === call.n) kernel(exports, call, from, to);
  else {
    kernel(exports, call, from, to - 1);
    const at = to - 1;
    kernel(exports, call, at, to, scratch);
    f32.copyWithin(3 * at + (call.OP >> 2), scratch >> 2, (scratch >> 2) + 3);
    if (call.ON) f32.copyWithin(3 * at + (call.ON >> 2), (scratch >> 2) + 4, (scratch >> 2) + 7);
  }
  if (s !== 1) exports.scale(call.OP + 12 * from, 3 * (to - from), s);
}

/** The kernel on vertices [from, to); with `scratch`, its posed position and normal written there (at 0 and 16 bytes). */
function kernel(exports: KernelExports, c: SkinningKernelCall, from: number, to: number, scratch = 0): void {
  const n = to - from;
  if (n <= 0) return;
  const at = (p: number, bytes: number) => (p ? p + bytes * from : 0);
  const P = at(c.P, 12), N = at(c.N, 12), T = at(c.T, 16); // prettier-ignore
  const JI = at(c.JI, 2 * c.K), W = at(c.W, 4 * c.K), CNT = at(c.CNT, 1); // prettier-ignore
  const OP = scratch || at(c.OP, 12);
  const ON = scratch && c.ON ? scratch + 16 : at(c.ON, 12);
  const OT = at(c.OT, 16);
  const { K, M, Q } = c;
  if (c.method === 'cor') exports.cor(n, K, P, N, T, at(c.C, 12), JI, W, CNT, M, Q, OP, ON, OT);
  else if (c.method === 'lbs') exports.lbs(n, K, P, N, T, JI, W, CNT, M, OP, ON, OT);
  else if (c.method === 'lms') exports.lms(n, K, P, N, T, JI, W, CNT, M, Q, at(c.PR, 4 * c.K), OP, ON, OT);
  else exports[c.method](n, K, P, N, T, JI, W, CNT, M, Q, OP, ON, OT);
}
