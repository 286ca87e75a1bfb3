/**
 * The viewer's exports: the loaded file with centers of rotation, with template cages, or baked.
 *
 * @module
 */
import { WebIO, type GLTF } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { MeshoptDecoder as MeshoptDecoderIO, MeshoptEncoder } from 'meshoptimizer';
import { isGlb, parseGltfJson } from '../src/io/glb-header.js';
import { extractSkinnedModels, setCentersOfRotation } from '../src/io/gltf.js';
import { vertexLayoutFor } from '../src/io/gltf-write.js';
import { templateRigOf } from '../src/three/index.js';
import { createTemplateDeformer } from '../src/methods/templates/deformer.js';
import type { TemplateRig } from '../src/methods/templates/rig.js';
import { joinTemplateRigParts } from '../src/methods/templates/rig-parts.js';
import { writeTemplateRig } from '../src/methods/templates/storage.js';
import { bakeTemplateClips } from '../src/io/morph-bake.js';
import { type CorSession } from '../src/cor/session.js';
import { centersWithProgress, setStatus, skinnedMeshes, state } from './app.js';
import { templatesView } from './templates-ui.js';
import { sessions } from './paint.js';

/**
 * Precomputes the centers of rotation of every skin of the loaded file (on a worker) and writes
 * them into a copy of it with glTF-Transform; downloads it when `download`.
 */
export async function exportWithCenters(download: boolean): Promise<Uint8Array> {
  const { io, doc } = await readLoaded();
  // Painted weights first (the primitives in the viewer's mesh order), then the centers of the
  // final weights (the painting session's, bit-identical to a recomputation, where there is one).
  let part = 0;
  const painted = new Map<number, CorSession>();
  for (const model of extractSkinnedModels(doc, state.fileName))
    for (const p of model.parts) {
      const s = sessions[part++];
      if (!s || s.mesh.positions.length / 3 !== p.vertexCount) continue;
      const K = s.mesh.influences;
      const j = new Uint16Array(4 * p.vertexCount),
        w = new Float32Array(4 * p.vertexCount);
      for (let i = 0; i < p.vertexCount; i++)
        for (let k = 0; k < Math.min(4, K); k++) {
          j[4 * i + k] = s.mesh.joints[K * i + k];
          w[4 * i + k] = s.mesh.weights[K * i + k];
        }
      const buffer = doc.getRoot().listBuffers()[0];
      p.primitive.setAttribute('JOINTS_0', doc.createAccessor().setType('VEC4').setArray(j).setBuffer(buffer));
      p.primitive.setAttribute('WEIGHTS_0', doc.createAccessor().setType('VEC4').setArray(w).setBuffer(buffer));
      painted.set(part - 1, s);
    }
  part = 0;
  for (const model of extractSkinnedModels(doc, state.fileName)) {
    const mine = model.parts.map(() => painted.get(part++));
    const centers =
      model.parts.length === 1 && mine[0] ? mine[0].centers.slice() : await centersWithProgress(model.mesh, model.name);
    setCentersOfRotation(doc, model, centers, { sigma: 0.1, epsilon: 0.1, method: 'fast' });
  }
  const out = await io.setVertexLayout(vertexLayoutFor(doc)).writeBinary(doc);
  setStatus(`${state.fileName}: centers of rotation computed; exported`);
  if (download) save(out, state.fileName.replace(/\.(glb|gltf)$/i, '') + '-cor.glb', 'model/gltf-binary');
  return out;
}

/** The loaded file (.glb, or .gltf with its buffers and images embedded or given with it) as a glTF-Transform document (for exports). @throws Error for Draco files (no encoder here) */
export async function readLoaded(): Promise<{ io: WebIO; doc: Awaited<ReturnType<WebIO['readBinary']>> }> {
  if (!state.bytes) throw new Error('nothing loaded');
  const json = new TextDecoder().decode(new Uint8Array(state.bytes, 0, Math.min(state.bytes.byteLength, 1 << 20)));
  if (json.includes('KHR_draco_mesh_compression'))
    throw new Error('export of a Draco-compressed file needs the Draco encoder: use the corskin command on it');
  await Promise.all([MeshoptDecoderIO.ready, MeshoptEncoder.ready]);
  const io = new WebIO()
    .registerExtensions(ALL_EXTENSIONS)
    .registerDependencies({ 'meshopt.decoder': MeshoptDecoderIO, 'meshopt.encoder': MeshoptEncoder });
  const bytes = new Uint8Array(state.bytes);
  // A .gltf holds its buffers and images as data URIs, or came with the files its URIs name.
  const doc = isGlb(bytes)
    ? await io.readBinary(bytes)
    : await io.readJSON({ json: parseGltfJson(bytes) as GLTF.IGLTF, resources: { ...state.resources } });
  return { io, doc };
}

/** Downloads `data` as a file. */
export function save(data: Uint8Array | string, name: string, type: string): void {
  const a = Object.assign(document.createElement('a'), {
    href: URL.createObjectURL(new Blob([data as BlobPart], { type })),
    download: name,
  });
  a.click();
}

/**
 * Writes the templates view's rigs into a copy of the loaded file: each skin's cage, binding and
 * template choices (as `corskin templates build` stores them; the viewer and corskin/three reopen
 * it with the same choices), or, `baked`, the templates sampled over every clip as corrective morph
 * targets (a standard glTF any engine plays). A skin's meshes share one rig (their parts are joined
 * back); a skin whose meshes hold rigs of different cages is left out, with its name in the status.
 */
export async function exportTemplates(baked: boolean, download: boolean): Promise<Uint8Array> {
  const { io, doc } = await readLoaded();
  const view = templatesView();
  const meshes = view ? skinnedMeshes(view) : [];
  let part = 0;
  const skipped: string[] = [];
  for (const model of extractSkinnedModels(doc, state.fileName)) {
    // The skin's rig: its meshes' parts joined (they share one cage when the viewer built it).
    const rigs = model.parts.map(() => meshes[part++]).map((m) => m && templateRigOf(m));
    const shared = rigs.every((r) => r && r.cage === rigs[0]!.cage);
    const rig = shared ? joinTemplateRigParts(rigs as TemplateRig[]) : undefined;
    if (!rig) {
      skipped.push(model.name);
      continue;
    }
    if (baked && rig.limbs.length) bakeTemplateClips(doc, model, createTemplateDeformer(rig), { file: state.fileName });
    else writeTemplateRig(doc, model, rig);
  }
  const out = await io.setVertexLayout(vertexLayoutFor(doc)).writeBinary(doc);
  const what = baked ? 'templates baked into morph targets' : 'template cages and choices';
  setStatus(
    `${state.fileName}: exported the ${what}${skipped.length ? `; left out ${skipped.join(', ')} (its meshes hold different template cages)` : ''}`,
  );
  const stem = state.fileName.replace(/\.(glb|gltf)$/i, '');
  if (download) save(out, `${stem}-${baked ? 'baked' : 'cages'}.glb`, 'model/gltf-binary');
  return out;
}
