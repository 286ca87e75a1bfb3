/**
 * Any deformer — CoR, DQS, SBS, LMS, stretch, Direct Delta Mush, the skinning templates (Ju, Zhou,
 * van de Panne, Cohen-Or, Neumann, "Reusable Skinning Templates Using Cage-based Deformations",
 * SIGGRAPH Asia 2008) — baked into a standard glTF any engine plays with its own linear blend
 * skinning (no corskin code needed to play it).
 *
 * Choice: **per-clip baked corrective targets**. Every animation clip is sampled at `rate` frames
 * per second; at each sample the deformation is written as a morph target of the skinned
 * mesh — the bind-space correction d that the file's own linear blend skinning turns into the
 * deformer's result (LBS(x + d) = M (x + d) = deform(x), M the vertex's blended skinning matrix,
 * inverted per vertex; x the mesh as the file's own morph targets shape it at that time) — and
 * each clip gets a `weights` channel (LINEAR) that puts weight 1 on its sample at each sample
 * time, so consecutive corrections blend in between. The engine then computes (morph, then skin)
 * exactly the deformer's result at the samples, and the linear blend of neighbouring samples'
 * corrections in between. Normals and tangents are corrected likewise (a NORMAL and, where the
 * mesh has tangents, a TANGENT displacement per target that the blended skinning matrix turns
 * into the deformer's direction).
 *
 * As a basis (`targets: 'basis'`, or `'auto'` when the file is smaller): instead of one target
 * per sample, a few fields that every sample's correction is a weighted sum of, each sample still
 * within the tolerances at every vertex (`bake/morph-basis.ts`; Kry, James & Pai, "EigenSkin",
 * SCA 2002); each key of a clip's weights channel then holds its sample's weights of the fields
 * (in [0, 1], with a constant offset target), and blending two samples' weights blends their
 * corrections as before.
 *
 * Sparse targets: where the deformer and LBS agree (vertices bound to one joint, poses near the
 * bind pose) the correction is float noise. Every sample is held within `tolerance` × the
 * bounding-box diagonal of the mesh as the deformer poses it at the start of the first clip
 * (`posedDiagonal`: the units it plays in), in posed space (|M_3 d|, M_3 the linear part of M):
 * 80% of it for what the targets leave out ({@link FLOAT_SHARE} is left to a player's float32
 * arithmetic), shared between the corrections set to exactly 0 and, with `positions: 'short'`, the
 * integers' rounding, vertex by vertex. A direction correction e with |e| ≤ `normalTolerance` × |m|
 * (m the direction before skinning; about the angle, in radians, it turns the skinned direction
 * by) is set to 0 too. The target accessors are then written as glTF sparse accessors (indices of
 * the non-zero vertices and their values) where that is smaller.
 *
 * Files with morph targets of their own keep them: the baked targets come after them, and each
 * clip's weights channel carries the file's weights first — its own weights channel on that node
 * (replaced; LINEAR channels are kept exactly, their keys joining the bake's samples; STEP and
 * CUBICSPLINE ones are sampled at those keys and played LINEAR between them), else the node's
 * default weights.
 *
 * Size, dense (`sparse: false, tolerance: 0`): one POSITION and one NORMAL displacement per
 * sample, 24 bytes per vertex (CesiumMan: 3,273 vertices, a 2 s clip at 30 fps → 61 targets,
 * 4.8 MB; 12 bytes and half that without normals, 36 with tangents); halving the rate halves it
 * and doubles the time between exact samples. Sparse: 12 bytes plus a 2- or 4-byte index per
 * non-zero displacement; 16-bit positions take 6 bytes sparse and 8 dense (padded to 4), 8-bit
 * positions 3 sparse and 4 dense.
 *
 * @module
 */
