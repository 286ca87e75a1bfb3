/**
 * `corskin weights`: bind a mesh to a skeleton with automatic (Shepard) weights.
 * @module
 */
import type { Document, Node } from '@gltf-transform/core';
import { CorskinError } from '../core/errors.js';
import { buildSkinnedDocument } from '../io/convert.js';
import { checkNotOverwritingInput, checkOutputPath } from '../io/files.js';
import { removeDeltaMush } from '../methods/ddm/storage.js';
import { COR_ATTRIBUTE, extractSkinnedModels, jointBoneSegments } from '../io/gltf.js';
import { removeInfluenceSets } from '../io/gltf-weights.js';
import { readDocument, writeDocument } from '../io/node-io.js';
import { readObj, readTgf } from '../io/libigl.js';
import { optionalDependency } from '../io/optional.js';
import { boneSegments, shepardWeights } from '../weights/shepard.js';
import { checkStoredFloats } from './convert.js';
import type { Io } from './ui.js';

/** Options of {@link weightsCommand}. */
export interface WeightsOptions {
  skeleton?: string;
  method: 'shepard';
  dropRate: number;
  influences: '4' | '8';
  output: string;
  force?: boolean;
}

/** Runs `corskin weights`. @throws CorskinError on bad input */
export async function weightsCommand(io: Io, input: string, o: WeightsOptions): Promise<void> {
  checkOutputPath(o.output, ['.glb', '.gltf']);
  checkNotOverwritingInput(o.output, [input, ...(o.skeleton ? [o.skeleton] : [])], !!o.force);
  const K = Number(o.influences) as 4 | 8;
  if (/\.obj$/i.test(input)) {
    if (!o.skeleton) throw new CorskinError('an OBJ mesh needs --skeleton BONES.tgf', input);
    const mesh = await readObj(input);
    const tgf = await readTgf(o.skeleton);
    const B = tgf.bones.length / 2;
    if (B === 0) throw new CorskinError('the skeleton has no bone (no edge section)', o.skeleton);
    const P = tgf.joints;
    const segs = boneSegments(
      Array.from({ length: B }, (_, b) => {
        const [h, t] = [tgf.bones[2 * b], tgf.bones[2 * b + 1]];
        return [[P[3 * h], P[3 * h + 1], P[3 * h + 2], P[3 * t], P[3 * t + 1], P[3 * t + 2]]];
      }),
    );
    const w = shepardWeights(mesh.positions, segs, { dropRate: o.dropRate, influences: K });
    // Dense n × B matrix (column-major) for the converter, which keeps the K largest again.
    const n = mesh.positions.length / 3;
    const dense = new Float64Array(n * B);
    for (let i = 0; i < n; i++) for (let k = 0; k < K; k++) dense[i + n * w.joints[K * i + k]] += w.weights[K * i + k];
    const name = input
      .split(/[\\/]/)
      .pop()!
      .replace(/\.obj$/i, '');
    const { document, report } = buildSkinnedDocument({
      mesh,
      skeleton: tgf,
      weights: { rows: n, cols: B, data: dense },
      influences: K,
      name,
      files: { mesh: input, skeleton: o.skeleton },
    });
    checkStoredFloats(document, { mesh: input, skeleton: o.skeleton });
    await writeDocument(document, o.output, { inputs: [input, ...(o.skeleton ? [o.skeleton] : [])], force: o.force });
    io.out(
      `wrote ${o.output}: ${report.vertices} vertices bound to ${B} bones with Shepard weights (drop rate ${o.dropRate}, ${K} influences)`,
    );
    return;
  }
  if (o.skeleton) throw new CorskinError('a glTF input uses its own skin; --skeleton is for OBJ meshes', o.skeleton);
  const document = await readDocument(input);
  const bound = await bindUnskinnedMeshes(document, input);
  let vertices = 0;
  for (const model of extractSkinnedModels(document, input)) {
    const segs = boneSegments(jointBoneSegments(model, input));
    const w = shepardWeights(model.mesh.positions, segs, { dropRate: o.dropRate, influences: K });
    const small = model.jointNodes.length <= 256;
    const buffer = document.getRoot().listBuffers()[0] ?? document.createBuffer();
    for (const part of model.parts) {
      const p = part.primitive;
      removeInfluenceSets(p); // all of them: a 16-influence character has four
      p.setAttribute(COR_ATTRIBUTE, null);
      removeDeltaMush(p);
      const extras = { ...(p.getExtras() as Record<string, unknown>) };
      delete extras.corskin;
      p.setExtras(extras);
      for (let set = 0; set < K / 4; set++) {
        const c = part.vertexCount;
        const js = small ? new Uint8Array(4 * c) : new Uint16Array(4 * c);
        const ws = new Float32Array(4 * c);
        for (let i = 0; i < c; i++) {
          for (let k = 0; k < 4; k++) {
            const src = K * (part.vertexOffset + i) + 4 * set + k;
            ws[4 * i + k] = w.weights[src];
            js[4 * i + k] = w.weights[src] === 0 ? 0 : w.joints[src]; // an unused slot points at joint 0
          }
        }
        p.setAttribute(`JOINTS_${set}`, document.createAccessor().setType('VEC4').setArray(js).setBuffer(buffer));
        p.setAttribute(`WEIGHTS_${set}`, document.createAccessor().setType('VEC4').setArray(ws).setBuffer(buffer));
      }
    }
    vertices += model.mesh.positions.length / 3;
  }
  await writeDocument(document, o.output, { inputs: [input, ...(o.skeleton ? [o.skeleton] : [])], force: o.force });
  io.out(
    `wrote ${o.output}: ${vertices} vertices weighted with Shepard weights (drop rate ${o.dropRate}, ${K} influences)` +
      (bound ? `; ${bound} mesh node${bound === 1 ? '' : 's'} bound to the skin` : ''),
  );
}

