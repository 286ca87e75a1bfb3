/**
 * How well a baked file (helper joints or corrective morph targets, played by plain linear blend
 * skinning) reproduces the deformer it was baked from, at the bake's samples.
 *
 * @module
 */
import { samplePose } from '../core/animation.js';
import { CorskinError } from '../core/errors.js';
import { boundingBoxDiagonal, type SkinnedMesh } from '../core/mesh.js';
import { applyMorphTargets, sampleMorphWeights } from '../core/morph.js';
import { nearOriginSkinningMatrices, restPose, skinningMatrices } from '../core/pose.js';
import type { Deformer } from '../deformers/contract.js';
import { deformLbs as deformLbsJs } from '../deformers/lbs.js';
import type { SkinnedModel } from '../io/gltf.js';
import { bakeCheckTimes, bakeSampleTimes, DEFAULT_BAKE_RATE, bakeSkinningPair } from './samples.js';
import type { MethodSamples } from './sampling.js';
import { stressPose } from '../evaluation/stress-pose.js';
import { maxAndP99, maxAndP99Within, MaxAndP99Stream } from './percentile.js';

/**
 * The bounding-box diagonal of `model` as `deform` poses it at the start of its first clip (the
 * bind-space diagonal when it has no clip or that pose is degenerate): the character's size in
 * the units it plays in, which differ from its stored positions' when the armature is scaled
 * (a mesh stored in centimetres under an armature scaled 0.01 plays in metres).
 */
export function posedDiagonal(model: MeasuredSkin, deform: Deformer): number {
  const { mesh, skeleton, morphGroups } = model;
  const clip = model.animations[0];
  const bind = boundingBoxDiagonal(mesh.positions) || 1;
  if (!clip) return bind;
  const S = skinningMatrices(skeleton, samplePose(skeleton, clip, 0));
  const morphed = applyMorphTargets(mesh, morphGroups, sampleMorphWeights(morphGroups, clip.morphChannels ?? [], 0));
  const out = { positions: new Float32Array(mesh.positions.length) };
  deform(morphed, S, out);
  const d = boundingBoxDiagonal(out.positions);
  return d > 0 && Number.isFinite(d) ? d : bind;
}

/**
 * Half the spacing of 32-bit floats at the largest coordinate of `model`, in bind space ÷ its
 * bind-space diagonal or as the bake samples it posed at its first clip's start
 * (`nearOriginSkinningMatrices`: about its first joint) ÷ the posed diagonal, whichever is coarser:
 * how finely its positions, and so the methods' results and the baked file, are resolved. About
 * 3e-8 for a mesh stored about its origin; CesiumMan's vertices stored 10,000 units from theirs
 * resolve only about 3e-4.
 */
export function float32Resolution(model: SkinnedModel, deform: Deformer): number {
  const { mesh, skeleton } = model;
  const clip = model.animations[0];
  const S = nearOriginSkinningMatrices(skeleton, clip ? samplePose(skeleton, clip, 0) : restPose(skeleton), boundingBoxDiagonal(mesh.positions)); // prettier-ignore
  const out = { positions: new Float32Array(mesh.positions.length) };
  deform(mesh, S, out);
  // Stored and posed, each against its own size (a mesh may be stored in other units than it plays in).
  const resolution = (positions: Float32Array) => {
    const diagonal = boundingBoxDiagonal(positions);
    return diagonal > 0 ? (positions.reduce((r, x) => Math.max(r, Math.abs(x)), 0) * 2 ** -24) / diagonal : 0;
  };
  return Math.max(resolution(out.positions), resolution(mesh.positions));
}

