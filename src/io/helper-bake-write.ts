/**
 * A helper bake written into its glTF document (`helper-bake.ts`): the helper nodes, children of
 * their joints with unit local scale; the skin's inverse bind matrices; each helper's keyed
 * translation and rotation channels on every clip; and the vertices' weights as normalised 16-bit
 * integers.
 *
 * @module
 */
import type { Accessor, Document, Node } from '@gltf-transform/core';
import { helperFrames, SHORT } from '../bake/helper-frames.js';
import type { HelperKeys } from '../bake/key-reduction.js';
import type { SsdrModel } from '../bake/ssdr.js';
import { removeDeltaMush } from '../methods/ddm/storage.js';
import { quantizeWeightSets, removeInfluenceSets } from './gltf-weights.js';
import { clipAnimation } from './gltf-skeleton.js';
import type { SkinnedModel } from './gltf.js';
import { shortestFloat32 } from './gltf-write.js';
import { disposeIfUnused } from './unused.js';
import { COR_ATTRIBUTE, helperJointExtras } from './schema.js';

/**
 * Writes the helpers (nodes, inverse bind matrices, channels) and the weights: the fit's where
 * `own[i]` is 0, the input's own influences as they are (all of them, weights unchanged) elsewhere.
 */
export function writeHelpers(
  document: Document,
  model: SkinnedModel,
  fit: SsdrModel,
  own: Uint8Array,
  keys: HelperKeys[],
  keptKeys: Int32Array[][],
  short: boolean,
  helperRegion: number[],
  helperCentre: number[][],
  clips: { clip: { name: string; source?: number }; times: Float32Array }[],
  file?: string,
): void {
  const { skin, jointNodes, skeleton } = model;
  const J = skeleton.parents.length;
  const skinJoints = jointNodes.length;
  const H = fit.helpers;
  const K = fit.influences;
  const buffer = document.getRoot().listBuffers()[0] ?? document.createBuffer();
  const ibm = skeleton.inverseBindMatrices;
  // Helper nodes: children of their region's joint, bound at their members' centre (`bake/helper-fit.ts`).
  const names = new Set(
    document
      .getRoot()
      .listNodes()
      .map((x) => x.getName()),
  );
  const nodes: Node[] = [];
  // A helper's bind world matrix is its joint's moved to its members' centre, IBM_j⁻¹·T(o) (o:
  // the centre in the joint's frame; `bake/helper-frames.ts`): its skinning matrix is the fitted H
  // either way, and its local transform from the joint at bind is the translation o alone, of unit
  // scale, as the rig's own joints are, and no rotation to write. (Bound at T(c), a helper under an
  // armature scaled 0.01 gets a local scale of 100, which a client whose bones carry no rest scale,
  // such as Blender's importer, cannot play; and under a mirrored bind a local transform of
  // determinant −1, which no rotation and positive scale can hold.)
  const frames = helperFrames(ibm, helperRegion, helperCentre, (j) => `${model.name}: ${skeleton.jointNames[j]}`, file); // prettier-ignore
  for (let h = 0; h < H; h++) {
    const j = helperRegion[h];
    let name = `${skeleton.jointNames[j] || `joint${j}`}_helper${h}`;
    while (names.has(name)) name += '_';
    names.add(name);
    // At the keys' precision (float32, as every player holds a node's transform), in its fewest digits.
    const [x, y, z] = Array.from(frames.offset(h), shortestFloat32);
    const node = document.createNode(name).setTranslation([x, y, z]);
    node.setExtras(helperJointExtras(jointNodes[j].getName()));
    jointNodes[j].addChild(node);
    skin.addJoint(node);
    nodes.push(node);
  }
  // Inverse bind matrices: the old ones, then T(−o)·IBM_j per helper.
  const oldIbm = skin.getInverseBindMatrices();
  const ibms = new Float32Array(16 * (skinJoints + H));
  ibms.set(Float32Array.from(ibm.subarray(0, 16 * skinJoints)));
  for (let h = 0; h < H; h++) ibms.set(frames.inverseBind(h), 16 * (skinJoints + h));
  skin.setInverseBindMatrices(document.createAccessor().setType('MAT4').setArray(ibms).setBuffer(buffer));
  disposeIfUnused(oldIbm);
  // Channels: translation and rotation of every helper at the samples its keys kept (the keys the
  // fit was measured with; rotations as normalized SHORT unless float was asked), one input per
  // set of kept times in a clip.
  let t0 = 0;
  clips.forEach(({ clip, times }, c) => {
    const animation = clipAnimation(document, model, clip, file);
    const inputs = new Map<string, Accessor>();
    for (let h = 0; h < H; h++) {
      const kept = keptKeys[h][c];
      const key = kept.join();
      const input = inputs.get(key) ?? document.createAccessor().setType('SCALAR').setArray(Float32Array.from(kept, (s) => times[s])).setBuffer(buffer); // prettier-ignore
      inputs.set(key, input);
      const translation = new Float32Array(3 * kept.length);
      const part = new Float32Array(4 * kept.length);
      // Each kept rotation on the previous kept one's hemisphere: a player that interpolates
      // components (Blender's importer) plays the short way, as slerp does.
      kept.forEach((s, k) => {
        translation.set(keys[h].translation.subarray(3 * (t0 + s), 3 * (t0 + s) + 3), 3 * k);
        const q = keys[h].rotation.subarray(4 * (t0 + s), 4 * (t0 + s) + 4);
        const dot = k ? q[0] * part[4 * k - 4] + q[1] * part[4 * k - 3] + q[2] * part[4 * k - 2] + q[3] * part[4 * k - 1] : 1; // prettier-ignore
        for (let c = 0; c < 4; c++) part[4 * k + c] = dot < 0 ? -q[c] : q[c];
      });
      const rotation = short ? Int16Array.from(part, (v) => Math.round(v * SHORT)) : part;
      for (const [path, type, data] of [
        ['translation', 'VEC3', translation],
        ['rotation', 'VEC4', rotation],
      ] as const) {
        const sampler = document
          .createAnimationSampler()
          .setInput(input)
          .setOutput(
            document
              .createAccessor()
              .setType(type)
              .setArray(data)
              .setNormalized(data instanceof Int16Array)
              .setBuffer(buffer),
          )
          .setInterpolation('LINEAR');
        animation.addSampler(sampler);
        animation.addChannel(
          document.createAnimationChannel().setTargetNode(nodes[h]).setTargetPath(path).setSampler(sampler),
        );
      }
    }
    t0 += times.length;
  });
  // Weights: JOINTS_n / WEIGHTS_n over the original joints and the helpers, as many sets as the
  // fit's influences or a vertex kept with its own needs; the old precomputed data (centers of
  // rotation, Direct Delta Mush) no longer fits them and is removed.
  const { mesh } = model;
  const influences = (i: number): { j: number; w: number }[] => {
    const out: { j: number; w: number }[] = [];
    if (own[i]) {
      for (let k = mesh.influences * i; k < mesh.influences * (i + 1); k++)
        if (mesh.weights[k] !== 0) out.push({ j: mesh.joints[k], w: mesh.weights[k] });
    } else
      for (let k = K * i; k < K * i + K; k++)
        if (fit.weights[k] > 0) out.push({ j: fit.joints[k] < J ? fit.joints[k] : skinJoints + fit.joints[k] - J, w: fit.weights[k] }); // prettier-ignore
    // Heaviest first: an engine that plays only the first set (three.js) plays the heaviest four.
    return out.sort((a, b) => b.w - a.w);
  };
  let most = K;
  for (let i = 0; i < own.length; i++) if (own[i]) most = Math.max(most, influences(i).length);
  const sets = Math.ceil(most / 4);
  const wide = skinJoints + H > 256;
  for (const part of model.parts) {
    const p = part.primitive;
    removeInfluenceSets(p);
    p.setAttribute(COR_ATTRIBUTE, null);
    removeDeltaMush(p);
    const count = part.vertexCount;
    const js = Array.from({ length: sets }, () => (wide ? new Uint16Array(4 * count) : new Uint8Array(4 * count)));
    const ws = Array.from({ length: sets }, () => new Float32Array(4 * count));
    for (let v = 0; v < count; v++)
      influences(part.vertexOffset + v).forEach(({ j, w }, k) => {
        js[k >> 2][4 * v + (k & 3)] = j;
        ws[k >> 2][4 * v + (k & 3)] = w;
      });
    // Weights as normalised 16-bit integers (half the bytes of floats, within 1.5e-5 each).
    const shorts = quantizeWeightSets(ws);
    // A weight that rounds to 0 leaves no joint behind (glTF: unused joints SHOULD be 0).
    for (let set = 0; set < sets; set++) for (let k = 0; k < js[set].length; k++) if (!shorts[set][k]) js[set][k] = 0;
    for (let set = 0; set < sets; set++) {
      p.setAttribute(`JOINTS_${set}`, document.createAccessor().setType('VEC4').setArray(js[set]).setBuffer(buffer));
      p.setAttribute(`WEIGHTS_${set}`, document.createAccessor().setType('VEC4').setArray(shorts[set]).setNormalized(true).setBuffer(buffer)); // prettier-ignore
    }
  }
}
