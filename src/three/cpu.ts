/**
 * Skinning methods without a GPU kernel in `corskin/three`, on the CPU: the method is prepared
 * once per mesh — on its WebAssembly SIMD kernel where it has one and the browser runs
 * WebAssembly SIMD, else through its method module (`prepareMethod`) — and in each frame where
 * the skeleton moved its deformer poses the mesh in world space. The posed mesh is drawn by a
 * plain `Mesh` beside the `SkinnedMesh` (same material, identity model matrix; the `SkinnedMesh` is hidden
 * meanwhile), so no material is patched and every renderer and material draws it as they draw
 * any mesh. Delta Mush is such a method: its smoothing passes run over the whole mesh,
 * which a vertex shader cannot do alone; spherical blend skinning (Kavan & Žára 2005),
 * log-matrix skinning (Alexa 2002) and stretch skinning (Yang & Zhang 2006) run here too, for
 * comparison.
 *
 * @module
 */
import { BufferAttribute, DynamicDrawUsage, Mesh, type BufferGeometry, type SkinnedMesh } from 'three';
import { CorskinError } from '../core/errors.js';
import type { SkinnedMesh as CorskinMesh } from '../core/mesh.js';
import type { Skeleton } from '../core/skeleton.js';
import type { DeformTarget, Deformer } from '../deformers/contract.js';
import { deformers } from '../deformers/index.js';
import { createStretchDeformer, stretchRigFromSkeleton } from '../deformers/stretch.js';
import { methodInfo, THREE_METHODS, type ThreeMethodId } from '../deformers/registry.js';
import { methodModule, prepareMethod } from '../methods/index.js';
import { meshFromGeometry, worldSkinningMatrices } from './geometry.js';
import { skeletonFromThree } from '../methods/templates/three.js';

/** userData key of a mesh's CPU state. */
const CPU_KEY = 'corskinCpu';
/** userData key counting a mesh's method switches (a CPU switch prepared meanwhile is dropped). */
const SWITCH_KEY = 'corskinSwitch';

interface CpuState {
  method: string;
  proxy: Mesh;
  visible: boolean;
}

/**
 * Switches `mesh` to `method` on the CPU (see the module comment).
 * @param parameters the method's parameters (its module's keys; defaults where missing)
 * @throws Error when the mesh has no parent (its stand-in is drawn beside it) or its geometry
 *   lacks position, skinIndex or skinWeight; CorskinError naming the parameter for a bad one
 */
