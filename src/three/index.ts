/**
 * `corskin/three`: DQS, CoR and skinning-template skinning on the GPU for three.js's
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
 * // … render as usual; 'dqs' and 'templates' too, and 'lbs' restores three's own skinning:
 * await useSkinningMethod(gltf.scene, 'lbs');
 * ```
 *
 * WebGLRenderer: the built-in materials (and the depth/distance materials of shadows) get their
 * skinning shader chunks replaced (`onBeforeCompile`); per frame and mesh, the joints' rigid
 * transforms in the mesh's bind space — `bindMatrixInverse · boneMatrix · bindMatrix` from
 * `skeleton.boneMatrices` — are turned into dual quaternions (DQS) or matrix rows plus
 * quaternions (CoR) and uploaded in a float texture, once per rendered frame. CoR reads the
 * centers of rotation from `geometry.attributes._center_of_rotation` (what GLTFLoader makes of the
 * `_CENTER_OF_ROTATION` attribute); when absent they are computed (on a Web Worker where there is
 * one) and the mesh switches when they arrive. `'templates'` (Ju et al., SIGGRAPH Asia 2008) takes
 * the template rig `corskin templates build` stored in the file, or builds one on a Web Worker,
 * and per frame poses the template cage on the CPU and uploads it (`templates.ts`); switch a
 * joint's template with {@link setSkinningTemplate}. `'ddm'` (Direct Delta Mush, Le & Lewis 2019)
 * reads the data `corskin precompute --method ddm` stored (`_ddm_*` attributes), or computes it
 * from the geometry in this thread, packs it into a float texture (`methods/ddm/three.ts`) and evaluates the
 * blend and its polar factor per vertex in the shader. `'lbs'` restores the original materials.
 * WebGPURenderer: import `useSkinningMethod` from `corskin/three/webgpu` instead; node materials
 * then get their skinning node replaced by corskin's (`nodes.ts`), reading the same joint texture.
 *
 * @module corskin/three
 */
import { COR_ATTRIBUTE_THREE } from '../io/schema.js';
import {
  BufferAttribute,
  DataTexture,
  MeshDepthMaterial,
  MeshDistanceMaterial,
  RGBADepthPacking,
  type Material,
  type Object3D,
  type SkinnedMesh,
  type WebGLRenderer,
} from 'three';
import { CorskinError } from '../core/errors.js';
import type { DdmModel } from '../methods/ddm/precompute.js';
import { limitInfluences, mergeSkinnedMeshes, type SkinnedMesh as CorskinMesh } from '../core/mesh.js';
import type { Skeleton } from '../core/skeleton.js';
import { computeCentersOfRotationOnWorker } from '../cor/web-worker.js';
import { computeDirectDeltaMushOnWorker } from '../methods/ddm/web-worker.js';
import { methodInfo, type GpuMethodId, type ThreeMethodId } from '../deformers/registry.js';
import { cpuMethodOf, restoreCpu, useCpuMethod } from './cpu.js';
import { buildTemplateRigOnWorker } from '../methods/templates/web-worker.js';
import type { TemplateRig } from '../methods/templates/rig.js';
import { skinOutsideMessage, templateSkinOutside } from '../methods/templates/outside.js';
import { patchVertexShader, TEXELS_PER_JOINT, type ChunkOptions } from './chunks.js';
import { influenceSets, meshFromGeometry, writeJointTexture } from './geometry.js';
import { deltaMushFromGeometry, deltaMushOf, packDeltaMush, setDeltaMushModel } from '../methods/ddm/three.js';
import {
  createTemplateGpuState,
  dataTexture,
  isCageObject,
  setSkinTemplateRig,
  setTemplateRig,
  skeletonFromThree,
  STATE_KEY,
  cageObjectOf,
  templateRigFromCage,
  templateRigOf,
  updateTemplateCage,
  type TemplateGpuState,
} from '../methods/templates/three.js';

export {
  isCageObject,
  setSkinningTemplate,
  setSkinTemplateRig,
  setTemplateRig,
  skeletonFromThree,
  storedTemplateRig,
  templateRigOf,
  packTemplateBinding,
  TEXTURE_WIDTH,
  type TemplateGpuState,
} from '../methods/templates/three.js';
export { deltaMushFromGeometry, deltaMushOf, packDeltaMush, setDeltaMushModel } from '../methods/ddm/three.js';
export { bindSpaceSkinningMatrices, meshFromGeometry, writeJointTexture } from './geometry.js';
export { cpuStandIn } from './cpu.js';

/**
 * The skinning methods the GPU path offers: the registry's methods with `gpu: true`
 * (`GPU_METHODS` in `corskin`).
 */
