/**
 * `corskin/three/webgpu`: `corskin/three` for WebGPURenderer (either backend) — every GPU method
 * of `corskin/three` (and 8-influence LBS) for three.js node materials. The same
 * {@link useSkinningMethod} call as `corskin/three` gives every material corskin's skinning node;
 * GLTFLoader's classic materials are converted to node materials first, as WebGPURenderer would.
 *
 * ```ts
 * import { WebGPURenderer } from 'three/webgpu';
 * import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
 * import { useSkinningMethod } from 'corskin/three/webgpu';
 *
 * const renderer = new WebGPURenderer();
 * await renderer.init();
 * const gltf = await new GLTFLoader().loadAsync('character-cor.glb');
 * scene.add(gltf.scene);
 * await useSkinningMethod(gltf.scene, 'cor'); // or another of THREE_METHODS; 'lbs' restores three's own
 * ```
 *
 * How it works: a node function that replaces three's `skinning()` node with the method's TSL
 * kernel ({@link TSL_KERNELS}; the shared pieces in `tsl.ts`), reading the same joint texture as
 * the WebGL chunks (`chunks.ts`: 4 texels per joint, matrix rows and rotation quaternion, in the
 * mesh's bind space) with the same two-phase path for scale, shear and reflection and the same
 * antipodality rule (largest weight). Direct Delta Mush and skinning templates bring their kernels
 * (`methods/<id>/three-webgpu.ts`). Morph targets, displacement maps, batching, instancing and the
 * material's `positionNode` are applied around it in three's own order.
 *
 * @module corskin/three/webgpu
 */
import { COR_ATTRIBUTE_THREE } from '../io/schema.js';
import type { Material, Object3D } from 'three';
import {
  LineBasicNodeMaterial,
  MeshBasicNodeMaterial,
  MeshLambertNodeMaterial,
  MeshMatcapNodeMaterial,
  MeshNormalNodeMaterial,
  MeshPhongNodeMaterial,
  MeshPhysicalNodeMaterial,
  MeshStandardNodeMaterial,
  MeshToonNodeMaterial,
} from 'three/webgpu';
import {
  Fn,
  attribute,
  batch,
  instancedMesh,
  materialReference,
  morphReference,
  normalLocal,
  positionLocal,
  subBuild,
  vec3,
} from 'three/tsl';
import {
  applyAffine,
  applyStretch,
  dqsPosition,
  influences,
  qlerp,
  rotate,
  rotateNormals,
  sum,
  tslContext,
  type Node,
  type TslKernel,
} from './tsl.js';
import { programKey } from './kernel.js';
import { DDM_TSL } from '../methods/ddm/three-webgpu.js';
import { TEMPLATES_TSL } from '../methods/templates/three-webgpu.js';
import {
  useSkinningMethod as useSkinningMethodBase,
  type ThreeSkinningMethod,
  type NodePatchOptions,
  type SkinningOptions,
} from './index.js';

export type { TslContext, TslKernel } from './tsl.js';
// What acts on the objects `useSkinningMethod` prepared, whichever renderer draws them.
export { isCageObject, setDeltaMushModel, setSkinningTemplate } from './index.js';

/** LBS of up to the 16 largest influences (three's own node skins 4). */
const LBS_TSL: TslKernel = {
  id: 'lbs',
  skin(c) {
    const { W, joints } = influences(c);
    const L = [0, 1, 2].map((col) => sum(W.map((w, k) => joints[k].linear[col].mul(w))).toConst());
    const t = sum(W.map((w, k) => joints[k].transform(vec3(0)).mul(w))).toConst();
    applyAffine(c, L, t);
  },
};

/** Dual quaternion skinning with corskin's two-phase stretch. */
const DQS_TSL: TslKernel = {
  id: 'dqs',
  skin(c) {
    const b = qlerp(c);
    dqsPosition(b);
    rotateNormals(c, b, b.r);
  },
};

/** Optimized centers of rotation (Le & Hodgins 2016, Algorithm 1: QLERP rotation about the center of rotation, moved to where LBS takes it). */
const COR_TSL: TslKernel = {
  id: 'cor',
  skin(c) {
    const b = qlerp(c);
    const center = attribute(COR_ATTRIBUTE_THREE, 'vec3').toConst();
    const lbsOfCenter = sum(b.W.map((w, k) => b.joints[k].transform(center).mul(w)));
    positionLocal.assign(rotate(b.r, applyStretch(b, positionLocal.sub(center))).add(lbsOfCenter));
    rotateNormals(c, b, b.r);
  },
};

/** The TSL kernels, one per method of the registry with `gpu: true` (a test checks they agree). */
export const TSL_KERNELS: readonly TslKernel[] = [LBS_TSL, DQS_TSL, COR_TSL, TEMPLATES_TSL, DDM_TSL];

