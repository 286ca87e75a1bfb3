/**
 * corskin's viewer: LBS | DQS | CoR | skinning templates in a row, a 2×2 grid or one view with a
 * method switch (by default whichever shows the character largest) on any glTF character, with animation playback, joint posing, skeleton, center-of-rotation
 * and template-cage overlays, template switching (Tab), a per-method frame-time readout, and
 * in-browser CoR precomputation with export. Files dropped or picked are read locally; nothing is
 * uploaded.
 *
 * URL parameters (used by `corskin render`): model, method, layout (auto|side|grid|single), animation, time,
 * joint, twist, bend (degrees), paint (a joint: its weights as a heat map), cage (1: the template
 * cage overlay), template (JOINT=ID,…: template choices), frame (joint: the camera on the posed joint),
 * ui=0.
 */
import { WebIO } from '@gltf-transform/core';
import { autoLayout, fitDistance, layoutCells, THREE_QUARTER, type Cell, type Layout } from './layout.js';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import GUI from 'lil-gui';
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { DRACOLoader } from 'three/addons/loaders/DRACOLoader.js';
import { GLTFLoader, type GLTF } from 'three/addons/loaders/GLTFLoader.js';
import { MeshoptDecoder } from 'three/addons/libs/meshopt_decoder.module.js';
import { MeshoptDecoder as MeshoptDecoderIO, MeshoptEncoder } from 'meshoptimizer';
import * as SkeletonUtils from 'three/addons/utils/SkeletonUtils.js';
import { mergeSkinnedMeshes, type SkinnedMesh as CorskinMesh } from '../src/core/mesh.js';
import type { Cage } from '../src/cage/cage.js';
import { deformers } from '../src/deformers/index.js';
import { deformLbs } from '../src/deformers/lbs.js';
import { SKINNING_METHODS } from '../src/deformers/registry.js';
import { oneRings, rigidityDistortion, type OneRings } from '../src/metrics/distortion.js';
import { extractSkinnedModels, setCentersOfRotation, vertexLayoutFor } from '../src/io/gltf.js';
import {
  bindSpaceSkinningMatrices,
  isCageObject,
  meshFromGeometry,
  skeletonFromThree,
  setSkinningTemplate,
  setSkinTemplateRig,
  templateRigOf,
  useSkinningMethod,
  type GpuSkinningMethod,
} from '../src/three/index.js';
import { createTemplateDeformer } from '../src/templates/deformer.js';
import {
  moveTemplateCageVertex,
  bindOrientationMove,
  dragTemplateKeyPose,
  compatibleTemplates,
} from '../src/templates/edit.js';
import { joinTemplateRigParts, rebindTemplateRig, type TemplateRig } from '../src/templates/rig.js';
import { poseTemplates } from '../src/templates/pose.js';
import { bindJointPositions } from '../src/core/skeleton.js';
import { stressPose } from '../src/evaluation/stress-pose.js';
import {
  parseTemplateLibrary,
  withTemplates,
  type BoneKeyPose,
  type TemplateDefinition,
  type TemplateLibrary,
} from '../src/templates/library.js';
import { writeTemplateRig } from '../src/io/cage-gltf.js';
import { bakeTemplateClips } from '../src/io/template-bake.js';
import type { Deformer } from '../src/deformers/contract.js';
import { computeCentersOfRotationOnWorker } from '../src/cor/web-worker.js';
import { createCorSession, type CorSession } from '../src/cor/session.js';
import { brushDab, mirrorJoints, type BrushMode } from '../src/weights/brush.js';

// Every registered method the GPU path runs, in the registry's order.
const GPU_METHODS = SKINNING_METHODS.filter((m) => m.gpu);
const METHODS = GPU_METHODS.map((m) => m.id) as GpuSkinningMethod[];
// Compressed files (KHR_draco_mesh_compression, EXT_meshopt_compression) load like any other.
const loader = new GLTFLoader()
  .setDRACOLoader(new DRACOLoader().setDecoderPath(new URL('./draco/', location.href).href))
  .setMeshoptDecoder(MeshoptDecoder);
/** A glTF node name as three.js's GLTFLoader names its object (PropertyBinding's reserved characters removed). */
function threeName(name: string): string {
  return THREE.PropertyBinding.sanitizeNodeName(name);
}

const params = new URLSearchParams(location.search);
const app = document.getElementById('app')!;
const status = document.getElementById('status')!;
const progressBar = document.getElementById('progress') as HTMLProgressElement;
/** Every status line shown (for tests: progress of long work). */
const statusLog: string[] = [];
const setStatus = (s: string) => {
  statusLog.push(s);
  status.textContent = s;
};
if (params.get('ui') === '0') status.style.display = 'none';

const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(Math.min(2, window.devicePixelRatio));
renderer.setScissorTest(true);
app.appendChild(renderer.domElement);
const camera = new THREE.PerspectiveCamera(40, 1, 0.01, 1000);
const controls = new OrbitControls(camera, renderer.domElement);

interface View {
  method: GpuSkinningMethod;
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

interface CpuMesh {
  data: CorskinMesh;
  /** The view's CPU deformer (templates: of the mesh's rig). */
  deform: Deformer;
  centers: CorskinMesh | undefined;
  rings: OneRings;
  posed: Float32Array;
  colors: THREE.BufferAttribute;
}

/** The CPU-side data of a mesh (its CoRs read once they exist). */
function cpuOf(view: View, mesh: THREE.SkinnedMesh): CpuMesh {
  let c = view.cpu.get(mesh);
  if (!c) {
    const data = meshFromGeometry(mesh);
    delete data.normals;
    const n = data.positions.length;
    const rig = templateRigOf(mesh);
    c = {
      data,
      deform: view.method === 'templates' && rig ? createTemplateDeformer(rig) : deformers[view.method as 'lbs'],
      centers: undefined,
      rings: oneRings(data.triangles, n / 3),
      posed: new Float32Array(n),
      colors: new THREE.BufferAttribute(new Float32Array(n), 3),
    };
    view.cpu.set(mesh, c);
  }
  const cor = mesh.geometry.getAttribute('_center_of_rotation');
  if (cor && !c.centers) {
    c.data.centersOfRotation = Float32Array.from(cor.array as Float32Array);
    c.centers = { ...c.data, positions: c.data.centersOfRotation };
  }
  return c;
}

const settings = {
  layout: (params.get('layout') as Layout) ?? 'auto',
  method: (params.get('method') as GpuSkinningMethod) ?? 'cor',
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
  smoothJoint: () => smoothAroundJoint(),
  undo: () => paintUndo(false),
  redo: () => paintUndo(true),
  frameJoint: () => frameJoint(),
  load: () => picker.click(),
  exportGlb: () => void exportWithCenters(true).catch((e: Error) => setStatus(`export failed: ${e.message}`)),
  exportTemplates: () =>
    void exportTemplates(false, true).catch((e: Error) => setStatus(`export failed: ${e.message}`)),
  exportBaked: () => void exportTemplates(true, true).catch((e: Error) => setStatus(`export failed: ${e.message}`)),
  exportLibrary: () => {
    const library = viewLibrary();
    if (library) save(JSON.stringify(library, null, 2), 'templates.json', 'application/json');
  },
  importLibrary: () => libraryPicker.click(),
  editId: 'my-template',
  editSide: 'inner' as 'inner' | 'outer',
  editBend: 90,
  editBulge: 0.3,
  editSlide: 0,
  editTwist: 0,
  editSave: () => saveTemplate(),
  editDraw: false,
  editSymmetric: true,
};

let gltf: GLTF | undefined;
let bytes: ArrayBuffer | undefined;
let fileName = 'model.glb';
let views: View[] = [];
let restQuaternions = new Map<THREE.Object3D, THREE.Quaternion>();
let corsReady = false;
let duration = 0;

const picker = Object.assign(document.createElement('input'), { type: 'file', accept: '.glb,.gltf', id: 'file' });
picker.style.display = 'none';
document.body.appendChild(picker);
picker.onchange = async () => {
  const f = picker.files?.[0];
  if (f) await loadBytes(await f.arrayBuffer(), f.name);
};
window.addEventListener('dragover', (e) => {
  e.preventDefault();
  document.getElementById('drop')!.style.display = 'flex';
});
window.addEventListener('dragleave', () => (document.getElementById('drop')!.style.display = 'none'));
window.addEventListener('drop', async (e) => {
  e.preventDefault();
  document.getElementById('drop')!.style.display = 'none';
  const f = e.dataTransfer?.files[0];
  if (f) await loadBytes(await f.arrayBuffer(), f.name);
});

/** Progress of a long computation in the status line and its bar. */
function showProgress(what: string, done: number, total: number): void {
  setStatus(`${what} ${Math.round((100 * done) / total)}%`);
  progressBar.style.display = done === total ? 'none' : 'inline-block';
  progressBar.max = total;
  progressBar.value = done;
}

/** Centers of rotation on corskin's Web Worker, with progress in the status line. */
function centersWithProgress(mesh: CorskinMesh, label: string): Promise<Float32Array> {
  return computeCentersOfRotationOnWorker(mesh, {
    onProgress: (done, total) => showProgress(`${label}: centers of rotation`, done, total),
  });
}

async function loadBytes(data: ArrayBuffer, name: string): Promise<void> {
  setStatus(`loading ${name}…`);
  corsReady = false;
  bytes = data;
  fileName = name;
  gltf = await loader.parseAsync(data, '');
  sessions = [];
  rings = [];
  undoStack.length = redoStack.length = 0;
  for (const v of views) {
    v.label.remove();
    v.scene.clear();
  }
  views = METHODS.map((method) => makeView(method, gltf!));
  restQuaternions = new Map();
  views[0].root.traverse((o) => restQuaternions.set(o, o.quaternion.clone()));
  duration = Math.max(0, ...gltf.animations.map((a) => a.duration));
  const byIndex = gltf.animations[Number(settings.animation)];
  if (byIndex && !gltf.animations.some((a) => a.name === settings.animation)) settings.animation = byIndex.name;
  if (!gltf.animations.some((a) => a.name === settings.animation)) settings.animation = gltf.animations[0]?.name ?? '';
  const bones: string[] = [];
  views[0].root.traverse((o) => (o as THREE.Bone).isBone && bones.push(o.name));
  if (!bones.includes(settings.joint)) settings.joint = bones[Math.min(2, bones.length - 1)] ?? '';
  rebuildGui(bones);
  frame(views[0]);
  setStatus(`${name}: switching to DQS, CoR and templates…`);
  const warnings: string[] = [];
  await Promise.all(
    views.map((v) =>
      useSkinningMethod(v.root, v.method, {
        computeCenters: (m) => centersWithProgress(meshFromGeometry(m), name),
        onProgress: (_, done, total) =>
          v.method === 'templates' && showProgress(`${name}: fitting and binding template cages`, done, total),
        onWarning: (_, message) => warnings.push(message),
      }),
    ),
  );
  applyTemplateParam();
  selectTemplates();
  if (params.get('frame') === 'joint') {
    views.forEach(updatePose);
    frameJoint();
  }
  corsReady = true;
  setStatus(
    warnings.length
      ? `${name}: ready — ⚠ ${warnings.join('; ')}: drag cage vertices out around them`
      : `${name}: ready — drop another .glb to compare on it`,
  );
}

function makeView(method: GpuSkinningMethod, g: GLTF): View {
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x1b1d22);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x444444, 2.2));
  const sun = new THREE.DirectionalLight(0xffffff, 2);
  sun.position.set(2, 4, 3);
  scene.add(sun);
  const root = SkeletonUtils.clone(g.scene);
  // Own geometry per view, so each can carry its heat-map colours.
  root.traverse((o) => {
    const mesh = o as THREE.SkinnedMesh;
    if (mesh.isSkinnedMesh) mesh.geometry = mesh.geometry.clone();
    if (isCageObject(o)) o.visible = false; // a stored template cage: the cage overlay draws it posed
  });
  scene.add(root);
  const skeleton = new THREE.SkeletonHelper(root);
  skeleton.visible = settings.skeleton;
  scene.add(skeleton);
  const cors = new THREE.Points(
    new THREE.BufferGeometry(),
    new THREE.PointsMaterial({ color: 0xff3030, size: 3, sizeAttenuation: false, depthTest: false }),
  );
  cors.visible = false;
  scene.add(cors);
  const cage = new THREE.LineSegments(
    new THREE.BufferGeometry(),
    new THREE.LineBasicMaterial({ vertexColors: true, depthTest: false, transparent: true, opacity: 0.9 }),
  );
  cage.visible = false;
  cage.renderOrder = 1;
  scene.add(cage);
  const label = Object.assign(document.createElement('div'), { className: 'label' });
  document.body.appendChild(label);
  return {
    method,
    scene,
    root,
    mixer: new THREE.AnimationMixer(root),
    skeleton,
    cors,
    cage,
    label,
    times: [],
    cpu: new Map(),
  };
}

