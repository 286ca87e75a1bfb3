/**
 * Adding twist joints to a glTF character (Le & Hodgins 2016, Sec. 4, Fig. 5): each named joint's bone is
 * split at its middle by a new joint `<name>_twist` (`<name>_twist_2`, … where that name is taken) that carries the bone's twist, the weights
 * are split with the projection weight, the animations are rewritten so every joint keeps its pose
 * (the skin of a split bone then follows its twist in two steps),
 * and the centers of rotation (when present) are recomputed.
 *
 * @module
 */
import { DEFAULT_EPSILON, DEFAULT_SIGMA } from '../cor/parameters.js';
import type { Accessor, AnimationSampler, Document, Node, vec4 } from '@gltf-transform/core';
import { CorskinError } from '../core/errors.js';
import { mat4FromTRS, mat4Invert, mat4Multiply } from '../core/math.js';
import { bindLocalRotation, splitTwist } from '../core/twist.js';
import { centersOfRotation } from './bake.js';
import { removeDeltaMush } from '../methods/ddm/storage.js';
import { COR_ATTRIBUTE, extractSkinnedModels, type SkinnedModel } from './gltf.js';
import { removeInfluenceSets } from './gltf-weights.js';
import { disposeIfUnused } from './unused.js';

/** What {@link addTwistJoints} did. */
export interface TwistJointReport {
  /** Names of the joints added. */
  added: string[];
  /** Influence slots per vertex afterwards (4, or 8 when a vertex needed a fifth). */
  influences: number;
  /** Vertices that had to drop their smallest influence (all 8 slots taken). */
  droppedInfluences: number;
  /** Whether centers of rotation were recomputed. */
  recomputedCenters: boolean;
}

/**
 * Splits the bone of every joint named in `names` (from the joint to its first child joint).
 * Weight split (Le & Hodgins 2016, Fig. 5): with `e` the vertex's projection parameter on the bone,
 * clamped to [0, 1] (0 at the joint, 1 at the child: the projection weight of Jacobson & Sorkine
 * 2011, Eq. 8), `w_j' = w_j · e` and `w_j ← w_j − w_j'`. The clips' rotations of the joint are
 * split by their twist from the joint's rotation in the bind pose ({@link bindLocalRotation}), and
 * so is its node's own (rest) rotation: the file's rest pose spreads the twist as a clip frame at
 * that pose does, and a frame at the bind pose gives the bind mesh.
 * @throws CorskinError when a name is not a joint or is named twice, the joint has no child joint,
 *   coincides with its child (in its node or in the bind pose) or has a non-uniform scale, or an
 *   animation rotates it with CUBICSPLINE interpolation
 */
export async function addTwistJoints(document: Document, names: string[], file?: string): Promise<TwistJointReport> {
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) throw new CorskinError(`joint "${twice}" is named twice`, file);
  const models = extractSkinnedModels(document, file);
  const report: TwistJointReport = { added: [], influences: 4, droppedInfluences: 0, recomputedCenters: false };
  const found = new Set<string>();
  let recompute: { sigma: number; epsilon: number; method?: 'fast' | 'exact' } | undefined;
  for (const model of models) {
    const targets = names.filter((n) => model.jointNodes.some((j) => j.getName() === n));
    if (!targets.length) continue;
    if (model.parts.some((p) => p.primitive.getAttribute(COR_ATTRIBUTE)))
      recompute = model.corParameters ?? { sigma: DEFAULT_SIGMA, epsilon: DEFAULT_EPSILON };
    for (const part of model.parts) removeDeltaMush(part.primitive); // the weights change
    for (const name of targets) {
      report.added.push(splitJoint(document, model, name, report, file));
      found.add(name);
    }
  }
  const missing = names.filter((n) => !found.has(n));
  if (missing.length)
    throw new CorskinError(`no joint named ${missing.map((m) => `"${m}"`).join(', ')} in any skin`, file);
  if (recompute) {
    await document.transform(centersOfRotation({ ...recompute, file }));
    report.recomputedCenters = true;
  }
  return report;
}