export type GpuSkinningMethod = GpuMethodId;

/**
 * Every method {@link useSkinningMethod} switches to: the GPU ones, and method modules without a
 * GPU kernel (Delta Mush), which run on the CPU (`cpu.ts`). `THREE_METHODS` in `corskin`.
 */
export type ThreeSkinningMethod = ThreeMethodId;

/** What a node-material patch needs: the method, the joint texture and the stretch flag. */
export interface NodePatchOptions extends ChunkOptions {
  jointTexture: DataTexture;
  /** `value` is 1 while the two-phase path is needed (updated every frame). */
  stretch: { value: number };
  /** Templates: the cage-displacement and binding textures. */
  template?: { cage: DataTexture; binding: DataTexture };
  /** Direct Delta Mush: the packed entries (`methods/ddm/three.ts`; the variant is the `ddm` option). */
  deltaMush?: DataTexture;
}

/** Options of {@link useSkinningMethod}. */
export interface SkinningOptions {
  /**
   * How to get missing centers of rotation: default a Web Worker where one exists, else in this
   * thread (see {@link centersFromGeometry}).
   */
  computeCenters?: (mesh: SkinnedMesh) => Promise<Float32Array>;
  /** Progress of a CoR computation, (vertices done, total). */
  onProgress?: (mesh: SkinnedMesh, done: number, total: number) => void;
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
   * How to get a skin's template rig when the file stores none (`'templates'`): `skin` is the
   * skin's meshes merged ({@link mergeSkinnedMeshes}: meshes with the same bones and bind-space
   * inverse bind matrices, as three.js loads a glTF skin of several primitives; `mesh` the first),
   * `skeleton` in that bind space; each mesh then gets its part ({@link setSkinTemplateRig}). Default:
   * built on a Web Worker (see {@link buildTemplateRigOnWorker}) with the default library,
   * progress reported through `onProgress` for `mesh`.
   */
  buildTemplates?: (mesh: SkinnedMesh, skin: CorskinMesh, skeleton: Skeleton) => Promise<TemplateRig>;
  /**
   * How to get a mesh's Direct Delta Mush data when its geometry has no `_ddm_*` attributes and
   * no model was set ({@link setDeltaMushModel}) (`'ddm'`): default
   * `computeDirectDeltaMush` with the paper's parameters on {@link meshFromGeometry}, on a
   * Web Worker (see {@link computeDirectDeltaMushOnWorker}; in this thread where none can start),
   * progress reported through `onProgress` (seconds for tens of thousands of vertices; bake with
   * `corskin precompute --method ddm` instead). The smoothing domain is this geometry alone.
   */
  computeDeltaMush?: (mesh: SkinnedMesh) => Promise<DdmModel>;
  /**
   * Told of problems that do not stop the switch — a stored template cage that leaves skin
   * vertices outside it ({@link templateSkinOutside}); `message` starts with the mesh's name;
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
  /** Attributes corskin added to the geometry (8 influences, template ranges), removed on restore. */
  added: string[];
  frame: number;
  template?: TemplateGpuState;
  /** Direct Delta Mush: the packed entries. */
  deltaMush?: DataTexture;
}

/** The geometry attributes of 8 influences (the largest, renormalised). */
const EIGHT = ['corskinIndex0', 'corskinWeight0', 'corskinIndex1', 'corskinWeight1'];

/**
 * Switches every `SkinnedMesh` under `object` (itself included) to `method` on the GPU.
 * `'lbs'` restores three's own skinning, except on meshes with more than 4 influences per
 * vertex (glTF `JOINTS_1`…, GLTFLoader's `joints_1`…), which three skins with the first 4 only:
 * those get corskin's LBS with the 8 largest, as DQS and CoR always do.
 * Cage nodes written by corskin ({@link isCageObject}) keep three's skinning.
 * Resolves once every mesh has switched (after CoR computations, template builds and Direct
 * Delta Mush precomputations, if any).
 * @throws Error naming the mesh when its geometry lacks position, skinIndex or skinWeight, or
 *   the CoR computation or template build fails; CorskinError naming the mesh when its Direct
 *   Delta Mush attributes are incomplete or do not fit it
 */
export async function useSkinningMethod(
  object: Object3D,
  method: ThreeSkinningMethod,
  options: SkinningOptions = {},
): Promise<void> {
  const meshes: SkinnedMesh[] = [];
  object.traverse((o) => {
    if ((o as SkinnedMesh).isSkinnedMesh && !isCageObject(o)) meshes.push(o as SkinnedMesh);
  });
  if (!methodInfo(method).gpu) {
    for (const mesh of meshes) {
      restore(mesh);
      useCpuMethod(mesh, method, options.parameters);
    }
    return;
  }
  const gpu = method as GpuSkinningMethod;
  const skins = gpu === 'templates' ? await prepareTemplateRigs(object, meshes, options) : undefined;
  await Promise.all(meshes.map((mesh) => switchMesh(mesh, gpu, options, skins?.get(mesh))));
}

