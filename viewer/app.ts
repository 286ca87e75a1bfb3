/**
 * The viewer's shared parts: the renderer, camera and controls, the settings the panel edits,
 * the loaded file's state, the views and their layout on the canvas. The feature modules
 * (templates, painting, export) and main.ts read and write the state through `state`.
 *
 * @module
 */
import { COR_ATTRIBUTE_THREE, isHelperJointExtras } from '../src/io/schema.js';
import { autoLayout, layoutCells, type Cell, type Layout } from './layout.js';
import GUI from 'lil-gui';
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { DRACOLoader } from 'three/addons/loaders/DRACOLoader.js';
import { GLTFLoader, type GLTF } from 'three/addons/loaders/GLTFLoader.js';
import { MeshoptDecoder } from 'three/addons/libs/meshopt_decoder.module.js';
import { type SkinnedMesh as CorskinMesh } from '../src/core/mesh.js';
import { SKINNING_METHODS, THREE_METHODS } from '../src/deformers/registry.js';
import { setDdmModel } from '../src/methods/ddm/data.js';
import { methodModule } from '../src/methods/index.js';
import { oneRings, type OneRings } from '../src/metrics/distortion.js';
import {
  attributeValues,
  bindSpaceSkinningMatrices,
  cpuJavaScriptDeformer,
  deltaMushOf,
  isCageObject,
  meshFromGeometry,
  templateRigOf,
  skeletonFromThree,
  type ThreeSkinningMethod,
} from '../src/three/index.js';
import { setMeshTemplateRig } from '../src/methods/templates/data.js';
import type { Deformer } from '../src/deformers/contract.js';
import { computeCentersOfRotationOnWorker } from '../src/cor/web-worker.js';
import { type BrushMode } from '../src/weights/brush.js';

// Every method the viewer shows, in the registry's order: corskin/three's (THREE_METHODS), on the
// GPU, or on the CPU for those without a GPU kernel (Delta Mush, SBS, LMS, stretch skinning).
export const VIEW_METHODS = SKINNING_METHODS.filter((m) => (THREE_METHODS as readonly string[]).includes(m.id));
export const METHODS: readonly ThreeSkinningMethod[] = THREE_METHODS;
/** Whether a method is in the side-by-side and grid layouts (those on the GPU); the others show in the single view. */
export const sideBySide = (method: string): boolean => SKINNING_METHODS.some((m) => m.id === method && m.gpu);
// Compressed files (KHR_draco_mesh_compression, EXT_meshopt_compression) load like any other; the
// Draco decoder is three.js's, which the build emits next to the bundle (DRACOLoader's default path).
const draco = new DRACOLoader();
/**
 * A glTF loader whose requests for the URIs in `files` (external buffers and images, as the
 * glTF writes them) read those bytes instead: the files picked or dropped with a `.gltf`.
 * @returns the loader, and `done` to call when its parse has ended (frees the object URLs)
 */
export function gltfLoader(files: Readonly<Record<string, Uint8Array<ArrayBuffer>>> = {}): {
  loader: GLTFLoader;
  done: () => void;
} {
  const urls = new Map(Object.entries(files).map(([uri, bytes]) => [uri, URL.createObjectURL(new Blob([bytes]))]));
  const manager = new THREE.LoadingManager();
  manager.setURLModifier((url) => urls.get(url) ?? url);
  const loader = new GLTFLoader(manager).setDRACOLoader(draco).setMeshoptDecoder(MeshoptDecoder);
  return { loader, done: () => urls.forEach((url) => URL.revokeObjectURL(url)) };
}
/** A joint of the character's rig: a bone, not a helper joint a bake added. */
export const isRigJoint = (o: THREE.Object3D | null | undefined): o is THREE.Bone =>
  !!o && (o as THREE.Bone).isBone && !isHelperJointExtras(o.userData);

/** A glTF node name as three.js's GLTFLoader names its object (PropertyBinding's reserved characters removed). */
export function threeName(name: string): string {
  return THREE.PropertyBinding.sanitizeNodeName(name);
}

