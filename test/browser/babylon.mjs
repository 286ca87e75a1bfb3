// Babylon.js and three.js side by side on one glTF file: each with its own glTF loader, posed at
// the same time of the same clip, drawn flat white on transparent black from the same camera.
// The test bundles this page with esbuild (Babylon is thousands of modules) and compares the
// silhouettes (the alpha channels) the two engines draw.
import { Engine } from '@babylonjs/core/Engines/engine.js';
import { Scene } from '@babylonjs/core/scene.js';
import { FreeCamera } from '@babylonjs/core/Cameras/freeCamera.js';
import { Camera } from '@babylonjs/core/Cameras/camera.js';
import { Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import { Color3, Color4 } from '@babylonjs/core/Maths/math.color.js';
import { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial.js';
import { LoadAssetContainerAsync } from '@babylonjs/core/Loading/sceneLoader.js';
import { Logger } from '@babylonjs/core/Misc/logger.js';
import '@babylonjs/loaders/glTF/index.js';
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';

/** What Babylon's Logger reported (its loader logs through it, not only through the console). */
const babylonLog = { errors: [], warnings: [] };
Logger.OnNewCacheEntry = (entry) => {
  if (entry.includes("color:red'")) babylonLog.errors.push(entry);
  else if (entry.includes("color:orange'")) babylonLog.warnings.push(entry);
};

function canvas(size) {
  const c = document.createElement('canvas');
  c.width = size;
  c.height = size;
  c.style.width = `${size}px`;
  c.style.height = `${size}px`;
  document.body.appendChild(c);
  return c;
}

/** The alpha channel of a WebGL canvas (drawing buffer preserved), top row first, as 0/1 per pixel. */
function mask(glCanvas) {
  const c = document.createElement('canvas');
  c.width = glCanvas.width;
  c.height = glCanvas.height;
  const ctx = c.getContext('2d');
  ctx.drawImage(glCanvas, 0, 0);
  const rgba = ctx.getImageData(0, 0, c.width, c.height).data;
  let s = '';
  for (let i = 3; i < rgba.length; i += 4) s += rgba[i] > 127 ? '1' : '0';
  return s;
}

/**
 * three.js: the file at `url` posed at `fraction` of its first clip; the camera (vertical fov 30°)
 * looks along -z at the posed meshes' bounding box, framing its larger side with a 10% margin.
 */
async function three(url, fraction, size) {
  const gltf = await new GLTFLoader().loadAsync(url);
  const scene = gltf.scene;
  const clip = gltf.animations[0];
  const time = clip ? fraction * clip.duration : 0;
  const mixer = new THREE.AnimationMixer(scene);
  if (clip) mixer.clipAction(clip).play();
  mixer.setTime(time);
  scene.updateMatrixWorld(true);
  const white = new THREE.MeshBasicMaterial({ color: 0xffffff, side: THREE.DoubleSide });
  const box = new THREE.Box3();
  scene.traverse((o) => {
    if (!o.isMesh) return;
    o.material = white;
    o.frustumCulled = false;
    if (o.isSkinnedMesh)
      o.computeBoundingBox(); // the posed box (skinning and morph targets applied)
    else o.geometry.computeBoundingBox();
    box.union((o.boundingBox ?? o.geometry.boundingBox).clone().applyMatrix4(o.matrixWorld));
  });
  const center = box.getCenter(new THREE.Vector3());
  const extent = box.getSize(new THREE.Vector3());
  const fov = 30;
  const distance = (0.55 * Math.max(extent.x, extent.y)) / Math.tan(((fov / 2) * Math.PI) / 180) + extent.z / 2;
  const view = {
    fov,
    position: [center.x, center.y, center.z + distance],
    target: [center.x, center.y, center.z],
    near: distance / 20,
    far: distance * 4,
  };
  const camera = new THREE.PerspectiveCamera(fov, 1, view.near, view.far);
  camera.position.set(...view.position);
  camera.lookAt(center);
  const c = canvas(size);
  const renderer = new THREE.WebGLRenderer({ canvas: c, antialias: false, alpha: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(1);
  renderer.setSize(size, size, false);
  renderer.setClearColor(0x000000, 0);
  renderer.render(scene, camera);
  const result = { mask: mask(c), time, duration: clip?.duration ?? 0, view };
  renderer.dispose();
  c.remove();
  return result;
}

/**
 * Babylon.js (its glTF loader, right-handed scene so that its coordinates are glTF's): the file at
 * `url` at `time` s of its first animation group, drawn from `view` (three's camera).
 */
async function babylon(url, time, view, size) {
  babylonLog.errors.length = 0;
  babylonLog.warnings.length = 0;
  const c = canvas(size);
  const engine = new Engine(c, false, { preserveDrawingBuffer: true, alpha: true, premultipliedAlpha: false }, false);
  engine.setHardwareScalingLevel(1);
  const scene = new Scene(engine);
  scene.useRightHandedSystem = true;
  scene.clearColor = new Color4(0, 0, 0, 0);
  const container = await LoadAssetContainerAsync(url, scene, {
    pluginExtension: '.glb',
    pluginOptions: { gltf: { animationStartMode: 0 /* NONE */ } },
  });
  container.addAllToScene();
  const white = new StandardMaterial('white', scene);
  white.disableLighting = true;
  white.emissiveColor = new Color3(1, 1, 1);
  white.backFaceCulling = false;
  for (const m of container.meshes) {
    if (m.material) m.material = white;
    m.alwaysSelectAsActiveMesh = true;
  }
  const group = container.animationGroups[0];
  let fps = 0;
  if (group) {
    fps = group.targetedAnimations[0]?.animation.framePerSecond ?? 60;
    group.start(false, 1, group.from, group.to);
    group.goToFrame(time * fps);
    group.pause();
  }
  const camera = new FreeCamera('camera', new Vector3(...view.position), scene);
  camera.setTarget(new Vector3(...view.target));
  camera.fov = (view.fov * Math.PI) / 180;
  camera.fovMode = Camera.FOVMODE_VERTICAL_FIXED;
  camera.minZ = view.near;
  camera.maxZ = view.far;
  scene.activeCamera = camera;
  await scene.whenReadyAsync();
  scene.render();
  scene.render(); // a second frame: skeletons and morph targets settle after the first
  const result = {
    mask: mask(c),
    fps,
    groups: container.animationGroups.map((g) => g.name),
    meshes: container.meshes.length,
    skeletons: container.skeletons.map((s) => s.bones.length),
    morphTargets: container.meshes.map((m) => m.morphTargetManager?.numTargets ?? 0).reduce((a, b) => a + b, 0),
    loaderErrors: [...babylonLog.errors],
    loaderWarnings: [...babylonLog.warnings],
  };
  scene.dispose();
  engine.dispose();
  c.remove();
  return result;
}

/**
 * Both engines on `url` at `fraction` of its first clip, `size`² pixels each (Babylon at
 * `babylonFraction` instead where given: a control that the comparison sees the pose).
 */
window.compare = async (url, fraction = 0.5, size = 256, babylonFraction = fraction) => {
  const t = await three(url, fraction, size);
  const b = await babylon(url, babylonFraction * t.duration, t.view, size);
  return { three: t, babylon: b };
};
window.ready = true;
