/** Template-rig test helpers. */
import type { Document } from '@gltf-transform/core';
import { readTemplateRig } from '../../src/io/cage-gltf.js';
import { extractSkinnedModels } from '../../src/io/gltf.js';
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

/**
 * Edits a file's stored template cage as another tool might: the first limb's cage vertex of its
 * bone template at chain bone `bone` moved `fraction` of the way towards the bone (the cage mesh's
 * POSITION only).
 */
export function moveStoredCageVertexInwards(document: Document, file: string, bone: number, fraction: number): void {
  const [model] = extractSkinnedModels(document, file);
  const limb = readTemplateRig(document, model, file)!.limbs[0];
  const k = limb.roles.findIndex((x) => x.kind === 'bone' && x.index === bone);
  const axis = limb.axes.subarray(3 * bone, 3 * bone + 3);
  const local = limb.roles[k].local;
  const along = local[0] * axis[0] + local[1] * axis[1] + local[2] * axis[2];
  const cageNode = document
    .getRoot()
    .listNodes()
    .find((n) => 'corskinCage' in (n.getExtras() ?? {}) && n.getSkin() === model.skin)!;
  const position = cageNode.getMesh()!.listPrimitives()[0].getAttribute('POSITION')!;
  const p = position.getElement(limb.first + k, []);
  position.setElement(
    limb.first + k,
    p.map((x, c) => x - fraction * (local[c] - along * axis[c])),
  );
}
