/**
 * The skeleton: a joint hierarchy with its bind pose and inverse bind matrices.
 *
 * Terms: a *joint* (glTF) is what the papers call a *bone*; joint `j`'s *skinning matrix* is
 * its global (world) matrix times its inverse bind matrix, and maps bind-space points to posed
 * space. The *bind pose* is the pose in which every skinning matrix is the identity. The *rest
 * pose* is the joints' own transforms (glTF: the nodes' translation, rotation and scale, shown
 * when no clip plays); in many real files it differs from the bind pose (the Soldier's arms by
 * 65°), in others the two are the same.
 *
 * @module
 */
import { CorskinError } from './errors.js';
import { mat4Identity } from './math.js';

/**
 * A joint hierarchy (J joints).
 *
 * Global matrices follow `G_j = G_parent(j) · P_j · L_j` where `L_j` is the joint's local TRS
 * (from a {@link Pose}) and `P_j` the fixed *pre-transform*: the product of the local matrices
 * of the non-joint nodes between the joint and its parent joint (for a root joint: the world
 * matrix of its parent node). In most rigs `P_j` is the identity.
 */
export interface Skeleton {
  /**
   * Number of the skin's own joints: influences index joints `0..skinJoints−1`. Nodes after
   * them (up to J) are non-joint ancestors that animations move (a root-motion armature node),
   * posed like joints, with identity inverse bind matrices.
   */
  readonly skinJoints: number;
  /** Joint names, length J (may be empty strings). */
  readonly jointNames: readonly string[];
  /** Parent joint index of each joint, or -1 for a root; length J. */
  readonly parents: Int32Array;
  /** Joint indices in an order where every parent precedes its children; length J. */
  readonly order: Int32Array;
  /** Inverse bind matrices, 4×4 column-major, length 16·J; bind space ← joint space. */
  readonly inverseBindMatrices: Float64Array;
  /** Fixed pre-transforms `P_j`, 4×4 column-major, length 16·J (identity for most joints). */
  readonly preTransforms: Float64Array;
  /** Rest-pose local translations (x, y, z per joint), length 3·J, asset units. */
  readonly restTranslations: Float64Array;
  /** Rest-pose local rotations as unit quaternions (x, y, z, w per joint), length 4·J. */
  readonly restRotations: Float64Array;
  /** Rest-pose local scales (x, y, z per joint), length 3·J. */
  readonly restScales: Float64Array;
  /**
   * Per joint, 1 for a helper joint a bake added (`corskin bake --as helpers`): a bone of the skin
   * but no limb of the skeleton (the stress pose and the limb analysis leave it out); length J,
   * or absent when there is none.
   */
  readonly helpers?: Uint8Array;
}

/** Input of {@link createSkeleton}; omitted arrays default to identities. */
export interface SkeletonInit {
  /** Joint names, length J; default `joint0`, `joint1`, …. */
  jointNames?: readonly string[];
  /** Default: every joint. */
  skinJoints?: number;
  /** Parent joint index of each joint, or -1 for a root; its length is J. */
  parents: ArrayLike<number>;
  /** Inverse bind matrices, 4×4 column-major, length 16·J; default identities. */
  inverseBindMatrices?: ArrayLike<number>;
  /** Fixed pre-transforms `P_j`, 4×4 column-major, length 16·J; default identities. */
  preTransforms?: ArrayLike<number>;
  /** Rest-pose local translations, length 3·J, asset units; default zero. */
  restTranslations?: ArrayLike<number>;
  /** Rest-pose local rotations as unit quaternions (x, y, z, w), length 4·J; default identity. */
  restRotations?: ArrayLike<number>;
  /** Rest-pose local scales, length 3·J; default 1. */
  restScales?: ArrayLike<number>;
  /** Per joint, 1 for a helper joint a bake added; length J (dropped when none is set). */
  helpers?: Uint8Array;
}

/**
 * Builds a validated {@link Skeleton} and its topological joint order.
 * @throws CorskinError when an array has the wrong length, a parent index is out of range or the
 *   hierarchy has a cycle.
 */