export async function useCpuMethod(
  mesh: SkinnedMesh,
  method: ThreeMethodId,
  parameters?: Record<string, unknown>,
): Promise<void> {
  restoreCpu(mesh);
  const switchNumber = mesh.userData[SWITCH_KEY] as number;
  const name = mesh.name || 'SkinnedMesh';
  const needsParent = () =>
    new Error(`${name}: a mesh skinned on the CPU needs a parent (its posed stand-in is drawn beside it)`);
  if (!mesh.parent) throw needsParent();
  const data = meshFromGeometry(mesh);
  const deformer = await cpuDeformer(method, data, skeletonFromThree(mesh), parameters);
  // The mesh was switched again (to any method) while this one was prepared: the later switch wins.
  if (mesh.userData[SWITCH_KEY] !== switchNumber) return;
  if (!mesh.parent) throw needsParent();
  const geometry = mesh.geometry.clone();
  // A mesh under a mirroring node: three.js turns its triangles' winding over by its model
  // matrix's determinant, and the stand-in, posed in world space under the identity, would show
  // its inside; its triangles are turned over instead.
  mesh.updateWorldMatrix(true, false);
  let turnedOver = mesh.matrixWorld.determinant() < 0;
  if (turnedOver) turnTrianglesOver(geometry);
  const out: DeformTarget = { positions: new Float32Array(data.positions.length) };
  const position = new BufferAttribute(out.positions, 3).setUsage(DynamicDrawUsage);
  geometry.setAttribute('position', position);
  let normal: BufferAttribute | undefined;
  if (data.normals) {
    out.normals = new Float32Array(data.normals.length);
    normal = new BufferAttribute(out.normals, 3).setUsage(DynamicDrawUsage);
    geometry.setAttribute('normal', normal);
  }
  geometry.deleteAttribute('tangent'); // not posed here
  const proxy = new Mesh(geometry, mesh.material);
  proxy.name = `${name} (${method}, CPU)`;
  proxy.castShadow = mesh.castShadow;
  proxy.receiveShadow = mesh.receiveShadow;
  proxy.renderOrder = mesh.renderOrder;
  // Posed in world space (worldSkinningMatrices), as corskin's glTF reader poses a skin: its
  // model matrix stays the identity (three's shadow pass takes it before onBeforeShadow).
  proxy.matrixAutoUpdate = false;
  proxy.matrixWorldAutoUpdate = false;
  const matrices = new Float64Array(16 * mesh.skeleton.bones.length);
  const posedWith = new Float64Array(matrices.length).fill(NaN);
  /** Poses the stand-in where the skeleton (or the mesh's place) moved since it was last posed. */
  const pose = () => {
    // three r160–r165 recompute every child's world matrix in a forced update (the scene's, each
    // frame), whatever its matrixWorldAutoUpdate, which would apply the parent's transform twice.
    proxy.matrixWorld.identity();
    mesh.skeleton.update();
    worldSkinningMatrices(mesh, matrices);
    // Mirrored (or no longer) since the last pose: the triangles follow.
    const mirrored = mesh.matrixWorld.determinant() < 0;
    if (mirrored === turnedOver && matrices.every((x, k) => x === posedWith[k])) return;
    if (mirrored !== turnedOver) {
      turnTrianglesOver(geometry);
      turnedOver = mirrored;
    }
    posedWith.set(matrices);
    deformer(data, matrices, out);
    position.needsUpdate = true;
    if (normal) normal.needsUpdate = true;
  };
  // Posed where the renderers first meet it in a frame: their frustum test, which WebGLRenderer
  // and WebGPURenderer make while they list what to draw — WebGLRenderer uploads a mesh's
  // geometry right after it, before onBeforeRender, where the pose came a frame late (the first
  // frame after a switch drew nothing). Never culled (its bounds move with the pose), and always
  // tested, even when an application turns frustum culling off throughout its scene.
  Object.defineProperty(proxy, 'frustumCulled', { get: () => true, set: () => undefined });
  proxy.intersectsFrustum = () => {
    pose();
    return true;
  };
  // And before drawing it (a renderer or pass that draws it without a frustum test).
  proxy.onBeforeRender = pose;
  proxy.onBeforeShadow = pose;
  mesh.parent.add(proxy);
  mesh.userData[CPU_KEY] = { method, proxy, visible: mesh.visible } satisfies CpuState;
  mesh.visible = false;
}

/**
 * The method's SIMD kernel on `data` where the registry gives it one and the runtime runs
 * WebAssembly SIMD (loaded on demand), else its JavaScript deformer ({@link cpuJavaScriptDeformer}).
 * @throws CorskinError naming the parameter when one is invalid
 */
async function cpuDeformer(
  method: ThreeMethodId,
  data: CorskinMesh,
  skeleton: Skeleton,
  parameters: Record<string, unknown> = {},
): Promise<Deformer> {
  methodModule(method)?.check(parameters);
  if (methodInfo(method).simd) {
    try {
      const { createSimdDeformer } = await import('../wasm/simd-skinning.js');
      const simd = await createSimdDeformer(
        data,
        method as Parameters<typeof createSimdDeformer>[1],
        method === 'stretch' ? { rig: stretchRigFromSkeleton(skeleton), ...stretchOptions(parameters) } : parameters,
      );
      return (_, skinning, out) => simd.deform(skinning, out);
    } catch (e) {
      // no WebAssembly SIMD here, or a mesh beyond the kernels' limits: the JavaScript deformer below
      if (!(e instanceof CorskinError)) throw e;
    }
  }
  return cpuJavaScriptDeformer(method, data, skeleton, parameters);
}

