/**
 * Direct Delta Mush (Le & Lewis 2019) as a method module (see {@link MethodModule}): its model is
 * read with the file (`storage.ts`, stored by `corskin precompute --method ddm`) or computed here
 * with the given parameters when the mesh lacks it.
 *
 * @module
 */
import type { MethodModule } from '../module.js';
import { ddmModelOf, setDdmModel, withDdmModel } from './data.js';
import { deformDdm } from './deformer.js';
import { DDM_PARAMETERS } from './parameters.js';
import { checkDdmOptions, computeDirectDeltaMush, type DdmOptions } from './precompute.js';

/**
 * Direct Delta Mush: the model of the file, else computed (progress: solves done of total) and
 * kept on the mesh. The deformer runs on whatever mesh it is given (morphed, influences limited)
 * with that model.
 */
export const directDeltaMushMethod: MethodModule = {
  id: 'ddm',
  parameters: DDM_PARAMETERS,
  check: (parameters) => void checkDdmOptions(parameters as DdmOptions),
  missing: (mesh) => (ddmModelOf(mesh) ? undefined : 'Direct Delta Mush data'),
  summary: (mesh) => {
    const model = ddmModelOf(mesh);
    if (!model) return undefined;
    const n = model.offsets.length - 1;
    const p = model.parameters;
    return `${model.variant}, ${(model.offsets[n] / n).toFixed(2)} joints per vertex; p = ${p.iterations}, λ = ${+p.lambda.toPrecision(3)}, κ = ${+p.kappa.toPrecision(3)}, α = ${p.alpha}`;
  },
  prepare: ({ mesh, parameters = {}, onProgress }) => {
    checkDdmOptions(parameters as DdmOptions); // also when the model is the file's
    let model = ddmModelOf(mesh);
    if (!model) {
      model = computeDirectDeltaMush(mesh, { ...(parameters as DdmOptions), onProgress });
      setDdmModel(mesh, model);
    }
    const ready = model;
    return (m, skinning, out) => deformDdm(ddmModelOf(m) === ready ? m : withDdmModel(m, ready), skinning, out);
  },
  // Loaded on demand (the WebAssembly kernels).
  simd: async (mesh) => (await import('./simd.js')).createDdmSimdDeformer(mesh),
};
