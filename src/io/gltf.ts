/**
 * glTF documents through glTF-Transform: reading skinned characters into corskin's data model,
 * writing centers of rotation back, and baking deformed meshes as static geometry. Runs in Node
 * and browsers (file access lives in `node-io.ts`).
 *
 * The integration domain of the CoR precomputation is every triangle primitive bound to the
 * same skin, so a {@link SkinnedModel} gathers all primitives of all nodes that use one skin into
 * one merged {@link SkinnedMesh}, remembering where each primitive's vertices went.
 *
 * @module
 */
import { Accessor, Document, Primitive, type Mesh, type Node, type Skin } from '@gltf-transform/core';
import type { AnimationClip } from '../core/animation.js';
import { CorskinError } from '../core/errors.js';
import { mat4FromTRS, mat4Invert, mat4LinearPartSingular, mat4Multiply } from '../core/math.js';
import { normalizeWeights, validateSkinnedMesh, type SkinnedMesh, type WeightNormalization } from '../core/mesh.js';
import type { MorphGroup, MorphTarget } from '../core/morph.js';
import type { Skeleton } from '../core/skeleton.js';
import type { TwistJoint } from '../core/twist.js';
import { VERSION } from '../version.js';
import { COR_ATTRIBUTE, isCageExtras } from './schema.js';
import { readDeltaMush } from '../methods/ddm/storage.js';
import { extractAnimations, extractSkeleton, readFloats, skeletonNodes } from './gltf-skeleton.js';
import { influenceSets } from './gltf-weights.js';
import { WEIGHT_SUM_TOLERANCE } from '../core/weight-quantization.js';
import { disposeIfUnused } from './unused.js';
import { setDdmModel } from '../methods/ddm/data.js';

export { COR_ATTRIBUTE };

/** Parameters recorded in `primitive.extras.corskin` next to the CoRs. */
export interface CorParameters {
  /** Kernel width σ of the similarity the CoRs were computed with. */
  sigma: number;
  /** Weight-space subdivision bound ε the CoRs were computed with. */
  epsilon: number;
  /** `fast` (binned, error ≤ 1e-3 of the bbox diagonal) or `exact`. */
  method?: 'fast' | 'exact';
  /** corskin version that wrote the CoRs (`unknown` when not recorded). */
  version: string;
}

/** Where one glTF primitive's vertices sit inside the merged mesh of its skin. */
export interface SkinnedPart {
  /** The glTF primitive. */
  primitive: Primitive;
  /** First vertex in the merged mesh. */
  vertexOffset: number;
  /** Number of the primitive's vertices. */
  vertexCount: number;
  /** First triangle index entry in the merged `triangles` (a multiple of 3) and entry count. */
  triangleOffset: number;
  /** Number of index entries (3 per triangle). */
  triangleLength: number;
  /** Whether the primitive has a NORMAL attribute. */
  hasNormals: boolean;
  /** Whether the primitive has a TANGENT attribute. */
  hasTangents: boolean;
}

/** One skin of a glTF document with every primitive bound to it. */
export interface SkinnedModel {
  /** The glTF skin. */
  skin: Skin;
  /** The skin's name, or `skin N`. */
  name: string;
  /** The skin's joints as a skeleton (non-joint ancestors that animations move appended). */
  skeleton: Skeleton;
  /** `jointNodes[j]` is joint j (= `skin.joints[j]`). */
  jointNodes: Node[];
  /** Nodes that draw a mesh with this skin. */
  meshNodes: Node[];
  /** All primitives merged (bind space); carries the CoRs when every primitive has them. */
  mesh: SkinnedMesh;
  /** Where each primitive's vertices and triangles sit in {@link SkinnedModel.mesh}, in merge order. */
  parts: SkinnedPart[];
  /**
   * The document's animations, restricted to channels that target this skin's joints (and the
   * morph weights of its meshes).
   */
  animations: AnimationClip[];
  /** Morph targets of the skin's meshes, one group per glTF mesh that has them. */
  morphGroups: MorphGroup[];
  /** Per entry of {@link SkinnedModel.meshNodes}, the index of its mesh's morph group (−1: its mesh has no targets). */
  meshNodeGroups: number[];
  /** CoR parameters found in the primitives' extras, if CoRs are present. */
  corParameters?: CorParameters;
  /** What renormalising the weights changed. */
  weightNormalization: WeightNormalization;
  /** Twist joints added by `corskin add-twist-joints` (node extras `corskin.twistOf`). */
  twistJoints: TwistJoint[];
  /** Things the user should know (renormalised weights, missing normals, malformed channels, …). */
  warnings: string[];
  /**
   * Animation channels on nodes that neither are the skin's joints nor move them (end sites, other
   * skins' joints, props): they do not change this skin, so they are counted here (`corskin info`
   * shows the count), not warned about.
   */
  ignoredAnimationChannels: number;
}