/** The box around a view's character: its meshes, not a stored template cage (hidden, and wider). */
function characterBox(root: THREE.Object3D): THREE.Box3 {
  const box = new THREE.Box3();
  root.traverse((o) => {
    if ((o as THREE.Mesh).isMesh && !isCageObject(o)) box.expandByObject(o);
  });
  return box.isEmpty() ? box.setFromObject(root) : box;
}

/** The character's box when loaded (framing and the automatic layout; computed once, not per frame). */
let bounds = new THREE.Box3(new THREE.Vector3(-1, -1, -1), new THREE.Vector3(1, 1, 1));
/** Whether the camera is still where {@link frame} put it (then a resize or a layout change frames again). */
let autoFramed = true;

/** The layout in use: the chosen one, or for `auto` the one that shows the character largest. */
function currentLayout(): Exclude<Layout, 'auto'> {
  return settings.layout === 'auto'
    ? autoLayout(bounds, views.length, app.clientWidth, app.clientHeight, camera.fov)
    : settings.layout;
}

/** The views shown and their rectangles (CSS px from the canvas's top-left corner). */
function viewCells(): { view: View; cell: Cell }[] {
  const layout = currentLayout();
  let shown = views;
  if (layout === 'single') {
    const one = views.find((v) => v.method === settings.method) ?? views[0];
    shown = one ? [one] : [];
  }
  return layoutCells(layout, shown.length, app.clientWidth, app.clientHeight).map((cell, k) => ({
    view: shown[k],
    cell,
  }));
}

/** Points the camera at the character from a three-quarter view, its box filling one view with a margin. */
function frame(view: View): void {
  view.root.updateMatrixWorld(true);
  bounds = characterBox(view.root);
  const size = bounds.getSize(new THREE.Vector3()).length() || 1;
  const center = bounds.getCenter(new THREE.Vector3());
  const { w, h } = viewCells()[0]?.cell ?? { w: 1, h: 1 };
  const distance = fitDistance(bounds, THREE_QUARTER, camera.fov, w / Math.max(1, h));
  camera.near = size / 200;
  camera.far = size * 20 + distance;
  camera.position.copy(center).addScaledVector(THREE_QUARTER, distance);
  controls.target.copy(center);
  camera.updateProjectionMatrix();
  controls.update();
  autoFramed = true;
}

let gui: GUI | undefined;
function rebuildGui(bones: string[]): void {
  gui?.destroy();
  if (params.get('ui') === '0') return;
  gui = new GUI({ title: 'corskin' });
  // The common actions on top, every group but the animation collapsed: the panel fits 1280×800.
  gui.add(settings, 'load').name('open .glb…');
  gui
    .add(settings, 'layout', {
      'auto (largest)': 'auto',
      'side by side': 'side',
      '2 × 2': 'grid',
      'one view': 'single',
    })
    .onChange(() => autoFramed && views[0] && frame(views[0]));
  gui.add(settings, 'method', Object.fromEntries(GPU_METHODS.map((m) => [m.label, m.id]))).name('method (one view)');
  gui.add(settings, 'pose', { rest: 'rest', 'stress pose': 'stress', 'stress, half': 'stress-half' });
  gui.add(settings, 'exportGlb').name('precompute CoRs & export .glb');
  if (gltf?.animations.length) {
    const anim = gui.addFolder('animation');
    anim.add(settings, 'animation', ['', ...gltf.animations.map((a) => a.name)]);
    anim.add(settings, 'playing').name('play').listen();
    anim.add(settings, 'time', 0, Math.max(duration, 0.001), 0.001).listen();
  } else {
    const none = gui.addFolder('animation: none in this file');
    none.close();
  }
  const pose = gui.addFolder('pose a joint');
  pose.add(settings, 'joint', bones).onChange(() => {
    settings.slot = 'joint';
    selectTemplates();
  });
  pose.add(settings, 'twist', -180, 180, 1).name('twist (°)');
  pose.add(settings, 'bend', -180, 180, 1).name('bend (°)');
  pose.add(settings, 'frameJoint').name('frame the joint');
  pose.add(settings, 'preview').name('bend back and forth');
  pose.close();
  const templates = gui.addFolder('skinning templates (the joint above; Tab cycles)');
  templateControls = templates;
  fillTemplateControls();
  templates.close();
  const library = gui.addFolder('template library and editor');
  library.add(settings, 'importLibrary').name('import library .json…');
  library.add(settings, 'exportLibrary').name('export library .json');
  library.add(settings, 'editId').name('new template id');
  library.add(settings, 'editSide', ['inner', 'outer']).name('side of the bend');
  library.add(settings, 'editBend', 1, 180, 1).name('key pose bend (°)');
  library.add(settings, 'editBulge', -0.9, 2, 0.01).name('bulge at the key pose');
  library.add(settings, 'editSlide', -0.5, 0.5, 0.01).name('slide (bone templates)');
  library.add(settings, 'editTwist', -180, 180, 1).name('twist ° (bone templates)');
  library.add(settings, 'editSave').name('save & apply to the selected slot');
  library.add(settings, 'editDraw').name('draw: drag cage vertices into the key pose');
  library.add(settings, 'editSymmetric').name('draw symmetric about the bend');
  library.add(settings, 'exportTemplates').name('export .glb with cages & choices');
  library.add(settings, 'exportBaked').name('export baked standard .glb');
  library.close();
  const show = gui.addFolder('overlays');
  show.add(settings, 'skeleton').onChange((v: boolean) => views.forEach((x) => (x.skeleton.visible = v)));
  show.add(settings, 'centers').name('centers of rotation (CoR view)');
  show.add(settings, 'cage').name('template cages (templates view)');
  show.add(settings, 'heatmap').name('distortion heat map');
  show.close();
  const paint = gui.addFolder('paint weights (CoRs follow)');
  paint
    .add(settings, 'paint')
    .name('paint mode')
    .onChange(() => void startPainting());
  paint.add(settings, 'paintJoint', bones).name('joint');
  paint.add(settings, 'paintMode', ['add', 'subtract', 'replace', 'smooth']).name('brush');
  paint.add(settings, 'paintRadius', 0.005, 0.3, 0.005).name('radius (× size)');
  paint.add(settings, 'paintStrength', 0, 1, 0.01).name('strength');
  paint.add(settings, 'paintFalloff', ['smooth', 'linear', 'constant']).name('falloff');
  paint.add(settings, 'paintMirror').name('mirror (x)');
  paint.add(settings, 'smoothJoint').name('smooth weights around the joint');
  paint.add(settings, 'corCheck').name('CoR check (red: far from the bones)');
  paint.add(settings, 'undo');
  paint.add(settings, 'redo');
  if (!settings.paint) paint.close();
  // The panel gets a column of its own: it never covers a view.
  fitToPanel();
}

