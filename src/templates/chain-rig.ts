/**
 * Skinning templates assembled into a cage around a chain of joints (an arm, a leg, a tail, the
 * benchmark bar) and the deformer they drive (Ju, Zhou, van de Panne, Cohen-Or, Neumann,
 * "Reusable Skinning Templates Using Cage-based Deformations", SIGGRAPH Asia 2008, §4–5):
 *
 * - a **bone template** around every bone (rings at ¼, ½, ¾ of its length), a two-bone **joint
 *   template** at every inner joint (rings on the parent side, at the joint, on the child side), a
 *   one-bone cap at both chain ends; consecutive rings (all with the same number of sides and a
 *   reference direction carried along the chain) are bridged by quad strips, the caps fanned;
 * - fitted to the skin: each template's radius from the farthest skin vertex around its part of
 *   the chain, grown together until every skin vertex is inside (bounded);
 * - the deformation functions evaluated at the fitted rest positions (Eq. 1, with the fitted rest
 *   cage as the key pose, so the rest pose is exact — Eq. 5–6 for a single key pose).
 *
 * Twist: a child bone's twist relative to its parent is carried by the child's bone template
 * (Eq. 4's fading (1 − s)β), so joint templates and the child bones' ends of bone templates see
 * the child bones' swing only — the twist is spread along the child bone, the paper's Fig. 12
 * "twisting" behaviour, and neighbouring rings never disagree about it.
 *
 * @module
 */
import { bindToCage, type CageBinding } from '../cage/bind.js';
import type { Cage } from '../cage/cage.js';
import { createCageDeformer, type CageDeformer } from '../cage/deform.js';
import { pointsOutside } from '../cage/winding-number.js';
import { CorskinError } from '../core/errors.js';
import type { SkinnedMesh } from '../core/mesh.js';
import { bindJointPositions, type Skeleton } from '../core/skeleton.js';
import type { Deformer } from '../deformers/contract.js';
import { splitScale } from '../deformers/two-phase.js';
import { cross, dot, normalize, point, sub } from '../core/vec3.js';
import { prepareBoneTemplate, type BoneTemplateFrame } from './bone.js';
import { prepareJointTemplate } from './joint.js';
import { axisAngle, apply3, mulT3 } from './rotation.js';
import { createRbfWeights } from './key-poses.js';
import { DEFAULT_TEMPLATE_LIBRARY, type TemplateDefinition, type TemplateLibrary } from './library.js';

/** Ring sides of the chain templates. */
const SIDES = 8;

/** What each cage vertex is: part of which template, with its rest position in that template's frame. */
export interface VertexRole {
  kind: 'bone' | 'joint' | 'cap';
  /** The chain bone (bone templates, caps) or the joint's index in the chain (joint templates). */
  index: number;
  /** Rest position relative to the template's origin, bind-space orientation. */
  local: number[];
}

/** A chain of joints with its template cage, skin binding and per-vertex roles. */
export interface ChainTemplateRig {
  /** Skeleton joints of the chain, root to leaf; bone i is owned by joint chain[i]. */
  chain: number[];
  /** Bind-space bone start points (the joints) and the end point of the last bone, 3·(n + 1). */
  points: Float64Array;
  /** Unit bone directions and reference directions (⊥, carried along), 3·n each. */
  axes: Float64Array;
  references: Float64Array;
  cage: Cage;
  binding: CageBinding;
  roles: VertexRole[];
  /** The template library the choices come from. */
  library: TemplateLibrary;
  /** The bone template of each chain bone (an id of `library`); change with {@link setBoneTemplate}. */
  boneTemplates: string[];
}

/**
 * Switches chain bone `bone`'s template to `id` (a bone template of the rig's library). Templates
 * of one library share the fitted rest cage, so the binding stands: the next frame shows it.
 * @throws CorskinError for an unknown id, a joint template, or a bone outside the chain
 */
export function setBoneTemplate(rig: ChainTemplateRig, bone: number, id: string): void {
  if (!(Number.isInteger(bone) && bone >= 0 && bone < rig.chain.length))
    throw new CorskinError(`bone ${bone} is not in the chain (0–${rig.chain.length - 1})`);
  const t = rig.library.templates.find((x) => x.id === id);
  if (!t) throw new CorskinError(`no template "${id}" (bone templates: ${rig.library.templates.filter((x) => x.kind === 'bone').map((x) => x.id).join(', ')})`);
  if (t.kind !== 'bone') throw new CorskinError(`"${id}" is a ${t.kind} template, not a bone template`);
  rig.boneTemplates[bone] = id;
}