/**
 * Extracts every skin of `document` with the primitives bound to it.
 * @param file the document's path, for error messages
 * @throws CorskinError when there is no skinned primitive, a skinned primitive lacks
 *   JOINTS_0/WEIGHTS_0, influences reference joints outside the skin, positions are not finite,
 *   or a vertex has no positive weight. Weights that do not sum to 1 are renormalised with a
 *   warning.
 */
export function extractSkinnedModels(document: Document, file?: string): SkinnedModel[] {
  const root = document.getRoot();
  const bySkin = new Map<Skin, Node[]>();
  for (const node of root.listNodes()) {
    const skin = node.getSkin();
    const mesh = node.getMesh();
    if (!skin || !mesh || isCageExtras(node.getExtras())) continue; // a cage is not part of the character
    const nodes = bySkin.get(skin) ?? [];
    nodes.push(node);
    bySkin.set(skin, nodes);
  }
  if (bySkin.size === 0) throw new CorskinError('no skinned mesh (no node has both a mesh and a skin)', file);
  const models: SkinnedModel[] = [];
  const skins = root.listSkins();
  for (const [skin, nodes] of bySkin) {
    models.push(extractModel(document, skin, nodes, `skin ${skins.indexOf(skin)}`, file));
  }
  return models;
}

function extractModel(
  document: Document,
  skin: Skin,
  meshNodes: Node[],
  fallbackName: string,
  file?: string,
): SkinnedModel {
  const warnings: string[] = [];
  const name = skin.getName() || fallbackName;
  const jointNodes = skin.listJoints();
  const J = jointNodes.length;
  if (J === 0) throw new CorskinError(`${name} has no joints`, file);
  const skeletonNodeList = skeletonNodes(document, jointNodes, file);
  const skeleton = extractSkeleton(skin, jointNodes, skeletonNodeList, file);

  // Parts: every primitive of every mesh drawn with this skin, once.
  const meshOwners = new Map<Mesh, Node>();
  const prims: Primitive[] = [];
  const primMesh: Mesh[] = [];
  for (const node of meshNodes) {
    const mesh = node.getMesh()!;
    if (meshOwners.has(mesh)) continue;
    meshOwners.set(mesh, node);
    for (const p of mesh.listPrimitives()) {
      prims.push(p);
      primMesh.push(mesh);
    }
  }
  let K = 4;
  let n = 0;
  let triCount = 0;
  for (const p of prims) {
    const pos = p.getAttribute('POSITION');
    if (!pos) throw new CorskinError(`${name}: a primitive has no POSITION`, file);
    if (!p.getAttribute('JOINTS_0') || !p.getAttribute('WEIGHTS_0')) {
      throw new CorskinError(`${name}: a skinned primitive has no JOINTS_0/WEIGHTS_0 attributes`, file);
    }
    K = Math.max(K, 4 * influenceSets(p));
    for (let set = 0; set < influenceSets(p); set++) {
      const type = p.getAttribute(`JOINTS_${set}`)!.getComponentType();
      if (type !== Accessor.ComponentType.UNSIGNED_BYTE && type !== Accessor.ComponentType.UNSIGNED_SHORT)
        throw new CorskinError(
          `${name}: JOINTS_${set} must hold unsigned bytes or shorts (joint indices), not ${type}`,
          file,
        );
    }
    n += pos.getCount();
    triCount += triangleIndices(p).length / 3;
  }
  if (n === 0) throw new CorskinError(`${name}: the skinned primitives have no vertices`, file);
  const mesh: SkinnedMesh = {
    positions: new Float32Array(3 * n),
    normals: new Float32Array(3 * n),
    triangles: new Uint32Array(3 * triCount),
    influences: K,
    joints: new Uint32Array(K * n),
    weights: new Float32Array(K * n),
  };
  const anyTangents = prims.some((p) => p.getAttribute('TANGENT'));
  if (anyTangents) mesh.tangents = new Float32Array(4 * n);
  const allCors = prims.every((p) => p.getAttribute(COR_ATTRIBUTE));
  if (allCors) mesh.centersOfRotation = new Float32Array(3 * n);
  const parts: SkinnedPart[] = [];
  let v0 = 0;
  let t0 = 0;
  const el: number[] = [];
  for (const p of prims) {
    const count = p.getAttribute('POSITION')!.getCount();
    const copy = (attr: string, out: Float32Array, comps: number) => {
      const acc = p.getAttribute(attr)!;
      if (acc.getCount() !== count)
        throw new CorskinError(`${name}: ${attr} has ${acc.getCount()} elements, POSITION has ${count}`, file);
      readFloats(acc, out, comps * v0, comps);
    };
    copy('POSITION', mesh.positions, 3);
    const hasNormals = !!p.getAttribute('NORMAL');
    if (hasNormals) copy('NORMAL', mesh.normals!, 3);
    const hasTangents = !!p.getAttribute('TANGENT');
    if (hasTangents) copy('TANGENT', mesh.tangents!, 4);
    if (allCors) copy(COR_ATTRIBUTE, mesh.centersOfRotation!, 3);
    if (allCors)
      for (let k = 3 * v0; k < 3 * (v0 + count); k++)
        if (!Number.isFinite(mesh.centersOfRotation![k]))
          throw new CorskinError(`${name}: ${COR_ATTRIBUTE} of vertex ${Math.floor(k / 3)} is not finite`, file);
    for (let set = 0; set < K / 4; set++) {
      const ja = p.getAttribute(`JOINTS_${set}`);
      const wa = p.getAttribute(`WEIGHTS_${set}`);
      if (!ja || !wa) continue;
      if (ja.getCount() !== count || wa.getCount() !== count) {
        throw new CorskinError(`${name}: JOINTS_${set}/WEIGHTS_${set} do not match POSITION's ${count} vertices`, file);
      }
      for (let i = 0; i < count; i++) {
        ja.getElement(i, el);
        for (let c = 0; c < 4; c++) mesh.joints[K * (v0 + i) + 4 * set + c] = el[c];
        wa.getElement(i, el);
        for (let c = 0; c < 4; c++) mesh.weights[K * (v0 + i) + 4 * set + c] = el[c];
      }
    }
    const tris = triangleIndices(p);
    for (let i = 0; i < tris.length; i++) {
      if (tris[i] >= count) throw new CorskinError(`${name}: index ${tris[i]} out of range (${count} vertices)`, file);
      mesh.triangles[t0 + i] = tris[i] + v0;
    }
    parts.push({
      primitive: p,
      vertexOffset: v0,
      vertexCount: count,
      triangleOffset: t0,
      triangleLength: tris.length,
      hasNormals,
      hasTangents,
    });
    v0 += count;
    t0 += tris.length;
  }
  if (!parts.every((p) => p.hasNormals)) {
    if (parts.some((p) => p.hasNormals))
      warnings.push('some primitives have no NORMAL: their normals are not deformed');
    if (!parts.some((p) => p.hasNormals)) delete mesh.normals;
  }
  validateSkinnedMesh(mesh, J, file);
  checkInverseBindMatrices(name, skeleton, mesh, warnings, file);
  const deltaMush = readDeltaMush(parts, J, name, file);
  if (deltaMush) setDdmModel(mesh, deltaMush);
  const weightNormalization = normalizeWeights(mesh, WEIGHT_SUM_TOLERANCE, file);
  if (weightNormalization.renormalized > 0) {
    warnings.push(
      `${weightNormalization.renormalized} vertices had weights not summing to 1 (largest deviation ${weightNormalization.maxDeviation.toPrecision(3)}); renormalised`,
    );
  }
  let corParameters: CorParameters | undefined;
  if (allCors) {
    const extras = parts[0].primitive.getExtras() as { corskin?: Partial<CorParameters> };
    const c = extras.corskin;
    const positive = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x > 0;
    if (c && positive(c.sigma) && positive(c.epsilon)) {
      corParameters = {
        sigma: c.sigma,
        epsilon: c.epsilon,
        method: c.method === 'exact' ? 'exact' : 'fast',
        version: String(c.version ?? 'unknown'),
      };
    }
  }
  const morphGroups: MorphGroup[] = [];
  const groupOfNode = new Map<Node, number>();
  for (const [m, node] of meshOwners) {
    const T = Math.max(0, ...m.listPrimitives().map((p) => p.listTargets().length));
    if (!T) continue;
    const targets: MorphTarget[][] = Array.from({ length: T }, () => []);
    parts.forEach((part, k) => {
      if (primMesh[k] !== m) return;
      part.primitive.listTargets().forEach((target, t) => {
        const delta = (semantic: string) => {
          const acc = target.getAttribute(semantic);
          if (!acc) return undefined;
          if (acc.getCount() !== part.vertexCount)
            throw new CorskinError(
              `${name}: morph target ${t} ${semantic} has ${acc.getCount()} elements, POSITION has ${part.vertexCount}`,
              file,
            );
          const out = new Float32Array(3 * part.vertexCount);
          readFloats(acc, out, 0, 3);
          return out;
        };
        targets[t].push({
          vertexOffset: part.vertexOffset,
          vertexCount: part.vertexCount,
          positions: delta('POSITION'),
          normals: part.hasNormals ? delta('NORMAL') : undefined,
          tangents: part.hasTangents ? delta('TANGENT') : undefined,
        });
      });
    });
    const defaults = node.getWeights().length ? node.getWeights() : m.getWeights();
    const weights = new Float64Array(T);
    weights.set(defaults.slice(0, T));
    for (const owner of meshNodes) if (owner.getMesh() === m) groupOfNode.set(owner, morphGroups.length);
    morphGroups.push({ name: m.getName() || `mesh ${document.getRoot().listMeshes().indexOf(m)}`, weights, targets });
  }
  const ignored = { channels: 0 };
  const animations = extractAnimations(document, skeletonNodeList, groupOfNode, morphGroups, warnings, ignored, file);
  const twistJoints: TwistJoint[] = [];
  const byName = new Map<string, number>();
  jointNodes.forEach((n, j) => byName.has(n.getName()) || byName.set(n.getName(), j));
  jointNodes.forEach((n, t) => {
    const of = (n.getExtras() as { corskin?: { twistOf?: string } }).corskin?.twistOf;
    const joint = of === undefined ? -1 : (byName.get(of) ?? -1);
    const [x, y, z] = n.getTranslation();
    const l = Math.hypot(x, y, z);
    if (of !== undefined && joint >= 0 && l > 0) twistJoints.push({ joint, twist: t, axis: [x / l, y / l, z / l] });
  });
  return {
    twistJoints,
    skin,
    name,
    skeleton,
    jointNodes,
    meshNodes,
    mesh,
    parts,
    animations,
    morphGroups,
    meshNodeGroups: meshNodes.map((n) => groupOfNode.get(n) ?? -1),
    corParameters,
    weightNormalization,
    warnings,
    ignoredAnimationChannels: ignored.channels,
  };
}

