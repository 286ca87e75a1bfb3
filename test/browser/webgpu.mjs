// Node-material (WebGPURenderer, here on its WebGL 2 backend) parity of corskin/three: positions
// captured through the patched node material against corskin's CPU deformer.
import * as THREE from 'three/webgpu';
import { attribute, float, vec2, vec4, vertexStage, positionLocal } from 'three/tsl';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { meshFromGeometry } from '/dist/three/index.js';
import { useSkinningMethod } from '/dist/three/nodes.js';
import { deformers } from '/dist/deformers/index.js';

const renderer = new THREE.WebGPURenderer({ forceWebGL: true });
renderer.setSize(64, 64);
document.body.appendChild(renderer.domElement);
await renderer.init();

function toNodeMaterials(root) {
  root.traverse((o) => {
    if (!o.isMesh) return;
    const m = new THREE.MeshStandardNodeMaterial();
    m.color.copy(o.material.color ?? new THREE.Color(1, 1, 1));
    o.material = m;
  });
}

function capture(mesh) {
  const n = mesh.geometry.getAttribute('position').count;
  const W = 256;
  const H = Math.ceil(n / W);
  const src = mesh.geometry;
  const g = new THREE.BufferGeometry();
  for (const name of ['position', 'normal', 'skinIndex', 'skinWeight', '_center_of_rotation']) {
    const a = src.getAttribute(name);
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
  // The patched material of the mesh, with the clip position replaced by the pixel of the vertex
  // and the colour by the skinned object-space position.
  const mat = mesh.material.clone();
  const setupPosition = mesh.material.setupPosition;
  if (setupPosition !== THREE.NodeMaterial.prototype.setupPosition) mat.setupPosition = setupPosition;
  mat.side = THREE.DoubleSide;
  mat.toneMapped = false;
  mat.lights = false;
  mat.setupModelViewProjection = () => {
    const vidN = attribute('vid', 'float');
    const c = attribute('corner', 'float');
    const px = vec2(vidN.mod(W), vidN.div(W).floor()).add(0.5);
    const off = c.equal(0).select(vec2(-0.4, -0.4), c.equal(1).select(vec2(0.4, -0.4), vec2(0, 0.4)));
    const ndc = px.add(off).div(vec2(W, H)).mul(2).sub(1);
    return vec4(ndc, float(0), float(1));
  };
  mat.outputNode = vec4(vertexStage(positionLocal), 1);
  const cap = new THREE.SkinnedMesh(g, mat);
  cap.bind(mesh.skeleton, mesh.bindMatrix);
  cap.matrixAutoUpdate = false;
  cap.matrix.copy(mesh.matrixWorld);
  cap.frustumCulled = false;
  cap.userData.corskin = mesh.userData.corskin;
  cap.onBeforeRender = mesh.onBeforeRender;
  const scene = new THREE.Scene();
  scene.add(cap);
  const rt = new THREE.RenderTarget(W, H, { type: THREE.FloatType });
  return { scene, rt, W, H, n };
}

window.nodeParity = async (url, method, time) => {
  const gltf = await new GLTFLoader().loadAsync(url);
  let mesh;
  gltf.scene.traverse((o) => o.isSkinnedMesh && !mesh && (mesh = o));
  toNodeMaterials(gltf.scene);
  await useSkinningMethod(gltf.scene, method);
  const mixer = new THREE.AnimationMixer(gltf.scene);
  if (gltf.animations[0]) mixer.clipAction(gltf.animations[0]).play();
  mixer.setTime(time);
  gltf.scene.updateMatrixWorld(true);
  const camera = new THREE.PerspectiveCamera(45, 1, 0.01, 100);
  camera.position.set(0, 1, 4);
  renderer.render(gltf.scene, camera);
  const { scene, rt, W, H, n } = capture(mesh);
  renderer.setRenderTarget(rt);
  renderer.setClearColor(0x000000, 0);
  renderer.render(scene, new THREE.Camera());
  const out = await renderer.readRenderTargetPixelsAsync(rt, 0, 0, W, H);
  renderer.setRenderTarget(null);
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
  const cpu = new Float32Array(gpu.length);
  deformers[method](data, S, { positions: cpu });
  let err = 0;
  const lo = [Infinity, Infinity, Infinity],
    hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < cpu.length; i++) {
    err = Math.max(err, Math.abs(cpu[i] - gpu[i]));
    lo[i % 3] = Math.min(lo[i % 3], cpu[i]);
    hi[i % 3] = Math.max(hi[i % 3], cpu[i]);
  }
  const diag = Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
  let moved = 0;
  for (let i = 0; i < cpu.length; i++) moved = Math.max(moved, Math.abs(cpu[i] - data.positions[i]));
  return {
    error: err / diag,
    moved: moved / diag,
    vertices: n,
    backend: renderer.backend.isWebGLBackend ? 'webgl2' : 'webgpu',
  };
};
window.ready = true;