/**
 * The skinning node: assigns `positionLocal`, `normalLocal` and `tangentLocal` from the joint
 * texture (filled by `writeJointTexture`) by `o.method`'s kernel.
 * @throws Error for a method without a TSL kernel
 */
export function corskinSkinning(o: NodePatchOptions, hasNormal: boolean, hasTangent: boolean): Node {
  const kernel = TSL_KERNELS.find((k) => k.id === o.method);
  if (!kernel) throw new Error(`corskin/three/webgpu: no TSL kernel for method ${o.method}`);
  return Fn(() => kernel.skin(tslContext(o, hasNormal, hasTangent)), 'void')();
}

/**
 * A clone of a node material whose vertex position stage skins with corskin instead of three's
 * `skinning()` node: three's `NodeMaterial.setupPosition` with that one step replaced (morph
 * targets before skinning; displacement map, batching, instancing and `positionNode` after).
 */
export function patchNodeMaterial(material: Material, o: NodePatchOptions): Material {
  const m = material.clone() as Material & {
    setupPosition: (builder: Node) => Node;
    positionNode: Node;
    displacementMap?: unknown;
  };
  const base = m.setupPosition;
  m.setupPosition = function (builder: Node) {
    const { object, geometry } = builder;
    if (!object.isSkinnedMesh) return base.call(this, builder);
    if (geometry.morphAttributes.position || geometry.morphAttributes.normal || geometry.morphAttributes.color) {
      morphReference(object);
    }
    corskinSkinning(o, builder.hasGeometryAttribute('normal'), builder.hasGeometryAttribute('tangent'));
    if (this.displacementMap) {
      const map: Node = materialReference('displacementMap', 'texture');
      const scale = materialReference('displacementScale', 'float');
      const bias = materialReference('displacementBias', 'float');
      positionLocal.addAssign(normalLocal.normalize().mul(map.x.mul(scale).add(bias)));
    }
    if (object.isBatchedMesh) batch(object);
    if (object.isInstancedMesh && object.instanceMatrix?.isInstancedBufferAttribute === true) instancedMesh(object);
    if (this.positionNode) positionLocal.assign(subBuild(this.positionNode, 'POSITION', 'vec3'));
    return positionLocal;
  };
  // The textures are baked into the node graph, which WebGPURenderer shares between render
  // objects of one cache key: each mesh's own (its joints, its method's data) must be in the key,
  // or a second skin drew with the first one's data (the Soldier's visor with its body's DDM).
  const own = [o.jointTexture, ...Object.values(o.textures)].map((t) => t.id).join('-');
  m.customProgramCacheKey = () => `${programKey(o.method, o)}-${own}`;
  return m;
}

/** The node material class WebGPURenderer uses for each classic material type. */
const NODE_MATERIALS: Record<string, new () => Material> = {
  MeshStandardMaterial: MeshStandardNodeMaterial,
  MeshPhysicalMaterial: MeshPhysicalNodeMaterial,
  MeshPhongMaterial: MeshPhongNodeMaterial,
  MeshLambertMaterial: MeshLambertNodeMaterial,
  MeshBasicMaterial: MeshBasicNodeMaterial,
  MeshToonMaterial: MeshToonNodeMaterial,
  MeshNormalMaterial: MeshNormalNodeMaterial,
  MeshMatcapMaterial: MeshMatcapNodeMaterial,
  LineBasicMaterial: LineBasicNodeMaterial,
};

/**
 * The node material WebGPURenderer would make of a classic material (GLTFLoader's
 * MeshStandardMaterial, …): the same class mapping and property copy as three's
 * `NodeLibrary.fromMaterial`. Node materials are returned as they are.
 * @throws Error naming the material type when it has no node-material equivalent
 */
export function toNodeMaterial(material: Material): Material {
  if ((material as Material & { isNodeMaterial?: boolean }).isNodeMaterial) return material;
  const NodeClass = NODE_MATERIALS[material.type];
  if (!NodeClass)
    throw new Error(
      `corskin/three/webgpu: ${material.type} has no node-material equivalent; give the mesh a node material (e.g. MeshStandardNodeMaterial)`,
    );
  const node = new NodeClass() as Material & Record<string, unknown>;
  for (const key in material) node[key] = (material as unknown as Record<string, unknown>)[key];
  return node;
}

/**
 * `useSkinningMethod` for WebGPURenderer (either backend): every material — GLTFLoader's own
 * classic materials too, converted as WebGPURenderer would — gets corskin's skinning node.
 * @throws as `corskin/three`'s, and when a material has no node-material equivalent
 */
export function useSkinningMethod(
  object: Object3D,
  method: ThreeSkinningMethod,
  options: SkinningOptions = {},
): Promise<void> {
  return useSkinningMethodBase(object, method, { ...options, patchNodeMaterial, toNodeMaterial });
}
