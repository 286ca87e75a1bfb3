/**
 * `corskin precompute`: bake centers of rotation into a glTF file.
 * @module
 */
import { createCorWorkerPool } from '../cor/parallel.js';
import { centersOfRotation } from '../io/bake.js';
import { checkNotOverwritingInput } from '../io/files.js';
import { readDocument, writeDocument } from '../io/node-io.js';
import { progress, type Io } from './ui.js';

/** Options of {@link precomputeCommand}. */
export interface PrecomputeOptions {
  output: string;
  sigma: number;
  epsilon: number;
  exact?: boolean;
  threads?: number;
  resources?: boolean;
  force?: boolean;
}

/** Runs `corskin precompute`. @throws CorskinError on bad input */
export async function precomputeCommand(io: Io, input: string, o: PrecomputeOptions): Promise<void> {
  checkNotOverwritingInput(o.output, [input], !!o.force);
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
        method: o.exact ? 'exact' : 'fast',
        threads: o.threads,
        pool,
        file: input,
        onProgress: bar.update,
        onSkin: (model, r) => {
          for (const w of model.warnings) io.err(`corskin: warning: ${input}: ${w}`);
          lines.push(
            `${model.name}: ${r.vertices} vertices (${r.blendedVertices} blended), ${r.triangles} triangles → ${r.subdividedTriangles} subdivided, ${r.seconds.toFixed(2)} s`,
          );
        },
      }),
    );
    bar.stop();
    await writeDocument(document, o.output);
  } finally {
    bar.stop();
    await pool?.terminate();
  }
  for (const l of lines) io.out(l);
  io.out(
    `wrote ${o.output} (σ = ${o.sigma}, ε = ${o.epsilon}, ${o.exact ? 'exact' : 'fast'}) in ${((performance.now() - start) / 1000).toFixed(2)} s`,
  );
  if (o.resources) {
    const r = process.resourceUsage();
    io.out(
      `CPU ${((r.userCPUTime + r.systemCPUTime) / 1e6).toFixed(2)} s, peak RSS ${(r.maxRSS / 1024).toFixed(0)} MB`,
    );
  }
}