/** What {@link measureBake} found; distances ÷ the diagonal of the original as the method poses it ({@link posedDiagonal}). */
export interface BakeMeasure {
  /** Baked file by LBS against the deformer on the original: the largest per-vertex distance. */
  max: number;
  /** Baked file by LBS against the deformer: the 99th percentile over every (sample, vertex). */
  p99: number;
  /** Plain LBS of the original against the deformer: the largest per-vertex distance. */
  lbsMax: number;
  /** Plain LBS of the original against the deformer: the 99th percentile. */
  lbsP99: number;
  /** Samples measured (over all clips). */
  samples: number;
  /**
   * Measured half-way between the samples too (`between`): there, as {@link max}, {@link p99},
   * {@link lbsMax}, {@link lbsP99} and {@link worseSamples} at the samples, over `times` times.
   */
  halfway?: {
    /** Baked file by LBS against the deformer: the largest per-vertex distance. */
    max: number;
    /** Baked file by LBS against the deformer: the 99th percentile over every (time, vertex). */
    p99: number;
    /** Plain LBS of the original against the deformer: the largest per-vertex distance. */
    lbsMax: number;
    /** Plain LBS of the original against the deformer: the 99th percentile. */
    lbsP99: number;
    /** Half-way times measured. */
    times: number;
    /** Half-way times at which the baked file is farther than plain LBS by more than the margin. */
    worseSamples: number;
  };
  /**
   * Samples at which the baked file's largest or 99th-percentile distance (over the vertices)
   * is above plain LBS's there by more than {@link NEVER_WORSE_MARGIN}.
   */
  worseSamples: number;
  /** The bounding-box diagonal the distances are divided by ({@link posedDiagonal}, posed units). */
  diagonal: number;
  /**
   * Where the baked skin has more than 4 influences: the baked file played with only its first
   * set (JOINTS_0/WEIGHTS_0, renormalised) — as engines that skin 4 influences play it, three.js's
   * stock GLTFLoader among them — against the deformer, as {@link max} and {@link p99}; the
   * original played by LBS in such an engine (its own first set where it has more than 4
   * influences, else as plain LBS), as {@link lbsMax} and {@link lbsP99}; and the samples where
   * the first is farther than the second, as {@link worseSamples}.
   */
  firstSet?: {
    /** The baked file's first set against the deformer: the largest per-vertex distance. */
    max: number;
    /** The baked file's first set against the deformer: the 99th percentile. */
    p99: number;
    /** The original as a 4-influence engine plays it against the deformer: the largest distance. */
    lbsMax: number;
    /** The original as a 4-influence engine plays it against the deformer: the 99th percentile. */
    lbsP99: number;
    /** Samples at which the first is farther than the second by more than the margin. */
    worseSamples: number;
  };
}

/** Options of {@link measureBake}. */
export interface MeasureOptions {
  /** Called after each time measured with (done, total). */
  onProgress?: (done: number, total: number) => void;
  /** The method and plain LBS on the original, already sampled (`sampleMethod`). */
  reference?: MethodSamples;
  /** Measure half-way between the samples too (default: as `reference`, else false). */
  between?: boolean;
  /** Linear blend skinning of both skins (default `deformLbs`). */
  lbs?: Deformer;
}

/**
 * How far above plain LBS a bake's largest or 99th-percentile distance at a sample may be, ÷ the
 * posed diagonal ({@link BakeMeasure.worseSamples}; the helper bake holds it, `never-worse.ts`).
 * Not 0: at a sample where plain LBS is already within 1e-4 of the diagonal of the method (a
 * pose near the bind pose), helpers fitted over all the samples are rarely as close, and holding
 * them to it gives back most of what they gain elsewhere (ShibaInu, CoR, 10 samples/s: 76% of the
 * p99 distance removed at this margin, 16% at 0).
 */
export const NEVER_WORSE_MARGIN = 1e-4;

