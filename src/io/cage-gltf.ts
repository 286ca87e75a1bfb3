/**
 * Cages in glTF files (the layout `corskin bind-cage` writes and `corskin deform --method cage`
 * reads):
 *
 * - the cage is a mesh node of its own (one triangle primitive, `POSITION` in the skin's bind
 *   space, drawn translucent so any viewer shows it around the character), skinned by the
 *   character's skin (`JOINTS_0`/`WEIGHTS_0`), marked by node extras
 *   `{ "corskinCage": { "coordinates": "pmvc" | "mvc", "resolution": R, "influences": k, "version": … } }`
 *   (with the skinning templates' own data when `corskin templates build` made the cage: see
 *   `methods/templates/storage.ts`);
 * - every primitive of the character carries the binding as application-specific vertex
 *   attributes: `_CAGE_INDICES_0…` (VEC4, unsigned short: cage vertex indices) and
 *   `_CAGE_WEIGHTS_0…` (VEC4, float), k/4 of each, slots in decreasing weight, empty slots (0, 0),
 *   and primitive extras `{ "corskinCageBinding": ID }` naming its cage by the cage's `id` (several
 *   skins of one file may share their joints, so the joints alone do not tell which cage is whose).
 *
 * @module
 */
import type { Accessor, Document, Material, Node } from '@gltf-transform/core';
import type { CageBinding, CageCoordinates } from '../cage/bind.js';
import type { Cage } from '../cage/cage.js';
import type { CageRig } from '../cage/rig.js';
import type { StoredTemplates } from '../methods/templates/stored.js';
import { CorskinError } from '../core/errors.js';
import { VERSION } from '../version.js';
import { CAGE_BINDING_EXTRAS_KEY, CAGE_EXTRAS_KEY, isCageExtras } from './schema.js';
import type { SkinnedModel } from './gltf.js';

/** Node extras key marking a cage node. */
export { CAGE_EXTRAS_KEY, CAGE_BINDING_EXTRAS_KEY };
/** Primitive extras key naming the cage (its `id`) whose binding the primitive carries. */

const INDICES = '_CAGE_INDICES_';
const WEIGHTS = '_CAGE_WEIGHTS_';

/** Whether `node` is a cage written by corskin (its extras carry {@link CAGE_EXTRAS_KEY}). */
export function isCageNode(node: Node): boolean {
  return isCageExtras(node.getExtras());
}

/**
 * Writes a cage rig into `document` for `model` (replacing an earlier one): the cage node and the
 * per-vertex binding attributes (see the module comment).
 * @throws CorskinError when the cage has more than 65,536 vertices
 */
