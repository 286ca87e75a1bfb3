/**
 * The viewer's skinning templates: the cage overlay, the selected joint's template slots,
 * cage-vertex drags and drawn key poses, the template library and editor, joint picking.
 *
 * @module
 */
import * as THREE from 'three';
import { mergeSkinnedMeshes } from '../src/core/mesh.js';
import type { Cage } from '../src/cage/cage.js';
import {
  meshFromGeometry,
  setSkinningTemplate,
  setSkinTemplateRig,
  templateRigOf,
  useSkinningMethod,
} from '../src/three/index.js';
import {
  moveTemplateCageVertex,
  bindOrientationMove,
  dragTemplateKeyPose,
  compatibleTemplates,
} from '../src/methods/templates/edit.js';
import { rebindTemplateRig, type TemplateRig } from '../src/methods/templates/rig.js';
import { poseTemplates } from '../src/methods/templates/pose.js';
import { TEMPLATES_METHOD_ID } from '../src/methods/templates/parameters.js';
import {
  parseTemplateLibrary,
  withTemplates,
  type BoneKeyPose,
  type TemplateDefinition,
  type TemplateLibrary,
} from '../src/methods/templates/library.js';
import {
  View,
  camera,
  isRigJoint,
  jointScreen,
  params,
  renderer,
  setStatus,
  settings,
  skinnedMeshes,
  skinningOf,
  state,
  threeName,
  viewCells,
} from './app.js';

// ——— Skinning templates: the cage overlay and the template slot of the selected joint ———