import type { Document, Mesh } from '@gltf-transform/core';
import { KHRMeshQuantization } from '@gltf-transform/extensions';
import { samplePose } from '../core/animation.js';
import { applyMorphTargets, sampleMorphWeights } from '../core/morph.js';
import { CorskinError } from '../core/errors.js';
import { boundingBoxDiagonal } from '../core/mesh.js';
import type { Deformer } from '../deformers/contract.js';
import type { SkinnedModel } from './gltf.js';
import { accessorBytes } from './gltf-write.js';
import { clipAnimation } from './gltf-skeleton.js';
import { renormalizeWeightAccessors, sortInfluencesHeaviestFirst } from './gltf-weights.js';
import { posedDiagonal } from '../bake/measure.js';
import { bakeSampleTimes, checkBakeSize, DEFAULT_BAKE_RATE } from '../bake/samples.js';
import { nearOriginSkinningMatrices } from '../core/pose.js';
import { correctionBasis } from '../bake/morph-basis.js';
import { correction, type CorrectionBounds } from '../bake/morph-correction.js';
import { quantizeTargets } from '../bake/target-quantization.js';

/** Options of {@link bakeMorphTargets}. */
export interface MorphBakeOptions {
  /** Samples per second of each clip; default 30. */
  rate?: number;
  /**
   * Correct the normals, and tangents where the mesh has them, too (a NORMAL and a TANGENT
   * displacement per target, each as large as the POSITION one); default true.
   */
  normals?: boolean;
  /**
   * How far from the deformer's result the file may play at the samples, as a fraction of the
   * posed bounding-box diagonal: position corrections are set to 0, and 16-bit positions rounded,
   * within it (see the module comment); default {@link DEFAULT_BAKE_TOLERANCE}; 0 keeps every
   * non-zero correction.
   */
  tolerance?: number;
  /**
   * Direction (normal, tangent) corrections of at most this length, relative to the direction's
   * (≈ radians), are set to 0; default {@link DEFAULT_BAKE_NORMAL_TOLERANCE}.
   */
  normalTolerance?: number;
  /** Write the target accessors as glTF sparse accessors where that is smaller; default true. */
  sparse?: boolean;
  /**
   * The targets: `'samples'`, one per sample; `'basis'`, a few fields that every sample is a
   * weighted sum of, each sample reproduced within the tolerances at every vertex
   * (`bake/morph-basis.ts`); `'auto'` (default), whichever file is smaller. With a tolerance of 0,
   * one per sample.
   */
  targets?: 'auto' | 'samples' | 'basis';
  /**
   * How the targets' position displacements are stored: `'float'` (default; core glTF) or
   * `'short'` — integers, each target scaled to its largest value, the scale carried by its
   * weights (KHR_mesh_quantization, then required; see `quantizeTargets`): 8 bits where the
   * rounding holds every sample within what the basis left each vertex, else 16, else float.
   */
  positions?: 'float' | 'short';
  /** Called after each sample with (samples done, samples in all). */
  onProgress?: (done: number, total: number) => void;
  /** Stops the bake between samples (throws the signal's reason). */
  signal?: AbortSignal;
  /** File named in error messages. */
  file?: string;
}

/** Options of {@link bakeTemplateClips}: dense, every correction kept, as before sparse targets. */
export type TemplateBakeOptions = Pick<MorphBakeOptions, 'rate' | 'normals' | 'file'>;

/**
 * Default {@link MorphBakeOptions.tolerance}: 1e-5 of the bounding-box diagonal. It was 5e-6 for
 * the corrections dropped alone, the rest of 1e-5 left to rounding.
 */
export const DEFAULT_BAKE_TOLERANCE = 1e-5;
/**
 * Share of the tolerance left to a player's float32 arithmetic and its reading of the helpers'
 * 16-bit rotation keys (three.js added up to 8e-7 of the diagonal to corskin's playback of
 * CesiumMan's bakes; over 1e-6 to its CoR helpers+morphs bake with 16-bit target positions once
 * the weight update was exact, when this share was 0.1): the targets hold the rest.
 */
const FLOAT_SHARE = 0.2;
/**
 * Share of the targets' part of the tolerance that a basis is fitted to (`BasisOptions.fit`):
 * its sparsification then takes values up to that part itself, less the 16-bit positions'
 * rounding where they are short.
 */
