/**
 * The viewer's loading of a file: checked, parsed by three.js's loader, its views made and switched
 * to their methods, with the computations a newer file stops.
 *
 * @module
 */
import * as THREE from 'three';
import type { GLTF } from 'three/addons/loaders/GLTFLoader.js';
import { glbHeaderProblem, isGlb, parseGltfJson } from '../src/io/glb-header.js';
import { computeDirectDeltaMushOnWorker } from '../src/methods/ddm/web-worker.js';
import { meshFromGeometry, useSkinningMethod } from '../src/three/index.js';
import {
  METHODS,
  centersWithProgress,
  gltfLoader,
  isRigJoint,
  params,
  progressJob,
  setStatus,
  settings,
  showProgress,
  state,
} from './app.js';
import { decodeUri, externalUris } from './files.js';
import { rebuildGui } from './gui.js';
import { resetPainting } from './paint.js';
import { frameJoint, updatePose } from './posing.js';
import { applyTemplateParam, selectTemplates } from './templates-ui.js';
import { frame, makeView } from './views.js';

/** Reads the files a `.gltf`'s URIs name (as the glTF writes them), by URI: those it finds. */
export type ReadFiles = (uris: string[]) => Promise<Record<string, Uint8Array<ArrayBuffer>>>;

/**
 * The files a `.gltf` names, read by `read` (none for a .glb or a .gltf whose buffers and images
 * are embedded), after the checks that name what is wrong with bytes that are not a glTF 2.0
 * file (before three.js's loader, whose errors name a typed array or a JSON token).
 * @throws Error naming the problem, or the files a `.gltf` names that `read` did not find
 */
async function resourcesOf(data: ArrayBuffer, read?: ReadFiles): Promise<Record<string, Uint8Array<ArrayBuffer>>> {
  const bytes = new Uint8Array(data);
  if (isGlb(bytes)) {
    const problem = glbHeaderProblem(bytes);
    if (problem) throw new Error(problem);
    return {};
  }
  const uris = externalUris(parseGltfJson(bytes));
  const resources = uris.length && read ? await read(uris) : {};
  const missing = uris.filter((uri) => !Object.hasOwn(resources, uri));
  if (missing.length)
    throw new Error(
      `it refers to ${missing.length === 1 ? 'a file' : 'files'} not given (${missing.map(decodeUri).join(', ')}): pick ${missing.length === 1 ? 'it' : 'them'} together with the .gltf, or drop the folder that holds them`,
    );
  return resources;
}

/** The load in progress: a newer one stops its computations and drops what it would show. */
let currentLoad: AbortController | undefined;

/**
 * Shows `data` (a .glb or .gltf named `name`) in every view: parsed, the views made, the panel
 * rebuilt, then each view switched to its method (CoRs, Direct Delta Mush and template rigs
 * computed on workers, with progress). A newer call stops this one's computations and drops what
 * it would show.
 * @param read reads the files a `.gltf`'s URIs name (its buffers and images), when it names any
 * @throws Error when the bytes are not a glTF file with a skinned mesh, or a `.gltf` names a
 *   file `read` does not find (the loaded one stays shown); what `read` throws
 */
export async function loadBytes(data: ArrayBuffer, name: string, read?: ReadFiles): Promise<void> {
  const [previous, load] = [currentLoad, new AbortController()];
  currentLoad = load;
  const live = () => currentLoad === load;
  setStatus(`loading ${name}…`);
  let parsed: GLTF;
  let resources: Record<string, Uint8Array<ArrayBuffer>>;
  try {
    resources = await resourcesOf(data, read);
    const { loader, done } = gltfLoader(resources);
    try {
      parsed = await loader.parseAsync(data, '');
    } finally {
      done();
    }
    let skinned = false;
    parsed.scene.traverse((o) => (skinned ||= (o as THREE.SkinnedMesh).isSkinnedMesh === true));
    if (!skinned) throw new Error('no skinned mesh (no node has both a mesh and a skin): nothing to compare');
  } catch (e) {
    // A file that does not load changes nothing: the one being loaded goes on.
    if (live()) currentLoad = previous;
    throw e;
  }
  if (!live()) return;
  previous?.abort();
  state.corsReady = false;
  state.progress.clear();
  state.bytes = data;
  state.resources = resources;
  state.fileName = name;
  state.gltf = parsed;
  resetPainting();
  for (const v of state.views) {
    v.label.remove();
    v.scene.clear();
  }
  state.views = METHODS.map((method) => makeView(method, state.gltf!));
  state.restQuaternions = new Map();
  state.views[0].root.traverse((o) => state.restQuaternions.set(o, o.quaternion.clone()));
  state.duration = Math.max(0, ...state.gltf.animations.map((a) => a.duration));
  // An index names a clip (`--animation 0`); an empty name is no clip, not clip 0.
  const byIndex = settings.animation.trim() === '' ? undefined : state.gltf.animations[Number(settings.animation)];
  if (byIndex && !state.gltf.animations.some((a) => a.name === settings.animation)) settings.animation = byIndex.name;
  // The first clip plays unless a pose was asked for without a clip (the stress pose lies under
  // the clip: with one playing, it would not show).
  const clipAsked = params.has('animation') || params.has('time');
  if (!state.gltf.animations.some((a) => a.name === settings.animation))
    settings.animation = settings.pose === 'rest' || clipAsked ? (state.gltf.animations[0]?.name ?? '') : '';
  const bones: string[] = [];
  state.views[0].root.traverse((o) => isRigJoint(o) && bones.push(o.name));
  if (!bones.includes(settings.joint)) settings.joint = bones[Math.min(2, bones.length - 1)] ?? '';
  rebuildGui(bones);
  frame(state.views[0]);
  setStatus(`${name}: switching to DQS, CoR, DDM and templates…`);
  const warnings: string[] = [];
  const { signal } = load;
  try {
    await Promise.all(
      state.views.map((v) =>
        useSkinningMethod(v.root, v.method, {
          computeCenters: (m) => centersWithProgress(meshFromGeometry(m), name, signal),
          // Direct Delta Mush the file lacks: computed on corskin's Web Worker, with progress.
          computeDeltaMush: (m) => {
            const what = `${name}: no Direct Delta Mush data in the file (corskin precompute --method ddm stores it): computing it`;
            if (live()) setStatus(`${what}…`);
            progressJob(what, m);
            return computeDirectDeltaMushOnWorker(meshFromGeometry(m), {
              onProgress: (done, total) => live() && showProgress(what, done, total, m),
              signal,
            });
          },
          onProgress: (mesh, done, total, what) => live() && showProgress(`${name}: ${what}`, done, total, mesh),
          onWarning: (_, message) => warnings.push(message),
        }),
      ),
    );
  } catch (e) {
    if (live()) throw e;
  }
  if (!live()) return; // another file was opened meanwhile: it is the one shown
  applyTemplateParam();
  selectTemplates();
  if (params.get('frame') === 'joint') {
    state.views.forEach(updatePose);
    frameJoint();
  }
  state.corsReady = true;
  state.progress.clear(); // the load's jobs: none of them is shown after it
  setStatus(
    warnings.length
      ? `${name}: ready — ⚠ ${warnings.join('; ')}: drag cage vertices out around them`
      : `${name}: ready — drop another .glb to compare on it`,
  );
}