/** Leaves the control panel's column (its left edge to the window's right edge) to the panel. */
function fitToPanel(): void {
  app.style.right = gui ? `${Math.max(0, window.innerWidth - gui.domElement.getBoundingClientRect().left)}px` : '0';
}
window.addEventListener('resize', () => {
  fitToPanel();
  if (autoFramed && views[0]) frame(views[0]);
});
controls.addEventListener('start', () => (autoFramed = false));

/**
 * Points the camera at the posed joint of the sliders, keeping its limb in view: the box of the
 * joint, its parent and its bones two levels down, widened by a little of the character's size
 * for the flesh around them, fitted to a view from the current direction.
 */
function frameJoint(): void {
  const view = viewCells()[0]?.view;
  const bone = view?.root.getObjectByName(settings.joint);
  if (!view || !bone) return;
  view.root.updateMatrixWorld(true);
  const box = new THREE.Box3().expandByPoint(bone.getWorldPosition(new THREE.Vector3()));
  const isBone = (o: THREE.Object3D | null): o is THREE.Bone => !!o && (o as THREE.Bone).isBone;
  if (isBone(bone.parent)) box.expandByPoint(bone.parent.getWorldPosition(new THREE.Vector3()));
  for (const child of bone.children.filter(isBone)) {
    box.expandByPoint(child.getWorldPosition(new THREE.Vector3()));
    for (const grandchild of child.children.filter(isBone))
      box.expandByPoint(grandchild.getWorldPosition(new THREE.Vector3()));
  }
  box.expandByScalar(0.06 * (bounds.getSize(new THREE.Vector3()).length() || 1));
  const direction = camera.position.clone().sub(controls.target).normalize();
  const { w, h } = viewCells()[0].cell;
  const center = box.getCenter(new THREE.Vector3());
  controls.target.copy(center);
  camera.position.copy(center).addScaledVector(direction, fitDistance(box, direction, camera.fov, w / Math.max(1, h)));
  controls.update();
  autoFramed = false;
}

/** The rotation a joint gets from the twist/bend sliders, about its bone (twist) and local z. */
function poseJoint(root: THREE.Object3D): void {
  // The preview cycle: the bend (90° when the slider is at 0) and twist swing out and back every 2 s.
  const cycle = settings.preview ? 0.5 - 0.5 * Math.cos((Math.PI * performance.now()) / 1000) : 1;
  const bend = (settings.preview && !settings.bend ? 90 : settings.bend) * cycle;
  const twist = settings.twist * cycle;
  if (!settings.joint || (!twist && !bend)) return;
  // A bone template's slot is selected: its key poses are the bends of the bone's child joint.
  const selected = root.getObjectByName(settings.joint);
  const bone = settings.slot === 'bone' ? selected?.children.find((c) => (c as THREE.Bone).isBone) : selected;
  if (!bone) return;
  const child = bone.children.find((c) => (c as THREE.Bone).isBone);
  const axis = child && child.position.lengthSq() > 0 ? child.position.clone().normalize() : new THREE.Vector3(0, 1, 0);
  const side = Math.abs(axis.z) < 0.9 ? new THREE.Vector3(0, 0, 1) : new THREE.Vector3(1, 0, 0);
  const bendAxis = side.sub(axis.clone().multiplyScalar(side.dot(axis))).normalize();
  bone.quaternion
    .multiply(new THREE.Quaternion().setFromAxisAngle(axis, THREE.MathUtils.degToRad(twist)))
    .multiply(new THREE.Quaternion().setFromAxisAngle(bendAxis, THREE.MathUtils.degToRad(bend)));
}

function updatePose(view: View): void {
  const clip = gltf?.animations.find((a) => a.name === settings.animation);
  // Reset to the rest pose, then the clip, then the joint sliders.
  view.root.traverse((o) => {
    const q = restQuaternionOf(view, o);
    if (q) o.quaternion.copy(q);
  });
  view.mixer.stopAllAction();
  if (settings.pose !== 'rest') applyStressPose(view);
  if (clip) {
    view.mixer.clipAction(clip).play();
    view.mixer.setTime(settings.time);
  }
  poseJoint(view.root);
  view.root.updateMatrixWorld(true);
}

/** Per skinned mesh of view 0, the stress pose's local joint rotations (x, y, z, w per bone) at each amplitude. */
const stressRotations = new Map<string, Float64Array>();
/** Poses every skinned mesh's bones of `view` in corskin's stress pose (`corskin evaluate --character`'s pose battery). */
function applyStressPose(view: View): void {
  const amplitude = settings.pose === 'stress-half' ? 0.5 : 1;
  view.root.traverse((o) => {
    const mesh = o as THREE.SkinnedMesh;
    if (!mesh.isSkinnedMesh || isCageObject(mesh)) return;
    const bones = mesh.skeleton.bones;
    const key = `${bones.map((b) => b.name).join('|')}@${amplitude}`;
    let rotations = stressRotations.get(key);
    if (!rotations) {
      rotations = stressPose(skeletonFromThree(mesh), amplitude).rotations;
      stressRotations.set(key, rotations);
    }
    bones.forEach((b, j) => b.quaternion.fromArray(rotations, 4 * j));
  });
}

function restQuaternionOf(view: View, o: THREE.Object3D): THREE.Quaternion | undefined {
  // Views are clones with the same structure: find the twin in view 0 by name path.
  if (view === views[0]) return restQuaternions.get(o);
  const twin = views[0].root.getObjectByName(o.name);
  return twin ? restQuaternions.get(twin) : undefined;
}

/** Per mesh, the buffer its skinning matrices are written into (one allocation per mesh, not per frame). */
const skinningBuffers = new WeakMap<THREE.SkinnedMesh, Float64Array>();
/**
 * Skinning matrices of a three.js skinned mesh in its bind space, as corskin/three uploads them
 * (after `skeleton.update()`); the array is reused by the next call for the same mesh.
 */
function skinningOf(mesh: THREE.SkinnedMesh): Float64Array {
  mesh.skeleton.update();
  let S = skinningBuffers.get(mesh);
  if (!S) skinningBuffers.set(mesh, (S = new Float64Array(16 * mesh.skeleton.bones.length)));
  return bindSpaceSkinningMatrices(mesh, S);
}

/**
 * Heat map of the local rigidity distortion (corskin's metric: normalised ARAP residual of each
 * one-ring against the rest pose), computed on the CPU with the view's method; blue 0 → red ≥ 0.5.
 */
function updateHeatmap(view: View): void {
  view.root.traverse((o) => {
    const mesh = o as THREE.SkinnedMesh;
    if (!mesh.isSkinnedMesh) return;
    const materials = Array.isArray(mesh.material) ? mesh.material : [mesh.material];
    for (const m of materials as THREE.MeshStandardMaterial[]) {
      const colored = settings.heatmap || settings.paint || settings.corCheck;
      if (m.vertexColors !== colored) {
        m.vertexColors = colored;
        m.needsUpdate = true;
      }
    }
    if (settings.corCheck && corCheckColors(mesh, skinnedMeshes(view).indexOf(mesh))) return;
    if (settings.paint && paintWeightColors(mesh)) return;
    if (!settings.heatmap) return;
    const c = cpuOf(view, mesh);
    if (view.method === 'cor' && !c.centers) return;
    c.deform(c.data, skinningOf(mesh), { positions: c.posed });
    const d = rigidityDistortion(c.data.positions, c.posed, c.data.triangles, c.rings);
    const color = new THREE.Color();
    for (let i = 0; i < d.length; i++) {
      color.setHSL(0.66 * (1 - Math.min(1, d[i] / 0.5)), 0.9, 0.5);
      c.colors.setXYZ(i, color.r, color.g, color.b);
    }
    c.colors.needsUpdate = true;
    if (mesh.geometry.getAttribute('color') !== c.colors) mesh.geometry.setAttribute('color', c.colors);
    mesh.userData.corskinColours = undefined; // the paint colours must be redrawn
  });
}

// ——— Skinning templates: the cage overlay and the template slot of the selected joint ———