export function createSkeleton(init: SkeletonInit): Skeleton {
  const J = init.parents.length;
  const parents = Int32Array.from(init.parents);
  const sized = (a: ArrayLike<number> | undefined, n: number, name: string, fill: (o: Float64Array) => void) => {
    if (a === undefined) {
      const o = new Float64Array(n * J);
      fill(o);
      return o;
    }
    if (a.length !== n * J) throw new CorskinError(`skeleton: ${name} has length ${a.length}, expected ${n * J}`);
    return Float64Array.from(a);
  };
  const identities = (o: Float64Array) => {
    for (let j = 0; j < J; j++) mat4Identity(o, 16 * j);
  };
  const ibm = sized(init.inverseBindMatrices, 16, 'inverseBindMatrices', identities);
  const pre = sized(init.preTransforms, 16, 'preTransforms', identities);
  const t = sized(init.restTranslations, 3, 'restTranslations', () => {});
  const r = sized(init.restRotations, 4, 'restRotations', (o) => {
    for (let j = 0; j < J; j++) o[4 * j + 3] = 1;
  });
  const s = sized(init.restScales, 3, 'restScales', (o) => o.fill(1));
  for (let j = 0; j < J; j++) {
    const p = parents[j];
    if (p < -1 || p >= J || p === j) throw new CorskinError(`skeleton: joint ${j} has invalid parent ${p}`);
  }
  // Topological order, breadth first from the roots: O(J) whatever the joint numbering.
  const childStart = new Int32Array(J + 1);
  for (let j = 0; j < J; j++) if (parents[j] >= 0) childStart[parents[j] + 1]++;
  for (let j = 0; j < J; j++) childStart[j + 1] += childStart[j];
  const fill = childStart.slice(0, J);
  const children = new Int32Array(J);
  for (let j = 0; j < J; j++) if (parents[j] >= 0) children[fill[parents[j]]++] = j;
  const order = new Int32Array(J);
  let n = 0;
  for (let j = 0; j < J; j++) if (parents[j] < 0) order[n++] = j;
  for (let head = 0; head < n; head++) {
    const p = order[head];
    for (let c = childStart[p]; c < childStart[p + 1]; c++) order[n++] = children[c];
  }
  if (n < J) throw new CorskinError('skeleton: the joint hierarchy contains a cycle');
  const names = init.jointNames ?? Array.from({ length: J }, (_, j) => `joint${j}`);
  if (names.length !== J) throw new CorskinError(`skeleton: ${names.length} joint names for ${J} joints`);
  const skinJoints = init.skinJoints ?? J;
  if (!(Number.isInteger(skinJoints) && skinJoints >= 0 && skinJoints <= J))
    throw new CorskinError(`skeleton: skinJoints ${skinJoints} is not in 0..${J}`);
  if (init.helpers && init.helpers.length !== J)
    throw new CorskinError(`skeleton: helpers has length ${init.helpers.length}, expected ${J}`);
  return {
    skinJoints,
    jointNames: names,
    parents,
    order,
    inverseBindMatrices: ibm,
    preTransforms: pre,
    restTranslations: t,
    restRotations: r,
    restScales: s,
    ...(init.helpers?.some((h) => h) ? { helpers: init.helpers } : {}),
  };
}

/** Number of joints of a skeleton. */
export function jointCount(skeleton: Skeleton): number {
  return skeleton.parents.length;
}

/**
 * Index of the joint named `name`, or the joint at index `name` when it is an integer.
 * @throws CorskinError when there is no such joint (the message lists the joints' names)
 */
export function findJoint(skeleton: Skeleton, name: string): number {
  const byName = skeleton.jointNames.indexOf(name);
  if (byName >= 0) return byName;
  const i = Number(name);
  if (Number.isInteger(i) && i >= 0 && i < jointCount(skeleton)) return i;
  const names = skeleton.jointNames;
  const listed = names.length > 24 ? `${names.slice(0, 24).join(', ')}, … (${names.length} in all; corskin info lists them)` : names.join(', '); // prettier-ignore
  throw new CorskinError(`no joint named "${name}" (joints: ${listed})`);
}

/**
 * Bind-space position of every joint: the origin of its bind matrix, −R⁻¹·t of the inverse bind
 * matrix [R | t] (R need not be orthonormal).
 * @returns Float64Array, 3·J (asset units)
 * @throws CorskinError when an inverse bind matrix is singular
 */
export function bindJointPositions(skeleton: Skeleton): Float64Array {
  const J = jointCount(skeleton);
  const P = new Float64Array(3 * J);
  const ibm = skeleton.inverseBindMatrices;
  for (let j = 0; j < J; j++) {
    const m = 16 * j;
    const a = ibm[m], b = ibm[m + 4], c = ibm[m + 8], d = ibm[m + 1], e = ibm[m + 5], f = ibm[m + 9]; // prettier-ignore
    const g = ibm[m + 2], h = ibm[m + 6], k = ibm[m + 10]; // prettier-ignore
    const tx = -ibm[m + 12], ty = -ibm[m + 13], tz = -ibm[m + 14]; // prettier-ignore
    const det = a * (e * k - f * h) - b * (d * k - f * g) + c * (d * h - e * g);
    if (!det) throw new CorskinError(`joint ${skeleton.jointNames[j]} has a singular inverse bind matrix`);
    P[3 * j] = (tx * (e * k - f * h) - b * (ty * k - f * tz) + c * (ty * h - e * tz)) / det;
    P[3 * j + 1] = (a * (ty * k - f * tz) - tx * (d * k - f * g) + c * (d * tz - ty * g)) / det;
    P[3 * j + 2] = (a * (e * tz - ty * h) - b * (d * tz - ty * g) + tx * (d * h - e * g)) / det;
  }
  return P;
}
