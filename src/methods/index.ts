/**
 * The skinning methods that are method modules (see {@link MethodModule}), by id, and
 * {@link prepareMethod}, the one way every surface builds their deformers.
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';
import type { Deformer } from '../deformers/contract.js';
import { directDeltaMushMethod } from './ddm/index.js';
import { deltaMushMethod } from './dm/index.js';
import type { MethodModule, PrepareInput } from './module.js';
import { skinningTemplatesMethod } from './templates/index.js';

/** Every method module by id (each is also an entry of {@link SKINNING_METHODS}). */
export const METHOD_MODULES: Readonly<Record<string, MethodModule>> = {
  ddm: directDeltaMushMethod,
  dm: deltaMushMethod,
  templates: skinningTemplatesMethod,
};

/** The module of method `id`, or undefined when the method is not (yet) a module. */
export function methodModule(id: string): MethodModule | undefined {
  return Object.hasOwn(METHOD_MODULES, id) ? METHOD_MODULES[id] : undefined;
}

/**
 * Prepares method `id` for a mesh: computes what it needs and returns its deformer.
 * @throws CorskinError for an id that is not a method module, and as the method's `prepare`
 *   does (a parameter out of range, naming it)
 */
export function prepareMethod(id: string, input: PrepareInput): Deformer {
  const module = methodModule(id);
  if (!module)
    throw new CorskinError(
      `skinning method "${id}" is not a method module (expected ${Object.keys(METHOD_MODULES).join(', ')})`,
    );
  return module.prepare(input);
}