/** Triangle list of a primitive (strips and fans converted; points and lines give none). */
function triangleIndices(p: Primitive): Uint32Array {
  const mode = p.getMode();
  const count = p.getAttribute('POSITION')!.getCount();
  const idxAcc = p.getIndices();
  const idx = idxAcc ? Uint32Array.from(idxAcc.getArray()!) : Uint32Array.from({ length: count }, (_, i) => i);
  if (mode === Primitive.Mode.TRIANGLES) return idx.length % 3 ? idx.subarray(0, idx.length - (idx.length % 3)) : idx;
  const out: number[] = [];
  if (mode === Primitive.Mode.TRIANGLE_STRIP) {
    for (let i = 0; i + 2 < idx.length; i++) {
      if (i % 2) out.push(idx[i + 1], idx[i], idx[i + 2]);
      else out.push(idx[i], idx[i + 1], idx[i + 2]);
    }
  } else if (mode === Primitive.Mode.TRIANGLE_FAN) {
    for (let i = 1; i + 1 < idx.length; i++) out.push(idx[0], idx[i], idx[i + 1]);
  }
  return Uint32Array.from(out);
}

/**
 * Stores centers of rotation on every primitive of `model` as the `_CENTER_OF_ROTATION`
 * attribute (VEC3 float, bind space) and records the parameters in `extras.corskin`.
 * @param centers bind-space centers for the merged mesh, length 3·n
 * @throws CorskinError when `centers` is not 3·n long (n: the model's vertices)
 */
