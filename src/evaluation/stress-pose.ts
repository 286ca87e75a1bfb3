/**
 * A stress pose for any skeleton: every limb bent, twisted and curled at once, defined on the
 * skeleton's limbs ({@link skeletonLimbs}) so it applies to humanoids, quadrupeds and birds
 * alike — the pose battery of `corskin evaluate --character`.
 *
 * For a humanoid it is: shoulders turned 60° (the arms down from a T-pose), elbows bent 100° with
 * a 70° forearm twist, wrists bent 30°, fingers curled 60° at every joint, hips turned 70° and
 * knees bent 100°, the spine twisted and bent 30° over its joints, the neck turned 45° and the
 * head nodded 20°. How each joint is told apart, from the limbs alone:
 *
 * - the **trunk** is the limb from the skeleton's root; its last two inner joints are the neck
 *   and the head, the ones before them the spine;
 * - every other limb starts at a joint of another limb: its first joint is the limb's root (a
 *   hip, or — after a bone less than half as long as the next, a clavicle — a shoulder), the next
 *   its middle joint (elbow, knee), the rest before a hand its end joints (wrist, ankle);
 * - a **hand** is a joint outside the trunk where four or more limbs start or go on: the joints
 *   after it are fingers (a bird's toes, with the same rule);
 * - a limb that starts at the trunk's first joint is a leg (no twist at its knee).
 *
 * A joint bends further the way it already bends (about parent bone × own bone, in the current
 * pose), or — where the two are in line — about the trunk's up direction × the bone, so a
 * straight limb bends away from the head; it twists right-handed about its bone in its own
 * frame. So a mirrored rig (an armature under a node scaled −1 along an axis) takes the mirror
 * image of the pose. The pose starts from the skeleton's rest pose (the
 * nodes' own transforms).
 *
 * @module
 */
import { limbRoot, skeletonLimbs, trunkFirst } from '../core/limbs.js';
import { globalMatrices, restPose, rotateJointWorld, type Pose } from '../core/pose.js';
import { bindJointPositions, type Skeleton } from '../core/skeleton.js';
import { cross, normalize, sub } from '../core/vec3.js';
import { mat4LinearDeterminant } from '../core/math.js';

/** The stress pose's angles in degrees (see the module comment), scaled by the amplitude. */
export const STRESS_ANGLES = {
  /** Twist of the spine, shared over its joints. */
  spineTwist: 30,
  /** Bend of the spine, shared over its joints. */
  spineBend: 30,
  /** Turn (twist) of the neck. */
  neckTurn: 45,
  /** Nod (bend) of the head. */
  headNod: 20,
  /** Bend of a clavicle, where a limb has one before its shoulder. */
  clavicle: 15,
  /** Bend of a shoulder (the root of a limb that is not a leg). */
  shoulder: 60,
  /** Bend of a hip (the root of a leg). */
  hip: 70,
  /** Bend of a limb's middle joint: elbow or knee. */
  elbow: 100,
  /** Twist at the elbow (none at the knee). */
  forearmTwist: 70,
  /** Bend of each end joint before a hand: wrist, ankle. */
  wrist: 30,
  /** Curl of every finger (or toe) joint. */
  finger: 60,
} as const;

/** One joint rotation of the stress pose: bend (about the bend axis) then twist (about its bone), degrees. */
interface JointMove {
  joint: number;
  /** The joint's bone ends at this joint (its limb's next joint, or its first child). */
  child: number;
  bend: number;
  twist: number;
}

/**
 * The stress pose of `skeleton` at `amplitude` (1: the angles of {@link STRESS_ANGLES}; 0.5:
 * half of each; 0: the rest pose).
 * @returns a fresh pose (local joint transforms)
 */
