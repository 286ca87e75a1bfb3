/**
 * Helper joints baked by skinning decomposition (Le & Deng 2012, SSDR) — work in progress.
 *
 * @module
 */
import type { Document } from '@gltf-transform/core';
import { CorskinError } from '../core/errors.js';
import type { Deformer } from '../deformers/contract.js';
import type { SkinnedModel } from '../io/gltf.js';

/** Options of {@link bakeHelperJoints}. */
export interface HelperBakeOptions {
  /** Helper joints per joint region (at most); default 2. */
  helpers?: number;
  /** Influences per vertex in the baked file: 4 or 8; default 4. */
  influences?: 4 | 8;
  /** Samples per second of each clip; default 30. */
  rate?: number;
  /** Called now and then with (work done, total). */
  onProgress?: (done: number, total: number) => void;
  /** File named in error messages. */
  file?: string;
}

/** What {@link bakeHelperJoints} added. */
export interface HelperBakeResult {
  /** Helper joints added. */
  helpers: number;
  /** Samples fitted (over all clips). */
  samples: number;
  /** SSDR iterations run. */
  iterations: number;
}

/**
 * Adds helper joints to `model`'s skin so that its linear blend skinning approximates `deform`
 * over every clip (not implemented yet).
 * @throws CorskinError always, for now
 */
export function bakeHelperJoints(
  document: Document,
  model: SkinnedModel,
  deform: Deformer,
  options: HelperBakeOptions = {},
): HelperBakeResult {
  void document;
  void deform;
  throw new CorskinError(`${model.name}: --as helpers is not implemented yet`, options.file);
}
