/**
 * Posing template cages (Ju, Zhou, van de Panne, Cohen-Or, Neumann, "Reusable Skinning Templates
 * Using Cage-based Deformations", SIGGRAPH Asia 2008, Eq. 1–4): every cage vertex moved by its
 * template's deformation function of the relevant bones' poses, key poses blended by Eq. 2, drawn
 * offsets and bulges added.
 *
 * @module
 */
import { allRigid } from '../../deformers/two-phase.js';
import { mat3FromQuat, quatRotationPart } from '../../core/math.js';
import { cross, dot, length3, normalize, point, sub } from '../../core/vec3.js';
import { prepareBoneTemplate } from './bone.js';
import { prepareJointTemplate } from './joint.js';
import { append, branchesAt, jointRest, limbRest } from './limb-rest.js';
import { axisAngle, mulT3, rotationAngle } from './rotation.js';
import { createRbfWeights } from './key-poses.js';
import { designSamples, noOffsets } from './design.js';
import { incidentBones, type BoneKeyPose, type TemplateDefinition } from './library.js';
import type { TemplateLimb, TemplateRig } from './rig.js';
import { SIDES } from './fit.js';

/**
 * How many incident bones the joint template at chain joint `i` of `limb` blends: the joint's
 * count (2 + the limbs branching off it) where the library has templates for it (the paper's
 * Fig. 13: 3 at a hip, 4 at a chest), else 2 — the parent bone and the bone that goes on, the
 * branching limbs' end caps then moving with the joint (a hand's five fingers, with the default
 * library).
 */
export function slotBones(rig: Pick<TemplateRig, 'limbs' | 'library'>, limb: TemplateLimb, i: number): number {
  const k = 2 + branchesAt(rig, limb, i).length;
  return rig.library.templates.some((t) => t.kind === 'joint' && incidentBones(t) === k) ? k : 2;
}


/**
 * Eq. 2's weights of template `t`'s key poses at a pose of the child bone: radial basis functions
 * (Lewis, Cordner, Fong 2000, {@link createRbfWeights}) of the pose distance — the geodesic angle
 * between the child's rotation relative to its template bone now, `relative` (row-major 3×3, from
 * rest), and at each key pose: the library's key poses bend the child by their `bend` about the
 * axis it bends about now (`axis`, unit), with no twist, so a twisted or differently bent child is
 * further from them all (Ju et al. 2008's pose distance over the relevant bones' frames, twist
 * included). Two key poses are |bend_i − bend_j| apart. A pure bend of θ from rest is |θ − bend_k|
 * from key k.
 */
export function keyWeights(t: TemplateDefinition, relative: ArrayLike<number>, axis: ArrayLike<number>): number[] {
  if (t.keyPoses.length === 1) return [1];
  let rbf = keyPoseRbf.get(t);
  if (!rbf || rbf.bends.length !== t.keyPoses.length || rbf.bends.some((b, i) => b !== (t.keyPoses[i].bend * Math.PI) / 180)) {
    const bends = t.keyPoses.map((k) => (k.bend * Math.PI) / 180);
    rbf = { bends, weights: createRbfWeights(bends.length, (i, j) => Math.abs(bends[i] - bends[j])) };
    keyPoseRbf.set(t, rbf);
  }
  return rbf.weights(rbf.bends.map((k) => rotationAngle(relative, axisAngle(axis, k))));
}

/** Per template, its key bends and their radial basis solve (solved again when the bends change). */
const keyPoseRbf = new WeakMap<TemplateDefinition, { bends: number[]; weights: (d: ArrayLike<number>) => number[] }>();

/** A key-pose value of template `t` blended by the key weights `w` (Eq. 2). */
export function keyValue(t: TemplateDefinition, w: ArrayLike<number>, value: (k: BoneKeyPose) => number): number {
  let out = 0;
  t.keyPoses.forEach((k, i) => (out += w[i] * value(k)));
  return out;
}