/**
 * Plays `baked` (the skin as the baked file holds it: its joints, weights and morph targets) by
 * linear blend skinning, and `original` by `deform` and by plain LBS, at every sample of every clip
 * of `original` (the times {@link bakeSampleTimes} gives for `rate`, or with `between` the check
 * times `bakeCheckTimes` gives, half-way between them too; the baked clip of the same name), and
 * compares the posed positions vertex by vertex.
 * @param original the skin before the bake (with whatever `deform` needs, e.g. its CoRs)
 * @param baked the same skin read back from the baked file (same vertices in the same order)
 * @param deform the deformer baked, for `original.mesh`
 * @param rate samples per second, as baked; default 30
 * @param options `onProgress` is called after each sample with (done, total); `reference`, the
 *   method and plain LBS on `original` already sampled at `rate` (what the bake fitted,
 *   `sampleMethod`), is used instead of posing them again where it holds the time (a reference at
 *   the sample times serves the sample times of a measure half-way between too); `between`
 *   measures half-way between the samples too (default: as `reference`, else false); `lbs` plays
 *   both skins by linear blend skinning (default `deformLbs`; the bake passes the SIMD kernels
 *   bound to both meshes, `simdBoundDeformer`)
 * @throws CorskinError when the vertex counts differ, a clip is missing from the baked skin, or
 *   `reference` holds other samples
 */
export function measureBake(
  original: SkinnedModel,
  baked: SkinnedModel,
  deform: Deformer,
  rate = DEFAULT_BAKE_RATE,
  options: MeasureOptions = {},
): BakeMeasure {
  const plan = measurePlan(original, baked, deform, rate, options);
  const tally = measureTally(plan, original, baked);
  for (const done of measureSteps(plan, original, baked, deform, options.lbs ?? deformLbsJs, options.reference, tally))
    options.onProgress?.(done, plan.times.length);
  return measureResult(plan, tally);
}

/** A skin as the bake's measure plays it (`measureSteps`): plain data, for a worker thread. */
export type MeasuredSkin = Pick<SkinnedModel, 'name' | 'mesh' | 'skeleton' | 'animations' | 'morphGroups'>;

/** What {@link measureBake} plays, in order: each time's clips, time and reference sample. */
export interface MeasurePlan {
  /** Vertices. */
  n: number;
  /** The posed diagonal the distances are divided by ({@link posedDiagonal}). */
  diagonal: number;
  /** The bind-space diagonal `bakeSkinningPair` takes. */
  extent: number;
  /** Sample times (the even check times with `between`) over every clip. */
  samplesTotal: number;
  /** All times: the samples and, with `between`, the half-way times. */
  total: number;
  /**
   * Per time: its clip in the original and in the baked skin (indices into their `animations`),
   * the time (seconds), whether it is half-way between two samples, and the reference's sample
   * there (an index into its arrays; −1 where the method is posed here).
   */
  times: { clip: number; other: number; t: number; half: boolean; reference: number }[];
}

/**
 * The times {@link measureBake} plays, checked.
 * @throws as {@link measureBake}
 */
export function measurePlan(
  original: MeasuredSkin,
  baked: MeasuredSkin,
  deform: Deformer,
  rate: number,
  options: Pick<MeasureOptions, 'reference' | 'between'>,
): MeasurePlan {
  const { reference } = options;
  const between = options.between ?? reference?.between ?? false;
  const n = original.mesh.positions.length / 3;
  if (baked.mesh.positions.length !== 3 * n)
    throw new CorskinError(
      `${original.name}: the baked skin has ${baked.mesh.positions.length / 3} vertices, the original ${n}`,
    );
  const clips = original.animations.map((clip) => {
    const other = baked.animations.findIndex((c) =>
      clip.source !== undefined ? c.source === clip.source : c.name === clip.name,
    );
    if (other < 0) throw new CorskinError(`${original.name}: clip "${clip.name}" is not in the baked file`);
    return { other, times: (between ? bakeCheckTimes : bakeSampleTimes)(clip.duration, rate, `clip "${clip.name}"`) }; // prettier-ignore
  });
  const total = clips.reduce((s, c) => s + c.times.length, 0);
  // The sample times (the even check times with `between`), then the half-way times.
  const samplesTotal = between ? (total + clips.length) / 2 : total;
  // The reference's sample at check s of a clip: all of them, or the even ones (its samples) when
  // it holds the sample times alone and the measure goes half-way between too.
  const halves = !!reference && between && !reference.between;
  const referenceTotal = halves ? samplesTotal : total;
  if (
    reference &&
    (reference.rate !== rate || (reference.between && !between) || reference.targets.length !== referenceTotal)
  )
    throw new CorskinError(
      `${original.name}: the reference holds ${reference.targets.length} samples at ${reference.rate} samples/s, the measure takes ${referenceTotal} at ${rate}`,
    );
  const times: MeasurePlan['times'] = [];
  let r = 0;
  clips.forEach(({ other, times: at }, clip) =>
    at.forEach((t, k) => {
      const half = between && k % 2 === 1;
      times.push({ clip, other, t, half, reference: reference && (!halves || !half) ? r++ : -1 });
    }),
  );
  const diagonal = posedDiagonal(original, deform);
  const extent = boundingBoxDiagonal(original.mesh.positions); // one for both skeletons (nearOriginSkinningMatrices)
  return { n, diagonal, extent, samplesTotal, total, times };
}

