/**
 * The precomputations (centers of rotation, Direct Delta Mush) as glTF-Transform transforms, so
 * they compose with other document functions:
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
import { computeDirectDeltaMush, type DdmModel, type DdmOptions } from '../methods/ddm/precompute.js';
import { DEFAULT_DDM_THRESHOLD, resolveDdmParameters } from '../methods/ddm/parameters.js';
import { setDeltaMush } from '../methods/ddm/storage.js';
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

/** Options of {@link directDeltaMush}. */
export interface DdmBakeOptions extends DdmOptions {
  /** Called after each skin is done, with its model and the seconds it took. */
  onSkin?: (model: SkinnedModel, ddm: DdmModel, seconds: number) => void;
  /** Path of the document, for error messages. */
  file?: string;
}

/**
 * Transform that precomputes Direct Delta Mush (Le & Lewis 2019; {@link computeDirectDeltaMush})
 * for every skin of a document and stores it as `_DDM_*` attributes (see `io/ddm-gltf.ts`) with
 * the parameters in `extras.corskinDeltaMush`.
 * @throws CorskinError when the document has no skinned mesh, for bad skinning data, or for bad
 *   parameters (naming the parameter)
 */
export function directDeltaMush(options: DdmBakeOptions = {}): Transform {
  resolveDdmParameters(options); // bad parameters fail before any work
  return async function directDeltaMush(document: Document): Promise<void> {
    for (const model of extractSkinnedModels(document, options.file)) {
      const start = performance.now();
      let ddm: DdmModel;
      try {
        ddm = computeDirectDeltaMush(model.mesh, options);
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