export function setCentersOfRotation(
  document: Document,
  model: SkinnedModel,
  centers: Float32Array,
  params: { sigma: number; epsilon: number; method?: 'fast' | 'exact' },
): void {
  if (centers.length !== model.mesh.positions.length)
    throw new CorskinError(
      `centers of rotation: ${centers.length} numbers for ${model.mesh.positions.length / 3} vertices (3 each expected)`,
    );
  const buffer = document.getRoot().listBuffers()[0] ?? document.createBuffer();
  for (const part of model.parts) {
    const p = part.primitive;
    const acc = document
      .createAccessor()
      .setType('VEC3')
      .setBuffer(buffer)
      .setArray(centers.slice(3 * part.vertexOffset, 3 * (part.vertexOffset + part.vertexCount)));
    const old = p.getAttribute(COR_ATTRIBUTE);
    p.setAttribute(COR_ATTRIBUTE, acc);
    disposeIfUnused(old);
    const extras = {
      ...(p.getExtras() as object),
      corskin: { sigma: params.sigma, epsilon: params.epsilon, method: params.method ?? 'fast', version: VERSION },
    };
    p.setExtras(extras);
  }
  model.mesh.centersOfRotation = centers;
  model.corParameters = { ...params, version: VERSION };
}

/**
 * Bind-space segments of every joint's bone(s): from the joint to each child node (joint or not,
 * such as the `_end` nodes `corskin convert` writes); a joint without children gets a point.
 * Bind positions come from the inverse bind matrices (joints) and the joint's bind matrix times
 * the child's local transform (other nodes).
 * @param file the model's file, for error messages
 * @returns per joint, a list of segments (start x, y, z, end x, y, z), bind space (asset units)
 * @throws CorskinError naming `file` and the joint when an inverse bind matrix is singular
 */
