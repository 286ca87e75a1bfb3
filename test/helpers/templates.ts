/** Template-rig test helpers. */
import type { Document } from '@gltf-transform/core';
import { readTemplateRig } from '../../src/methods/templates/storage.js';
import { extractSkinnedModels } from '../../src/io/gltf.js';
import type { SkinnedMesh } from '../../src/core/mesh.js';
import { weldByPosition } from '../../src/metrics/weld.js';
import { createTemplateDeformer } from '../../src/methods/templates/deformer.js';
import { type TemplateLimb, type TemplateRig } from '../../src/methods/templates/rig.js';

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

/**
 * Edges of the welded surface (two triangles each) whose dihedral angle differs between `rest`
 * and `posed` (3·n positions each) by more than `threshold` radians: creases a deformation makes.
 */
export function creasedEdges(
  triangles: ArrayLike<number>,
  rest: ArrayLike<number>,
  posed: ArrayLike<number>,
  threshold: number,
): number {
  const weld = weldByPosition(rest);
  const faces = new Map<string, number[]>();
  for (let f = 0; f < triangles.length / 3; f++)
    for (let c = 0; c < 3; c++) {
      const [a, b] = [weld[triangles[3 * f + c]], weld[triangles[3 * f + ((c + 1) % 3)]]];
      const key = a < b ? `${a},${b}` : `${b},${a}`;
      faces.set(key, [...(faces.get(key) ?? []), f]);
    }
  const normal = (p: ArrayLike<number>, f: number) => {
    const [a, b, c] = [0, 1, 2].map((k) => 3 * triangles[3 * f + k]);
    const u = [0, 1, 2].map((k) => p[b + k] - p[a + k]);
    const v = [0, 1, 2].map((k) => p[c + k] - p[a + k]);
    const n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
    const l = Math.hypot(...n) || 1;
    return n.map((x) => x / l);
  };
  const angle = (p: ArrayLike<number>, f: number, g: number) => {
    const [a, b] = [normal(p, f), normal(p, g)];
    return Math.acos(Math.max(-1, Math.min(1, a[0] * b[0] + a[1] * b[1] + a[2] * b[2])));
  };
  let count = 0;
  for (const fs of faces.values())
    if (fs.length === 2 && Math.abs(angle(posed, fs[0], fs[1]) - angle(rest, fs[0], fs[1])) > threshold) count++;
  return count;
}

/** Rotation (row-major 3×3) by `angle` rad about the unit `axis` (Rodrigues), written here anew. */
function rotation(axis: number[], angle: number): number[] {
  const [x, y, z] = axis, c = Math.cos(angle), s = Math.sin(angle), t = 1 - c; // prettier-ignore
  return [t * x * x + c, t * x * y - s * z, t * x * z + s * y, t * x * y + s * z, t * y * y + c, t * y * z - s * x, t * x * z - s * y, t * y * z + s * x, t * z * z + c]; // prettier-ignore
}

/** Angle (rad) of the rotation a·bᵀ (row-major 3×3 each). */
function angleBetween(a: number[], b: number[]): number {
  let trace = 0;
  for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) trace += a[3 * r + c] * b[3 * r + c];
  return Math.acos(Math.max(-1, Math.min(1, (trace - 1) / 2)));
}

/**
 * Eq. 2's weight of the second of two key poses, at bends 0 and `keyBend` (rad), for a child bone
 * turned by `M` (row-major 3×3, relative to its rest) whose rest direction is `rest` (unit): with
 * φ(d) = d and a constant term the two-key radial basis blend is `(d₀ − d₁) / 2D + ½`, clamped,
 * d_k the angle between M and key k's rotation — a bend by its angle about the axis the child
 * bends about (rest × M·rest).
 */
export function secondKeyWeight(M: number[], rest: number[], keyBend: number): number {
  const b = [0, 1, 2].map((r) => M[3 * r] * rest[0] + M[3 * r + 1] * rest[1] + M[3 * r + 2] * rest[2]);
  const n = [rest[1] * b[2] - rest[2] * b[1], rest[2] * b[0] - rest[0] * b[2], rest[0] * b[1] - rest[1] * b[0]];
  const l = Math.hypot(n[0], n[1], n[2]);
  const d0 = angleBetween(M, [1, 0, 0, 0, 1, 0, 0, 0, 1]);
  const d1 = angleBetween(
    M,
    rotation(
      n.map((x) => x / l),
      keyBend,
    ),
  );
  return Math.max(0, Math.min(1, (d0 - d1) / (2 * keyBend) + 0.5));
}
