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
import { COR_ATTRIBUTE_THREE } from '../src/io/schema.js';
import { fitDistance, fitPoints, THREE_QUARTER } from './layout.js';
import GUI from 'lil-gui';
import * as THREE from 'three';
import { type GLTF } from 'three/addons/loaders/GLTFLoader.js';
import * as SkeletonUtils from 'three/addons/utils/SkeletonUtils.js';
import { computeDirectDeltaMushOnWorker } from '../src/ddm/web-worker.js';
import { deformLbs } from '../src/deformers/lbs.js';
import { rigidityDistortion } from '../src/metrics/distortion.js';
import {
  isCageObject,
  meshFromGeometry,
  skeletonFromThree,
  cpuStandIn,
  skinningMethodOf,
  useSkinningMethod,
  type ThreeSkinningMethod,
} from '../src/three/index.js';
import { stressPose } from '../src/evaluation/stress-pose.js';
import {
  VIEW_METHODS,
  METHODS,
  View,
  app,
  camera,
  centersWithProgress,
  characterBox,
  controls,
  cpuOf,
  currentLayout,
  jointScreen,
  loader,
  params,
  renderer,
  setStatus,
  settings,
  showProgress,
  skinnedMeshes,
  skinningOf,
  state,
  status,
  statusLog,
  viewCells,
} from './app.js';
import {
  applyTemplateParam,
  cageVertexPixels,
  cagedMeshes,
  cycleTemplate,
  dragCageVertex,
  drawKeyPose,
  fillTemplateControls,
  importLibrary,
  libraryPicker,
  pickJoint,
  saveTemplate,
  selectTemplates,
  switchTemplate,
  templatesView,
  updateCage,
  viewLibrary,
} from './templates-ui.js';
import {
  bindJoints,
  corCheckColors,
  paintAt,
  paintEdits,
  paintSeconds,
  paintUndo,
  paintWeightColors,
  resetPainting,
  sessions,
  smoothAroundJoint,
  startPainting,
} from './paint.js';
import { exportTemplates, exportWithCenters, save } from './export.js';

// The panel's buttons.
Object.assign(settings, {
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
  editSave: () => saveTemplate(),
});

const picker = Object.assign(document.createElement('input'), { type: 'file', accept: '.glb,.gltf', id: 'file' });
picker.style.display = 'none';
document.body.appendChild(picker);
/** Opens a file the user picked or dropped; one that does not parse leaves the loaded one as it was. */
async function openFile(f: File | undefined): Promise<void> {
  if (f)
    await loadBytes(await f.arrayBuffer(), f.name).catch((e: Error) =>
      setStatus(`could not load ${f.name}: ${e.message}`),
    );
}
picker.onchange = () => void openFile(picker.files?.[0]);
window.addEventListener('dragover', (e) => {
  e.preventDefault();
  document.getElementById('drop')!.style.display = 'flex';
});
window.addEventListener('dragleave', () => (document.getElementById('drop')!.style.display = 'none'));
window.addEventListener('drop', async (e) => {
  e.preventDefault();
  document.getElementById('drop')!.style.display = 'none';
  await openFile(e.dataTransfer?.files[0]);
});

