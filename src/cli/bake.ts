/**
 * `corskin bake`: a method (CoR, DQS, SBS, LMS, stretch, DDM, templates) baked into a standard glTF
 * that any engine plays with its own linear blend skinning — as helper joints fitted by skinning
 * decomposition (Le & Deng 2012, "Smooth Skinning Decomposition with Rigid Bones") or as sparse
 * corrective morph targets per sample — with a report of how closely LBS then plays the method.
 * @module
 */
import { BAKE_METHODS } from '../deformers/registry.js';
import { statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { availableParallelism } from 'node:os';
import { CorskinError } from '../core/errors.js';
import type { Deformer } from '../deformers/contract.js';
import {
  measureBake,
  measureBeyondClips,
  NEVER_WORSE_MARGIN,
  type BakeMeasure,
  type BeyondClipsMeasure,
} from '../bake/measure.js';
import { sampleMethod, withHalfway, type MethodSamples } from '../bake/sampling.js';
import {
  AUTO_BAKE_THREADS_FROM,
  BAKE_KINDS,
  DEFAULT_BAKE_RATE,
  DEFAULT_KEYFRAME_TOLERANCE,
  MAX_BAKE_VERTEX_SAMPLES,
  MAX_HELPERS_PER_REGION,
} from '../bake/samples.js';
import { bakeHelperJointsParallel, createHelperBakeWorkerPool } from '../io/helper-bake-parallel.js';
import type { WorkerThreadPool } from '../core/node-worker.js';
import { bakeMorphTargets, DEFAULT_BAKE_NORMAL_TOLERANCE, DEFAULT_BAKE_TOLERANCE } from '../io/morph-bake.js';
import { bakeResidualMorphs } from '../io/residual-bake.js';
import {
  checkNotOverwritingInput,
  checkOutputPath,
  createStaging,
  inputFiles,
  keepStaged,
  removeStaged,
} from '../io/files.js';
import { extractSkinnedModels, type SkinnedModel } from '../io/gltf.js';
import { readDocument, writeDocument } from '../io/node-io.js';
import { describeErrors, validatorErrors } from '../io/validate.js';
import { UsageError } from './batch.js';
import type { ValidatorMessage } from 'gltf-validator';
import type { Document } from '@gltf-transform/core';
import { removeCageRig } from '../io/cage-gltf.js';
import { removeShadowedChannels } from '../io/gltf-skeleton.js';
import { createMethodDeformer, withSimdKernels, type CliMethod } from './method-deformer.js';
import { deformLbs } from '../deformers/lbs.js';
import { simdBoundDeformer } from '../wasm/bound-deformer.js';
import { progress, type Io } from './ui.js';
import { skinWarnings } from './skin-warnings.js';

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
}

