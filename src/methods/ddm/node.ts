/**
 * `corskin precompute --method ddm`: Direct Delta Mush (Le & Lewis 2019) computed for every skin
 * of a document, on worker threads for large meshes (one pool for every skin of the document),
 * and stored (`storage.ts`). Node only.
 *
 * @module
 */
import type { MethodPrecompute } from '../module.js';
import { autoDdmThreads, computeDirectDeltaMushParallel, createDdmWorkerPool, type DdmWorkerPool } from './parallel.js';
import { resolveDdmParameters } from './parameters.js';
import { ddmBytesPerVertex, type DdmModel, type DdmOptions } from './precompute.js';
import { ELEPHANT_RESOLUTION } from './resolution.js';
import { directDeltaMush } from './transform.js';

/** Direct Delta Mush's precomputation for `corskin precompute` (see {@link MethodPrecompute}). */
const precompute: MethodPrecompute = {
  what: 'Direct Delta Mush',
  async precompute(document, { parameters, file, threads, onProgress, onSkin }) {
    const options = parameters as DdmOptions;
    const variant = options.variant ?? 'full';
    let pool: DdmWorkerPool | undefined;
    const compute = (mesh: Parameters<typeof autoDdmThreads>[0], o: DdmOptions) => {
      const t = threads ?? autoDdmThreads(mesh);
      if (t > 1) pool ??= createDdmWorkerPool(t);
      return computeDirectDeltaMushParallel(mesh, { ...o, threads: t, pool: t > 1 ? pool : undefined });
    };
    try {
      await document.transform(
        directDeltaMush({
          ...options,
          file,
          compute,
          onProgress,
          onSkin: (model, ddm, seconds) => {
            const n = ddm.offsets.length - 1;
            onSkin?.(
              `${model.name}: ${n} vertices, ${(ddm.offsets[n] / n).toFixed(2)} joints per vertex, ${ddmBytesPerVertex(ddm).toFixed(0)} bytes per vertex (${variant}), ${seconds.toFixed(2)} s${adapted(ddm)}${ddm.fallbacks ? `; ${ddm.fallbacks} vertices whose smoothed weights cancelled out follow their joints' blend (LBS, turned rigidly)` : ''}`,
              model.warnings,
            );
          },
        }),
      );
    } finally {
      await pool?.terminate();
    }
    const p = resolveDdmParameters(options);
    const scaled = p.resolution === 'adaptive' ? ", scaled to each mesh's resolution" : '';
    return `Direct Delta Mush ${variant}: p = ${p.iterations}, λ = ${p.lambda}, κ = ${p.kappa}${scaled}, α = ${p.alpha}, ${p.smoothing} Laplacian`;
  },
};

/** How a skin's λ and κ were scaled to its resolution (`resolution.ts`), for its line. */
function adapted(ddm: DdmModel): string {
  if (ddm.edgesPerRegion === undefined) return '';
  const { lambda, kappa } = ddm.parameters;
  return `; λ = ${lambda.toPrecision(2)}, κ = ${kappa.toPrecision(2)} at its resolution (${ddm.edgesPerRegion.toFixed(1)} edges across a joint region, libigl's elephant ${ELEPHANT_RESOLUTION})`;
}
export default precompute;