export function writeCageRig(document: Document, model: SkinnedModel, rig: CageRig, templates?: StoredTemplates): void {
  const m = rig.cage.positions.length / 3;
  if (m > 65536) throw new CorskinError(`the cage has ${m} vertices; at most 65,536 fit the binding attributes`);
  removeCageRig(document, model);
  const root = document.getRoot();
  const ids = new Set(
    root
      .listNodes()
      .filter(isCageNode)
      .map((n) => cageInfo(n).id),
  );
  let id = `${model.name} cage`;
  for (let i = 2; ids.has(id); i++) id = `${model.name} cage ${i}`;
  const buffer = root.listBuffers()[0] ?? document.createBuffer();
  const acc = (type: 'VEC4' | 'VEC3' | 'SCALAR', array: Float32Array | Uint16Array | Uint32Array) =>
    document.createAccessor().setType(type).setArray(array).setBuffer(buffer);
  const k = rig.binding.influences;
  const groups = Math.ceil(k / 4);
  for (const part of model.parts) {
    for (let g = 0; g < groups; g++) {
      const idx = new Uint16Array(4 * part.vertexCount);
      const w = new Float32Array(4 * part.vertexCount);
      for (let i = 0; i < part.vertexCount; i++)
        for (let c = 0; c < 4; c++) {
          const slot = 4 * g + c;
          if (slot >= k) continue;
          const s = k * (part.vertexOffset + i) + slot;
          idx[4 * i + c] = rig.binding.indices[s];
          w[4 * i + c] = rig.binding.weights[s];
        }
      part.primitive.setAttribute(`${INDICES}${g}`, acc('VEC4', idx));
      part.primitive.setAttribute(`${WEIGHTS}${g}`, acc('VEC4', w));
    }
    part.primitive.setExtras({ ...part.primitive.getExtras(), [CAGE_BINDING_EXTRAS_KEY]: id });
  }
  // The cage's own skinning (for viewers that do not run corskin): the 4 largest influences on the
  // skin's joints (not the animated helper nodes corskin's skeleton adds after them), renormalised.
  const K = rig.cageInfluences;
  const J = model.jointNodes.length;
  const joints = new Uint16Array(4 * m);
  const weights = new Float32Array(4 * m);
  for (let i = 0; i < m; i++) {
    const slots = Array.from({ length: K }, (_, s) => K * i + s)
      .filter((s) => rig.cageJoints[s] < J && rig.cageWeights[s] > 0)
      .sort((a, b) => rig.cageWeights[b] - rig.cageWeights[a])
      .slice(0, 4);
    const sum = slots.reduce((t, s) => t + rig.cageWeights[s], 0);
    if (!slots.length) weights[4 * i] = 1; // all on helper nodes: the skin's first joint
    slots.forEach((s, c) => {
      joints[4 * i + c] = rig.cageJoints[s];
      weights[4 * i + c] = rig.cageWeights[s] / sum;
    });
  }
  const material = document
    .createMaterial('cage')
    .setBaseColorFactor([1, 0.6, 0.1, 0.25])
    .setAlphaMode('BLEND')
    .setDoubleSided(true)
    .setMetallicFactor(0)
    .setRoughnessFactor(1);
  const primitive = document
    .createPrimitive()
    .setAttribute('POSITION', acc('VEC3', Float32Array.from(rig.cage.positions)))
    .setAttribute('JOINTS_0', acc('VEC4', joints))
    .setAttribute('WEIGHTS_0', acc('VEC4', weights))
    .setIndices(acc('SCALAR', m <= 65536 ? Uint16Array.from(rig.cage.triangles) : rig.cage.triangles))
    .setMaterial(material);
  const node = document
    .createNode(id)
    .setMesh(document.createMesh(id).addPrimitive(primitive))
    .setSkin(model.skin)
    .setExtras({
      [CAGE_EXTRAS_KEY]: {
        id,
        coordinates: rig.binding.method,
        resolution: rig.binding.resolution,
        influences: k,
        version: VERSION,
        ...(templates ? { templates } : {}),
      },
    });
  const scene = root.getDefaultScene() ?? root.listScenes()[0] ?? document.createScene();
  scene.addChild(node);
}

/**
 * Removes `model`'s cage node and binding attributes, if any, with the accessors and material
 * that only they used (a file built again keeps no dead data).
 */
export function removeCageRig(document: Document, model: SkinnedModel): void {
  const dropped = new Set<Accessor | Material>();
  for (const node of document.getRoot().listNodes())
    if (isCageNode(node) && node.getSkin() === model.skin) {
      for (const primitive of node.getMesh()?.listPrimitives() ?? []) {
        for (const a of [...primitive.listAttributes(), primitive.getIndices()]) if (a) dropped.add(a);
        const material = primitive.getMaterial();
        if (material) dropped.add(material);
        primitive.dispose();
      }
      node.getMesh()?.dispose();
      node.dispose();
    }
  for (const part of model.parts) {
    for (const name of part.primitive.listSemantics())
      if (name.startsWith(INDICES) || name.startsWith(WEIGHTS)) {
        dropped.add(part.primitive.getAttribute(name)!);
        part.primitive.setAttribute(name, null);
      }
    const extras = { ...part.primitive.getExtras() };
    delete extras[CAGE_BINDING_EXTRAS_KEY];
    part.primitive.setExtras(extras);
  }
  // Disposed where nothing but the document's root lists them any more.
  for (const property of dropped)
    if (property.listParents().every((p) => p.propertyType === 'Root')) property.dispose();
}

function cageInfo(node: Node): { id?: unknown } {
  return (node.getExtras() as Record<string, { id?: unknown }>)[CAGE_EXTRAS_KEY];
}