/** Runs `corskin bake` on one file. @throws CorskinError on bad input (nothing written) */
export async function bakeCommand(io: Io, input: string, o: BakeCommandOptions): Promise<void> {
  const start = performance.now();
  checkOutputPath(o.output, ['.glb', '.gltf']);
  checkNotOverwritingInput(o.output, [input], !!o.force);
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
    [o.keyTolerance, '--key-tolerance'],
    [o.guard, '--guard'],
    [o.beyondClips, '--beyond-clips'],
    [o.rotations, '--rotations'],
    [o.helpers, '--helpers'],
    [o.placement, '--placement'],
    [o.influences, '--influences'],
    [o.threads, '--threads'],
  ] as const)
    if (!withHelpers && given !== undefined)
      io.err(`corskin: warning: ${input}: ${flag} applies to the helpers; ignored with --as morphs`);
  for (const [given, flag] of [
    [o.targets, '--targets'],
    [o.tolerance, '--tolerance'],
    [o.normalTolerance, '--normal-tolerance'],
    [o.targetPositions, '--target-positions'],
  ] as const)
    if (!withMorphs && given !== undefined)
      io.err(`corskin: warning: ${flag} applies to the morph targets; ignored with --as helpers`);
  const keyframeTolerance = o.keyframeTolerance ?? DEFAULT_KEYFRAME_TOLERANCE;
  if (!(keyframeTolerance >= 0 && Number.isFinite(keyframeTolerance)))
    throw new CorskinError(`--keyframe-tolerance must be a number ≥ 0, got ${o.keyframeTolerance}`, input);
  const method = o.method as CliMethod;

  const document = await readDocument(input);
  const models = extractSkinnedModels(document, input);
  // The Khronos validator on the input: its errors said now, and the baked file checked for new ones.
  const inputErrors = await validatorErrors(input);
  if (inputErrors?.length)
    io.err(
      `corskin: warning: ${input}: the input has ${count(inputErrors.length, 'glTF validator error')}: ${describeErrors(inputErrors)}; the bake plays and writes what corskin reads of it`,
    );
  const animated = models.filter((m) => m.animations.length);
  if (!animated.length)
    throw new CorskinError(
      `no animation moves ${models.length > 1 ? 'any skin' : models[0].name}: nothing to bake (the bake samples the file's clips); nothing written`,
      input,
    );
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
      // On the SIMD kernels where the mesh is posed unmorphed (the sampling and the measure).
      const deform = await withSimdKernels(
        model,
        method,
        createMethodDeformer(io, document, model, method, input, o),
        o,
      );
      const lines: string[] = [];
      const entry: (typeof baked)[number] = { model, deform, lines };
      baked.push(entry);
      if (!withHelpers) continue;
      const K = o.influences ?? 4;
      const over = (entry.over = verticesOverInfluences(model, K));
      if (over) {
        const where = `where the helpers bring them closer to ${o.method.toUpperCase()} they get ${K} (${K === 4 ? '--influences 8 gives 8, which Babylon.js, Godot 4 and Blender play; three.js, glTFast and UnityGLTF play 4' : 'at most'}), elsewhere they keep all theirs, so the baked file may hold more than ${K}`; // prettier-ignore
        warnings.add(model.name, `vertices with more than ${K} influences; ${where}`, `${count(over, 'vertex has', 'vertices have')} more than ${K} influences; ${where}`, count(over, 'vertex', 'vertices')); // prettier-ignore
      }
      // The method and LBS at the samples, taken once: fitted by the bake and (while what is kept
      // stays within one bake's bound) compared against after the file is written.
      const lbs = (await simdBoundDeformer('lbs', [model.mesh], deformLbs)).deform;
      const samples = await phase(model, 'sampling', (onProgress) =>
        sampleMethod(model, deform, rate, { onProgress, between: o.guard === 'between', lbs }),
      );
      const n = model.mesh.positions.length / 3;
      const pairs = samples.targets.length * n;
      if (held + pairs <= (o.guard === 'between' ? 2 : 1) * MAX_BAKE_VERTEX_SAMPLES) {
        entry.samples = samples;
        held += pairs;
      }
      const threads = o.threads ?? (pairs >= AUTO_BAKE_THREADS_FROM ? availableParallelism() : 1);
      if (threads > 1) pool ??= createHelperBakeWorkerPool(threads);
      const r = await phase(model, 'helpers', (onProgress) =>
        bakeHelperJointsParallel(document, model, deform, {
          threads,
          pool: threads > 1 ? pool : undefined,
          samples,
          helpers: o.helpers,
          placement: o.placement,
          influences: o.influences as 4 | 8 | undefined,
          rotations: o.rotations,
          keyTolerance: o.keyTolerance,
          guard: o.guard,
          beyondClips: o.beyondClips,
          rate,
          onProgress,
          file: input,
        }),
      );
      // The bake's half-way samples, where it took them, serve the measure there too.
      if (r.halfway && entry.samples && held + r.halfway.targets.length * n <= MAX_BAKE_VERTEX_SAMPLES) {
        entry.samples = withHalfway(samples, r.halfway);
        held += r.halfway.targets.length * n;
      }
      entry.guard = r.guard;
      const guarded = r.worseHalfway ? `; held never worse than plain LBS half-way between samples too (guarded at the samples alone, the closest fit played farther from ${o.method.toUpperCase()} than plain LBS there at ${count(r.worseHalfway, 'half-way time')}): ${r.halfwayGivenBack === undefined ? 'fitted again, guarded between' : `${count(r.halfwayGivenBack, 'more vertex', 'more vertices')} kept their own influences`}` : ''; // prettier-ignore
      lines.push(
        `${model.name}: ${count(r.helpers, 'helper joint')} added (Le & Deng 2012), ${r.samples} samples at ${rate} samples/s, ${count(r.iterations, 'iteration')}${r.helpers ? `, ${r.placement} placement` : ''}${guarded}${r.revertedVertices ? `; of the ${count(r.activeVertices, 'vertex', 'vertices')} near the joints it fitted, ${r.revertedVertices.toLocaleString('en-US')} kept their own influences (with the helpers they would have played farther from ${o.method.toUpperCase()} than plain LBS: over the samples, or at one)` : ''}`,
      );
    }
  } finally {
    await pool?.terminate();
  }
  if (withHelpers && keyframeTolerance > 0) {
    // Keyframe reduction of every channel, the clips' own included (the helpers' alone gain
    // nothing); before the residual morphs, which then correct what it moved at the samples.
    const { resample } = await import('@gltf-transform/functions');
    await document.transform(resample({ tolerance: keyframeTolerance }));
  }
  // The skins as the helpers left them, read once for the residual morphs of every skin.
  const skins = withHelpers && withMorphs ? extractSkinnedModels(document, input) : undefined;
  if (withMorphs)
    for (const { model, deform, lines } of baked) {
      const options = { rate, tolerance, normalTolerance, targets: o.targets, positions: o.targetPositions, file: input, skins }; // prettier-ignore
      const r = await phase(model, withHelpers ? 'residual morphs' : 'morphs', (onProgress) =>
        withHelpers
          ? bakeResidualMorphs(document, model, deform, { ...options, onProgress })
          : bakeMorphTargets(document, model, deform, { ...options, onProgress }),
      );
      if (o.targets === 'basis' && r.targets && !r.basis)
        io.err(
          `corskin: warning: ${input}: ${model.name}: no basis smaller than the samples holds every one within the tolerances${tolerance ? '' : ' (--tolerance 0)'}: one target per sample`,
        );
      const what = withHelpers ? `what the helpers leave of ${o.method.toUpperCase()}` : o.method.toUpperCase();
      lines.push(
        !r.targets
          ? `${model.name}: LBS already plays ${what} within the tolerance at every sample: no morph targets added`
          : `${model.name}: ${r.targets} ${withHelpers ? 'residual ' : ''}morph targets${r.basis ? `, a basis of the ${r.samples} samples' corrections (Kry, James & Pai 2002), each sample within the tolerances,` : ''} over ${model.animations.length} clip(s) at ${rate} samples/s, ${(100 * r.nonZero).toFixed(1)}% of the displacements non-zero (tolerance ${tolerance} of the diagonal): ${mb(r.bytes)} of target data (dense ${mb(r.denseBytes)})${r.shortTargets ? `, the positions of ${r.shortTargets === r.targets ? 'every target' : `${r.shortTargets} of them`} as 16-bit integers (KHR_mesh_quantization)` : ''}, ${mb(r.channelBytes)} of weights channels`,
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
  // Written to a staging folder beside the output, measured and validated there, and only then
  // moved into place: a stop or a failure before that leaves the output as it was.
  const stage = createStaging(o.output);
  try {
    await checkStaged(io, o, input, document, baked, inputErrors, warnings, { models, method, rate, withHelpers, stage, start }); // prettier-ignore
  } finally {
    removeStaged(stage);
  }
}

/** A skin being baked: its deformer by the method, the report's lines, its samples while needed. */
interface BakedSkin {
  model: SkinnedModel;
  deform: Deformer;
  lines: string[];
  samples?: MethodSamples;
  /** With helpers: its vertices with more than the bake's influences. */
  over?: number;
  guard?: 'samples' | 'between';
}

/** What {@link checkStaged} takes of {@link bakeCommand}'s state. */
interface StagedBake {
  models: SkinnedModel[];
  method: CliMethod;
  rate: number;
  withHelpers: boolean;
  stage: string;
  /** When the command started (`performance.now()`). */
  start: number;
}

/**
 * Writes the bake into its staging folder, reads it back and reports how closely it plays the
 * method, validates it, and moves it into place.
 * @throws CorskinError when the baked file has validator errors the input does not have (nothing kept)
 */
async function checkStaged(
  io: Io,
  o: BakeCommandOptions,
  input: string,
  document: Document,
  baked: BakedSkin[],
  inputErrors: ValidatorMessage[] | undefined,
  warnings: ReturnType<typeof skinWarnings>,
  { models, method, rate, withHelpers, stage, start }: StagedBake,
): Promise<void> {
  const staged = join(stage, basename(o.output));
  const files = await writeDocument(document, staged, { compress: o.compress, inputs: [input], force: true });

  // The written file, read back and played by LBS, against the method on the original — or, where
  // its codec reordered or welded the vertices (Draco's edgebreaker), the bake before compression.
  const written = extractSkinnedModels(await readDocument(staged), o.output);
  let unwritten: SkinnedModel[] | undefined; // the bake before compression, read where needed
  const measures: BakeMeasure[] = [];
  const beyond: (BeyondClipsMeasure | undefined)[] = [];
  for (const { model, deform, samples } of baked) {
    let other = written.find((m) => m.name === model.name) ?? written[models.indexOf(model)];
    if (other.mesh.positions.length !== model.mesh.positions.length) {
      io.err(
        `corskin: note: ${o.output}: ${model.name}: its compression welded ${(model.mesh.positions.length - other.mesh.positions.length) / 3} vertices and reordered them: measured before compression (--no-compress writes the file as measured)`,
      );
      unwritten ??= extractSkinnedModels(document, o.output);
      other = unwritten.find((m) => m.skin === model.skin) ?? other;
    }
    const bar = progress(io, `${model.name}: measuring`);
    try {
      const lbs = (await simdBoundDeformer('lbs', [model.mesh, other.mesh], deformLbs)).deform;
      measures.push(measureBake(model, other, deform, rate, { onProgress: bar.update, reference: samples, between: withHelpers, lbs })); // prettier-ignore
      beyond.push(withHelpers ? measureBeyondClips(model, other, deform, 0.5, lbs) : undefined);
      baked[measures.length - 1].samples = undefined; // not needed any more
    } finally {
      bar.stop();
    }
  }
  const e = (x: number) => x.toExponential(1);
  const percent = (x: number) => (Math.round(1000 * x) / 10 || 0).toFixed(1); // never "-0.0"
  baked.forEach(({ lines }, k) => {
    const m = measures[k];
    for (const line of lines) io.out(line);
    const M = method.toUpperCase();
    io.out(
      `  at the ${m.samples} samples, per-vertex distance ÷ bounding-box diagonal of the posed mesh: baked file by LBS vs ${M} max ${e(m.max)}, p99 ${e(m.p99)}; plain LBS vs ${M} max ${e(m.lbsMax)}, p99 ${e(m.lbsP99)}`,
    );
    // The share of LBS's p99 distance removed (where LBS is not already within the tolerance).
    const gap = m.lbsP99 > NEVER_WORSE_MARGIN ? 1 - m.p99 / m.lbsP99 : undefined;
    if (gap !== undefined)
      io.out(`  removes ${percent(gap)}% of plain LBS's p99 distance to ${M}; max ${(m.max / m.lbsMax).toFixed(2)} of LBS's`); // prettier-ignore
    const name = baked[k].model.name;
    const morphs = o.as === 'helpers' ? '; --as helpers+morphs reproduces the method at the samples' : '';
    // The warnings' common words.
    const farther = `the baked file plays farther from ${M} than`;
    const margin = `by more than ${NEVER_WORSE_MARGIN} of the diagonal`;
    const overVertices = `(its max or p99 over the vertices, ${margin})`;
    if (m.worseSamples)
      warnings.add(name, `${farther} plain LBS does at some samples ${overVertices}${morphs}`, `at ${m.worseSamples} of ${m.samples} samples ${farther} plain LBS does ${overVertices}${morphs}`, `${m.worseSamples} of ${m.samples} samples`); // prettier-ignore
    const h = m.halfway;
    if (h) {
      io.out(`  half-way between the samples (where a player at another frame rate interpolates the keys), at ${h.times} times: baked file by LBS vs ${M} max ${e(h.max)}, p99 ${e(h.p99)}; plain LBS vs ${M} max ${e(h.lbsMax)}, p99 ${e(h.lbsP99)}${h.lbsP99 > NEVER_WORSE_MARGIN ? `; removes ${percent(1 - h.p99 / h.lbsP99)}% of it, max ${(h.max / h.lbsMax).toFixed(2)} of LBS's` : ''}`); // prettier-ignore
      if (h.worseSamples) {
        const hold = baked[k].guard === 'between' ? '' : o.guard === 'samples' ? ': --guard auto (the default) or between holds the bake there too' : ': --guard between holds the bake there too'; // prettier-ignore
        const rest = `${farther} plain LBS does (${margin})${hold}${morphs}`;
        warnings.add(name, `half-way between samples, at some times, ${rest}`, `half-way between samples, at ${h.worseSamples} of ${h.times} times, ${rest}`, `${h.worseSamples} of ${h.times} times`); // prettier-ignore
      }
    }
    const b = beyond[k];
    if (b) {
      io.out(`  beyond the clips (the evaluation's stress pose at half amplitude, the helpers at rest on their joints, as under an animation that does not key them): baked file by LBS vs ${M} max ${e(b.max)}, p99 ${e(b.p99)}; plain LBS vs ${M} max ${e(b.lbsMax)}, p99 ${e(b.lbsP99)}`); // prettier-ignore
      if (!(b.max <= b.lbsMax + NEVER_WORSE_MARGIN && b.p99 <= b.lbsP99 + NEVER_WORSE_MARGIN)) {
        const text = `beyond the clips ${farther} plain LBS does (at the half stress pose, its max or p99 over the vertices ${margin})${o.beyondClips !== 'lbs' ? ': --beyond-clips lbs plays the input\'s LBS there' : baked[k].over ? ` (its vertices with more than ${o.influences ?? 4} influences were fitted with their ${o.influences ?? 4} heaviest, and play those there)` : ''}`; // prettier-ignore
        warnings.add(name, text, text);
      }
    }
    if (m.firstSet) {
      const f = m.firstSet;
      io.out(
        `  in an engine that skins 4 influences (three.js's stock GLTFLoader: the first set, renormalised): baked file vs ${M} max ${e(f.max)}, p99 ${e(f.p99)}; the input there max ${e(f.lbsMax)}, p99 ${e(f.lbsP99)}`,
      );
      if (f.worseSamples) {
        const why =
          withHelpers && o.influences === 8
            ? ': bake with --influences 4 for such engines'
            : withHelpers
              ? ' (vertices that kept their own influences have more than 4)'
              : ' (the corrections are for all of its influences)';
        const where = `in an engine that skins 4 influences ${farther} the input does there`;
        warnings.add(name, `${where} at some samples ${overVertices}${why}`, `${where} at ${f.worseSamples} of ${m.samples} samples ${overVertices}${why}`, `${f.worseSamples} of ${m.samples} samples`); // prettier-ignore
      }
    }
    // One kind for several skins, worst included: "could not" is none of it removed.
    const lessThanHalf = `the bake removes less than half of plain LBS's p99 distance to ${M}${morphs}`;
    const removed = Math.round(100 * (gap ?? 0)) || 0;
    if (gap !== undefined && gap < 0.005)
      warnings.add(name, lessThanHalf, `the bake could not bring LBS closer to ${M}${morphs}`, 'removes none'); // prettier-ignore
    else if (gap !== undefined && gap < 0.5)
      warnings.add(name, lessThanHalf, `the bake removes less than half of plain LBS's p99 distance to ${M} (${removed}%)${morphs}`, `removes ${removed}%`); // prettier-ignore
  });
  warnings.flush();
  if (inputErrors) {
    // The codes whose count grew (the bake adds no error of its own: it fails if it did).
    let outputErrors: ValidatorMessage[] = [];
    try {
      outputErrors = (await validatorErrors(staged)) ?? [];
    } catch (e) {
      io.err(
        `corskin: warning: ${o.output}: the glTF validator could not read the baked file (${(e as Error).message})`,
      );
    }
    const inInput = new Map<string, number>();
    for (const e of inputErrors) inInput.set(e.code, (inInput.get(e.code) ?? 0) + 1);
    const added = outputErrors.filter((e) => {
      const left = inInput.get(e.code) ?? 0;
      inInput.set(e.code, left - 1);
      return left <= 0;
    });
    if (added.length)
      // An invalid file is not a bake: not kept (the measurements above stand).
      throw new CorskinError(
        `the baked file had ${count(added.length, 'glTF validator error')} the input does not have: ${describeErrors(added)}; nothing written (a bake adds no error: please report it)`,
        o.output,
      );
    else if (inputErrors.length)
      io.out(
        outputErrors.length
          ? `glTF validator: the baked file keeps ${count(outputErrors.length, 'error')} of the input's: ${describeErrors(outputErrors)}`
          : `glTF validator: the baked file has none of the input's errors`,
      );
  } else io.err('corskin: note: gltf-validator is not installed: the input and the baked file were not validated');
  // A .gltf's buffers and images beside it: they must not replace the input's.
  const folder = dirname(resolve(o.output));
  for (const f of files.slice(1)) checkNotOverwritingInput(join(folder, basename(f)), [input], !!o.force);
  const before = inputFiles(input).reduce((t, f) => t + fileSize(f), 0);
  const after = files.reduce((t, f) => t + fileSize(f), 0);
  keepStaged(stage, files, folder);
  io.out(
    `wrote ${o.output}: ${mb(after)} (input ${mb(before)}, ${(after / before).toFixed(2)}×)${o.quantize ? ', KHR_mesh_quantization' : ''} in ${((performance.now() - start) / 1000).toFixed(2)} s`,
  );
}

/** Bytes as MB with 2 decimals. */
function mb(bytes: number): string {
  return `${(bytes / 1e6).toFixed(2)} MB`;
}

/** Size of a file in bytes (0 when unreadable). */
function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** `n` things, singular or plural, with thousands separators: "1 helper joint", "1,270 vertices". */
const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

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
