/**
 * `corskin bake`: a method (CoR, DQS, SBS, LMS, stretch, DDM, templates) baked into a standard glTF
 * that any engine plays with its own linear blend skinning — as helper joints fitted by skinning
 * decomposition (Le & Deng 2012, "Smooth Skinning Decomposition with Rigid Bones") or as sparse
 * corrective morph targets per sample — with a report of how closely LBS then plays the method.
 * @module
 */
import { BAKE_METHODS, methodInfo } from '../deformers/registry.js';
import { availableParallelism } from 'node:os';
import { CorskinError } from '../core/errors.js';
import { sampleMethod, withHalfway } from '../bake/sampling.js';
import {
  AUTO_BAKE_THREADS_FROM,
  BAKE_KINDS,
  bakeSampleTimes,
  DEFAULT_BAKE_RATE,
  DEFAULT_KEYFRAME_TOLERANCE,
  MAX_BAKE_VERTEX_SAMPLES,
  MAX_HELPERS_PER_REGION,
} from '../bake/samples.js';
import { bakeHelperJointsParallel, createHelperBakeWorkerPool } from '../io/helper-bake-parallel.js';
import type { WorkerThreadPool } from '../core/node-worker.js';
import {
  bakeMorphTargets,
  DEFAULT_BAKE_NORMAL_TOLERANCE,
  DEFAULT_BAKE_TOLERANCE,
  type MorphBakeResult,
} from '../io/morph-bake.js';
import { bakeResidualMorphs } from '../io/residual-bake.js';
import { checkNotOverwritingInput, checkOutputPath, createStaging, removeStaged } from '../io/files.js';
import { extractSkinnedModels, type SkinnedModel } from '../io/gltf.js';
import { CONSTANT_CHANNEL_TOLERANCE, collapseConstantChannels } from '../io/constant-channels.js';
import { readDocument, storeAccessorsOnce } from '../io/node-io.js';
import { describeErrors, validatorErrors } from '../io/validate.js';
import { optionalDependency } from '../io/optional.js';
import { UsageError } from './batch.js';
import type { Document } from '@gltf-transform/core';
import { removeCageRig } from '../io/cage-gltf.js';
import { removeShadowedChannels } from '../io/gltf-skeleton.js';
import { createMethodDeformer, withSimdKernels, type CliMethod } from './method-deformer.js';
import { deformLbs } from '../deformers/lbs.js';
import { posedDiagonal } from '../bake/measure.js';
import { simdBoundDeformer } from '../wasm/bound-deformer.js';
import { count, num, progress, warnIgnored, type Io } from './ui.js';
import { skinWarnings } from './skin-warnings.js';
import { checkStaged, mb, type BakedSkin } from './bake-check.js';

export { BAKE_METHODS };

/** Options of {@link bakeCommand}. */
export interface BakeCommandOptions {
  output: string;
  /** One of {@link BAKE_METHODS} (checked here: an unknown one is an error naming the file). */
  method: string;
  /** `helpers`, `morphs` or `helpers+morphs` (helpers, then the residual as morph targets). */
  as: string;
  /** helpers: helper joints per joint region (≥ 1). */
  helpers?: number;
  /** helpers: how the helpers are shared between joint regions (`HelperBakeOptions.placement`). */
  placement?: 'auto' | 'even' | 'departure';
  /** helpers: refinement rounds at most (`HelperBakeOptions.refine`). */
  refine?: number;
  /** helpers: influences per vertex in the baked file, 4 or 8. */
  influences?: number;
  /** Samples per second of each clip; default 30. */
  rate?: number;
  /** morphs: corrections within this fraction of the bounding-box diagonal are 0 (sparse). */
  tolerance?: number;
  /** morphs: normal and tangent corrections of at most this angle (radians) are 0. */
  normalTolerance?: number;
  /** morphs: one target per sample, a basis of the samples, or the smaller (`MorphBakeOptions.targets`). */
  targets?: 'auto' | 'samples' | 'basis';
  /** helpers: keyframes reproduced within this by their neighbours are dropped; 0 keeps every sample. */
  keyframeTolerance?: number;
  /** helpers: the input's channels constant within this, relative, are stored as two keys (`collapseConstantChannels`). */
  constantTolerance?: number;
  /** helpers: where the bake is held never worse than LBS (`HelperBakeOptions.guard`). */
  guard?: 'auto' | 'samples' | 'between';
  /** helpers: what the file plays beyond the clips (`HelperBakeOptions.beyondClips`). */
  beyondClips?: 'free' | 'lbs';
  /** helpers: how much farther from the method a dropped helper key may put a vertex, ÷ the posed diagonal (`HelperBakeOptions.keyTolerance`). */
  keyTolerance?: number;
  /** morphs: the targets' positions, `float` (default) or `short` (`MorphBakeOptions.positions`). */
  targetPositions?: 'float' | 'short';
  /** helpers: the helpers' rotation keys, `short` (default) or `float`. */
  rotations?: 'short' | 'float';
  /** Write with KHR_mesh_quantization (glTF-Transform's quantize). */
  quantize?: boolean;
  /** helpers: worker threads for the fit (default: every core from `AUTO_BAKE_THREADS_FROM` (sample, vertex) pairs up). */
  threads?: number;
  sigma: number;
  epsilon: number;
  stretchJoints?: string;
  twistCompensation?: boolean;
  template?: string;
  force?: boolean;
  compress?: boolean;
  /** Print the report as one JSON line ({@link BakeReport}) instead of its text. */
  json?: boolean;
}

