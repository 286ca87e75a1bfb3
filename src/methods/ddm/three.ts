/**
 * Direct Delta Mush on the GPU for three.js (Binh Huy Le and J. P. Lewis, "Direct Delta Mush
 * Skinning and Variants", ACM TOG 38(4), SIGGRAPH 2019): a mesh's precomputed data (the
 * `_DDM_*` glTF attributes `corskin precompute --method ddm` writes, which GLTFLoader names
 * `_ddm_joints_0`, `_ddm_omega_0`, …; see `storage.ts`) read back into a {@link DdmModel} and
 * packed for the vertex shader.
 *
 * The packing: per vertex a run of texels of a {@link TEXTURE_WIDTH}-wide float RGBA texture,
 * addressed by the vertex attribute `corskinDdmRange` (first texel, entry count):
 *
 * - `full`: three texels per (vertex, joint) entry, `(joint, X00, X01, X02)`,
 *   `(X03, X11, X12, X13)`, `(X22, X23, X33, 0)` — Ω' of the entry, the symmetric 4×4 about the
 *   vertex's bind position (the geometry's own space, its units);
 * - `compact`: three texels of the vertex's Π' `(X00, X01, X02, X03)`, `(X11, X12, X13, X22)`,
 *   `(X23, X33, 0, 0)`, then the entries two per texel, `(joint, ω, joint, ω)` (padding ω = 0).
 *
 * A vertex with no entry has no texel (count 0: it moves with joint 0, as the CPU deformer);
 * one with a single entry moves with that joint's matrix. The shaders (`three/chunks.ts`, `three/nodes.ts`)
 * then run the CPU deformer's steps (`deformer.ts`, the polar factor of `polar.ts`): `three-glsl.ts`
 * for WebGLRenderer, `three-webgpu.ts` for WebGPURenderer; {@link DDM_GPU} is the method's
 * GPU kernel.
 *
 * @module
 */
import { BufferAttribute, type SkinnedMesh } from 'three';
import { CorskinError } from '../../core/errors.js';
import type { DdmModel, DdmVariant } from './precompute.js';
import { resolveDdmParameters } from './parameters.js';
import { dataTexture, TEXTURE_WIDTH, type GpuMethod } from '../../three/kernel.js';
import { meshFromGeometry } from '../../three/geometry.js';
import { DDM_EXTRAS_KEY } from '../../io/schema.js';
import { DDM_GLSL } from './three-glsl.js';
import { computeDirectDeltaMushOnWorker } from './web-worker.js';

/** The geometry `userData` key of the Direct Delta Mush parameters (glTF primitive extras). */
const EXTRAS_KEY = DDM_EXTRAS_KEY;
/** The mesh `userData` key of the model a mesh renders with (kept between switches). */
const MODEL_KEY = 'corskinDeltaMushModel';

/**
 * The Direct Delta Mush data of a three.js skinned geometry, from GLTFLoader's `_ddm_joints_s`
 * and `_ddm_omega_a` (full) or `_ddm_weights_s` and `_ddm_moments_0…2` (compact) attributes: the
 * entries of each vertex in slot order, slots whose Ω'₃₃ (full) or ω (compact) is 0 left out.
 * Matrices are about each vertex's bind position, in the geometry's space and units.
 * @returns undefined when the geometry has no `_ddm_joints_0`
 * @throws CorskinError naming the mesh when the attributes are incomplete, not finite, or name a
 *   joint the skeleton lacks
 */
