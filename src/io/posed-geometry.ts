/**
 * Posed geometry written back into a document: the output of `corskin deform` and
 * `corskin evaluate --out`. Node layer (`corskin/node`), because it loads glTF-Transform's document
 * functions on demand.
 *
 * @module
 */
import { Accessor, Primitive, PropertyType, type Document, type Node } from '@gltf-transform/core';
import type { SkinnedModel } from './gltf.js';
import { quietLogger } from './gltf-write.js';
import { optionalDependency } from './optional.js';
import { isCageNode } from './cage-gltf.js';

/** The attributes a posed, static primitive keeps. */
const STATIC_ATTRIBUTE = /^(POSITION|NORMAL|TANGENT|TEXCOORD_\d+|COLOR_\d+)$/;

/** Posed geometry of one model, merged layout (see {@link SkinnedModel.parts}). */
export interface PosedGeometry {
  /** Posed positions, 3·n (relative to `origin` when set). */
  positions: Float32Array;
  /** Posed normals, 3·n. */
  normals?: Float32Array;
  /** Posed tangents (x, y, z, w), 4·n. */
  tangents?: Float32Array;
  /**
   * The pose reflects (`skinningReflects`: an armature under a mirroring node): the static
   * triangles are written with their vertices in the opposite order, and the tangents' w
   * negated, so that the geometry faces outwards, and its bitangents point, as the posed mesh's do
   * (its node loses the mirroring transform that made renderers turn the triangles over).
   */
  reflected?: boolean;
  /**
   * Where the pose was taken about a point far from the origin (`farShift`): that point (posed
   * space), which the positions are relative to; written as their nodes' translation.
   */
  origin?: readonly number[];
}

/**
 * Turns `document` into static geometry: each model's primitives get the posed POSITION (and
 * NORMAL/TANGENT where they had them), keep their texture coordinates, colours and materials,
 * and lose every other attribute (JOINTS/WEIGHTS, centers of rotation, Direct Delta Mush
 * matrices, cage bindings, the application's own), corskin's extras and their morph targets (the
 * posed geometry has them applied at the pose's weights), their nodes lose the skin and
 * move to the scene root with an identity transform (posed positions are already in world
 * space; relative to {@link PosedGeometry.origin} where given, their translation); skins and animations are removed and what nothing references any more is pruned.
 * Primitive order and vertex order are kept. Uses `@gltf-transform/functions` (an optional
 * dependency, loaded on demand).
 * @throws CorskinError when `@gltf-transform/functions` is not installed
 */
export async function bakePosedGeometry(
  document: Document,
  models: SkinnedModel[],
  posed: PosedGeometry[],
): Promise<void> {
  const { listNodeScenes, prune } = await optionalDependency(
    import('@gltf-transform/functions'),
    '@gltf-transform/functions',
    'Baking posed geometry',
  );
  const root = document.getRoot();
  const buffer = root.listBuffers()[0] ?? document.createBuffer();
  models.forEach((model, m) => {
    const g = posed[m];
    const tangents = g.reflected ? g.tangents?.map((x, i) => (i % 4 === 3 ? -x : x)) : g.tangents;
    for (const part of model.parts) {
      const p = part.primitive;
      const a = part.vertexOffset,
        b = part.vertexOffset + part.vertexCount;
      const set = (name: string, type: 'VEC3' | 'VEC4', data: Float32Array, c: number) =>
        p.setAttribute(
          name,
          document
            .createAccessor()
            .setType(type)
            .setBuffer(buffer)
            .setArray(data.slice(c * a, c * b)),
        );
      set('POSITION', 'VEC3', g.positions, 3);
      if (part.hasNormals && g.normals) set('NORMAL', 'VEC3', g.normals, 3);
      if (part.hasTangents && tangents) set('TANGENT', 'VEC4', tangents, 4);
      if (g.reflected && p.getMode() >= Primitive.Mode.TRIANGLES) {
        // The part's triangles (strips and fans as lists), each in the opposite order.
        const tris = partTriangles(model, part, true);
        const indices = part.vertexCount > 65535 ? tris : Uint16Array.from(tris);
        p.setIndices(document.createAccessor().setType('SCALAR').setBuffer(buffer).setArray(indices));
        p.setMode(Primitive.Mode.TRIANGLES);
      }
      // Static geometry: what draws it, nothing of the skin or of a method's precomputed data.
      for (const attr of p.listSemantics()) if (!STATIC_ATTRIBUTE.test(attr)) p.setAttribute(attr, null);
      const extras = { ...(p.getExtras() as Record<string, unknown>) };
      for (const key of Object.keys(extras)) if (key.startsWith('corskin')) delete extras[key];
      p.setExtras(extras);
      // Morph targets were applied at the pose's weights before skinning.
      for (const target of p.listTargets()) {
        p.removeTarget(target);
        target.dispose();
      }
    }
    for (const node of model.meshNodes) {
      node.setWeights([]);
      node.getMesh()?.setWeights([]);
    }
    for (const node of model.meshNodes) {
      node.setSkin(null);
      const scenes = listNodeScenes(node);
      if (!scenes.length && root.listScenes().length) scenes.push(root.listScenes()[0]);
      node.getParentNode()?.removeChild(node);
      for (const scene of scenes) scene.addChild(node);
      node.setTranslation([g.origin?.[0] ?? 0, g.origin?.[1] ?? 0, g.origin?.[2] ?? 0]).setRotation([0, 0, 0, 1]).setScale([1, 1, 1]); // prettier-ignore
    }
  });
  // A cage rig (corskin bind-cage) drives the skin: no part of the posed geometry.
  for (const node of root.listNodes())
    if (isCageNode(node)) {
      node.getMesh()?.dispose();
      node.dispose();
    }
  for (const anim of root.listAnimations()) anim.dispose();
  for (const skin of root.listSkins()) skin.dispose();
  document.setLogger(quietLogger);
  // glTF-Transform's node pruning recurses through the tree (a 4,000-deep hierarchy overflows the
  // stack): prune everything else with it, and empty nodes here, iteratively.
  const T = PropertyType;
  const kinds = [
    T.SKIN,
    T.MESH,
    T.CAMERA,
    T.PRIMITIVE,
    T.PRIMITIVE_TARGET,
    T.ANIMATION,
    T.MATERIAL,
    T.TEXTURE,
    T.ACCESSOR,
    T.BUFFER,
  ];
  await document.transform(prune({ keepAttributes: true, keepExtras: true, propertyTypes: kinds }));
  removeEmptyNodes(document);
  // The posed positions, normals and tangents are float: the file no longer requires
  // KHR_mesh_quantization unless an attribute it keeps is stored as the extension allows alone.
  const quantization = root.listExtensionsUsed().find((e) => e.extensionName === 'KHR_mesh_quantization');
  if (quantization && !needsMeshQuantization(document)) quantization.dispose();
}

