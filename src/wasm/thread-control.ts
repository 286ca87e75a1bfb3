/**
 * The per-frame hand-off between the thread that owns a parallel SIMD deformer
 * (`parallel-simd.ts`) and its worker threads: a small SharedArrayBuffer of counters the threads
 * wait on and wake each other through (`Atomics.wait`/`notify`), and the loop a worker runs on
 * its share of the vertices. No messages per frame: the frame's data is already in the shared
 * kernel memory when a frame starts.
 *
 * @module
 */
import { runKernelRange, type KernelExports, type SkinningKernelCall } from './kernel-range.js';

/** Int32 slots of the control block. */
export const GENERATION = 0; // frames started (the owner adds 1 per frame)
export const DONE = 1; // workers done with the current frame
export const READY = 2; // workers serving
export const STOP = 3; // 1: workers return
export const FAILED = 4; // 1: a worker threw
/** Float64 slot (index in a Float64Array over the block) of the frame's uniform scale s. */
export const SCALE = 3;
/** Bytes of a control block. */
export const CONTROL_BYTES = 32;

/**
 * Checks of a counter before sleeping on it: a frame that follows within about this many checks
 * (tens of microseconds) starts without the wake-up of a sleeping thread (a futex: 30–60 µs here).
 */
export const SPIN = 1 << 14;

/**
 * Returns once `counters[slot]` is no longer `value`: checks it up to {@link SPIN} times, then
 * sleeps on it (`Atomics.wait`, at most `timeout` ms in all) until it has changed. A wake-up
 * alone is no change: a notify sent for an earlier change, which this thread had already seen
 * while spinning, can wake it with the counter still at `value` (a worker thread then ran a frame
 * that had not started, and its count of done let the owner read a share before it was written).
 * @returns false when `timeout` ms passed with the counter unchanged
 */
export function awaitChange(counters: Int32Array, slot: number, value: number, timeout = Infinity): boolean {
  for (let k = 0; k < SPIN; k++) if (Atomics.load(counters, slot) !== value) return true;
  const end = performance.now() + timeout;
  for (;;) {
    if (Atomics.load(counters, slot) !== value) return true;
    const left = end - performance.now();
    if (!(left > 0)) return false;
    Atomics.wait(counters, slot, value, left);
  }
}

/** What a worker thread serves: its share [from, to) of one prepared mesh, over a shared memory. */
export interface KernelRangeShare {
  /** The kernels' module, compiled for a shared memory, and that memory. */
  module: WebAssembly.Module;
  memory: WebAssembly.Memory;
  /** The control block (SharedArrayBuffer of {@link CONTROL_BYTES}). */
  control: SharedArrayBuffer;
  call: SkinningKernelCall;
  from: number;
  to: number;
  /** Its scratch block in the memory (see `runKernelRange`). */
  scratch: number;
}

/**
 * A worker thread's loop: instantiates the kernels over the shared memory, says it is ready, then
 * for every frame the owner starts runs its share and counts itself done, until told to stop.
 * @throws what the kernels throw (after marking the frame done and failed, so the owner does not wait)
 */
export function serveKernelRange(share: KernelRangeShare): void {
  const { module, memory, control, call, from, to, scratch } = share;
  const exports = new WebAssembly.Instance(module, { env: { memory } }).exports as KernelExports;
  const f32 = new Float32Array(memory.buffer);
  const counters = new Int32Array(control);
  const scale = new Float64Array(control);
  let generation = Atomics.load(counters, GENERATION);
  Atomics.add(counters, READY, 1);
  Atomics.notify(counters, READY);
  for (;;) {
    awaitChange(counters, GENERATION, generation);
    if (Atomics.load(counters, STOP)) return;
    generation = Atomics.load(counters, GENERATION);
    try {
      runKernelRange(exports, call, from, to, scale[SCALE], scratch, f32);
    } catch (e) {
      Atomics.store(counters, FAILED, 1);
      throw e;
    } finally {
      Atomics.add(counters, DONE, 1);
      Atomics.notify(counters, DONE);
    }
  }
}
