// Node-material (WebGPURenderer, here on its WebGL 2 backend) parity of corskin/three/webgpu:
// positions captured through the patched node material against corskin's CPU deformer.
import * as THREE from 'three/webgpu';
import { attribute, float, vec2, vec4, vertexStage, positionLocal } from 'three/tsl';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { toNodeMaterial, useSkinningMethod } from 'corskin/three/webgpu';
import {
  W,
  captureGeometry,
  captureMesh,
  compareWithCpu,
  loadSkinned,
  renderPosed,
  setMorphs,
  switchTemplates,
  cageCount,
  worst,
} from './capture.mjs';

const renderer = new THREE.WebGPURenderer({ forceWebGL: true });
renderer.setSize(64, 64);
document.body.appendChild(renderer.domElement);
await renderer.init();

/** Renders the capture of `mesh` through its (patched) node material; returns the float pixels. */
async function capture(mesh) {
  const { geometry, n, H } = captureGeometry(THREE, mesh);
  // The mesh's material, with the clip position replaced by the pixel of the vertex and the
  // output colour by the skinned object-space position.
  // For three's own LBS the mesh keeps its classic material: capture through its node version.
  const source = toNodeMaterial(Array.isArray(mesh.material) ? mesh.material[0] : mesh.material);
  const mat = source.clone();
  if (source.setupPosition !== THREE.NodeMaterial.prototype.setupPosition) mat.setupPosition = source.setupPosition;
  mat.side = THREE.DoubleSide;
  mat.toneMapped = false;
  mat.lights = false;
  mat.setupModelViewProjection = () => {
    const vid = attribute('vid', 'float');
    const c = attribute('corner', 'float');
    const px = vec2(vid.mod(W), vid.div(W).floor()).add(0.5);
    const off = c.equal(0).select(vec2(-0.4, -0.4), c.equal(1).select(vec2(0.4, -0.4), vec2(0, 0.4)));
    return vec4(px.add(off).div(vec2(W, H)).mul(2).sub(1), float(0), float(1));
  };
  mat.outputNode = vec4(vertexStage(positionLocal), 1);
  const cap = captureMesh(THREE, mesh, geometry, mat);
  cap.userData.corskin = mesh.userData.corskin;
  cap.onBeforeRender = mesh.onBeforeRender;
  const scene = new THREE.Scene();
  scene.add(cap);
  const rt = new THREE.RenderTarget(W, H, { type: THREE.FloatType });
  renderer.setRenderTarget(rt);
  renderer.setClearColor(0x000000, 0);
  renderer.render(scene, new THREE.Camera());
  const out = await renderer.readRenderTargetPixelsAsync(rt, 0, 0, W, H);
  renderer.setRenderTarget(null);
  return { out, n };
}

window.nodeParity = async (url, method, time, morphs = {}, switches = []) => {
  const { gltf, meshes } = await loadSkinned(GLTFLoader, url);
  // GLTFLoader's own (classic) materials: corskin converts them as WebGPURenderer would.
  await useSkinningMethod(gltf.scene, method);
  setMorphs(gltf, morphs);
  if (switches.length) {
    // A frame with the first templates, then the switch: the next frame must show it.
    renderPosed(THREE, renderer, gltf, time);
    switchTemplates(gltf, switches);
  }
  renderPosed(THREE, renderer, gltf, time);
  const results = [];
  for (const mesh of meshes) {
    const { out, n } = await capture(mesh);
    results.push(compareWithCpu(THREE, mesh, method, out, n));
  }
  return { ...worst(results), cages: cageCount(meshes) };
};
window.ready = true;