export function deltaMushFromGeometry(mesh: SkinnedMesh): DdmModel | undefined {
  const g = mesh.geometry;
  const where = mesh.name || 'SkinnedMesh';
  if (!g.getAttribute('_ddm_joints_0')) return undefined;
  const n = g.getAttribute('position').count;
  let sets = 0;
  while (g.getAttribute(`_ddm_joints_${sets}`)) sets++;
  const S = 4 * sets;
  const full = !!g.getAttribute('_ddm_omega_0');
  const variant: DdmVariant = full ? 'full' : 'compact';
  const bad = (why: string) =>
    new CorskinError(`the Direct Delta Mush attributes ${why}: store them again with corskin precompute --method ddm`, where); // prettier-ignore
  const read = (prefix: string, attributes: number) => {
    const list = Array.from({ length: attributes }, (_, a) => {
      const attr = g.getAttribute(`${prefix}_${a}`);
      if (!attr || attr.itemSize !== 4 || attr.count !== n) throw bad(`lack ${prefix}_${a} (vec4, ${n} vertices)`);
      return attr;
    });
    return (v: number, k: number) => list[k >> 2].getComponent(v, k & 3);
  };
  const joint = read('_ddm_joints', sets);
  const value = full ? read('_ddm_omega', (10 * S) / 4) : read('_ddm_weights', sets);
  const moment = full ? undefined : read('_ddm_moments', 3);
  const J = mesh.skeleton.bones.length;
  const offsets = new Uint32Array(n + 1);
  const joints: number[] = [];
  const values: number[] = [];
  const moments = full ? undefined : new Float32Array(10 * n);
  const per = full ? 10 : 1;
  for (let v = 0; v < n; v++) {
    for (let slot = 0; slot < S; slot++) {
      const x = Array.from({ length: per }, (_, k) => value(v, per * slot + k));
      if (x.some((c) => !Number.isFinite(c))) throw bad(`of vertex ${v} are not finite`);
      if (x[per - 1] === 0) continue;
      const j = joint(v, slot);
      if (!(j < J)) throw bad(`of vertex ${v} name joint ${j} (the skeleton has ${J})`);
      joints.push(j);
      values.push(...x);
    }
    offsets[v + 1] = joints.length;
    if (moments)
      for (let k = 0; k < 10; k++) {
        moments[10 * v + k] = moment!(v, k);
        if (!Number.isFinite(moments[10 * v + k])) throw bad(`of vertex ${v} are not finite`);
      }
  }
  const stored = (g.userData?.[EXTRAS_KEY] ?? {}) as Record<string, unknown>;
  let parameters: DdmModel['parameters'];
  try {
    parameters = resolveDdmParameters(stored);
  } catch {
    parameters = resolveDdmParameters({});
  }
  const common = { variant, offsets, joints: Uint32Array.from(joints), parameters };
  return full
    ? { ...common, matrices: Float32Array.from(values) }
    : { ...common, matrices: moments!, weights: Float32Array.from(values) };
}

/** The Direct Delta Mush model a mesh renders with (after switching it to Direct Delta Mush), or undefined. */
export function deltaMushOf(mesh: SkinnedMesh): DdmModel | undefined {
  return mesh.userData[MODEL_KEY] as DdmModel | undefined;
}

/**
 * Gives a mesh its Direct Delta Mush model (one computed elsewhere, say, or another variant); the
 * next switch to Direct Delta Mush (`useSkinningMethod`) renders with it instead of reading or
 * computing one.
 * @param model for the geometry's vertices in order, matrices about each vertex's bind position
 */
export function setDeltaMushModel(mesh: SkinnedMesh, model: DdmModel): void {
  mesh.userData[MODEL_KEY] = model;
}

/**
 * A Direct Delta Mush model packed for the vertex shader (see the module comment): `range` (2·n:
 * first texel, entry count per vertex) and the RGBA texels of a {@link TEXTURE_WIDTH}-wide float
 * texture, `width`×`height`.
 * @param n the mesh's vertex count
 * @throws CorskinError when the model is for another vertex count or overflows a 2048² texture
 */
