/**
 * Skinning templates baked into a standard glTF any engine plays (Ju, Zhou, van de Panne,
 * Cohen-Or, Neumann, "Reusable Skinning Templates Using Cage-based Deformations", SIGGRAPH Asia
 * 2008, deformation; no corskin code needed to play it).
 *
 * Choice: **per-clip baked corrective targets**. Every animation clip is sampled at `rate` frames
 * per second; at each sample the template deformation is written as a morph target of the skinned
 * mesh — the bind-space correction d that the file's own linear blend skinning turns into the
 * template result (LBS(x + d) = M (x + d) = template(x), M the vertex's blended skinning matrix,
 * inverted per vertex; x the mesh as the file's own morph targets shape it at that time) — and
 * each clip gets a `weights` channel (LINEAR) that puts weight 1 on its sample at each sample
 * time, so consecutive corrections blend in between. The engine then computes (morph, then skin)
 * exactly the template result at the samples, and the linear blend of neighbouring samples'
 * corrections in between. Normals and tangents are corrected likewise (a NORMAL and, where the
 * mesh has tangents, a TANGENT displacement per target that the blended skinning matrix turns
 * into the template's direction).
 *
 * Files with morph targets of their own keep them: the baked targets come after them, and each
 * clip's weights channel carries the file's weights first — its own weights channel on that node
 * (replaced; LINEAR channels are kept exactly, their keys joining the bake's samples; STEP and
 * CUBICSPLINE ones are sampled at those keys and played LINEAR between them), else the node's
 * default weights.
 *
 * Size: one POSITION and one NORMAL displacement per sample, 24 bytes per vertex (CesiumMan: 3,273
 * vertices, a 2 s clip at 30 fps → 61 targets, 4.8 MB; 12 bytes and half that without normals,
 * 36 with tangents); halving the rate halves it and doubles the time between exact samples.
 *
 * @module
 */
import type { Document, Mesh } from '@gltf-transform/core';
import { samplePose } from '../core/animation.js';
import { applyMorphTargets, sampleMorphWeights } from '../core/morph.js';
import { CorskinError } from '../core/errors.js';
import { mat4Invert } from '../core/math.js';
import { skinningMatrices } from '../core/pose.js';
import type { Deformer } from '../deformers/contract.js';
import type { SkinnedModel } from './gltf.js';

/** Options of {@link bakeTemplateClips}. */
export interface TemplateBakeOptions {
  /** Samples per second of each clip; default 30. */
  rate?: number;
  /**
   * Correct the normals, and tangents where the mesh has them, too (a NORMAL and a TANGENT
   * displacement per target, each as large as the POSITION one); default true.
   */
  normals?: boolean;
  /** File named in error messages. */
  file?: string;
}

/** What a bake wrote. */
export interface TemplateBakeResult {
  /** Morph targets added (samples over all clips). */
  targets: number;
  /** Bytes of target data (positions, normals and tangents, float32). */
  bytes: number;
}

/**
 * Bakes `deform` (a deformer for `model.mesh`, e.g. the templates) over every animation clip of
 * `model` into morph targets and `weights` channels of its meshes (see the module comment).
 * @throws CorskinError when the model has no animation or a clip is not in the document
 * @throws RangeError when the rate is not a positive number
 */
