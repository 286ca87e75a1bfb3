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
  measureSteps,
  measureTally,
  type BakeMeasure,
  type MeasuredSkin,
  type MeasureOptions,
  type MeasurePlan,
  type MeasureTally,
} from '../bake/measure.js';
import type { MaxAndP99StreamState } from '../bake/percentile.js';
import { DEFAULT_BAKE_RATE, PARALLEL_MEASURE_FROM } from '../bake/samples.js';
import type { MethodSamples } from '../bake/sampling.js';
import { startWorkerPool, type WorkerThreadPool } from '../core/node-worker.js';
import { simdBoundDeformer } from '../wasm/bound-deformer.js';
import type { SkinnedModel } from './gltf.js';

/** Times this thread measures between two looks at its messages (about 30 ms on Ybot). */
const RUN = 16;

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
 * Whether {@link measureBakeParallel} shares a skin's measure against `reference` between two
 * threads: more than one asked, every time in the reference (sampled half-way between the
 * samples too, `between`), its arrays in SharedArrayBuffers, and at least `from` (time, vertex)
 * pairs ({@link PARALLEL_MEASURE_FROM} by default).
 * @param n the skin's vertices
 */
export function sharesMeasure(
  reference: MethodSamples | undefined,
  n: number,
  threads: number,
  from = PARALLEL_MEASURE_FROM,
): boolean {
  const shared = (a: ArrayBufferView) => a.buffer instanceof SharedArrayBuffer;
  return (
    threads > 1 &&
    !!reference?.between &&
    reference.targets.length * n >= from &&
    reference.targets.every(shared) &&
    reference.lbsSquared.every(shared)
  );
}

/**
 * `measureBake` with the times shared between this thread and one worker thread (`pool`, one
 * started by {@link createMeasureWorkerPool}, else started here) where {@link sharesMeasure}
 * (`threads`, `parallelFrom`); otherwise on this thread alone. The same result either way: both
 * skins played by linear blend skinning on the SIMD kernels ({@link simdLbs}, prepared on each
 * thread; each keeps them where its first frame agrees with JavaScript's, as `simdBoundDeformer`
 * checks, which they do but where a mesh's kernels fail), so `measureBake` with those as `lbs`
 * gives the same.
 * @param options as `measureBake`'s — `lbs`, where given, from {@link simdLbs} on the same skins
 *   (made here otherwise); `onProgress` estimates the worker's share as this thread's — and
 *   `threads` (1 or more; the times split in two), `pool`, `parallelFrom`
 * @throws as `measureBake`; Error when the worker thread fails (the pool is then stopped)
 */
export async function measureBakeParallel(
  original: SkinnedModel,
  baked: SkinnedModel,
  deform: Deformer,
  rate = DEFAULT_BAKE_RATE,
  options: MeasureOptions & { threads?: number; pool?: WorkerThreadPool; parallelFrom?: number } = {},
): Promise<BakeMeasure> {
  const { reference, onProgress } = options;
  const plan = measurePlan(original, baked, deform, rate, options);
  const lbs = options.lbs ?? (await simdLbs(original, baked));
  const tally = measureTally(plan, original, baked);
  const split =
    sharesMeasure(reference, plan.n, options.threads ?? 1, options.parallelFrom) &&
    plan.times.every((x) => x.reference >= 0);
  if (!split) {
    for (const done of measureSteps(plan, original, baked, deform, lbs, reference, tally))
      onProgress?.(done, plan.times.length);
    return measureResult(plan, tally);
  }
  const half = Math.floor(plan.times.length / 2);
  const [mine, theirs] = [plan.times.slice(0, half), plan.times.slice(half)];
  // What the worker plays: the skins' positions and influences, morph targets and clips.
  const skin = ({ name, mesh, skeleton, animations, morphGroups }: MeasuredSkin): MeasuredSkin => ({
    name,
    mesh: { ...mesh, normals: undefined, tangents: undefined, centersOfRotation: undefined, methodData: undefined },
    skeleton,
    animations,
    morphGroups,
  });
  const job: MeasureJob = {
    plan: { ...plan, times: theirs.map((x, k) => ({ ...x, reference: k })) },
    original: skin(original),
    baked: skin(baked),
    reference: {
      targets: theirs.map((x) => reference!.targets[x.reference]),
      lbsSquared: theirs.map((x) => reference!.lbsSquared[x.reference]),
    },
  };
  const owned = options.pool ? undefined : createMeasureWorkerPool();
  const { pool } = options.pool ?? owned!;
  try {
    const answer = pool.exec('run', [job]) as Promise<MeasureTallyState>;
    answer.catch(() => undefined); // awaited below, after this thread's share
    // This thread's share in runs of a few times, between which the task reaches the worker once
    // it has started (its messages wait for this thread's event loop).
    for (const done of measureSteps({ ...plan, times: mine }, original, baked, deform, lbs, reference, tally)) {
      if (done % RUN && done < mine.length) continue;
      onProgress?.(Math.min(2 * done, plan.times.length), plan.times.length);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const state = await answer;
    streamsOf(tally).forEach((s, k) => s.merge(state.streams[k]));
    state.worse.forEach((w, k) => (tally.worse[k] += w));
    onProgress?.(plan.times.length, plan.times.length);
  } catch (e) {
    await pool.terminate(true).catch(() => undefined); // its share is not waited for
    throw e;
  } finally {
    await owned?.terminate();
  }
  return measureResult(plan, tally);
}