/** Template `t`'s drawn offsets (3·24, design frame) blended by the key weights `w` (Eq. 2); undefined when it has none. */
export function blendedOffsets(t: TemplateDefinition, w: ArrayLike<number>): Float64Array | undefined {
  if (!t.keyPoses.some((k) => k.offsets)) return undefined;
  const out = noOffsets();
  t.keyPoses.forEach((k, i) => k.offsets?.forEach((d, v) => d.forEach((x, c) => (out[3 * v + c] += w[i] * x))));
  return out;
}


/** Where a cage vertex takes drawn offsets from at one pose: its design vertices and its radial and tangential directions. */
interface OffsetFrame {
  count: number;
  index: Int32Array;
  weight: Float64Array;
  radial: Float64Array;
  tangential: Float64Array;
}


const copyFrame = (f: OffsetFrame): OffsetFrame => ({ count: f.count, index: f.index.slice(), weight: f.weight.slice(), radial: f.radial.slice(), tangential: f.tangential.slice() });

const offsetFrame = (): OffsetFrame => ({ count: 0, index: new Int32Array(4), weight: new Float64Array(4), radial: new Float64Array(3), tangential: new Float64Array(3) });


/**
 * Fills `f` for a cage vertex at `local` (bind orientation, from its template's origin) about the
 * unit `axis`, its angle measured from the unit `inner` side of the bend; `ring` as
 * {@link designSamples}. Leaves `f.count` 0 on the axis or with no bend.
 */
function locateOffsets(local: ArrayLike<number>, axis: ArrayLike<number>, inner: ArrayLike<number>, ring: number, f: OffsetFrame): void {
  f.count = 0;
  const x = local[0] * axis[0] + local[1] * axis[1] + local[2] * axis[2];
  for (let c = 0; c < 3; c++) f.radial[c] = local[c] - axis[c] * x;
  const lr = length3(f.radial[0], f.radial[1], f.radial[2]);
  if (!(lr > 0) || (inner[0] === 0 && inner[1] === 0 && inner[2] === 0)) return;
  for (let c = 0; c < 3; c++) f.radial[c] /= lr;
  const u = f.radial;
  f.tangential[0] = axis[1] * u[2] - axis[2] * u[1];
  f.tangential[1] = axis[2] * u[0] - axis[0] * u[2];
  f.tangential[2] = axis[0] * u[1] - axis[1] * u[0];
  // The angle from the inner side, right-handed about the axis: atan2(û·(a × n), û·n).
  const sinPhi = u[0] * (axis[1] * inner[2] - axis[2] * inner[1]) + u[1] * (axis[2] * inner[0] - axis[0] * inner[2]) + u[2] * (axis[0] * inner[1] - axis[1] * inner[0]);
  const phi = Math.atan2(sinPhi, u[0] * inner[0] + u[1] * inner[1] + u[2] * inner[2]);
  f.count = designSamples(ring, phi, f.index, f.weight);
}


/** The smallest rotation (row-major 3×3) taking unit a to unit b. */
function minimalRotation(a: number[], b: number[]): number[] {
  const axis = cross(a, b);
  const s = length3(axis[0], axis[1], axis[2]);
  if (s < 1e-15) {
    if (dot(a, b) > 0) return axisAngle([1, 0, 0], 0);
    const p = Math.abs(a[0]) < 0.9 ? [1, 0, 0] : [0, 1, 0];
    return axisAngle(normalize(cross(a, p)), Math.PI);
  }
  return axisAngle(axis.map((x) => x / s), Math.atan2(s, dot(a, b)));
}

/** R · v (R row-major 3×3). */
export const turn = (R: ArrayLike<number>, v: ArrayLike<number>): number[] => [
  R[0] * v[0] + R[1] * v[1] + R[2] * v[2],
  R[3] * v[0] + R[4] * v[1] + R[5] * v[2],
  R[6] * v[0] + R[7] * v[1] + R[8] * v[2],
];