/** Splits joint `name`'s bone (see {@link addTwistJoints}); returns the twist joint's name, unique in the document. */
function splitJoint(
  document: Document,
  model: SkinnedModel,
  name: string,
  report: TwistJointReport,
  file?: string,
): string {
  const joints = model.skin.listJoints();
  const j = joints.findIndex((n) => n.getName() === name);
  const node = joints[j];
  const child = node.listChildren().find((c) => joints.includes(c));
  if (!child) throw new CorskinError(`joint "${name}" has no child joint: its bone has no direction to split`, file);
  const c = joints.indexOf(child);
  const s = node.getScale();
  if (Math.abs(s[0] - s[1]) > 1e-6 || Math.abs(s[1] - s[2]) > 1e-6)
    throw new CorskinError(`joint "${name}" has a non-uniform scale`, file);
  const tc = child.getTranslation();
  const len = Math.hypot(tc[0], tc[1], tc[2]);
  if (!(len > 0)) throw new CorskinError(`joint "${name}" coincides with its child`, file);
  const axis: [number, number, number] = [tc[0] / len, tc[1] / len, tc[2] / len];
  const half: [number, number, number] = [tc[0] / 2, tc[1] / 2, tc[2] / 2];

  // Bind space: joint and child positions, the twist joint's inverse bind matrix.
  // The skin's current inverse bind matrices (earlier splits may have appended some).
  const ibm = Float64Array.from(model.skin.getInverseBindMatrices()?.getArray() ?? model.skeleton.inverseBindMatrices);
  const bind = new Float64Array(32);
  mat4Invert(bind, 0, ibm, 16 * j);
  mat4Invert(bind, 16, ibm, 16 * c);
  const pj = [bind[12], bind[13], bind[14]];
  const pc = [bind[28], bind[29], bind[30]];
  if (!(Math.hypot(pc[0] - pj[0], pc[1] - pj[1], pc[2] - pj[2]) > 0))
    throw new CorskinError(
      `joint "${name}" and its child coincide in the bind pose (does the skin have inverse bind matrices?): its bone has no direction to split`,
      file,
    );
  const local = new Float64Array(16);
  mat4Invert(local, 0, bind, 0);
  mat4Multiply(local, 0, local, 0, bind, 16); // child in the joint's bind frame
  const offset = new Float64Array(16);
  mat4FromTRS(offset, 0, [local[12] / 2, local[13] / 2, local[14] / 2], 0, [0, 0, 0, 1], 0, [1, 1, 1], 0);
  const twistBind = mat4Multiply(new Float64Array(16), 0, bind, 0, offset, 0);
  const twistIbm = new Float64Array(16);
  mat4Invert(twistIbm, 0, twistBind, 0);

  // Node tree: joint → twist → child. A bone split before keeps its twist joint's name for it.
  const taken = new Set(
    document
      .getRoot()
      .listNodes()
      .map((n) => n.getName()),
  );
  let twistName = `${name}_twist`;
  for (let k = 2; taken.has(twistName); k++) twistName = `${name}_twist_${k}`;
  const twist = document
    .createNode(twistName)
    .setTranslation(half)
    .setExtras({ corskin: { twistOf: name } });
  node.addChild(twist);
  node.removeChild(child);
  twist.addChild(child);
  child.setTranslation([tc[0] - half[0], tc[1] - half[1], tc[2] - half[2]]);
  model.skin.addJoint(twist);
  const J = joints.length + 1;
  const newIbm = new Float32Array(16 * J);
  for (let k = 0; k < J - 1; k++) newIbm.set(ibm.subarray(16 * k, 16 * k + 16), 16 * k);
  newIbm.set(twistIbm, 16 * (J - 1));
  const buffer = document.getRoot().listBuffers()[0] ?? document.createBuffer();
  const oldIbm = model.skin.getInverseBindMatrices();
  model.skin.setInverseBindMatrices(document.createAccessor().setType('MAT4').setArray(newIbm).setBuffer(buffer));
  disposeIfUnused(oldIbm);

  splitWeights(document, model, j, J - 1, pj, pc, report);
  // The twist is measured from j's rotation in the bind pose (where the skin is undeformed), not
  // from its node's rest rotation: they differ in real files (the Soldier's arm by 65°).
  const bindRotation = new Float64Array(4);
  bindLocalRotation(bindRotation, 0, model.skeleton, j);
  // The node's own (rest) rotation split the same way, so that the file's rest pose — what an
  // engine shows without a clip, and what a clip leaves unanimated — is split as the clips are.
  const rest = [...node.getRotation()];
  const restTwist = [0, 0, 0, 1];
  splitTwist(rest, 0, bindRotation, axis, restTwist, 0);
  node.setRotation(rest as vec4);
  twist.setRotation(restTwist as vec4);
  splitAnimations(document, node, twist, child, axis, half, bindRotation, file);
  return twistName;
}