const FIT_SHARE = 0.95;
/**
 * Default {@link MorphBakeOptions.normalTolerance}: 4e-3 (≈ 0.23°, half the step of a normal
 * stored in 8 bits, as KHR_mesh_quantization allows). It was 1e-4 before the basis bake, then
 * 1e-3; 4e-3 takes CesiumMan's CoR helpers+morphs bake (16-bit positions) from 1.07 to 1.00 MB.
 */
export const DEFAULT_BAKE_NORMAL_TOLERANCE = 4e-3;

/** What a bake wrote. */
export interface MorphBakeResult {
  /** Morph targets added: one per sample, or the basis's fields. */
  targets: number;
  /** Samples over all clips. */
  samples: number;
  /** Whether the targets are a basis of the samples' corrections ({@link MorphBakeOptions.targets}). */
  basis: boolean;
  /** Bytes of target data as stored (values, and the indices of sparse accessors). */
  bytes: number;
  /** Targets whose positions are stored as 16-bit integers ({@link MorphBakeOptions.positions}). */
  shortTargets: number;
  /** Targets whose positions are stored as 8-bit integers ({@link MorphBakeOptions.positions}). */
  byteTargets: number;
  /** Bytes of the baked targets' weights in the clips' weights channels (the file's own weights not counted). */
  channelBytes: number;
  /** Bytes the same targets take dense (float32 positions, normals and tangents of every vertex). */
  denseBytes: number;
  /** Fraction of the per-vertex displacements (positions, normals, tangents) that are not 0. */
  nonZero: number;
}

/** What {@link bakeTemplateClips} wrote. */
export type TemplateBakeResult = MorphBakeResult;

/**
 * Bakes the skinning templates' deformer `deform` over every clip as dense morph targets: {@link
 * bakeMorphTargets} with `sparse: false, tolerance: 0, normalTolerance: 0` (what `corskin
 * templates build --bake` writes).
 * @throws as {@link bakeMorphTargets}
 */
export function bakeTemplateClips(
  document: Document,
  model: SkinnedModel,
  deform: Deformer,
  options: TemplateBakeOptions = {},
): TemplateBakeResult {
  return bakeMorphTargets(document, model, deform, { ...options, sparse: false, tolerance: 0, normalTolerance: 0 });
}

/**
 * Bakes `deform` (any {@link Deformer} for `model.mesh`: CoR, DQS, DDM, the templates, …) over
 * every animation clip of `model` into morph targets and `weights` channels of its meshes (see
 * the module comment), so that any engine's linear blend skinning plays the deformer's result,
 * exactly (within `tolerance` of the bounding-box diagonal, plus float32 rounding) at the samples.
 * Positions in the targets are bind-space displacements, asset units.
 * @throws CorskinError when the model has no animation, a clip is not in the document, the rate
 *   is not a positive number, or a clip or the whole bake would take more samples than
 *   `MAX_BAKE_SAMPLES` / `MAX_BAKE_VERTEX_SAMPLES` allow (`bake/samples.ts`)
 * @throws RangeError when a tolerance is negative
 * @throws the signal's reason when `signal` aborts
 */