/**
 * Row-major rotation of each skinning matrix, 9·J: its linear part where every joint's matrix is
 * rigid, else every joint's closest proper rotation (`quatRotationPart`, as two-phase
 * skinning's `splitScale` takes them); only of `joints` when given (the others 0).
 */
export function boneRotations(skinning: Float64Array, joints?: Iterable<number>): Float64Array {
  const J = skinning.length / 16;
  const R = new Float64Array(9 * J);
  const rigid = allRigid(skinning);
  const q = new Float64Array(4), M = new Float64Array(9); // prettier-ignore
  for (const j of joints ?? Array.from({ length: J }, (_, j) => j)) {
    const o = 16 * j;
    if (!rigid) {
      quatRotationPart(q, 0, skinning, o);
      mat3FromQuat(M, 0, q, 0);
    }
    for (let r = 0; r < 3; r++) for (let c = 0; c < 3; c++) R[9 * j + 3 * r + c] = rigid ? skinning[o + 4 * c + r] : M[3 * c + r]; // prettier-ignore
  }
  return R;
}

/**
 * Posed cage vertices of the rig (Eq. 1–4 per template) for the skinning matrices `skinning`
 * (16·J, column-major, bind space → posed space), into `out` (3·m, posed space).
 * @param memo from {@link createTemplateMemo}: what depends on the rest pose only, kept between
 *   calls with the same rig (optional; the result is the same)
 */
export function poseTemplates(rig: TemplateRig, skinning: Float64Array, out: Float64Array, memo: Float64Array = createTemplateMemo(rig)): Float64Array {
  const R = boneRotations(skinning, new Set(rig.limbs.flatMap((l) => l.chain)));
  const junctions = new Map<number, JointPoser>();
  for (const limb of rig.limbs) poseLimb(limb, rig, skinning, R, out, memo, undefined, junctions);
  // The end caps of limbs branching off a joint with a template for all its incident bones move
  // with that template (Eq. 1 over all of them), as the through limb's joint vertices do.
  for (const limb of rig.limbs) {
    const pose = junctions.get(limb.chain[0]);
    // The root cap: its apex and ring, the limb's first vertices (see assemble).
    for (let v = 0; pose && v <= SIDES; v++) pose(limb.roles[v].local, out, 3 * (limb.first + v), memo, 9 * (limb.first + v));
  }
  return out;
}


/**
 * A joint template at one pose as a function of a rest position relative to the joint (bind
 * orientation) → posed position written into `out` at `o` (posed space); `memo` as
 * {@link prepareJointTemplate}'s.
 */
type JointPoser = (local: ArrayLike<number>, out: Float64Array, o: number, memo?: Float64Array, mo?: number) => void;


/**
 * What {@link poseTemplates} keeps of the rest pose: 9 numbers per cage vertex of `rig`, NaN until
 * computed — and, for a joint template's vertex between two bones, Eq. 1's blend weights u_j
 * taken from the rig's cage skinning ({@link TemplateRig.cageSkin}: the skin's own weights around
 * it, parent bone's joint and the joint's) instead of the paper's geometric default
 * `u_j ∝ 1 / angle(v, b_j)`, so the joint region swings as the character's weights say and the
 * templates correct what they are made for (twist spread along the bone, radius, bulges).
 */