async function loadBytes(data: ArrayBuffer, name: string): Promise<void> {
  setStatus(`loading ${name}…`);
  const parsed = await loader.parseAsync(data, ''); // a file that does not parse changes nothing
  state.corsReady = false;
  state.bytes = data;
  state.fileName = name;
  state.gltf = parsed;
  resetPainting();
  for (const v of state.views) {
    v.label.remove();
    v.scene.clear();
  }
  state.views = METHODS.map((method) => makeView(method, state.gltf!));
  state.restQuaternions = new Map();
  state.views[0].root.traverse((o) => state.restQuaternions.set(o, o.quaternion.clone()));
  state.duration = Math.max(0, ...state.gltf.animations.map((a) => a.duration));
  // An index names a clip (`--animation 0`); an empty name is no clip, not clip 0.
  const byIndex = settings.animation.trim() === '' ? undefined : state.gltf.animations[Number(settings.animation)];
  if (byIndex && !state.gltf.animations.some((a) => a.name === settings.animation)) settings.animation = byIndex.name;
  // The first clip plays unless a pose was asked for without a clip (the stress pose lies under
  // the clip: with one playing, it would not show).
  const clipAsked = params.has('animation') || params.has('time');
  if (!state.gltf.animations.some((a) => a.name === settings.animation))
    settings.animation = settings.pose === 'rest' || clipAsked ? (state.gltf.animations[0]?.name ?? '') : '';
  const bones: string[] = [];
  state.views[0].root.traverse((o) => (o as THREE.Bone).isBone && bones.push(o.name));
  if (!bones.includes(settings.joint)) settings.joint = bones[Math.min(2, bones.length - 1)] ?? '';
  rebuildGui(bones);
  frame(state.views[0]);
  setStatus(`${name}: switching to DQS, CoR, DDM and templates…`);
  const warnings: string[] = [];
  await Promise.all(
    state.views.map((v) =>
      useSkinningMethod(v.root, v.method, {
        computeCenters: (m) => centersWithProgress(meshFromGeometry(m), name),
        // Direct Delta Mush the file lacks: computed on corskin's Web Worker, with progress.
        computeDeltaMush: (m) => {
          const what = `${name}: no Direct Delta Mush data in the file (corskin precompute --method ddm stores it): computing it`;
          setStatus(`${what}…`);
          return computeDirectDeltaMushOnWorker(meshFromGeometry(m), {
            onProgress: (done, total) => showProgress(what, done, total),
          });
        },
        onProgress: (_, done, total) =>
          v.method === 'templates' && showProgress(`${name}: fitting and binding template cages`, done, total),
        onWarning: (_, message) => warnings.push(message),
      }),
    ),
  );
  applyTemplateParam();
  selectTemplates();
  if (params.get('frame') === 'joint') {
    state.views.forEach(updatePose);
    frameJoint();
  }
  state.corsReady = true;
  setStatus(
    warnings.length
      ? `${name}: ready — ⚠ ${warnings.join('; ')}: drag cage vertices out around them`
      : `${name}: ready — drop another .glb to compare on it`,
  );
}

