/**
 * The SIMD kernels of LBS, DQS, SBS, LMS and CoR on several cores at once (Node): one prepared
 * mesh in a shared WebAssembly memory, its vertices split into contiguous ranges, one per thread
 * — this thread runs the first, each worker thread one of the others — started and awaited every
 * frame through a shared control block (`thread-control.ts`), with no copy and no message per
 * frame. The results are those of the one-thread {@link createSimdDeformer}, bit for bit.
 *
 * @module
 */
// Node-only (worker_threads, Atomics.wait on this thread): exported from src/node.ts.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { CorskinError } from '../core/errors.js';
import type { SkinnedMesh } from '../core/mesh.js';
import { checkThreads, nodeWorkerScript } from '../core/node-worker.js';
import * as wasm from './instance.js';
import {
  RANGE_SCRATCH_BYTES,
  runKernelRange,
  SKINNING_KERNEL_METHODS,
  type SkinningKernelMethod,
} from './kernel-range.js';
import { SHARED_KERNELS_RELAXED_WASM_BASE64, SHARED_KERNELS_WASM_BASE64 } from './kernels-shared-binary.js';
import type { SimdDeformerFactory } from './bound-deformer.js';
import { createSimdDeformer, createSkinningKernels, type SimdDeformer } from './simd-skinning.js';
import {
  awaitChange,
  CONTROL_BYTES,
  DONE,
  FAILED,
  GENERATION,
  READY,
  SCALE,
  STOP,
  type KernelRangeShare,
} from './thread-control.js';

/** Below this many vertices a frame is too short to share (starting the workers costs more than it saves). */
export const PARALLEL_SIMD_FROM = 10_000;

/** A worker that has not finished its share of one frame in this long is taken as lost. */
const FRAME_TIMEOUT_MS = 60_000;

/** Options of {@link createParallelSimdDeformer}. */
export interface ParallelSimdOptions {
  /**
   * Threads, this one included (1: no worker). Default: every core (`os.availableParallelism()`)
   * from {@link PARALLEL_SIMD_FROM} vertices, else 1.
   */
  threads?: number;
}

/**
 * A {@link SimdDeformer} whose frames run on several threads; close it to stop its workers. Its
 * `output` views a shared memory (a SharedArrayBuffer): `postMessage` and `structuredClone` share
 * those arrays instead of copying them — copy them (`deform(S, out)`) to hand a frame on.
 */
export interface ParallelSimdDeformer extends SimdDeformer {
  /** Threads a frame runs on, this one included. */
  readonly threads: number;
  /** Stops the worker threads; `deform` throws afterwards (as after a worker failed or was lost). */
  close(): Promise<void>;
}

/**
 * Prepares `mesh` for `method` on the WebAssembly SIMD kernels as `createSimdDeformer` (`corskin`) does,
 * with each frame's vertices shared between `threads` threads (Node worker threads; this thread
 * takes a share too and blocks until the others are done, `Atomics.wait`). Same results as
 * `createSimdDeformer`, bit for bit, including the two-phase path for scaled joints (run on
 * this thread after the kernels). Worth it on large meshes: measured on a 2-core machine
 * in `npm run bench -- --peers`.
 * @param mesh bind-space mesh, as `createSimdDeformer`'s (for 'cor' with its centers of rotation)
 * @throws CorskinError for a method other than these five, as `createSimdDeformer`, or when a
 *   worker thread cannot start; RangeError
 *   when threads is not a whole number ≥ 1
 */
