// GPU/CPU parity of corskin/three with WebGLRenderer: the vertex positions the patched skinning
// shaders produce (captured into a float render target, one pixel per vertex) against corskin's
// CPU deformer.
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { useSkinningMethod } from 'corskin/three';
import {
  W,
  captureGeometry,
  captureMesh,
  compareWithCpu,
  normalAngles,
  loadSkinned,
  renderPosed,
  setMorphs,
  switchTemplates,
  cageCount,
  worst,
} from './capture.mjs';

const renderer = new THREE.WebGLRenderer();
renderer.setSize(64, 64);
document.body.appendChild(renderer.domElement);

/**
 * Renders the capture of `mesh` through its (patched) material: the skinned position
 * (`transformed`) or, with `what` = 'normal', the skinned normal (`objectNormal`); returns the
 * float pixels.
 */
function capture(mesh, what = 'position') {
  const { geometry, n, H } = captureGeometry(THREE, mesh);
  const base = Array.isArray(mesh.material) ? mesh.material[0] : mesh.material;
  const mat = new THREE.MeshBasicMaterial({ side: THREE.DoubleSide });
  mat.onBeforeCompile = (shader, r) => {
    if (base.onBeforeCompile) base.onBeforeCompile(shader, r); // corskin's patch (DQS/CoR), or none (LBS)
    shader.vertexShader = shader.vertexShader
      .replace('#include <common>', '#include <common>\nin float corner;\nin float vid;\nout vec3 vCapture;')
      .replace(
        '#include <project_vertex>',
        `
        vCapture = ${what === 'normal' ? 'objectNormal' : 'transformed'};
        vec2 px = vec2( mod( vid, ${W}.0 ), floor( vid / ${W}.0 ) ) + 0.5;
        px += corner == 0.0 ? vec2( -0.4, -0.4 ) : corner == 1.0 ? vec2( 0.4, -0.4 ) : vec2( 0.0, 0.4 );
        gl_Position = vec4( px / vec2( ${W}.0, ${H}.0 ) * 2.0 - 1.0, 0.0, 1.0 );`,
      );
    shader.fragmentShader = shader.fragmentShader
      .replace('#include <common>', '#include <common>\nin vec3 vCapture;')
      .replace('#include <dithering_fragment>', 'gl_FragColor = vec4( vCapture, 1.0 );');
  };
  // H is compiled into the shader: part of the program's key.
  mat.customProgramCacheKey = () =>
    `capture-${what}-${H}-` + (base.customProgramCacheKey ? base.customProgramCacheKey() : 'lbs');
  const scene = new THREE.Scene();
  scene.add(captureMesh(THREE, mesh, geometry, mat));
  const rt = new THREE.WebGLRenderTarget(W, H, { type: THREE.FloatType, format: THREE.RGBAFormat });
  renderer.setRenderTarget(rt);
  renderer.setClearColor(0x000000, 0);
  renderer.render(scene, new THREE.Camera());
  const out = new Float32Array(4 * W * H);
  renderer.readRenderTargetPixels(rt, 0, 0, W, H, out);
  renderer.setRenderTarget(null);
  return { out, n };
}

/**
 * Max |GPU − CPU| / bbox diagonal for `method` on the glTF at `url`, animation 0 at `time`, after
 * morph weights by name and template switches ([[joint, id], …]).
 */
window.parity = async (url, method, time, morphs = {}, switches = []) => {
  const { gltf, meshes } = await loadSkinned(GLTFLoader, url);
  await useSkinningMethod(gltf.scene, method);
  setMorphs(gltf, morphs);
  if (switches.length) {
    // A frame with the first templates, then the switch: the next frame must show it.
    renderPosed(THREE, renderer, gltf, time);
    switchTemplates(gltf, switches);
  }
  renderPosed(THREE, renderer, gltf, time);
  const result = worst(
    meshes.map((mesh) => {
      const { out, n } = capture(mesh);
      return compareWithCpu(THREE, mesh, method, out, n);
    }),
  );
  return { ...result, cages: cageCount(meshes) };
};