export const params = new URLSearchParams(location.search);
export const app = document.getElementById('app')!;
export const status = document.getElementById('status')!;
export const progressBar = document.getElementById('progress') as HTMLProgressElement;
/** Every status line shown (for tests: progress of long work). */
export const statusLog: string[] = [];
export const setStatus = (s: string) => {
  statusLog.push(s);
  status.textContent = s;
};
if (params.get('ui') === '0') status.style.display = 'none';

export const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(Math.min(2, window.devicePixelRatio));
renderer.setScissorTest(true);
app.appendChild(renderer.domElement);
export const camera = new THREE.PerspectiveCamera(40, 1, 0.01, 1000);
export const controls = new OrbitControls(camera, renderer.domElement);

export interface View {
  method: ThreeSkinningMethod;
  scene: THREE.Scene;
  root: THREE.Object3D;
  mixer: THREE.AnimationMixer;
  skeleton: THREE.SkeletonHelper;
  cors: THREE.Points;
  /** The template cages (templates view): joint templates red, bone templates blue, bridges grey. */
  cage: THREE.LineSegments;
  label: HTMLDivElement;
  times: number[];
  /** Per skinned mesh: corskin's view of its geometry, its one-rings and scratch arrays, made once. */
  cpu: Map<THREE.SkinnedMesh, CpuMesh>;
}

export interface CpuMesh {
  data: CorskinMesh;
  /** The view's CPU deformer (templates: of the mesh's rig). */
  deform: Deformer;
  centers: CorskinMesh | undefined;
  rings: OneRings;
  posed: Float32Array;
  colors: THREE.BufferAttribute;
  /** The heat map's last rigidity distortion per vertex (dimensionless), once drawn. */
  distortion?: Float64Array;
}

/**
 * The CPU-side data of a mesh (its CoRs read once they exist); undefined while the view's method
 * module still lacks what the GPU switch reads or computes (Direct Delta Mush's model): the
 * viewer never computes it a second time, in this thread.
 */
export function cpuOf(view: View, mesh: THREE.SkinnedMesh): CpuMesh | undefined {
  let c = view.cpu.get(mesh);
  if (!c) {
    const data = meshFromGeometry(mesh);
    delete data.normals;
    // What the mesh renders with: Direct Delta Mush's model, the template rig.
    const ddm = deltaMushOf(mesh);
    if (ddm) setDdmModel(data, ddm);
    const rig = templateRigOf(mesh);
    if (rig) setMeshTemplateRig(data, rig);
    if (methodModule(view.method)?.missing?.(data)) return undefined;
    const n = data.positions.length;
    c = {
      data,
      deform: cpuJavaScriptDeformer(view.method, data, skeletonFromThree(mesh)),
      centers: undefined,
      rings: oneRings(data.triangles, n / 3),
      posed: new Float32Array(n),
      colors: new THREE.BufferAttribute(new Float32Array(n), 3),
    };
    view.cpu.set(mesh, c);
  }
  const cor = mesh.geometry.getAttribute(COR_ATTRIBUTE_THREE);
  if (cor && !c.centers) {
    c.data.centersOfRotation = attributeValues(cor, Float32Array); // a stored attribute is often interleaved
    c.centers = { ...c.data, positions: c.data.centersOfRotation };
  }
  return c;
}

/** The loaded file and what the viewer made of it (one object, so every module sees the same). */
export const state = {
  gltf: undefined as GLTF | undefined,
  bytes: undefined as ArrayBuffer | undefined,
  /** The files a `.gltf`'s URIs name (its buffers and images), by URI as written: loaded with it. */
  resources: {} as Record<string, Uint8Array<ArrayBuffer>>,
  fileName: 'model.glb',
  views: [] as View[],
  restQuaternions: new Map<THREE.Object3D, THREE.Quaternion>(),
  corsReady: false,
  duration: 0,
  /** The control panel (none with `ui=0`). */
  gui: undefined as GUI | undefined,
  /** The panel folder of the selected joint's template slots. */
  templateControls: undefined as GUI | undefined,
  /** The character's box when loaded (framing and the automatic layout; computed once, not per frame). */
  bounds: new THREE.Box3(new THREE.Vector3(-1, -1, -1), new THREE.Vector3(1, 1, 1)),
  /** Per kind of work (the status line's label), each job's share done: `showProgress`. */
  progress: new Map<string, Map<unknown, number>>(),
  /** Whether the camera is still where `frame` put it (then a resize or a layout change frames again). */
  autoFramed: true,
};

