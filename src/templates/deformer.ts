/**
 * The registered `templates` deformer: a template rig's cages posed by their templates, the skin
 * moved through its binding.
 *
 * @module
 */
import { createCageDeformer, type CageDeformer } from '../cage/deform.js';
import { CorskinError } from '../core/errors.js';
import type { SkinnedMesh } from '../core/mesh.js';
import type { Deformer } from '../deformers/contract.js';
import type { TemplateRig } from './rig.js';
import { poseTemplates, createTemplateMemo } from './pose.js';

/**
 * The registered `templates` method: template functions → cage vertices → skin through the
 * binding, plus the linear skinning of the weight the cages do not carry ({@link TemplateRig.linear}),
 * with corskin's deformer signature.
 * @throws CorskinError (when called) for a mesh other than the one the rig was built for Allocation-free per frame after the first call with a given mesh (except the small
 * per-vertex template evaluations).
 */
export function createTemplateDeformer(rig: TemplateRig): Deformer {
  const posedCage = new Float64Array(rig.cage.positions.length);
  const memo = createTemplateMemo(rig);
  const { linear } = rig;
  const any = linear.some((w) => w > 0);
  let forMesh: SkinnedMesh | undefined;
  let deformer: CageDeformer | undefined;
  let displacement: Float64Array | undefined;
  return (mesh, skinning, out) => {
    if (mesh !== forMesh) {
      if (any && linear.length !== mesh.weights.length)
        throw new CorskinError(`the template rig was built for ${linear.length / mesh.influences} vertices, the mesh has ${mesh.positions.length / 3}`);
      deformer = createCageDeformer(mesh, rig.binding, rig.cage.positions);
      displacement = any ? new Float64Array(mesh.positions.length) : undefined;
      forMesh = mesh;
    }
    poseTemplates(rig, skinning, posedCage, memo);
    if (displacement) {
      // Σ_k λ_k (M_j x − x): the share of each influence the cages do not carry, skinned linearly.
      displacement.fill(0);
      const { positions: x, joints, influences: K } = mesh;
      for (let i = 0; i < x.length / 3; i++)
        for (let k = K * i; k < K * i + K; k++) {
          const w = linear[k];
          if (!(w > 0)) continue;
          const o = 16 * joints[k];
          for (let r = 0; r < 3; r++) {
            const y = skinning[o + r] * x[3 * i] + skinning[o + 4 + r] * x[3 * i + 1] + skinning[o + 8 + r] * x[3 * i + 2] + skinning[o + 12 + r]; // prettier-ignore
            displacement[3 * i + r] += w * (y - x[3 * i + r]);
          }
        }
    }
    deformer!.deform(posedCage, out, displacement);
  };
}

