/**
 * `corskin precompute`: bake centers of rotation (Le & Hodgins 2016) into a glTF file, or what
 * another method precomputes (the method module's `node.ts`: Direct Delta Mush, Le & Lewis 2019;
 * skinning templates, Ju et al. 2008).
 * @module
 */
import { createCorWorkerPool } from '../cor/parallel.js';
import { centersOfRotation } from '../io/bake.js';
import { CorskinError } from '../core/errors.js';
import { methodModule } from '../methods/index.js';
import type { MethodPrecompute } from '../methods/module.js';
import { checkNotOverwritingInput, checkOutputPath } from '../io/files.js';
import { readDocument, writeDocument } from '../io/node-io.js';
import { moduleParameters, warnForeignParameters } from './options.js';
import { methodInfo, PRECOMPUTED_METHODS } from '../deformers/registry.js';
import { progress, type Io } from './ui.js';

/** Options of {@link precomputeCommand}. */
export interface PrecomputeOptions {
  output: string;
  /**
   * A method of the registry that precomputes (`PRECOMPUTED_METHODS`; default `cor`); the method
   * modules' parameters come as further options (`iterations`, …: see `withMethodParameters`).
   */
  method?: string;
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
  const info = methodInfo(o.method ?? 'cor');
  if (!info.precomputes)
    throw new CorskinError(
      `${info.label} precomputes nothing (corskin precompute --method takes ${PRECOMPUTED_METHODS.join(', ')})`,
    );
  // A method module's data: its node.ts; the centers of rotation: below.
  if (info.module) return precomputeModule(io, input, o);
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

/**
 * `corskin precompute --method <id>` for a method module that stores data: its folder's `node.ts`
 * ({@link MethodPrecompute}) computes and stores it, with the method's parameters.
 */
async function precomputeModule(io: Io, input: string, o: PrecomputeOptions): Promise<void> {
  const start = performance.now();
  const module = methodModule(o.method!)!;
  const parameters = moduleParameters(module, o as unknown as Record<string, unknown>);
  try {
    module.check(parameters); // bad parameters fail before any work
  } catch (e) {
    throw e instanceof CorskinError ? new CorskinError(e.message, input, { cause: e }) : e;
  }
  const hooks = ((await import(/* @vite-ignore */ `../methods/${module.id}/node.js`)) as { default: MethodPrecompute })
    .default;
  const bar = progress(io, hooks.what);
  const lines: string[] = [];
  let described: string;
  try {
    const document = await readDocument(input);
    described = await hooks.precompute(document, {
      parameters,
      file: input,
      threads: o.threads,
      onProgress: bar.update,
      onSkin: (line, warnings) => {
        for (const w of warnings) io.err(`corskin: warning: ${input}: ${w}`);
        lines.push(line);
      },
    });
    await writeDocument(document, o.output, { compress: o.compress, inputs: [input], force: o.force });
  } finally {
    bar.stop();
  }
  for (const l of lines) io.out(l);
  io.out(`wrote ${o.output} (${described}) in ${((performance.now() - start) / 1000).toFixed(2)} s`);
}
