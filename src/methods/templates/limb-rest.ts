/**
 * What posing a limb's template cage (`pose.ts`; Ju, Zhou, van de Panne, Cohen-Or, Neumann,
 * "Reusable Skinning Templates Using Cage-based Deformations", SIGGRAPH Asia 2008, Eq. 1–4) takes
 * from the rest pose alone: its bones' lengths, its templates' relevant-bone frames at rest and
 * their key poses prepared (Eq. 3–4's parameters on the key pose's side), computed once per limb
 * rather than every frame.
 *
 * @module
 */
import { length3, point } from '../../core/vec3.js';
import { boneTemplateKey, type BoneTemplateKey } from './bone.js';
import { jointTemplateKey, type JointTemplateKey } from './joint.js';
import type { TemplateLimb, TemplateRig } from './rig.js';

/**
 * The limbs that branch off chain joint `i` of `limb` (they start at that joint, which `limb` goes
 * through): with the parent bone and the bone that goes on, the joint's incident bones.
 */
export function branchesAt(rig: Pick<TemplateRig, 'limbs'>, limb: TemplateLimb, i: number): TemplateLimb[] {
  return i > 0 ? rig.limbs.filter((s) => s !== limb && s.chain[0] === limb.chain[i]) : [];
}

/** −v. */
const negated = (v: number[]): number[] => [-v[0], -v[1], -v[2]];

/**
 * `out` with the numbers of `parts` appended, in order (what `[...a, ...b]` builds; element by
 * element, which V8 runs several times faster than spreading, and this runs per bone per frame).
 */
export function append(out: number[], ...parts: ArrayLike<number>[]): number[] {
  for (const part of parts) for (let k = 0; k < part.length; k++) out.push(part[k]);
  return out;
}

/** What posing a limb keeps of its rest pose: {@link limbRest}. */
export interface LimbRest {
  /** Per bone, its length (asset units, bind space). */
  lengths: number[];
  /** Per bone, its template's relevant-bone frames at rest (12 numbers) and its key pose prepared. */
  boneRest: number[][];
  boneTemplates: BoneTemplateKey[];
  /**
   * Per chain joint i > 0, its joint template's relevant-bone frames at rest and its key pose
   * prepared: [0] over the parent and the child, [1] over the limbs branching off it too (made
   * when a template for more incident bones is first chosen there).
   */
  joints: { rest: number[]; key: JointTemplateKey; branches: TemplateLimb[] }[][];
}

/**
 * Per limb, what `poseLimb` computes of the rest pose alone (its bones' frames and
 * lengths, the templates' key poses): limbs' geometry is never changed in place (an edited rig is
 * a rebuilt one), their template choices may be, so nothing here depends on the choices.
 */
const limbRests = new WeakMap<TemplateLimb, LimbRest>();

/** {@link LimbRest} of `limb` in `rig`, computed on first use. */
export function limbRest(rig: Pick<TemplateRig, 'limbs'>, limb: TemplateLimb): LimbRest {
  let rest = limbRests.get(limb);
  if (rest) return rest;
  const { points, axes, references } = limb;
  const n = limb.chain.length;
  const lengths = Array.from({ length: n }, (_, i) => length3(points[3 * i + 3] - points[3 * i], points[3 * i + 4] - points[3 * i + 1], points[3 * i + 5] - points[3 * i + 2])); // prettier-ignore
  const boneRest = Array.from({ length: n }, (_, i) =>
    append(
      [],
      ...(i > 0 ? [negated(point(axes, i - 1)), point(references, i - 1)] : [negated(point(axes, i)), point(references, i)]),
      ...(i + 1 < n ? [point(axes, i + 1), point(references, i + 1)] : [point(axes, i), point(references, i)]),
    ),
  );
  const boneTemplates = boneRest.map((frames, i) => boneTemplateKey({ axis: point(axes, i), length: lengths[i], reference: point(references, i) }, frames)); // prettier-ignore
  rest = { lengths, boneRest, boneTemplates, joints: [] };
  limbRests.set(limb, rest);
  return rest;
}

/** Joint i's rest frames and key pose in `rest` ({@link LimbRest.joints}), with the branching limbs' bones or without. */
export function jointRest(rig: Pick<TemplateRig, 'limbs'>, limb: TemplateLimb, rest: LimbRest, i: number, withBranches: boolean) {
  const slot = (rest.joints[i] ??= []);
  const mode = +withBranches;
  if (slot[mode]) return slot[mode];
  const { axes, references } = limb;
  const branches = withBranches ? branchesAt(rig, limb, i) : [];
  const frames = append([], negated(point(axes, i - 1)), point(references, i - 1), point(axes, i), point(references, i));
  for (const s of branches) append(frames, point(s.axes, 0), point(s.references, 0));
  const key = jointTemplateKey(append([], point(axes, i - 1), point(references, i - 1)), frames);
  return (slot[mode] = { rest: frames, key, branches });
}
