/**
 * Direct Delta Mush's precomputation (Le & Lewis 2019) as a glTF-Transform transform, so it
 * composes with other document functions:
 *
 * ```ts
 * await document.transform(directDeltaMush({ lambda: 3 }));
 * ```
 *
 * @module
 */
import type { Document, Transform } from '@gltf-transform/core';
import { CorskinError } from '../../core/errors.js';
import { extractSkinnedModels, type SkinnedModel } from '../../io/gltf.js';
import { DEFAULT_DDM_THRESHOLD } from './parameters.js';
import { checkDdmOptions, computeDirectDeltaMush } from './precompute.js';
import type { DdmInput, DdmModel, DdmOptions } from './precompute.js';
import { setDeltaMush } from './storage.js';

/** Options of {@link directDeltaMush}. */
export interface DdmBakeOptions extends DdmOptions {
  /** Called after each skin is done, with its model and the seconds it took. */
  onSkin?: (model: SkinnedModel, ddm: DdmModel, seconds: number) => void;
  /** Path of the document, for error messages. */
  file?: string;
  /**
   * Computes a skin's model: default {@link computeDirectDeltaMush} in this thread; Node's
   * `computeDirectDeltaMushParallel` shares the work between worker threads (same result).
   */
  compute?: (mesh: DdmInput, options: DdmOptions) => DdmModel | Promise<DdmModel>;
}

/**
 * Transform that precomputes Direct Delta Mush (Le & Lewis 2019; {@link computeDirectDeltaMush})
 * for every skin of a document and stores it as `_DDM_*` attributes (see `methods/ddm/storage.ts`) with
 * the parameters in `extras.corskinDeltaMush`.
 * @throws CorskinError when the document has no skinned mesh, for bad skinning data, or for bad
 *   parameters (naming the parameter)
 */
export function directDeltaMush(options: DdmBakeOptions = {}): Transform {
  try {
    checkDdmOptions(options); // bad parameters fail before any work
  } catch (e) {
    throw e instanceof CorskinError && options.file ? new CorskinError(e.message, options.file) : e;
  }
  return async function directDeltaMush(document: Document): Promise<void> {
    for (const model of extractSkinnedModels(document, options.file)) {
      const start = performance.now();
      let ddm: DdmModel;
      try {
        ddm = await (options.compute ?? computeDirectDeltaMush)(model.mesh, options);
      } catch (e) {
        throw e instanceof CorskinError && !e.file && options.file
          ? new CorskinError(`${model.name}: ${e.message}`, options.file)
          : e;
      }
      setDeltaMush(document, model, ddm, options.threshold ?? DEFAULT_DDM_THRESHOLD);
      options.onSkin?.(model, ddm, (performance.now() - start) / 1000);
    }
  };
}