export const settings = {
  layout: (params.get('layout') as Layout) ?? 'auto',
  method: (params.get('method') as ThreeSkinningMethod) ?? 'cor',
  animation: params.get('animation') ?? '',
  /** The pose before the clip and the sliders: the rest pose, or the stress pose of the evaluation at full or half amplitude. */
  pose: (params.get('pose') as 'rest' | 'stress' | 'stress-half') ?? 'rest',
  playing: false,
  time: Number(params.get('time') ?? 0),
  joint: threeName(params.get('joint') ?? ''),
  twist: Number(params.get('twist') ?? 0),
  bend: Number(params.get('bend') ?? 0),
  skeleton: false,
  centers: false,
  heatmap: false,
  paint: params.has('paint'),
  paintJoint: threeName(params.get('paint') ?? ''),
  paintMode: 'add' as BrushMode,
  paintRadius: 0.05,
  paintStrength: 0.3,
  paintFalloff: 'smooth' as 'smooth' | 'linear' | 'constant',
  paintMirror: false,
  /** Colour the vertices whose CoR lies far from their bones (the weights' trouble spots for CoR). */
  corCheck: false,
  /** The template cage overlay (templates view). */
  cage: params.get('cage') === '1',
  /** The selected joint's bone and joint templates; Tab cycles the selected slot's (a click on a joint selects its joint template, on a bone its bone template). */
  boneTemplate: '',
  jointTemplate: '',
  slot: 'joint' as 'bone' | 'joint',
  /** Bend the selected joint back and forth (the paper's preview cycle). */
  preview: false,
  // The panel's buttons (main.ts gives them their actions).
  smoothJoint: () => {},
  undo: () => {},
  redo: () => {},
  frameJoint: () => {},
  load: () => {},
  exportGlb: () => {},
  exportTemplates: () => {},
  exportBaked: () => {},
  exportLibrary: () => {},
  importLibrary: () => {},
  editId: 'my-template',
  editSide: 'inner' as 'inner' | 'outer',
  editBend: 90,
  editBulge: 0.3,
  editSlide: 0,
  editTwist: 0,
  editSave: () => {},
  editDraw: false,
  editSymmetric: true,
};

/**
 * Progress of a long computation in the status line and its bar. Several jobs of one kind (a
 * file's skins, each on its worker, registered when asked for: see `progressJob`) show the mean of
 * their shares done, which does not fall back when one starts; several kinds at once (centers of
 * rotation, Direct Delta Mush, template cages) show every kind not yet done, so one that finishes
 * does not leave "100%" on the line while the others still run (the 40 skins of a skeleton: 85 s).
 */
export function showProgress(what: string, done: number, total: number, job?: unknown): void {
  const share = (jobs: Map<unknown, number>) => [...jobs.values()].reduce((a, b) => a + b, 0) / Math.max(1, jobs.size);
  const own = job === undefined ? (total > 0 ? done / total : 1) : share(progressJob(what, job).set(job, total > 0 ? done / total : 1)); // prettier-ignore
  const running = [...state.progress].filter(([w]) => w !== what).map(([w, jobs]) => [w, share(jobs)] as const);
  const shown = [[what, own] as const, ...running].filter(([, s]) => s < 1);
  if (!shown.length) shown.push([what, own]);
  setStatus(shown.map(([w, s]) => `${w} ${Math.round(100 * s)}%`).join(' · '));
  const least = Math.min(...shown.map(([, s]) => s));
  progressBar.style.display = least >= 1 ? 'none' : 'inline-block';
  progressBar.max = 1;
  progressBar.value = least;
}

