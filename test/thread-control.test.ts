/**
 * `awaitChange`, the wait of the parallel SIMD deformer's threads (`src/wasm/thread-control.ts`):
 * it returns on a change of the counter, not on a wake-up alone — a notify sent while the counter
 * still holds the awaited value (as one sent for an earlier change that the waiter had already
 * seen while spinning) must not end the wait.
 */
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { awaitChange } from '../src/wasm/thread-control.js';

/** A thread that notifies slot 0 of `control` at 50 and 100 ms without changing it, then sets it to 1 at 250 ms. */
function notifier(control: SharedArrayBuffer): Worker {
  return new Worker(
    `const { workerData } = require('node:worker_threads');
     const c = new Int32Array(workerData);
     const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
     sleep(50); Atomics.notify(c, 0);
     sleep(50); Atomics.notify(c, 0);
     sleep(150); Atomics.store(c, 0, 1); Atomics.notify(c, 0);`,
    { eval: true, workerData: control },
  );
}

describe('awaitChange', () => {
  it('returns on the change, not on the notifies before it', async () => {
    const control = new SharedArrayBuffer(4);
    const counters = new Int32Array(control);
    const worker = notifier(control);
    const start = performance.now();
    expect(awaitChange(counters, 0, 0)).toBe(true);
    const waited = performance.now() - start;
    expect(Atomics.load(counters, 0)).toBe(1);
    expect(waited).toBeGreaterThan(200);
    await worker.terminate();
  });

  it('with a timeout: false once it has passed with the counter unchanged, through the notifies', async () => {
    const control = new SharedArrayBuffer(4);
    const counters = new Int32Array(control);
    const worker = notifier(control);
    const start = performance.now();
    expect(awaitChange(counters, 0, 0, 150)).toBe(false);
    const waited = performance.now() - start;
    expect(waited).toBeGreaterThanOrEqual(145);
    expect(waited).toBeLessThan(240);
    await worker.terminate();
  });
});