export function jointBoneSegments(model: SkinnedModel, file?: string): number[][][] {
  const { skeleton, jointNodes } = model;
  const J = jointNodes.length;
  const bind = new Float64Array(16 * J);
  for (let j = 0; j < J; j++) {
    if (!mat4Invert(bind, 16 * j, skeleton.inverseBindMatrices, 16 * j)) {
      throw new CorskinError(
        `${model.name}: joint "${skeleton.jointNames[j]}" has a singular inverse bind matrix (no bind position to weight from)`,
        file,
      );
    }
  }
  const index = new Map<Node, number>(jointNodes.map((n, j) => [n, j]));
  const local = new Float64Array(16);
  const m = new Float64Array(16);
  return jointNodes.map((node, j) => {
    const head = [bind[16 * j + 12], bind[16 * j + 13], bind[16 * j + 14]];
    const segments = node.listChildren().map((child) => {
      const c = index.get(child);
      if (c !== undefined) return [...head, bind[16 * c + 12], bind[16 * c + 13], bind[16 * c + 14]];
      mat4FromTRS(local, 0, child.getTranslation(), 0, child.getRotation(), 0, child.getScale(), 0);
      mat4Multiply(m, 0, bind, 16 * j, local, 0);
      return [...head, m[12], m[13], m[14]];
    });
    return segments.length ? segments : [[...head, ...head]];
  });
}

/**
 * Refuses a skin joint whose inverse bind matrix is singular (its linear part not invertible:
 * {@link mat4LinearPartSingular}; an exporter's all-zero matrix) where it weights a vertex, since
 * it has no bind pose to skin from (LBS put every such vertex at the origin; the Khronos
 * validator reports such matrices too); warns where it weights none, as players never read it.
 * @throws CorskinError naming the file, the skin, the joint and how many vertices it weights
 */
function checkInverseBindMatrices(
  name: string,
  skeleton: Skeleton,
  mesh: SkinnedMesh,
  warnings: string[],
  file?: string,
): void {
  const singular = new Set<number>();
  for (let j = 0; j < skeleton.skinJoints; j++)
    if (mat4LinearPartSingular(skeleton.inverseBindMatrices, 16 * j)) singular.add(j);
  if (!singular.size) return;
  const weighted = new Map<number, number>();
  for (let e = 0; e < mesh.joints.length; e++)
    if (mesh.weights[e] > 0 && singular.has(mesh.joints[e]))
      weighted.set(mesh.joints[e], (weighted.get(mesh.joints[e]) ?? 0) + 1);
  const jointName = (j: number) => `"${skeleton.jointNames[j]}"`;
  const [first] = weighted;
  if (first) {
    const [j, count] = first;
    throw new CorskinError(
      `${name}: the inverse bind matrix of joint ${jointName(j)} is singular (not invertible), and the joint weights ${count} vertices: it has no bind pose to skin them from`,
      file,
    );
  }
  warnings.push(`the inverse bind matrix of joint(s) ${[...singular].map(jointName).join(', ')} is singular; they weight no vertex, so nothing is skinned by them`); // prettier-ignore
}