function makeView(method: ThreeSkinningMethod, g: GLTF): View {
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

/** Points the camera at the character from a three-quarter view, its posed vertices (as shown) filling one view with a margin. */
function frame(view: View): void {
  updatePose(view); // fit what is shown: the pose, the clip's frame
  view.root.updateMatrixWorld(true);
  state.bounds = characterBox(view.root);
  const size = state.bounds.getSize(new THREE.Vector3()).length() || 1;
  const { w, h } = viewCells()[0]?.cell ?? { w: 1, h: 1 };
  const { target, distance } = fitPoints(posedPoints(view), THREE_QUARTER, camera.fov, w / Math.max(1, h));
  camera.near = size / 200;
  camera.far = size * 20 + distance;
  camera.position.copy(target).addScaledVector(THREE_QUARTER, distance);
  controls.target.copy(target);
  camera.updateProjectionMatrix();
  controls.update();
  state.autoFramed = true;
}

/** World positions of the view's drawn vertices as posed now (at most about 20,000 of them). */
function posedPoints(view: View): Float32Array {
  const meshes: THREE.Mesh[] = [];
  view.root.traverse((o) => (o as THREE.Mesh).isMesh && !isCageObject(o) && meshes.push(o as THREE.Mesh));
  const total = meshes.reduce((t, m) => t + (m.geometry.getAttribute('position')?.count ?? 0), 0);
  const step = Math.max(1, Math.ceil(total / 20000));
  const out: number[] = [];
  const v = new THREE.Vector3();
  for (const mesh of meshes) {
    const count = mesh.geometry.getAttribute('position')?.count ?? 0;
    for (let i = 0; i < count; i += step) {
      mesh.getVertexPosition(i, v); // skinned (LBS) and morphed, in the mesh's space
      v.applyMatrix4(mesh.matrixWorld);
      if (Number.isFinite(v.x + v.y + v.z)) out.push(v.x, v.y, v.z);
    }
  }
  return Float32Array.from(out);
}

function rebuildGui(bones: string[]): void {
  state.gui?.destroy();
  if (params.get('ui') === '0') return;
  state.gui = new GUI({ title: 'corskin' });
  // The common actions on top, every group but the animation collapsed: the panel fits 1280×800.
  state.gui.add(settings, 'load').name('open .glb…');
  state.gui
    .add(settings, 'layout', {
      'auto (largest)': 'auto',
      'side by side': 'side',
      '2 × 2': 'grid',
      'one view': 'single',
    })
    .onChange(() => state.autoFramed && state.views[0] && frame(state.views[0]));
  state.gui
    .add(settings, 'method', Object.fromEntries(VIEW_METHODS.map((m) => [m.label, m.id])))
    .name('method (one view)');
  state.gui
    .add(settings, 'pose', { rest: 'rest', 'stress pose': 'stress', 'stress, half': 'stress-half' })
    .onChange((pose: string) => {
      // The stress pose lies under the clip: stop the clip so it shows.
      if (pose !== 'rest') settings.animation = '';
      state.gui?.controllersRecursive().forEach((c) => c.updateDisplay());
    });
  state.gui.add(settings, 'exportGlb').name('precompute CoRs & export .glb');
  if (state.gltf?.animations.length) {
    const anim = state.gui.addFolder('animation');
    anim.add(settings, 'animation', ['', ...state.gltf.animations.map((a) => a.name)]);
    anim.add(settings, 'playing').name('play').listen();
    anim.add(settings, 'time', 0, Math.max(state.duration, 0.001), 0.001).listen();
  } else {
    const none = state.gui.addFolder('animation: none in this file');
    none.close();
  }
  const pose = state.gui.addFolder('pose a joint');
  pose.add(settings, 'joint', bones).onChange(() => {
    settings.slot = 'joint';
    selectTemplates();
  });
  pose.add(settings, 'twist', -180, 180, 1).name('twist (°)');
  pose.add(settings, 'bend', -180, 180, 1).name('bend (°)');
  pose.add(settings, 'frameJoint').name('frame the joint');
  pose.add(settings, 'preview').name('bend back and forth');
  pose.close();
  const templates = state.gui.addFolder('skinning templates (the joint above; Tab cycles)');
  state.templateControls = templates;
  fillTemplateControls();
  templates.close();
  const library = state.gui.addFolder('template library and editor');
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
  const show = state.gui.addFolder('overlays');
  show.add(settings, 'skeleton').onChange((v: boolean) => state.views.forEach((x) => (x.skeleton.visible = v)));
  show.add(settings, 'centers').name('centers of rotation (CoR view)');
  show.add(settings, 'cage').name('template cages (templates view)');
  show.add(settings, 'heatmap').name('distortion heat map');
  show.close();
  const paint = state.gui.addFolder('paint weights (CoRs follow)');
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
  app.style.right = state.gui
    ? `${Math.max(0, window.innerWidth - state.gui.domElement.getBoundingClientRect().left)}px`
    : '0';
}
window.addEventListener('resize', () => {
  fitToPanel();
  if (state.autoFramed && state.views[0]) frame(state.views[0]);
});
controls.addEventListener('start', () => (state.autoFramed = false));

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
  box.expandByScalar(0.06 * (state.bounds.getSize(new THREE.Vector3()).length() || 1));
  const direction = camera.position.clone().sub(controls.target).normalize();
  const { w, h } = viewCells()[0].cell;
  const center = box.getCenter(new THREE.Vector3());
  controls.target.copy(center);
  camera.position.copy(center).addScaledVector(direction, fitDistance(box, direction, camera.fov, w / Math.max(1, h)));
  controls.update();
  state.autoFramed = false;
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
  const clip = state.gltf?.animations.find((a) => a.name === settings.animation);
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
  if (view === state.views[0]) return state.restQuaternions.get(o);
  const twin = state.views[0].root.getObjectByName(o.name);
  return twin ? state.restQuaternions.get(twin) : undefined;
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
    if (view.method === 'ddm' && !c.data.deltaMush) return; // still being read or computed
    c.deform(c.data, skinningOf(mesh), { positions: c.posed });
    const d = rigidityDistortion(c.data.positions, c.posed, c.data.triangles, c.rings);
    const color = new THREE.Color();
    for (let i = 0; i < d.length; i++) {
      color.setHSL(0.66 * (1 - Math.min(1, d[i] / 0.5)), 0.9, 0.5);
      c.colors.setXYZ(i, color.r, color.g, color.b);
    }
    c.colors.needsUpdate = true;
    const drawn = cpuStandIn(mesh)?.geometry ?? mesh.geometry; // a method on the CPU draws a stand-in
    if (drawn.getAttribute('color') !== c.colors) drawn.setAttribute('color', c.colors);
    mesh.userData.corskinColours = undefined; // the paint colours must be redrawn
  });
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
  if (settings.playing && state.duration > 0) settings.time = (settings.time + (now - last) / 1000) % state.duration;
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
  for (const v of state.views) v.label.style.display = cells.some((c) => c.view === v) ? 'block' : 'none';
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
    v.label.textContent = `${VIEW_METHODS.find((m) => m.id === v.method)!.label} — ${median(v.times).toFixed(2)} ms`;
  });
  requestAnimationFrame(render);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : 0;
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

