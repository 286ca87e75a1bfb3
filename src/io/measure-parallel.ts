/**
 * The bake's measure (`measureBake`) with its times shared between this thread and a worker
 * thread: each plays its share of the times into a tally of its own (the distances' exact
 * streams, `MaxAndP99Stream`), and the worker's is merged into this one's — the same figures as
 * on one thread, to the bit. Node only.
 *
 * @module
 */
import type { Deformer } from '../deformers/contract.js';
import { deformLbs } from '../deformers/lbs.js';
import {
  measurePlan,
  measureResult,
  measureTally,
  measureTimes,
  type BakeMeasure,
  type MeasuredSkin,
  type MeasureOptions,
  type MeasurePlan,
  type MeasureTally,
} from '../bake/measure.js';
import type { MaxAndP99StreamState } from '../bake/percentile.js';
import { DEFAULT_BAKE_RATE } from '../bake/samples.js';
import type { MethodSamples } from '../bake/sampling.js';
import { startWorkerPool, type WorkerThreadPool } from '../core/node-worker.js';
import { simdBoundDeformer } from '../wasm/bound-deformer.js';
import type { SkinnedModel } from './gltf.js';

/** Times this thread measures between two looks at its messages (about 30 ms on Ybot). */
const RUN = 16;

/**
 * Below this many (time, vertex) pairs the measure stays on one thread: its worker takes about
 * half a second to start (its modules and kernels), and the measure plays about 25M pairs a second
 * on this project's 2-core machines.
 */
export const PARALLEL_MEASURE_FROM = 1e7;

/**
 * Starts the measure's worker thread ahead of {@link measureBakeParallel} (its start then overlaps
 * what the caller does meanwhile: the bake writes its file); the caller terminates it.
 */
export function createMeasureWorkerPool(): WorkerThreadPool {
  return startWorkerPool('io/measure-worker.js', 1);
}

/** What a worker measures: the plan's times it plays (their reference samples numbered from 0 in `reference`). */
export interface MeasureJob {
  plan: MeasurePlan;
  original: MeasuredSkin;
  baked: MeasuredSkin;
  reference: Pick<MethodSamples, 'targets' | 'lbsSquared'>;
}

/**
 * Linear blend skinning of both skins on the SIMD kernels bound to their meshes
 * (`simdBoundDeformer`; JavaScript where a mesh has none), as both threads play it.
 */
export async function simdLbs(original: MeasuredSkin, baked: MeasuredSkin): Promise<Deformer> {
  return (await simdBoundDeformer('lbs', [original.mesh, baked.mesh], deformLbs, { positionsOnly: true })).deform;
}

/** A {@link MeasureTally} as plain data: its streams' states in a fixed order, and its counts. */
export interface MeasureTallyState {
  streams: MaxAndP99StreamState[];
  worse: Int32Array;
}

/** The streams of a tally, in the order {@link MeasureTallyState} holds them. */
function streamsOf(tally: MeasureTally) {
  return [...tally.baked, ...tally.lbs, ...(tally.four ? [tally.four] : []), ...(tally.fourLbs ? [tally.fourLbs] : [])];
}

/** `tally` as plain data (copies), for another thread. */
export function tallyState(tally: MeasureTally): MeasureTallyState {
  return { streams: streamsOf(tally).map((s) => s.state()), worse: tally.worse.slice() };
}

/**
 * `measureBake` with the times shared between this thread and one worker thread (`pool`, one
 * started by {@link createMeasureWorkerPool}, else started here), where every time is in
 * `options.reference` and its arrays are in SharedArrayBuffers (the worker reads them without a
 * copy: `sampleMethod` with `shared`), from `parallelFrom` (time, vertex) pairs up (default
 * {@link PARALLEL_MEASURE_FROM});
 * otherwise, or with `threads` 1, on this thread alone. The same result either way: both skins played by linear blend skinning on the SIMD
 * kernels on both threads ({@link simdLbs}; `measureBake` with those as `lbs` gives the same).
 * @param options as `measureBake`'s but `lbs`; `threads`, 1 or more (more than 2 are taken as 2:
 *   the times are split in two); `pool` and `parallelFrom` as above
 * @throws as `measureBake`; Error when the worker thread fails
 */
export async function measureBakeParallel(
  original: SkinnedModel,
  baked: SkinnedModel,
  deform: Deformer,
  rate = DEFAULT_BAKE_RATE,
  options: Omit<MeasureOptions, 'lbs'> & { threads?: number; pool?: WorkerThreadPool; parallelFrom?: number } = {},
): Promise<BakeMeasure> {
  const { reference, onProgress } = options;
  const plan = measurePlan(original, baked, deform, rate, options);
  const lbs = await simdLbs(original, baked);
  const tally = measureTally(plan, original, baked);
  const shared = (a: ArrayBufferView) => a.buffer instanceof SharedArrayBuffer;
  const split =
    (options.threads ?? 1) > 1 &&
    reference !== undefined &&
    plan.times.length * plan.n >= (options.parallelFrom ?? PARALLEL_MEASURE_FROM) &&
    plan.times.every((x) => x.reference >= 0) &&
    reference.targets.every(shared) &&
    reference.lbsSquared.every(shared);
  if (!split) {
    measureTimes(plan, original, baked, deform, lbs, reference, tally, onProgress);
    return measureResult(plan, tally);
  }
  const half = Math.floor(plan.times.length / 2);
  const [mine, theirs] = [plan.times.slice(0, half), plan.times.slice(half)];
  const skin = ({ name, mesh, skeleton, animations, morphGroups }: MeasuredSkin): MeasuredSkin => ({ name, mesh, skeleton, animations, morphGroups }); // prettier-ignore
  const job: MeasureJob = {
    plan: { ...plan, times: theirs.map((x, k) => ({ ...x, reference: k })) },
    original: skin(original),
    baked: skin(baked),
    reference: {
      targets: theirs.map((x) => reference.targets[x.reference]),
      lbsSquared: theirs.map((x) => reference.lbsSquared[x.reference]),
    },
  };
  const owned = options.pool ? undefined : createMeasureWorkerPool();
  const { pool } = options.pool ?? owned!;
  try {
    const answer = pool.exec('run', [job]) as Promise<MeasureTallyState>;
    answer.catch(() => undefined); // awaited below, after this thread's share
    // This thread's share in runs of a few times, between which the task reaches the worker once
    // it has started (its messages wait for this thread's event loop).
    for (let from = 0; from < mine.length; from += RUN) {
      measureTimes({ ...plan, times: mine.slice(from, from + RUN) }, original, baked, deform, lbs, reference, tally);
      onProgress?.(Math.min(2 * (from + RUN), plan.times.length), plan.times.length);
      await new Promise(setImmediate);
    }
    const state = await answer;
    streamsOf(tally).forEach((s, k) => s.merge(state.streams[k]));
    state.worse.forEach((w, k) => (tally.worse[k] += w));
  } finally {
    await owned?.terminate();
  }
  return measureResult(plan, tally);
}