/** Per cage, its edges (vertex pairs) and their colours (joint templates red, bone templates blue, bridges grey). */
const cageEdges = new WeakMap<Cage, { edges: Uint32Array; colors: Float32Array; posed: Float64Array }>();
function edgesOf(rig: TemplateRig): { edges: Uint32Array; colors: Float32Array; posed: Float64Array } {
  let e = cageEdges.get(rig.cage);
  if (e) return e;
  // Each cage vertex's template: limb, kind and index.
  const owner: string[] = [];
  const kind: string[] = [];
  for (const [l, limb] of rig.limbs.entries())
    limb.roles.forEach((r, v) => {
      owner[limb.first + v] = `${l}/${r.kind}/${r.index}`;
      kind[limb.first + v] = r.kind;
    });
  const seen = new Set<number>();
  const edges: number[] = [];
  const colors: number[] = [];
  const m = rig.cage.positions.length / 3;
  const t = rig.cage.triangles;
  for (let f = 0; f < t.length; f += 3)
    for (let c = 0; c < 3; c++) {
      const a = Math.min(t[f + c], t[f + ((c + 1) % 3)]);
      const b = Math.max(t[f + c], t[f + ((c + 1) % 3)]);
      if (seen.has(a * m + b)) continue;
      seen.add(a * m + b);
      edges.push(a, b);
      const rgb = owner[a] !== owner[b] ? [0.55, 0.55, 0.55] : kind[a] === 'joint' ? [1, 0.2, 0.2] : [0.3, 0.55, 1];
      colors.push(...rgb, ...rgb);
    }
  e = { edges: Uint32Array.from(edges), colors: Float32Array.from(colors), posed: new Float64Array(3 * m) };
  cageEdges.set(rig.cage, e);
  return e;
}

/** The templates view's meshes with a template cage, one per cage (the parts of a skin share theirs). */
function cagedMeshes(view: View): { mesh: THREE.SkinnedMesh; rig: TemplateRig }[] {
  const seen = new Set<Cage>();
  return skinnedMeshes(view).flatMap((mesh) => {
    const rig = templateRigOf(mesh);
    if (!rig?.limbs.length || seen.has(rig.cage)) return [];
    seen.add(rig.cage);
    return [{ mesh, rig }];
  });
}

/** Draws the templates view's posed cages (the same template functions its meshes render with this frame). */
function updateCage(view: View): void {
  view.cage.visible = settings.cage && view.method === 'templates';
  if (!view.cage.visible) return;
  const positions: number[] = [];
  const colors: number[] = [];
  const v = new THREE.Vector3();
  for (const { mesh, rig } of cagedMeshes(view)) {
    const e = edgesOf(rig);
    poseTemplates(rig, skinningOf(mesh), e.posed);
    for (const i of e.edges) {
      v.fromArray(e.posed, 3 * i).applyMatrix4(mesh.matrixWorld);
      positions.push(v.x, v.y, v.z);
    }
    colors.push(...e.colors);
  }
  view.cage.geometry.setAttribute('position', new THREE.Float32BufferAttribute(positions, 3));
  view.cage.geometry.setAttribute('color', new THREE.Float32BufferAttribute(colors, 3));
}

/** Page pixel of each posed cage vertex of the templates view's meshes (as the overlay draws them). */
function cageVertexPixels(): {
  mesh: THREE.SkinnedMesh;
  rig: TemplateRig;
  vertex: number;
  x: number;
  y: number;
  world: THREE.Vector3;
}[] {
  const view = templatesView();
  if (!view || !view.cage.visible) return [];
  const cell = viewCells().find((c) => c.view === view)?.cell;
  if (!cell) return [];
  const r = renderer.domElement.getBoundingClientRect();
  const out = [];
  for (const { mesh, rig } of cagedMeshes(view)) {
    const posed = edgesOf(rig).posed;
    for (let v = 0; v < posed.length / 3; v++) {
      const world = new THREE.Vector3().fromArray(posed, 3 * v).applyMatrix4(mesh.matrixWorld);
      const p = world.clone().project(camera);
      out.push({
        mesh,
        rig,
        vertex: v,
        x: r.left + cell.x + ((p.x + 1) / 2) * cell.w,
        y: r.top + cell.y + ((1 - p.y) / 2) * cell.h,
        world,
      });
    }
  }
  return out;
}

/**
 * A drag on the cage overlay: the template cage vertex drawn nearest to (x0, y0), within 10 px,
 * and its move in the plane facing the camera to (x1, y1), in the mesh's (posed) geometry space.
 */
function cageDrag(x0: number, y0: number, x1: number, y1: number) {
  const hit = cageVertexPixels()
    .map((p) => ({ ...p, d: Math.hypot(p.x - x0, p.y - y0) }))
    .filter((p) => p.d < 10)
    .sort((a, b) => a.d - b.d)[0];
  if (!hit) return undefined;
  const { mesh, rig, vertex } = hit;
  const { w, h } = viewCells()[0].cell;
  const ndc = hit.world.clone().project(camera);
  const to = new THREE.Vector3(ndc.x + (2 * (x1 - x0)) / w, ndc.y - (2 * (y1 - y0)) / h, ndc.z).unproject(camera);
  const toGeometry = new THREE.Matrix4().copy(mesh.matrixWorld).invert();
  const posedDelta = to.applyMatrix4(toGeometry).sub(hit.world.clone().applyMatrix4(toGeometry));
  const limb = rig.limbs.find((l) => vertex >= l.first && vertex < l.first + l.roles.length)!;
  return { mesh, rig, vertex, posedDelta, limb, role: limb.roles[vertex - limb.first] };
}

/**
 * Drags a template cage vertex (the paper's manual correction of the automatic fit): the drag
 * ({@link cageDrag}) is taken back to the bind pose by its template's bone, and the skin bound to
 * the cage again. Refused, with the reason in the status line, when skin would be left outside the cage.
 */
async function dragCageVertex(x0: number, y0: number, x1: number, y1: number): Promise<boolean> {
  const drag = cageDrag(x0, y0, x1, y1);
  if (!drag) return false;
  const { mesh, rig, vertex, posedDelta } = drag;
  const delta = bindOrientationMove(rig, skinningOf(mesh), vertex, posedDelta.toArray());
  moveTemplateCageVertex(rig, vertex, delta);
  setStatus(`${fileName}: cage vertex ${vertex} moved; binding the skin again…`);
  await new Promise((done) => setTimeout(done, 0));
  const t0 = performance.now();
  try {
    // The skin bound again to the edited cage: every mesh of the skin (they share the cage) as one.
    const group = skinnedMeshes(templatesView()!).filter((m) => templateRigOf(m)?.cage === rig.cage);
    const parts = group.map(meshFromGeometry);
    const whole = mergeSkinnedMeshes(parts);
    setSkinTemplateRig(group, parts, rebindTemplateRig(rig, whole));
  } catch (e) {
    moveTemplateCageVertex(
      rig,
      vertex,
      delta.map((x) => -x),
    );
    setStatus(`${fileName}: move refused: ${(e as Error).message}`);
    return false;
  }
  const view = templatesView()!;
  await useSkinningMethod(view.root, 'templates');
  view.cpu.clear();
  setStatus(
    `${fileName}: cage vertex ${vertex} moved; skin bound again in ${((performance.now() - t0) / 1000).toFixed(2)} s`,
  );
  return true;
}

/**
 * The template editor's drawing — an artist poses the relevant bones and moves template vertices
 * into a key pose (Ju et al. 2008): the drag ({@link cageDrag}) at the current pose becomes a key
 * pose of the vertex's template, renamed to the editor's id (`dragTemplateKeyPose`), which goes
 * into the library and onto the vertex's slot (selected); further drags refine it.
 */
function drawKeyPose(x0: number, y0: number, x1: number, y1: number): boolean {
  const drag = cageDrag(x0, y0, x1, y1);
  if (!drag) return false;
  const { mesh, rig, vertex, posedDelta, limb, role } = drag;
  try {
    const t = dragTemplateKeyPose(rig, skinningOf(mesh), vertex, posedDelta.toArray(), settings.editId, {
      symmetric: settings.editSymmetric,
    });
    addTemplates([t]);
    settings.joint = mesh.skeleton.bones[limb.chain[role.index]].name;
    settings.slot = role.kind === 'joint' ? 'joint' : 'bone';
    switchTemplate(t.id);
    const bend = t.keyPoses.reduce((b, k) => (k.offsets ? k.bend : b), 0);
    setStatus(`${fileName}: "${t.id}" drawn: vertex ${vertex} moved in its key pose at ${bend.toFixed(1)}°`);
    return true;
  } catch (e) {
    setStatus(`template editor: ${(e as Error).message}`);
    return false;
  }
}

/** The templates view, if the viewer has one. */
const templatesView = () => views.find((v) => v.method === 'templates');

/** The choices at the selected joint and the templates each of its slots takes (of the first mesh whose limbs hold it). */
function templateSlot():
  { rig: TemplateRig; bone?: string; joint?: string; ids: (kind: 'bone' | 'joint') => string[] } | undefined {
  const view = templatesView();
  if (!view) return undefined;
  for (const mesh of skinnedMeshes(view)) {
    const rig = templateRigOf(mesh);
    const j = mesh.skeleton.bones.findIndex((b) => b.name === settings.joint);
    if (!rig || j < 0) continue;
    for (const limb of rig.limbs) {
      const i = limb.chain.indexOf(j);
      if (i < 0) continue;
      const through = rig.limbs.find((l) => l.chain.indexOf(j) >= 1);
      return {
        rig,
        bone: limb.boneTemplates[i],
        joint: through?.jointTemplates[through.chain.indexOf(j)],
        ids: (kind) => compatibleTemplates(rig, j, kind),
      };
    }
  }
  return undefined;
}

let templateControls: GUI | undefined;
/** Rebuilds the template dropdowns for the selected joint (the library's templates of each kind its slot takes). */
function fillTemplateControls(): void {
  if (!templateControls) return;
  for (const c of [...templateControls.controllers]) c.destroy();
  const slot = templateSlot();
  if (!slot) {
    templateControls.title('skinning templates: select a joint in a limb');
    return;
  }
  templateControls.title(
    settings.slot === 'bone'
      ? `skinning templates of the bone from ${settings.joint} (Tab cycles; the pose bends its child joint)`
      : `skinning templates at ${settings.joint} (Tab cycles the joint template)`,
  );
  const { ids } = slot;
  templateControls
    .add(settings, 'boneTemplate', ids('bone'))
    .name('bone template')
    .onChange((id: string) => switchTemplate(id));
  if (slot.joint !== undefined)
    templateControls
      .add(settings, 'jointTemplate', ids('joint'))
      .name('joint template')
      .onChange((id: string) => switchTemplate(id));
}