/** Runs `corskin bake` on one file. @throws CorskinError on bad input (nothing written) */
export async function bakeCommand(io: Io, input: string, o: BakeCommandOptions): Promise<void> {
  const label = methodInfo(o.method).label; // the report names the method by its label
  const start = performance.now();
  checkOutputPath(o.output, ['.glb', '.gltf']);
  checkNotOverwritingInput(o.output, [input], !!o.force);
  // Before the work: writing the bake stores identical accessors once (glTF-Transform's `dedup`).
  await optionalDependency(import('@gltf-transform/functions'), '@gltf-transform/functions', 'corskin bake');
  // The CLI's parser checks the method, kind, helpers and influences first; these guard direct calls.
  if (!(BAKE_METHODS as readonly string[]).includes(o.method))
    throw new CorskinError(`unknown method "${o.method}" (expected ${BAKE_METHODS.join(', ')})`, input);
  if (!(BAKE_KINDS as readonly string[]).includes(o.as))
    throw new CorskinError(`--as must be helpers, morphs or helpers+morphs, got "${o.as}"`, input);
  const withHelpers = o.as !== 'morphs';
  const withMorphs = o.as !== 'helpers';
  // glTF-Transform's quantize() would take the 16-bit targets' integers for displacements: it
  // sizes the mesh's box by them (±32767) and clamps the normals scaled by the step.
  if (o.quantize && o.targetPositions === 'short' && withMorphs)
    throw new UsageError('--quantize quantizes the whole file again; it cannot go with --target-positions short');
  // glTF-Transform's quantize() stores the targets dense (16-bit normalized, which its writer
  // cannot store sparse): CesiumMan's DQS morphs 1.42 MB → 1.94 MB, and 8.6e-4 off at the samples.
  if (o.quantize && withMorphs)
    io.err(
      `corskin: warning: ${input}: --quantize stores the morph targets dense, often a larger file than their sparse floats, and no longer exact at the samples; --target-positions short keeps them sparse and within the tolerance`,
    );
  if (
    o.helpers !== undefined &&
    !(Number.isInteger(o.helpers) && o.helpers >= 1 && o.helpers <= MAX_HELPERS_PER_REGION)
  )
    throw new CorskinError(
      `--helpers must be a whole number from 1 to ${MAX_HELPERS_PER_REGION}, got ${o.helpers}`,
      input,
    );
  if (o.influences !== undefined && o.influences !== 4 && o.influences !== 8)
    throw new CorskinError(`--influences must be 4 or 8, got ${o.influences}`, input);
  const rate = o.rate ?? DEFAULT_BAKE_RATE;
  const tolerance = o.tolerance ?? DEFAULT_BAKE_TOLERANCE;
  if (!(tolerance >= 0 && Number.isFinite(tolerance)))
    throw new CorskinError(`--tolerance must be a number ≥ 0, got ${o.tolerance}`, input);
  const normalTolerance = o.normalTolerance ?? DEFAULT_BAKE_NORMAL_TOLERANCE;
  if (!(normalTolerance >= 0 && Number.isFinite(normalTolerance)))
    throw new CorskinError(`--normal-tolerance must be a number ≥ 0, got ${o.normalTolerance}`, input);
  for (const [given, flag] of [
    [o.keyframeTolerance, '--keyframe-tolerance'],
    [o.constantTolerance, '--constant-tolerance'],
    [o.keyTolerance, '--key-tolerance'],
    [o.guard, '--guard'],
    [o.beyondClips, '--beyond-clips'],
    [o.rotations, '--rotations'],
    [o.helpers, '--helpers'],
    [o.placement, '--placement'],
    [o.refine, '--refine'],
    [o.influences, '--influences'],
    [o.threads, '--threads'],
  ] as const)
    if (!withHelpers && given !== undefined) warnIgnored(io, flag, 'the helpers', 'with --as morphs', input);
  for (const [given, flag] of [
    [o.targets, '--targets'],
    [o.tolerance, '--tolerance'],
    [o.normalTolerance, '--normal-tolerance'],
    [o.targetPositions, '--target-positions'],
  ] as const)
    if (!withMorphs && given !== undefined) warnIgnored(io, flag, 'the morph targets', 'with --as helpers', input);
  const keyframeTolerance = o.keyframeTolerance ?? DEFAULT_KEYFRAME_TOLERANCE;
  if (!(keyframeTolerance >= 0 && Number.isFinite(keyframeTolerance)))
    throw new CorskinError(`--keyframe-tolerance must be a number ≥ 0, got ${o.keyframeTolerance}`, input);
  const constantTolerance = o.constantTolerance ?? CONSTANT_CHANNEL_TOLERANCE;
  if (!(constantTolerance >= 0 && constantTolerance <= 1e-3))
    throw new CorskinError(
      `--constant-tolerance must be a number from 0 to 1e-3 (larger freezes motion, not rounding), got ${o.constantTolerance}`,
      input,
    );
  const method = o.method as CliMethod;

  const document = await readDocument(input);
  const models = extractSkinnedModels(document, input);
  // The Khronos validator on the input, on a thread of its own while the bake runs: its errors
  // said before the report, and the baked file checked for new ones.
  const inputValidation = validatorErrors(input, { thread: true });
  inputValidation.catch(() => undefined); // awaited below; a bake that fails first reports its own error
  const earlier = earlierBake(document);
  if (earlier)
    io.err(
      `corskin: warning: ${input}: the input is already a corskin bake (${earlier}): this bakes the method on the baked rig, not on the original character (bake the original instead)`,
    );
  const animated = models.filter((m) => m.animations.length);
  if (!animated.length)
    throw new CorskinError(
      `no animation moves ${models.length > 1 ? 'any skin' : models[0].name}: nothing to bake (the bake samples the file's clips); nothing written`,
      input,
    );
  // Before the method is prepared: every clip's samples within the limit at this rate.
  for (const model of animated)
    for (const clip of model.animations) bakeSampleTimes(clip.duration, rate, `clip "${clip.name}"`);
  for (const model of models) {
    for (const w of model.warnings) io.err(`corskin: warning: ${input}: ${w}`);
    if (!model.animations.length)
      io.err(`corskin: warning: ${input}: ${model.name}: no animation moves it; left as is`);
  }
  const warnings = skinWarnings(io, input, models.length);
  // Per skin: with helpers, its vertices with more than the bake's influences (`over`).
  const baked: BakedSkin[] = [];
  // Per skin, with progress: the helpers first, then (after the keyframe reduction) the morphs.
  const phase = async <T>(
    model: SkinnedModel,
    kind: string,
    run: (onProgress: (d: number, t: number) => void) => T | Promise<T>,
  ): Promise<T> => {
    const bar = progress(io, `${model.name}: ${kind}`);
    try {
      return await run(bar.update);
    } catch (e) {
      if (e instanceof CorskinError && !e.file)
        throw new CorskinError(`${model.name}: ${e.message}`, input, { cause: e });
      throw e;
    } finally {
      bar.stop();
    }
  };
  let held = 0; // (sample, vertex) pairs of the samples kept for the measurement
  // One pool of fit workers for every skin that takes more than one thread.
  let pool: WorkerThreadPool | undefined;
  try {
    for (const model of animated) {
      // On the SIMD kernels where the mesh is posed unmorphed (the sampling and the measure), whole
      // frames per thread (frames shared between threads made the bake slower: `parallelSimdFactory`).
      // A helper bake poses the method's positions alone, and its normals on a second set of
      // kernels where its fit and its normals' guard ask for them (its morph targets correct
      // normals too: a bake with morphs poses both everywhere).
      const deform = await withSimdKernels(model, method, createMethodDeformer(io, document, model, method, input, { ...o, skins: models.length }), o, !withMorphs, !withMorphs); // prettier-ignore
      const lines: string[] = [];
      const entry: (typeof baked)[number] = { model, deform, lines };
      baked.push(entry);
      if (!withHelpers) continue;
      const K = o.influences ?? 4;
      const over = (entry.over = verticesOverInfluences(model, K));
      if (over) {
        const where = `where the helpers bring them closer to ${label} they get ${K} (${K === 4 ? '--influences 8 gives 8, which Babylon.js, Godot 4 and Blender play; three.js, glTFast and UnityGLTF play 4' : 'at most'}), elsewhere they keep all theirs, so the baked file may hold more than ${K}`; // prettier-ignore
        warnings.add(model.name, `vertices with more than ${K} influences; ${where}`, `${count(over, 'vertex has', 'vertices have')} more than ${K} influences; ${where}`, count(over, 'vertex', 'vertices')); // prettier-ignore
      }
      // The method and LBS at the samples, taken once: fitted by the bake and (while what is kept
      // stays within one bake's bound) compared against after the file is written.
      const lbs = (await simdBoundDeformer('lbs', [model.mesh], deformLbs, { positionsOnly: true })).deform;
      const samples = await phase(model, 'sampling', (onProgress) =>
        sampleMethod(model, deform, rate, { onProgress, between: o.guard === 'between', lbs, shared: true }),
      );
      const n = model.mesh.positions.length / 3;
      const pairs = samples.targets.length * n;
      if (held + pairs <= (o.guard === 'between' ? 2 : 1) * MAX_BAKE_VERTEX_SAMPLES) {
        entry.samples = samples;
        held += pairs;
      }
      const threads = o.threads ?? (pairs >= AUTO_BAKE_THREADS_FROM ? availableParallelism() : 1);
      if (threads > 1) pool ??= createHelperBakeWorkerPool(threads);
      entry.threads = threads;
      const r = await phase(model, 'helpers', (onProgress) =>
        bakeHelperJointsParallel(document, model, deform, {
          threads,
          pool: threads > 1 ? pool : undefined,
          samples,
          helpers: o.helpers,
          placement: o.placement,
          refine: o.refine,
          influences: o.influences as 4 | 8 | undefined,
          rotations: o.rotations,
          keyTolerance: o.keyTolerance,
          guard: o.guard,
          beyondClips: o.beyondClips,
          rate,
          lbs,
          onProgress,
          file: input,
        }),
      );
      // The bake's half-way samples, where it took them, serve the measure there too (held within
      // the bound of a bake guarded between, which holds as many: they are in memory already).
      if (r.halfway && entry.samples && held + r.halfway.targets.length * n <= 2 * MAX_BAKE_VERTEX_SAMPLES) {
        entry.samples = withHalfway(samples, r.halfway);
        held += r.halfway.targets.length * n;
      }
      entry.guard = r.guard;
      entry.helpers = { ...r, halfway: undefined }; // the half-way samples not held
      const helpersAlone = withMorphs ? ' (the helpers alone: the residual morph targets, blended linearly between samples, are measured below)' : ''; // prettier-ignore
      const guarded = r.worseHalfway ? `; held never worse than plain LBS half-way between samples too${helpersAlone} (guarded at the samples alone, the closest fit played farther from ${label} than plain LBS there at ${count(r.worseHalfway, 'half-way time')}): ${r.halfwayGivenBack === undefined ? `fitted again, guarded between${r.halfwayKeys ? ` and keyed too at the half-way times (${num(r.halfwayKeys)}) where the placements' closest fit before refinements played farther than plain LBS, or put a vertex farther than plain LBS puts it at any time` : ''}` : `${count(r.halfwayGivenBack, 'more vertex', 'more vertices')} kept their own influences`}` : ''; // prettier-ignore
      lines.push(
        r.helpers === 0
          ? `${model.name}: no helper joints added: none brought LBS closer to ${label} over the ${count(r.samples, 'sample')} at ${rate} samples/s`
          : `${model.name}: ${count(r.helpers, 'helper joint')} added (Le & Deng 2012), ${count(r.samples, 'sample')} at ${rate} samples/s, ${count(r.iterations, 'iteration')}, ${r.placement} placement${r.refined ? `, ${r.refined.rounds ? `${count(r.refined.rounds, 'refinement round')} kept (${count(r.refined.helpers, 'more helper')} where the fit left most)` : 'no refinement kept (the first round did not play closer)'}` : ''}${guarded}${r.revertedVertices ? `; of the ${count(r.activeVertices, 'vertex', 'vertices')} near the joints it fitted, ${num(r.revertedVertices)} kept their own influences (with the helpers they would have played farther from ${label} than plain LBS: over the samples, or at one${r.normalsGivenBack ? `; ${num(r.normalsGivenBack)} of them for their normals, which the helpers would have turned more than 30° farther from ${label}'s than plain LBS's` : ''})` : ''}`,
      );
    }
  } finally {
    await pool?.terminate();
  }
  // The input's constant channels (an exporter's rounding) as two keys: where a helper bake
  // saves what it adds; before the residual morphs, which then correct what it moved.
  const size = Math.min(...animated.map((m) => posedDiagonal(m, deformLbs)));
  const collapsed = withHelpers ? collapseConstantChannels(document, size, constantTolerance) : undefined;
  if (withHelpers && keyframeTolerance > 0) {
    // Keyframe reduction of every channel, the clips' own included (the helpers' alone gain
    // nothing); before the residual morphs, which then correct what it moved at the samples.
    const { resample } = await import('@gltf-transform/functions');
    await document.transform(resample({ tolerance: keyframeTolerance }));
  }
  // The skins as the helpers left them, read once for the residual morphs of every skin.
  const skins = withHelpers && withMorphs ? extractSkinnedModels(document, input) : undefined;
  if (withMorphs)
    for (const entry of baked) {
      const { model, deform, lines } = entry;
      const options = { rate, tolerance, normalTolerance, targets: o.targets, positions: o.targetPositions, file: input, skins }; // prettier-ignore
      const r = await phase(model, withHelpers ? 'residual morphs' : 'morphs', (onProgress) =>
        withHelpers
          ? bakeResidualMorphs(document, model, deform, { ...options, onProgress })
          : bakeMorphTargets(document, model, deform, { ...options, onProgress }),
      );
      // glTF keys all of a mesh's morph weights in one channel: the bake's keys the input's own
      // targets too, at their default weights, in the clips that did not animate them.
      const pinned = model.morphGroups.filter((g, k) => g.weights.length && model.animations.some((c) => !c.morphChannels?.some((ch) => ch.group === k))); // prettier-ignore
      if (r.targets && pinned.length) {
        const own = pinned.reduce((t, g) => t + g.weights.length, 0);
        const text = `the file's own ${count(own, 'morph target')} (${pinned.map((g) => g.name).join(', ')}) ${own === 1 ? 'is keyed at its default weight' : 'are keyed at their default weights'} in the clips that did not animate them (glTF keys all of a mesh's morph weights in one channel): an engine that sets them from code (expressions, lip-sync) has them overwritten while such a clip plays`; // prettier-ignore
        warnings.add(model.name, "the skins' own morph targets are keyed at their default weights in the clips that did not animate them: an engine that sets them from code has them overwritten while such a clip plays", text, count(own, 'morph target')); // prettier-ignore
      }
      if (o.targets === 'basis' && r.targets && !r.basis)
        io.err(
          `corskin: warning: ${input}: ${model.name}: no basis smaller than the samples holds every one within the tolerances${tolerance ? '' : ' (--tolerance 0)'}: one target per sample`,
        );
      entry.morphs = r;
      const what = withHelpers ? `what the helpers leave of ${label}` : label;
      lines.push(
        !r.targets
          ? `${model.name}: LBS already plays ${what} within the tolerance at every sample: no morph targets added`
          : `${model.name}: ${num(r.targets)} ${withHelpers ? 'residual ' : ''}morph targets${r.basis ? `, a basis of the ${num(r.samples)} samples' corrections (Kry, James & Pai 2002), each sample within the tolerances,` : ''} over ${model.animations.length} clip(s) at ${rate} samples/s, ${(100 * r.nonZero).toFixed(1)}% of the displacements non-zero (tolerance ${tolerance} of the diagonal): ${mb(r.bytes)} of target data (dense ${mb(r.denseBytes)})${integerPositions(r)}, ${mb(r.channelBytes)} of weights channels`,
      );
    }
  if (o.quantize) {
    const { quantize } = await import('@gltf-transform/functions');
    await document.transform(quantize());
  }
  // corskin's cages (bind-cage, templates build) are not for engines: the bake plays without them.
  for (const model of models) removeCageRig(document, model);
  // A clip that targets a node twice is invalid glTF that players play differently: the bake
  // writes the channel corskin played (the last; see extractAnimations' warning).
  removeShadowedChannels(document);
  await storeAccessorsOnce(document);
  const inputErrors = await inputValidation;
  if (inputErrors?.length)
    io.err(
      `corskin: warning: ${input}: the input has ${count(inputErrors.length, 'glTF validator error')}: ${describeErrors(inputErrors)}; the bake plays and writes what corskin reads of it`,
    );
  // Written to a staging folder beside the output, measured and validated there, and only then
  // moved into place: a stop or a failure before that leaves the output as it was.
  const stage = createStaging(o.output);
  try {
    await checkStaged(io, o, input, document, baked, inputErrors, warnings, { models, method, rate, withHelpers, stage, start, collapsed }); // prettier-ignore
  } finally {
    removeStaged(stage);
  }
}

