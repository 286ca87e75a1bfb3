/**
 * `corskin precompute`: bake centers of rotation into a glTF file.
 * @module
 */
import { availableParallelism } from 'node:os';
import { createCorWorkerPool } from '../cor/parallel.js';
import { centersOfRotation } from '../io/bake.js';
import { checkNotOverwritingInput } from '../io/files.js';
import { readDocument, writeDocument } from '../io/node-io.js';
import { progress, type Io } from './ui.js';

/**
 * Below this many vertices the default is one thread: on the 2-core reference machine a cold
 * worker pool costs ~0.3 s, more than a 43k-vertex mesh takes single-threaded (0.45 s).
 */
const AUTO_THREADS_FROM = 100_000;

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
  const document = await readDocument(input);
  const vertices = document
    .getRoot()
    .listMeshes()
    .flatMap((m) => m.listPrimitives())
    .reduce((s, p) => s + (p.getAttribute('POSITION')?.getCount() ?? 0), 0);
  const threads = o.threads ?? (vertices >= AUTO_THREADS_FROM ? availableParallelism() : 1);
  const pool = threads > 1 ? createCorWorkerPool(threads) : undefined;
  const bar = progress(io, 'centers of rotation');
  const lines: string[] = [];
  try {
    await document.transform(
      centersOfRotation({
        sigma: o.sigma,
        epsilon: o.epsilon,
        method: o.exact ? 'exact' : 'fast',
        threads,
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
  } finally {
    bar.stop();
    await pool?.terminate();
  }
  await writeDocument(document, o.output);
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