/** w_j' = w_j·e, w_j ← w_j − w_j' (e: clamped projection on the bone), per primitive. */
function splitWeights(
  document: Document,
  model: SkinnedModel,
  j: number,
  t: number,
  pj: number[],
  pc: number[],
  report: TwistJointReport,
): void {
  const { mesh } = model;
  let K = mesh.influences;
  const n = mesh.positions.length / 3;
  const d = [pc[0] - pj[0], pc[1] - pj[1], pc[2] - pj[2]];
  const d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
  // Does some vertex need a slot it does not have?
  const need = (i: number) => {
    let free = 0;
    let onJoint = false;
    for (let k = K * i; k < K * i + K; k++) {
      if (mesh.weights[k] === 0) free++;
      else if (mesh.joints[k] === j) onJoint = true;
    }
    return onJoint && free === 0;
  };
  let grow = false;
  for (let i = 0; i < n && !grow; i++) grow = need(i);
  const K2 = grow && K === 4 ? 8 : K;
  const joints = new Uint32Array(K2 * n);
  const weights = new Float32Array(K2 * n);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < K; k++) {
      joints[K2 * i + k] = mesh.joints[K * i + k];
      weights[K2 * i + k] = mesh.weights[K * i + k];
    }
    const v = [mesh.positions[3 * i] - pj[0], mesh.positions[3 * i + 1] - pj[1], mesh.positions[3 * i + 2] - pj[2]];
    const e = Math.min(1, Math.max(0, (v[0] * d[0] + v[1] * d[1] + v[2] * d[2]) / d2));
    for (let k = K2 * i; k < K2 * i + K2; k++) {
      if (joints[k] !== j || weights[k] === 0 || e === 0) continue;
      let slot = -1;
      for (let s = K2 * i; s < K2 * i + K2; s++) if (weights[s] === 0) slot = slot < 0 ? s : slot;
      if (slot < 0) {
        // All slots taken: drop the smallest influence and renormalise.
        let small = K2 * i;
        for (let s = K2 * i; s < K2 * i + K2; s++)
          if (s !== k && (small === k || weights[s] < weights[small])) small = s;
        const dropped = weights[small];
        weights[small] = 0;
        for (let s = K2 * i; s < K2 * i + K2; s++) weights[s] /= 1 - dropped;
        slot = small;
        report.droppedInfluences++;
      }
      const w = weights[k] * e;
      weights[slot] = w;
      joints[slot] = t;
      weights[k] -= w;
      break;
    }
  }
  // A slot the split emptied (the vertex past the child: all its weight to the twist joint) points
  // at joint 0, as glTF asks of unused slots.
  for (let s = 0; s < joints.length; s++) if (weights[s] === 0) joints[s] = 0;
  K = K2;
  report.influences = Math.max(report.influences, K);
  const buffer = document.getRoot().listBuffers()[0] ?? document.createBuffer();
  const J = t + 1;
  for (const part of model.parts) {
    const p = part.primitive;
    removeInfluenceSets(p);
    for (let set = 0; set < K / 4; set++) {
      const js = J <= 256 ? new Uint8Array(4 * part.vertexCount) : new Uint16Array(4 * part.vertexCount);
      const ws = new Float32Array(4 * part.vertexCount);
      for (let i = 0; i < part.vertexCount; i++) {
        for (let k = 0; k < 4; k++) {
          js[4 * i + k] = joints[K * (part.vertexOffset + i) + 4 * set + k];
          ws[4 * i + k] = weights[K * (part.vertexOffset + i) + 4 * set + k];
        }
      }
      p.setAttribute(`JOINTS_${set}`, document.createAccessor().setType('VEC4').setArray(js).setBuffer(buffer));
      p.setAttribute(`WEIGHTS_${set}`, document.createAccessor().setType('VEC4').setArray(ws).setBuffer(buffer));
    }
  }
  mesh.joints = joints;
  mesh.weights = weights;
  mesh.influences = K;
}

