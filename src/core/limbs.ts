/**
 * A skeleton cut into limbs — chains of joints root to leaf — the structure skinning templates
 * are assembled along (Ju et al. 2008, §5) and the stress poses of the evaluation are defined on.
 *
 * @module
 */
import { CorskinError } from './errors.js';
import { bindJointPositions, type Skeleton } from './skeleton.js';
import { dot, normalize, point, sub } from './vec3.js';

/** The skeleton's joints as one chain root → leaf. @throws CorskinError otherwise */
export function skeletonChain(skeleton: Skeleton): number[] {
  const { parents } = skeleton;
  const roots = [...parents.keys()].filter((j) => parents[j] < 0);
  const chain: number[] = [];
  for (let j = roots.length === 1 ? roots[0] : -1; j >= 0;) {
    chain.push(j);
    const children = [...parents.keys()].filter((c) => parents[c] === j);
    if (children.length > 1) break;
    j = children.length ? children[0] : -1;
  }
  if (chain.length < 2 || chain.length !== parents.length)
    throw new CorskinError('chain templates need a skeleton that is one chain of joints (no branches)');
  return chain;
}

/**
 * The skeleton cut into limbs (chains of at least two joints, root to leaf; see the module
 * comment). A joint at the position of the child that goes on is left out, as is a root with no
 * children: no limb covers them. A limb that turns back by more than about 100° at its second
 * joint starts there instead of at the joint it branches from. Nodes after the skin's joints
 * (`skinJoints`: an animated armature node) are in no limb, so a rig stored by one tool restores
 * in another that knows the skin's joints only (three.js's bones).
 * @param P bind joint positions, 3·J
 */
export function skeletonLimbs(skeleton: Skeleton, P: ArrayLike<number> = bindJointPositions(skeleton)): number[][] {
  // Joints after the skin's own (an animated armature node corskin's skeleton adds) are left out:
  // no skin weight rides on them and engines do not see them as bones; their children start limbs.
  // So are a bake's helper joints: leaves that would read as limbs (an elbow with two would be a hand).
  const own = (j: number) => j < skeleton.skinJoints && !skeleton.helpers?.[j];
  const parents = skeleton.parents.map((_, j) => {
    let p = skeleton.parents[j];
    while (p >= 0 && !own(p)) p = skeleton.parents[p];
    return own(j) ? p : -2; // −2: not a joint of the limbs
  });
  const J = parents.length;
  const children: number[][] = Array.from({ length: J }, () => []);
  parents.forEach((p, j) => p >= 0 && children[p].push(j));
  const size = new Int32Array(J).fill(1); // joints in each subtree (parents may follow children)
  const depth = (j: number): number => (parents[j] < 0 ? 0 : 1 + depth(parents[j]));
  [...parents.keys()]
    .sort((x, y) => depth(y) - depth(x))
    .forEach((j) => parents[j] >= 0 && (size[parents[j]] += size[j]));
  let extent = 0;
  for (let j = 0; j < J; j++) extent = Math.max(extent, Math.hypot(...sub(point(P, j), point(P, 0))));
  const apart = (a: number, b: number) => Math.hypot(...sub(point(P, a), point(P, b))) > 1e-6 * extent;
  const limbs: number[][] = [];
  const follow = (start: number[]) => {
    const chain = [...start];
    for (;;) {
      const j = chain[chain.length - 1];
      const kids = children[j];
      if (!kids.length) break;
      // The straightest child goes on (the largest subtree where there is no incoming direction).
      const from = chain.length >= 2 ? normalize(sub(point(P, j), point(P, chain[chain.length - 2]))) : undefined;
      const score = (c: number) =>
        from && apart(c, j) ? dot(from, normalize(sub(point(P, c), point(P, j)))) : size[c] / J - 2;
      const next = kids.reduce((best, c) => (score(c) > score(best) ? c : best));
      for (const c of kids) if (c !== next) follow([j, c]);
      if (!apart(next, j)) chain.pop(); // a joint where its child is: the child goes on
      chain.push(next);
    }
    if (chain.length >= 2 && !apart(chain[0], chain[1])) chain.shift();
    // A limb that doubles back from the joint it branches from (a quadruped's hip bone up to the
    // thigh, then down it) starts at its second joint: rings around so sharp a turn would fold.
    if (start.length === 2 && chain.length >= 3) {
      const [a, b, c] = chain.map((j) => point(P, j));
      if (dot(normalize(sub(b, a)), normalize(sub(c, b))) < -0.2) chain.shift();
    }
    if (chain.length >= 2) limbs.push(chain);
  };
  parents.forEach((p, j) => p === -1 && follow([j]));
  return limbs;
}

/**
 * `limbs` ({@link skeletonLimbs}) with the trunk first: of the limbs that start at a root, the one
 * whose second joint has the most joints below it (the spine, not a leg or a tail). The others keep
 * their order.
 */
export function trunkFirst(skeleton: Skeleton, limbs: number[][]): number[][] {
  const below = new Int32Array(skeleton.parents.length);
  for (let j = 0; j < below.length; j++) for (let p = skeleton.parents[j]; p >= 0; p = skeleton.parents[p]) below[p]++;
  const rootOf = (j: number) => {
    while (skeleton.parents[j] >= 0 && skeleton.parents[j] < skeleton.skinJoints) j = skeleton.parents[j];
    return j;
  };
  let trunk = -1;
  limbs.forEach((c, i) => {
    if (rootOf(c[0]) === c[0] && (trunk < 0 || below[c[1]] > below[limbs[trunk][1]])) trunk = i;
  });
  return trunk < 0 ? limbs : [limbs[trunk], ...limbs.filter((_, i) => i !== trunk)];
}

/**
 * The index in a branching limb's `chain` (from the joint it branches off) of its root joint — the
 * hip, the shoulder: 1, or 2 after a clavicle (a first bone less than 0.7 times as long as the next);
 * the joint after it is the limb's middle joint (knee, elbow).
 * @param P bind joint positions, 3·J
 */
export function limbRoot(chain: readonly number[], P: ArrayLike<number>): number {
  const length = (a: number, b: number) => Math.hypot(...sub(point(P, b), point(P, a)));
  return chain.length >= 4 && length(chain[1], chain[2]) < 0.7 * length(chain[2], chain[3]) ? 2 : 1;
}