/** Reads the selected joint's templates into the settings (and the dropdowns). */
function selectTemplates(): void {
  const slot = templateSlot();
  settings.boneTemplate = slot?.bone ?? '';
  settings.jointTemplate = slot?.joint ?? '';
  fillTemplateControls();
}

/** Switches the selected joint's template in the templates view (visible on the next frame). */
function switchTemplate(id: string): void {
  const view = templatesView();
  if (!view || !settings.joint) return;
  try {
    setSkinningTemplate(view.root, settings.joint, id);
    view.cpu.clear();
    setStatus(`${fileName}: ${settings.joint} now uses the "${id}" template`);
  } catch (e) {
    setStatus(`${fileName}: ${(e as Error).message}`);
  }
  selectTemplates();
}

/** Cycles the selected slot's template through the library's templates of its kind (backwards with `back`). */
function cycleTemplate(back: boolean): void {
  const slot = templateSlot();
  const kind = settings.slot === 'joint' && slot?.joint !== undefined ? 'joint' : 'bone';
  const current = kind === 'joint' ? slot?.joint : slot?.bone;
  if (!slot || current === undefined) return;
  const ids = slot.ids(kind);
  switchTemplate(ids[(ids.indexOf(current) + (back ? ids.length - 1 : 1)) % ids.length]);
}

/** `?template=JOINT=ID,…`: template choices given in the URL (`corskin render --template`). */
function applyTemplateParam(): void {
  const view = templatesView();
  for (const pair of (params.get('template') ?? '').split(',').filter(Boolean)) {
    const [joint, id] = pair.split('=');
    if (view && !setSkinningTemplate(view.root, threeName(joint), id)) setStatus(`no template slot at ${joint}`);
  }
}

/** Posed centers of rotation of the CoR view: LBS of the bind-space centers (Algorithm 1, line 7). */
function updateCenters(view: View): void {
  view.cors.visible = settings.centers && view.method === 'cor';
  if (!view.cors.visible) return;
  const points: number[] = [];
  view.root.traverse((o) => {
    const mesh = o as THREE.SkinnedMesh;
    if (!mesh.isSkinnedMesh) return;
    const c = cpuOf(view, mesh);
    if (!c.centers) return;
    const out = c.posed;
    deformLbs(c.centers, skinningOf(mesh), { positions: out });
    const v = new THREE.Vector3();
    for (let i = 0; i < out.length; i += 3) {
      v.fromArray(out, i).applyMatrix4(mesh.matrixWorld);
      points.push(v.x, v.y, v.z);
    }
  });
  view.cors.geometry.setAttribute('position', new THREE.Float32BufferAttribute(points, 3));
}

const px = new Uint8Array(4);
let last = performance.now();
function render(): void {
  const now = performance.now();
  if (settings.playing && duration > 0) settings.time = (settings.time + (now - last) / 1000) % duration;
  last = now;
  const w = app.clientWidth;
  const h = app.clientHeight;
  renderer.setSize(w, h, false);
  renderer.domElement.style.width = `${w}px`;
  renderer.domElement.style.height = `${h}px`;
  const cells = viewCells();
  if (cells.length) camera.aspect = cells[0].cell.w / Math.max(1, cells[0].cell.h);
  camera.updateProjectionMatrix();
  const gl = renderer.getContext();
  for (const v of views) v.label.style.display = cells.some((c) => c.view === v) ? 'block' : 'none';
  renderer.setScissorTest(false);
  renderer.clear(); // what no view covers (the remainder of whole-pixel cells, an empty grid slot)
  renderer.setScissorTest(true);
  cells.forEach(({ view: v, cell }) => {
    updatePose(v);
    updateCenters(v);
    updateCage(v);
    updateHeatmap(v);
    // WebGL's viewport counts from the bottom-left corner.
    renderer.setViewport(cell.x, h - cell.y - cell.h, cell.w, cell.h);
    renderer.setScissor(cell.x, h - cell.y - cell.h, cell.w, cell.h);
    const t0 = performance.now();
    renderer.render(v.scene, camera);
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px); // wait for the GPU: frame time per view
    v.times.push(performance.now() - t0);
    if (v.times.length > 60) v.times.shift();
    v.label.style.left = `${cell.x + 8}px`;
    v.label.style.top = `${cell.y + 8}px`;
    v.label.textContent = `${GPU_METHODS.find((m) => m.id === v.method)!.label} — ${median(v.times).toFixed(2)} ms`;
  });
  requestAnimationFrame(render);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : 0;
}

/**
 * Precomputes the centers of rotation of every skin of the loaded file (on a worker) and writes
 * them into a copy of it with glTF-Transform; downloads it when `download`.
 */
async function exportWithCenters(download: boolean): Promise<Uint8Array> {
  const { io, doc } = await readLoaded();
  // Painted weights first (the primitives in the viewer's mesh order), then the centers of the
  // final weights (the painting session's, bit-identical to a recomputation, where there is one).
  let part = 0;
  const painted = new Map<number, CorSession>();
  for (const model of extractSkinnedModels(doc, fileName))
    for (const p of model.parts) {
      const s = sessions[part++];
      if (!s || s.mesh.positions.length / 3 !== p.vertexCount) continue;
      const K = s.mesh.influences;
      const j = new Uint16Array(4 * p.vertexCount),
        w = new Float32Array(4 * p.vertexCount);
      for (let i = 0; i < p.vertexCount; i++)
        for (let k = 0; k < Math.min(4, K); k++) {
          j[4 * i + k] = s.mesh.joints[K * i + k];
          w[4 * i + k] = s.mesh.weights[K * i + k];
        }
      const buffer = doc.getRoot().listBuffers()[0];
      p.primitive.setAttribute('JOINTS_0', doc.createAccessor().setType('VEC4').setArray(j).setBuffer(buffer));
      p.primitive.setAttribute('WEIGHTS_0', doc.createAccessor().setType('VEC4').setArray(w).setBuffer(buffer));
      painted.set(part - 1, s);
    }
  part = 0;
  for (const model of extractSkinnedModels(doc, fileName)) {
    const mine = model.parts.map(() => painted.get(part++));
    const centers =
      model.parts.length === 1 && mine[0] ? mine[0].centers.slice() : await centersWithProgress(model.mesh, model.name);
    setCentersOfRotation(doc, model, centers, { sigma: 0.1, epsilon: 0.1, method: 'fast' });
  }
  const out = await io.setVertexLayout(vertexLayoutFor(doc)).writeBinary(doc);
  setStatus(`${fileName}: centers of rotation computed; exported`);
  if (download) save(out, fileName.replace(/\.(glb|gltf)$/i, '') + '-cor.glb', 'model/gltf-binary');
  return out;
}

/** The loaded file as a glTF-Transform document (for exports). @throws Error for Draco files (no encoder here) */
async function readLoaded(): Promise<{ io: WebIO; doc: Awaited<ReturnType<WebIO['readBinary']>> }> {
  if (!bytes) throw new Error('nothing loaded');
  const json = new TextDecoder().decode(new Uint8Array(bytes, 0, Math.min(bytes.byteLength, 1 << 20)));
  if (json.includes('KHR_draco_mesh_compression'))
    throw new Error('export of a Draco-compressed file needs the Draco encoder: use the corskin command on it');
  await Promise.all([MeshoptDecoderIO.ready, MeshoptEncoder.ready]);
  const io = new WebIO()
    .registerExtensions(ALL_EXTENSIONS)
    .registerDependencies({ 'meshopt.decoder': MeshoptDecoderIO, 'meshopt.encoder': MeshoptEncoder });
  return { io, doc: await io.readBinary(new Uint8Array(bytes)) };
}

/** Downloads `data` as a file. */
function save(data: Uint8Array | string, name: string, type: string): void {
  const a = Object.assign(document.createElement('a'), {
    href: URL.createObjectURL(new Blob([data as BlobPart], { type })),
    download: name,
  });
  a.click();
}

/**
 * Writes the templates view's rigs into a copy of the loaded file: each skin's cage, binding and
 * template choices (as `corskin templates build` stores them; the viewer and corskin/three reopen
 * it with the same choices), or, `baked`, the templates sampled over every clip as corrective morph
 * targets (a standard glTF any engine plays). A skin's meshes share one rig (their parts are joined
 * back); a skin whose meshes hold rigs of different cages is left out, with its name in the status.
 */