/**
 * Rewrites every animation so poses are unchanged: the joint's rotation keys lose half their
 * twist (relative to its rotation in the bind pose, `bindRotation`), which the twist joint gets;
 * the child's translation keys move by the half bone the twist joint now holds.
 */
function splitAnimations(
  document: Document,
  node: Node,
  twist: Node,
  child: Node,
  axis: [number, number, number],
  half: [number, number, number],
  bindRotation: Float64Array,
  file?: string,
): void {
  const buffer = document.getRoot().listBuffers()[0] ?? document.createBuffer();
  for (const anim of document.getRoot().listAnimations()) {
    for (const ch of anim.listChannels()) {
      const sampler = ch.getSampler();
      if (!sampler) continue;
      const target = ch.getTargetNode();
      const output = sampler.getOutput()!;
      if (target === child && ch.getTargetPath() === 'translation') {
        const v = Float32Array.from(output.getArray()!);
        const cubic = sampler.getInterpolation() === 'CUBICSPLINE';
        for (let k = 0; k < v.length / 3; k++) {
          if (cubic && k % 3 !== 1) continue; // tangents are unchanged by a constant offset
          for (let a = 0; a < 3; a++) v[3 * k + a] -= half[a];
        }
        replaceOutput(sampler, document.createAccessor().setType('VEC3').setArray(v).setBuffer(buffer));
      }
      if (target !== node || ch.getTargetPath() !== 'rotation') continue;
      if (sampler.getInterpolation() === 'CUBICSPLINE') {
        throw new CorskinError(
          `joint "${node.getName()}" is rotated by a CUBICSPLINE sampler; twist joints need LINEAR or STEP`,
          file,
        );
      }
      const count = output.getCount();
      const own = new Float32Array(4 * count);
      const tw = new Float32Array(4 * count);
      const q: number[] = [];
      for (let k = 0; k < count; k++) {
        splitTwist(output.getElement(k, q), 0, bindRotation, axis, tw, 4 * k);
        own.set(q, 4 * k);
      }
      replaceOutput(sampler, document.createAccessor().setType('VEC4').setArray(own).setBuffer(buffer));
      const twistSampler = document
        .createAnimationSampler()
        .setInput(sampler.getInput())
        .setInterpolation(sampler.getInterpolation())
        .setOutput(document.createAccessor().setType('VEC4').setArray(tw).setBuffer(buffer));
      anim
        .addSampler(twistSampler)
        .addChannel(
          document.createAnimationChannel().setTargetNode(twist).setTargetPath('rotation').setSampler(twistSampler),
        );
    }
  }
}

/** Sets `sampler`'s output, disposing of the one it had where nothing else uses it. */
function replaceOutput(sampler: AnimationSampler, output: Accessor): void {
  const old = sampler.getOutput();
  sampler.setOutput(output);
  disposeIfUnused(old);
}
