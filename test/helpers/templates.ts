/** Template-rig test helpers. */
import type { SkinnedMesh } from '../../src/core/mesh.js';
import { createTemplateDeformer, type TemplateRig } from '../../src/templates/rig.js';

/** Largest coordinate difference between two rigs' deformations of `mesh` at skinning matrices `S`. */
export function deformationGap(a: TemplateRig, b: TemplateRig, mesh: SkinnedMesh, S: Float64Array): number {
  const [pa, pb] = [a, b].map((rig) => {
    const out = { positions: new Float32Array(mesh.positions.length) };
    createTemplateDeformer(rig)(mesh, S, out);
    return out.positions;
  });
  let gap = 0;
  for (let i = 0; i < pa.length; i++) gap = Math.max(gap, Math.abs(pa[i] - pb[i]));
  return gap;
}
