// Shared by the GPU parity pages: the capture geometry (every vertex three times, as a tiny
// triangle around its own pixel of a W-wide float render target) and the CPU reference.
import { deformers } from '/dist/deformers/index.js';
import { meshFromGeometry } from '/dist/three/index.js';

export const W = 256;

/**
 * The capture geometry of a skinned mesh: attributes copied three times (corner 0, 1, 2), plus
 * `corner` and `vid` (the vertex index); triangle i = (i, n + i, 2n + i).
 */
export function captureGeometry(THREE, mesh) {
  const n = mesh.geometry.getAttribute('position').count;
  const g = new THREE.BufferGeometry();
  for (const name of ['position', 'normal', 'skinIndex', 'skinWeight', '_center_of_rotation']) {
    const a = mesh.geometry.getAttribute(name);
    if (!a) continue;
    const c = a.itemSize;
    const arr = name === 'skinIndex' ? new Uint16Array(3 * n * c) : new Float32Array(3 * n * c);
    for (let copy = 0; copy < 3; copy++)
      for (let i = 0; i < n; i++) for (let k = 0; k < c; k++) arr[(copy * n + i) * c + k] = a.getComponent(i, k);
    g.setAttribute(name, new THREE.BufferAttribute(arr, c));
  }
  const corner = new Float32Array(3 * n);
  const vid = new Float32Array(3 * n);
  for (let copy = 0; copy < 3; copy++)
    for (let i = 0; i < n; i++) {
      corner[copy * n + i] = copy;
      vid[copy * n + i] = i;
    }
  g.setAttribute('corner', new THREE.BufferAttribute(corner, 1));
  g.setAttribute('vid', new THREE.BufferAttribute(vid, 1));
  const index = new Uint32Array(3 * n);
  for (let i = 0; i < n; i++) index.set([i, n + i, 2 * n + i], 3 * i);
  g.setIndex(new THREE.BufferAttribute(index, 1));
  return { geometry: g, n, H: Math.ceil(n / W) };
}

/** A skinned mesh drawing `geometry` with `material`, in the same object space as `mesh`. */
export function captureMesh(THREE, mesh, geometry, material) {
  const cap = new THREE.SkinnedMesh(geometry, material);
  cap.bind(mesh.skeleton, mesh.bindMatrix);
  // Same world matrix as the original: an 'attached' skinned mesh takes its bindMatrixInverse
  // from its world matrix, so both then output the same object space.
  cap.matrixAutoUpdate = false;
  cap.matrix.copy(mesh.matrixWorld);
  cap.frustumCulled = false;
  return cap;
}

/** Max |GPU − CPU| / bbox diagonal of corskin's CPU deformer on the mesh's current pose. */
export function compareWithCpu(THREE, mesh, method, out, n) {
  const gpu = new Float32Array(3 * n);
  for (let i = 0; i < n; i++) gpu.set(out.subarray(4 * i, 4 * i + 3), 3 * i);
  const data = meshFromGeometry(mesh);
  const cor = mesh.geometry.getAttribute('_center_of_rotation');
  if (cor) data.centersOfRotation = Float32Array.from(cor.array);
  mesh.skeleton.update();
  const J = mesh.skeleton.bones.length;
  const S = new Float64Array(16 * J);
  const m = new THREE.Matrix4();
  for (let j = 0; j < J; j++) {
    m.fromArray(mesh.skeleton.boneMatrices, 16 * j)
      .premultiply(mesh.bindMatrixInverse)
      .multiply(mesh.bindMatrix);
    S.set(m.elements, 16 * j);
  }
  const cpu = new Float32Array(3 * n);
  deformers[method](data, S, { positions: cpu });
  let err = 0;
  let moved = 0;
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < cpu.length; i++) {
    err = Math.max(err, Math.abs(cpu[i] - gpu[i]));
    moved = Math.max(moved, Math.abs(cpu[i] - data.positions[i])); // the pose is not the bind pose
    lo[i % 3] = Math.min(lo[i % 3], cpu[i]);
    hi[i % 3] = Math.max(hi[i % 3], cpu[i]);
  }
  const diag = Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
  return { error: err / diag, moved: moved / diag, vertices: n };
}

/** Loads a glTF and returns it with its first skinned mesh. */
export async function loadSkinned(GLTFLoader, url) {
  const gltf = await new GLTFLoader().loadAsync(url);
  let mesh;
  gltf.scene.traverse((o) => o.isSkinnedMesh && !mesh && (mesh = o));
  return { gltf, mesh };
}

/**
 * Poses the scene at `time` of its first clip and renders it once (which updates the skeleton
 * and corskin's joint texture) with `renderer`.
 */
export function renderPosed(THREE, renderer, gltf, time) {
  const mixer = new THREE.AnimationMixer(gltf.scene);
  if (gltf.animations[0]) mixer.clipAction(gltf.animations[0]).play();
  mixer.setTime(time);
  gltf.scene.updateMatrixWorld(true);
  const camera = new THREE.PerspectiveCamera(45, 1, 0.01, 100);
  camera.position.set(0, 1, 4);
  renderer.render(gltf.scene, camera);
}
