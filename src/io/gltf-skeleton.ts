/**
 * Reading a skin's skeleton and animations from glTF: the joint nodes with the animated
 * ancestors that drive them, the skeleton (rest transforms, inverse bind matrices), and the
 * clips restricted to what moves the skin (joints and morph weights).
 *
 * @module
 */
import type {
  Accessor,
  Animation,
  AnimationChannel as AnimationChannel_,
  Document,
  Node,
  Skin,
} from '@gltf-transform/core';
import type { AnimationChannel, AnimationClip, Interpolation } from '../core/animation.js';
import { CorskinError } from '../core/errors.js';
import { mat4FromTRS, mat4Multiply } from '../core/math.js';
import type { MorphChannel, MorphGroup } from '../core/morph.js';
import { createSkeleton, type Skeleton } from '../core/skeleton.js';
import { isHelperJointExtras } from './schema.js';

/**
 * The skin's joints, plus — after them — every non-joint ancestor on a joint's parent chain
 * that some animation moves (a root-motion armature node) together with the rest of that
 * chain, so animations drive it like a joint; the other non-joint ancestors fold into fixed
 * pre-transforms.
 * @throws CorskinError naming the node when the node hierarchy has a cycle
 */
export function skeletonNodes(document: Document, jointNodes: Node[], file?: string): Node[] {
  const animated = new Set<Node>();
  for (const anim of document.getRoot().listAnimations())
    for (const ch of anim.listChannels()) {
      const n = ch.getTargetNode();
      if (n && ch.getTargetPath() !== 'weights') animated.add(n);
    }
  const joints = new Set(jointNodes);
  const helpers: Node[] = [];
  const included = new Set<Node>(jointNodes);
  for (const node of jointNodes) {
    const chain = ancestorsUntil(node, joints, file);
    if (!chain.some((a) => animated.has(a))) continue;
    for (const a of chain) {
      if (included.has(a)) continue;
      included.add(a);
      helpers.push(a);
    }
  }
  return [...jointNodes, ...helpers];
}

/** The ancestors of `node` up to (without) the first one in `stop`, nearest first. */
function ancestorsUntil(node: Node, stop: Set<Node>, file?: string): Node[] {
  const chain: Node[] = [];
  const seen = new Set<Node>([node]);
  for (let a = node.getParentNode(); a && !stop.has(a); a = a.getParentNode()) {
    if (seen.has(a)) throw new CorskinError(`the node hierarchy has a cycle through node "${a.getName()}"`, file);
    seen.add(a);
    chain.push(a);
  }
  return chain;
}

/**
 * The skeleton of a glTF skin: per node of `nodes` ({@link skeletonNodes}: the skin's J joints
 * first, then the animated ancestors that drive them), its rest translation, rotation (x, y, z, w)
 * and scale as the file stores them (local space), its parent (an index into `nodes`, −1 at a
 * root), the fixed pre-transform of the non-skeleton ancestors between it and that parent (4×4
 * column-major), and its inverse bind matrix (4×4 column-major, from the skin's accessor; the
 * identity where the skin has none, and for the ancestors after the joints).
 * @param jointNodes the skin's joints, in its order (J)
 * @param file named in errors
 * @throws CorskinError when the inverse bind matrices are fewer than J or not MAT4, or one is
 *   not finite, or the node hierarchy has a cycle
 */
export function extractSkeleton(skin: Skin, jointNodes: Node[], nodes: Node[], file?: string): Skeleton {
  const J = jointNodes.length;
  const N = nodes.length;
  const index = new Map<Node, number>(nodes.map((n, j) => [n, j]));
  const included = new Set(nodes);
  const parents = new Int32Array(N).fill(-1);
  const pre = new Float64Array(16 * N);
  const local = new Float64Array(16);
  const t = new Float64Array(3 * N);
  const r = new Float64Array(4 * N);
  const s = new Float64Array(3 * N);
  for (let j = 0; j < N; j++) {
    const node = nodes[j];
    t.set(node.getTranslation(), 3 * j);
    r.set(node.getRotation(), 4 * j);
    s.set(node.getScale(), 3 * j);
    pre.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], 16 * j);
    const chain = ancestorsUntil(node, included, file);
    for (const a of chain) {
      mat4FromTRS(local, 0, a.getTranslation(), 0, a.getRotation(), 0, a.getScale(), 0);
      mat4Multiply(pre, 16 * j, local, 0, pre, 16 * j);
    }
    const top = (chain.length ? chain[chain.length - 1] : node).getParentNode();
    if (top) parents[j] = index.get(top)!;
  }
  const ibmAcc = skin.getInverseBindMatrices();
  let ibm: Float64Array | undefined;
  if (ibmAcc) {
    if (ibmAcc.getCount() < J || ibmAcc.getType() !== 'MAT4') {
      throw new CorskinError(`skin "${skin.getName()}": inverseBindMatrices must hold ${J} MAT4 elements`, file);
    }
    ibm = new Float64Array(16 * N);
    const el: number[] = [];
    for (let j = 0; j < J; j++) ibm.set(ibmAcc.getElement(j, el), 16 * j);
    for (let j = 0; j < 16 * J; j++) {
      if (!Number.isFinite(ibm[j]))
        throw new CorskinError(
          `skin "${skin.getName()}": the inverse bind matrix of joint "${jointNodes[j >> 4].getName()}" is not finite`,
          file,
        );
    }
    for (let j = J; j < N; j++) ibm.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], 16 * j);
  }
  return createSkeleton({
    jointNames: nodes.map((n, j) => n.getName() || `joint${j}`),
    skinJoints: J,
    parents,
    preTransforms: pre,
    inverseBindMatrices: ibm,
    restTranslations: t,
    restRotations: r,
    restScales: s,
    helpers: Uint8Array.from(nodes, (n) => (isHelperJointExtras(n.getExtras()) ? 1 : 0)),
  });
}

