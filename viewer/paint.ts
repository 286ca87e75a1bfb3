/**
 * The viewer's weight painting: a CoR session per skinned mesh (the centers follow every dab),
 * undo and redo, the CoR check colours.
 *
 * @module
 */
import { COR_ATTRIBUTE_THREE } from '../src/io/schema.js';
import * as THREE from 'three';
import { meshFromGeometry, skeletonFromThree } from '../src/three/index.js';
import { bindJointPositions } from '../src/core/skeleton.js';
import { createCorSession, type CorSession } from '../src/cor/session.js';
import { brushDab, mirrorJoints } from '../src/weights/brush.js';
import { camera, isRigJoint, renderer, setStatus, settings, skinnedMeshes, state, viewCells } from './app.js';

export let sessions: (CorSession | undefined)[] = [];
export let rings: number[][][] = [];
export let paintEdits = 0;
/** Seconds each dab's CoR update took (the session's own timing), for the bench. */
export const paintSeconds: number[] = [];
/** Undo steps: each a stroke (a drag, or one click's edit), the meshes of its dabs in order. */
export const undoStack: number[][] = [];
export const redoStack: number[][] = [];
/** The stroke being painted (dabs join it until {@link endStroke}); undefined between strokes. */
let stroke: number[] | undefined;
let strokeOpen = false;

/** Starts a stroke: the dabs until {@link endStroke} are one undo step. */
export function beginStroke(): void {
  strokeOpen = true;
  stroke = undefined;
}

/** Ends the stroke {@link beginStroke} started. */
export function endStroke(): void {
  strokeOpen = false;
  stroke = undefined;
}

let starting: Promise<void> | undefined;
/** Starts the CoR sessions (once per loaded file) when paint mode is on; a second call waits for the first. */
export function startPainting(): Promise<void> {
  starting ??= startSessions().finally(() => (starting = undefined));
  return starting;
}

async function startSessions(): Promise<void> {
  if (!settings.paint || !state.views.length || sessions.length) return;
  setStatus(`${state.fileName}: preparing the CoR painting session…`);
  await new Promise((r) => setTimeout(r, 0));
  sessions = skinnedMeshes(state.views[0]).map((mesh, m) => {
    if (mesh.geometry.getAttribute('joints_1')) return undefined; // 4 influences only
    const data = meshFromGeometry(mesh);
    const n = data.positions.length / 3;
    const ring: number[][] = Array.from({ length: n }, () => []);
    for (let t = 0; t < data.triangles.length; t += 3)
      for (let c = 0; c < 3; c++)
        ring[data.triangles[t + c]].push(data.triangles[t + ((c + 1) % 3)], data.triangles[t + ((c + 2) % 3)]);
    rings[m] = ring; // by mesh, as sessions (a mesh with 8 influences has neither)
    return createCorSession(data, { jointCount: mesh.skeleton.bones.length });
  });
  // The joint painted: the one asked, else the posed one, else the one with the most weight.
  const first = skinnedMeshes(state.views[0])[0];
  const named = (name: string) => first?.skeleton.bones.some((b) => b.name === name && isRigJoint(b));
  if (!named(settings.paintJoint)) settings.paintJoint = named(settings.joint) ? settings.joint : heaviestJoint(first);
  state.gui?.controllersRecursive().forEach((c) => c.updateDisplay());
  // Painting edits 4 influences per vertex (JOINTS_0/WEIGHTS_0); a mesh with more is left as it is.
  const skipped = sessions.filter((x) => !x).length;
  const meshes = sessions.length;
  if (skipped === meshes)
    setStatus(
      `${state.fileName}: paint mode: ${meshes > 1 ? 'every mesh has' : 'the mesh has'} more than 4 influences per vertex (JOINTS_1), which painting does not edit: nothing here can be painted`,
    );
  else
    setStatus(
      `${state.fileName}: paint mode — drag on the character (CoRs update as you paint)${skipped ? `; ${skipped} of ${meshes} meshes have more than 4 influences per vertex and are not painted` : ''}`,
    );
}

/** The name of the rig's joint (no helper a bake added) that carries the most skin weight of `mesh` ('' without one). */
function heaviestJoint(mesh: THREE.SkinnedMesh | undefined): string {
  if (!mesh) return '';
  const { joints, weights } = meshFromGeometry(mesh);
  const { bones } = mesh.skeleton;
  const total = new Float64Array(bones.length);
  for (let k = 0; k < joints.length; k++) total[joints[k]] += weights[k];
  bones.forEach((b, j) => isRigJoint(b) || (total[j] = -1));
  return bones[total.indexOf(Math.max(...total))]?.name ?? '';
}

