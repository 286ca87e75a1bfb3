/**
 * Cages in glTF files (the layout `corskin bind-cage` writes and `corskin deform --method cage`
 * reads):
 *
 * - the cage is a mesh node of its own (one triangle primitive, `POSITION` in the skin's bind
 *   space, drawn translucent so any viewer shows it around the character), skinned by the
 *   character's skin (`JOINTS_0`/`WEIGHTS_0`), marked by node extras
 *   `{ "corskinCage": { "coordinates": "pmvc" | "mvc", "resolution": R, "influences": k, "version": … } }`
 *   (with `templates`, {@link StoredTemplates}, when `corskin templates build` made the cage);
 * - every primitive of the character carries the binding as application-specific vertex
 *   attributes: `_CAGE_INDICES_0…` (VEC4, unsigned short: cage vertex indices) and
 *   `_CAGE_WEIGHTS_0…` (VEC4, float), k/4 of each, slots in decreasing weight, empty slots (0, 0).
 *
 * @module
 */
import type { Document, Node } from '@gltf-transform/core';
import type { CageBinding, CageCoordinates } from '../cage/bind.js';
import type { Cage } from '../cage/cage.js';
import type { CageRig } from '../cage/rig.js';
import { limbBlend, type TemplateLimb, type TemplateRig } from '../templates/rig.js';
import { parseTemplateLibrary, type TemplateLibrary } from '../templates/library.js';
import { CorskinError } from '../core/errors.js';
import { bindJointPositions } from '../core/skeleton.js';
import { VERSION } from '../version.js';
import type { SkinnedModel } from './gltf.js';

/** Node extras key marking a cage node. */
export const CAGE_EXTRAS_KEY = 'corskinCage';
const INDICES = '_CAGE_INDICES_';
const WEIGHTS = '_CAGE_WEIGHTS_';

