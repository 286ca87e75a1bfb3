/**
 * `corskin/three`: DQS and CoR skinning on the GPU for three.js's `SkinnedMesh`, as a drop-in
 * for its linear blend skinning.
 *
 * ```ts
 * import { useSkinningMethod } from 'corskin/three';
 * await useSkinningMethod(gltf.scene, 'cor'); // every SkinnedMesh below gltf.scene
 * ```
 *
 * WebGLRenderer: the built-in materials (and the depth/distance materials of shadows) get their
 * skinning shader chunks replaced (`onBeforeCompile`); per frame and mesh, the joints' rigid
 * transforms in the mesh's bind space — `bindMatrixInverse · boneMatrix · bindMatrix` from
 * `skeleton.boneMatrices` — are turned into dual quaternions (DQS) or matrix rows plus
 * quaternions (CoR) and uploaded in a float texture, once per rendered frame. CoR reads the
 * centers of rotation from `geometry.attributes._center_of_rotation` (what GLTFLoader makes of the
 * `_CENTER_OF_ROTATION` attribute); when absent they are computed (on a Web Worker where there is
 * one) and the mesh switches when they arrive. `'lbs'` restores the original materials.
 * WebGPURenderer: import `useSkinningMethod` from `corskin/three/webgpu` instead; node materials
 * then get their skinning node replaced by corskin's (`nodes.ts`), reading the same joint texture.
 *
 * @module
 */
import {
  BufferAttribute,
  DataTexture,
  FloatType,
  Matrix4,
  MeshDepthMaterial,
  MeshDistanceMaterial,
  NearestFilter,
  RGBADepthPacking,
  RGBAFormat,
  type Material,
  type Object3D,
  type SkinnedMesh,
  type WebGLRenderer,
} from 'three';
import { quatFromMat4 } from '../core/math.js';
import type { SkinnedMesh as CorskinMesh } from '../core/mesh.js';
import { computeCentersOfRotation } from '../cor/precompute.js';
import { patchVertexShader, TEXELS_PER_JOINT } from './chunks.js';

/** The skinning methods the GPU path offers. */
export type GpuSkinningMethod = 'lbs' | 'dqs' | 'cor';

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
  patchNodeMaterial?: (material: Material, method: 'dqs' | 'cor', jointTexture: DataTexture) => Material;
}

interface MeshState {
  method: GpuSkinningMethod;
  material: Material | Material[];
  depth: Material | undefined;
  distance: Material | undefined;
  onBeforeRender: SkinnedMesh['onBeforeRender'];
  onBeforeShadow: SkinnedMesh['onBeforeShadow'];
  texture?: DataTexture;
  frame: number;
}

const STATE = 'corskin';

/**
 * Switches every `SkinnedMesh` under `object` (itself included) to `method` on the GPU.
 * Resolves once every mesh has switched (after CoR computations, if any were needed).
 * @throws Error when a mesh has more than 4 influences per vertex in use (`skinIndex` only) —
 *   never for LBS
 */
export async function useSkinningMethod(
  object: Object3D,
  method: GpuSkinningMethod,
  options: SkinningOptions = {},
): Promise<void> {
  const meshes: SkinnedMesh[] = [];
  object.traverse((o) => {
    if ((o as SkinnedMesh).isSkinnedMesh) meshes.push(o as SkinnedMesh);
  });
  await Promise.all(meshes.map((mesh) => switchMesh(mesh, method, options)));
}

/** The method a mesh currently renders with. */
export function skinningMethodOf(mesh: SkinnedMesh): GpuSkinningMethod {
  return (mesh.userData[STATE] as MeshState | undefined)?.method ?? 'lbs';
}

