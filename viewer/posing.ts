/**
 * The viewer's posing of the views: the clip, the stress pose, the posed joint (twist and bend
 * sliders), framing a joint, and the overlays drawn from the pose (the distortion heat map, the
 * posed centers of rotation).
 *
 * @module
 */
import * as THREE from 'three';
import { deformLbs } from '../src/deformers/lbs.js';
import { stressPose } from '../src/evaluation/stress-pose.js';
import { rigidityDistortion } from '../src/metrics/distortion.js';
import { cpuStandIn, isCageObject, skeletonFromThree, worldSkinningMatrices } from '../src/three/index.js';
import {
  View,
  camera,
  controls,
  cpuOf,
  isRigJoint,
  settings,
  skinnedMeshes,
  skinningOf,
  state,
  viewCells,
} from './app.js';
import { fitDistance, fitPoints } from './layout.js';
import { corCheckColors, paintWeightColors } from './paint.js';
import { posedPoints } from './views.js';

/**
 * Points the camera at the posed joint of the sliders, keeping its limb in view: the posed skin
 * that follows the joint, its parent or its children most, fitted to a view from the current
 * direction (where no vertex does, the skin inside the box of those joints and the next ones
 * down, widened by a little of the character's size).
 */
export function frameJoint(): void {
  const view = viewCells()[0]?.view;
  const bone = view?.root.getObjectByName(settings.joint);
  if (!view || !bone) return;
  view.root.updateMatrixWorld(true);
  const box = new THREE.Box3().expandByPoint(bone.getWorldPosition(new THREE.Vector3()));
  if (isRigJoint(bone.parent)) box.expandByPoint(bone.parent.getWorldPosition(new THREE.Vector3()));
  for (const child of bone.children.filter(isRigJoint)) {
    box.expandByPoint(child.getWorldPosition(new THREE.Vector3()));
    for (const grandchild of child.children.filter(isRigJoint))
      box.expandByPoint(grandchild.getWorldPosition(new THREE.Vector3()));
  }
  box.expandByScalar(0.06 * (state.bounds.getSize(new THREE.Vector3()).length() || 1));
  const { w, h } = viewCells()[0].cell;
  const aspect = w / Math.max(1, h);
  // The skin, not the box's corners (seen from three-quarters in a narrow view, those fitted
  // farther than the whole character), and of the skin the limb: the vertices that follow the
  // joint, its parent or its children most (the box of an arm hanging down also holds half the
  // chest, and framed it: the Soldier's forearm).
  const limb = new Set<THREE.Object3D>([bone, ...bone.children.filter(isRigJoint)]);
  if (isRigJoint(bone.parent)) limb.add(bone.parent);
  const inside = Array.from(posedPoints(view, (mesh, i) => limb.has(mesh.skeleton.bones[dominantInfluence(mesh, i)])));
  // The joints themselves too (a shoulder joint deep in the body, away from the skin it moves most).
  if (inside.length) for (const j of limb) inside.push(...j.getWorldPosition(new THREE.Vector3()).toArray());
  else {
    const all = posedPoints(view);
    const p = new THREE.Vector3();
    for (let k = 0; k < all.length; k += 3)
      if (box.containsPoint(p.fromArray(all, k))) inside.push(all[k], all[k + 1], all[k + 2]);
  }
  // Seen from the limb's side: a limb on the far side of the character (the Soldier's left arm
  // from the three-quarter view of its right) is hidden behind the body, so the view turns to the
  // mirror direction about the vertical plane through the character's middle and the limb.
  const direction = camera.position.clone().sub(controls.target).normalize();
  const limbCentre = new THREE.Vector3();
  for (let k = 0; k < inside.length; k += 3) limbCentre.add(new THREE.Vector3().fromArray(inside, k));
  const side = limbCentre.divideScalar(Math.max(1, inside.length / 3)).sub(state.bounds.getCenter(new THREE.Vector3()));
  side.y = 0;
  // Only a limb well off the middle (not the spine, the neck, the hips: there it would swing the
  // view round for nothing): more than 15% of the character's half-width.
  const halfWidth = 0.5 * Math.max(state.bounds.max.x - state.bounds.min.x, state.bounds.max.z - state.bounds.min.z);
  if (inside.length && side.length() > 0.15 * halfWidth && side.dot(direction) < 0) {
    side.normalize();
    direction.addScaledVector(side, -2 * side.dot(direction));
  }
  const fit = inside.length
    ? fitPoints(inside, direction, camera.fov, aspect)
    : { target: box.getCenter(new THREE.Vector3()), distance: fitDistance(box, direction, camera.fov, aspect) };
  controls.target.copy(fit.target);
  camera.position.copy(fit.target).addScaledVector(direction, fit.distance);
  controls.update();
  state.autoFramed = false;
}

/** The bone index of vertex i's largest influence (its first four, as three.js reads them). */
function dominantInfluence(mesh: THREE.SkinnedMesh, i: number): number {
  const index = mesh.geometry.getAttribute('skinIndex');
  const weight = mesh.geometry.getAttribute('skinWeight');
  if (!index || !weight) return -1;
  let best = 0;
  for (let k = 1; k < 4; k++) if (weight.getComponent(i, k) > weight.getComponent(i, best)) best = k;
  return index.getComponent(i, best);
}

