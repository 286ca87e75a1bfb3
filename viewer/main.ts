/**
 * corskin's viewer: LBS | DQS | CoR | Direct Delta Mush | skinning templates in a row, a grid or one view with a
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
import * as THREE from 'three';
import { attributeValues, skinningMethodOf, type ThreeSkinningMethod } from '../src/three/index.js';
import {
  VIEW_METHODS,
  app,
  camera,
  controls,
  currentLayout,
  jointScreen,
  params,
  renderer,
  setStatus,
  settings,
  skinnedMeshes,
  state,
  status,
  statusLog,
  viewCells,
  type View,
} from './app.js';
import {
  cageVertexPixels,
  cagedMeshes,
  cycleTemplate,
  dragCageVertex,
  drawKeyPose,
  importLibrary,
  libraryPicker,
  pickJoint,
  saveTemplate,
  switchTemplate,
  templatesView,
  updateCage,
  viewLibrary,
} from './templates-ui.js';
import {
  bindJoints,
  paintAt,
  paintEdits,
  paintSeconds,
  paintUndo,
  beginStroke,
  endStroke,
  sessions,
  smoothAroundJoint,
  startPainting,
} from './paint.js';
import { exportTemplates, exportWithCenters, save } from './export.js';
import { frameJoint, updateCenters, updateHeatmap, updatePose } from './posing.js';
import { frame, posedPoints } from './views.js';
import { loadBytes } from './loading.js';
import { matchUris, pickModel, walkEntries, type EntryLike, type GivenFile } from './files.js';
import { fitToPanel } from './gui.js';

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

// Several files at once: a .gltf with the .bin and textures its URIs name.
const picker = Object.assign(document.createElement('input'), { type: 'file', multiple: true, id: 'file' });
picker.style.display = 'none';
document.body.appendChild(picker);
/** The files picked or dropped so far: the last one chosen wins, even if an earlier one is still being read. */
let chosen = 0;
/**
 * Opens the model among the files the user picked or dropped (a .glb, or a .gltf with the files
 * its URIs name; of several models the first, saying so); one that does not load leaves the
 * loaded one as it was. `turn`: the choice's place (a drop takes it before its folder is walked).
 */
async function openFiles(files: GivenFile[], turn = ++chosen): Promise<void> {
  const picked = pickModel(files);
  if (!picked) {
    if (files.length) setStatus(`could not load ${files.map((f) => f.path).join(', ')}: no .glb or .gltf among them`);
    return;
  }
  const { model, note } = picked;
  const name = model.path.slice(model.path.lastIndexOf('/') + 1);
  setStatus(`reading ${name}${note ? ` (${note})` : ''}…`);
  // A choice made meanwhile wins: this one stops (its status line is not written).
  const check = () => {
    if (turn !== chosen) throw new Error('a newer choice');
  };
  try {
    const data = await model.file.arrayBuffer();
    check();
    await loadBytes(data, name, async (uris) => {
      const resources: Record<string, Uint8Array<ArrayBuffer>> = Object.create(null); // any URI a key
      for (const [uri, f] of matchUris(uris, model.path, files).found)
        resources[uri] = new Uint8Array(await f.file.arrayBuffer());
      check();
      return resources;
    });
  } catch (e) {
    if (turn === chosen) setStatus(`could not load ${name}: ${(e as Error).message}`);
  }
}
picker.onchange = () => void openFiles(Array.from(picker.files ?? [], (file) => ({ path: file.name, file })));
window.addEventListener('dragover', (e) => {
  e.preventDefault();
  document.getElementById('drop')!.style.display = 'flex';
});
window.addEventListener('dragleave', () => (document.getElementById('drop')!.style.display = 'none'));
window.addEventListener('drop', async (e) => {
  e.preventDefault();
  document.getElementById('drop')!.style.display = 'none';
  // Folders walked (a dropped download's folder); the items are read before the first await,
  // while the drop's data is still there.
  const turn = ++chosen; // a choice made while a large folder is walked wins over it
  const items = Array.from(e.dataTransfer?.items ?? []).filter((i) => i.kind === 'file');
  const entries = items.map((i) => i.webkitGetAsEntry?.() as EntryLike | null);
  const files = entries.every((x) => x)
    ? walkEntries(entries as EntryLike[])
    : Promise.resolve(Array.from(e.dataTransfer?.files ?? [], (file) => ({ path: file.name, file })));
  try {
    await openFiles(await files, turn);
  } catch (err) {
    if (turn === chosen) setStatus(`could not read the dropped files: ${(err as Error).message}`);
  }
});

window.addEventListener('resize', () => {
  fitToPanel();
  if (state.autoFramed && state.views[0]) frame(state.views[0]);
});
controls.addEventListener('start', () => (state.autoFramed = false));

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
    try {
      updateCenters(v);
      updateCage(v);
      updateHeatmap(v);
    } catch (e) {
      overlayFailed(v, e as Error); // the view is still drawn, and the next frame comes
    }
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

/** An overlay that threw: said in the status line, and the overlays computed on the CPU turned off. */
function overlayFailed(view: View, e: Error): void {
  const label = VIEW_METHODS.find((m) => m.id === view.method)!.label;
  setStatus(`${label} view: an overlay failed (${e.message}); the heat map and the centers of rotation are off`);
  console.error(e);
  settings.heatmap = false;
  settings.centers = false;
  settings.corCheck = false;
  state.gui?.controllersRecursive().forEach((c) => c.updateDisplay());
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
  beginStroke();
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
  endStroke();
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
  /** The camera's position (world space), as the viewer framed it or the user moved it. */
  cameraPosition: () => camera.position.toArray(),
  /** Why the last load failed (shown in the status line), or undefined. */
  error: undefined as string | undefined,
  settings,
  load: async (url: string) => {
    const get = async (u: string) => {
      const r = await fetch(u);
      if (!r.ok) throw new Error(`${u}: ${r.status}`);
      return r.arrayBuffer();
    };
    await loadBytes(
      await get(url),
      url === params.get('model')
        ? (params.get('name') ?? url.split('/').pop()!)
        : (url.split('/').pop() ?? 'model.glb'),
      // A .gltf's buffers and images, fetched from beside it.
      async (uris) => {
        const resources: Record<string, Uint8Array<ArrayBuffer>> = Object.create(null); // any URI a key
        for (const uri of uris)
          resources[uri] = new Uint8Array(await get(new URL(uri, new URL(url, location.href)).href));
        return resources;
      },
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
    if (cor) attributeValues(cor, Float64Array).forEach((x, i) => (sum += x * ((i % 7) + 1)));
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
    beginStroke();
    for (let k = 0; k <= steps; k++) paintAt(x0 + ((x1 - x0) * k) / steps, y0 + ((y1 - y0) * k) / steps);
    endStroke();
    return paintEdits;
  },
  /** The methods the viewer offers (label → id), as its method menu lists them. */
  methods: () => Object.fromEntries(VIEW_METHODS.map((m) => [m.label, m.id])),
  /** The median over the vertices of the heat map's distortion in `method`'s view (its first skinned mesh), once drawn. */
  medianDistortion: (method: ThreeSkinningMethod) => {
    const v = state.views.find((x) => x.method === method);
    const d = v && v.cpu.get(skinnedMeshes(v)[0])?.distortion;
    return d && d.slice().sort()[d.length >> 1];
  },
  /** Median frame time (ms) of each view drawn so far (a view the layout hides has none). */
  frameTimes: () =>
    Object.fromEntries(state.views.filter((v) => v.times.length).map((v) => [v.method, median(v.times)])),
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
