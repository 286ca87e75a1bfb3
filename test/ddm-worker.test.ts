/**
 * Direct Delta Mush on a Web Worker (`computeDirectDeltaMushOnWorker`): the bundled worker script
 * (`src/methods/ddm/web-worker-source.ts`, built by `npm run build`) run on a stand-in Worker, and the
 * fallback in this thread where Node has none, both give exactly `computeDirectDeltaMush`'s model
 * on CesiumMan, with progress; an abort rejects with the signal's reason.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { computeDirectDeltaMush, type DdmModel } from '../src/methods/ddm/precompute.js';
import { computeDirectDeltaMushOnWorker } from '../src/methods/ddm/web-worker.js';
import { DDM_WORKER_SOURCE } from '../src/methods/ddm/web-worker-source.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { CESIUM_MAN } from './helpers/data.js';

const mesh = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN)[0].mesh;
const expected = { full: computeDirectDeltaMush(mesh), compact: computeDirectDeltaMush(mesh, { variant: 'compact' }) };

/** A Worker that runs the bundled script in this realm, messages structured-cloned and asynchronous. */
class StandInWorker {
  onmessage: ((e: { data: unknown }) => void) | null = null;
  onerror: ((e: unknown) => void) | null = null;
  transferred = 0;
  private scope: { onmessage?: (e: { data: unknown }) => void; postMessage: (m: unknown, t?: Transferable[]) => void };
  constructor() {
    StandInWorker.started++;
    this.scope = {
      postMessage: (m, t = []) => {
        this.transferred += t.length;
        const data = structuredClone(m, { transfer: t });
        setTimeout(() => this.onmessage?.({ data }));
      },
    };
    new Function('self', DDM_WORKER_SOURCE)(this.scope);
  }
  postMessage(m: unknown, t: Transferable[] = []): void {
    const data = structuredClone(m, { transfer: t });
    setTimeout(() => this.scope.onmessage?.({ data }));
  }
  terminate(): void {}
  static started = 0;
}

function same(a: DdmModel, b: DdmModel): void {
  expect(a.variant).toBe(b.variant);
  expect(a.parameters).toEqual(b.parameters);
  expect(a.offsets).toEqual(b.offsets);
  expect(a.joints).toEqual(b.joints);
  expect(a.matrices.constructor).toBe(b.matrices.constructor);
  expect(a.matrices).toEqual(b.matrices);
  expect(a.weights).toEqual(b.weights);
}

describe('computeDirectDeltaMushOnWorker', () => {
  afterEach(() => {
    delete (globalThis as { Worker?: unknown }).Worker;
  });

  it.each(['full', 'compact'] as const)(
    'CesiumMan, %s: the bundled worker gives computeDirectDeltaMush’s model, with progress',
    async (variant) => {
      (globalThis as { Worker?: unknown }).Worker = StandInWorker;
      const before = StandInWorker.started;
      const progress: [number, number][] = [];
      const model = await computeDirectDeltaMushOnWorker(mesh, {
        variant,
        onProgress: (done, total) => progress.push([done, total]),
      });
      expect(StandInWorker.started).toBe(before + 1);
      same(model, expected[variant]);
      expect(progress.length).toBeGreaterThan(0);
      expect(progress.at(-1)![0]).toBe(progress.at(-1)![1]);
    },
  );

  it('falls back to this thread where there is no Worker (Node), same model', async () => {
    expect(typeof Worker).toBe('undefined');
    let calls = 0;
    same(await computeDirectDeltaMushOnWorker(mesh, { onProgress: () => calls++ }), expected.full);
    expect(calls).toBeGreaterThan(0);
  });

  it('rejects with the worker’s message for bad parameters, and with the reason when aborted', async () => {
    (globalThis as { Worker?: unknown }).Worker = StandInWorker;
    await expect(computeDirectDeltaMushOnWorker(mesh, { iterations: -1 })).rejects.toThrow(/iterations/);
    const controller = new AbortController();
    const run = computeDirectDeltaMushOnWorker(mesh, { signal: controller.signal });
    controller.abort(new Error('stopped'));
    await expect(run).rejects.toThrow('stopped');
    delete (globalThis as { Worker?: unknown }).Worker;
    await expect(computeDirectDeltaMushOnWorker(mesh, { iterations: -1 })).rejects.toThrow(/iterations/);
  });
});