export function stressPose(skeleton: Skeleton, amplitude = 1): Pose {
  const pose = restPose(skeleton);
  const P = bindJointPositions(skeleton);
  const limbs = trunkFirst(skeleton, skeletonLimbs(skeleton, P));
  if (!limbs.length) return pose;
  const moves = stressMoves(limbs, P);
  const trunk = limbs[0];
  const rest = globalMatrices(skeleton, pose);
  const origin = (j: number) => [rest[16 * j + 12], rest[16 * j + 13], rest[16 * j + 14]];
  const up = normalize(sub(origin(trunk[trunk.length - 1]), origin(trunk[0])));
  for (const m of moves) {
    // Directions in the current pose (parents rotated first: limbs are listed root first).
    const at = (j: number) => worldPosition(skeleton, pose, j);
    const p = skeleton.parents[m.joint];
    const bone = sub(at(m.child), at(m.joint));
    if (!(Math.hypot(...bone) > 0)) continue;
    const b = normalize(bone);
    if (m.bend) {
      const before = p >= 0 ? sub(at(m.joint), at(p)) : [0, 0, 0];
      const a = Math.hypot(...before) > 0 ? normalize(before) : b;
      let axis = cross(a, b);
      if (Math.hypot(...axis) < Math.sin((5 * Math.PI) / 180)) axis = cross(up, b);
      if (Math.hypot(...axis) < 1e-6) axis = cross([1, 0, 0], b);
      if (Math.hypot(...axis) < 1e-6) axis = cross([0, 0, 1], b);
      rotateJointWorld(skeleton, pose, m.joint, normalize(axis), (amplitude * m.bend * Math.PI) / 180);
    }
    if (m.twist) {
      // About the bone, right-handed in the joint's own frame: a mirrored rig twists the mirror way.
      const b2 = normalize(sub(at(m.child), at(m.joint)));
      const hand = mat4LinearDeterminant(globalMatrices(skeleton, pose), 16 * m.joint) < 0 ? -1 : 1;
      rotateJointWorld(skeleton, pose, m.joint, b2, (hand * amplitude * m.twist * Math.PI) / 180);
    }
  }
  return pose;
}

/** World position of joint j in `pose`. */
function worldPosition(skeleton: Skeleton, pose: Pose, j: number): number[] {
  const g = globalMatrices(skeleton, pose);
  return [g[16 * j + 12], g[16 * j + 13], g[16 * j + 14]];
}

/** The stress pose's joint moves, parents before children (see the module comment). */
function stressMoves(limbs: number[][], P: Float64Array): JointMove[] {
  const A = STRESS_ANGLES;
  const moves: JointMove[] = [];
  const trunk = limbs[0];
  // Hands (feet with toes): joints outside the trunk where four or more limbs start or go on.
  const count = new Map<number, number>();
  for (const c of limbs) c.forEach((j, i) => i < c.length - 1 && count.set(j, (count.get(j) ?? 0) + 1));
  const hands = new Set([...count].filter(([j, k]) => k >= 4 && !trunk.includes(j)).map(([j]) => j));
  // Trunk: spine joints share the twist and bend; then the neck and the head.
  const inner = trunk.slice(1, -1);
  const spine = inner.length >= 3 ? inner.slice(0, -2) : inner;
  for (const j of spine)
    moves.push({
      joint: j,
      child: next(trunk, j),
      bend: A.spineBend / spine.length,
      twist: A.spineTwist / spine.length,
    });
  if (inner.length >= 3) {
    moves.push({
      joint: inner[inner.length - 2],
      child: next(trunk, inner[inner.length - 2]),
      bend: 0,
      twist: A.neckTurn,
    });
    moves.push({
      joint: inner[inner.length - 1],
      child: next(trunk, inner[inner.length - 1]),
      bend: A.headNod,
      twist: 0,
    });
  }
  for (const chain of limbs.slice(1)) {
    const fingers = hands.has(chain[0]);
    const leg = chain[0] === trunk[0];
    let i = 1;
    if (fingers) {
      for (; i + 1 < chain.length; i++) moves.push({ joint: chain[i], child: chain[i + 1], bend: A.finger, twist: 0 });
      continue;
    }
    if (limbRoot(chain, P) === 2) {
      moves.push({ joint: chain[1], child: chain[2], bend: A.clavicle, twist: 0 });
      i = 2;
    }
    if (i + 1 < chain.length)
      moves.push({ joint: chain[i], child: chain[i + 1], bend: leg ? A.hip : A.shoulder, twist: 0 });
    if (i + 2 < chain.length)
      moves.push({ joint: chain[i + 1], child: chain[i + 2], bend: A.elbow, twist: leg ? 0 : A.forearmTwist });
    let inHand = false;
    for (let k = i + 2; k + 1 < chain.length; k++) {
      moves.push({ joint: chain[k], child: chain[k + 1], bend: inHand ? A.finger : A.wrist, twist: 0 });
      if (hands.has(chain[k])) inHand = true;
    }
  }
  return moves;
}

/** The joint after `j` in `chain`. */
const next = (chain: number[], j: number) => chain[chain.indexOf(j) + 1];