/**
 * Angles (rad) between the normals the GPU skinning produces and corskin's CPU deformer's for
 * `method` on the glTF at `url`, animation 0 at `time` (no morphs): median, p99 and max over
 * every vertex of every skinned mesh with normals.
 */
window.normalParity = async (url, method, time) => {
  const { gltf, meshes } = await loadSkinned(GLTFLoader, url);
  await useSkinningMethod(gltf.scene, method);
  renderPosed(THREE, renderer, gltf, time);
  const angles = meshes
    .filter((mesh) => mesh.geometry.getAttribute('normal'))
    .flatMap((mesh) => {
      const { out, n } = capture(mesh, 'normal');
      return normalAngles(mesh, method, out, n);
    })
    .sort((a, b) => a - b);
  const at = (q) => angles[Math.min(angles.length - 1, Math.floor(q * angles.length))];
  return { vertices: angles.length, median: at(0.5), p99: at(0.99), max: angles[angles.length - 1] };
};

/** Switching to DQS and back to LBS restores the very same materials. */
window.restoreCheck = async (url) => {
  const { gltf, meshes } = await loadSkinned(GLTFLoader, url);
  const mesh = meshes[0];
  const original = mesh.material;
  await useSkinningMethod(gltf.scene, 'dqs');
  const patched = mesh.material !== original && !!mesh.customDepthMaterial;
  await useSkinningMethod(gltf.scene, 'lbs');
  return { patched, restored: mesh.material === original && mesh.customDepthMaterial === undefined };
};
/**
 * A CPU method's stand-in drawn by WebGLRenderer, frame by frame (animation 0 of the glTF at
 * `url`, frustum culling turned off throughout the scene, as applications do for skinned meshes):
 * the pixels the character covers in the first frame after the switch, and how many pixels
 * differ between the first frame at a time and a second frame at the same time (0 when each
 * frame shows its own pose, not the last frame's), and between two times.
 */
window.cpuFrames = async (url, method, times) => {
  const { gltf } = await loadSkinned(GLTFLoader, url);
  const scene = new THREE.Scene();
  scene.add(gltf.scene);
  await useSkinningMethod(gltf.scene, method);
  gltf.scene.traverse((o) => (o.frustumCulled = false));
  const mixer = new THREE.AnimationMixer(gltf.scene);
  mixer.clipAction(gltf.animations[0]).play();
  gltf.scene.updateMatrixWorld(true);
  const box = new THREE.Box3().setFromObject(gltf.scene);
  const centre = box.getCenter(new THREE.Vector3());
  const size = box.getSize(new THREE.Vector3()).length();
  const camera = new THREE.PerspectiveCamera(45, 1, size / 100, size * 10);
  camera.position.copy(centre).add(new THREE.Vector3(0, 0, 1.5 * size));
  camera.lookAt(centre);
  const S = 256;
  const rt = new THREE.WebGLRenderTarget(S, S);
  const frame = (time) => {
    mixer.setTime(time);
    renderer.setRenderTarget(rt);
    renderer.setClearColor(0x000000, 0);
    renderer.render(scene, camera);
    const px = new Uint8Array(4 * S * S);
    renderer.readRenderTargetPixels(rt, 0, 0, S, S, px);
    renderer.setRenderTarget(null);
    return px;
  };
  const differ = (a, b) => {
    let d = 0;
    for (let i = 0; i < a.length; i += 4)
      if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2] || a[i + 3] !== b[i + 3]) d++;
    return d;
  };
  const frames = times.map((t) => [frame(t), frame(t)]);
  let covered = 0;
  for (let i = 3; i < frames[0][0].length; i += 4) if (frames[0][0][i] > 0) covered++;
  return {
    covered,
    sameTime: frames.map(([a, b]) => differ(a, b)),
    moved: frames.slice(1).map(([a], k) => differ(frames[k][1], a)),
  };
};
window.ready = true;