/**
 * {@link measureSteps}' running figures: the distances' streams (at the sample times and
 * half-way; of the baked file and of plain LBS; of the first sets where measured) and the times
 * farther than plain LBS (at the samples, half-way, by the first sets).
 */
export interface MeasureTally {
  baked: MaxAndP99Stream[];
  lbs: MaxAndP99Stream[];
  four?: MaxAndP99Stream;
  fourLbs?: MaxAndP99Stream;
  worse: Int32Array;
}

/** An empty {@link MeasureTally} for `plan`, measuring the first sets where `baked` has more than 4 influences. */
export function measureTally(plan: MeasurePlan, original: MeasuredSkin, baked: MeasuredSkin): MeasureTally {
  const { n, samplesTotal, total } = plan;
  const streams = () => [new MaxAndP99Stream(samplesTotal * n), new MaxAndP99Stream((total - samplesTotal) * n)];
  const four = baked.mesh.influences > 4;
  return {
    baked: streams(),
    lbs: streams(),
    ...(four && { four: new MaxAndP99Stream(samplesTotal * n) }),
    ...(four && original.mesh.influences > 4 && { fourLbs: new MaxAndP99Stream(samplesTotal * n) }),
    worse: new Int32Array(3),
  };
}

/**
 * Plays the times of `plan` ({@link measurePlan}; all of them, or those a caller sliced) into
 * `tally`, one time a step: `baked` by `lbs`, `original` by `deform` and by `lbs` — or, where the
 * plan names its sample, the method and LBS as `reference` holds them there. Yields the times
 * done after each (a caller reports progress, or looks at its messages between steps:
 * `measureBakeParallel`).
 */
