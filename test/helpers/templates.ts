/** Template-rig test helpers. */
import type { Document } from '@gltf-transform/core';
import { readTemplateRig } from '../../src/io/cage-gltf.js';
import { extractSkinnedModels } from '../../src/io/gltf.js';
import type { SkinnedMesh } from '../../src/core/mesh.js';
import { createTemplateDeformer, type TemplateLimb, type TemplateRig } from '../../src/templates/rig.js';

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
 * Edits a file's stored template cage as another tool might: the first ring of the first limb's
 * bone template at chain bone `bone` pinched `fraction` of the way towards the bone (the cage
 * mesh's POSITION only), so skin around that bone lies outside whatever the ring's bridges.
 */
export function pinchStoredCageRing(document: Document, file: string, bone: number, fraction: number): void {
  const [model] = extractSkinnedModels(document, file);
  const limb = readTemplateRig(document, model, file)!.limbs[0];
  const first = limb.roles.findIndex((x) => x.kind === 'bone' && x.index === bone);
  const axis = limb.axes.subarray(3 * bone, 3 * bone + 3);
  const cageNode = document
    .getRoot()
    .listNodes()
    .find((n) => 'corskinCage' in (n.getExtras() ?? {}) && n.getSkin() === model.skin)!;
  const position = cageNode.getMesh()!.listPrimitives()[0].getAttribute('POSITION')!;
  for (let k = first; k < first + 8; k++) {
    const local = limb.roles[k].local;
    const along = local[0] * axis[0] + local[1] * axis[1] + local[2] * axis[2];
    const p = position.getElement(limb.first + k, []);
    position.setElement(
      limb.first + k,
      p.map((x, c) => x - fraction * (local[c] - along * axis[c])),
    );
  }
}

/**
 * `positions` (3·n) made `factor` times thicker about a limb's chain: every vertex's offset from
 * the nearest point of the chain's bones 1… (the libigl arm: the upper arm, forearm and hand)
 * scaled — the paper's transfer of a template to a thicker character.
 */
export function thickerAcrossChain(positions: Float32Array, limb: TemplateLimb, factor: number): Float32Array {
  const thick = positions.slice();
  for (let v = 0; v < thick.length / 3; v++) {
    let best = { d2: Infinity, q: [0, 0, 0] };
    for (let i = 1; i < limb.chain.length; i++) {
      const a = Array.from(limb.points.subarray(3 * i, 3 * i + 3)),
        b = Array.from(limb.points.subarray(3 * i + 3, 3 * i + 6));
      const d = b.map((x, k) => x - a[k]);
      const p = Array.from(thick.subarray(3 * v, 3 * v + 3));
      const along =
        ((p[0] - a[0]) * d[0] + (p[1] - a[1]) * d[1] + (p[2] - a[2]) * d[2]) / (d[0] ** 2 + d[1] ** 2 + d[2] ** 2);
      const q = a.map((x, k) => x + Math.max(0, Math.min(1, along)) * d[k]);
      const d2 = (p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 + (p[2] - q[2]) ** 2;
      if (d2 < best.d2) best = { d2, q };
    }
    for (let k = 0; k < 3; k++) thick[3 * v + k] = best.q[k] + factor * (thick[3 * v + k] - best.q[k]);
  }
  return thick;
}
