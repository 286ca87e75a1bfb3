/**
 * The deformer of a skinning method for one skin of a file, as the CLI commands (`deform`, `bake`)
 * build it: the precomputations a method needs computed when the file lacks them (with a note),
 * the rigs (stretch, cage, templates) read from the file or built.
 *
 * @module
 */
import type { Document } from '@gltf-transform/core';
import { CorskinError } from '../core/errors.js';
import { computeCentersOfRotation } from '../cor/precompute.js';
import { deformers } from '../deformers/index.js';
import type { Deformer } from '../deformers/contract.js';
import { methodInfo, type MethodId } from '../deformers/registry.js';
import { methodModule } from '../methods/index.js';
import type { MethodModule } from '../methods/module.js';
import { createStretchDeformer, stretchRigFromSkeleton } from '../deformers/stretch.js';
import { createCageSkinningDeformer } from '../cage/rig.js';
import { readCageRig } from '../io/cage-gltf.js';
import { findJoint } from '../evaluation/standard-poses.js';
import { jointBoneSegments, type SkinnedModel } from '../io/gltf.js';
import { moduleParameters, warnForeignParameters } from './options.js';
import { progress, type Io } from './ui.js';
import { simdBoundDeformer } from '../wasm/bound-deformer.js';
import type { SimdSkinningMethod } from '../wasm/simd-skinning.js';

/** Every method a {@link createMethodDeformer} builds a deformer for: every registry method. */
export type CliMethod = MethodId;

/** Options of {@link createMethodDeformer}. */
export interface MethodDeformerOptions {
  /** σ and ε when the centers of rotation must be computed. */
  sigma: number;
  epsilon: number;
  /** stretch: joints whose collapse is compensated, comma-separated names or indices. */
  stretchJoints?: string;
  /** stretch: twist compensation before skinning (default true). */
  twistCompensation?: boolean;
  /** The skins of the file (default 1): above one, what a computation found per skin is said with `--verbose` only. */
  skins?: number;
}

/**
 * Prepares method module `module` for `model`: a note and a progress bar when it computes what the
 * file lacks ({@link MethodModule.missing}), its parameters from the CLI options.
 * @throws CorskinError naming `input` and the skin when a parameter is invalid
 */
function prepareModule(io: Io, input: string, model: SkinnedModel, module: MethodModule, o: object): Deformer {
  const parameters = moduleParameters(module, o as Record<string, unknown>);
  try {
    module.check(parameters);
  } catch (e) {
    if (e instanceof CorskinError) throw new CorskinError(`${model.name}: ${e.message}`, input);
    throw e;
  }
  const missing = module.missing?.(model.mesh);
  const given = module.parameters
    .filter((p) => !p.overStored && parameters[p.key] !== undefined)
    .map((p) => `--${p.flag}`);
  if (module.missing && !missing && given.length)
    io.err(
      `corskin: warning: ${input}: ${model.name}: the file's stored ${module.id.toUpperCase()} data is used; ${given.join(', ')} ${given.length > 1 ? 'apply' : 'applies'} only when it is computed (corskin precompute --method ${module.id} recomputes it)`,
    );
  // Said once per file (the io says a line once), not once per skin: the skeleton's 40 skins.
  if (missing)
    io.err(`corskin: ${input}: no ${missing} in the file; computing it (corskin precompute --method ${module.id} stores it)`); // prettier-ignore
  const bar = missing ? progress(io, missing) : undefined;
  let deformer: Deformer;
  try {
    deformer = module.prepare({
      mesh: model.mesh,
      skeleton: model.skeleton,
      parameters,
      onProgress: bar?.update,
    });
  } catch (e) {
    if (e instanceof CorskinError) throw new CorskinError(`${model.name}: ${e.message}`, input);
    throw e;
  } finally {
    bar?.stop();
  }
  const summary = missing && (io.verbose || ((o as MethodDeformerOptions).skins ?? 1) <= 1) && module.summary?.(model.mesh); // prettier-ignore
  if (summary) io.err(`corskin: ${input}: ${model.name}: ${summary}`);
  return deformer;
}

/**
 * Computes what `method` needs on `model.mesh` when the file lacks it — the centers of rotation
 * (cor), or what a method module keeps on the mesh (Direct Delta Mush's model) — with a note and
 * a progress bar on `io`.
 */