async function exportTemplates(baked: boolean, download: boolean): Promise<Uint8Array> {
  const { io, doc } = await readLoaded();
  const view = templatesView();
  const meshes = view ? skinnedMeshes(view) : [];
  let part = 0;
  const skipped: string[] = [];
  for (const model of extractSkinnedModels(doc, fileName)) {
    // The skin's rig: its meshes' parts joined (they share one cage when the viewer built it).
    const rigs = model.parts.map(() => meshes[part++]).map((m) => m && templateRigOf(m));
    const shared = rigs.every((r) => r && r.cage === rigs[0]!.cage);
    const rig = shared ? joinTemplateRigParts(rigs as TemplateRig[]) : undefined;
    if (!rig) {
      skipped.push(model.name);
      continue;
    }
    if (baked && rig.limbs.length) bakeTemplateClips(doc, model, createTemplateDeformer(rig), { file: fileName });
    else writeTemplateRig(doc, model, rig);
  }
  const out = await io.setVertexLayout(vertexLayoutFor(doc)).writeBinary(doc);
  const what = baked ? 'templates baked into morph targets' : 'template cages and choices';
  setStatus(
    `${fileName}: exported the ${what}${skipped.length ? `; left out ${skipped.join(', ')} (its meshes hold different template cages)` : ''}`,
  );
  const stem = fileName.replace(/\.(glb|gltf)$/i, '');
  if (download) save(out, `${stem}-${baked ? 'baked' : 'templates'}.glb`, 'model/gltf-binary');
  return out;
}

// ——— Template libraries: import, export, and the template editor ———

/** The library of the templates view's rigs (they share one: edits go to all). */
function viewLibrary(): TemplateLibrary | undefined {
  const view = templatesView();
  return (
    view &&
    skinnedMeshes(view)
      .map(templateRigOf)
      .find((r) => r)?.library
  );
}

/** Gives every rig of the templates view `templates` (added, or replacing those of the same id). */
function addTemplates(templates: TemplateDefinition[]): void {
  const view = templatesView();
  if (!view) return;
  for (const mesh of skinnedMeshes(view)) {
    const rig = templateRigOf(mesh);
    if (!rig) continue;
    // A new library object: the default one may be shared by other rigs.
    rig.library = withTemplates(rig.library, templates);
  }
  fillTemplateControls();
}

const libraryPicker = Object.assign(document.createElement('input'), { type: 'file', accept: '.json', id: 'library' });
libraryPicker.style.display = 'none';
document.body.appendChild(libraryPicker);
libraryPicker.onchange = async () => {
  const f = libraryPicker.files?.[0];
  if (f) importLibrary(await f.text(), f.name);
};

/** Adds a template library (corskin-templates JSON) to the templates view's rigs. */
function importLibrary(text: string, name: string): void {
  try {
    const library = parseTemplateLibrary(JSON.parse(text), name);
    addTemplates(library.templates);
    setStatus(
      `${name}: ${library.templates.length} template(s) added: ${library.templates.map((t) => t.id).join(', ')}`,
    );
  } catch (e) {
    setStatus(`${name}: ${(e as Error).message}`);
  }
}

/**
 * The template editor (templates are "defined once by artists", Ju et al. 2008): a template of the
 * selected slot's kind whose second key pose, at the preview bend, has the editor's bulge, slide and twist
 * (the parametric library's key-pose values), tried live on the selected slot and saved into the
 * library under its id.
 */
function editedTemplate(): TemplateDefinition {
  const kind = settings.slot === 'joint' && settings.jointTemplate ? 'joint' : 'bone';
  const bend = Math.max(1, Math.min(180, Math.abs(settings.editBend)));
  const key: BoneKeyPose = { bend, bulge: settings.editBulge };
  if (kind === 'bone' && settings.editSlide) key.slide = settings.editSlide;
  if (kind === 'bone' && settings.editTwist) key.twist = settings.editTwist;
  return {
    id: settings.editId,
    kind,
    side: settings.editSide,
    description: `made in the viewer: ${settings.editSide} bulge ${settings.editBulge} at ${bend}°`,
    keyPoses: [{ bend: 0, bulge: 0 }, key],
  };
}

/** Puts the editor's template into the library (checked as a library file would be) and on the selected slot. */
function saveTemplate(): void {
  try {
    const t = parseTemplateLibrary({ format: 'corskin-templates', version: 1, templates: [editedTemplate()] })
      .templates[0];
    addTemplates([t]);
    switchTemplate(t.id);
  } catch (e) {
    setStatus(`template editor: ${(e as Error).message}`);
  }
}

// ——— Weight painting: a CoR session per skinned mesh (the centers follow every dab) ———

/** The skinned meshes of a view, in traversal order (the same order in every view), corskin's cage nodes left out. */
function skinnedMeshes(view: View): THREE.SkinnedMesh[] {
  const list: THREE.SkinnedMesh[] = [];
  view.root.traverse(
    (o) => (o as THREE.SkinnedMesh).isSkinnedMesh && !isCageObject(o) && list.push(o as THREE.SkinnedMesh),
  );
  return list;
}

let sessions: (CorSession | undefined)[] = [];
let rings: number[][][] = [];
let paintEdits = 0;
/** Seconds each dab's CoR update took (the session's own timing), for the bench. */
const paintSeconds: number[] = [];
const undoStack: number[] = [];
const redoStack: number[] = [];

/** Starts the CoR sessions (once per loaded file) when paint mode is on. */
async function startPainting(): Promise<void> {
  if (!settings.paint || !views.length || sessions.length) return;
  setStatus(`${fileName}: preparing the CoR painting session…`);
  await new Promise((r) => setTimeout(r, 0));
  sessions = skinnedMeshes(views[0]).map((mesh) => {
    if (mesh.geometry.getAttribute('joints_1')) return undefined; // 4 influences only
    const data = meshFromGeometry(mesh);
    const n = data.positions.length / 3;
    const ring: number[][] = Array.from({ length: n }, () => []);
    for (let t = 0; t < data.triangles.length; t += 3)
      for (let c = 0; c < 3; c++)
        ring[data.triangles[t + c]].push(data.triangles[t + ((c + 1) % 3)], data.triangles[t + ((c + 2) % 3)]);
    rings.push(ring);
    return createCorSession(data, { jointCount: mesh.skeleton.bones.length });
  });
  if (!settings.paintJoint) settings.paintJoint = settings.joint;
  setStatus(`${fileName}: paint mode — drag on the character (CoRs update as you paint)`);
}

/** Writes a session's current weights and centers into every view's copy of mesh `m`. */
function pushToViews(m: number, vertices: ArrayLike<number>, recomputed: ArrayLike<number>): void {
  const s = sessions[m]!;
  const K = s.mesh.influences;
  for (const view of views) {
    const mesh = skinnedMeshes(view)[m];
    const g = mesh.geometry;
    const idx = g.getAttribute('skinIndex') as THREE.BufferAttribute,
      wgt = g.getAttribute('skinWeight') as THREE.BufferAttribute;
    for (const i of Array.from(vertices))
      for (let k = 0; k < 4; k++) {
        idx.setComponent(i, k, k < K ? s.mesh.joints[K * i + k] : 0);
        wgt.setComponent(i, k, k < K ? s.mesh.weights[K * i + k] : 0);
      }
    idx.needsUpdate = wgt.needsUpdate = true;
    const cor = g.getAttribute('_center_of_rotation') as THREE.BufferAttribute | undefined;
    if (cor) {
      for (const i of Array.from(recomputed))
        cor.setXYZ(i, s.centers[3 * i], s.centers[3 * i + 1], s.centers[3 * i + 2]);
      cor.needsUpdate = true;
    }
    view.cpu.clear();
  }
}

const raycaster = new THREE.Raycaster();
/** One dab where the page pixel (x, y) hits the character (in whichever view it falls). */
function paintAt(x: number, y: number): boolean {
  const r = renderer.domElement.getBoundingClientRect();
  const [cx, cy] = [x - r.left, y - r.top];
  const at = viewCells().find(({ cell: c }) => cx >= c.x && cx < c.x + c.w && cy >= c.y && cy < c.y + c.h);
  if (!at) return false;
  const { view, cell } = at;
  raycaster.setFromCamera(
    new THREE.Vector2(((cx - cell.x) / cell.w) * 2 - 1, 1 - ((cy - cell.y) / cell.h) * 2),
    camera,
  );
  const meshes = skinnedMeshes(view);
  const hit = raycaster.intersectObjects(meshes, false)[0];
  if (!hit || !hit.face) return false;
  const m = meshes.indexOf(hit.object as THREE.SkinnedMesh);
  const session = sessions[m];
  if (!session) return false;
  // The face corner nearest the hit, and its bind-space position: the dab's centre.
  const mesh = meshes[m];
  let best = hit.face.a,
    bestD = Infinity;
  for (const c of [hit.face.a, hit.face.b, hit.face.c]) {
    const p = mesh.getVertexPosition(c, new THREE.Vector3()).applyMatrix4(mesh.matrixWorld);
    const d = p.distanceToSquared(hit.point);
    if (d < bestD) [best, bestD] = [c, d];
  }
  const P = session.mesh.positions;
  const bones = mesh.skeleton.bones;
  const joint = Math.max(
    0,
    bones.findIndex((b) => b.name === settings.paintJoint),
  );
  const parent = bones.indexOf(bones[joint].parent as THREE.Bone);
  const size = meshSize(mesh);
  const edit = brushDab(
    session.mesh,
    {
      mode: settings.paintMode,
      joint,
      centre: [P[3 * best], P[3 * best + 1], P[3 * best + 2]],
      radius: settings.paintRadius * size,
      strength: settings.paintStrength,
      falloff: settings.paintFalloff,
      fallbackJoint: parent >= 0 ? parent : undefined,
      mirror: settings.paintMirror ? { axis: 0, joints: mirrorJoints(bones.map((b) => b.name)) } : undefined,
    },
    bones.length,
    rings[m],
  );
  if (!edit.vertices.length) return false;
  applyEdit(m, edit);
  return true;
}