export function bakeTemplateClips(
  document: Document,
  model: SkinnedModel,
  deform: Deformer,
  options: TemplateBakeOptions = {},
): TemplateBakeResult {
  const rate = options.rate ?? 30;
  if (!(rate > 0 && Number.isFinite(rate)))
    throw new RangeError(`the bake rate must be a positive number, got ${rate}`);
  const { mesh, skeleton, parts, morphGroups } = model;
  if (!model.animations.length)
    throw new CorskinError(`${model.name}: no animation to bake (--bake samples the file's clips)`, options.file);
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
  // Samples of every clip: its times and the corrections at each.
  const clips = model.animations.map((clip) => {
    const F = Math.max(1, Math.ceil(clip.duration * rate));
    const times = Float32Array.from({ length: F + 1 }, (_, f) => (f / F) * clip.duration);
    const corrections = Array.from(times, (t) => {
      const S = skinningMatrices(skeleton, samplePose(skeleton, clip, t));
      const weights = sampleMorphWeights(morphGroups, clip.morphChannels ?? [], t);
      const morphed = applyMorphTargets(mesh, morphGroups, weights);
      deform(morphed, S, out);
      // Engines skin the summed (not renormalised) normals and tangents.
      const summed = withNormals ? applyMorphTargets(mesh, morphGroups, weights, false) : mesh;
      const directions = [
        ...(withNormals ? [{ rest: summed.normals!, posed: out.normals!, stride: 3 }] : []),
        ...(withTangents ? [{ rest: summed.tangents!, posed: out.tangents!, stride: 4 }] : []),
      ];
      return correction(morphed.positions, mesh.joints, mesh.weights, K, S, out.positions, directions);
    });
    return { clip, times, corrections };
  });
  const N = clips.reduce((s, c) => s + c.times.length, 0);
  const buffer = document.getRoot().listBuffers()[0] ?? document.createBuffer();
  // Targets on every primitive of the skin (its slice of each correction), after its own.
  const meshes = new Set<Mesh>();
  for (const part of parts) {
    const own = part.primitive.listTargets();
    const [a, b] = [3 * part.vertexOffset, 3 * (part.vertexOffset + part.vertexCount)];
    // The corrected directions this primitive has (the merged mesh's may come from another).
    const semantics = corrected
      .map((semantic, slot) => ({ semantic, slot }))
      .filter(({ semantic }) => part.primitive.getAttribute(semantic));
    for (const { semantic } of semantics)
      if (own.some((t) => !t.getAttribute(semantic))) {
        // Every target gets the displacement (engines expect all or none): zeros for the file's.
        const zero = document.createAccessor().setType('VEC3').setArray(new Float32Array(b - a)).setBuffer(buffer); // prettier-ignore
        for (const t of own) if (!t.getAttribute(semantic)) t.setAttribute(semantic, zero);
      }
    const vec3 = (data: Float32Array) => document.createAccessor().setType('VEC3').setArray(data.slice(a, b)).setBuffer(buffer); // prettier-ignore
    for (const c of clips)
      for (const d of c.corrections) {
        const target = document.createPrimitiveTarget().setAttribute('POSITION', vec3(d.positions));
        for (const { semantic, slot } of semantics) target.setAttribute(semantic, vec3(d.directions[slot]));
        part.primitive.addTarget(target);
      }
    for (const parent of part.primitive.listParents()) if (parent.propertyType === 'Mesh') meshes.add(parent as Mesh);
  }
  // Default weights: the file's own, then zeros for the baked targets.
  for (const m of meshes) {
    const [own, w] = [m.listPrimitives()[0].listTargets().length - N, m.getWeights()];
    m.setWeights([...Array.from({ length: own }, (_, t) => w[t] ?? 0), ...new Array(N).fill(0)]);
  }
  const nodes = model.meshNodes
    .map((node, i) => ({ node, group: model.meshNodeGroups[i] }))
    .filter(({ node }) => meshes.has(node.getMesh()!));
  for (const { node } of nodes)
    if (node.getWeights().length) node.setWeights([...node.getWeights(), ...new Array(N).fill(0)]);
  // One weights channel per clip and mesh node: the file's weights, then 1 on the clip's sample f
  // at its time f (linear between samples).
  let first = 0;
  for (const { clip, times } of clips) {
    const animation = document
      .getRoot()
      .listAnimations()
      .find((a, i) => (a.getName() || `animation ${i}`) === clip.name);
    if (!animation)
      throw new CorskinError(`${model.name}: clip "${clip.name}" not found in the document`, options.file);
    // Keys: the samples, and the keys of the clip's own weights channels within it.
    const keys = new Set<number>(times);
    for (const ch of clip.morphChannels ?? []) for (const t of ch.times) if (t >= 0 && t <= clip.duration) keys.add(t);
    const input = Float32Array.from([...keys].sort((x, y) => x - y));
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
      const values = new Float32Array(input.length * (own + N));
      input.forEach((t, k) => {
        const row = k * (own + N);
        if (own) values.set(fileWeights[k][group], row);
        // The hat functions of the samples: t between samples f and f + 1.
        let f = 0;
        while (f + 1 < times.length && times[f + 1] <= t) f++;
        const u = f + 1 < times.length ? (t - times[f]) / (times[f + 1] - times[f]) : 0;
        values[row + own + first + f] = 1 - u;
        if (u > 0) values[row + own + first + f + 1] = u;
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
  return { targets: N, bytes: 12 * (1 + corrected.length) * n * N };
}

/**
 * Per vertex, the bind-space d with LBS(x + d) = y: x + d = M⁻¹ y, M the vertex's blended skinning
 * matrix (Σ w_k S_k); and for each direction (normals, tangents' x, y, z) the displacement e with
 * M (m + e) ∥ ñ: m + e = |m| M⁻¹ñ / |M⁻¹ñ| (m the summed direction before skinning, ñ the posed
 * one; engines skin normals and tangents by the blended matrix and normalise). Where the linear
 * part is singular (|det| ≤ 1e-12 of its scale³) all are 0.
 * @returns positions (3·n) and one displacement (3·n) per direction
 */
function correction(
  x: ArrayLike<number>,
  joints: ArrayLike<number>,
  weights: ArrayLike<number>,
  K: number,
  S: Float64Array,
  y: ArrayLike<number>,
  directions: readonly { rest: Float32Array; posed: Float32Array; stride: number }[],
): { positions: Float32Array; directions: Float32Array[] } {
  const n = x.length / 3;
  const d = new Float32Array(3 * n);
  const e = directions.map(() => new Float32Array(3 * n));
  const M = new Float64Array(16);
  const inverse = new Float64Array(16);
  for (let i = 0; i < n; i++) {
    M.fill(0);
    for (let k = K * i; k < K * i + K; k++) {
      const w = weights[k];
      if (!(w > 0)) continue;
      for (let c = 0; c < 16; c++) M[c] += w * S[16 * joints[k] + c];
    }
    const det = M[0] * (M[5] * M[10] - M[9] * M[6]) - M[4] * (M[1] * M[10] - M[9] * M[2]) + M[8] * (M[1] * M[6] - M[5] * M[2]); // prettier-ignore
    let scale = 0;
    for (let c = 0; c < 3; c++) for (let r = 0; r < 3; r++) scale = Math.max(scale, Math.abs(M[4 * c + r]));
    if (!(Math.abs(det) > 1e-12 * scale ** 3) || !mat4Invert(inverse, 0, M, 0)) continue;
    const [y0, y1, y2] = [y[3 * i], y[3 * i + 1], y[3 * i + 2]];
    for (let r = 0; r < 3; r++)
      d[3 * i + r] = inverse[r] * y0 + inverse[4 + r] * y1 + inverse[8 + r] * y2 + inverse[12 + r] - x[3 * i + r];
    directions.forEach(({ rest: m, posed, stride }, slot) => {
      const o = stride * i;
      const [n0, n1, n2] = [posed[o], posed[o + 1], posed[o + 2]];
      const u = [0, 1, 2].map((r) => inverse[r] * n0 + inverse[4 + r] * n1 + inverse[8 + r] * n2);
      const lu = Math.hypot(u[0], u[1], u[2]);
      const lm = Math.hypot(m[o], m[o + 1], m[o + 2]);
      if (lu > 0) for (let r = 0; r < 3; r++) e[slot][3 * i + r] = (lm * u[r]) / lu - m[o + r];
    });
  }
  return { positions: d, directions: e };
}
