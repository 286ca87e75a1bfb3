/**
 * `corskin/three`: DQS, CoR, skinning templates and Direct Delta Mush on the GPU for three.js's
 * `SkinnedMesh` with WebGLRenderer, as a drop-in for its linear blend skinning: one call switches
 * every skinned mesh below an object, and switches it back. For WebGPURenderer, the same API is in
 * `corskin/three/webgpu`.
 *
 * ```ts
 * import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
 * import { useSkinningMethod } from 'corskin/three';
 *
 * const gltf = await new GLTFLoader().loadAsync('character-cor.glb'); // from `corskin precompute`
 * scene.add(gltf.scene);
 * await useSkinningMethod(gltf.scene, 'cor'); // every SkinnedMesh below gltf.scene
 * // … render as usual; every method of THREE_METHODS too, and 'lbs' restores three's own skinning:
 * await useSkinningMethod(gltf.scene, 'lbs');
 * ```
 *
 * WebGLRenderer: the built-in materials (and the depth/distance materials of shadows) get their
 * skinning shader chunks replaced (`onBeforeCompile`) by the method's GLSL kernel; per frame and
 * mesh, the joints' skinning matrices in the mesh's bind space — `bindMatrixInverse · boneMatrix ·
 * bindMatrix` from `skeleton.boneMatrices` — are uploaded in a float texture as matrix rows plus
 * rotation quaternions, once per rendered frame. What a method needs beyond its joints is its GPU
 * kernel's ({@link GpuMethod}, one per method of the registry with `gpu: true`,
 * {@link GPU_KERNELS}): CoR reads the centers of rotation from
 * `geometry.attributes._center_of_rotation` (what GLTFLoader makes of the `_CENTER_OF_ROTATION`
 * attribute), computed on a Web Worker when absent; skinning templates (Ju et al., SIGGRAPH Asia
 * 2008) take the template rig `corskin templates build` stored in the file, or build one on a Web
 * Worker, and per frame pose the template cage on the CPU and upload it (switch a joint's
 * template with {@link setSkinningTemplate}); Direct Delta Mush (Le & Lewis 2019) reads the data
 * `corskin precompute --method ddm` stored (`_ddm_*` attributes), or computes it on a Web Worker,
 * and evaluates the blend and its polar factor per vertex in the shader. A method without a GPU
 * kernel (Delta Mush, SBS, LMS, stretch skinning) runs on the CPU (`cpu.ts`), posed in world
 * space. `'lbs'` restores the original materials.
 * WebGPURenderer: import `useSkinningMethod` from `corskin/three/webgpu` instead; node materials
 * then get their skinning node replaced by the method's TSL kernel (`nodes.ts`), reading the same
 * joint texture.
 *
 * @module corskin/three
 */
import { COR_ATTRIBUTE, COR_ATTRIBUTE_THREE } from '../io/schema.js';
import { CorskinError } from '../core/errors.js';
import {
  BufferAttribute,
  MeshDepthMaterial,
  MeshDistanceMaterial,
  RGBADepthPacking,
  type DataTexture,
  type Material,
  type Object3D,
  type SkinnedMesh,
  type WebGLRenderer,
} from 'three';
import type { DdmModel } from '../methods/ddm/precompute.js';
import { limitInfluences, type SkinnedMesh as CorskinMesh } from '../core/mesh.js';
import type { Skeleton } from '../core/skeleton.js';
import { computeCentersOfRotationOnWorker } from '../cor/web-worker.js';
import { methodInfo, THREE_METHODS, type GpuMethodId, type ThreeMethodId } from '../deformers/registry.js';
import { cpuMethodOf, restoreCpu, useCpuMethod } from './cpu.js';
import type { TemplateRig } from '../methods/templates/rig.js';
import { COR_GLSL, corskinInfluenceAttributes, DQS_GLSL, LBS_GLSL, patchVertexShader } from './chunks.js';
import { influenceSets, meshFromGeometry, writeJointTexture } from './geometry.js';
import {
  dataTexture,
  MAX_INFLUENCE_SETS,
  programKey,
  STATE_KEY,
  TEXELS_PER_JOINT,
  type GpuBinding,
  type GpuMethod,
  type KernelOptions,
} from './kernel.js';
import { DDM_GPU } from '../methods/ddm/three.js';
import { isCageObject, TEMPLATES_GPU } from '../methods/templates/three.js';