/** Base64 of `bytes`. */
function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** The bytes of a base64 string. */
function fromBase64(base64: string): ArrayBuffer {
  const s = atob(base64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out.buffer;
}

/** The page's API for tests and `corskin render`. */
const api = {
  get ready() {
    return state.corsReady;
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
  /** The export with centers of rotation, base64 (files cross page.evaluate as strings: far faster than number arrays). */
  exportGlb: async () => toBase64(await exportWithCenters(false)),
  /** The export with template cages and choices (or baked), base64. */
  exportTemplates: async (baked: boolean) => toBase64(await exportTemplates(baked, false)),
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
  /** Opens a file given as base64. */
  loadBytes: async (base64: string, name: string) => loadBytes(fromBase64(base64), name),
  /** Pixel position (CSS px, page) of a joint in the first shown view. */
  jointScreen: (name: string) => jointScreen(name),
  /** Total weight of `joint` over the first skinned mesh, and a checksum of its centers (painting state). */
  paintSummary: (joint: string) => {
    const mesh = skinnedMeshes(state.views[0])[0];
    const j = mesh.skeleton.bones.findIndex((b) => b.name === joint);
    const idx = mesh.geometry.getAttribute('skinIndex'),
      wgt = mesh.geometry.getAttribute('skinWeight');
    let total = 0;
    for (let i = 0; i < idx.count; i++)
      for (let k = 0; k < 4; k++) if (idx.getComponent(i, k) === j) total += wgt.getComponent(i, k);
    const corView = state.views.find((v) => v.method === 'cor');
    const cor = corView && skinnedMeshes(corView)[0].geometry.getAttribute(COR_ATTRIBUTE_THREE);
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
    // The posed vertices as drawn (what the framing fits), not their box.
    const { cell, view } = viewCells()[0];
    const r = renderer.domElement.getBoundingClientRect();
    const xs: number[] = [], ys: number[] = []; // prettier-ignore
    const points = posedPoints(view);
    for (let k = 0; k < points.length; k += 3) {
      const p = new THREE.Vector3(points[k], points[k + 1], points[k + 2]).project(camera);
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
      panel: state.gui ? state.gui.domElement.getBoundingClientRect().toJSON() : undefined,
    };
  },
  status: () => status.textContent,
  statusLog: () => statusLog.slice(),
  /** Seconds each dab's CoR update took so far. */
  paintTimings: () => paintSeconds.slice(),
  /** Bind-space position of a joint (as the CoR check measures) — for tests. */
  bindJoint: (name: string) => {
    const mesh = skinnedMeshes(state.views[0])[0];
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
  methods: () => Object.fromEntries(VIEW_METHODS.map((m) => [m.label, m.id])),
  frameTimes: () => Object.fromEntries(state.views.map((v) => [v.method, median(v.times)])),
  methodOf: (method: ThreeSkinningMethod) => {
    const v = state.views.find((x) => x.method === method);
    const mesh = v && skinnedMeshes(v)[0];
    return mesh && skinningMethodOf(mesh);
  },
};
(window as unknown as { viewer: typeof api }).viewer = api;

requestAnimationFrame(render);
api.load(params.get('model') ?? './arm.glb').catch((e: Error) => {
  api.error = e.message;
  setStatus(`could not load: ${e.message}`);
});