export function createTemplateMemo(rig: Pick<TemplateRig, 'limbs' | 'library' | 'cage'> & Partial<Pick<TemplateRig, 'cageSkin'>>): Float64Array {
  const memo = new Float64Array(9 * (rig.cage.positions.length / 3)).fill(NaN);
  const skin = rig.cageSkin;
  if (!skin?.joints.length) return memo;
  const K = skin.joints.length / (rig.cage.positions.length / 3);
  for (const limb of rig.limbs)
    limb.roles.forEach((role, q) => {
      if (role.kind !== 'joint' || slotBones(rig, limb, role.index) !== 2) return;
      const c = limb.first + q;
      const on = (j: number) => {
        let w = 0;
        for (let k = K * c; k < K * c + K; k++) if (skin.joints[k] === j) w += skin.weights[k];
        return w;
      };
      const up = on(limb.chain[role.index - 1]), uc = on(limb.chain[role.index]); // prettier-ignore
      if (!(up + uc > 0)) return;
      memo[9 * c] = Math.hypot(role.local[0], role.local[1], role.local[2]);
      memo[9 * c + 1] = up / (up + uc);
      memo[9 * c + 2] = uc / (up + uc);
    });
  return memo;
}


/** What {@link dragTemplateKeyPose} learns of one cage vertex while its limb is posed. */
export interface OffsetProbe {
  /** The rig's cage vertex. */
  vertex: number;
  found?: {
    frame: OffsetFrame;
    /** Units of the axial and the radial/tangential offsets (asset units). */
    units: readonly [number, number];
    axis: number[];
    keyWeights: number[];
    /** The bend the template's key poses are blended by (rad from the rest bend). */
    bend: number;
    /** The chain index of the bone or joint the template sits on. */
    slot: number;
    kind: 'bone' | 'joint';
  };
}


/** Adds the drawn offsets `D` (3·24, or none) at a located cage vertex (`f`, {@link locateOffsets}) to `local`. */
function addOffsets(local: Float64Array, D: Float64Array | undefined, f: OffsetFrame, axis: ArrayLike<number>, axialUnit: number, radialUnit: number): void {
  if (!D) return;
  let da = 0, dr = 0, dt = 0; // prettier-ignore
  for (let k = 0; k < f.count; k++) {
    const d = 3 * f.index[k], w = f.weight[k]; // prettier-ignore
    da += w * D[d];
    dr += w * D[d + 1];
    dt += w * D[d + 2];
  }
  for (let c = 0; c < 3; c++) local[c] += axialUnit * da * axis[c] + radialUnit * (dr * f.radial[c] + dt * f.tangential[c]);
}


/**
 * One limb's posed cage vertices into `out` at the limb's place; `junctions` receives the joint
 * templates of its joints that blend the bones of limbs branching off them ({@link slotBones}).
 */