export {
  isCageObject,
  setSkinningTemplate,
  setSkinTemplateRig,
  setTemplateRig,
  skeletonFromThree,
  storedTemplateRig,
  templateRigOf,
  packTemplateBinding,
  type TemplateGpuState,
} from '../methods/templates/three.js';
export { TEXTURE_WIDTH, type GpuBinding, type GpuMethod, type GlslKernel, type KernelOptions } from './kernel.js';
export { deltaMushFromGeometry, deltaMushOf, packDeltaMush, setDeltaMushModel } from '../methods/ddm/three.js';
export {
  attributeValues,
  bindSpaceSkinningMatrices,
  linearBlendVertex,
  meshFromGeometry,
  worldSkinningMatrices,
  writeJointTexture,
} from './geometry.js';
export { cpuJavaScriptDeformer, cpuStandIn } from './cpu.js';

/**
 * The skinning methods the GPU path offers: the registry's methods with `gpu: true`
 * (`GPU_METHODS` in `corskin`).
 */
export type GpuSkinningMethod = GpuMethodId;

/**
 * Every method {@link useSkinningMethod} switches to: the GPU ones, and those without a GPU
 * kernel that are method modules (Delta Mush) or have a SIMD kernel (spherical blend skinning,
 * Kavan & Žára 2005; log-matrix skinning, Alexa 2002; stretch skinning, Yang & Zhang 2006), which
 * run on the CPU (`cpu.ts`). `THREE_METHODS` in `corskin`.
 */
export type ThreeSkinningMethod = ThreeMethodId;

/** What a node-material patch needs: the method, the joint texture, the stretch flag and the method's textures. */
export interface NodePatchOptions extends KernelOptions {
  /** The GPU method's id (`GPU_METHODS` in `corskin`). */
  method: GpuSkinningMethod;
  /**
   * The mesh's joint texture: per joint 4 RGBA texels, its bind-space skinning matrix's three rows
   * and its rotation quaternion ({@link writeJointTexture}).
   */
  jointTexture: DataTexture;
  /** `value` is 1 while the two-phase path is needed (updated every frame). */
  stretch: {
    /** 1 while the two-phase path is needed, else 0. */
    value: number;
  };
  /** The method's data textures by uniform name ({@link GpuBinding.textures}). */
  textures: Record<string, DataTexture>;
}

/** Options of {@link useSkinningMethod}. */
export interface SkinningOptions {
  /**
   * How to get missing centers of rotation: default a Web Worker where one exists, else in this
   * thread (see {@link centersFromGeometry}).
   */
  computeCenters?: (mesh: SkinnedMesh) => Promise<Float32Array>;
  /**
   * Progress of what a method computes for a mesh (the default computations: centers of
   * rotation, template cages, Direct Delta Mush): work done of total, and `what` names the work
   * ("centers of rotation", "fitting and binding template cages", "Direct Delta Mush").
   */
  onProgress?: (mesh: SkinnedMesh, done: number, total: number, what: string) => void;
  /**
   * How to patch node materials (WebGPURenderer); `corskin/three/webgpu` passes its TSL patch.
   * Kept out of this entry so WebGL users do not load three's node system.
   */
  patchNodeMaterial?: (material: Material, o: NodePatchOptions) => Material;
  /**
   * Converts a classic material into the node material WebGPURenderer would make of it (so its
   * skinning can be replaced); `corskin/three/webgpu` passes its conversion.
   */
  toNodeMaterial?: (material: Material) => Material;
  /**
   * Skinning templates: how to get a skin's template rig when the file stores none: `skin` is the
   * skin's meshes merged (`mergeSkinnedMeshes` in `corskin`: meshes with the same bones and bind-space
   * inverse bind matrices, as three.js loads a glTF skin of several primitives; `mesh` the first),
   * `skeleton` in that bind space; each mesh then gets its part ({@link setSkinTemplateRig}). Default:
   * built on a Web Worker (`buildTemplateRigOnWorker`) with the default library,
   * progress reported through `onProgress` for `mesh`.
   */
  buildTemplates?: (mesh: SkinnedMesh, skin: CorskinMesh, skeleton: Skeleton) => Promise<TemplateRig>;
  /**
   * Direct Delta Mush: how to get a mesh's data when its geometry has no `_ddm_*` attributes and
   * no model was set ({@link setDeltaMushModel}): default
   * `computeDirectDeltaMush` with the paper's parameters on {@link meshFromGeometry}, on a
   * Web Worker (`computeDirectDeltaMushOnWorker`; in this thread where none can start),
   * progress reported through `onProgress` (seconds for tens of thousands of vertices; bake with
   * `corskin precompute --method ddm` instead). The smoothing domain is this geometry alone.
   */
  computeDeltaMush?: (mesh: SkinnedMesh) => Promise<DdmModel>;
  /**
   * Told of problems that do not stop the switch — a stored template cage that leaves skin
   * vertices outside it (`templateSkinOutside`); `message` starts with the mesh's name;
   * default `console.warn` with a `corskin: ` prefix.
   */
  onWarning?: (mesh: SkinnedMesh, message: string) => void;
  /** Parameters of a method module run on the CPU (Delta Mush: iterations, step, …), by its keys. */
  parameters?: Record<string, unknown>;
}