/** The rotation a joint gets from the twist/bend sliders, about its bone (twist) and local z. */
export function poseJoint(root: THREE.Object3D): void {
  // The preview cycle: the bend (90° when the slider is at 0) and twist swing out and back every 2 s.
  const cycle = settings.preview ? 0.5 - 0.5 * Math.cos((Math.PI * performance.now()) / 1000) : 1;
  const bend = (settings.preview && !settings.bend ? 90 : settings.bend) * cycle;
  const twist = settings.twist * cycle;
  if (!settings.joint || (!twist && !bend)) return;
  // A bone template's slot is selected: its key poses are the bends of the bone's child joint.
  const selected = root.getObjectByName(settings.joint);
  const bone = settings.slot === 'bone' ? selected?.children.find(isRigJoint) : selected;
  if (!bone) return;
  const child = bone.children.find(isRigJoint);
  const axis = child && child.position.lengthSq() > 0 ? child.position.clone().normalize() : new THREE.Vector3(0, 1, 0);
  const side = Math.abs(axis.z) < 0.9 ? new THREE.Vector3(0, 0, 1) : new THREE.Vector3(1, 0, 0);
  const bendAxis = side.sub(axis.clone().multiplyScalar(side.dot(axis))).normalize();
  bone.quaternion
    .multiply(new THREE.Quaternion().setFromAxisAngle(axis, THREE.MathUtils.degToRad(twist)))
    .multiply(new THREE.Quaternion().setFromAxisAngle(bendAxis, THREE.MathUtils.degToRad(bend)));
}

export function updatePose(view: View): void {
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
export function applyStressPose(view: View): void {
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

export function restQuaternionOf(view: View, o: THREE.Object3D): THREE.Quaternion | undefined {
  // Views are clones with the same structure: find the twin in view 0 by name path.
  if (view === state.views[0]) return state.restQuaternions.get(o);
  const twin = state.views[0].root.getObjectByName(o.name);
  return twin ? state.restQuaternions.get(twin) : undefined;
}

/** Room reused by every frame's heat map (no allocation per mesh and frame). */
const heatScratch = { toMesh: new THREE.Matrix4(), unscale: new THREE.Matrix4(), joint: new THREE.Matrix4(), v: new THREE.Vector3() }; // prettier-ignore

/**
 * Heat map of the local rigidity distortion (corskin's metric: normalised ARAP residual of each
 * one-ring against the rest pose), computed on the CPU with the view's method; blue 0 → red ≥ 0.5.
 */
export function updateHeatmap(view: View): void {
  view.root.traverse((o) => {
    const mesh = o as THREE.SkinnedMesh;
    if (!mesh.isSkinnedMesh) return;
    const materials = Array.isArray(mesh.material) ? mesh.material : [mesh.material];
    for (const m of materials as THREE.MeshStandardMaterial[]) {
      const colored = settings.heatmap || settings.paint || settings.corCheck;
      if (m.vertexColors !== colored) {
        m.vertexColors = colored;
        // The map's colours alone: the texture and base colour would tint them (the Fox's orange
        // texture drew zero weight's blue near black). Kept on the material and put back after.
        if (colored && m.color) {
          m.userData.corskinBase = { map: m.map, color: m.color.clone() };
          m.map = null;
          m.color.set(0xffffff);
        } else if (m.userData.corskinBase) {
          m.map = m.userData.corskinBase.map;
          m.color.copy(m.userData.corskinBase.color);
          delete m.userData.corskinBase;
        }
        m.needsUpdate = true;
      }
    }
    if (settings.corCheck && corCheckColors(mesh, skinnedMeshes(view).indexOf(mesh))) return;
    if (settings.paint && paintWeightColors(mesh)) return;
    if (!settings.heatmap) return;
    const c = cpuOf(view, mesh);
    if (!c || (view.method === 'cor' && !c.centers)) return; // still being read or computed
    // The shape the view draws: posed in world space, as the CPU stand-in poses it (log-matrix
    // skinning depends on the space), then back in the mesh's space to compare with its rest.
    const S = worldSkinningMatrices(mesh, skinningOf(mesh));
    c.deform(c.data, S, { positions: c.posed });
    // Back in the mesh's space, at the geometry's scale: a rig whose joints carry a scale its mesh
    // node does not (the Soldier: the skin drawn 838× its node's scale) is not distortion.
    const { toMesh, unscale: U, v } = heatScratch;
    toMesh.copy(mesh.matrixWorld).invert();
    const unscale = 1 / skinScale(toMesh, S);
    toMesh.premultiply(U.makeScale(unscale, unscale, unscale));
    for (let k = 0; k < c.posed.length; k += 3) v.fromArray(c.posed, k).applyMatrix4(toMesh).toArray(c.posed, k);
    const d = (c.distortion = rigidityDistortion(c.data.positions, c.posed, c.data.triangles, c.rings));
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

/**
 * The median over the joints of the uniform scale (cube root of |determinant|) of `toMesh · S_j`:
 * how much larger than its geometry the skin is drawn, in the mesh's space (1 where the scales
 * are not finite or not positive).
 */
function skinScale(toMesh: THREE.Matrix4, S: Float64Array): number {
  const m = heatScratch.joint;
  const scales: number[] = [];
  for (let o = 0; o < S.length; o += 16) scales.push(Math.cbrt(Math.abs(m.fromArray(S, o).premultiply(toMesh).determinant()))); // prettier-ignore
  scales.sort((a, b) => a - b);
  const s = scales[scales.length >> 1];
  return s > 0 && Number.isFinite(s) ? s : 1;
}

/** Posed centers of rotation of the CoR view: LBS of the bind-space centers (Algorithm 1, line 7). */
export function updateCenters(view: View): void {
  view.cors.visible = settings.centers && view.method === 'cor';
  if (!view.cors.visible) return;
  const points: number[] = [];
  view.root.traverse((o) => {
    const mesh = o as THREE.SkinnedMesh;
    if (!mesh.isSkinnedMesh) return;
    const c = cpuOf(view, mesh);
    if (!c?.centers) return;
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