/**
 * Gives every mesh without a template rig one: the rig the file stores (warning of skin outside
 * it; the meshes of one stored cage share its cage, limbs and library), else one rig per skin —
 * built once on the skin's meshes merged, a part per mesh. Returns corskin's view of each mesh it
 * read, for the switch.
 */
async function prepareTemplateRigs(
  root: Object3D,
  meshes: SkinnedMesh[],
  options: SkinningOptions,
): Promise<Map<SkinnedMesh, CorskinMesh>> {
  const skins = new Map<SkinnedMesh, CorskinMesh>();
  const groups: { mesh: SkinnedMesh; skin: CorskinMesh; skeleton: Skeleton }[][] = [];
  const restored = new Map<Object3D, TemplateRig>(); // by cage node
  for (const mesh of meshes) {
    if (templateRigOf(mesh)) continue;
    const skin = meshFromGeometry(mesh);
    skins.set(mesh, skin);
    const cage = cageObjectOf(root, mesh);
    let stored = cage && templateRigFromCage(cage, mesh);
    if (cage && stored) {
      const same = restored.get(cage);
      if (same) stored = { ...stored, cage: same.cage, limbs: same.limbs, library: same.library };
      else restored.set(cage, stored);
      const outside = templateSkinOutside(stored, skin.positions);
      if (outside.length)
        (options.onWarning ?? ((_, message) => console.warn(`corskin: ${message}`)))(
          mesh,
          `${mesh.name || 'SkinnedMesh'}: ${skinOutsideMessage(outside)}`,
        );
      setTemplateRig(mesh, stored);
      continue;
    }
    const skeleton = skeletonFromThree(mesh);
    const part = { mesh, skin, skeleton };
    const group = groups.find(([g]) => sameSkin(g.mesh, g.skeleton, mesh, skeleton));
    if (group) group.push(part);
    else groups.push([part]);
  }
  const build =
    options.buildTemplates ??
    ((m: SkinnedMesh, skin: CorskinMesh, skeleton: Skeleton) =>
      buildTemplateRigOnWorker(skin, skeleton, undefined, { onProgress: (d, t) => options.onProgress?.(m, d, t) }));
  await Promise.all(
    groups.map(async (group) => {
      const [{ mesh, skeleton }] = group;
      const skins = group.map((p) => p.skin);
      const rig = await build(mesh, skins.length > 1 ? mergeSkinnedMeshes(skins) : skins[0], skeleton);
      setSkinTemplateRig(
        group.map((p) => p.mesh),
        skins,
        rig,
      );
    }),
  );
  return skins;
}

/** Whether two meshes are parts of one skin: the same bones, the same bind-space inverse bind matrices. */
function sameSkin(a: SkinnedMesh, sa: Skeleton, b: SkinnedMesh, sb: Skeleton): boolean {
  const [ba, bb] = [a.skeleton.bones, b.skeleton.bones];
  if (ba.length !== bb.length || ba.some((bone, j) => bone !== bb[j])) return false;
  const [x, y] = [sa.inverseBindMatrices, sb.inverseBindMatrices];
  let scale = 0;
  for (let i = 0; i < x.length; i++) scale = Math.max(scale, Math.abs(x[i]));
  return x.every((v, i) => Math.abs(v - y[i]) <= 1e-9 * scale);
}

/** The method a mesh currently renders with. */
export function skinningMethodOf(mesh: SkinnedMesh): ThreeSkinningMethod {
  return (
    (cpuMethodOf(mesh) as ThreeSkinningMethod | undefined) ??
    (mesh.userData[STATE_KEY] as MeshState | undefined)?.method ??
    'lbs'
  );
}