/**
 * Whether a primitive of `document` has an attribute in a component type that core glTF 2.0 does
 * not allow for it (KHR_mesh_quantization's integers): core allows float everywhere, and unsigned
 * normalized bytes or shorts for TEXCOORD_n and COLOR_n; an application's `_` attributes any type.
 */
function needsMeshQuantization(document: Document): boolean {
  const { FLOAT, UNSIGNED_BYTE, UNSIGNED_SHORT } = Accessor.ComponentType;
  for (const mesh of document.getRoot().listMeshes())
    for (const p of mesh.listPrimitives())
      for (const semantic of p.listSemantics()) {
        const a = p.getAttribute(semantic)!;
        const type = a.getComponentType();
        if (semantic.startsWith('_') || type === FLOAT) continue;
        const unsignedNormalized = a.getNormalized() && (type === UNSIGNED_BYTE || type === UNSIGNED_SHORT);
        if (!(/^(TEXCOORD|COLOR)_\d+$/.test(semantic) && unsignedNormalized)) return true;
      }
  return false;
}

/** Removes, leaves first and without recursion, the nodes with no mesh, camera, child or extension. */
function removeEmptyNodes(document: Document): void {
  // Child counts kept here: listing a parent's children again after each removal is quadratic
  // for a node with tens of thousands of children (a flat 65,535-joint rig).
  const children = new Map<Node, number>();
  for (const n of document.getRoot().listNodes()) children.set(n, n.listChildren().length);
  const empty = (n: Node) => !children.get(n) && !n.getMesh() && !n.getCamera() && !n.listExtensions().length;
  const stack = document.getRoot().listNodes().filter(empty);
  while (stack.length) {
    const node = stack.pop()!;
    if (node.isDisposed() || !empty(node)) continue;
    const parent = node.getParentNode();
    node.dispose();
    if (parent) {
      children.set(parent, children.get(parent)! - 1);
      if (empty(parent)) stack.push(parent);
    }
  }
}

/**
 * A part's triangles (strips and fans as lists; `SkinnedModel.mesh.triangles`), indices local to
 * the part, 3·t; with `turnedOver`, each in the opposite order (a reflecting pose, see
 * {@link PosedGeometry.reflected}).
 */
export function partTriangles(
  model: SkinnedModel,
  part: SkinnedModel['parts'][number],
  turnedOver = false,
): Uint32Array {
  const a = part.vertexOffset;
  const tris = model.mesh.triangles.slice(part.triangleOffset, part.triangleOffset + part.triangleLength);
  for (let t = 0; t < tris.length; t += 3) {
    const [u, v, w] = [tris[t] - a, tris[t + 1] - a, tris[t + 2] - a];
    [tris[t], tris[t + 1], tris[t + 2]] = turnedOver ? [u, w, v] : [u, v, w];
  }
  return tris;
}
