/**
 * `corskin precompute`: bake centers of rotation (Le & Hodgins 2016), Direct Delta Mush (Le &
 * Lewis 2019) or skinning templates (Ju et al. 2008, as `corskin templates build`) into a glTF
 * file.
 * @module
 */
import { createCorWorkerPool } from '../cor/parallel.js';
import { centersOfRotation } from '../io/bake.js';
import { directDeltaMush } from '../methods/ddm/transform.js';
import { autoDdmThreads, computeDirectDeltaMushParallel } from '../methods/ddm/parallel.js';
import type { DdmSmoothing } from '../methods/ddm/laplacian.js';
import { ddmBytesPerVertex, type DdmVariant } from '../methods/ddm/precompute.js';
import { resolveDdmParameters } from '../methods/ddm/parameters.js';
import { checkNotOverwritingInput, checkOutputPath } from '../io/files.js';
import { readDocument, writeDocument } from '../io/node-io.js';
import { warnForeignParameters } from './options.js';
import { PRECOMPUTED_METHODS } from '../deformers/registry.js';
import { progress, type Io } from './ui.js';

/** Options of {@link precomputeCommand}. */
export interface PrecomputeOptions {
  output: string;
  /** `cor` (default), `ddm` or `templates` (as `corskin templates build`). */
  method?: 'cor' | 'ddm' | 'templates';
  /** templates: choices `JOINT=ID,…`. */
  template?: string;
  /** Direct Delta Mush parameters (`--method ddm`). */
  iterations?: number;
  lambda?: number;
  kappa?: number;
  alpha?: number;
  variant?: DdmVariant;
  smoothing?: DdmSmoothing;
  threshold?: number;
  sigma: number;
  epsilon: number;
  /** cor: `fast` (default) or `exact` (`--algorithm`). */
  algorithm?: 'fast' | 'exact';
  /** Refuse larger subdivisions (estimated before subdividing). */
  maxSubdivided?: number;
  threads?: number;
  force?: boolean;
  /** false: write without the input's Draco/meshopt compression (`--no-compress`). */
  compress?: boolean;
}

/** Runs `corskin precompute`. @throws CorskinError on bad input */
export async function precomputeCommand(io: Io, input: string, o: PrecomputeOptions): Promise<void> {
  checkOutputPath(o.output, ['.glb', '.gltf']);
  checkNotOverwritingInput(o.output, [input], !!o.force);
  warnForeignParameters(io, o.method ?? 'cor', o as unknown as Record<string, unknown>, PRECOMPUTED_METHODS);
  if (o.method === 'ddm') return precomputeDdm(io, input, o);
  if (o.method === 'templates') return (await import('./templates.js')).templatesBuildCommand(io, input, o);
  const start = performance.now();
  // With an explicit thread count the workers start while the file is read and parsed.
  const pool = o.threads && o.threads > 1 ? createCorWorkerPool(o.threads) : undefined;
  const bar = progress(io, 'centers of rotation');
  const lines: string[] = [];
  try {
    const document = await readDocument(input);
    await document.transform(
      centersOfRotation({
        sigma: o.sigma,
        epsilon: o.epsilon,
        algorithm: o.algorithm ?? 'fast',
        maxSubdividedTriangles: o.maxSubdivided,
        threads: o.threads,
        pool,
        file: input,
        onProgress: bar.update,
        onSkin: (model, r) => {
          for (const w of model.warnings) io.err(`corskin: warning: ${input}: ${w}`);
          if (io.verbose && model.ignoredAnimationChannels)
            io.err(
              `corskin: note: ${input}: ${model.name}: ${model.ignoredAnimationChannels} animation channels on nodes that do not move the skin, ignored`,
            );
          lines.push(
            `${model.name}: ${r.vertices} vertices (${r.blendedVertices} blended), ${r.triangles} triangles → ${r.subdividedTriangles} subdivided, ${r.seconds.toFixed(2)} s`,
          );
        },
      }),
    );
    await writeDocument(document, o.output, { compress: o.compress, inputs: [input], force: o.force });
  } finally {
    bar.stop();
    await pool?.terminate();
  }
  for (const l of lines) io.out(l);
  io.out(
    `wrote ${o.output} (σ = ${o.sigma}, ε = ${o.epsilon}, ${o.algorithm ?? 'fast'}) in ${((performance.now() - start) / 1000).toFixed(2)} s`,
  );
}

/** `corskin precompute --method ddm`. */
async function precomputeDdm(io: Io, input: string, o: PrecomputeOptions): Promise<void> {
  const start = performance.now();
  const bar = progress(io, 'direct delta mush');
  const lines: string[] = [];
  const variant = o.variant ?? 'full';
  try {
    const document = await readDocument(input);
    await document.transform(
      directDeltaMush({
        iterations: o.iterations,
        lambda: o.lambda,
        kappa: o.kappa,
        alpha: o.alpha,
        variant,
        smoothing: o.smoothing,
        threshold: o.threshold,
        file: input,
        compute: (mesh, options) =>
          computeDirectDeltaMushParallel(mesh, { ...options, threads: o.threads ?? autoDdmThreads(mesh) }),
        onProgress: bar.update,
        onSkin: (model, ddm, seconds) => {
          for (const w of model.warnings) io.err(`corskin: warning: ${input}: ${w}`);
          const n = ddm.offsets.length - 1;
          lines.push(
            `${model.name}: ${n} vertices, ${(ddm.offsets[n] / n).toFixed(2)} joints per vertex, ${ddmBytesPerVertex(ddm).toFixed(0)} bytes per vertex (${variant}), ${seconds.toFixed(2)} s${ddm.fallbacks ? `; ${ddm.fallbacks} vertices whose smoothed weights cancelled out follow their joints' blend (LBS, turned rigidly)` : ''}`,
          );
        },
      }),
    );
    await writeDocument(document, o.output, { compress: o.compress, inputs: [input], force: o.force });
  } finally {
    bar.stop();
  }
  for (const l of lines) io.out(l);
  const p = resolveDdmParameters(o);
  io.out(
    `wrote ${o.output} (Direct Delta Mush ${variant}: p = ${p.iterations}, λ = ${p.lambda}, κ = ${p.kappa}, α = ${p.alpha}, ${p.smoothing} Laplacian) in ${((performance.now() - start) / 1000).toFixed(2)} s`,
  );
}