export function ensureMethodData(
  io: Io,
  input: string,
  model: SkinnedModel,
  method: CliMethod,
  o: Pick<MethodDeformerOptions, 'sigma' | 'epsilon' | 'skins'>,
): void {
  warnForeignParameters(io, method, o as Record<string, unknown>);
  const module = methodModule(method);
  // A module that keeps data on the mesh for the plain deformer (not one that a factory builds
  // with what it reads from the document): checked, and computed when the file lacks it.
  if (module?.missing && !methodInfo(method).needsRig) prepareModule(io, input, model, module, o);
  if (method === 'cor' && !model.mesh.centersOfRotation) {
    io.err(`corskin: ${input}: no centers of rotation in the file; computing them (σ = ${o.sigma}, ε = ${o.epsilon}; corskin precompute stores them)`); // prettier-ignore
    const bar = progress(io, 'centers of rotation');
    try {
      model.mesh.centersOfRotation = computeCentersOfRotation(model.mesh, {
        sigma: o.sigma,
        epsilon: o.epsilon,
        onProgress: bar.update,
      }).centers;
    } finally {
      bar.stop();
    }
  }
}

/**
 * The deformer of `method` for `model` (a skin of `document`, read from `input`): a method
 * module's after it read what the document stores for it ({@link MethodModule.read}: the
 * templates `corskin templates build` stored) and prepared the rest; the other rig-free ones after
 * {@link ensureMethodData}; stretch with the rig read from the skin; cage with the rig
 * `corskin bind-cage` stored.
 * @throws CorskinError naming `input` for an unknown method, a missing cage, a rig that cannot be built
 */
export function createMethodDeformer(
  io: Io,
  document: Document,
  model: SkinnedModel,
  method: CliMethod,
  input: string,
  o: MethodDeformerOptions,
): Deformer {
  warnForeignParameters(io, method, o as unknown as Record<string, unknown>);
  const module = methodModule(method);
  if (module) {
    for (const w of module.read?.(document, model, input) ?? [])
      io.err(`corskin: warning: ${input}: ${model.name}: ${w}`);
    return prepareModule(io, input, model, module, o);
  }
  if (method === 'stretch') return stretchDeformer(model, o, input);
  if (method === 'cage') {
    const rig = readCageRig(document, model, input);
    if (!rig) throw new CorskinError(`${model.name} has no cage; bind one first with corskin bind-cage`, input);
    return createCageSkinningDeformer(rig);
  }
  if (!Object.hasOwn(deformers, method)) throw new CorskinError(`unknown method "${String(method)}"`, input);
  ensureMethodData(io, input, model, method, o);
  return deformers[method as keyof typeof deformers];
}

/**
 * `deform`, the deformer {@link createMethodDeformer} built for `model`, on the WebAssembly SIMD
 * kernels where it is called with `model.mesh` itself, in JavaScript elsewhere (morphed copies):
 * `simdBoundDeformer`, for the methods with a kernel whose data the mesh carries (every one but
 * stretch, whose rig the kernel would need again, and cage, which has none).
 * @param o the method module's options, as `createMethodDeformer` took them
 * @param positionsOnly kernels that pose the positions alone, for a caller that never asks for
 *   normals or tangents (a call that does runs `deform` in JavaScript)
 * @param normalKernels with `positionsOnly`, a second set of kernels for the whole mesh that the
 *   calls asking for normals or tangents run (the helper bake's method: its fit reads the method's
 *   normals at every sample)
 */
export async function withSimdKernels(
  model: SkinnedModel,
  method: CliMethod,
  deform: Deformer,
  o: MethodDeformerOptions,
  positionsOnly = false,
  normalKernels = false,
): Promise<Deformer> {
  if (!methodInfo(method).simd || method === 'stretch') return deform;
  const module = methodModule(method);
  const parameters = module && moduleParameters(module, o as unknown as Record<string, unknown>);
  return (
    await simdBoundDeformer(method as SimdSkinningMethod, [model.mesh], deform, {
      parameters,
      positionsOnly,
      normalKernels,
    })
  ).deform;
}

/** Stretch smooth skinning of one model, with the rig read from its skin. */
function stretchDeformer(model: SkinnedModel, o: MethodDeformerOptions, input: string): Deformer {
  const stretchJoints = o.stretchJoints?.split(',').map((name) => {
    try {
      return findJoint(model.skeleton, name.trim());
    } catch (e) {
      throw e instanceof CorskinError ? new CorskinError(`--stretch-joints: ${model.name}: ${e.message}`, input) : e;
    }
  });
  // Leaf joints' bones end at their non-joint children (e.g. the `_end` nodes of corskin convert).
  const hasChild = new Uint8Array(model.skeleton.parents.length);
  for (const p of model.skeleton.parents) if (p >= 0) hasChild[p] = 1;
  const ends = jointBoneSegments(model, input).map((segs, j) =>
    hasChild[j] ? undefined : segs.find((s) => s[0] !== s[3] || s[1] !== s[4] || s[2] !== s[5])?.slice(3),
  );
  return createStretchDeformer(stretchRigFromSkeleton(model.skeleton, stretchJoints, ends), {
    twistCompensation: o.twistCompensation ?? true,
  });
}