/** @param skin corskin's view of the mesh, when the caller has read it already */
async function switchMesh(
  mesh: SkinnedMesh,
  method: GpuSkinningMethod,
  options: SkinningOptions,
  skin?: CorskinMesh,
): Promise<void> {
  if (method === 'cor' && !mesh.geometry.getAttribute(COR_ATTRIBUTE_THREE)) {
    const compute =
      options.computeCenters ?? ((m: SkinnedMesh) => centersFromGeometry(m, (d, t) => options.onProgress?.(m, d, t)));
    const centers = await compute(mesh);
    mesh.geometry.setAttribute(COR_ATTRIBUTE_THREE, new BufferAttribute(centers, 3));
  }
  let deltaMush: { model: DdmModel; range: Float32Array; texture: DataTexture } | undefined;
  if (method === 'ddm') {
    let model = deltaMushOf(mesh) ?? deltaMushFromGeometry(mesh);
    if (!model) {
      const compute =
        options.computeDeltaMush ??
        ((m: SkinnedMesh) =>
          computeDirectDeltaMushOnWorker(meshFromGeometry(m), { onProgress: (d, t) => options.onProgress?.(m, d, t) }));
      model = await compute(mesh);
    }
    let packed: ReturnType<typeof packDeltaMush>;
    try {
      packed = packDeltaMush(model, mesh.geometry.getAttribute('position').count);
    } catch (e) {
      throw new CorskinError((e as Error).message, mesh.name || 'SkinnedMesh', { cause: e });
    }
    setDeltaMushModel(mesh, model);
    deltaMush = { model, range: packed.range, texture: dataTexture(packed.data, packed.width, packed.height) };
  }
  let template: (TemplateGpuState & { range: Float32Array }) | undefined;
  if (method === 'templates') template = createTemplateGpuState(templateRigOf(mesh)!, skin ?? meshFromGeometry(mesh));
  restore(mesh);
  // Direct Delta Mush reads its own entries, not the influences.
  const eight = method !== 'ddm' && influenceSets(mesh) > 1;
  if (method === 'lbs' && !eight) return;
  const added: string[] = [];
  if (template) {
    mesh.geometry.setAttribute('corskinTemplateRange', new BufferAttribute(template.range, 2));
    added.push('corskinTemplateRange');
  }
  if (deltaMush) {
    mesh.geometry.setAttribute('corskinDdmRange', new BufferAttribute(deltaMush.range, 2));
    added.push('corskinDdmRange');
  }
  if (eight) {
    // The 8 largest influences (renormalised) as two vec4 pairs.
    const data = limitInfluences(meshFromGeometry(mesh), 8).mesh;
    const n = data.positions.length / 3;
    for (let set = 0; set < 2; set++) {
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
      mesh.geometry.setAttribute(EIGHT[2 * set], new BufferAttribute(idx, 4));
      mesh.geometry.setAttribute(EIGHT[2 * set + 1], new BufferAttribute(wgt, 4));
      added.push(EIGHT[2 * set], EIGHT[2 * set + 1]);
    }
  }
  const J = mesh.skeleton.bones.length;
  const size = Math.max(1, Math.ceil(Math.sqrt(J * TEXELS_PER_JOINT)));
  const texture = dataTexture(new Float32Array(4 * size * size), size, size);
  const state: MeshState = {
    method,
    material: mesh.material,
    depth: mesh.customDepthMaterial,
    distance: mesh.customDistanceMaterial,
    onBeforeRender: mesh.onBeforeRender,
    onBeforeShadow: mesh.onBeforeShadow,
    texture,
    stretch: { value: 0 },
    added,
    frame: -1,
    template,
    deltaMush: deltaMush?.texture,
  };
  const textures = template && { cage: template.cage, binding: template.binding };
  const chunkOptions: ChunkOptions = { method, eight, ddm: deltaMush?.model.variant };
  const key = `corskin-${method}${eight ? '-8' : ''}${deltaMush ? `-${deltaMush.model.variant}` : ''}`;
  const patch = (original: Material): Material => {
    const m = options.toNodeMaterial ? options.toNodeMaterial(original) : original;
    if ((m as Material & { isNodeMaterial?: boolean }).isNodeMaterial) {
      if (!options.patchNodeMaterial)
        throw new Error("node materials (WebGPURenderer): use useSkinningMethod from 'corskin/three/webgpu'");
      return options.patchNodeMaterial(m, {
        ...chunkOptions,
        jointTexture: texture,
        stretch: state.stretch,
        template: textures,
        deltaMush: deltaMush?.texture,
      });
    }
    const c = m.clone();
    c.onBeforeCompile = (shader) => {
      shader.uniforms.corskinJoints = { value: texture };
      shader.uniforms.corskinStretch = state.stretch;
      if (textures) {
        shader.uniforms.corskinCage = { value: textures.cage };
        shader.uniforms.corskinBinding = { value: textures.binding };
      }
      if (deltaMush) shader.uniforms.corskinDdm = { value: deltaMush.texture };
      shader.vertexShader = patchVertexShader(shader.vertexShader, chunkOptions);
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
    if (template) updateTemplateCage(template, matrices); // matrices: the bind-space skinning matrices
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
  state.template?.cage.dispose();
  state.template?.binding.dispose();
  state.deltaMush?.dispose();
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
