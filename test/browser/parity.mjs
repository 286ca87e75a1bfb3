// GPU/CPU parity of corskin/three: the vertex positions the patched skinning shader produces
// (captured into a float render target, one pixel per vertex) against corskin's CPU deformer.
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { useSkinningMethod } from '/dist/three/index.js';
import { deformers } from '/dist/deformers/index.js';
import { meshFromGeometry } from '/dist/three/index.js';

const renderer = new THREE.WebGLRenderer();
renderer.setSize(64, 64);
document.body.appendChild(renderer.domElement);

async function load(url) {
  const gltf = await new GLTFLoader().loadAsync(url);
  let mesh;
  gltf.scene.traverse((o) => o.isSkinnedMesh && !mesh && (mesh = o));
  return { gltf, mesh };
}

/** Captures the object-space skinned positions the GPU computes for `mesh`. */
function capture(mesh) {
  const n = mesh.geometry.getAttribute('position').count;
  const W = 256;
  const H = Math.ceil(n / W);
  const src = mesh.geometry;
  const g = new THREE.BufferGeometry();
  for (const name of ['position', 'skinIndex', 'skinWeight', '_center_of_rotation']) {
    const a = src.getAttribute(name);
    if (!a) continue;
    const c = a.itemSize;
    const arr = new Float32Array(3 * n * c);
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
  const base = Array.isArray(mesh.material) ? mesh.material[0] : mesh.material;
  const mat = new THREE.MeshBasicMaterial({ side: THREE.DoubleSide });
  mat.onBeforeCompile = (shader, r) => {
    if (base.onBeforeCompile) base.onBeforeCompile(shader, r); // corskin's patch (DQS/CoR), or none (LBS)
    shader.vertexShader = shader.vertexShader
      .replace('#include <common>', '#include <common>\nin float corner;\nin float vid;\nout vec3 vCapture;')
      .replace(
        '#include <project_vertex>',
        `
        vCapture = transformed;
        vec2 px = vec2( mod( vid, ${W}.0 ), floor( vid / ${W}.0 ) ) + 0.5;
        px += corner == 0.0 ? vec2( -0.4, -0.4 ) : corner == 1.0 ? vec2( 0.4, -0.4 ) : vec2( 0.0, 0.4 );
        gl_Position = vec4( px / vec2( ${W}.0, ${H}.0 ) * 2.0 - 1.0, 0.0, 1.0 );`,
      );
    shader.fragmentShader = shader.fragmentShader
      .replace('#include <common>', '#include <common>\nin vec3 vCapture;')
      .replace('#include <dithering_fragment>', 'gl_FragColor = vec4( vCapture, 1.0 );');
  };
  mat.customProgramCacheKey = () => 'capture-' + (base.customProgramCacheKey ? base.customProgramCacheKey() : 'lbs');
  const cap = new THREE.SkinnedMesh(g, mat);
  cap.bind(mesh.skeleton, mesh.bindMatrix);
  // Same world matrix as the original: an 'attached' skinned mesh takes its bindMatrixInverse
  // from its world matrix, so both then output the same object space.
  cap.matrixAutoUpdate = false;
  cap.matrix.copy(mesh.matrixWorld);
  cap.frustumCulled = false;
  const scene = new THREE.Scene();
  scene.add(cap);
  const rt = new THREE.WebGLRenderTarget(W, H, { type: THREE.FloatType, format: THREE.RGBAFormat });
  renderer.setRenderTarget(rt);
  renderer.setClearColor(0x000000, 0);
  renderer.render(scene, new THREE.Camera());
  const out = new Float32Array(4 * W * H);
  renderer.readRenderTargetPixels(rt, 0, 0, W, H, out);
  renderer.setRenderTarget(null);
  const positions = new Float32Array(3 * n);
  for (let i = 0; i < n; i++) positions.set(out.subarray(4 * i, 4 * i + 3), 3 * i);
  return positions;
}

/** Max |GPU − CPU| / bbox diagonal for `method` on the glTF at `url`, animation 0 at `time`. */
window.parity = async (url, method, time) => {
  const { gltf, mesh } = await load(url);
  await useSkinningMethod(gltf.scene, method);
  const mixer = new THREE.AnimationMixer(gltf.scene);
  if (gltf.animations[0]) mixer.clipAction(gltf.animations[0]).play();
  mixer.setTime(time);
  gltf.scene.updateMatrixWorld(true);
  // Render the real scene once (updates the skeleton and corskin's joint texture), then capture.
  const camera = new THREE.PerspectiveCamera(45, 1, 0.01, 100);
  camera.position.set(0, 1, 4);
  renderer.render(gltf.scene, camera);
  const gpu = capture(mesh);
  // CPU: corskin's deformer with the same skinning matrices, in the mesh's bind space.
  const data = meshFromGeometry(mesh);
  const cor = mesh.geometry.getAttribute('_center_of_rotation');
  if (cor) data.centersOfRotation = Float32Array.from(cor.array);
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
  let lo = [Infinity, Infinity, Infinity],
    hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < cpu.length; i++) {
    err = Math.max(err, Math.abs(cpu[i] - gpu[i]));
    lo[i % 3] = Math.min(lo[i % 3], cpu[i]);
    hi[i % 3] = Math.max(hi[i % 3], cpu[i]);
  }
  const diag = Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
  // Moving check: the pose is not the bind pose.
  let moved = 0;
  for (let i = 0; i < cpu.length; i++) moved = Math.max(moved, Math.abs(cpu[i] - data.positions[i]));
  return { error: err / diag, moved: moved / diag, vertices: cpu.length / 3 };
};
window.ready = true;

/** Switching to DQS and back to LBS restores the very same materials. */
window.restoreCheck = async (url) => {
  const { gltf, mesh } = await load(url);
  const original = mesh.material;
  await useSkinningMethod(gltf.scene, 'dqs');
  const patched = mesh.material !== original && !!mesh.customDepthMaterial;
  await useSkinningMethod(gltf.scene, 'lbs');
  return { patched, restored: mesh.material === original && mesh.customDepthMaterial === undefined };
};