export function packDeltaMush(
  model: DdmModel,
  n: number,
): {
  /** Per vertex its first texel and entry count, length 2·n. */
  range: Float32Array;
  /** The texels, RGBA, length 4·width·height. */
  data: Float32Array;
  /** Texture width in texels ({@link TEXTURE_WIDTH}). */
  width: number;
  /** Texture height in texels (at least 1). */
  height: number;
} {
  const { offsets, joints, matrices: X, weights: w } = model;
  if (offsets.length !== n + 1)
    throw new CorskinError(`the Direct Delta Mush data is for ${offsets.length - 1} vertices, the mesh has ${n}`);
  const compact = model.variant === 'compact';
  let texels = 0;
  for (let i = 0; i < n; i++) {
    const k = offsets[i + 1] - offsets[i];
    texels += compact ? (k ? 3 + Math.ceil(k / 2) : 0) : 3 * k;
  }
  const width = TEXTURE_WIDTH;
  const height = Math.max(1, Math.ceil(texels / width));
  if (height > TEXTURE_WIDTH)
    throw new CorskinError(`the Direct Delta Mush data needs ${texels} texels, more than a ${width}² texture holds`);
  const data = new Float32Array(4 * width * height);
  const range = new Float32Array(2 * n);
  let t = 0;
  /** Writes the 10 numbers at X[o…] as three texels. */
  const matrix = (o: number) => {
    data.set([X[o], X[o + 1], X[o + 2], X[o + 3], X[o + 4], X[o + 5], X[o + 6], X[o + 7], X[o + 8], X[o + 9]], 4 * t);
    t += 3;
  };
  for (let i = 0; i < n; i++) {
    const e0 = offsets[i];
    const e1 = offsets[i + 1];
    range[2 * i] = t;
    range[2 * i + 1] = e1 - e0;
    if (e1 === e0) continue;
    if (compact) {
      matrix(10 * i);
      for (let e = e0; e < e1; e += 2) {
        data[4 * t] = joints[e];
        data[4 * t + 1] = w![e];
        if (e + 1 < e1) {
          data[4 * t + 2] = joints[e + 1];
          data[4 * t + 3] = w![e + 1];
        }
        t++;
      }
      continue;
    }
    for (let e = e0; e < e1; e++) {
      const o = 10 * e;
      data.set([joints[e], X[o], X[o + 1], X[o + 2]], 4 * t);
      data.set([X[o + 3], X[o + 4], X[o + 5], X[o + 6]], 4 * t + 4);
      data.set([X[o + 7], X[o + 8], X[o + 9], 0], 4 * t + 8);
      t += 3;
    }
  }
  return { range, data, width, height };
}

/**
 * Direct Delta Mush in `corskin/three`: the mesh's model (set with {@link setDeltaMushModel},
 * stored in its geometry, or computed: `options.computeDeltaMush`, default on a Web Worker)
 * packed into one texture. The kernel reads its own entries, not the skin's influences.
 */
export const DDM_GPU: GpuMethod = {
  id: 'ddm',
  glsl: DDM_GLSL,
  async bind(mesh, options) {
    let model = deltaMushOf(mesh) ?? deltaMushFromGeometry(mesh);
    if (!model) {
      const compute =
        options.computeDeltaMush ??
        ((m: SkinnedMesh) =>
          computeDirectDeltaMushOnWorker(meshFromGeometry(m), {
            onProgress: (d, t) => options.onProgress?.(m, d, t, 'Direct Delta Mush'),
          }));
      model = await compute(mesh);
    }
    let packed: ReturnType<typeof packDeltaMush>;
    try {
      packed = packDeltaMush(model, mesh.geometry.getAttribute('position').count);
    } catch (e) {
      throw new CorskinError((e as Error).message, mesh.name || 'SkinnedMesh', { cause: e });
    }
    setDeltaMushModel(mesh, model);
    return {
      attributes: { corskinDdmRange: new BufferAttribute(packed.range, 2) },
      textures: { corskinDdm: dataTexture(packed.data, packed.width, packed.height) },
      influences: false,
      variant: model.variant,
    };
  },
};
