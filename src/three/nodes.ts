/**
 * `corskin/three/webgpu`: `corskin/three` for WebGPURenderer (either backend) — DQS, CoR and
 * skinning-template skinning (and 8-influence LBS) for three.js node materials. The same
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
 * await useSkinningMethod(gltf.scene, 'cor'); // or 'dqs', 'templates'; 'lbs' restores three's own
 * ```
 *
 * How it works: a node function that replaces three's `skinning()` node, reading the
 * same joint texture as the WebGL chunks (`chunks.ts`: 4 texels per joint, matrix rows and
 * rotation quaternion, in the mesh's bind space) with the same two-phase path for scale, shear
 * and reflection and the same antipodality rule (largest weight). Morph targets, displacement
 * maps, batching, instancing and the material's `positionNode` are applied around it in
 * three's own order.
 *
 * @module corskin/three/webgpu
 */
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
  Loop,
  attribute,
  batch,
  cross,
  dot,
  float,
  instancedMesh,
  int,
  ivec2,
  mat3,
  materialReference,
  morphReference,
  normalLocal,
  positionLocal,
  select,
  subBuild,
  tangentLocal,
  texture,
  transpose,
  uniform,
  vec3,
  vec4,
} from 'three/tsl';
import { TEXELS_PER_JOINT } from './chunks.js';
import { TEXTURE_WIDTH } from './templates.js';
import {
  useSkinningMethod as useSkinningMethodBase,
  type GpuSkinningMethod,
  type NodePatchOptions,
  type SkinningOptions,
} from './index.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- TSL nodes are untyped proxies */
type Node = any;

/** `v + 2 q.xyz × (q.xyz × v + q.w v)`: v rotated by unit quaternion q. */
const rotate = (q: Node, v: Node): Node => v.add(cross(q.xyz, cross(q.xyz, v).add(q.w.mul(v))).mul(2));

/** v / |v|, or v itself when it is zero (zero normals in real files stay zero, never NaN). */
const safeNormalize = (v: Node): Node => {
  const l = v.length();
  return select(l.greaterThan(0), v.div(l), v);
};

/** det(A)·A⁻ᵀ n with the sign of det(A) (columns a0, a1, a2). */
const cofactor = (a: Node[], n: Node): Node => {
  const c0 = cross(a[1], a[2]), c1 = cross(a[2], a[0]), c2 = cross(a[0], a[1]); // prettier-ignore
  const r = c0.mul(n.x).add(c1.mul(n.y)).add(c2.mul(n.z));
  return select(dot(a[0], c0).lessThan(0), r.negate(), r);
};

/**
 * The skinning node: assigns `positionLocal`, `normalLocal` and `tangentLocal` from the joint
 * texture (filled by `writeJointTexture`), for `o.method` with 4 or 8 influences.
 */