/**
 * Reads `model`'s cage rig (see the module comment), or undefined when the document has none.
 * @throws CorskinError for an incomplete or inconsistent cage layout, or non-finite cage
 *   positions or binding weights (as strictly as a fresh binding is checked)
 */
export function readCageRig(document: Document, model: SkinnedModel, file?: string): CageRig | undefined {
  const node = document
    .getRoot()
    .listNodes()
    .find((n) => isCageNode(n) && n.getSkin() === model.skin);
  if (!node) return undefined;
  const info = (node.getExtras() as Record<string, Record<string, unknown>>)[CAGE_EXTRAS_KEY];
  const prim = node.getMesh()?.listPrimitives()[0];
  const pos = prim?.getAttribute('POSITION');
  const joints = prim?.getAttribute('JOINTS_0');
  const weights = prim?.getAttribute('WEIGHTS_0');
  if (!prim || !pos || !joints || !weights || !prim.getIndices())
    throw new CorskinError(`the cage node "${node.getName()}" lacks POSITION, JOINTS_0, WEIGHTS_0 or indices`, file);
  const m = pos.getCount();
  const cage: Cage = {
    positions: new Float64Array(3 * m),
    triangles: Uint32Array.from(prim.getIndices()!.getArray()!),
  };
  const cageJoints = new Uint32Array(4 * m);
  const cageWeights = new Float32Array(4 * m);
  const v3: number[] = [],
    j4: number[] = [],
    w4: number[] = [];
  for (let i = 0; i < m; i++) {
    cage.positions.set(pos.getElement(i, v3), 3 * i);
    cageJoints.set(joints.getElement(i, j4), 4 * i);
    cageWeights.set(weights.getElement(i, w4), 4 * i);
  }
  const J = model.skeleton.parents.length;
  if (cageJoints.some((j) => j >= J)) throw new CorskinError(`the cage names a joint beyond the skin's ${J}`, file);
  const badPosition = cage.positions.findIndex((x) => !Number.isFinite(x));
  if (badPosition >= 0)
    throw new CorskinError(`cage vertex ${Math.floor(badPosition / 3)} has a non-finite position`, file);
  const badWeight = cageWeights.findIndex((w) => !(w >= 0 && w <= 1));
  if (badWeight >= 0)
    throw new CorskinError(`cage vertex ${Math.floor(badWeight / 4)} has a weight outside [0, 1]`, file);
  const k = Number(info.influences);
  const n = model.mesh.positions.length / 3;
  const binding: CageBinding = {
    method: info.coordinates as CageCoordinates,
    resolution: Number(info.resolution) || 0,
    influences: k,
    indices: new Uint32Array(k * n),
    weights: new Float32Array(k * n),
  };
  if (!(Number.isInteger(k) && k >= 1))
    throw new CorskinError(`the cage node's extras give ${info.influences} influences`, file);
  for (const part of model.parts) {
    for (let g = 0; g < Math.ceil(k / 4); g++) {
      const ia = part.primitive.getAttribute(`${INDICES}${g}`);
      const wa = part.primitive.getAttribute(`${WEIGHTS}${g}`);
      if (!ia || !wa)
        throw new CorskinError(
          `a primitive lacks the cage binding ${INDICES}${g}/${WEIGHTS}${g}; run corskin bind-cage again`,
          file,
        );
      for (let i = 0; i < part.vertexCount; i++) {
        const idx = ia.getElement(i, []);
        const w = wa.getElement(i, []);
        for (let c = 0; c < 4 && 4 * g + c < k; c++) {
          if (idx[c] >= m) throw new CorskinError(`the cage binding names cage vertex ${idx[c]} of ${m}`, file);
          if (!Number.isFinite(w[c]))
            throw new CorskinError(
              `the cage binding of vertex ${part.vertexOffset + i} has a non-finite weight (${WEIGHTS}${g}); run corskin bind-cage again`,
              file,
            );
          binding.indices[k * (part.vertexOffset + i) + 4 * g + c] = idx[c];
          binding.weights[k * (part.vertexOffset + i) + 4 * g + c] = w[c];
        }
      }
    }
  }
  return { cage, binding, cageInfluences: 4, cageJoints, cageWeights };
}