/**
 * The JavaScript deformer of a method `corskin/three` runs on the CPU (and the viewer's CPU
 * measures use): a method module's, prepared ({@link prepareMethod}); stretch skinning's (Yang &
 * Zhang 2006) on the rig of `skeleton` (`stretchRigFromSkeleton`: every joint where bones meet
 * compensated; `parameters.twistCompensation`, default true); LBS's, DQS's, SBS's, LMS's or CoR's
 * as it is (no parameters).
 * @throws CorskinError naming the parameter when one is invalid; for a method corskin/three does
 *   not run (the cage's, an unknown id)
 */
export function cpuJavaScriptDeformer(
  method: ThreeMethodId,
  data: CorskinMesh,
  skeleton: Skeleton,
  parameters: Record<string, unknown> = {},
): Deformer {
  if (methodModule(method)) return prepareMethod(method, { mesh: data, skeleton, parameters });
  if (method === 'stretch') return createStretchDeformer(stretchRigFromSkeleton(skeleton), stretchOptions(parameters));
  const deformer = (deformers as Record<string, Deformer | undefined>)[method];
  if (!deformer)
    throw new CorskinError(
      `corskin/three does not run skinning method "${method}" (expected ${THREE_METHODS.join(', ')})`,
    );
  return deformer;
}

/** Stretch skinning's options from a surface's parameters. @throws CorskinError naming a bad one */
function stretchOptions(parameters: Record<string, unknown>): { twistCompensation?: boolean } {
  const twistCompensation = parameters.twistCompensation;
  if (twistCompensation !== undefined && typeof twistCompensation !== 'boolean')
    throw new CorskinError(`twistCompensation must be true or false, got ${JSON.stringify(twistCompensation)}`);
  return { twistCompensation };
}

/** The CPU method `mesh` renders with, or undefined. */
export function cpuMethodOf(mesh: SkinnedMesh): string | undefined {
  return (mesh.userData[CPU_KEY] as CpuState | undefined)?.method;
}

/** The posed stand-in drawing `mesh` while a CPU method is in use, or undefined. */
export function cpuStandIn(mesh: SkinnedMesh): Mesh | undefined {
  return (mesh.userData[CPU_KEY] as CpuState | undefined)?.proxy;
}

/**
 * Undoes {@link useCpuMethod} (nothing when the mesh is not on the CPU), and drops a CPU switch
 * of the mesh still being prepared: every switch of a mesh's method starts here.
 */
export function restoreCpu(mesh: SkinnedMesh): void {
  mesh.userData[SWITCH_KEY] = ((mesh.userData[SWITCH_KEY] as number | undefined) ?? 0) + 1;
  const state = mesh.userData[CPU_KEY] as CpuState | undefined;
  if (!state) return;
  state.proxy.removeFromParent();
  state.proxy.geometry.dispose();
  mesh.visible = state.visible;
  delete mesh.userData[CPU_KEY];
}

/** Reverses the winding of every triangle of `geometry` (indexed or not), in place. */
function turnTrianglesOver(geometry: BufferGeometry): void {
  const index = geometry.getIndex();
  const count = index ? index.count : geometry.getAttribute('position').count;
  const flipped = new Uint32Array(count);
  for (let k = 0; k + 2 < count; k += 3) {
    flipped[k] = index ? index.getX(k) : k;
    flipped[k + 1] = index ? index.getX(k + 2) : k + 2;
    flipped[k + 2] = index ? index.getX(k + 1) : k + 1;
  }
  geometry.setIndex(new BufferAttribute(flipped, 1));
}