/**
 * The clips of `document` restricted to what moves the skin: per animation, the translation,
 * rotation and scale channels of `skeletonNodes` (joint indices into it; key times in seconds,
 * values as stored, local space) and the morph-weight channels of the meshes in `groupOfNode`; an
 * animation with none of those is left out. Channels of other nodes and paths are counted in
 * `ignored.channels` (weights channels of meshes outside the skin not counted).
 * @param groupOfNode per mesh node, its morph group (an index into `groups`)
 * @param warnings receives a line per animation that targets a node and path more than once
 *   (corskin plays the last channel), and per weights channel of the wrong length (then ignored)
 * @param file named in errors
 * @throws CorskinError naming the animation, node and path when key times are not finite and
 *   ascending, a key value is not finite, a channel's output count does not match its keys and
 *   interpolation, or a rotation key is zero
 */
export function extractAnimations(
  document: Document,
  skeletonNodes: Node[],
  groupOfNode: Map<Node, number>,
  groups: MorphGroup[],
  warnings: string[],
  ignored: { channels: number },
  file?: string,
): AnimationClip[] {
  const index = new Map<Node, number>(skeletonNodes.map((n, j) => [n, j]));
  const clips: AnimationClip[] = [];
  let ignoredChannels = 0;
  for (const [a, anim] of document.getRoot().listAnimations().entries()) {
    const shadowed = shadowedChannels(anim);
    if (shadowed.length)
      warnings.push(
        `animation "${anim.getName() || `animation ${a}`}" targets ${describeTargets(shadowed)} more than once (glTF allows one channel per node and path): corskin plays the last channel of each (three.js averages them; a bake writes only the last)`,
      );
    const channels: AnimationChannel[] = [];
    const morphChannels: MorphChannel[] = [];
    let duration = 0;
    for (const ch of anim.listChannels()) {
      const node = ch.getTargetNode();
      const path = ch.getTargetPath();
      const sampler = ch.getSampler();
      const joint = node ? index.get(node) : undefined;
      const group = node && path === 'weights' ? groupOfNode.get(node) : undefined;
      if (
        !sampler ||
        (group === undefined &&
          (joint === undefined || (path !== 'translation' && path !== 'rotation' && path !== 'scale')))
      ) {
        if (path !== 'weights' || !node?.getMesh()) ignoredChannels++;
        continue;
      }
      const input = sampler.getInput()!;
      const output = sampler.getOutput()!;
      const times = new Float32Array(input.getCount());
      readFloats(input, times, 0, 1);
      const comps = output.getElementSize();
      const values = new Float32Array(output.getCount() * comps);
      readFloats(output, values, 0, comps);
      if (times.length) duration = Math.max(duration, times[times.length - 1]);
      const interpolation = sampler.getInterpolation() as Interpolation;
      const where = `animation "${anim.getName() || a}", channel on node "${node?.getName()}" (${path})`;
      for (let k = 0; k < times.length; k++) {
        if (!Number.isFinite(times[k]) || (k > 0 && times[k] < times[k - 1]))
          throw new CorskinError(`${where}: key times must be finite and ascending (key ${k})`, file);
      }
      for (let k = 0; k < values.length; k++)
        if (!Number.isFinite(values[k])) throw new CorskinError(`${where}: key value ${k} is not finite`, file);
      if (group === undefined) {
        const c = path === 'rotation' ? 4 : 3;
        const need = (interpolation === 'CUBICSPLINE' ? 3 : 1) * c * times.length;
        if (values.length !== need)
          throw new CorskinError(
            `${where}: ${interpolation} needs ${need} output values for ${times.length} keys, has ${values.length}`,
            file,
          );
        // The key values only: a CUBICSPLINE key is (in-tangent, value, out-tangent), and a zero
        // tangent (a flat curve) is valid.
        const cubic = interpolation === 'CUBICSPLINE';
        if (path === 'rotation')
          for (let k = 0; k < times.length; k++) {
            const o = 4 * (cubic ? 3 * k + 1 : k);
            if (Math.hypot(values[o], values[o + 1], values[o + 2], values[o + 3]) < 1e-6)
              throw new CorskinError(`${where}: rotation key ${k} is zero, not a rotation`, file);
          }
      }
      if (group !== undefined) {
        // Weights outputs are scalars: T per key (3·T for CUBICSPLINE).
        const T = groups[group].weights.length;
        const perKey = (interpolation === 'CUBICSPLINE' ? 3 : 1) * T;
        if (values.length !== perKey * times.length) {
          warnings.push(
            `animation "${anim.getName()}": a weights channel has ${values.length} values for ${times.length} keys × ${T} targets; ignored`,
          );
          continue;
        }
        morphChannels.push({ group, interpolation, times, values });
      } else channels.push({ joint: joint!, path: path as AnimationChannel['path'], interpolation, times, values });
    }
    if (channels.length || morphChannels.length)
      clips.push({ name: anim.getName() || `animation ${a}`, source: a, duration, channels, morphChannels });
  }
  ignored.channels = ignoredChannels;
  return clips;
}