interface MeshState {
  method: GpuSkinningMethod;
  material: Material | Material[];
  depth: Material | undefined;
  distance: Material | undefined;
  onBeforeRender: SkinnedMesh['onBeforeRender'];
  onBeforeShadow: SkinnedMesh['onBeforeShadow'];
  texture: DataTexture;
  /** 1 while some skinning matrix has scale, shear or reflection (two-phase skinning). */
  stretch: { value: number };
  /** Attributes corskin added to the geometry (influence sets, the method's), removed on restore. */
  added: string[];
  /** The method's textures, disposed on restore. */
  textures: DataTexture[];
  /** The frame the textures were last filled for ({@link STATE_KEY}). */
  frame: number;
}

/** LBS: three's own skinning, or corskin's where a vertex has more than 4 influences. */
const LBS_GPU: GpuMethod = { id: 'lbs', glsl: LBS_GLSL, threeNative: true };
/** Dual quaternion skinning. */
const DQS_GPU: GpuMethod = { id: 'dqs', glsl: DQS_GLSL };
/** CoR: the centers of rotation the geometry stores, else computed ({@link SkinningOptions.computeCenters}). */
const COR_GPU: GpuMethod = {
  id: 'cor',
  glsl: COR_GLSL,
  async bind(mesh, options) {
    let centers = mesh.geometry.getAttribute(COR_ATTRIBUTE_THREE) as BufferAttribute | undefined;
    if (!centers) {
      const compute =
        options.computeCenters ??
        ((m: SkinnedMesh) => centersFromGeometry(m, (d, t) => options.onProgress?.(m, d, t, 'centers of rotation')));
      // Kept on the geometry (computed once for every later switch).
      centers = new BufferAttribute(await compute(mesh), 3);
      mesh.geometry.setAttribute(COR_ATTRIBUTE_THREE, centers);
    }
    // Stored ones as the CLI reads them (`io/gltf.ts`): a center that is not finite is refused.
    for (let i = 0; i < centers.count; i++)
      if (!(Number.isFinite(centers.getX(i)) && Number.isFinite(centers.getY(i)) && Number.isFinite(centers.getZ(i))))
        throw new CorskinError(
          `${COR_ATTRIBUTE} of vertex ${i} is not finite: store the centers of rotation again with corskin precompute, or delete the geometry's ${COR_ATTRIBUTE_THREE} attribute to have them computed`,
          mesh.name || 'SkinnedMesh',
        );
    return {};
  },
};

/** The GPU kernels, one per method of the registry with `gpu: true` (a test checks they agree). */
export const GPU_KERNELS: readonly GpuMethod[] = [LBS_GPU, DQS_GPU, COR_GPU, TEMPLATES_GPU, DDM_GPU];

/**
 * Switches every `SkinnedMesh` under `object` (itself included) to `method` on the GPU.
 * `'lbs'` restores three's own skinning, except on meshes with more than 4 influences per
 * vertex (glTF `JOINTS_1`…, GLTFLoader's `joints_1`…), which three skins with the first 4 only:
 * those get corskin's LBS with every influence, up to the 16 largest (fewer where the geometry's
 * other attributes leave less room in WebGL 2's 16: `influenceSetsRead`), as DQS and CoR
 * always do.
 * Cage nodes written by corskin ({@link isCageObject}: a stored template cage, rig data read by
 * the templates method) keep three's skinning and are hidden (`visible = false`; set it back to
 * draw the cage). A method without a
 * GPU kernel (`gpu: false` in the registry) runs on the CPU (`cpu.ts`).
 * Resolves once every mesh has switched (after CoR computations, template builds and Direct
 * Delta Mush precomputations, if any).
 * @throws RangeError when `method` is not one of `THREE_METHODS` (before any mesh changes)
 * @throws Error naming the mesh when its geometry lacks position, skinIndex or skinWeight, or
 *   the CoR computation or template build fails; CorskinError naming the mesh when a stored
 *   center of rotation is not finite, or its Direct Delta Mush attributes are incomplete or do
 *   not fit it
 */
