// Shared by the GPU parity pages: the capture geometry (every vertex three times, as a tiny
// triangle around its own pixel of a W-wide float render target) and the CPU reference.
// Package specifiers: the pages map them to dist/ with an import map, the bundler test resolves
// them from the packed package.
import { createTemplateDeformer, deformers, limitInfluences, setDdmModel } from 'corskin';
import {
  bindSpaceSkinningMatrices,
  deltaMushOf,
  isCageObject,
  meshFromGeometry,
  setSkinningTemplate,
  templateRigOf,
} from 'corskin/three';

export const W = 256;

/**
 * The capture geometry of a skinned mesh: attributes copied three times (corner 0, 1, 2), plus
 * `corner` and `vid` (the vertex index); triangle i = (i, n + i, 2n + i).
 */
export function captureGeometry(THREE, mesh) {
  const src = mesh.geometry;
  const n = src.getAttribute('position').count;
  const g = new THREE.BufferGeometry();
  // getComponent decodes normalized integers: those become floats; integer indices stay integers.
  const triple = (a) => {
    const c = a.itemSize;
    const Type = a.normalized || a.array.constructor === Float64Array ? Float32Array : a.array.constructor;
    const arr = new Type(3 * n * c);
    for (let copy = 0; copy < 3; copy++)
      for (let i = 0; i < n; i++) for (let k = 0; k < c; k++) arr[(copy * n + i) * c + k] = a.getComponent(i, k);
    return new THREE.BufferAttribute(arr, c);
  };
  for (const [name, a] of Object.entries(src.attributes)) g.setAttribute(name, triple(a));
  for (const [name, list] of Object.entries(src.morphAttributes)) g.morphAttributes[name] = list.map(triple);
  g.morphTargetsRelative = src.morphTargetsRelative;
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
  if (mesh.morphTargetInfluences) cap.morphTargetInfluences = mesh.morphTargetInfluences;
  // Same world matrix as the original: an 'attached' skinned mesh takes its bindMatrixInverse
  // from its world matrix, so both then output the same object space.
  cap.matrixAutoUpdate = false;
  cap.matrix.copy(mesh.matrixWorld);
  cap.frustumCulled = false;
  return cap;
}

/**
 * corskin's view of the mesh as the GPU skins it with `method`: for templates all its influences
 * (the rig's linear part names them), else the 16 largest (every influence of the shared
 * characters: the chicken has 16); its centers of rotation if it has them;
 * for Direct Delta Mush the model it renders with.
 */
function cpuMesh(mesh, method) {
  const data = method === 'templates' ? meshFromGeometry(mesh) : limitInfluences(meshFromGeometry(mesh), 16).mesh;
  const cor = mesh.geometry.getAttribute('_center_of_rotation');
  if (cor) data.centersOfRotation = Float32Array.from(cor.array);
  if (method === 'ddm') setDdmModel(data, deltaMushOf(mesh)); // the model the mesh renders with
  return data;
}

/**
 * corskin's CPU deformer for `method` (for templates, that of the very rig the mesh renders with)
 * on the mesh's current pose, into `out`; returns the bind-space skinning matrices.
 */
function deformOnCpu(mesh, method, data, out) {
  mesh.skeleton.update();
  const S = bindSpaceSkinningMatrices(mesh);
  (method === 'templates' ? createTemplateDeformer(templateRigOf(mesh)) : deformers[method])(data, S, out);
  return S;
}

/**
 * Max |GPU − CPU| / bbox diagonal of corskin's CPU deformer on the mesh's current pose, and
 * (`vsLbs`) max |GPU − CPU LBS| / diagonal: how far the picture is from LBS.
 */
export function compareWithCpu(THREE, mesh, method, out, n) {
  const gpu = new Float32Array(3 * n);
  for (let i = 0; i < n; i++) gpu.set(out.subarray(4 * i, 4 * i + 3), 3 * i);
  const data = cpuMesh(mesh, method);
  // Morph targets (relative, as GLTFLoader makes them) before skinning.
  const morphs = mesh.geometry.morphAttributes.position ?? [];
  const rest = data.positions.slice();
  data.positions = data.positions.slice();
  morphs.forEach((m, t) => {
    const w = mesh.morphTargetInfluences?.[t] ?? 0;
    if (w)
      for (let i = 0; i < n; i++) for (let k = 0; k < 3; k++) data.positions[3 * i + k] += w * m.getComponent(i, k);
  });
  const cpu = new Float32Array(3 * n);
  const S = deformOnCpu(mesh, method, data, { positions: cpu });
  const lbs = new Float32Array(3 * n);
  deformers.lbs(data, S, { positions: lbs });
  let err = 0;
  let vsLbs = 0;
  let meanVsLbs = 0;
  let moved = 0;
  let bad = 0;
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < cpu.length; i++) {
    const e = Math.abs(cpu[i] - gpu[i]);
    if (!(e <= err)) err = Number.isNaN(e) ? Infinity : Math.max(err, e);
    if (!Number.isFinite(gpu[i])) bad++;
    vsLbs = Math.max(vsLbs, Math.abs(lbs[i] - gpu[i]));
    meanVsLbs += Math.abs(lbs[i] - gpu[i]) / cpu.length;
    moved = Math.max(moved, Math.abs(cpu[i] - rest[i])); // the pose is not the bind pose
    lo[i % 3] = Math.min(lo[i % 3], cpu[i]);
    hi[i % 3] = Math.max(hi[i % 3], cpu[i]);
  }
  const diag = Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
  return {
    error: err / diag,
    moved: moved / diag,
    vsLbs: vsLbs / diag,
    meanVsLbs: meanVsLbs / diag,
    vertices: n,
    nonFinite: bad,
  };
}

