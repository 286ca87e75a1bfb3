/**
 * Worker-thread side of {@link createParallelSimdDeformer}: serves the share of a prepared mesh's
 * vertices it is started with (`workerData`, a {@link KernelRangeShare}) on the SIMD kernels, frame
 * after frame, until told to stop (`thread-control.ts`).
 *
 * @module
 */
import { workerData } from 'node:worker_threads';
import { serveKernelRange, type KernelRangeShare } from './thread-control.js';

serveKernelRange(workerData as KernelRangeShare);