/** Whether `node` is a cage written by corskin (its extras carry {@link CAGE_EXTRAS_KEY}). */
export function isCageNode(node: Node): boolean {
  const extras = node.getExtras() as Record<string, unknown> | undefined;
  return !!extras && typeof extras[CAGE_EXTRAS_KEY] === 'object';
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
  }
  const K = rig.cageInfluences;
  const joints = new Uint16Array(4 * m);
  const weights = new Float32Array(4 * m);
  for (let i = 0; i < m; i++)
    for (let s = 0; s < Math.min(K, 4); s++) {
      joints[4 * i + s] = rig.cageJoints[K * i + s];
      weights[4 * i + s] = rig.cageWeights[K * i + s];
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
    .createNode(`${model.name} cage`)
    .setMesh(document.createMesh(`${model.name} cage`).addPrimitive(primitive))
    .setSkin(model.skin)
    .setExtras({
      [CAGE_EXTRAS_KEY]: {
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
 * A template rig as node extras (`corskinCage.templates`, version 2): per limb its joints by name,
 * its bone geometry, every cage vertex's template and rest position in that template's frame and
 * its bones' template choices; the joints no limb covers; the library the choices come from.
 */
export interface StoredTemplates {
  version: 2;
  limbs: {
    chain: string[];
    reach: number[];
    points: number[];
    axes: number[];
    references: number[];
    /** Per cage vertex of the limb: kind (0 bone, 1 joint, 2 cap), index, local x, y, z. */
    vertices: number[];
    boneTemplates: string[];
    /** Per chain joint, its joint template ('' for the first). */
    jointTemplates: string[];
  }[];
  library: TemplateLibrary;
}

/** The stored form of a template rig. */
export function storeTemplates(rig: TemplateRig, jointNames: readonly string[]): StoredTemplates {
  const kinds = { bone: 0, joint: 1, cap: 2 } as const;
  return {
    version: 2,
    limbs: rig.limbs.map((limb) => ({
      chain: limb.chain.map((j) => jointNames[j]),
      reach: [...limb.reach],
      points: Array.from(limb.points),
      axes: Array.from(limb.axes),
      references: Array.from(limb.references),
      vertices: limb.roles.flatMap((r) => [kinds[r.kind], r.index, ...r.local]),
      boneTemplates: [...limb.boneTemplates],
      jointTemplates: [...limb.jointTemplates],
    })),
    library: rig.library,
  };
}

/**
 * `model`'s template rig stored by `corskin templates build`, or undefined when its cage has none.
 * @throws CorskinError for a malformed layout (names a joint the skin lacks, sizes that disagree)
 */
export function readTemplateRig(document: Document, model: SkinnedModel, file?: string): TemplateRig | undefined {
  const cageRig = readCageRig(document, model, file);
  if (!cageRig) return undefined;
  const node = document
    .getRoot()
    .listNodes()
    .find((n) => isCageNode(n) && n.getSkin() === model.skin)!;
  const stored = ((node.getExtras() as Record<string, Record<string, unknown>>)[CAGE_EXTRAS_KEY].templates ??
    undefined) as StoredTemplates | undefined;
  if (!stored) return undefined;
  const bad = (why: string) => new CorskinError(`the template cage's extras ${why}`, file);
  if (stored.version !== 2 || !Array.isArray(stored.limbs))
    throw bad(`are not version 2 (rebuild with corskin templates build)`);
  const library = parseTemplateLibrary(stored.library, file);
  const joint = (name: string) => {
    const j = model.skeleton.jointNames.indexOf(name);
    if (j < 0) throw new CorskinError(`the template cage names joint "${name}", which the skin lacks`, file);
    return j;
  };
  const kinds = ['bone', 'joint', 'cap'] as const;
  let first = 0;
  const limbs: TemplateLimb[] = stored.limbs.map((s) => {
    const chain = s.chain.map(joint);
    const n = chain.length;
    const m = s.vertices.length / 5;
    if (
      s.points.length !== 3 * (n + 1) ||
      s.axes.length !== 3 * n ||
      s.references.length !== 3 * n ||
      s.boneTemplates.length !== n ||
      !Number.isInteger(m)
    )
      throw bad('do not match their chains');
    for (const id of s.boneTemplates)
      if (!library.templates.some((t) => t.id === id && t.kind === 'bone'))
        throw bad(`use "${id}", which their library lacks`);
    if (!Array.isArray(s.reach) || s.reach.length !== n - 1 || !s.reach.every((r) => r > 0))
      throw bad('give a limb no reach');
    if (!Array.isArray(s.jointTemplates) || s.jointTemplates.length !== n) throw bad('do not match their chains');
    for (const id of s.jointTemplates.slice(1))
      if (!library.templates.some((t) => t.id === id && t.kind === 'joint'))
        throw bad(`use "${id}", which their library lacks`);
    const limb: TemplateLimb = {
      chain,
      reach: [...s.reach],
      points: Float64Array.from(s.points),
      axes: Float64Array.from(s.axes),
      references: Float64Array.from(s.references),
      first,
      roles: Array.from({ length: m }, (_, v) => ({
        kind: kinds[s.vertices[5 * v]],
        index: s.vertices[5 * v + 1],
        local: s.vertices.slice(5 * v + 2, 5 * v + 5),
      })),
      boneTemplates: [...s.boneTemplates],
      jointTemplates: [...s.jointTemplates],
    };
    first += m;
    return limb;
  });
  if (first !== cageRig.cage.positions.length / 3) throw bad('do not match the cage');
  // The linear part, as the build computed it from the limbs (in order) and their reaches.
  const { linear } = limbBlend(
    model.mesh,
    bindJointPositions(model.skeleton),
    limbs.map((l) => l.chain),
    limbs.map((l) => l.reach),
  );
  return { limbs, cage: cageRig.cage, binding: cageRig.binding, linear, library };
}

/** Removes `model`'s cage node and binding attributes, if any. */
export function removeCageRig(document: Document, model: SkinnedModel): void {
  for (const node of document.getRoot().listNodes())
    if (isCageNode(node) && node.getSkin() === model.skin) {
      node.getMesh()?.dispose();
      node.dispose();
    }
  for (const part of model.parts)
    for (const name of part.primitive.listSemantics())
      if (name.startsWith(INDICES) || name.startsWith(WEIGHTS)) part.primitive.setAttribute(name, null);
}

/**
 * Reads `model`'s cage rig (see the module comment), or undefined when the document has none.
 * @throws CorskinError for an incomplete or inconsistent cage layout
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
          binding.indices[k * (part.vertexOffset + i) + 4 * g + c] = idx[c];
          binding.weights[k * (part.vertexOffset + i) + 4 * g + c] = w[c];
        }
      }
    }
  }
  return { cage, binding, cageInfluences: 4, cageJoints, cageWeights };
}