function paintUndo(redo: boolean): void {
  const m = (redo ? redoStack : undoStack).pop();
  if (m === undefined) return;
  const s = sessions[m]!;
  const before = s.mesh.weights.slice(),
    beforeJ = s.mesh.joints.slice();
  const u = redo ? s.redo() : s.undo();
  if (!u) return;
  (redo ? undoStack : redoStack).push(m);
  const changed: number[] = [];
  for (let i = 0; i < before.length / s.mesh.influences; i++)
    for (let k = 0; k < s.mesh.influences; k++)
      if (
        before[s.mesh.influences * i + k] !== s.mesh.weights[s.mesh.influences * i + k] ||
        beforeJ[s.mesh.influences * i + k] !== s.mesh.joints[s.mesh.influences * i + k]
      ) {
        changed.push(i);
        break;
      }
  pushToViews(m, changed, u.recomputed);
  paintEdits++;
}

/**
 * Whether `mesh`'s vertex colours already show `what` for the current weights (the colours are
 * recomputed only after a paint edit or a change of what they show, not every frame).
 */
function coloursUpToDate(mesh: THREE.SkinnedMesh, what: string): boolean {
  const key = `${what}|${paintEdits}|${fileName}`;
  const color = mesh.geometry.getAttribute('color');
  if (color && mesh.userData.corskinColours === key) return true;
  mesh.userData.corskinColours = key;
  return false;
}

/** Vertex colours = the painted joint's weight (blue 0 → red 1); false when not painting this mesh. */
function paintWeightColors(mesh: THREE.SkinnedMesh): boolean {
  const bones = mesh.skeleton.bones;
  const j = bones.findIndex((b) => b.name === settings.paintJoint);
  if (j < 0) return false;
  if (coloursUpToDate(mesh, `weights|${j}`)) return true;
  const idx = mesh.geometry.getAttribute('skinIndex'),
    wgt = mesh.geometry.getAttribute('skinWeight');
  let colors = mesh.geometry.getAttribute('color') as THREE.BufferAttribute | undefined;
  if (!colors || colors.count !== idx.count) {
    colors = new THREE.BufferAttribute(new Float32Array(3 * idx.count), 3);
    mesh.geometry.setAttribute('color', colors);
  }
  const color = new THREE.Color();
  for (let i = 0; i < idx.count; i++) {
    let w = 0;
    for (let k = 0; k < 4; k++) if (idx.getComponent(i, k) === j) w += wgt.getComponent(i, k);
    color.setHSL(0.66 * (1 - Math.min(1, w)), 0.9, 0.5);
    colors.setXYZ(i, color.r, color.g, color.b);
  }
  colors.needsUpdate = true;
  return true;
}

/** Bounding-box diagonal of a mesh's bind-space geometry. */
function meshSize(mesh: THREE.SkinnedMesh): number {
  const box = new THREE.Box3().setFromBufferAttribute(mesh.geometry.getAttribute('position') as THREE.BufferAttribute);
  return box.getSize(new THREE.Vector3()).length();
}

/** Applies a brush edit to mesh `m`'s session and every view; one undo step. */
function applyEdit(m: number, edit: { vertices: Int32Array; joints: Uint32Array; weights: Float32Array }): void {
  const u = sessions[m]!.setWeights(edit.vertices, edit.joints, edit.weights);
  paintSeconds.push(u.seconds);
  pushToViews(m, edit.vertices, u.recomputed);
  undoStack.push(m);
  redoStack.length = 0;
  paintEdits++;
  setStatus(
    `${fileName}: painted ${edit.vertices.length} vertices; ${u.recomputed.length} centers updated in ${(u.seconds * 1000).toFixed(1)} ms`,
  );
}

/** Bind-space joint positions of a skinned mesh, in its geometry's space (as the template rigs see them). */
function bindJoints(mesh: THREE.SkinnedMesh): Float64Array {
  return bindJointPositions(skeletonFromThree(mesh));
}

/**
 * CoR check colours: each vertex's center of rotation against the bones of its two largest
 * influences (segments joint → parent joint in the bind pose): green within 10% of the mesh's size,
 * red from 25% (the CoR sits away from where the skin bends, e.g. weights that mix distant bones).
 */
function corCheckColors(mesh: THREE.SkinnedMesh, index: number): boolean {
  const corView = views.find((v) => v.method === 'cor');
  const source = corView && skinnedMeshes(corView)[index]?.geometry.getAttribute('_center_of_rotation');
  if (!source) return false;
  if (coloursUpToDate(mesh, 'cor-check')) return true;
  const P = bindJoints(mesh);
  const parents = mesh.skeleton.bones.map((b) => mesh.skeleton.bones.indexOf(b.parent as THREE.Bone));
  const idx = mesh.geometry.getAttribute('skinIndex'),
    wgt = mesh.geometry.getAttribute('skinWeight');
  const size = meshSize(mesh);
  let colors = mesh.geometry.getAttribute('color') as THREE.BufferAttribute | undefined;
  if (!colors || colors.count !== idx.count) {
    colors = new THREE.BufferAttribute(new Float32Array(3 * idx.count), 3);
    mesh.geometry.setAttribute('color', colors);
  }
  const seg = (x: number[], j: number) => {
    const a = [P[3 * j], P[3 * j + 1], P[3 * j + 2]];
    const p = parents[j];
    if (p < 0) return Math.hypot(x[0] - a[0], x[1] - a[1], x[2] - a[2]);
    const b = [P[3 * p], P[3 * p + 1], P[3 * p + 2]];
    const d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    const t = Math.max(
      0,
      Math.min(
        1,
        ((x[0] - a[0]) * d[0] + (x[1] - a[1]) * d[1] + (x[2] - a[2]) * d[2]) / (d[0] ** 2 + d[1] ** 2 + d[2] ** 2 || 1),
      ),
    );
    return Math.hypot(x[0] - a[0] - t * d[0], x[1] - a[1] - t * d[1], x[2] - a[2] - t * d[2]);
  };
  const color = new THREE.Color();
  for (let i = 0; i < idx.count; i++) {
    const slots = [0, 1, 2, 3].sort((a, b) => wgt.getComponent(i, b) - wgt.getComponent(i, a));
    const c = [source.getX(i), source.getY(i), source.getZ(i)];
    let d = Infinity;
    for (const k of slots.slice(0, 2)) if (wgt.getComponent(i, k) > 0) d = Math.min(d, seg(c, idx.getComponent(i, k)));
    const t = Math.max(0, Math.min(1, (d / size - 0.1) / 0.15));
    color.setHSL(0.33 * (1 - t), 0.9, 0.5);
    colors.setXYZ(i, color.r, color.g, color.b);
  }
  colors.needsUpdate = true;
  return true;
}

/** Smooths the painted joint's neighbourhood in one dab (radius 3× the brush, full strength). */
function smoothAroundJoint(): void {
  settings.paint = true;
  void startPainting().then(() => {
    const meshes = skinnedMeshes(views[0]);
    meshes.forEach((mesh, m) => {
      const session = sessions[m];
      const j = mesh.skeleton.bones.findIndex((b) => b.name === settings.paintJoint);
      if (!session || j < 0) return;
      // The centre: the vertex where the joint's weight is largest (bind space).
      const { positions: P, joints: JS, weights: WS, influences: K } = session.mesh;
      let best = 0;
      let bestW = -1;
      for (let i = 0; i < P.length / 3; i++) {
        let w = 0;
        for (let k = K * i; k < K * i + K; k++) if (JS[k] === j) w += WS[k];
        if (w > bestW) [best, bestW] = [i, w];
      }
      const size = meshSize(mesh);
      const edit = brushDab(
        session.mesh,
        {
          mode: 'smooth',
          joint: j,
          centre: [P[3 * best], P[3 * best + 1], P[3 * best + 2]],
          radius: 3 * settings.paintRadius * size,
          strength: 1,
        },
        mesh.skeleton.bones.length,
        rings[m],
      );
      if (!edit.vertices.length) return;
      applyEdit(m, edit);
    });
  });
}

/**
 * Selects what is drawn nearest to page pixel (x, y), within 24 px: a joint (for posing; its joint
 * template slot) or the middle of a bone (the bone template slot of the joint it starts at).
 */
function pickJoint(x: number, y: number): boolean {
  let best = '';
  let bestD = 24;
  let slot: 'bone' | 'joint' = 'joint';
  views[0]?.root.traverse((o) => {
    if (!(o as THREE.Bone).isBone) return;
    const p = api.jointScreen(o.name);
    const d = p ? Math.hypot(p.x - x, p.y - y) : Infinity;
    if (d < bestD) [best, bestD, slot] = [o.name, d, 'joint'];
    for (const child of o.children) {
      const q = (child as THREE.Bone).isBone ? api.jointScreen(child.name) : undefined;
      const m = p && q ? Math.hypot((p.x + q.x) / 2 - x, (p.y + q.y) / 2 - y) : Infinity;
      if (m < bestD) [best, bestD, slot] = [o.name, m, 'bone'];
    }
  });
  if (!best) return false;
  settings.joint = best;
  settings.slot = slot;
  gui?.controllersRecursive().forEach((c) => c.updateDisplay());
  selectTemplates();
  templateControls?.open(); // show what the click selected
  return true;
}