export function bakeMorphTargets(
  document: Document,
  model: SkinnedModel,
  deform: Deformer,
  options: MorphBakeOptions = {},
): MorphBakeResult {
  const rate = options.rate ?? DEFAULT_BAKE_RATE;
  const tolerance = options.tolerance ?? DEFAULT_BAKE_TOLERANCE;
  const normalTolerance = options.normalTolerance ?? DEFAULT_BAKE_NORMAL_TOLERANCE;
  if (!(tolerance >= 0 && normalTolerance >= 0))
    throw new RangeError(`the bake tolerances must be numbers ≥ 0, got ${tolerance} and ${normalTolerance}`);
  const sparse = options.sparse ?? true;
  const { mesh, skeleton, parts, morphGroups } = model;
  if (!model.animations.length)
    throw new CorskinError(`${model.name}: no animation to bake (the bake samples the file's clips)`, options.file);
  const n = mesh.positions.length / 3;
  const K = mesh.influences;
  const withNormals = !!mesh.normals && options.normals !== false;
  const withTangents = withNormals && !!mesh.tangents;
  // The directions corrected, in the order `correction` returns them.
  const corrected: ('NORMAL' | 'TANGENT')[] = withTangents ? ['NORMAL', 'TANGENT'] : withNormals ? ['NORMAL'] : [];
  const out = {
    positions: new Float32Array(3 * n),
    normals: withNormals ? new Float32Array(3 * n) : undefined,
    tangents: withTangents ? new Float32Array(4 * n) : undefined,
  };
  const limits = { position: (1 - FLOAT_SHARE) * tolerance * posedDiagonal(model, deform), direction: normalTolerance }; // prettier-ignore
  const extent = boundingBoxDiagonal(mesh.positions);
  const sampleTimes = model.animations.map((clip) => bakeSampleTimes(clip.duration, rate, `clip "${clip.name}"`));
  const total = sampleTimes.reduce((s, times) => s + times.length, 0);
  checkBakeSize(total, n);
  // Engines play weights that sum to 1 (three.js renormalises them on loading; glTF asks for
  // it): the corrections are for those, and the file gets them (below).
  const played = exactlyNormalized(mesh.weights, K);
  const bounds: CorrectionBounds = { gain: new Float32Array(n), length: corrected.map(() => new Float32Array(n).fill(Infinity)) }; // prettier-ignore
  let done = 0;
  // Samples of every clip: its times and the corrections at each.
  const clips = model.animations.map((clip, c) => {
    const times = sampleTimes[c];
    const corrections = Array.from(times, (t) => {
      const S = nearOriginSkinningMatrices(skeleton, samplePose(skeleton, clip, t), extent);
      const weights = sampleMorphWeights(morphGroups, clip.morphChannels ?? [], t);
      const morphed = applyMorphTargets(mesh, morphGroups, weights);
      deform(morphed, S, out);
      // Engines skin the summed (not renormalised) normals and tangents.
      const summed = withNormals ? applyMorphTargets(mesh, morphGroups, weights, false) : mesh;
      const directions = [
        ...(withNormals ? [{ rest: summed.normals!, posed: out.normals!, stride: 3 }] : []),
        ...(withTangents ? [{ rest: summed.tangents!, posed: out.tangents!, stride: 4 }] : []),
      ];
      const c = correction(morphed.positions, mesh.joints, played, K, S, out.positions, directions, limits, bounds);
      options.onProgress?.(++done, total);
      options.signal?.throwIfAborted();
      return c;
    });
    return { clip, times, corrections };
  });
  const primitives = parts.map((p) => p.primitive);
  renormalizeWeightAccessors(document, 0, primitives);
  // Heaviest first: an engine that skins 4 influences (three.js) plays the 4 heaviest.
  sortInfluencesHeaviestFirst(primitives);
  const samples = clips.flatMap((c) => c.corrections);
  const N = samples.length;
  // A skin the method moves as LBS does (every vertex on one joint, say) needs no targets.
  if (samples.every((d) => d.under.every((u) => u.every(Boolean))))
    return {
      targets: 0,
      samples: N,
      basis: false,
      bytes: 0,
      shortTargets: 0,
      byteTargets: 0,
      channelBytes: 0,
      denseBytes: 0,
      nonZero: 0,
    };
  const buffer = document.getRoot().listBuffers()[0] ?? document.createBuffer();
  // The corrected directions each primitive has (the merged mesh's may come from another).
  const semantics = parts.map((part) =>
    corrected
      .map((semantic, slot) => ({ semantic, slot }))
      .filter(({ semantic }) => part.primitive.getAttribute(semantic)),
  );
  /**
   * A VEC3 target accessor of `size`-byte components with `nonZero` of a part's vertices non-zero:
   * whether it is written sparse, and its bytes (an estimate: the writer takes the index size
   * from the largest index of all sparse accessors, `io/node-io.ts`).
   */
  const targetAccessor = (nonZero: number, count: number, size: number) => {
    const bytes = accessorBytes(count, nonZero, 3 * size, true, count < 65535 ? 2 : 4);
    const asSparse = sparse && bytes.sparse < bytes.dense;
    return { asSparse, bytes: asSparse ? bytes.sparse : bytes.dense };
  };
  /** Position components' bytes (an estimate with 16-bit positions: some targets may stay float). */
  const positionSize = options.positions === 'short' ? 2 : 4;
  /** Bytes of targets whose array `a` has `nonZero(a, from, to)` non-zero vertices in [from, to), on every part. */
  const targetBytes = (nonZero: (a: number, from: number, to: number) => number) =>
    parts.reduce((b, part, i) => {
      const [from, to] = [part.vertexOffset, part.vertexOffset + part.vertexCount];
      return b + [0, ...semantics[i].map(({ slot }) => slot + 1)].reduce((c, a) => c + targetAccessor(nonZero(a, from, to), part.vertexCount, a ? 4 : positionSize).bytes, 0); // prettier-ignore
    }, 0);
  const keyCounts = clips.map(({ clip, times }) => clipKeys(clip, times).length);
  /** Bytes of the weights channels with `T` baked targets. */
  const channelBytes = (T: number) => model.meshNodes.length * keyCounts.reduce((b, keys) => b + 4 * keys * T, 0);
  // The targets: one per sample, or a basis of the samples' corrections when that is smaller.
  const mode = options.targets ?? 'auto';
  const canBasis = mode !== 'samples' && limits.position > 0 && (!corrected.length || limits.direction > 0);
  const basis = canBasis
    ? correctionBasis(
        samples.map((d) => d.arrays),
        [bounds.gain.map((g) => limits.position / g), ...bounds.length.map((l) => l.map((x) => limits.direction * x))],
        N - 1,
        () => options.signal?.throwIfAborted(),
        { fit: FIT_SHARE, shortPositions: options.positions === 'short' },
      )
    : undefined;
  const perSampleBytes = () =>
    samples.reduce((b, d) => b + targetBytes((a, from, to) => countNonZero(d.arrays[a], d.under[a], from, to)), 0) + channelBytes(N); // prettier-ignore
  const useBasis =
    !!basis?.targets.length &&
    (mode === 'basis' ||
      basis.targets.reduce((b, t) => b + targetBytes((a, from, to) => countNonZero(t[a], undefined, from, to)), 0) + channelBytes(basis.targets.length) < perSampleBytes()); // prettier-ignore
  const T = useBasis ? basis.targets.length : N;
  // One target per sample: the corrections within the tolerances set to 0, once, in place.
  if (!useBasis) for (const d of samples) d.arrays.forEach((x, a) => zeroUnder(x, d.under[a]));
  /** Target t's arrays (positions, then each corrected direction), full length. */
  const targetArrays = (t: number): readonly Float32Array[] => (useBasis ? basis.targets[t] : samples[t].arrays);
  const names = useBasis
    ? Array.from({ length: T }, (_, k) => `corskin basis ${k} of ${N} samples`)
    : clips.flatMap((c) => Array.from(c.times, (t) => `${c.clip.name} at ${t.toFixed(4)} s`)).map((at, k) => `corskin sample ${k}: ${at}`); // prettier-ignore
  // What the rounding may add at each vertex: the tolerance less what the basis left there (one
  // target per sample leaves nothing where it keeps a vertex, and rounds nothing where it drops it);
  // made only for 16-bit positions.
  const roundingBudget = () =>
    useBasis ? bounds.gain.map((g, v) => Math.max(0, limits.position - g * basis.positionResidual[v])) : new Float32Array(n).fill(limits.position); // prettier-ignore
  // Per target, the bits and step of its integer positions (0: float).
  const { steps, bits } =
    options.positions === 'short'
      ? quantizeTargets(Array.from({ length: T }, (_, t) => targetArrays(t)[0]), useBasis ? basis.weights : undefined, bounds.gain, roundingBudget()) // prettier-ignore
      : { steps: new Float64Array(T), bits: new Uint8Array(T) };
  const [shortTargets, byteTargets] = [16, 8].map((b) => bits.reduce((c, x) => c + (x === b ? 1 : 0), 0));
  if (shortTargets + byteTargets) document.createExtension(KHRMeshQuantization).setRequired(true);
  // Each target's weights are multiplied by its step (1 for a float target).
  const weightScale = Array.from(steps, (q) => q || 1);
  /**
   * Target t's arrays as stored: positions as integers of the step, directions divided by it.
   * Not normalized integers, which would keep the weights near 1 instead of near the step:
   * glTF-Transform 4.5 writes a sparse normalized accessor's values decoded, then truncated to
   * integers (its sparse writer reads them with getElement), and three.js read them wrongly before
   * r169. Made target by target (a copy of them all would double a large bake's memory).
   */
  const storedArrays = (t: number): readonly (Float32Array | Int16Array | Int8Array)[] => {
    const [q, arrays] = [steps[t], targetArrays(t)];
    if (!q) return arrays;
    const integers = bits[t] === 8 ? Int8Array.from(arrays[0], (x) => Math.round(x / q)) : Int16Array.from(arrays[0], (x) => Math.round(x / q)); // prettier-ignore
    return [integers, ...arrays.slice(1).map((x) => x.map((y) => y / q))];
  };
  // Targets on every primitive of the skin (its slice of each), after its own.
  const meshes = new Set<Mesh>();
  for (const [i, part] of parts.entries()) {
    const own = part.primitive.listTargets();
    for (const { semantic } of semantics[i])
      if (own.some((t) => !t.getAttribute(semantic))) {
        // Every target gets the displacement (engines expect all or none): zeros for the file's.
        const zero = document.createAccessor().setType('VEC3').setArray(new Float32Array(3 * part.vertexCount)).setBuffer(buffer); // prettier-ignore
        for (const t of own) if (!t.getAttribute(semantic)) t.setAttribute(semantic, zero);
      }
    for (const parent of part.primitive.listParents()) if (parent.propertyType === 'Mesh') meshes.add(parent as Mesh);
  }
  let [stored, kept, all] = [0, 0, 0];
  /** Part `part`'s slice of the 3-vectors `data` as a target accessor. */
  const vec3 = (data: Float32Array | Int16Array | Int8Array, part: (typeof parts)[number]) => {
    const slice = data.slice(3 * part.vertexOffset, 3 * (part.vertexOffset + part.vertexCount));
    const nonZero = countNonZero(slice, undefined, 0, part.vertexCount);
    const { asSparse, bytes } = targetAccessor(nonZero, part.vertexCount, slice.BYTES_PER_ELEMENT);
    stored += bytes;
    [kept, all] = [kept + nonZero, all + part.vertexCount];
    return document.createAccessor().setType('VEC3').setArray(slice).setSparse(asSparse).setBuffer(buffer);
  };
  for (let t = 0; t < T; t++) {
    const arrays = storedArrays(t);
    for (const [i, part] of parts.entries()) {
      // Named, uniquely (extras.targetNames): Blender 3.4's importer fails on a file whose
      // targets are named "" (its shape keys are looked up by name).
      const target = document.createPrimitiveTarget(names[t]).setAttribute('POSITION', vec3(arrays[0], part));
      for (const { semantic, slot } of semantics[i]) target.setAttribute(semantic, vec3(arrays[slot + 1], part));
      part.primitive.addTarget(target);
    }
  }
  // Default weights: the file's own, then zeros for the baked targets.
  for (const m of meshes) {
    const [own, w] = [m.listPrimitives()[0].listTargets().length - T, m.getWeights()];
    m.setWeights([...Array.from({ length: own }, (_, t) => w[t] ?? 0), ...new Array(T).fill(0)]);
  }
  const nodes = model.meshNodes
    .map((node, i) => ({ node, group: model.meshNodeGroups[i] }))
    .filter(({ node }) => meshes.has(node.getMesh()!));
  for (const { node } of nodes)
    if (node.getWeights().length) node.setWeights([...node.getWeights(), ...new Array(T).fill(0)]);
  /** Adds `factor` × sample s's weights of the baked targets into `values` at `at`. */
  const addSample = (values: Float32Array, at: number, s: number, factor: number) => {
    if (!useBasis) values[at + s] += factor * weightScale[s];
    else basis.weights[s].forEach((w, k) => (values[at + k] += factor * w * weightScale[k]));
  };
  // One weights channel per clip and mesh node: the file's weights, then the weights of the clip's
  // sample f at its time f (linear between samples).
  let first = 0;
  let channels = 0;
  for (const { clip, times } of clips) {
    const animation = clipAnimation(document, model, clip, options.file);
    const input = clipKeys(clip, times);
    const inputAccessor = document.createAccessor().setType('SCALAR').setArray(input).setBuffer(buffer);
    const fileWeights = Array.from(input, (t) => sampleMorphWeights(morphGroups, clip.morphChannels ?? [], t));
    for (const { node, group } of nodes) {
      for (const ch of animation.listChannels())
        if (ch.getTargetNode() === node && ch.getTargetPath() === 'weights') {
          const sampler = ch.getSampler();
          ch.dispose();
          if (sampler && !sampler.listParents().some((p) => p.propertyType === 'AnimationChannel')) sampler.dispose();
        }
      const own = group >= 0 ? morphGroups[group].weights.length : 0;
      const values = new Float32Array(input.length * (own + T));
      channels += 4 * input.length * T;
      input.forEach((t, k) => {
        const row = k * (own + T);
        if (own) values.set(fileWeights[k][group], row);
        // The hat functions of the samples: t between samples f and f + 1.
        let f = 0;
        while (f + 1 < times.length && times[f + 1] <= t) f++;
        const u = f + 1 < times.length ? (t - times[f]) / (times[f + 1] - times[f]) : 0;
        addSample(values, row + own, first + f, 1 - u);
        if (u > 0) addSample(values, row + own, first + f + 1, u);
      });
      const output = document.createAccessor().setType('SCALAR').setArray(values).setBuffer(buffer);
      const sampler = document
        .createAnimationSampler()
        .setInput(inputAccessor)
        .setOutput(output)
        .setInterpolation('LINEAR');
      animation.addSampler(sampler);
      animation.addChannel(
        document.createAnimationChannel().setTargetNode(node).setTargetPath('weights').setSampler(sampler),
      );
    }
    first += times.length;
  }
  return { targets: T, samples: N, basis: useBasis, bytes: stored, shortTargets, byteTargets, channelBytes: channels, denseBytes: 12 * all, nonZero: all ? kept / all : 0 }; // prettier-ignore
}