/** Writes a session's current weights and centers into every view's copy of mesh `m`. */
export function pushToViews(m: number, vertices: ArrayLike<number>, recomputed: ArrayLike<number>): void {
  const s = sessions[m]!;
  const K = s.mesh.influences;
  for (const view of state.views) {
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
    const cor = g.getAttribute(COR_ATTRIBUTE_THREE) as THREE.BufferAttribute | undefined;
    if (cor) {
      for (const i of Array.from(recomputed))
        cor.setXYZ(i, s.centers[3 * i], s.centers[3 * i + 1], s.centers[3 * i + 2]);
      cor.needsUpdate = true;
    }
    view.cpu.clear();
  }
}

export const raycaster = new THREE.Raycaster();
/** One dab where the page pixel (x, y) hits the character (in whichever view it falls). */
export function paintAt(x: number, y: number): boolean {
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

/** Undoes (or redoes) the last stroke: each of its dabs, in reverse order (or in order). */
export function paintUndo(redo: boolean): void {
  const step = (redo ? redoStack : undoStack).pop();
  if (!step) {
    setStatus(`${state.fileName}: nothing to ${redo ? 'redo' : 'undo'}`);
    return;
  }
  let vertices = 0;
  for (const m of redo ? step : step.slice().reverse()) {
    const s = sessions[m]!;
    const { influences: K } = s.mesh;
    const [before, beforeJ] = [s.mesh.weights.slice(), s.mesh.joints.slice()];
    const u = redo ? s.redo() : s.undo();
    if (!u) continue;
    const changed: number[] = [];
    for (let i = 0; i < before.length / K; i++)
      for (let k = K * i; k < K * i + K; k++)
        if (before[k] !== s.mesh.weights[k] || beforeJ[k] !== s.mesh.joints[k]) {
          changed.push(i);
          break;
        }
    vertices += changed.length;
    pushToViews(m, changed, u.recomputed);
  }
  (redo ? undoStack : redoStack).push(step);
  paintEdits++;
  const dabs = step.length === 1 ? 'one dab' : `a stroke of ${step.length} dabs`;
  setStatus(`${state.fileName}: ${redo ? 'redid' : 'undid'} ${dabs} (${vertices} vertex weights changed)`);
}

/**
 * Whether `mesh`'s vertex colours already show `what` for the current weights (the colours are
 * recomputed only after a paint edit or a change of what they show, not every frame).
 */
export function coloursUpToDate(mesh: THREE.SkinnedMesh, what: string): boolean {
  const key = `${what}|${paintEdits}|${state.fileName}`;
  const color = mesh.geometry.getAttribute('color');
  if (color && mesh.userData.corskinColours === key) return true;
  mesh.userData.corskinColours = key;
  return false;
}

/** Vertex colours = the painted joint's weight (blue 0 → red 1); false when not painting this mesh. */
export function paintWeightColors(mesh: THREE.SkinnedMesh): boolean {
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
export function meshSize(mesh: THREE.SkinnedMesh): number {
  const box = new THREE.Box3().setFromBufferAttribute(mesh.geometry.getAttribute('position') as THREE.BufferAttribute);
  return box.getSize(new THREE.Vector3()).length();
}

/** Applies a brush edit to mesh `m`'s session and every view; one undo step. */
export function applyEdit(m: number, edit: { vertices: Int32Array; joints: Uint32Array; weights: Float32Array }): void {
  const u = sessions[m]!.setWeights(edit.vertices, edit.joints, edit.weights);
  paintSeconds.push(u.seconds);
  pushToViews(m, edit.vertices, u.recomputed);
  if (stroke) stroke.push(m);
  else undoStack.push((stroke = [m]));
  if (!strokeOpen) stroke = undefined; // an edit outside a stroke is a step of its own
  redoStack.length = 0;
  paintEdits++;
  setStatus(
    `${state.fileName}: painted ${edit.vertices.length} vertices; ${u.recomputed.length} centers updated in ${(u.seconds * 1000).toFixed(1)} ms`,
  );
}

/** Bind-space joint positions of a skinned mesh, in its geometry's space (as the template rigs see them). */
export function bindJoints(mesh: THREE.SkinnedMesh): Float64Array {
  return bindJointPositions(skeletonFromThree(mesh));
}

/**
 * CoR check colours: each vertex's center of rotation against the bones of its two largest
 * influences (segments joint → parent joint in the bind pose): green within 10% of the mesh's size,
 * red from 25% (the CoR sits away from where the skin bends, e.g. weights that mix distant bones).
 */
export function corCheckColors(mesh: THREE.SkinnedMesh, index: number): boolean {
  const corView = state.views.find((v) => v.method === 'cor');
  const source = corView && skinnedMeshes(corView)[index]?.geometry.getAttribute(COR_ATTRIBUTE_THREE);
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
export function smoothAroundJoint(): void {
  settings.paint = true;
  void startPainting().then(() => {
    const meshes = skinnedMeshes(state.views[0]);
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

/** Forgets the painting of the last file (its CoR sessions, one-rings and undo steps). */
export function resetPainting(): void {
  sessions = [];
  rings = [];
  undoStack.length = redoStack.length = 0;
  endStroke();
}