/**
 * Per vertex the angle (rad) between the GPU's skinned normal (RGB of `out`, unnormalised) and
 * corskin's CPU deformer's for `method` on the mesh's current pose (no morph targets); a
 * non-finite GPU normal counts as π.
 */
export function normalAngles(mesh, method, out, n) {
  const cpu = { positions: new Float32Array(3 * n), normals: new Float32Array(3 * n) };
  deformOnCpu(mesh, method, cpuMesh(mesh, method), cpu);
  const angles = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const g = out.subarray(4 * i, 4 * i + 3);
    const c = cpu.normals.subarray(3 * i, 3 * i + 3);
    const lg = Math.hypot(g[0], g[1], g[2]);
    const lc = Math.hypot(c[0], c[1], c[2]);
    const cos = (g[0] * c[0] + g[1] * c[1] + g[2] * c[2]) / (lg * lc);
    angles[i] = Number.isFinite(cos) ? Math.acos(Math.max(-1, Math.min(1, cos))) : Math.PI;
  }
  return Array.from(angles);
}

/** Every skinned mesh of a glTF (traversal order) but corskin's cage nodes. */
export function skinnedMeshes(gltf) {
  const list = [];
  gltf.scene.traverse((o) => o.isSkinnedMesh && !isCageObject(o) && list.push(o));
  return list;
}

/** Loads a glTF and returns it with its skinned meshes. */
export async function loadSkinned(GLTFLoader, url) {
  const gltf = await new GLTFLoader().loadAsync(url);
  return { gltf, meshes: skinnedMeshes(gltf) };
}

/** Sets morph target influences by target name on every mesh that has them. */
export function setMorphs(gltf, morphs) {
  gltf.scene.traverse((o) => {
    if (!o.morphTargetDictionary) return;
    for (const [name, w] of Object.entries(morphs)) {
      const t = o.morphTargetDictionary[name];
      if (t !== undefined) o.morphTargetInfluences[t] = w;
    }
  });
}

/** How many distinct template cages the meshes' rigs have (the parts of one skin share one). */
export function cageCount(meshes) {
  return new Set(meshes.map((m) => templateRigOf(m)?.cage).filter(Boolean)).size;
}

/** Switches templates by joint name after `useSkinningMethod(…, 'templates')`: [[joint, id], …]. */
export function switchTemplates(gltf, switches) {
  for (const [joint, id] of switches)
    if (!setSkinningTemplate(gltf.scene, joint, id)) throw new Error(`no mesh has a template at ${joint}`);
}

/** Worst of the per-mesh comparisons: largest error, largest motion, total vertices (and the mean distance from LBS over all vertices). */
export function worst(results) {
  const total = results.reduce((t, r) => t + r.vertices, 0);
  return results.reduce(
    (a, r) => ({
      error: Math.max(a.error, r.error),
      moved: Math.max(a.moved, r.moved),
      vsLbs: Math.max(a.vsLbs, r.vsLbs),
      meanVsLbs: a.meanVsLbs + (r.meanVsLbs * r.vertices) / total,
      vertices: a.vertices + r.vertices,
      nonFinite: a.nonFinite + r.nonFinite,
      meshes: a.meshes + 1,
    }),
    { error: 0, moved: 0, vsLbs: 0, meanVsLbs: 0, vertices: 0, nonFinite: 0, meshes: 0 },
  );
}

/**
 * Poses the scene at `time` of its first clip and renders it once (which updates the skeleton
 * and corskin's joint texture) with `renderer`.
 */
export function renderPosed(THREE, renderer, gltf, time) {
  if (time >= 0) {
    const mixer = new THREE.AnimationMixer(gltf.scene);
    if (gltf.animations[0]) mixer.clipAction(gltf.animations[0]).play();
    mixer.setTime(time);
  }
  gltf.scene.traverse((o) => (o.frustumCulled = false)); // every mesh's onBeforeRender runs
  gltf.scene.updateMatrixWorld(true);
  // time < 0: the bind pose, every joint where its inverse bind matrix puts it.
  if (time < 0) gltf.scene.traverse((o) => o.isSkinnedMesh && o.skeleton.pose());
  const camera = new THREE.PerspectiveCamera(45, 1, 0.01, 100);
  camera.position.set(0, 1, 4);
  renderer.render(gltf.scene, camera);
}