/** A clip's weight keys: its samples, and the keys of its own weights channels within it. */
function clipKeys(clip: SkinnedModel['animations'][number], times: ArrayLike<number>): Float32Array {
  const keys = new Set<number>(Array.from(times));
  for (const ch of clip.morphChannels ?? []) for (const t of ch.times) if (t >= 0 && t <= clip.duration) keys.add(t);
  return Float32Array.from([...keys].sort((x, y) => x - y));
}

/** Vertices in [from, to) of the 3-vectors `x` that are not 0 (and, with `under`, not flagged). */
function countNonZero(x: ArrayLike<number>, under: Uint8Array | undefined, from: number, to: number): number {
  let count = 0;
  for (let v = from; v < to; v++)
    if (!under?.[v] && (x[3 * v] !== 0 || x[3 * v + 1] !== 0 || x[3 * v + 2] !== 0)) count++;
  return count;
}

/** Sets the flagged vertices' 3-vectors of `x` to 0, in place. */
function zeroUnder(x: Float32Array, under: Uint8Array): void {
  for (let v = 0; v < under.length; v++) if (under[v]) x.fill(0, 3 * v, 3 * v + 3);
}

/** A copy of the weights (K per vertex) rescaled so each vertex's sum to exactly 1 (in double precision, then rounded). */
function exactlyNormalized(weights: Float32Array, K: number): Float32Array {
  const out = new Float32Array(weights.length);
  for (let i = 0; i < weights.length; i += K) {
    let sum = 0;
    for (let k = i; k < i + K; k++) sum += weights[k];
    for (let k = i; k < i + K; k++) out[k] = sum > 0 ? weights[k] / sum : weights[k];
  }
  return out;
}