async function switchMesh(mesh: SkinnedMesh, method: GpuSkinningMethod, options: SkinningOptions): Promise<void> {
  if (method === 'cor' && !mesh.geometry.getAttribute('_center_of_rotation')) {
    const compute =
      options.computeCenters ?? ((m: SkinnedMesh) => centersFromGeometry(m, (d, t) => options.onProgress?.(m, d, t)));
    const centers = await compute(mesh);
    mesh.geometry.setAttribute('_center_of_rotation', new BufferAttribute(centers, 3));
  }
  restore(mesh);
  if (method === 'lbs') return;
  const state: MeshState = {
    method,
    material: mesh.material,
    depth: mesh.customDepthMaterial,
    distance: mesh.customDistanceMaterial,
    onBeforeRender: mesh.onBeforeRender,
    onBeforeShadow: mesh.onBeforeShadow,
    frame: -1,
  };
  const J = mesh.skeleton.bones.length;
  const texels = J * TEXELS_PER_JOINT[method];
  const size = Math.max(1, Math.ceil(Math.sqrt(texels)));
  state.texture = new DataTexture(new Float32Array(4 * size * size), size, size, RGBAFormat, FloatType);
  state.texture.minFilter = state.texture.magFilter = NearestFilter;
  const patch = (m: Material): Material => {
    if ((m as Material & { isNodeMaterial?: boolean }).isNodeMaterial) {
      if (!options.patchNodeMaterial)
        throw new Error("node materials (WebGPURenderer): use useSkinningMethod from 'corskin/three/webgpu'");
      return options.patchNodeMaterial(m, method, state.texture!);
    }
    const c = m.clone();
    c.onBeforeCompile = (shader) => {
      shader.uniforms.corskinJoints = { value: state.texture };
      shader.vertexShader = patchVertexShader(shader.vertexShader, method);
    };
    c.customProgramCacheKey = () => `corskin-${method}`;
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
  const update = (renderer: WebGLRenderer) => {
    // WebGLRenderer counts frames in info.render.frame, WebGPURenderer in info.frame.
    const info = renderer.info as WebGLRenderer['info'] & { frame?: number };
    const frame = info.frame ?? info.render.frame;
    if (frame === state.frame && renderer.info.autoReset) return;
    state.frame = frame;
    mesh.skeleton.update(); // three's own skinning node would have; harmless for WebGLRenderer
    writeJointTexture(mesh, method, state.texture!.image.data as Float32Array);
    state.texture!.needsUpdate = true;
  };
  mesh.onBeforeRender = function (renderer, ...rest) {
    update(renderer);
    state.onBeforeRender.call(this, renderer, ...rest);
  };
  mesh.onBeforeShadow = function (renderer, ...rest) {
    update(renderer);
    state.onBeforeShadow.call(this, renderer, ...rest);
  };
  mesh.userData[STATE] = state;
}

function restore(mesh: SkinnedMesh): void {
  const state = mesh.userData[STATE] as MeshState | undefined;
  if (!state) return;
  const dispose = (m: Material | Material[] | undefined) =>
    Array.isArray(m) ? m.forEach((x) => x.dispose()) : m?.dispose();
  dispose(mesh.material);
  dispose(mesh.customDepthMaterial);
  dispose(mesh.customDistanceMaterial);
  state.texture?.dispose();
  mesh.material = state.material;
  mesh.customDepthMaterial = state.depth;
  mesh.customDistanceMaterial = state.distance;
  mesh.onBeforeRender = state.onBeforeRender;
  mesh.onBeforeShadow = state.onBeforeShadow;
  delete mesh.userData[STATE];
}

const M = new Matrix4();
const q = new Float64Array(4);
const m64 = new Float64Array(16);

/**
 * Fills `out` with the joint data of `method` for the mesh's current skeleton state
 * ({@link TEXELS_PER_JOINT} RGBA texels per joint; see `chunks.ts`). Reads
 * `skeleton.boneMatrices`, which three updates before rendering.
 */
export function writeJointTexture(mesh: SkinnedMesh, method: 'dqs' | 'cor', out: Float32Array): void {
  const bones = mesh.skeleton.boneMatrices!;
  const J = mesh.skeleton.bones.length;
  const stride = 4 * TEXELS_PER_JOINT[method];
  for (let j = 0; j < J; j++) {
    M.fromArray(bones, 16 * j)
      .premultiply(mesh.bindMatrixInverse)
      .multiply(mesh.bindMatrix);
    m64.set(M.elements);
    quatFromMat4(q, 0, m64, 0);
    const o = stride * j;
    const e = M.elements;
    if (method === 'dqs') {
      const [x, y, z, w] = q;
      const tx = e[12], ty = e[13], tz = e[14]; // prettier-ignore
      out.set([x, y, z, w], o);
      out[o + 4] = 0.5 * (tx * w + ty * z - tz * y);
      out[o + 5] = 0.5 * (-tx * z + ty * w + tz * x);
      out[o + 6] = 0.5 * (tx * y - ty * x + tz * w);
      out[o + 7] = -0.5 * (tx * x + ty * y + tz * z);
    } else {
      out.set([e[0], e[4], e[8], e[12], e[1], e[5], e[9], e[13], e[2], e[6], e[10], e[14]], o);
      out.set(q, o + 12);
    }
  }
}

/**
 * corskin's view of a three.js skinned geometry (bind space = the geometry's own space), for
 * the CPU deformers and the CoR precomputation.
 * @throws Error when the geometry lacks position, skinIndex or skinWeight
 */
export function meshFromGeometry(mesh: SkinnedMesh): CorskinMesh {
  const g = mesh.geometry;
  const pos = g.getAttribute('position');
  const idx = g.getAttribute('skinIndex');
  const wgt = g.getAttribute('skinWeight');
  if (!pos || !idx || !wgt)
    throw new Error(`${mesh.name || 'SkinnedMesh'}: geometry needs position, skinIndex and skinWeight`);
  const n = pos.count;
  const positions = new Float32Array(3 * n);
  const joints = new Uint32Array(4 * n);
  const weights = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) {
    positions.set([pos.getX(i), pos.getY(i), pos.getZ(i)], 3 * i);
    joints.set([idx.getX(i), idx.getY(i), idx.getZ(i), idx.getW(i)], 4 * i);
    weights.set([wgt.getX(i), wgt.getY(i), wgt.getZ(i), wgt.getW(i)], 4 * i);
    const s = weights[4 * i] + weights[4 * i + 1] + weights[4 * i + 2] + weights[4 * i + 3];
    if (s > 0 && Math.abs(s - 1) > 1e-6) for (let k = 0; k < 4; k++) weights[4 * i + k] /= s;
  }
  const index = g.getIndex();
  const triangles = index ? Uint32Array.from(index.array) : Uint32Array.from({ length: n - (n % 3) }, (_, i) => i);
  const nrm = g.getAttribute('normal');
  const normals = nrm
    ? Float32Array.from({ length: 3 * n }, (_, k) => nrm.getComponent(Math.floor(k / 3), k % 3))
    : undefined;
  return { positions, normals, triangles, influences: 4, joints, weights };
}