export function corskinSkinning(o: NodePatchOptions, hasNormal: boolean, hasTangent: boolean): Node {
  return Fn(() => {
    const tex = texture(o.jointTexture);
    const size = int(o.jointTexture.image.width);
    const stretch = uniform(0).onObjectUpdate(() => o.stretch.value);
    const fetch = (joint: Node, k: number): Node => {
      const i = int(joint).mul(TEXELS_PER_JOINT).add(k).toConst();
      return tex.load(ivec2(i.mod(size), i.div(size)));
    };
    const J: Node[] = [];
    const W: Node[] = [];
    const sets: Node[][] = o.eight
      ? [
          [attribute('corskinIndex0', 'vec4'), attribute('corskinWeight0', 'vec4')],
          [attribute('corskinIndex1', 'vec4'), attribute('corskinWeight1', 'vec4')],
        ]
      : [[attribute('skinIndex', 'uvec4'), attribute('skinWeight', 'vec4')]];
    for (const [idx, wgt] of sets) {
      for (const c of ['x', 'y', 'z', 'w']) {
        J.push(float(idx[c]).toConst());
        W.push(wgt[c].toConst());
      }
    }
    const rows = J.map((j) => [fetch(j, 0).toConst(), fetch(j, 1).toConst(), fetch(j, 2).toConst()]);
    const transform = (k: number, p: Node): Node => {
      const p1 = vec4(p, float(1));
      return vec3(dot(rows[k][0], p1), dot(rows[k][1], p1), dot(rows[k][2], p1));
    };
    // Columns of L_j.
    const linear = (k: number): Node[] => [
      vec3(rows[k][0].x, rows[k][1].x, rows[k][2].x),
      vec3(rows[k][0].y, rows[k][1].y, rows[k][2].y),
      vec3(rows[k][0].z, rows[k][1].z, rows[k][2].z),
    ];
    const blend = (parts: Node[]): Node => parts.reduce((a, b) => a.add(b));
    if (o.method === 'lbs') {
      const L = [0, 1, 2].map((c) => blend(W.map((w, k) => linear(k)[c].mul(w))).toConst());
      const t = blend(W.map((w, k) => transform(k, vec3(0)).mul(w))).toConst();
      if (hasNormal) normalLocal.assign(safeNormalize(cofactor(L, normalLocal)));
      if (hasTangent)
        tangentLocal.assign(
          safeNormalize(L[0].mul(tangentLocal.x).add(L[1].mul(tangentLocal.y)).add(L[2].mul(tangentLocal.z))),
        );
      positionLocal.assign(
        L[0].mul(positionLocal.x).add(L[1].mul(positionLocal.y)).add(L[2].mul(positionLocal.z)).add(t),
      );
      return;
    }
    const Q = J.map((j) => fetch(j, 3).toConst());
    // Pivot: the largest weight, ties to the smaller joint index.
    let bestW: Node = W[0];
    let bestJ: Node = J[0];
    let pivot: Node = Q[0];
    for (let k = 1; k < W.length; k++) {
      const better = W[k].greaterThan(bestW).or(W[k].equal(bestW).and(J[k].lessThan(bestJ)));
      bestW = select(better, W[k], bestW);
      bestJ = select(better, J[k], bestJ);
      pivot = select(better, Q[k], pivot);
    }
    pivot = pivot.toConst();
    const S = W.map((w, k) => select(dot(Q[k], pivot).lessThan(0), w.negate(), w).toConst());
    const qSum = blend(Q.map((q, k) => q.mul(S[k]))).toConst();
    const len = qSum.length().toConst();
    let r = qSum.div(len).toConst();
    // Blended stretch K̄ = Σ w_j R_jᵀ L_j (identity when every matrix is rigid).
    const stretchOf = (k: number): Node[] => {
      const Rt = transpose(mat3(rotate(Q[k], vec3(1, 0, 0)), rotate(Q[k], vec3(0, 1, 0)), rotate(Q[k], vec3(0, 0, 1))));
      return linear(k).map((col) => Rt.mul(col));
    };
    const parts = W.map((_, k) => stretchOf(k));
    const K = [0, 1, 2].map((c) =>
      select(
        stretch.greaterThan(0.5),
        blend(W.map((w, k) => parts[k][c].mul(w))),
        vec3(c === 0 ? 1 : 0, c === 1 ? 1 : 0, c === 2 ? 1 : 0),
      ).toConst(),
    );
    const applyK = (v: Node): Node => K[0].mul(v.x).add(K[1].mul(v.y)).add(K[2].mul(v.z));
    if (o.method === 'dqs' || o.method === 'templates') {
      // Center at the vertex: blend the dual quaternions of [R_j | M_j(v) − v].
      const v = positionLocal.toConst();
      const d = blend(
        W.map((_, k) => {
          const m = transform(k, v).sub(v);
          const q = Q[k];
          return vec4(q.w.mul(m).add(cross(m, q.xyz)), dot(m, q.xyz).negate()).mul(S[k].mul(0.5));
        }),
      )
        .div(len)
        .toConst();
      const t = r.w.mul(d.xyz).sub(d.w.mul(r.xyz)).add(cross(r.xyz, d.xyz)).mul(2);
      positionLocal.assign(v.add(t));
      if (o.method === 'templates') {
        // The templates' correction over DQS (`templates.ts`, the WebGL chunk's loop): the cage's
        // correction dual quaternions through the vertex's binding run, blended with the identity.
        const cage = texture(o.template!.cage);
        const binding = texture(o.template!.binding);
        const texel = (i: Node): Node => ivec2(i.bitAnd(TEXTURE_WIDTH - 1), i.shiftRight(Math.log2(TEXTURE_WIDTH)));
        const range = attribute('corskinTemplateRange', 'vec2');
        const first = int(range.x).toConst();
        const texels = int(range.y).toConst();
        const real = (index: Node): Node => cage.load(texel(int(index).mul(2)));
        const dual = (index: Node): Node => cage.load(texel(int(index).mul(2).add(1)));
        const cr = vec4(0).toVar();
        const cd = vec4(0).toVar();
        const share = float(0).toVar();
        Loop({ start: int(0), end: texels, type: 'int', condition: '<' }, ({ i }: { i: Node }) => {
          const e = binding.load(texel(first.add(i))).toConst();
          cr.addAssign(real(e.x).mul(e.y).add(real(e.z).mul(e.w)));
          cd.addAssign(dual(e.x).mul(e.y).add(dual(e.z).mul(e.w)));
          share.addAssign(e.y.add(e.w));
        });
        const unit: Node = cr.add(vec4(0, 0, 0, float(1).sub(share).max(0))).toConst();
        const len2: Node = unit.length().toConst();
        const u: Node = unit.div(len2).toConst();
        const du: Node = cd.div(len2).toConst();
        const tc: Node = u.w.mul(du.xyz).sub(du.w.mul(u.xyz)).add(cross(u.xyz, du.xyz)).mul(2);
        positionLocal.assign(rotate(u, positionLocal).add(tc));
        // r′ = u ⊗ r: DQS's rotation, then the correction's (normals and tangents below).
        const xyz: Node = u.w.mul(r.xyz).add(r.w.mul(u.xyz)).add(cross(u.xyz, r.xyz));
        r = vec4(xyz, u.w.mul(r.w).sub(dot(u.xyz, r.xyz))).toConst();
      }
    } else {
      const c = attribute('_center_of_rotation', 'vec3').toConst();
      const lbsOfCenter = blend(W.map((w, k) => transform(k, c).mul(w)));
      positionLocal.assign(rotate(r, applyK(positionLocal.sub(c))).add(lbsOfCenter));
    }
    if (hasNormal) normalLocal.assign(rotate(r, safeNormalize(cofactor(K, normalLocal))));
    if (hasTangent) tangentLocal.assign(rotate(r, safeNormalize(applyK(tangentLocal))));
  }, 'void')();
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
  m.customProgramCacheKey = () => `corskin-${o.method}${o.eight ? '-8' : ''}`;
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
  method: GpuSkinningMethod,
  options: SkinningOptions = {},
): Promise<void> {
  return useSkinningMethodBase(object, method, { ...options, patchNodeMaterial, toNodeMaterial });
}