export function poseLimb(
  limb: TemplateLimb,
  rig: Pick<TemplateRig, 'limbs' | 'library'>,
  skinning: Float64Array,
  R: Float64Array,
  out: Float64Array,
  memo?: Float64Array,
  probe?: OffsetProbe,
  junctions?: Map<number, JointPoser>,
): void {
  const { library } = rig;
  const { chain, points, axes, references, roles, first } = limb;
  const n = chain.length;
  // Per-frame temporaries are plain arrays here and below: a typed array's allocation costs V8
  // about 20 times as much, and this runs per limb per frame.
  const rotations = chain.map((j) => [R[9 * j], R[9 * j + 1], R[9 * j + 2], R[9 * j + 3], R[9 * j + 4], R[9 * j + 5], R[9 * j + 6], R[9 * j + 7], R[9 * j + 8]]); // prettier-ignore
  const Rb = (i: number) => rotations[i];
  const linear = chain.map((j) => {
    const o = 16 * j;
    return [skinning[o], skinning[o + 4], skinning[o + 8], skinning[o + 1], skinning[o + 5], skinning[o + 9], skinning[o + 2], skinning[o + 6], skinning[o + 10]]; // prettier-ignore
  });
  const Lb = (i: number) => linear[i]; // row-major linear part of bone i's skinning matrix
  // Per bone, once per frame: where its start is, its template's relevant-bone frames now (the
  // parent in full, the child by its swing only; at rest: `limbRest`), and its bulge.
  const restOf = limbRest(rig, limb);
  const { lengths, boneRest, boneTemplates } = restOf;
  const origin: number[][] = [];
  const boneNow: number[][] = [];
  const zeros = () => new Array<number>(n).fill(0);
  const bulge = zeros(); // signed: > 0 on the inner side of the child's bend, < 0 the outer
  const slide = zeros(); // along the bone, a fraction of its length (mid-bone)
  const twist = zeros(); // about the bone, radians (mid-bone)
  const jointBulge = zeros(); // signed: > 0 on the inner side of joint i's bend, < 0 the outer
  // Drawn offsets (version 2), blended over the key poses; the key weights and bends for a probe.
  const boneOffsets: (Float64Array | undefined)[] = [], jointOffsets: (Float64Array | undefined)[] = [];
  const boneKeys: number[][] = [], jointKeys: number[][] = [];
  const bends = zeros();
  const blendsBranches: boolean[] = []; // per joint: its template blends limbs branching off it
  const inner: number[][] = [];
  const jointPrepared: (JointPoser | undefined)[] = [undefined];
  for (let i = 0; i < n; i++) {
    const o = 16 * chain[i], p = point(points, i);
    origin.push([0, 1, 2].map((r) => skinning[o + r] * p[0] + skinning[o + 4 + r] * p[1] + skinning[o + 8 + r] * p[2] + skinning[o + 12 + r]));
    const a = point(axes, i);
    const rest = boneRest[i];
    const now: number[] = [];
    if (i > 0) {
      const rel = mulT3(Rb(i), Rb(i - 1));
      const bp = rest.slice(0, 3), rp = rest.slice(3, 6); // prettier-ignore
      append(now, turn(rel, bp), turn(rel, rp));
    } else append(now, rest.slice(0, 6));
    const ac = rest.slice(6, 9);
    if (i + 1 < n) {
      const rc = rest.slice(9, 12);
      const b = turn(mulT3(Rb(i), Rb(i + 1)), ac);
      append(now, b, turn(minimalRotation(ac, b), rc));
    } else append(now, rest.slice(6, 12));
    boneNow.push(now);
    // The joint at the start of bone i (i > 0): in the parent's frame, the parent and the child's
    // swing; with a template for more incident bones, the first bones of the limbs branching off
    // it too, turned in full (they carry no twist of their own along the bone that goes on).
    if (i > 0) {
      const rel = mulT3(Rb(i - 1), Rb(i));
      const b = turn(rel, a);
      const joint = jointRest(rig, limb, restOf, i, incidentBones(library.templates.find((x) => x.id === limb.jointTemplates[i])!) > 2); // prettier-ignore
      blendsBranches[i] = joint.branches.length > 0;
      const nowFrames = append([], joint.rest.slice(0, 6), b, turn(minimalRotation(a, b), point(references, i)));
      for (let k = 0; k < joint.branches.length; k++) append(nowFrames, turn(rel, joint.rest.slice(12 + 6 * k, 15 + 6 * k)), turn(rel, joint.rest.slice(15 + 6 * k, 18 + 6 * k))); // prettier-ignore
      jointPrepared.push(prepareJointTemplate(joint.key, nowFrames));
    }
    const b1 = now.slice(6, 9);
    const template = library.templates.find((x) => x.id === limb.boneTemplates[i])!;
    // The child's bend from rest: the angle its direction turned (its swing); Eq. 2 weighs the key
    // poses over its whole rotation (twist included), the key poses bent about the axis it bends
    // about now (any axis across it when it does not).
    const bend = Math.acos(Math.max(-1, Math.min(1, dot(ac, b1))));
    bends[i] = bend;
    if (i + 1 < n) {
      let bendAxis = cross(ac, b1);
      if (!(length3(bendAxis[0], bendAxis[1], bendAxis[2]) > 1e-9)) bendAxis = cross(ac, rest.slice(9, 12));
      const relative = mulT3(Rb(i), Rb(i + 1));
      const w = (boneKeys[i] = keyWeights(template, relative, normalize(bendAxis)));
      bulge[i] = (template.side === 'outer' ? -1 : 1) * keyValue(template, w, (k) => k.bulge);
      slide[i] = keyValue(template, w, (k) => k.slide ?? 0);
      twist[i] = (keyValue(template, w, (k) => k.twist ?? 0) * Math.PI) / 180;
      boneOffsets[i] = blendedOffsets(template, w);
      const jt = library.templates.find((x) => x.id === limb.jointTemplates[i + 1])!;
      const wj = (jointKeys[i + 1] = keyWeights(jt, relative, normalize(bendAxis)));
      jointBulge[i + 1] = (jt.side === 'outer' ? -1 : 1) * keyValue(jt, wj, (k) => k.bulge);
      jointOffsets[i + 1] = blendedOffsets(jt, wj);
    }
    const side = sub(b1, a.map((x) => x * dot(b1, a)));
    const ls = length3(side[0], side[1], side[2]);
    inner.push(ls > 1e-12 ? side.map((x) => x / ls) : [0, 0, 0]);
  }
  // The template functions prepared once per bone for this pose.
  const bonePrepared = Array.from({ length: n }, (_, i) => prepareBoneTemplate(boneTemplates[i], boneNow[i]));
  const local = new Float64Array(3);
  /** local ← L · local (L row-major 3×3): `apply3` written for this call alone, so V8 sees one array type here (7–10% of a templates frame). */
  const carry = (L: number[]) => {
    const x = local[0], y = local[1], z = local[2]; // prettier-ignore
    local[0] = L[0] * x + L[1] * y + L[2] * z;
    local[1] = L[3] * x + L[4] * y + L[5] * z;
    local[2] = L[6] * x + L[7] * y + L[8] * z;
  };
  /** Joint template i (Eq. 1 and its bulge) at rest position `rest` (bind orientation, from the joint) into `local`. */
  const jointLocal = (i: number, rest: ArrayLike<number>, memo?: Float64Array, mo?: number) => {
    jointPrepared[i]!(rest, local, 0, memo, mo);
    if (jointBulge[i] === 0) return;
    // The joint template's bulge: its rings swell on one side of the bend (about the parent bone).
    const a0 = axes[3 * i - 3], a1 = axes[3 * i - 2], a2 = axes[3 * i - 1]; // prettier-ignore
    const x = local[0] * a0 + local[1] * a1 + local[2] * a2;
    const r0 = local[0] - a0 * x, r1 = local[1] - a1 * x, r2 = local[2] - a2 * x; // prettier-ignore
    const lr = Math.sqrt(r0 * r0 + r1 * r1 + r2 * r2);
    const [n0, n1, n2] = inner[i - 1];
    const side = Math.sign(jointBulge[i]);
    const c = lr > 0 ? Math.max(0, (side * (r0 * n0 + r1 * n1 + r2 * n2)) / lr) : 0;
    const f = 1 + Math.abs(jointBulge[i]) * c * c;
    local[0] = a0 * x + f * r0;
    local[1] = a1 * x + f * r1;
    local[2] = a2 * x + f * r2;
  };
  for (let i = 1; i < n && junctions; i++)
    if (blendsBranches[i])
      junctions.set(chain[i], (rest, out, o, memo, mo) => {
        jointLocal(i, rest, memo, mo);
        carry(Lb(i - 1));
        for (let k = 0; k < 3; k++) out[o + k] = origin[i][k] + local[k];
      });
  let frame: OffsetFrame | undefined; // where drawn offsets are taken from (only where there are some)
  let jointStart = 0; // the first vertex of the joint template being posed
  for (let v = 0; v < roles.length; v++) {
    const role = roles[v];
    const i = role.index;
    // The template's offset, in bind orientation, then carried by the owning bone's linear part
    // (its rotation, and its scale where the armature scales).
    if (role.kind === 'cap') {
      local.set(role.local);
      carry(Lb(i));
    } else if (role.kind === 'bone') {
      bonePrepared[i](role.local, local, 0, memo, 9 * (first + v));
      if (bulge[i] !== 0 || slide[i] !== 0 || twist[i] !== 0) {
        // The template's bulge (one side of the bend swells or flattens), slide (the skin moves
        // along the bone) and twist (it turns about the bone), all most mid-bone (profile sin πt).
        const a0 = axes[3 * i], a1 = axes[3 * i + 1], a2 = axes[3 * i + 2]; // prettier-ignore
        const x = local[0] * a0 + local[1] * a1 + local[2] * a2;
        const r0 = local[0] - a0 * x, r1 = local[1] - a1 * x, r2 = local[2] - a2 * x; // prettier-ignore
        const lr = Math.sqrt(r0 * r0 + r1 * r1 + r2 * r2);
        const [n0, n1, n2] = inner[i];
        const side = Math.sign(bulge[i]);
        const c = lr > 0 ? Math.max(0, (side * (r0 * n0 + r1 * n1 + r2 * n2)) / lr) : 0;
        const profile = Math.sin(Math.PI * Math.max(0, Math.min(1, x / lengths[i])));
        const f = 1 + Math.abs(bulge[i]) * profile * c * c;
        const xs = x + slide[i] * lengths[i] * profile;
        // f·r turned by θ about the axis (r ⊥ axis): r cos θ + (axis × r) sin θ.
        const ct = Math.cos(twist[i] * profile), st = Math.sin(twist[i] * profile);
        local[0] = a0 * xs + f * (ct * r0 + st * (a1 * r2 - a2 * r1));
        local[1] = a1 * xs + f * (ct * r1 + st * (a2 * r0 - a0 * r2));
        local[2] = a2 * xs + f * (ct * r2 + st * (a0 * r1 - a1 * r0));
      }
      if (boneOffsets[i] || probe?.vertex === first + v) {
        // Drawn offsets: along the bone in bone lengths, across it in the vertex's rest radius.
        const a = axes.subarray(3 * i, 3 * i + 3), rl = role.local;
        const x = rl[0] * a[0] + rl[1] * a[1] + rl[2] * a[2];
        const radius = length3(rl[0] - a[0] * x, rl[1] - a[1] * x, rl[2] - a[2] * x);
        locateOffsets(local, a, inner[i], (4 * x) / lengths[i] - 1, (frame ??= offsetFrame()));
        addOffsets(local, boneOffsets[i], frame, a, lengths[i], radius);
        if (probe?.vertex === first + v) probe.found = { frame: copyFrame(frame), units: [lengths[i], radius], axis: Array.from(a), keyWeights: boneKeys[i], bend: bends[i], slot: i, kind: 'bone' };
      }
      carry(Lb(i));
    } else {
      jointLocal(i, role.local, memo, 9 * (first + v));
      if (role.index !== roles[v - 1]?.index || roles[v - 1]?.kind !== 'joint') jointStart = v;
      if (jointOffsets[i] || probe?.vertex === first + v) {
        // Drawn offsets: in the joint's radius (its middle ring's), about the parent bone.
        const a = axes.subarray(3 * i - 3, 3 * i);
        const rl = roles[jointStart + SIDES].local;
        const radius = length3(rl[0], rl[1], rl[2]);
        locateOffsets(local, a, inner[i - 1], Math.floor((v - jointStart) / SIDES), (frame ??= offsetFrame()));
        addOffsets(local, jointOffsets[i], frame, a, radius, radius);
        if (probe?.vertex === first + v) probe.found = { frame: copyFrame(frame), units: [radius, radius], axis: Array.from(a), keyWeights: jointKeys[i], bend: bends[i - 1], slot: i, kind: 'joint' };
      }
      carry(Lb(i - 1));
    }
    const o = origin[i];
    for (let k = 0; k < 3; k++) out[3 * (first + v) + k] = o[k] + local[k];
  }
}