export function* measureSteps(
  plan: MeasurePlan,
  original: MeasuredSkin,
  baked: MeasuredSkin,
  deform: Deformer,
  deformLbs: Deformer,
  reference: Pick<MethodSamples, 'targets' | 'lbsSquared'> | undefined,
  tally: MeasureTally,
): Generator<number, void, void> {
  const { n, diagonal, extent } = plan;
  // What an engine that skins 4 influences plays: the baked file's first set, and the original's
  // (its own first set where it has more than 4, else as plain LBS).
  const four = tally.four && firstInfluenceSet(baked.mesh);
  const fourOriginal = tally.fourLbs && firstInfluenceSet(original.mesh);
  const [method, lbs, played, lbsFour] = [0, 1, 2, 3].map(() => ({
    positions: new Float32Array(3 * n) as Float32Array,
  }));
  const posed = [method.positions, lbs.positions];
  const [bakedAt, lbsAt, fourAt, fourLbsAt] = [0, 1, 2, 3].map(() => new Float32Array(n));
  /** The distances of positions P to the method's at this time, into `out`. */
  const distances = (out: Float32Array, P: Float32Array) => {
    scaledDistances(out, P, method.positions, 1 / diagonal);
    return out;
  };
  for (const [done, { clip: c, other: o, t, half, reference: r }] of plan.times.entries()) {
    const [clip, other] = [original.animations[c], baked.animations[o]];
    const h = half ? 1 : 0;
    // The original and the baked file at this time (one move for both), the original morphed once, where needed.
    let m: SkinnedMesh | undefined;
    const [S, B] = bakeSkinningPair(original.skeleton, samplePose(original.skeleton, clip, t), baked.skeleton, samplePose(baked.skeleton, other, t), extent); // prettier-ignore
    const morphed = () => (m ??= applyMorphTargets(original.mesh, original.morphGroups, sampleMorphWeights(original.morphGroups, clip.morphChannels ?? [], t))); // prettier-ignore
    const bakedWeights = sampleMorphWeights(baked.morphGroups, other.morphChannels ?? [], t);
    const morphedBaked = applyMorphTargets(baked.mesh, baked.morphGroups, bakedWeights);
    let lbsFigures: [number, number];
    if (reference && r >= 0) {
      method.positions = reference.targets[r];
      const squared = reference.lbsSquared[r];
      for (let i = 0; i < n; i++) lbsAt[i] = Math.sqrt(squared[i]) * (1 / diagonal); // as scaledDistances
      lbsFigures = maxAndP99(lbsAt);
    } else {
      // Into arrays of its own (not the reference's).
      [method.positions, lbs.positions] = posed;
      deform(morphed(), S, method);
      deformLbs(morphed(), S, lbs);
      lbsFigures = maxAndP99(distances(lbsAt, lbs.positions));
    }
    tally.lbs[h].push(lbsAt);
    deformLbs(morphedBaked, B, played);
    tally.baked[h].push(distances(bakedAt, played.positions));
    if (!withinMargin(bakedAt, lbsFigures)) tally.worse[h]++;
    if (four && !half) {
      let inputFigures = lbsFigures;
      if (fourOriginal) {
        deformLbs({ ...morphed(), ...fourOriginal }, S, lbsFour);
        tally.fourLbs!.push(distances(fourLbsAt, lbsFour.positions));
        inputFigures = maxAndP99(fourLbsAt);
      }
      deformLbs({ ...morphedBaked, ...four }, B, played);
      tally.four!.push(distances(fourAt, played.positions));
      if (!withinMargin(fourAt, inputFigures)) tally.worse[2]++;
    }
    yield done + 1;
  }
}

/** The figures of a {@link MeasureTally} that every time of `plan` went into. */
export function measureResult(plan: MeasurePlan, tally: MeasureTally): BakeMeasure {
  const { samplesTotal, total, diagonal } = plan;
  const [max, p99] = tally.baked[0].result();
  const [lbsMax, lbsP99] = tally.lbs[0].result();
  const [worseSamples, halfWorse, fourWorse] = tally.worse;
  let firstSet: BakeMeasure['firstSet'];
  if (tally.four) {
    const [[fMax, fP99], [rMax, rP99]] = [tally.four.result(), tally.fourLbs ? tally.fourLbs.result() : [lbsMax, lbsP99]]; // prettier-ignore
    firstSet = { max: fMax, p99: fP99, lbsMax: rMax, lbsP99: rP99, worseSamples: fourWorse };
  }
  let halfway: BakeMeasure['halfway'];
  if (total > samplesTotal) {
    const [[hMax, hP99], [hLbsMax, hLbsP99]] = [tally.baked[1].result(), tally.lbs[1].result()];
    halfway = { max: hMax, p99: hP99, lbsMax: hLbsMax, lbsP99: hLbsP99, times: total - samplesTotal, worseSamples: halfWorse }; // prettier-ignore
  }
  return { max, p99, lbsMax, lbsP99, samples: samplesTotal, worseSamples, diagonal, ...(firstSet && { firstSet }), ...(halfway && { halfway }) }; // prettier-ignore
}

/** `out[i]` = the distance between points i of `P` and `M` (3 floats each) × `scale`. */
function scaledDistances(out: Float32Array, P: Float32Array, M: Float32Array, scale: number): void {
  for (let v = 0, i = 0; v < out.length; v++, i += 3) {
    const dx = P[i] - M[i];
    const dy = P[i + 1] - M[i + 1];
    const dz = P[i + 2] - M[i + 2];
    out[v] = Math.sqrt(dx * dx + dy * dy + dz * dz) * scale;
  }
}

