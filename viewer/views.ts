/**
 * The viewer's views: one scene per method with its own copy of the character, skeleton, CoR and
 * cage overlays, and the framing of the camera on the posed character.
 *
 * @module
 */
import * as THREE from 'three';
import { type GLTF } from 'three/addons/loaders/GLTFLoader.js';
import * as SkeletonUtils from 'three/addons/utils/SkeletonUtils.js';
import { isCageObject, linearBlendVertex, type ThreeSkinningMethod } from '../src/three/index.js';
import { View, camera, characterBox, controls, settings, state, viewCells } from './app.js';
import { fitPoints, THREE_QUARTER } from './layout.js';
import { updatePose } from './posing.js';

export function makeView(method: ThreeSkinningMethod, g: GLTF): View {
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
  cors.renderOrder = 1; // after the skin, which would otherwise hide the centers inside it
  // The overlays' geometry changes every frame, their bounding spheres do not: never culled
  // (the cage at the stress pose was culled by the sphere of its first frame's pose).
  cors.frustumCulled = false;
  scene.add(cors);
  const cage = new THREE.LineSegments(
    new THREE.BufferGeometry(),
    new THREE.LineBasicMaterial({ vertexColors: true, depthTest: false, transparent: true, opacity: 0.9 }),
  );
  cage.visible = false;
  cage.renderOrder = 1;
  cage.frustumCulled = false;
  // The cage's vertices as handles: where a drag grabs one (within 10 px).
  const handles = new THREE.Points(
    new THREE.BufferGeometry(),
    new THREE.PointsMaterial({ size: 5, sizeAttenuation: false, color: 0xffffff, depthTest: false, transparent: true }),
  );
  handles.renderOrder = 1;
  handles.frustumCulled = false;
  cage.add(handles);
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
export function frame(view: View): void {
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

/**
 * World positions of the view's drawn vertices as posed now (at most about 20,000 of them);
 * with `keep`, only the skinned meshes' vertices it keeps.
 */
export function posedPoints(view: View, keep?: (mesh: THREE.SkinnedMesh, vertex: number) => boolean): Float32Array {
  const meshes: THREE.Mesh[] = [];
  view.root.traverse((o) => (o as THREE.Mesh).isMesh && !isCageObject(o) && meshes.push(o as THREE.Mesh));
  const total = meshes.reduce((t, m) => t + (m.geometry.getAttribute('position')?.count ?? 0), 0);
  const step = Math.max(1, Math.ceil(total / 20000));
  const out: number[] = [];
  const v = new THREE.Vector3();
  for (const mesh of meshes) {
    const count = mesh.geometry.getAttribute('position')?.count ?? 0;
    // Skinned (LBS) and morphed, in the mesh's space, as drawn: with every influence where a vertex
    // has more than 4 (three's own skins the first 4: the chicken's 16 framed off its pose).
    const skinned = (mesh as THREE.SkinnedMesh).isSkinnedMesh && mesh.geometry.getAttribute('joints_1');
    const skin = skinned ? linearBlendVertex(mesh as THREE.SkinnedMesh) : (i: number, v: THREE.Vector3) => mesh.getVertexPosition(i, v); // prettier-ignore
    if (keep && !(mesh as THREE.SkinnedMesh).isSkinnedMesh) continue;
    for (let i = 0; i < count; i += step) {
      if (keep && !keep(mesh as THREE.SkinnedMesh, i)) continue;
      skin(i, v);
      v.applyMatrix4(mesh.matrixWorld);
      if (Number.isFinite(v.x + v.y + v.z)) out.push(v.x, v.y, v.z);
    }
  }
  return Float32Array.from(out);
}
