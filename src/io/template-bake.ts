/**
 * Skinning templates baked into a standard glTF any engine plays (Ju, Zhou, van de Panne,
 * Cohen-Or, Neumann, "Reusable Skinning Templates Using Cage-based Deformations", SIGGRAPH Asia
 * 2008, deformation; no corskin code needed to play it).
 *
 * Choice: **per-clip baked corrective targets**. Every animation clip is sampled at `rate` frames
 * per second; at each sample the template deformation is written as a morph target of the skinned
 * mesh — the bind-space correction d that the file's own linear blend skinning turns into the
 * template result (LBS(x + d) = M (x + d) = template(x), M the vertex's blended skinning matrix,
 * inverted per vertex) — and each clip gets a `weights` channel (LINEAR) that
 * puts weight 1 on its sample at each sample time, so consecutive corrections blend in between.
 * The engine then computes (morph, then skin) exactly the template result at the samples, and the
 * linear blend of neighbouring samples' corrections in between. Size: one POSITION target per
 * sample, 12 bytes per vertex (CesiumMan: 3,273 vertices, a 2 s clip at 30 fps → 61 targets,
 * 2.4 MB); halving the rate halves it and doubles the time between exact samples. Normals are not
 * corrected (they stay the linear blend's).
 *
 * @module
 */
import type { Document, Mesh, Node } from '@gltf-transform/core';
import { samplePose } from '../core/animation.js';
import { CorskinError } from '../core/errors.js';
import { mat4Invert } from '../core/math.js';
import { skinningMatrices } from '../core/pose.js';
import type { Deformer } from '../deformers/contract.js';
import type { SkinnedModel } from './gltf.js';

/** Options of {@link bakeTemplateClips}. */
export interface TemplateBakeOptions {
  /** Samples per second of each clip; default 30. */
  rate?: number;
  /** File named in error messages. */
  file?: string;
}

/** What a bake wrote. */
export interface TemplateBakeResult {
  /** Morph targets added (samples over all clips). */
  targets: number;
  /** Bytes of target data (positions, float32). */
  bytes: number;
}

/**
 * Bakes `deform` (a deformer for `model.mesh`, e.g. the templates) over every animation clip of
 * `model` into morph targets and `weights` channels of its meshes (see the module comment).
 * @throws CorskinError when the model has no animation, its meshes already have morph targets, or
 *   the rate is not a positive number
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
  const { mesh, skeleton, parts } = model;
  if (!model.animations.length)
    throw new CorskinError(`${model.name}: no animation to bake (--bake samples the file's clips)`, options.file);
  if (parts.some((p) => p.primitive.listTargets().length))
    throw new CorskinError(
      `${model.name}: its meshes already have morph targets; baking templates beside them is not supported`,
      options.file,
    );
  const n = mesh.positions.length / 3;
  const K = mesh.influences;
  const out = { positions: new Float32Array(3 * n) };
  // Samples of every clip: its times and the correction at each.
  const clips = model.animations.map((clip) => {
    const F = Math.max(1, Math.ceil(clip.duration * rate));
    const times = Float32Array.from({ length: F + 1 }, (_, f) => (f / F) * clip.duration);
    const corrections = Array.from(times, (t) => {
      const S = skinningMatrices(skeleton, samplePose(skeleton, clip, t));
      deform(mesh, S, out);
      return correction(mesh.positions, mesh.joints, mesh.weights, K, S, out.positions);
    });
    return { clip, times, corrections };
  });
  const N = clips.reduce((s, c) => s + c.times.length, 0);
  const buffer = document.getRoot().listBuffers()[0] ?? document.createBuffer();
  // Targets on every primitive of the skin (its slice of each correction), zero default weights.
  const meshes = new Set<Mesh>();
  for (const part of parts) {
    for (const c of clips)
      for (const d of c.corrections) {
        const slice = d.slice(3 * part.vertexOffset, 3 * (part.vertexOffset + part.vertexCount));
        const accessor = document.createAccessor().setType('VEC3').setArray(slice).setBuffer(buffer);
        part.primitive.addTarget(document.createPrimitiveTarget().setAttribute('POSITION', accessor));
      }
    for (const parent of part.primitive.listParents()) if (parent.propertyType === 'Mesh') meshes.add(parent as Mesh);
  }
  for (const m of meshes) m.setWeights(new Array(N).fill(0));
  const nodes: Node[] = model.meshNodes.filter((node) => meshes.has(node.getMesh()!));
  // One weights channel per clip and mesh node: 1 on the clip's sample f at its time f.
  let first = 0;
  for (const { clip, times } of clips) {
    const animation = document
      .getRoot()
      .listAnimations()
      .find((a, i) => (a.getName() || `animation ${i}`) === clip.name);
    if (!animation)
      throw new CorskinError(`${model.name}: clip "${clip.name}" not found in the document`, options.file);
    const values = new Float32Array(times.length * N);
    for (let f = 0; f < times.length; f++) values[f * N + first + f] = 1;
    const input = document.createAccessor().setType('SCALAR').setArray(times).setBuffer(buffer);
    const output = document.createAccessor().setType('SCALAR').setArray(values).setBuffer(buffer);
    for (const node of nodes) {
      const sampler = document.createAnimationSampler().setInput(input).setOutput(output).setInterpolation('LINEAR');
      animation.addSampler(sampler);
      animation.addChannel(
        document.createAnimationChannel().setTargetNode(node).setTargetPath('weights').setSampler(sampler),
      );
    }
    first += times.length;
  }
  return { targets: N, bytes: 12 * n * N };
}

/**
 * Per vertex, the bind-space d with LBS(x + d) = y: x + d = M⁻¹ y, M the vertex's blended skinning
 * matrix (Σ w_k S_k). Where its linear part is singular (|det| ≤ 1e-12 of its scale³) d is 0.
 * @returns d, 3·n
 */
function correction(
  x: ArrayLike<number>,
  joints: ArrayLike<number>,
  weights: ArrayLike<number>,
  K: number,
  S: Float64Array,
  y: ArrayLike<number>,
): Float32Array {
  const n = x.length / 3;
  const d = new Float32Array(3 * n);
  const M = new Float64Array(16);
  const inverse = new Float64Array(16);
  for (let i = 0; i < n; i++) {
    M.fill(0);
    for (let k = K * i; k < K * i + K; k++) {
      const w = weights[k];
      if (!(w > 0)) continue;
      for (let e = 0; e < 16; e++) M[e] += w * S[16 * joints[k] + e];
    }
    const det = M[0] * (M[5] * M[10] - M[9] * M[6]) - M[4] * (M[1] * M[10] - M[9] * M[2]) + M[8] * (M[1] * M[6] - M[5] * M[2]); // prettier-ignore
    let scale = 0;
    for (let c = 0; c < 3; c++) for (let r = 0; r < 3; r++) scale = Math.max(scale, Math.abs(M[4 * c + r]));
    if (!(Math.abs(det) > 1e-12 * scale ** 3) || !mat4Invert(inverse, 0, M, 0)) continue;
    const [y0, y1, y2] = [y[3 * i], y[3 * i + 1], y[3 * i + 2]];
    for (let r = 0; r < 3; r++)
      d[3 * i + r] = inverse[r] * y0 + inverse[4 + r] * y1 + inverse[8 + r] * y2 + inverse[12 + r] - x[3 * i + r];
  }
  return d;
}
