/**
 * The centers of rotation's precomputation as a glTF-Transform transform, so it composes with
 * other document functions (Direct Delta Mush's is `methods/ddm/transform.ts`):
 *
 * ```ts
 * await document.transform(centersOfRotation({ sigma: 0.1, epsilon: 0.1 }));
 * ```
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';
import type { Document, Transform } from '@gltf-transform/core';
import { computeCentersOfRotationParallel, type ParallelCorOptions } from '../cor/parallel.js';
import { corAlgorithm, resolveCorOptions } from '../cor/parameters.js';
import type { CorResult } from '../cor/precompute.js';
import { extractSkinnedModels, setCentersOfRotation, type SkinnedModel } from './gltf.js';

/** Options of {@link centersOfRotation}. */
export interface BakeOptions extends ParallelCorOptions {
  /** Called after each skin is done with its statistics. */
  onSkin?: (model: SkinnedModel, result: CorResult) => void;
  /** Path of the document, for error messages. */
  file?: string;
}

/**
 * Transform that computes the centers of rotation of every skin of a document on worker
 * threads (`threads`, default {@link autoThreads}; bit-identical for any count) (all primitives
 * bound to a skin form its integration domain, Le & Hodgins 2016, Eq. 4) and stores them as the
 * `_CENTER_OF_ROTATION` attribute with `extras.corskin = { sigma, epsilon, version }`.
 * @throws CorskinError when the document has no skinned mesh or bad skinning data
 */
export function centersOfRotation(options: BakeOptions = {}): Transform {
  return async function centersOfRotation(document: Document): Promise<void> {
    for (const model of extractSkinnedModels(document, options.file)) {
      const result = await computeCentersOfRotationParallel(model.mesh, options).catch((e) => {
        throw e instanceof CorskinError && !e.file && options.file
          ? new CorskinError(`${model.name}: ${e.message}`, options.file)
          : e;
      });
      const { sigma, epsilon } = resolveCorOptions(options); // as the computation filled them in
      setCentersOfRotation(document, model, result.centers, { sigma, epsilon, method: corAlgorithm(options) });
      options.onSkin?.(model, result);
    }
  };
}