/** What {@link measureBeyondClips} found; distances ÷ the posed diagonal ({@link posedDiagonal}). */
export interface BeyondClipsMeasure {
  /** The stress pose's amplitude measured at (`stressPose`). */
  amplitude: number;
  /** Baked file by LBS, its helpers at rest on their joints, against the method: max and p99. */
  max: number;
  /** Baked file by LBS against the method: the 99th percentile over the vertices. */
  p99: number;
  /** Plain LBS of the original against the method there. */
  lbsMax: number;
  /** Plain LBS of the original against the method there: the 99th percentile. */
  lbsP99: number;
}

/**
 * How a baked file plays at a pose that no clip holds: the evaluation's stress pose
 * (`stressPose`, every limb bent and twisted at once) at `amplitude`, the original joints turned
 * alike in both skins and the baked file's helpers (`Skeleton.helpers`) left at rest on the joints
 * they hang from, as a player leaves them under an animation that does not key them; the
 * bind-space meshes without morph targets. Compared with `deform` on the original, next to plain
 * LBS there.
 * @param lbs linear blend skinning of both skins (default `deformLbs`)
 * @throws CorskinError when the vertex counts differ
 */
export function measureBeyondClips(
  original: SkinnedModel,
  baked: SkinnedModel,
  deform: Deformer,
  amplitude = 0.5,
  lbs: Deformer = deformLbsJs,
): BeyondClipsMeasure {
  const n = original.mesh.positions.length / 3;
  if (baked.mesh.positions.length !== 3 * n)
    throw new CorskinError(`${original.name}: the baked skin has ${baked.mesh.positions.length / 3} vertices, the original ${n}`); // prettier-ignore
  const diagonal = posedDiagonal(original, deform);
  const extent = boundingBoxDiagonal(original.mesh.positions);
  const [S, B] = bakeSkinningPair(original.skeleton, stressPose(original.skeleton, amplitude), baked.skeleton, stressPose(baked.skeleton, amplitude), extent); // prettier-ignore
  const [method, plain, played] = [0, 1, 2].map(() => ({ positions: new Float32Array(3 * n) }));
  deform(original.mesh, S, method);
  lbs(original.mesh, S, plain);
  lbs(baked.mesh, B, played);
  const errors = new Float32Array(n);
  scaledDistances(errors, played.positions, method.positions, 1 / diagonal);
  const [max, p99] = maxAndP99(errors);
  scaledDistances(errors, plain.positions, method.positions, 1 / diagonal);
  const [lbsMax, lbsP99] = maxAndP99(errors);
  return { amplitude, max, p99, lbsMax, lbsP99 };
}

/**
 * A mesh's first 4 influences per vertex (its first JOINTS/WEIGHTS set), renormalised to sum to 1
 * as three.js's `SkinnedMesh.normalizeSkinWeights` does (a vertex with none there: all on its
 * first joint) — what an engine that skins 4 influences plays of a file with more.
 */
function firstInfluenceSet(mesh: SkinnedMesh): Pick<SkinnedMesh, 'influences' | 'joints' | 'weights'> {
  const K = mesh.influences;
  const n = mesh.weights.length / K;
  const joints = new Uint32Array(4 * n);
  const weights = new Float32Array(4 * n);
  for (let v = 0; v < n; v++) {
    let sum = 0;
    for (let c = 0; c < 4; c++) sum += mesh.weights[K * v + c];
    for (let c = 0; c < 4; c++) {
      joints[4 * v + c] = mesh.joints[K * v + c];
      weights[4 * v + c] = sum > 0 ? mesh.weights[K * v + c] / sum : c === 0 ? 1 : 0;
    }
  }
  return { influences: 4, joints, weights };
}

/** Whether a sample's distances have their largest and 99th percentile within {@link NEVER_WORSE_MARGIN} of the reference's. */
function withinMargin(at: Float32Array, [refMax, refP99]: [number, number]): boolean {
  return maxAndP99Within(at, refMax + NEVER_WORSE_MARGIN, refP99 + NEVER_WORSE_MARGIN);
}