let painting = false;
let pressed: { x: number; y: number } | undefined;
/** A cage vertex being dragged (its press point), the camera held still meanwhile. */
let dragging: { x: number; y: number } | undefined;
renderer.domElement.addEventListener('pointerdown', (e) => {
  pressed = { x: e.clientX, y: e.clientY };
  if (!settings.paint && cageVertexPixels().some((p) => Math.hypot(p.x - e.clientX, p.y - e.clientY) < 10)) {
    dragging = pressed;
    controls.enabled = false;
    return;
  }
  if (!settings.paint || !sessions.length) return;
  painting = paintAt(e.clientX, e.clientY);
  controls.enabled = !painting;
});
renderer.domElement.addEventListener('pointermove', (e) => {
  if (painting) paintAt(e.clientX, e.clientY);
});
window.addEventListener('pointerup', (e) => {
  if (dragging) {
    const from = dragging;
    dragging = pressed = undefined;
    controls.enabled = true;
    if (Math.hypot(e.clientX - from.x, e.clientY - from.y) < 2) return;
    if (settings.editDraw) drawKeyPose(from.x, from.y, e.clientX, e.clientY);
    else void dragCageVertex(from.x, from.y, e.clientX, e.clientY);
    return;
  }
  // A click (not a drag of the camera) away from painting selects a joint.
  if (!settings.paint && pressed && Math.hypot(e.clientX - pressed.x, e.clientY - pressed.y) < 4)
    pickJoint(e.clientX, e.clientY);
  pressed = undefined;
  painting = false;
  controls.enabled = true;
});
window.addEventListener('keydown', (e) => {
  if (e.key === 'Tab' && templatesView()) {
    e.preventDefault();
    cycleTemplate(e.shiftKey);
    return;
  }
  if (!(e.ctrlKey || e.metaKey) || !settings.paint) return;
  if (e.key === 'z') paintUndo(e.shiftKey);
  if (e.key === 'y') paintUndo(true);
});

/** The page's API for tests and `corskin render`. */
const api = {
  get ready() {
    return corsReady;
  },
  /** Why the last load failed (shown in the status line), or undefined. */
  error: undefined as string | undefined,
  settings,
  load: async (url: string) => {
    const r = await fetch(url);
    if (!r.ok) throw new Error(`${url}: ${r.status}`);
    await loadBytes(
      await r.arrayBuffer(),
      url === params.get('model')
        ? (params.get('name') ?? url.split('/').pop()!)
        : (url.split('/').pop() ?? 'model.glb'),
    );
  },
  exportGlb: async () => Array.from(await exportWithCenters(false)),
  exportTemplates: async (baked: boolean) => Array.from(await exportTemplates(baked, false)),
  importLibrary: (text: string, name: string) => importLibrary(text, name),
  libraryJson: () => JSON.stringify(viewLibrary()),
  saveTemplate: () => saveTemplate(),
  /** Page pixels of the template cage's vertices (templates view, overlay on). */
  cageVertices: () =>
    cageVertexPixels().map(({ mesh, rig, vertex, x, y }) => {
      const limb = rig.limbs.findIndex((l) => vertex >= l.first && vertex < l.first + l.roles.length);
      const role = rig.limbs[limb].roles[vertex - rig.limbs[limb].first];
      const joint = mesh.skeleton.bones[rig.limbs[limb].chain[role.index]].name; // the template's slot
      return { vertex, x, y, template: `${limb}/${role.kind}/${role.index}`, joint };
    }),
  /** Drags a cage vertex as the mouse does; resolves when the skin is bound again (false: refused or none there). */
  dragCageVertex: (x0: number, y0: number, x1: number, y1: number) => dragCageVertex(x0, y0, x1, y1),
  /** Draws a key pose as the mouse does with the editor's "draw" on (false: nothing there or refused). */
  drawKeyPose: (x0: number, y0: number, x1: number, y1: number) => drawKeyPose(x0, y0, x1, y1),
  /** Puts template `id` on the selected slot (as its dropdown does). */
  switchTemplate: (id: string) => switchTemplate(id),
  loadBytes: async (data: number[], name: string) => loadBytes(new Uint8Array(data).buffer, name),
  /** Pixel position (CSS px, page) of a joint in the first shown view. */
  jointScreen: (name: string) => {
    const { view: v, cell } = viewCells()[0];
    const bone = v.root.getObjectByName(threeName(name));
    if (!bone) return undefined;
    const p = bone.getWorldPosition(new THREE.Vector3()).project(camera);
    const r = renderer.domElement.getBoundingClientRect();
    return { x: r.left + cell.x + ((p.x + 1) / 2) * cell.w, y: r.top + cell.y + ((1 - p.y) / 2) * cell.h };
  },
  /** Total weight of `joint` over the first skinned mesh, and a checksum of its centers (painting state). */
  paintSummary: (joint: string) => {
    const mesh = skinnedMeshes(views[0])[0];
    const j = mesh.skeleton.bones.findIndex((b) => b.name === joint);
    const idx = mesh.geometry.getAttribute('skinIndex'),
      wgt = mesh.geometry.getAttribute('skinWeight');
    let total = 0;
    for (let i = 0; i < idx.count; i++)
      for (let k = 0; k < 4; k++) if (idx.getComponent(i, k) === j) total += wgt.getComponent(i, k);
    const corView = views.find((v) => v.method === 'cor');
    const cor = corView && skinnedMeshes(corView)[0].geometry.getAttribute('_center_of_rotation');
    let sum = 0;
    if (cor) for (let i = 0; i < cor.array.length; i++) sum += (cor.array[i] as number) * ((i % 7) + 1);
    return { total, centers: sum, edits: paintEdits };
  },
  frameJoint: () => frameJoint(),
  /** Clicks at page pixel (x, y): selects the nearest joint (as a click on the canvas does). */
  pickJoint: (x: number, y: number) => pickJoint(x, y),
  /** The selected joint and its template slot: bone and joint template ids. */
  templateSlot: () => ({
    joint: settings.joint,
    slot: settings.slot,
    bone: settings.boneTemplate,
    jointTemplate: settings.jointTemplate,
  }),
  /** A checksum of the templates view's posed cage (the overlay), for tests. */
  cageSummary: () => {
    const view = templatesView();
    const pos = view?.cage.geometry.getAttribute('position');
    let sum = 0;
    if (pos) for (let i = 0; i < pos.array.length; i++) sum += (pos.array[i] as number) * ((i % 7) + 1);
    const cages = view ? cagedMeshes(view).length : 0;
    return { visible: !!view?.cage.visible, edges: pos ? pos.count / 2 : 0, sum, cages, meshes: view ? skinnedMeshes(view).length : 0 }; // prettier-ignore
  },
  /** The character's box (when loaded) as drawn in the first shown view: its screen rectangle (CSS px, page). */
  characterScreen: () => {
    const { cell } = viewCells()[0];
    const r = renderer.domElement.getBoundingClientRect();
    const xs: number[] = [], ys: number[] = []; // prettier-ignore
    for (let k = 0; k < 8; k++) {
      const { min, max } = bounds;
      const p = new THREE.Vector3(k & 1 ? max.x : min.x, k & 2 ? max.y : min.y, k & 4 ? max.z : min.z).project(camera);
      xs.push(r.left + cell.x + ((p.x + 1) / 2) * cell.w);
      ys.push(r.top + cell.y + ((1 - p.y) / 2) * cell.h);
    }
    return { left: Math.min(...xs), right: Math.max(...xs), top: Math.min(...ys), bottom: Math.max(...ys) };
  },
  /** Screen rectangles of the views and of the control panel (CSS px), for layout checks. */
  layoutRects: () => {
    const r = renderer.domElement.getBoundingClientRect();
    return {
      layout: currentLayout(),
      views: viewCells().map(({ view, cell }) => ({
        method: view.method,
        left: r.left + cell.x,
        right: r.left + cell.x + cell.w,
        top: r.top + cell.y,
        bottom: r.top + cell.y + cell.h,
      })),
      panel: gui ? gui.domElement.getBoundingClientRect().toJSON() : undefined,
    };
  },
  status: () => status.textContent,
  statusLog: () => statusLog.slice(),
  /** Seconds each dab's CoR update took so far. */
  paintTimings: () => paintSeconds.slice(),
  /** Bind-space position of a joint (as the CoR check measures) — for tests. */
  bindJoint: (name: string) => {
    const mesh = skinnedMeshes(views[0])[0];
    const j = mesh.skeleton.bones.findIndex((b) => b.name === name);
    return j < 0 ? undefined : Array.from(bindJoints(mesh).subarray(3 * j, 3 * j + 3));
  },
  /** One brush stroke from (x0, y0) to (x1, y1), page pixels, in `steps` dabs (as the mouse would paint). */
  stroke: async (x0: number, y0: number, x1: number, y1: number, steps = 8) => {
    await startPainting();
    for (let k = 0; k <= steps; k++) paintAt(x0 + ((x1 - x0) * k) / steps, y0 + ((y1 - y0) * k) / steps);
    return paintEdits;
  },
  /** The methods the viewer offers (label → id), as its method menu lists them. */
  methods: () => Object.fromEntries(GPU_METHODS.map((m) => [m.label, m.id])),
  frameTimes: () => Object.fromEntries(views.map((v) => [v.method, median(v.times)])),
  methodOf: (method: GpuSkinningMethod) => {
    const v = views.find((x) => x.method === method);
    let found: string | undefined;
    v?.root.traverse((o) => {
      if ((o as THREE.SkinnedMesh).isSkinnedMesh && !found)
        found = (o.userData.corskin as { method?: string } | undefined)?.method ?? 'lbs';
    });
    return found;
  },
};
(window as unknown as { viewer: typeof api }).viewer = api;

requestAnimationFrame(render);
api.load(params.get('model') ?? './arm.glb').catch((e: Error) => {
  api.error = e.message;
  setStatus(`could not load: ${e.message}`);
});