/** The report's words on a morph bake's positions stored as integers (`--target-positions short`). */
function integerPositions(r: MorphBakeResult): string {
  if (!(r.byteTargets + r.shortTargets)) return '';
  const widths = [
    [r.byteTargets, '8 bits'],
    [r.shortTargets, '16 bits'],
    [r.targets - r.byteTargets - r.shortTargets, 'float'],
  ] as const;
  const each = widths.filter(([c]) => c > 0).map(([c, w]) => `${c === r.targets ? 'every target' : num(c)} in ${w}`);
  return `, the positions as integers (KHR_mesh_quantization): ${each.join(', ')}`;
}

/** The vertices of `model` with more than `k` non-zero weights. */
function verticesOverInfluences(model: SkinnedModel, k: number): number {
  const { weights, influences: K } = model.mesh;
  let over = 0;
  for (let i = 0; i < weights.length / K; i++) {
    let used = 0;
    for (let s = K * i; s < K * i + K; s++) if (weights[s] !== 0) used++;
    if (used > k) over++;
  }
  return over;
}

/** What an earlier `corskin bake` left in `document` (its helper joints, its corrective targets), or undefined. */
function earlierBake(document: Document): string | undefined {
  const root = document.getRoot();
  const helpers = root.listNodes().filter((n) => (n.getExtras() as { corskin?: { helperOf?: unknown } }).corskin?.helperOf !== undefined).length; // prettier-ignore
  const names = root.listMeshes().flatMap((m) => (m.getExtras() as { targetNames?: unknown }).targetNames);
  const targets = names.filter((t) => typeof t === 'string' && /^corskin (basis|sample) /.test(t)).length;
  const parts = [helpers && count(helpers, 'helper joint'), targets && count(targets, 'corrective morph target')].filter(Boolean); // prettier-ignore
  return parts.length ? parts.join(', ') : undefined;
}
