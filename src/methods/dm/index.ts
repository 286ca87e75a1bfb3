/**
 * Delta Mush as a method module (see {@link MethodModule}): `corskin deform --method dm
 * --iterations N --step F`, and every surface that builds deformers through `prepareMethod`.
 *
 * @module
 */
import type { MethodModule } from '../module.js';
import { createDeltaMushDeformer } from './deformer.js';
import { DELTA_MUSH_PARAMETERS, resolveDeltaMushParameters, type DeltaMushParameters } from './parameters.js';

/** Delta Mush (Mancewicz et al. 2014): prepared per mesh, no data stored in the file. */
export const deltaMushMethod: MethodModule = {
  id: 'dm',
  parameters: DELTA_MUSH_PARAMETERS,
  check: (parameters) => void resolveDeltaMushParameters(parameters as DeltaMushParameters),
  prepare: ({ mesh, parameters }) => createDeltaMushDeformer(mesh, parameters as DeltaMushParameters),
  // Loaded on demand (the WebAssembly kernels).
  simd: async (mesh, parameters) =>
    (await import('./simd.js')).createDeltaMushSimdDeformer(mesh, parameters as DeltaMushParameters),
};
