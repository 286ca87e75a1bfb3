/**
 * `corskin/three/webgpu` — DQS and CoR skinning for three.js node materials (WebGPURenderer,
 * TSL): a node function that
 * replaces three's `skinning()` node, reading the same joint texture as the WebGL chunks
 * (`chunks.ts`): DQS 2 texels per joint (real, dual), CoR 4 (matrix rows, quaternion), all in the
 * mesh's bind space.
 *
 * @module
 */
import type { DataTexture, Material, Object3D } from 'three';
import {
  Fn,
  attribute,
  cross,
  dot,
  float,
  int,
  ivec2,
  normalLocal,
  normalize,
  positionLocal,
  select,
  tangentLocal,
  texture,
  vec3,
  vec4,
} from 'three/tsl';
import { useSkinningMethod as useSkinningMethodBase, type GpuSkinningMethod, type SkinningOptions } from './index.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- TSL nodes are untyped proxies */
type Node = any;

/** `v + 2 q.xyz × (q.xyz × v + q.w v)`: v rotated by unit quaternion q. */
const rotate = (q: Node, v: Node): Node => v.add(cross(q.xyz, cross(q.xyz, v).add(q.w.mul(v))).mul(2));

/**
 * The skinning node for `method`: assigns `positionLocal`, `normalLocal` and `tangentLocal` from
 * the joint texture (a DataTexture filled by {@link writeJointTexture}).
 */
export function corskinSkinning(
  method: 'dqs' | 'cor',
  jointTexture: DataTexture,
  hasNormal: boolean,
  hasTangent: boolean,
): Node {
  return Fn(() => {
    const tex = texture(jointTexture);
    const stride = method === 'dqs' ? 2 : 4;
    const size = int(jointTexture.image.width);
    const fetch = (joint: Node, k: number): Node => {
      const i = int(joint).mul(stride).add(k).toConst();
      return tex.load(ivec2(i.mod(size), i.div(size)));
    };
    const skinIndex = attribute('skinIndex', 'uvec4');
    const skinWeight = attribute('skinWeight', 'vec4');
    const idx = [skinIndex.x, skinIndex.y, skinIndex.z, skinIndex.w];
    const w = [skinWeight.x, skinWeight.y, skinWeight.z, skinWeight.w];
    const qk = method === 'dqs' ? 0 : 3;
    const q0 = fetch(idx[0], qk).toConst();
    const qs = [q0, fetch(idx[1], qk).toConst(), fetch(idx[2], qk).toConst(), fetch(idx[3], qk).toConst()];
    // Antipodality against the first influence.
    const ws = w.map((x, k) => (k === 0 ? x : select(dot(q0, qs[k]).lessThan(0), x.negate(), x)));
    let q: Node = qs[0].mul(ws[0]);
    for (let k = 1; k < 4; k++) q = q.add(qs[k].mul(ws[k]));
    if (method === 'dqs') {
      let d: Node = fetch(idx[0], 1).mul(ws[0]);
      for (let k = 1; k < 4; k++) d = d.add(fetch(idx[k], 1).mul(ws[k]));
      const len = q.length().toConst();
      const r = q.div(len).toConst();
      const dd = d.div(len).toConst();
      const t = r.w.mul(dd.xyz).sub(dd.w.mul(r.xyz)).add(cross(r.xyz, dd.xyz)).mul(2);
      positionLocal.assign(rotate(r, positionLocal).add(t));
      if (hasNormal) normalLocal.assign(rotate(r, normalLocal));
      if (hasTangent) tangentLocal.assign(rotate(r, tangentLocal));
    } else {
      const r = normalize(q).toConst();
      const c = attribute('_center_of_rotation', 'vec3').toConst();
      const c1 = vec4(c, float(1));
      let lbs: Node = vec3(0);
      for (let k = 0; k < 4; k++) {
        const m = vec3(dot(fetch(idx[k], 0), c1), dot(fetch(idx[k], 1), c1), dot(fetch(idx[k], 2), c1));
        lbs = lbs.add(m.mul(w[k]));
      }
      positionLocal.assign(rotate(r, positionLocal.sub(c)).add(lbs));
      if (hasNormal) normalLocal.assign(rotate(r, normalLocal));
      if (hasTangent) tangentLocal.assign(rotate(r, tangentLocal));
    }
  }, 'void')();
}

/**
 * A clone of a node material whose vertex position stage skins with corskin instead of three's
 * `skinning()` node. Morph targets, displacement maps, batching and instancing, which three's
 * node materials add around skinning, are not applied to skinned meshes switched this way.
 */
export function patchNodeMaterial(material: Material, method: 'dqs' | 'cor', jointTexture: DataTexture): Material {
  const m = material.clone() as Material & { setupPosition: (builder: Node) => Node; positionNode: Node };
  const base = m.setupPosition;
  m.setupPosition = function (builder: Node) {
    if (!builder.object.isSkinnedMesh) return base.call(this, builder);
    corskinSkinning(
      method,
      jointTexture,
      builder.hasGeometryAttribute('normal'),
      builder.hasGeometryAttribute('tangent'),
    );
    if (this.positionNode) positionLocal.assign(this.positionNode);
    return positionLocal;
  };
  m.customProgramCacheKey = () => `corskin-${method}`;
  return m;
}

/**
 * `useSkinningMethod` for scenes with node materials (WebGPURenderer, either backend): node
 * materials get corskin's skinning node, classic materials the WebGL chunks.
 * @throws as `corskin/three`'s
 */
export function useSkinningMethod(
  object: Object3D,
  method: GpuSkinningMethod,
  options: SkinningOptions = {},
): Promise<void> {
  return useSkinningMethodBase(object, method, { ...options, patchNodeMaterial });
}