/** Registers `job` as work of kind `what` not yet started (share 0), once; returns the kind's jobs. */
export function progressJob(what: string, job: unknown): Map<unknown, number> {
  const jobs = state.progress.get(what) ?? state.progress.set(what, new Map()).get(what)!;
  if (!jobs.has(job)) jobs.set(job, 0);
  return jobs;
}

/** The box around a view's character: its meshes, not a stored template cage (hidden, and wider). */
export function characterBox(root: THREE.Object3D): THREE.Box3 {
  const box = new THREE.Box3();
  root.traverse((o) => {
    if ((o as THREE.Mesh).isMesh && !isCageObject(o)) box.expandByObject(o);
  });
  return box.isEmpty() ? box.setFromObject(root) : box;
}

/** The layout in use: the chosen one, or for `auto` the one that shows the character largest. */
export function currentLayout(): Exclude<Layout, 'auto'> {
  return settings.layout === 'auto'
    ? autoLayout(
        state.bounds,
        state.views.filter((v) => sideBySide(v.method)).length,
        app.clientWidth,
        app.clientHeight,
        camera.fov,
      )
    : settings.layout;
}

/** The views shown and their rectangles (CSS px from the canvas's top-left corner). */
export function viewCells(): { view: View; cell: Cell }[] {
  const layout = currentLayout();
  let shown = state.views.filter((v) => sideBySide(v.method));
  if (layout === 'single') {
    const one = state.views.find((v) => v.method === settings.method) ?? state.views[0];
    shown = one ? [one] : [];
  }
  return layoutCells(layout, shown.length, app.clientWidth, app.clientHeight).map((cell, k) => ({
    view: shown[k],
    cell,
  }));
}

/** The skinned meshes of a view, in traversal order (the same order in every view), corskin's cage nodes left out. */
export function skinnedMeshes(view: View): THREE.SkinnedMesh[] {
  const list: THREE.SkinnedMesh[] = [];
  view.root.traverse(
    (o) => (o as THREE.SkinnedMesh).isSkinnedMesh && !isCageObject(o) && list.push(o as THREE.SkinnedMesh),
  );
  return list;
}

/** Centers of rotation on corskin's Web Worker, with progress in the status line (none once `signal` aborts, which stops the worker). */
export function centersWithProgress(mesh: CorskinMesh, label: string, signal?: AbortSignal): Promise<Float32Array> {
  progressJob(`${label}: centers of rotation`, mesh);
  return computeCentersOfRotationOnWorker(mesh, {
    onProgress: (done, total) => signal?.aborted || showProgress(`${label}: centers of rotation`, done, total, mesh),
    signal,
  });
}

/** Per mesh, the buffer its skinning matrices are written into (one allocation per mesh, not per frame). */
export const skinningBuffers = new WeakMap<THREE.SkinnedMesh, Float64Array>();
/**
 * Skinning matrices of a three.js skinned mesh in its bind space, as corskin/three uploads them
 * (after `skeleton.update()`); the array is reused by the next call for the same mesh.
 */
export function skinningOf(mesh: THREE.SkinnedMesh): Float64Array {
  mesh.skeleton.update();
  let S = skinningBuffers.get(mesh);
  if (!S) skinningBuffers.set(mesh, (S = new Float64Array(16 * mesh.skeleton.bones.length)));
  return bindSpaceSkinningMatrices(mesh, S);
}

/** Pixel position (CSS px, page) of a joint in the first shown view, or undefined for no such joint. */
export function jointScreen(name: string): { x: number; y: number } | undefined {
  const { view: v, cell } = viewCells()[0];
  const bone = v.root.getObjectByName(threeName(name));
  if (!bone) return undefined;
  camera.updateMatrixWorld(); // moved since the last frame (frameJoint), its matrices not yet
  const p = bone.getWorldPosition(new THREE.Vector3()).project(camera);
  const r = renderer.domElement.getBoundingClientRect();
  return { x: r.left + cell.x + ((p.x + 1) / 2) * cell.w, y: r.top + cell.y + ((1 - p.y) / 2) * cell.h };
}