/**
 * The channels of an animation that a later channel of the same node and path overrides (glTF
 * 2.0 §3.11 allows one per target; corskin plays the last), in channel order.
 */
export function shadowedChannels(animation: Animation): AnimationChannel_[] {
  const last = new Map<string, AnimationChannel_>();
  const ids = new Map<Node, number>();
  const key = (ch: AnimationChannel_) => {
    const node = ch.getTargetNode();
    if (!node) return undefined;
    if (!ids.has(node)) ids.set(node, ids.size);
    return `${ids.get(node)} ${ch.getTargetPath()}`;
  };
  for (const ch of animation.listChannels()) {
    const k = key(ch);
    if (k !== undefined) last.set(k, ch);
  }
  return animation.listChannels().filter((ch) => {
    const k = key(ch);
    return k !== undefined && last.get(k) !== ch;
  });
}

/** "node "A" (rotation), node "B" (translation) and 3 more" for channels' targets. */
function describeTargets(channels: AnimationChannel_[]): string {
  const targets = [...new Set(channels.map((ch) => `node "${ch.getTargetNode()!.getName()}" (${ch.getTargetPath()})`))];
  const shown = targets.slice(0, 3).join(', ');
  return targets.length > 3 ? `${shown} and ${targets.length - 3} more` : shown;
}

/**
 * Removes from every animation the channels that a later channel of the same node and path
 * overrides ({@link shadowedChannels}), and their samplers when nothing else uses them, so the
 * document is valid glTF and every player plays it as corskin does.
 * @returns the number of channels removed
 */
export function removeShadowedChannels(document: Document): number {
  let removed = 0;
  for (const anim of document.getRoot().listAnimations())
    for (const ch of shadowedChannels(anim)) {
      const sampler = ch.getSampler();
      ch.dispose();
      if (sampler && !anim.listChannels().some((c) => c.getSampler() === sampler)) sampler.dispose();
      removed++;
    }
  return removed;
}

/** Reads an accessor's elements as floats (normalized integers decoded) into `out` at `offset`. */
export function readFloats(acc: Accessor, out: Float32Array, offset: number, comps: number): void {
  const count = acc.getCount();
  const arr = acc.getArray();
  if (arr instanceof Float32Array && acc.getElementSize() === comps) {
    out.set(arr.subarray(0, count * comps), offset);
    return;
  }
  const el: number[] = [];
  for (let i = 0; i < count; i++) {
    acc.getElement(i, el);
    for (let c = 0; c < comps; c++) out[offset + comps * i + c] = el[c];
  }
}

/**
 * The glTF animation a clip of {@link extractSkinnedModels} was read from: by its index
 * (`clip.source`), else by name.
 * @throws CorskinError naming the skin and the clip when the document has no such animation
 */
export function clipAnimation(
  document: Document,
  model: { readonly name: string },
  clip: Pick<AnimationClip, 'name' | 'source'>,
  file?: string,
): Animation {
  const animation = document
    .getRoot()
    .listAnimations()
    .find((a, i) => (clip.source !== undefined ? i === clip.source : (a.getName() || `animation ${i}`) === clip.name));
  if (!animation) throw new CorskinError(`${model.name}: clip "${clip.name}" not found in the document`, file);
  return animation;
}