/** The bulge of template `t` at the child's bend `bend` (rad from its rest bend): Eq. 2 over the key poses' bends. */
function bulgeOf(t: TemplateDefinition, bend: number): number {
  if (t.keyPoses.length === 1) return t.keyPoses[0].bulge;
  const bends = t.keyPoses.map((k) => (k.bend * Math.PI) / 180);
  const w = createRbfWeights(bends.length, (i, j) => Math.abs(bends[i] - bends[j]))(bends.map((k) => Math.abs(bend - k)));
  let bulge = 0;
  t.keyPoses.forEach((k, i) => (bulge += w[i] * k.bulge));
  return bulge;
}

/** The smallest rotation (row-major 3×3) taking unit a to unit b. */
function minimalRotation(a: number[], b: number[]): Float64Array {
  const axis = cross(a, b);
  const s = Math.hypot(axis[0], axis[1], axis[2]);
  if (s < 1e-15) {
    if (dot(a, b) > 0) return axisAngle([1, 0, 0], 0);
    const p = Math.abs(a[0]) < 0.9 ? [1, 0, 0] : [0, 1, 0];
    return axisAngle(normalize(cross(a, p)), Math.PI);
  }
  return axisAngle(axis.map((x) => x / s), Math.atan2(s, dot(a, b)));
}
const turn = (R: ArrayLike<number>, v: ArrayLike<number>) => {
  const out = new Float64Array(3);
  apply3(R, 0, v, 0, out, 0);
  return Array.from(out);
};