/**
 * Binds every mesh node without a skin to the document's first skin (when no node is skinned):
 * its positions and normals go to world space (the bind space of a skin whose inverse bind
 * matrices invert the joints' world matrices), the node moves to the scene root with an identity
 * transform, and placeholder influences are set for the weights to overwrite.
 * @returns number of nodes bound
 * @throws CorskinError when the document has no skin at all
 */
async function bindUnskinnedMeshes(document: Document, file: string): Promise<number> {
  const root = document.getRoot();
  if (root.listNodes().some((n) => n.getSkin() && n.getMesh())) return 0;
  const skin = root.listSkins()[0];
  if (!skin) throw new CorskinError('no skin (skeleton) to bind to; for an OBJ mesh use --skeleton BONES.tgf', file);
  const buffer = root.listBuffers()[0] ?? document.createBuffer();
  const nodes = root.listNodes().filter((n) => n.getMesh());
  if (!nodes.length) throw new CorskinError('no mesh to bind', file);
  const { clearNodeParent, transformPrimitive } = await optionalDependency(
    import('@gltf-transform/functions'),
    '@gltf-transform/functions',
    'corskin weights',
  );
  for (const node of nodes as Node[]) {
    const matrix = node.getWorldMatrix();
    // Vertex data of this node's own (a mesh or accessor may be shared with another node): then
    // positions, normals and tangents (morph targets too) to world space, normals by the inverse
    // transpose.
    const shared = node
      .getMesh()!
      .listParents()
      .some((p) => p !== node && p.propertyType === 'Node');
    const mesh = shared ? node.getMesh()!.clone() : node.getMesh()!;
    node.setMesh(mesh);
    for (const prim of mesh.listPrimitives()) {
      const own = prim.clone();
      for (const target of own.listTargets()) {
        own.removeTarget(target);
        own.addTarget(target.clone()); // re-added in order: the target order is kept
      }
      for (const part of [own, ...own.listTargets()])
        for (const name of part.listSemantics()) part.setAttribute(name, part.getAttribute(name)!.clone());
      transformPrimitive(own, matrix);
      const count = own.getAttribute('POSITION')?.getCount() ?? 0;
      const w = new Float32Array(4 * count);
      for (let i = 0; i < count; i++) w[4 * i] = 1;
      own.setAttribute(
        'JOINTS_0',
        document
          .createAccessor()
          .setType('VEC4')
          .setArray(new Uint8Array(4 * count))
          .setBuffer(buffer),
      );
      own.setAttribute('WEIGHTS_0', document.createAccessor().setType('VEC4').setArray(w).setBuffer(buffer));
      mesh.swap(prim, own);
    }
    clearNodeParent(node); // to the scene root
    node.setTranslation([0, 0, 0]).setRotation([0, 0, 0, 1]).setScale([1, 1, 1]).setSkin(skin);
  }
  return nodes.length;
}