/**
 * Computes a mesh's centers of rotation from its geometry (σ = ε = 0.1): on a module Web Worker
 * (`cor-worker.js`) where `Worker` exists, else in this thread. The integration domain is this
 * geometry (for a skin shared by several meshes, bake with `corskin precompute` instead).
 */
export function centersFromGeometry(
  mesh: SkinnedMesh,
  onProgress?: (done: number, total: number) => void,
): Promise<Float32Array> {
  return centersOnWorker(meshFromGeometry(mesh), onProgress);
}

/**
 * Centers of rotation of a corskin mesh (bind space, 3·n) on a module Web Worker
 * (`cor-worker.js`), or in this thread where there is no `Worker`.
 */
export function centersOnWorker(
  data: CorskinMesh,
  onProgress?: (done: number, total: number) => void,
): Promise<Float32Array> {
  if (typeof Worker === 'undefined') return Promise.resolve(computeCentersOfRotation(data, { onProgress }).centers);
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./cor-worker.js', import.meta.url), { type: 'module' });
    worker.onmessage = (e: MessageEvent<{ done?: number; total?: number; centers?: Float32Array; error?: string }>) => {
      if (e.data.centers) {
        worker.terminate();
        resolve(e.data.centers);
      } else if (e.data.error) {
        worker.terminate();
        reject(new Error(e.data.error));
      } else onProgress?.(e.data.done!, e.data.total!);
    };
    worker.onerror = (e) => {
      worker.terminate();
      reject(new Error(e.message));
    };
    worker.postMessage(data);
  });
}