/** Per cage, its edges (vertex pairs) and their colours (joint templates red, bone templates blue, bridges grey). */
export const cageEdges = new WeakMap<Cage, { edges: Uint32Array; colors: Float32Array; posed: Float64Array }>();
export function edgesOf(rig: TemplateRig): { edges: Uint32Array; colors: Float32Array; posed: Float64Array } {
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
export function cagedMeshes(view: View): { mesh: THREE.SkinnedMesh; rig: TemplateRig }[] {
  const seen = new Set<Cage>();
  return skinnedMeshes(view).flatMap((mesh) => {
    const rig = templateRigOf(mesh);
    if (!rig?.limbs.length || seen.has(rig.cage)) return [];
    seen.add(rig.cage);
    return [{ mesh, rig }];
  });
}

/** Draws the templates view's posed cages (the same template functions its meshes render with this frame). */
export function updateCage(view: View): void {
  view.cage.visible = settings.cage && view.method === TEMPLATES_METHOD_ID;
  if (!view.cage.visible) return;
  const positions: number[] = [];
  const colors: number[] = [];
  const handles: number[] = [];
  const v = new THREE.Vector3();
  for (const { mesh, rig } of cagedMeshes(view)) {
    const e = edgesOf(rig);
    poseTemplates(rig, skinningOf(mesh), e.posed);
    for (const i of e.edges) {
      v.fromArray(e.posed, 3 * i).applyMatrix4(mesh.matrixWorld);
      positions.push(v.x, v.y, v.z);
    }
    for (let i = 0; i < e.posed.length; i += 3) {
      v.fromArray(e.posed, i).applyMatrix4(mesh.matrixWorld);
      handles.push(v.x, v.y, v.z);
    }
    colors.push(...e.colors);
  }
  view.cage.geometry.setAttribute('position', new THREE.Float32BufferAttribute(positions, 3));
  view.cage.geometry.setAttribute('color', new THREE.Float32BufferAttribute(colors, 3));
  const points = view.cage.children[0] as THREE.Points;
  points.geometry.setAttribute('position', new THREE.Float32BufferAttribute(handles, 3));
}

/** Page pixel of each posed cage vertex of the templates view's meshes (as the overlay draws them). */
export function cageVertexPixels(): {
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
export function cageDrag(x0: number, y0: number, x1: number, y1: number) {
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
export async function dragCageVertex(x0: number, y0: number, x1: number, y1: number): Promise<boolean> {
  const drag = cageDrag(x0, y0, x1, y1);
  if (!drag) return false;
  const { mesh, rig, vertex, posedDelta } = drag;
  const delta = bindOrientationMove(rig, skinningOf(mesh), vertex, posedDelta.toArray());
  moveTemplateCageVertex(rig, vertex, delta);
  setStatus(`${state.fileName}: cage vertex ${vertex} moved; binding the skin again…`);
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
    setStatus(`${state.fileName}: move refused: ${(e as Error).message}`);
    return false;
  }
  const view = templatesView()!;
  await useSkinningMethod(view.root, TEMPLATES_METHOD_ID);
  view.cpu.clear();
  setStatus(
    `${state.fileName}: cage vertex ${vertex} moved; skin bound again in ${((performance.now() - t0) / 1000).toFixed(2)} s`,
  );
  return true;
}

/**
 * The template editor's drawing — an artist poses the relevant bones and moves template vertices
 * into a key pose (Ju et al. 2008): the drag ({@link cageDrag}) at the current pose becomes a key
 * pose of the vertex's template, renamed to the editor's id (`dragTemplateKeyPose`), which goes
 * into the library and onto the vertex's slot (selected); further drags refine it.
 */
export function drawKeyPose(x0: number, y0: number, x1: number, y1: number): boolean {
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
    setStatus(`${state.fileName}: "${t.id}" drawn: vertex ${vertex} moved in its key pose at ${bend.toFixed(1)}°`);
    return true;
  } catch (e) {
    setStatus(`template editor: ${(e as Error).message}`);
    return false;
  }
}

/** The templates view, if the viewer has one. */
export const templatesView = () => state.views.find((v) => v.method === TEMPLATES_METHOD_ID);

/** The choices at the selected joint and the templates each of its slots takes (of the first mesh whose limbs hold it). */
export function templateSlot():
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

/** Rebuilds the template dropdowns for the selected joint (the library's templates of each kind its slot takes). */
export function fillTemplateControls(): void {
  if (!state.templateControls) return;
  for (const c of [...state.templateControls.controllers]) c.destroy();
  const slot = templateSlot();
  if (!slot) {
    state.templateControls.title('skinning templates: select a joint in a limb');
    return;
  }
  state.templateControls.title(
    settings.slot === 'bone'
      ? `skinning templates of the bone from ${settings.joint} (Tab cycles; the pose bends its child joint)`
      : `skinning templates at ${settings.joint} (Tab cycles the joint template)`,
  );
  const { ids } = slot;
  state.templateControls
    .add(settings, 'boneTemplate', ids('bone'))
    .name('bone template')
    .onChange((id: string) => switchTemplate(id));
  if (slot.joint !== undefined)
    state.templateControls
      .add(settings, 'jointTemplate', ids('joint'))
      .name('joint template')
      .onChange((id: string) => switchTemplate(id));
}

/** Reads the selected joint's templates into the settings (and the dropdowns). */
export function selectTemplates(): void {
  const slot = templateSlot();
  settings.boneTemplate = slot?.bone ?? '';
  settings.jointTemplate = slot?.joint ?? '';
  fillTemplateControls();
}

/** Switches the selected joint's template in the templates view (visible on the next frame). */
export function switchTemplate(id: string): void {
  const view = templatesView();
  if (!view || !settings.joint) return;
  try {
    setSkinningTemplate(view.root, settings.joint, id);
    view.cpu.clear();
    setStatus(`${state.fileName}: ${settings.joint} now uses the "${id}" template`);
  } catch (e) {
    setStatus(`${state.fileName}: ${(e as Error).message}`);
  }
  selectTemplates();
}

/** Cycles the selected slot's template through the library's templates of its kind (backwards with `back`). */
export function cycleTemplate(back: boolean): void {
  const slot = templateSlot();
  const kind = settings.slot === 'joint' && slot?.joint !== undefined ? 'joint' : 'bone';
  const current = kind === 'joint' ? slot?.joint : slot?.bone;
  if (!slot || current === undefined) return;
  const ids = slot.ids(kind);
  switchTemplate(ids[(ids.indexOf(current) + (back ? ids.length - 1 : 1)) % ids.length]);
}

/** `?template=JOINT=ID,…`: template choices given in the URL (`corskin render --template`). */
export function applyTemplateParam(): void {
  const view = templatesView();
  for (const pair of (params.get('template') ?? '').split(',').filter(Boolean)) {
    const [joint, id] = pair.split('=');
    if (view && !setSkinningTemplate(view.root, threeName(joint), id)) setStatus(`no template slot at ${joint}`);
  }
}

// ——— Template libraries: import, export, and the template editor ———

/** The library of the templates view's rigs (they share one: edits go to all). */
export function viewLibrary(): TemplateLibrary | undefined {
  const view = templatesView();
  return (
    view &&
    skinnedMeshes(view)
      .map(templateRigOf)
      .find((r) => r)?.library
  );
}

/** Gives every rig of the templates view `templates` (added, or replacing those of the same id). */
export function addTemplates(templates: TemplateDefinition[]): void {
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

export const libraryPicker = Object.assign(document.createElement('input'), {
  type: 'file',
  accept: '.json',
  id: 'library',
});
libraryPicker.style.display = 'none';
document.body.appendChild(libraryPicker);
libraryPicker.onchange = async () => {
  const f = libraryPicker.files?.[0];
  if (f) importLibrary(await f.text(), f.name);
};

/** Adds a template library (corskin-templates JSON) to the templates view's rigs. */
export function importLibrary(text: string, name: string): void {
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
export function editedTemplate(): TemplateDefinition {
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
export function saveTemplate(): void {
  try {
    const t = parseTemplateLibrary({ format: 'corskin-templates', version: 1, templates: [editedTemplate()] })
      .templates[0];
    addTemplates([t]);
    switchTemplate(t.id);
  } catch (e) {
    setStatus(`template editor: ${(e as Error).message}`);
  }
}

/**
 * Selects what is drawn nearest to page pixel (x, y), within 24 px: a joint (for posing; its joint
 * template slot) or the middle of a bone (the bone template slot of the joint it starts at).
 */
export function pickJoint(x: number, y: number): boolean {
  let best = '';
  let bestD = 24;
  let slot: 'bone' | 'joint' = 'joint';
  state.views[0]?.root.traverse((o) => {
    if (!isRigJoint(o)) return;
    const p = jointScreen(o.name);
    const d = p ? Math.hypot(p.x - x, p.y - y) : Infinity;
    if (d < bestD) [best, bestD, slot] = [o.name, d, 'joint'];
    for (const child of o.children) {
      const q = isRigJoint(child) ? jointScreen(child.name) : undefined;
      const m = p && q ? Math.hypot((p.x + q.x) / 2 - x, (p.y + q.y) / 2 - y) : Infinity;
      if (m < bestD) [best, bestD, slot] = [o.name, m, 'bone'];
    }
  });
  if (!best) return false;
  settings.joint = best;
  settings.slot = slot;
  state.gui?.controllersRecursive().forEach((c) => c.updateDisplay());
  selectTemplates();
  state.templateControls?.open(); // show what the click selected
  return true;
}