export async function useSkinningMethod(
  object: Object3D,
  method: ThreeSkinningMethod,
  options: SkinningOptions = {},
): Promise<void> {
  if (!THREE_METHODS.includes(method))
    throw new RangeError(`corskin/three runs no skinning method "${String(method)}" (expected ${THREE_METHODS.join(', ')})`); // prettier-ignore
  const meshes: SkinnedMesh[] = [];
  object.traverse((o) => {
    if (isCageObject(o)) o.visible = false;
    else if ((o as SkinnedMesh).isSkinnedMesh) meshes.push(o as SkinnedMesh);
  });
  const kernel = methodInfo(method).gpu ? GPU_KERNELS.find((k) => k.id === method) : undefined;
  if (!kernel) {
    for (const mesh of meshes) {
      restore(mesh);
      await useCpuMethod(mesh, method, options.parameters);
    }
    return;
  }
  const prepared = await kernel.prepare?.(object, meshes, options);
  await Promise.all(meshes.map((mesh) => switchMesh(mesh, kernel, options, prepared?.get(mesh))));
}

/** The method a mesh currently renders with. */
export function skinningMethodOf(mesh: SkinnedMesh): ThreeSkinningMethod {
  return (
    (cpuMethodOf(mesh) as ThreeSkinningMethod | undefined) ??
    (mesh.userData[STATE_KEY] as MeshState | undefined)?.method ??
    'lbs'
  );
}

/**
 * The influence sets a kernel reads of `mesh` (`KernelOptions.influenceSets`): all of the
 * geometry's, up to {@link MAX_INFLUENCE_SETS}, and no more than the vertex attributes left
 * (WebGL 2 guarantees 16: the geometry's own other than its skin's, and `extra` of the method's,
 * come first; at least 2, the 8 largest, as before); 1 where the mesh has 4 influences.
 */
function influenceSetsRead(mesh: SkinnedMesh, extra: number): number {
  const sets = influenceSets(mesh);
  if (sets === 1) return 1;
  const own = Object.keys(mesh.geometry.attributes).filter((a) => !/^(skinIndex|skinWeight|joints_\d+|weights_\d+)$/.test(a)); // prettier-ignore
  const room = Math.floor((MAX_VERTEX_ATTRIBUTES - own.length - extra) / 2);
  return Math.max(2, Math.min(sets, MAX_INFLUENCE_SETS, room));
}

/** The vertex attributes WebGL 2 guarantees a shader. */
const MAX_VERTEX_ATTRIBUTES = 16;

/**
 * The `sets` × 4 largest influences of each vertex (renormalised) as vec4 pairs of attributes
 * (`corskinInfluenceAttributes`).
 */
function corskinInfluences(mesh: SkinnedMesh, sets: number): Record<string, BufferAttribute> {
  const data = limitInfluences(meshFromGeometry(mesh), 4 * sets).mesh;
  const n = data.positions.length / 3;
  const names = corskinInfluenceAttributes({ influenceSets: sets });
  const attributes: Record<string, BufferAttribute> = {};
  for (let set = 0; set < sets; set++) {
    const idx = new Float32Array(4 * n);
    const wgt = new Float32Array(4 * n);
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < 4; k++) {
        const slot = data.influences * i + 4 * set + k;
        if (4 * set + k >= data.influences) continue;
        idx[4 * i + k] = data.joints[slot];
        wgt[4 * i + k] = data.weights[slot];
      }
    }
    attributes[names[2 * set]] = new BufferAttribute(idx, 4);
    attributes[names[2 * set + 1]] = new BufferAttribute(wgt, 4);
  }
  return attributes;
}