/** The skeleton's joints as one chain root → leaf. @throws CorskinError otherwise */
export function skeletonChain(skeleton: Skeleton): number[] {
  const { parents } = skeleton;
  const roots = [...parents.keys()].filter((j) => parents[j] < 0);
  const chain: number[] = [];
  for (let j = roots.length === 1 ? roots[0] : -1; j >= 0; ) {
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
 * Builds the template cage around the joint chain `chain` (default: the whole skeleton, which must
 * be one chain) of `mesh`, fits it to the skin and binds the skin with PMVC.
 * @throws CorskinError when the skeleton is not a chain, or the cage cannot be grown to enclose the skin
 */
export function buildChainTemplateRig(
  mesh: SkinnedMesh,
  skeleton: Skeleton,
  chain = skeletonChain(skeleton),
  library: TemplateLibrary = DEFAULT_TEMPLATE_LIBRARY,
): ChainTemplateRig {
  const part = fitChain(mesh.positions, bindJointPositions(skeleton), chain);
  const fallback = defaultBoneTemplate(library);
  return { ...part, binding: bindToCage(mesh.positions, part.cage), library, boneTemplates: chain.map(() => fallback) };
}

/** The library's default bone template: its first with a single key pose. @throws CorskinError when it has none */
function defaultBoneTemplate(library: TemplateLibrary): string {
  const t = library.templates.find((x) => x.kind === 'bone' && x.keyPoses.length === 1) ?? library.templates.find((x) => x.kind === 'bone');
  if (!t) throw new CorskinError('the template library has no bone template');
  return t.id;
}

/** A chain's fitted template cage (no binding yet). */
type ChainCage = Omit<ChainTemplateRig, 'binding' | 'library' | 'boneTemplates'>;

/**
 * Fits the template cage of joint chain `chain` (bind joint positions `P`, 3·J) to the points
 * `X` (3·n, the skin it must enclose).
 * @throws CorskinError when it cannot be grown to enclose them
 */
function fitChain(X: ArrayLike<number>, P: Float64Array, chain: number[]): ChainCage {
  const n = chain.length; // bones: one per chain joint (the last ends where the skin ends)
  const pts = chain.map((j) => point(P, j));
  const lastDir = normalize(sub(pts[n - 1], pts[n - 2]));
  const firstDir = normalize(sub(pts[1], pts[0]));
  const reach = (from: number[], dir: number[]) => {
    let r = 0;
    for (let i = 0; i < X.length / 3; i++) r = Math.max(r, dot(sub(point(X, i), from), dir));
    return r;
  };
  let totalLength = 0;
  for (let i = 0; i + 1 < n; i++) totalLength += Math.hypot(...sub(pts[i + 1], pts[i]));
  const tail = Math.max(reach(pts[n - 1], lastDir), 0.1 * totalLength);
  const head = Math.max(reach(pts[0], firstDir.map((x) => -x)), 0.02 * totalLength);
  pts.push(pts[n - 1].map((x, k) => x + lastDir[k] * tail));
  const points = Float64Array.from(pts.flat());
  const axes = new Float64Array(3 * n), references = new Float64Array(3 * n);
  let ref = normalize(cross(firstDir, Math.abs(firstDir[0]) < 0.9 ? [1, 0, 0] : [0, 1, 0]));
  for (let i = 0; i < n; i++) {
    const a = normalize(sub(pts[i + 1], pts[i]));
    ref = normalize(sub(ref, a.map((x) => x * dot(ref, a))));
    axes.set(a, 3 * i);
    references.set(ref, 3 * i);
  }
  // Radius of each bone's part of the skin (vertices projecting onto it), and of each joint.
  const boneRadius = new Float64Array(n);
  for (let v = 0; v < X.length / 3; v++) {
    const x = point(X, v);
    let best = Infinity, bone = 0;
    for (let i = 0; i < n; i++) {
      const d = sub(pts[i + 1], pts[i]);
      const t = Math.max(0, Math.min(1, dot(sub(x, pts[i]), d) / dot(d, d)));
      const dist = Math.hypot(...sub(x, pts[i].map((p, k) => p + t * d[k])));
      if (dist < best) [best, bone] = [dist, i];
    }
    boneRadius[bone] = Math.max(boneRadius[bone], best);
  }
  for (let i = 0; i < n; i++) if (!(boneRadius[i] > 0)) boneRadius[i] = 0.05 * totalLength;
  const lengths = Array.from({ length: n }, (_, i) => Math.hypot(...sub(pts[i + 1], pts[i])));
  for (let grow = 1.15; ; grow *= 1.15) {
    const { cage, roles } = assemble(points, axes, references, lengths, boneRadius.map((r) => (r / Math.cos(Math.PI / SIDES)) * grow), head);
    const outside = pointsOutside(cage, X);
    if (!outside.length) return { chain, points, axes, references, cage, roles };
    if (grow > 4)
      throw new CorskinError(`the template cage leaves ${outside.length} skin vertices outside even grown 4×; first: ${outside.slice(0, 5).join(', ')}`);
  }
}

/** The cage: rings along the chain, quad strips between consecutive rings, fans at both ends. */
function assemble(points: Float64Array, axes: Float64Array, refs: Float64Array, lengths: number[], radius: Float64Array, head: number) {
  const n = lengths.length;
  const positions: number[] = [];
  const roles: VertexRole[] = [];
  const rings: number[][] = [];
  const ring = (centre: number[], dir: number[], ref: number[], r: number, role: Omit<VertexRole, 'local'>, origin: number[]) => {
    const other = cross(dir, ref);
    const ids: number[] = [];
    for (let s = 0; s < SIDES; s++) {
      const a = (2 * Math.PI * s) / SIDES;
      const p = centre.map((c, k) => c + r * (Math.cos(a) * ref[k] + Math.sin(a) * other[k]));
      ids.push(positions.length / 3);
      positions.push(...p);
      roles.push({ ...role, local: sub(p, origin) });
    }
    rings.push(ids);
  };
  const apex = (p: number[], bone: number, origin: number[]) => {
    positions.push(...p);
    roles.push({ kind: 'cap', index: bone, local: sub(p, origin) });
    return positions.length / 3 - 1;
  };
  const P = (i: number) => point(points, i);
  // Root cap (rigid with bone 0).
  const a0 = point(axes, 0), r0 = point(refs, 0);
  const rootApex = apex(P(0).map((x, k) => x - a0[k] * (head + 0.5 * radius[0])), 0, P(0));
  ring(P(0).map((x, k) => x - a0[k] * head), a0, r0, radius[0], { kind: 'cap', index: 0 }, P(0));
  // Each inner joint's template reaches h along its two bones.
  const h = Array.from({ length: n }, (_, i) =>
    i === 0 ? 0 : Math.min(0.2 * Math.min(lengths[i - 1], lengths[i]), 0.6 * Math.max(radius[i - 1], radius[i])),
  );
  for (let i = 0; i < n; i++) {
    const a = point(axes, i), ref = point(refs, i), L = lengths[i];
    if (i > 0) {
      // Joint template at chain joint i, in the parent bone's frame: parent side, joint, child side.
      const ap = point(axes, i - 1), rp = point(refs, i - 1);
      const rj = Math.max(radius[i - 1], radius[i]);
      const mid = normalize(ap.map((x, k) => x + a[k]));
      const midRef = normalize(sub(rp, mid.map((x) => x * dot(rp, mid))));
      ring(P(i).map((x, k) => x - ap[k] * h[i]), ap, rp, rj, { kind: 'joint', index: i }, P(i));
      ring(P(i), mid, midRef, rj, { kind: 'joint', index: i }, P(i));
      ring(P(i).map((x, k) => x + a[k] * h[i]), a, ref, rj, { kind: 'joint', index: i }, P(i));
    }
    // Bone template: rings at ¼, ½, ¾ of the bone that clear the joint templates at its ends.
    const lo = h[i] + 0.05 * L, hi = L - (i + 1 < n ? h[i + 1] : 0) - 0.05 * L;
    const at01 = [0.25, 0.5, 0.75].map((f) => f * L).filter((x) => x > lo && x < hi);
    for (const x of at01.length ? at01 : [(lo + hi) / 2])
      ring(P(i).map((c, k) => c + a[k] * x), a, ref, radius[i], { kind: 'bone', index: i }, P(i));
  }
  // Leaf cap (rigid with the last bone) at the end of the skin.
  const an = point(axes, n - 1), rn = point(refs, n - 1);
  ring(P(n), an, rn, radius[n - 1], { kind: 'cap', index: n - 1 }, P(n - 1));
  const leafApex = apex(P(n).map((x, k) => x + an[k] * 0.5 * radius[n - 1]), n - 1, P(n - 1));
  const triangles: number[] = [];
  for (let s = 0; s < SIDES; s++) triangles.push(rootApex, rings[0][(s + 1) % SIDES], rings[0][s]);
  for (let k = 0; k + 1 < rings.length; k++)
    for (let s = 0; s < SIDES; s++) {
      const t = (s + 1) % SIDES;
      triangles.push(rings[k][s], rings[k][t], rings[k + 1][t], rings[k][s], rings[k + 1][t], rings[k + 1][s]);
    }
  const last = rings[rings.length - 1];
  for (let s = 0; s < SIDES; s++) triangles.push(leafApex, last[s], last[(s + 1) % SIDES]);
  const cage: Cage = { positions: Float64Array.from(positions), triangles: Uint32Array.from(triangles) };
  let vol = 0;
  const p = cage.positions, tri = cage.triangles;
  for (let f = 0; f < tri.length; f += 3) vol += dot(point(p, tri[f]), cross(point(p, tri[f + 1]), point(p, tri[f + 2])));
  if (vol < 0) for (let f = 0; f < tri.length; f += 3) [tri[f + 1], tri[f + 2]] = [tri[f + 2], tri[f + 1]];
  return { cage, roles };
}

/** Row-major rotation of each skinning matrix (its proper rotation when scaled or sheared). */
function boneRotations(skinning: Float64Array): Float64Array {
  const J = skinning.length / 16;
  const R = new Float64Array(9 * J);
  const split = splitScale(skinning);
  for (let j = 0; j < J; j++)
    for (let r = 0; r < 3; r++)
      for (let c = 0; c < 3; c++) R[9 * j + 3 * r + c] = split ? split.rotationMatrices[9 * j + 3 * c + r] : skinning[16 * j + 4 * c + r];
  return R;
}

/** Posed cage vertices of the rig for the skinning matrices `skinning` (16·J), into `out` (3·m). */
export function poseChainTemplates(rig: ChainTemplateRig, skinning: Float64Array, out: Float64Array): Float64Array {
  const { chain, points, axes, references, roles } = rig;
  const n = chain.length;
  const R = boneRotations(skinning);
  const Rb = (i: number) => R.subarray(9 * chain[i], 9 * chain[i] + 9);
  // Per bone, once per frame: where its start is, its template's relevant-bone frames at rest and
  // now (the parent in full, the child by its swing only), and its bulge.
  const origin: number[][] = [];
  const boneRest: Float64Array[] = [], boneNow: Float64Array[] = [], jointRest: Float64Array[] = [], jointNow: Float64Array[] = [];
  const bulge = new Float64Array(n);
  const inner: number[][] = [];
  for (let i = 0; i < n; i++) {
    const o = 16 * chain[i], p = point(points, i);
    origin.push([0, 1, 2].map((r) => skinning[o + r] * p[0] + skinning[o + 4 + r] * p[1] + skinning[o + 8 + r] * p[2] + skinning[o + 12 + r]));
    const a = point(axes, i), ref = point(references, i);
    const rest = new Float64Array(12), now = new Float64Array(12);
    if (i > 0) {
      const rel = mulT3(Rb(i), Rb(i - 1));
      const bp = point(axes, i - 1).map((x) => -x), rp = point(references, i - 1);
      rest.set([...bp, ...rp], 0);
      now.set([...turn(rel, bp), ...turn(rel, rp)], 0);
    } else {
      rest.set([...a.map((x) => -x), ...ref], 0);
      now.set(rest.subarray(0, 6), 0);
    }
    if (i + 1 < n) {
      const ac = point(axes, i + 1), rc = point(references, i + 1);
      rest.set([...ac, ...rc], 6);
      const b = turn(mulT3(Rb(i), Rb(i + 1)), ac);
      now.set([...b, ...turn(minimalRotation(ac, b), rc)], 6);
    } else {
      rest.set([...a, ...ref], 6);
      now.set(rest.subarray(6, 12), 6);
    }
    boneRest.push(rest);
    boneNow.push(now);
    // The joint at the start of bone i (i > 0): in the parent's frame, the parent and the child's swing.
    if (i > 0) {
      const ap = point(axes, i - 1), rp = point(references, i - 1);
      jointRest.push(Float64Array.from([...ap.map((x) => -x), ...rp, ...a, ...ref]));
      const b = turn(mulT3(Rb(i - 1), Rb(i)), a);
      jointNow.push(Float64Array.from([...ap.map((x) => -x), ...rp, ...b, ...turn(minimalRotation(a, b), ref)]));
    } else {
      jointRest.push(new Float64Array(0));
      jointNow.push(new Float64Array(0));
    }
    const b1 = now.subarray(6, 9);
    const template = rig.library.templates.find((x) => x.id === rig.boneTemplates[i])!;
    const clampDot = (u: ArrayLike<number>) => Math.max(-1, Math.min(1, dot(a, u)));
    bulge[i] = i + 1 < n ? bulgeOf(template, Math.max(0, Math.acos(clampDot(b1)) - Math.acos(clampDot(rest.subarray(6, 9))))) : 0;
    const side = sub(b1, a.map((x) => x * dot(b1, a)));
    const ls = Math.hypot(side[0], side[1], side[2]);
    inner.push(ls > 1e-12 ? side.map((x) => x / ls) : [0, 0, 0]);
  }
  // The template functions prepared once per bone and joint for this pose.
  const lengths = Array.from({ length: n }, (_, i) => Math.hypot(...sub(point(points, i + 1), point(points, i))));
  const bonePrepared = Array.from({ length: n }, (_, i) => {
    const t: BoneTemplateFrame = { axis: point(axes, i), length: lengths[i], reference: point(references, i) };
    return prepareBoneTemplate(t, boneRest[i], boneNow[i]);
  });
  const jointPrepared = Array.from({ length: n }, (_, i) =>
    i > 0 ? prepareJointTemplate([...point(axes, i - 1), ...point(references, i - 1)], jointRest[i], jointNow[i]) : undefined,
  );
  const local = new Float64Array(3);
  roles.forEach((role, v) => {
    const i = role.index;
    let rot: ArrayLike<number>;
    if (role.kind === 'cap') {
      rot = Rb(i);
      apply3(rot, 0, role.local, 0, local, 0);
    } else if (role.kind === 'bone') {
      const a = point(axes, i);
      bonePrepared[i](role.local, local);
      if (bulge[i] !== 0) {
        // The template's bulge: the inner side of the bend swells (or flattens), most mid-bone.
        const x = dot(local, a);
        const rho = sub(local, a.map((c) => c * x));
        const lr = Math.hypot(rho[0], rho[1], rho[2]);
        const c = lr > 0 ? Math.max(0, dot(rho, inner[i]) / lr) : 0;
        const f = 1 + bulge[i] * Math.sin(Math.PI * Math.max(0, Math.min(1, x / lengths[i]))) * c * c;
        for (let k = 0; k < 3; k++) local[k] = a[k] * x + f * rho[k];
      }
      rot = Rb(i);
      apply3(rot, 0, local, 0, local, 0);
    } else {
      jointPrepared[i]!(role.local, local);
      rot = Rb(i - 1);
      apply3(rot, 0, local, 0, local, 0);
    }
    const o = role.kind === 'cap' ? origin[i] : origin[i];
    for (let k = 0; k < 3; k++) out[3 * v + k] = o[k] + local[k];
  });
  return out;
}

/**
 * The registered `templates` method for a chain rig: template functions → cage vertices → skin
 * through the PMVC binding, with corskin's deformer signature. Allocation-free per frame after
 * the first call with a given mesh (except the small per-vertex template evaluations).
 */
export function createChainTemplateDeformer(rig: ChainTemplateRig): Deformer {
  const posedCage = new Float64Array(rig.cage.positions.length);
  let forMesh: SkinnedMesh | undefined;
  let deformer: CageDeformer | undefined;
  return (mesh, skinning, out) => {
    if (mesh !== forMesh) {
      deformer = createCageDeformer(mesh, rig.binding, rig.cage.positions);
      forMesh = mesh;
    }
    poseChainTemplates(rig, skinning, posedCage);
    deformer!.deform(posedCage, out);
  };
}