export async function createParallelSimdDeformer(
  mesh: SkinnedMesh,
  method: SkinningKernelMethod,
  options: ParallelSimdOptions = {},
): Promise<ParallelSimdDeformer> {
  if (!(SKINNING_KERNEL_METHODS as readonly string[]).includes(method))
    throw new CorskinError(
      `no shared-memory SIMD kernel for skinning method "${method}" (expected ${SKINNING_KERNEL_METHODS.join(', ')}; the others: createSimdDeformer)`,
    );
  const n = mesh.positions.length / 3;
  const threads = Math.max(1, Math.min(options.threads ?? (n >= PARALLEL_SIMD_FROM ? availableParallelism() : 1), n));
  if (options.threads !== undefined) checkThreads(options.threads);
  const kernels = await createSkinningKernels(mesh, method, (take) => take(RANGE_SCRATCH_BYTES * threads), {
    standard: SHARED_KERNELS_WASM_BASE64,
    relaxed: SHARED_KERNELS_RELAXED_WASM_BASE64,
  });
  const { memory, module, exports, call } = kernels;
  const f32 = new Float32Array(memory.buffer);
  const bounds = Array.from({ length: threads + 1 }, (_, t) => Math.round((t * n) / threads));
  const scratch = (t: number) => kernels.extra + RANGE_SCRATCH_BYTES * t;
  const control = new SharedArrayBuffer(CONTROL_BYTES);
  const counters = new Int32Array(control);
  const scale = new Float64Array(control);
  const workers = threads - 1;
  const started = workers ? await startServing() : [];
  let closed = false;

  /** The kernels on this frame: the workers started on their shares, this thread's run, the workers awaited. */
  const frame = (s: number): void => {
    if (closed) throw new CorskinError('this parallel SIMD deformer is closed');
    if (!workers) return runKernelRange(exports, call, 0, n, s, scratch(0), f32);
    scale[SCALE] = s;
    Atomics.store(counters, DONE, 0);
    Atomics.add(counters, GENERATION, 1);
    Atomics.notify(counters, GENERATION);
    runKernelRange(exports, call, bounds[0], bounds[1], s, scratch(0), f32);
    for (let done; (done = Atomics.load(counters, DONE)) < workers;)
      if (!awaitChange(counters, DONE, done, FRAME_TIMEOUT_MS))
        fail(`a SIMD worker thread did not finish its share of a frame in ${FRAME_TIMEOUT_MS / 1000} s`);
    if (Atomics.load(counters, FAILED)) fail('a SIMD worker thread failed on this frame');
  };
  const deformer = wasm.simdDeformer(
    method,
    mesh,
    memory,
    kernels.at,
    { J: kernels.J, owner: 'a mesh', M: 0 },
    (S, output) => kernels.run(S, output, frame),
  );
  return {
    ...deformer,
    threads,
    async close() {
      if (!closed) await shutdown();
    },
  };

  /** Marks the deformer closed, tells the workers to return and terminates them. */
  function shutdown(): Promise<unknown> {
    closed = true;
    stop();
    return Promise.all(started.map((w) => w.terminate()));
  }

  /** Closes the deformer (its workers stopped: a lost one would stall or tear every later frame) and throws. */
  function fail(message: string): never {
    void shutdown();
    throw new CorskinError(`${message}; the deformer is closed`);
  }

  /** Tells the workers to return. */
  function stop(): void {
    Atomics.store(counters, STOP, 1);
    Atomics.add(counters, GENERATION, 1);
    Atomics.notify(counters, GENERATION);
  }

  /**
   * Starts the workers on shares 1 … threads − 1 and waits until each serves. They do not keep
   * the process alive (`unref`): one that ends without `close` just stops them.
   */
  async function startServing(): Promise<Worker[]> {
    let failure: unknown;
    const started = Array.from({ length: workers }, (_, w) => {
      const t = w + 1;
      const share: KernelRangeShare = {
        module,
        memory,
        control,
        call,
        from: bounds[t],
        to: bounds[t + 1],
        scratch: scratch(t),
      };
      const worker = new Worker(nodeWorkerScript('wasm/simd-worker.js'), { workerData: share });
      worker.on('error', (e) => (failure ??= e));
      worker.unref();
      return worker;
    });
    while (Atomics.load(counters, READY) < workers && failure === undefined) await new Promise((r) => setTimeout(r, 1));
    if (failure !== undefined) {
      stop();
      await Promise.all(started.map((w) => w.terminate()));
      throw new CorskinError(`a SIMD worker thread could not start: ${(failure as Error).message ?? failure}`);
    }
    return started;
  }
}

/**
 * A {@link SimdDeformerFactory} for `simdBoundDeformer` that shares each frame between `threads`
 * threads ({@link createParallelSimdDeformer}) for the five skinning kernels' methods on meshes of
 * {@link PARALLEL_SIMD_FROM} vertices up, and prepares `createSimdDeformer` otherwise (one
 * thread; bit for bit the same results either way); `close` stops the worker threads of every
 * deformer it made. (The bake does not use it: it writes every frame into fresh memory, where a
 * frame shared between two threads took longer on this 2-core machine: Ybot's bake 26.0 s
 * against 24.1 s with one.)
 * @param threads threads a shared frame runs on, this one included (1: never shared)
 */
export function parallelSimdFactory(threads: number): {
  /** Prepares a mesh's deformer: shared between threads when large enough, else `createSimdDeformer`'s. */
  create: SimdDeformerFactory;
  /** Stops the worker threads of every deformer `create` made. */
  close: () => Promise<void>;
} {
  const made: ParallelSimdDeformer[] = [];
  return {
    async create(mesh, method, parameters) {
      const shared = (SKINNING_KERNEL_METHODS as readonly string[]).includes(method);
      if (threads < 2 || !shared || mesh.positions.length / 3 < PARALLEL_SIMD_FROM)
        return createSimdDeformer(mesh, method, parameters);
      const deformer = await createParallelSimdDeformer(mesh, method as SkinningKernelMethod, { threads });
      made.push(deformer);
      return deformer;
    },
    async close() {
      await Promise.all(made.splice(0).map((d) => d.close()));
    },
  };
}