/** @param prepared what the kernel's `prepare` returned for the mesh */
async function switchMesh(
  mesh: SkinnedMesh,
  kernel: GpuMethod,
  options: SkinningOptions,
  prepared?: unknown,
): Promise<void> {
  const binding: GpuBinding = (await kernel.bind?.(mesh, options, prepared)) ?? {};
  restore(mesh);
  const sets = binding.influences !== false ? influenceSetsRead(mesh, Object.keys(binding.attributes ?? {}).length) : 1; // prettier-ignore
  if (kernel.threeNative && sets === 1) return;
  const attributes = { ...binding.attributes, ...(sets > 1 ? corskinInfluences(mesh, sets) : {}) };
  for (const [name, attribute] of Object.entries(attributes)) mesh.geometry.setAttribute(name, attribute);
  const J = mesh.skeleton.bones.length;
  const size = Math.max(1, Math.ceil(Math.sqrt(J * TEXELS_PER_JOINT)));
  const texture = dataTexture(new Float32Array(4 * size * size), size, size);
  const textures = binding.textures ?? {};
  const state: MeshState = {
    method: kernel.id as GpuSkinningMethod,
    material: mesh.material,
    depth: mesh.customDepthMaterial,
    distance: mesh.customDistanceMaterial,
    onBeforeRender: mesh.onBeforeRender,
    onBeforeShadow: mesh.onBeforeShadow,
    texture,
    stretch: { value: 0 },
    added: Object.keys(attributes),
    textures: Object.values(textures),
    frame: -1,
  };
  const o: KernelOptions = { influenceSets: sets, variant: binding.variant };
  const key = programKey(kernel.id, o);
  const patch = (original: Material): Material => {
    const m = options.toNodeMaterial ? options.toNodeMaterial(original) : original;
    if ((m as Material & { isNodeMaterial?: boolean }).isNodeMaterial) {
      if (!options.patchNodeMaterial)
        throw new Error("node materials (WebGPURenderer): use useSkinningMethod from 'corskin/three/webgpu'");
      return options.patchNodeMaterial(m, {
        ...o,
        method: state.method,
        jointTexture: texture,
        stretch: state.stretch,
        textures,
      });
    }
    const c = m.clone();
    c.onBeforeCompile = (shader) => {
      shader.uniforms.corskinJoints = { value: texture };
      shader.uniforms.corskinStretch = state.stretch;
      for (const [name, value] of Object.entries(textures)) shader.uniforms[name] = { value };
      shader.vertexShader = patchVertexShader(shader.vertexShader, kernel.glsl, o);
    };
    c.customProgramCacheKey = () => key;
    return c;
  };
  mesh.material = Array.isArray(mesh.material) ? mesh.material.map(patch) : patch(mesh.material);
  const nodes = (Array.isArray(mesh.material) ? mesh.material : [mesh.material]).some(
    (m) => (m as { isNodeMaterial?: boolean }).isNodeMaterial,
  );
  if (!nodes) {
    // WebGLRenderer's shadow passes use these; node materials cast shadows with themselves.
    mesh.customDepthMaterial = patch(new MeshDepthMaterial({ depthPacking: RGBADepthPacking }));
    mesh.customDistanceMaterial = patch(new MeshDistanceMaterial());
  }
  const matrices = new Float64Array(16 * J);
  const update = (renderer: WebGLRenderer) => {
    // WebGLRenderer counts frames in info.render.frame, WebGPURenderer in info.frame.
    const info = renderer.info as WebGLRenderer['info'] & { frame?: number };
    const frame = info.frame ?? info.render.frame;
    if (frame === state.frame && renderer.info.autoReset) return;
    state.frame = frame;
    mesh.skeleton.update(); // three's own skinning node would have; harmless for WebGLRenderer
    state.stretch.value = writeJointTexture(mesh, texture.image.data as Float32Array, matrices) ? 1 : 0;
    texture.needsUpdate = true;
    binding.update?.(matrices); // matrices: the bind-space skinning matrices
  };
  mesh.onBeforeRender = function (renderer, ...rest) {
    update(renderer);
    state.onBeforeRender.call(this, renderer, ...rest);
  };
  mesh.onBeforeShadow = function (renderer, ...rest) {
    update(renderer);
    state.onBeforeShadow.call(this, renderer, ...rest);
  };
  mesh.userData[STATE_KEY] = state;
}

function restore(mesh: SkinnedMesh): void {
  restoreCpu(mesh);
  const state = mesh.userData[STATE_KEY] as MeshState | undefined;
  if (!state) return;
  const dispose = (m: Material | Material[] | undefined) =>
    Array.isArray(m) ? m.forEach((x) => x.dispose()) : m?.dispose();
  dispose(mesh.material);
  dispose(mesh.customDepthMaterial);
  dispose(mesh.customDistanceMaterial);
  state.texture.dispose();
  for (const t of state.textures) t.dispose();
  for (const name of state.added) mesh.geometry.deleteAttribute(name);
  mesh.material = state.material;
  mesh.customDepthMaterial = state.depth;
  mesh.customDistanceMaterial = state.distance;
  mesh.onBeforeRender = state.onBeforeRender;
  mesh.onBeforeShadow = state.onBeforeShadow;
  delete mesh.userData[STATE_KEY];
}

/**
 * Computes a mesh's centers of rotation from its geometry (σ = ε = 0.1) on a Web Worker that the
 * package bundles (see {@link computeCentersOfRotationOnWorker}), or in this thread where none can
 * start. The integration domain is this geometry (for a skin shared by several meshes, bake with
 * `corskin precompute` instead).
 */
export function centersFromGeometry(
  mesh: SkinnedMesh,
  onProgress?: (done: number, total: number) => void,
): Promise<Float32Array> {
  return computeCentersOfRotationOnWorker(meshFromGeometry(mesh), { onProgress });
}
