/**
 * Skinning templates assembled into cages around a skeleton and the deformer they drive (Ju, Zhou,
 * van de Panne, Cohen-Or, Neumann, "Reusable Skinning Templates Using Cage-based Deformations",
 * SIGGRAPH Asia 2008, §4–5).
 *
 * The skeleton is cut into **limbs**, chains of joints ({@link skeletonLimbs}): at a branching
 * joint the straightest child continues the chain and every other child starts a limb whose first
 * bone runs from the branching joint to it (a hip, a shoulder, a tail root). Each limb gets its
 * own closed cage, fitted to the skin its joints move, and each skin vertex is bound (PMVC) to the
 * cages of its limbs only, blended by how much of its skinning weight each limb carries (a weight
 * on a branching joint goes to the limbs passing through it, {@link limbBlend}), so cages that
 * overlap near a junction never pull on the other limb's skin. Weight on joints no limb
 * covers (a joint at the position of its child, a root with no children), and a limb's share of
 * skin far beyond the limb ({@link limbBlend}), is skinned linearly in the same blend, so those
 * parts follow their joints with no seam. Around each limb:
 *
 * - a **bone template** around every bone (rings at ¼, ½, ¾ of its length), a **joint template**
 *   at every inner joint (rings on the parent side, at the joint, on the child side), an **end
 *   cap** at both chain ends (the library's first cap: a fan to an apex beyond the last ring);
 *   consecutive rings (all with the same number of sides and a reference direction carried along
 *   the chain) are bridged with the minimal-area triangulation (Fuchs, Kedem, Uselton 1977);
 * - where limbs branch off a joint a limb goes through (a chest, a quadruped's hip), the joint's
 *   template is one for all its incident bones (the paper's Fig. 13; {@link compatibleTemplates}): Eq. 1
 *   blends the parent bone, the bone that goes on and the branching limbs' first bones, and moves
 *   the branching limbs' end caps there too, so the cages meeting at the joint move as one
 *   template. A root's incident bones all turn with it: limbs starting there keep caps rigid
 *   with it;
 * - fitted to the skin: each template's radius from the farthest skin vertex around its part of
 *   the chain (or, with `rings: 'fitted'`, each side of a bone's rings from the skin's extent that
 *   way, {@link TemplateBuildOptions.rings}), grown bone by bone (those nearest to skin still outside) until every skin vertex
 *   is inside (bounded); a bent joint's rings set back by r·tan(bend/2) so they never cross; a
 *   leaf bone (glTF gives it no end) pointed at the skin it holds;
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
import { segmentDistance } from '../core/math.js';
import { cross, dot, normalize, point, sub } from '../core/vec3.js';
import { prepareBoneTemplate, type BoneTemplateFrame } from './bone.js';
import { minimalAreaBridge } from './bridge.js';
import { prepareJointTemplate } from './joint.js';
import { axisAngle, apply3, mulT3 } from './rotation.js';
import { createRbfWeights } from './key-poses.js';
import { designSamples, mirroredDesignVertex, noOffsets } from './design.js';
import { DEFAULT_TEMPLATE_LIBRARY, DESIGN_VERTICES, incidentBones, type BoneKeyPose, type TemplateDefinition, type TemplateLibrary } from './library.js';

/** Ring sides of the chain templates. */
const SIDES = 8;

/**
 * Cage vertices kept per skin vertex in each limb's binding (a vertex two limbs share keeps this
 * many of each), corrected linearly (negative weights allowed; see {@link bindToCage}). More than
 * a lone cage's default: a limb cage has many rings, and on Soldier.glb's clip the skin's creases
 * (edges whose dihedral angle changes by > 30°) fell from 1,138 with 24 (plain top-k, positive
 * correction) to 228 with 32 (soft-thresholded) and 182 corrected linearly (DQS: 91), at about 5%
 * of the GPU frame time.
 */
const LIMB_CAGE_INFLUENCES = 32;

/** `rings: 'fitted'`: no side of a ring nearer its bone than this fraction of the bone's radius. */
const FITTED_FLOOR = 0.3;
/** `rings: 'fitted'`: every side of a ring this fraction of the bone's radius beyond the skin. */
const FITTED_MARGIN = 0.05;
/** `rings: 'fitted'`: bones starting this near a joint where limbs branch (relative to the reach of the skin on it) keep round rings. */
const NEAR_BRANCH = 0.4;

/** What each cage vertex is: part of which template, with its rest position in that template's frame. */
export interface VertexRole {
  kind: 'bone' | 'joint' | 'cap';
  /** The chain bone (bone templates, caps) or the joint's index in the chain (joint templates). */
  index: number;
  /** Rest position relative to the template's origin, bind-space orientation. */
  local: number[];
}

/** One limb: a chain of joints with its part of the template cage and its vertices' roles. */
export interface TemplateLimb {
  /** Skeleton joints of the chain, root to leaf; bone i is owned by joint chain[i]. */
  chain: number[];
  /** Bind-space bone start points (the joints) and the end point of the last bone, 3·(n + 1). */
  points: Float64Array;
  /** Unit bone directions and reference directions (⊥, carried along), 3·n each. */
  axes: Float64Array;
  references: Float64Array;
  /** The limb's cage vertices are the rig cage's `[first, first + roles.length)`. */
  first: number;
  /** Per segment (consecutive chain joints), the distance (asset units) within which the cage moves the skin fully ({@link limbBlend}). */
  reach: number[];
  roles: VertexRole[];
  /** The bone template of each chain bone (an id of the rig's library); change with {@link setBoneTemplate}. */
  boneTemplates: string[];
  /** The joint template at each inner chain joint (index 0: none, `''`); change with {@link setBoneTemplate}. */
  jointTemplates: string[];
}

/** A skeleton's template cages (one closed component per limb), the skin's binding and the library. */
export interface TemplateRig {
  limbs: TemplateLimb[];
  /** All limbs' cages as one cage (closed components, one per limb). */
  cage: Cage;
  /**
   * Per skin vertex, its limbs' PMVC weights scaled by each limb's share of its skinning weight
   * (summing to the share the limbs cover).
   */
  binding: CageBinding;
  /**
   * Per mesh influence slot (K·n), the part of its weight skinned linearly: joints no limb covers,
   * and limb shares faded out beyond the limb's reach ({@link limbBlend}).
   */
  linear: Float32Array;
  /** The template library the choices come from. */
  library: TemplateLibrary;
}

/**
 * The limbs that branch off chain joint `i` of `limb` (they start at that joint, which `limb` goes
 * through): with the parent bone and the bone that goes on, the joint's incident bones.
 */
function branchesAt(rig: Pick<TemplateRig, 'limbs'>, limb: TemplateLimb, i: number): TemplateLimb[] {
  return i > 0 ? rig.limbs.filter((s) => s !== limb && s.chain[0] === limb.chain[i]) : [];
}

/**
 * How many incident bones the joint template at chain joint `i` of `limb` blends: the joint's
 * count (2 + the limbs branching off it) where the library has templates for it (the paper's
 * Fig. 13: 3 at a hip, 4 at a chest), else 2 — the parent bone and the bone that goes on, the
 * branching limbs' end caps then moving with the joint (a hand's five fingers, with the default
 * library).
 */
function slotBones(rig: Pick<TemplateRig, 'limbs' | 'library'>, limb: TemplateLimb, i: number): number {
  const k = 2 + branchesAt(rig, limb, i).length;
  return rig.library.templates.some((t) => t.kind === 'joint' && incidentBones(t) === k) ? k : 2;
}

/**
 * The ids of the rig's library a template slot at skeleton joint `joint` takes: `bone`, every bone
 * template; `joint`, the joint templates made for the joint's number of incident bones (2 + the
 * limbs branching off it) where the library has templates for that number, else for 2 — the
 * parent bone and the bone that goes on, the branching limbs' end caps then moving with the
 * joint (a hand's five fingers, with the default library).
 * Empty where the joint has no such slot (no bone starts at it in a limb; no limb goes through it).
 */
export function compatibleTemplates(rig: TemplateRig, joint: number, kind: 'bone' | 'joint'): string[] {
  const limb = rig.limbs.find((l) => l.chain.indexOf(joint) >= (kind === 'joint' ? 1 : 0));
  if (!limb) return [];
  const bones = kind === 'joint' ? slotBones(rig, limb, limb.chain.indexOf(joint)) : 0;
  return rig.library.templates.filter((t) => t.kind === kind && (kind === 'bone' || incidentBones(t) === bones)).map((t) => t.id);
}

/**
 * Switches the template at skeleton joint `joint` to `id` of the rig's library: a bone template
 * goes to every bone that starts at the joint, a joint template to the joint's template in the
 * limb that goes through it (made for its number of incident bones, {@link compatibleTemplates}).
 * Templates of one library share the fitted rest cage, so the binding stands: the next frame
 * shows it.
 * @throws CorskinError for an unknown id, a cap (caps shape the rest cage: chosen at build), a
 *   joint with no slot of that kind, or a joint template made for another number of incident bones
 */
export function setBoneTemplate(rig: TemplateRig, joint: number, id: string): void {
  const t = rig.library.templates.find((x) => x.id === id);
  if (!t) throw new CorskinError(`no template "${id}" (templates: ${rig.library.templates.map((x) => `${x.id} (${x.kind})`).join(', ')})`);
  if (t.kind === 'cap') throw new CorskinError(`"${id}" is an end cap: caps shape the rest cage, so they are chosen when it is built (the library's first cap)`);
  let found = false;
  for (const limb of rig.limbs)
    limb.chain.forEach((j, i) => {
      if (j !== joint) return;
      if (t.kind === 'bone') [limb.boneTemplates[i], found] = [id, true];
      else if (i > 0) {
        const bones = slotBones(rig, limb, i);
        if (incidentBones(t) !== bones)
          throw new CorskinError(`joint template "${id}" is made for ${incidentBones(t)} incident bones; joint ${joint} takes ${bones} (${compatibleTemplates(rig, joint, 'joint').join(', ')})`);
        [limb.jointTemplates[i], found] = [id, true];
      }
    });
  if (!found) throw new CorskinError(`joint ${joint} has no ${t.kind === 'bone' ? 'template bone starting at it' : 'joint template (it ends or starts every limb it is in)'}`);
}

/** Eq. 2's weights of template `t`'s key poses at the child's bend `bend` (rad from its rest bend): radial basis functions of the bend distance. */
function keyWeights(t: TemplateDefinition, bend: number): Float64Array {
  if (t.keyPoses.length === 1) return Float64Array.of(1);
  const bends = t.keyPoses.map((k) => (k.bend * Math.PI) / 180);
  return createRbfWeights(bends.length, (i, j) => Math.abs(bends[i] - bends[j]))(bends.map((k) => Math.abs(bend - k)));
}

/** A key-pose value of template `t` blended by the key weights `w` (Eq. 2). */
function keyValue(t: TemplateDefinition, w: ArrayLike<number>, value: (k: BoneKeyPose) => number): number {
  let out = 0;
  t.keyPoses.forEach((k, i) => (out += w[i] * value(k)));
  return out;
}

/** Template `t`'s drawn offsets (3·24, design frame) blended by the key weights `w` (Eq. 2); undefined when it has none. */
function blendedOffsets(t: TemplateDefinition, w: ArrayLike<number>): Float64Array | undefined {
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
  const lr = Math.hypot(f.radial[0], f.radial[1], f.radial[2]);
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
  const own = (j: number) => j < skeleton.skinJoints;
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
  [...parents.keys()].sort((x, y) => depth(y) - depth(x)).forEach((j) => parents[j] >= 0 && (size[parents[j]] += size[j]));
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
      const score = (c: number) => (from && apart(c, j) ? dot(from, normalize(sub(point(P, c), point(P, j)))) : size[c] / J - 2);
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

/** Options of {@link buildTemplateRig}. */
export interface TemplateBuildOptions {
  /** Skin vertices bound so far, of all the limbs' (the binding is the long part of a build). */
  onProgress?: (done: number, total: number) => void;
  /** Stops the build between vertex batches. */
  signal?: AbortSignal;
  /**
   * The bone rings' shape: `round` (default: every side as far out as the bone's farthest skin
   * vertex, the paper's radial scaling) or `fitted` (each side as far as the skin's cross-section
   * reaches that way, so rings hug a flat or off-centre torso; round near joints where limbs
   * branch, whose rings turn most and hold skin shared with other limbs). Measured over five
   * times of each first clip (triangles flipped against DQS; edges whose dihedral angle changes
   * by over 30°), round → fitted: the Soldier 68 → 44 and 860 → 409 (DQS 456); the Ybot 308 → 366
   * and 978 → 724; CesiumMan 18 → 18 and 335 → 359 (edges stretched by over 1% of the diagonal
   * against DQS 143 → 74); the Fox 3 → 2 and 193 → 203 — better on flat torsos, not everywhere,
   * hence not the default. A limb whose fitted cage cannot be grown around its skin (neighbouring
   * rings of different shapes folding the cage at a bent joint: two of rpm-avatar's limbs, five
   * of ShibaInu's, the libigl arm) gets round rings.
   */
  rings?: 'round' | 'fitted';
}

/**
 * Builds the template cages of `mesh`'s skeleton (one per limb, {@link skeletonLimbs}), fits each
 * to the skin its joints move and binds that skin with PMVC (see the module comment). A limb whose
 * cage cannot be grown to enclose its skin starts one joint further, until it is two joints long.
 * Where no limb carries the skin's weight the rig has no limb and no cage: all weight is skinned
 * linearly (LBS).
 * @throws CorskinError when a cage cannot be grown to enclose its skin; the signal's reason when aborted
 */
export function buildTemplateRig(
  mesh: SkinnedMesh,
  skeleton: Skeleton,
  library: TemplateLibrary = DEFAULT_TEMPLATE_LIBRARY,
  options: TemplateBuildOptions = {},
): TemplateRig {
  const P = bindJointPositions(skeleton);
  const n = mesh.positions.length / 3;
  const boneDefault = defaultTemplate(library, 'bone');
  const apex = library.templates.find((t) => t.kind === 'cap')?.apex ?? 0.5;
  // A limb whose cage cannot be fitted (turns too sharp for its thickness near the joint it
  // branches from) gives up its first joint, and every limb is fitted again with the new shares.
  let chains = skeletonLimbs(skeleton, P);
  const round = options.rings === 'fitted' ? nearBranches(mesh, P, chains) : undefined;
  for (;;) {
    const blend = limbBlend(mesh, P, chains);
    const L = chains.length;
    const fitted: { part: ChainCage; vertices: number[]; X: Float64Array; limb: number }[] = [];
    let failed = -1;
    for (let c = 0; c < L && failed < 0; c++) {
      const chain = chains[c];
      const { vertices, X } = limbSkin(mesh, blend.share, L, c);
      if (!vertices.length) continue;
      try {
        const fit = (r?: Set<number>) => fitChain(X, P, chain, apex, r, vertices, leafDirection(mesh, P, chain[chain.length - 1]));
        let part: ChainCage;
        try {
          part = fit(round);
        } catch (e) {
          // Fitted rings that cannot be grown around the skin (where neighbouring rings of
          // different shapes fold the cage at a bent joint): round ones, before giving up a joint.
          if (!round || !(e instanceof CorskinError)) throw e;
          part = fit(undefined);
        }
        fitted.push({ part, vertices, X, limb: c });
      } catch (e) {
        if (!(e instanceof CorskinError)) throw e;
        if (chain.length <= 2) {
          const names = `${skeleton.jointNames[chain[0]]} … ${skeleton.jointNames[chain[chain.length - 1]]}`;
          throw new CorskinError(`limb ${names}: ${e.message}`);
        }
        failed = c;
      }
    }
    if (failed >= 0) {
      chains = chains.map((chain, c) => (c === failed ? chain.slice(1) : chain));
      continue;
    }
    if (!fitted.length)
      // No limb carries this skin's weight (a rigid part on one joint, say): LBS, no cage.
      return {
        limbs: [],
        cage: { positions: new Float64Array(0), triangles: new Uint32Array(0) },
        binding: { method: 'pmvc', resolution: 0, influences: 0, indices: new Uint32Array(0), weights: new Float32Array(0) },
        linear: blend.linear,
        library,
      };
    let first = 0;
    const limbs: TemplateLimb[] = fitted.map(({ part, limb }) => {
      const out = { ...part, first, reach: blend.reach[limb], boneTemplates: part.chain.map(() => boneDefault), jointTemplates: part.chain.map(() => '') };
      first += part.cage.positions.length / 3;
      return out;
    });
    for (const limb of limbs) limb.jointTemplates = limb.chain.map((_, i) => (i > 0 ? defaultTemplate(library, 'joint', slotBones({ limbs, library }, limb, i)) : ''));
    const parts = bindLimbs(
      fitted.map((f) => ({ cage: f.part.cage, vertices: f.vertices, X: f.X, limb: f.limb })),
      options,
    );
    return combine(limbs, parts, blend, L, n, library);
  }
}

/**
 * The joints near a joint where limbs branch (a chest, a hip, a hand): within
 * {@link NEAR_BRANCH} of the distance to the farthest skin vertex whose largest weight is on that
 * joint. Their bones keep round rings with `rings: 'fitted'`.
 */
function nearBranches(mesh: SkinnedMesh, P: ArrayLike<number>, chains: number[][]): Set<number> {
  const starts = new Set(chains.map((c) => c[0]));
  const branching = [...starts].filter((j) => chains.filter((c) => c.includes(j)).length > 1);
  const reach = new Map(branching.map((j) => [j, 0]));
  const { joints, weights, influences: K, positions: X } = mesh;
  for (let v = 0; v < X.length / 3; v++) {
    let best = 0, j = -1; // prettier-ignore
    for (let k = K * v; k < K * v + K; k++) if (weights[k] > best) [best, j] = [weights[k], joints[k]];
    if (reach.has(j)) reach.set(j, Math.max(reach.get(j)!, Math.hypot(...sub(point(X, v), point(P, j)))));
  }
  const out = new Set<number>();
  for (const [j, r] of reach) for (const c of chains) for (const q of c) if (Math.hypot(...sub(point(P, q), point(P, j))) < NEAR_BRANCH * r) out.add(q);
  return out;
}

/** The skin vertices limb c has a share of (`share`: n·L, {@link limbBlend}) and their positions. */
function limbSkin(mesh: SkinnedMesh, share: Float64Array, L: number, c: number): { vertices: number[]; X: Float64Array } {
  const vertices: number[] = [];
  for (let i = 0; i < mesh.positions.length / 3; i++) if (share[L * i + c] > 0) vertices.push(i);
  const X = new Float64Array(3 * vertices.length);
  vertices.forEach((v, q) => X.set(mesh.positions.subarray(3 * v, 3 * v + 3), 3 * q));
  return { vertices, X };
}

/** Binds each limb's skin vertices (positions X) to the limb's cage with PMVC, progress over all of them. */
function bindLimbs(
  limbs: { cage: Cage; vertices: number[]; X: Float64Array; limb: number }[],
  options: TemplateBuildOptions,
): { cage: Cage; vertices: number[]; binding: CageBinding; limb: number }[] {
  const total = limbs.reduce((t, f) => t + f.vertices.length, 0);
  let done = 0;
  return limbs.map((f) => {
    const binding = bindToCage(f.X, f.cage, {
      influences: LIMB_CAGE_INFLUENCES,
      correction: 'linear',
      signal: options.signal,
      onProgress: options.onProgress && ((d) => options.onProgress!(done + d, total)),
    });
    done += f.vertices.length;
    return { cage: f.cage, vertices: f.vertices, binding, limb: f.limb };
  });
}

/** The limb whose part of the cage holds cage vertex `vertex`. @throws RangeError for a vertex the cage lacks */
function limbOfVertex(rig: TemplateRig, vertex: number): TemplateLimb {
  const limb = rig.limbs.find((l) => vertex >= l.first && vertex < l.first + l.roles.length);
  if (!limb) throw new RangeError(`the template cage has no vertex ${vertex}`);
  return limb;
}

/**
 * Moves cage vertex `vertex` of the rig's rest cage by `delta` (bind space, 3 numbers): the cage
 * and the vertex's rest position in its template's frame (the paper's manual correction of the
 * automatic fit). The binding no longer fits: {@link rebindTemplateRig} next.
 * @throws RangeError for a vertex the cage lacks
 */
export function moveTemplateCageVertex(rig: TemplateRig, vertex: number, delta: ArrayLike<number>): void {
  const limb = limbOfVertex(rig, vertex);
  const role = limb.roles[vertex - limb.first];
  role.local = role.local.map((x, k) => x + delta[k]);
  for (let k = 0; k < 3; k++) rig.cage.positions[3 * vertex + k] += delta[k];
}

/**
 * The rig of one part of the skin a rig was built for (a skin split into meshes, as three.js
 * loads a glTF skin of several primitives: see {@link mergeSkinnedMeshes}): the same limbs, cage
 * and library (shared: a template switch or a cage edit reaches every part), the part's slice of
 * the binding, and its linear part from the limbs' reaches ({@link limbBlend}, per vertex, so the
 * part deforms exactly as its vertices of the whole skin do).
 * @param part the part's mesh: the whole skin's vertices `[first, first + n)`
 * @param jointPositions bind joint positions, 3·J
 */
export function templateRigPart(rig: TemplateRig, part: SkinnedMesh, jointPositions: ArrayLike<number>, first: number): TemplateRig {
  const n = part.positions.length / 3, k = rig.binding.influences; // prettier-ignore
  const binding = { ...rig.binding, indices: rig.binding.indices.slice(k * first, k * (first + n)), weights: rig.binding.weights.slice(k * first, k * (first + n)) }; // prettier-ignore
  return { ...rig, binding, linear: partLinear(rig, part, jointPositions) };
}

/** The whole skin's rig from its parts' rigs ({@link templateRigPart}, in order). @param mesh the parts merged */
export function joinTemplateRigParts(parts: readonly TemplateRig[], mesh: SkinnedMesh, jointPositions: ArrayLike<number>): TemplateRig {
  const join = <T extends Uint32Array | Float32Array>(get: (r: TemplateRig) => T, make: (n: number) => T) => {
    const out = make(parts.reduce((t, r) => t + get(r).length, 0));
    parts.reduce((o, r) => (out.set(get(r), o), o + get(r).length), 0);
    return out;
  };
  const binding = { ...parts[0].binding, indices: join((r) => r.binding.indices, (n) => new Uint32Array(n)), weights: join((r) => r.binding.weights, (n) => new Float32Array(n)) }; // prettier-ignore
  return { ...parts[0], binding, linear: partLinear(parts[0], mesh, jointPositions) };
}

const partLinear = (rig: TemplateRig, mesh: SkinnedMesh, jointPositions: ArrayLike<number>) =>
  rig.limbs.length ? limbBlend(mesh, jointPositions, rig.limbs.map((l) => l.chain), rig.limbs.map((l) => l.reach)).linear : Float32Array.from(mesh.weights); // prettier-ignore

/**
 * The rig with its skin bound anew to its (edited) cage: each limb's share of the skin (its stored
 * reaches, {@link limbBlend}) bound with PMVC to the limb's part of the cage, as
 * {@link buildTemplateRig} binds a fitted cage; templates and choices kept.
 * @param jointPositions bind joint positions, 3·J (the mesh's bind space)
 * @throws CorskinError naming the skin vertices outside a limb's cage (move the vertex back out)
 */
export function rebindTemplateRig(
  rig: TemplateRig,
  mesh: SkinnedMesh,
  jointPositions: ArrayLike<number>,
  options: TemplateBuildOptions = {},
): TemplateRig {
  if (!rig.limbs.length) return rig;
  const chains = rig.limbs.map((l) => l.chain);
  const blend = limbBlend(mesh, jointPositions, chains, rig.limbs.map((l) => l.reach));
  const L = chains.length;
  const n = mesh.positions.length / 3;
  const limbs = rig.limbs.map((limb, c) => ({ cage: limbCage(rig, limb), ...limbSkin(mesh, blend.share, L, c), limb: c }));
  return combine(rig.limbs, bindLimbs(limbs, options), blend, L, n, rig.library);
}

/** The limb's closed component of the rig's cage, its vertices renumbered from 0. */
function limbCage(rig: TemplateRig, limb: TemplateLimb): Cage {
  const m = limb.roles.length;
  const triangles: number[] = [];
  for (let f = 0; f < rig.cage.triangles.length; f += 3) {
    const v = rig.cage.triangles[f];
    if (v >= limb.first && v < limb.first + m) for (let k = 0; k < 3; k++) triangles.push(rig.cage.triangles[f + k] - limb.first);
  }
  return { positions: rig.cage.positions.slice(3 * limb.first, 3 * (limb.first + m)), triangles: Uint32Array.from(triangles) };
}

/**
 * The skin vertices outside a cage they are bound to: per limb, the vertices with a binding entry
 * on the limb's cage whose generalised winding number about it is below ½ (Jacobson, Kavan,
 * Sorkine-Hornung, "Robust Inside-Outside Segmentation using Generalized Winding Numbers",
 * SIGGRAPH 2013). Empty for a rig corskin built or bound again (both refuse to leave skin out);
 * a stored cage edited elsewhere may leave some, which then follow the cage's extrapolation.
 * @param positions the skin's rest positions (bind space, 3·n), as the rig was bound
 * @returns ascending skin vertex indices
 */
export function templateSkinOutside(rig: TemplateRig, positions: ArrayLike<number>): number[] {
  const { influences: k, indices, weights } = rig.binding;
  const outside = new Set<number>();
  for (const limb of rig.limbs) {
    const end = limb.first + limb.roles.length;
    const vertices: number[] = [];
    for (let i = 0; k && i < indices.length / k; i++)
      for (let s = k * i; s < k * i + k; s++)
        if (weights[s] !== 0 && indices[s] >= limb.first && indices[s] < end) {
          vertices.push(i);
          break;
        }
    const X = new Float64Array(3 * vertices.length);
    vertices.forEach((v, q) => {
      for (let c = 0; c < 3; c++) X[3 * q + c] = positions[3 * v + c];
    });
    for (const q of pointsOutside(limbCage(rig, limb), X)) outside.add(vertices[q]);
  }
  return [...outside].sort((a, b) => a - b);
}

/** What the CLI and corskin/three say of a non-empty {@link templateSkinOutside} result. */
export function skinOutsideMessage(outside: readonly number[]): string {
  return `${outside.length} skin vertices lie outside the stored template cage (first: ${outside.slice(0, 5).join(', ')}); they follow the cage's extrapolation`;
}

/**
 * The direction of a leaf joint's bone (glTF gives it no end): towards the centroid of the skin it
 * holds at least half of (a curled tail's tip, a hand, a head), or undefined when that is empty
 * or at the joint (the parent bone's direction then goes on).
 */
function leafDirection(mesh: SkinnedMesh, P: Float64Array, joint: number): number[] | undefined {
  const { joints, weights, influences: K, positions: X } = mesh;
  const sum = [0, 0, 0];
  let count = 0;
  for (let i = 0; i < X.length / 3; i++) {
    let w = 0;
    for (let k = K * i; k < K * i + K; k++) if (joints[k] === joint) w += weights[k];
    if (w < 0.5) continue;
    for (let k = 0; k < 3; k++) sum[k] += X[3 * i + k];
    count++;
  }
  if (!count) return undefined;
  const d = sub(sum.map((x) => x / count), point(P, joint));
  const len = Math.hypot(d[0], d[1], d[2]);
  let extent = 0;
  for (let i = 0; i < X.length / 3; i++) extent = Math.max(extent, Math.hypot(...sub(point(X, i), point(P, joint))));
  return len > 0.05 * extent ? d.map((x) => x / len) : undefined;
}

/** One rig of the fitted limbs: their cages as one cage, each vertex's limb bindings scaled by its shares. */
function combine(
  limbs: TemplateLimb[],
  parts: { cage: Cage; vertices: number[]; binding: CageBinding; limb: number }[],
  blend: ReturnType<typeof limbBlend>,
  L: number,
  n: number,
  library: TemplateLibrary,
): TemplateRig {
  const cage: Cage = {
    positions: Float64Array.from(parts.flatMap((p) => Array.from(p.cage.positions))),
    triangles: Uint32Array.from(parts.flatMap((p, q) => Array.from(p.cage.triangles, (v) => v + limbs[q].first))),
  };
  const slots = new Int32Array(n);
  for (const p of parts) for (const v of p.vertices) slots[v] += p.binding.influences;
  const k = Math.max(...slots);
  const binding: CageBinding = { ...parts[0].binding, influences: k, indices: new Uint32Array(k * n), weights: new Float32Array(k * n) };
  slots.fill(0);
  parts.forEach((p, q) => {
    const kp = p.binding.influences;
    p.vertices.forEach((v, r) => {
      const s = blend.share[L * v + p.limb];
      for (let e = 0; e < kp; e++, slots[v]++) {
        binding.indices[k * v + slots[v]] = p.binding.indices[kp * r + e] + limbs[q].first;
        binding.weights[k * v + slots[v]] = s * p.binding.weights[kp * r + e];
      }
    });
  });
  return { limbs, cage, binding, linear: blend.linear, library };
}

/**
 * How each skin vertex's skinning weight is split between the limbs' cages and linear skinning.
 *
 * A joint only one limb has gives its weight to that limb; a branching joint (several limbs) gives
 * its weight to the limbs that pass through it, not to those that only start there (a chest's
 * weight goes to the spine, not to the shoulders, so the arm's cage never drives the chest), or
 * to all of them where every one starts there (a root); several such limbs split it in proportion
 * to the vertex's weight on their other joints (all to the first of them when there is none); a
 * joint no limb has is skinned linearly. The **reach** of a
 * limb's segment (two consecutive joints) is the largest distance from it of the vertices closest
 * to it that the limb holds at least half of (its own skin); beyond the reach of every segment a
 * vertex's share fades (smoothstep) to linear skinning at 1.5× the reach, so a cage is never
 * stretched over skin far from its limb that carries only a little of its weight (a belly vertex
 * with a tenth of a thigh).
 * @param P bind joint positions, 3·J (the mesh's bind space)
 * @param chains the limbs, in the same order at build and at load (limbs without skin may be left out)
 * @param reach per limb, its segments' reaches (computed when not given; a limb without is all linear)
 * @returns share (n·L), the reaches (per limb, per segment), and per mesh influence slot the weight skinned linearly (K·n)
 */
export function limbBlend(
  mesh: SkinnedMesh,
  P: ArrayLike<number>,
  chains: number[][],
  reach?: ArrayLike<ArrayLike<number> | undefined>,
): { share: Float64Array; reach: number[][]; linear: Float32Array } {
  const L = chains.length;
  const J = P.length / 3;
  const limbsOf: number[][] = Array.from({ length: J }, () => []);
  chains.forEach((chain, c) => chain.forEach((j) => limbsOf[j].push(c)));
  // A branching joint's weight goes to the limbs it is inside of (the trunk through a chest), not
  // to those that only start there (a shoulder): where it starts every limb (a root), to all.
  const through = limbsOf.map((limbs, j) => {
    const inside = limbs.filter((c) => chains[c][0] !== j);
    return inside.length ? inside : limbs;
  });
  const { joints, weights, influences: K, positions: X } = mesh;
  const n = weights.length / K;
  const own = new Float64Array(L);
  /** Vertex i's influence slots' weight per limb: visit(slot, limb, weight). */
  const portions = (i: number, visit: (k: number, c: number, w: number) => void) => {
    own.fill(0);
    for (let k = K * i; k < K * i + K; k++) if (weights[k] > 0 && limbsOf[joints[k]]?.length === 1) own[limbsOf[joints[k]][0]] += weights[k];
    for (let k = K * i; k < K * i + K; k++) {
      const limbs = through[joints[k]] ?? [];
      if (!(weights[k] > 0) || !limbs.length) continue;
      const total = limbs.reduce((t, c) => t + own[c], 0);
      for (const c of limbs) visit(k, c, total > 0 ? (weights[k] * own[c]) / total : c === limbs[0] ? weights[k] : 0);
    }
  };
  const share = new Float64Array(n * L);
  for (let i = 0; i < n; i++) portions(i, (_, c, w) => (share[L * i + c] += w));
  // Distances from each segment (consecutive joints) of each limb the vertex has a share in.
  const segments = chains.map((chain) => chain.length - 1);
  const start = segments.reduce((o, m, c) => (o.push(o[c] + m), o), [0]);
  const S = start[L];
  const distance = new Float64Array(n * S);
  for (let i = 0; i < n; i++)
    for (let c = 0; c < L; c++)
      if (share[L * i + c] > 0)
        for (let b = 0; b < segments[c]; b++) distance[S * i + start[c] + b] = segmentDistance(X, 3 * i, point(P, chains[c][b]), point(P, chains[c][b + 1]));
  const closest = (i: number, c: number) => {
    let best = 0;
    for (let b = 1; b < segments[c]; b++) if (distance[S * i + start[c] + b] < distance[S * i + start[c] + best]) best = b;
    return best;
  };
  const reaches = chains.map((_, c) => {
    if (reach) return Array.from(reach[c] ?? []);
    const own = new Float64Array(segments[c]), all = new Float64Array(segments[c]); // prettier-ignore
    for (let i = 0; i < n; i++) {
      if (!(share[L * i + c] > 0)) continue;
      const b = closest(i, c), d = distance[S * i + start[c] + b]; // prettier-ignore
      all[b] = Math.max(all[b], d);
      if (share[L * i + c] >= 0.5) own[b] = Math.max(own[b], d);
    }
    const r = Array.from(own, (x, b) => x || all[b]);
    const widest = Math.max(0, ...r);
    return r.map((x, b) => x || Math.max(r[b - 1] ?? 0, r[b + 1] ?? 0) || widest);
  });
  const keep = new Float64Array(n * L); // fraction of each limb share its cage keeps
  for (let i = 0; i < n; i++)
    for (let c = 0; c < L; c++) {
      if (!(share[L * i + c] > 0)) continue;
      let k = 0;
      for (let b = 0; b < segments[c]; b++) {
        const t = Math.min(1, Math.max(0, (distance[S * i + start[c] + b] / (reaches[c][b] || 1e-300) - 1) / 0.5));
        k = Math.max(k, 1 - t * t * (3 - 2 * t));
      }
      keep[L * i + c] = k;
      share[L * i + c] *= k;
    }
  const linear = new Float32Array(K * n);
  for (let i = 0; i < n; i++) {
    for (let k = K * i; k < K * i + K; k++) if (weights[k] > 0 && !limbsOf[joints[k]]?.length) linear[k] = weights[k];
    portions(i, (k, c, w) => (linear[k] += w * (1 - keep[L * i + c])));
  }
  return { share, reach: reaches, linear };
}

/**
 * The library's default template of a kind (joint templates: for `bones` incident bones): its
 * first with a single key pose, else its first. @throws CorskinError when it has none
 */
function defaultTemplate(library: TemplateLibrary, kind: 'bone' | 'joint', bones = 2): string {
  const fits = (x: TemplateDefinition) => x.kind === kind && (kind === 'bone' || incidentBones(x) === bones);
  const t = library.templates.find((x) => fits(x) && x.keyPoses.length === 1) ?? library.templates.find(fits);
  if (!t) throw new CorskinError(`the template library has no ${kind} template${kind === 'joint' ? ` for ${bones} incident bones` : ''}`);
  return t.id;
}

/** A chain's fitted template cage. */
type ChainCage = Omit<TemplateLimb, 'first' | 'reach' | 'boneTemplates' | 'jointTemplates'> & { cage: Cage };

/**
 * Fits the template cage of joint chain `chain` (bind joint positions `P`, 3·J) to the points
 * `X` (3·n, the skin it must enclose); its end caps' apexes `apex` ring radii beyond their rings;
 * bone rings fitted to the skin's cross-section except on bones starting at a joint of `round`,
 * or round everywhere when `round` is undefined.
 * @throws CorskinError when it cannot be grown to enclose them
 */
function fitChain(X: ArrayLike<number>, P: Float64Array, chain: number[], apex: number, round: Set<number> | undefined, ids?: number[], leaf?: number[]): ChainCage {
  const n = chain.length; // bones: one per chain joint (the last ends where the skin ends)
  const pts = chain.map((j) => point(P, j));
  const lastDir = leaf ?? normalize(sub(pts[n - 1], pts[n - 2]));
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
  // Each bone's part of the skin (the vertices closest to it): its radius, and its extent towards
  // each side of the ring (the support h_e = max over those vertices of their offset from the bone
  // along the edge normal n_e, in the bone's ring frame), so a ring hugs a flat or off-centre
  // cross-section (a torso around a spine near its back) instead of its circumscribed circle;
  // the supports only where rings are fitted.
  const boneRadius = new Float64Array(n);
  const support = new Float64Array(n * SIDES);
  const nearest = new Int32Array(X.length / 3);
  const normals = Array.from({ length: round ? n : 0 }, (_, i) => {
    const a = point(axes, i), ref = point(references, i), other = cross(a, ref); // prettier-ignore
    return Array.from({ length: SIDES }, (_, e) => {
      const t = (2 * Math.PI * (e + 0.5)) / SIDES;
      return ref.map((x, k) => Math.cos(t) * x + Math.sin(t) * other[k]);
    });
  });
  for (let v = 0; v < X.length / 3; v++) {
    let best = Infinity, bone = 0; // prettier-ignore
    for (let i = 0; i < n; i++) {
      const dist = segmentDistance(X, 3 * v, pts[i], pts[i + 1]);
      if (dist < best) [best, bone] = [dist, i];
    }
    boneRadius[bone] = Math.max(boneRadius[bone], best);
    nearest[v] = bone;
    if (!round) continue;
    const d = sub(point(X, v), pts[bone]);
    for (let e = 0; e < SIDES; e++) support[SIDES * bone + e] = Math.max(support[SIDES * bone + e], dot(d, normals[bone][e]));
  }
  // A bone no vertex is closest to (a leaf bone inside a foot or hand) takes its neighbours' radius (round).
  const empty = Array.from(boneRadius, (r) => !(r > 0));
  for (let i = 0; i < n; i++)
    if (empty[i]) boneRadius[i] = Math.max(boneRadius[i - 1] ?? 0, boneRadius[i + 1] ?? 0) || 0.05 * totalLength;
  // Fitted rings: no side nearer the bone than FITTED_FLOOR of its radius (the cage stays around
  // the bone), every side a margin out. Other bones' rings are round (`undefined`).
  const fitted = Array.from({ length: n }, (_, i) =>
    round && !round.has(chain[i]) && !empty[i]
      ? support.subarray(SIDES * i, SIDES * i + SIDES).map((h) => Math.max(h, FITTED_FLOOR * boneRadius[i]) + FITTED_MARGIN * boneRadius[i])
      : undefined,
  );
  const lengths = Array.from({ length: n }, (_, i) => Math.hypot(...sub(pts[i + 1], pts[i])));
  // Grown bone by bone: the bones nearest to skin still outside, until none is (bounded).
  const grow = new Float64Array(n).fill(1.15);
  for (;;) {
    const shape = Array.from(boneRadius, (r, i) => fitted[i]?.map((h) => h * grow[i]) ?? (r / Math.cos(Math.PI / SIDES)) * grow[i]);
    const { cage, roles } = assemble(points, axes, references, lengths, shape, head, apex);
    const outside = pointsOutside(cage, X);
    if (!outside.length) return { chain, points, axes, references, cage, roles };
    const bones = new Set(outside.map((v) => nearest[v]));
    if ([...bones].some((i) => grow[i] > 4))
      throw new CorskinError(`the template cage leaves ${outside.length} skin vertices outside even grown 4×; first: ${outside.slice(0, 5).map((q) => ids?.[q] ?? q).join(', ')}`);
    for (const i of bones) grow[i] *= 1.15;
  }
}

/**
 * The cage: rings along the chain, bridged (minimal area), fans to an apex `apex` ring radii beyond
 * both end rings. Per bone, `shape` is its rings' radius (round) or their distances from the bone
 * towards each of the SIDES edge normals (fitted: a ring's vertices are where consecutive edges
 * meet); a joint's rings are round, as far out as the farther ring of its two bones.
 */
function assemble(points: Float64Array, axes: Float64Array, refs: Float64Array, lengths: number[], shape: (number | Float64Array)[], head: number, apex: number) {
  const n = lengths.length;
  const positions: number[] = [];
  const roles: VertexRole[] = [];
  const rings: number[][] = [];
  // A bone's radius: its ring's farthest reach, as a regular ring around its farthest side.
  const radius = shape.map((h) => (typeof h === 'number' ? h : Math.max(...h) / Math.cos(Math.PI / SIDES)));
  const ring = (centre: number[], dir: number[], ref: number[], h: number | Float64Array, role: Omit<VertexRole, 'local'>, origin: number[]) => {
    const other = cross(dir, ref);
    const ids: number[] = [];
    const det = Math.sin((2 * Math.PI) / SIDES);
    for (let s = 0; s < SIDES; s++) {
      const a = (2 * Math.PI * s) / SIDES;
      let p: number[];
      if (typeof h === 'number') p = centre.map((c, k) => c + h * (Math.cos(a) * ref[k] + Math.sin(a) * other[k]));
      else {
        // Where the edges before and after vertex s meet: x·n_(s−1) = h_(s−1), x·n_s = h_s.
        const t1 = a - Math.PI / SIDES, t2 = a + Math.PI / SIDES; // prettier-ignore
        const h1 = h[(s + SIDES - 1) % SIDES], h2 = h[s]; // prettier-ignore
        const x = (h1 * Math.sin(t2) - h2 * Math.sin(t1)) / det, y = (h2 * Math.cos(t1) - h1 * Math.cos(t2)) / det; // prettier-ignore
        p = centre.map((c, k) => c + x * ref[k] + y * other[k]);
      }
      ids.push(positions.length / 3);
      positions.push(...p);
      roles.push({ ...role, local: sub(p, origin) });
    }
    rings.push(ids);
  };
  const tip = (p: number[], bone: number, origin: number[]) => {
    positions.push(...p);
    roles.push({ kind: 'cap', index: bone, local: sub(p, origin) });
    return positions.length / 3 - 1;
  };
  const P = (i: number) => point(points, i);
  // Root cap: moves with bone 0, or with the template of the joint the limb branches off (poseTemplates).
  const a0 = point(axes, 0), r0 = point(refs, 0);
  const rootApex = tip(P(0).map((x, k) => x - a0[k] * (head + apex * radius[0])), 0, P(0));
  ring(P(0).map((x, k) => x - a0[k] * head), a0, r0, shape[0], { kind: 'cap', index: 0 }, P(0));
  // Each inner joint's template reaches h along its two bones: far enough that its side rings
  // do not cross its middle ring at a bent joint (h > r·tan(half the bend)), within the bones.
  const h = Array.from({ length: n }, (_, i) => {
    if (i === 0) return 0;
    const r = Math.max(radius[i - 1], radius[i]);
    const half = 0.5 * Math.acos(Math.max(-1, Math.min(1, dot(point(axes, i - 1), point(axes, i)))));
    const h0 = Math.min(0.2 * Math.min(lengths[i - 1], lengths[i]), 0.6 * r);
    return Math.min(0.45 * Math.min(lengths[i - 1], lengths[i]), Math.max(h0, 1.1 * r * Math.tan(half)));
  });
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
      ring(P(i).map((c, k) => c + a[k] * x), a, ref, shape[i], { kind: 'bone', index: i }, P(i));
  }
  // Leaf cap (rigid with the last bone) at the end of the skin.
  const an = point(axes, n - 1), rn = point(refs, n - 1);
  ring(P(n), an, rn, shape[n - 1], { kind: 'cap', index: n - 1 }, P(n - 1));
  const leafApex = tip(P(n).map((x, k) => x + an[k] * apex * radius[n - 1]), n - 1, P(n - 1));
  const triangles: number[] = [];
  for (let s = 0; s < SIDES; s++) triangles.push(rootApex, rings[0][(s + 1) % SIDES], rings[0][s]);
  for (let k = 0; k + 1 < rings.length; k++) triangles.push(...minimalAreaBridge(positions, rings[k], rings[k + 1]).triangles);
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

/**
 * Posed cage vertices of the rig (Eq. 1–4 per template) for the skinning matrices `skinning`
 * (16·J, column-major, bind space → posed space), into `out` (3·m, posed space).
 * @param memo from {@link createTemplateMemo}: what depends on the rest pose only, kept between
 *   calls with the same rig (optional; the result is the same)
 */
export function poseTemplates(rig: TemplateRig, skinning: Float64Array, out: Float64Array, memo?: Float64Array): Float64Array {
  const R = boneRotations(skinning);
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

/** Workspace for {@link poseTemplates}: 9 numbers per cage vertex of `rig`, NaN (not yet computed). */
export function createTemplateMemo(rig: TemplateRig): Float64Array {
  return new Float64Array(9 * (rig.cage.positions.length / 3)).fill(NaN);
}

/** What {@link dragTemplateKeyPose} learns of one cage vertex while its limb is posed. */
interface OffsetProbe {
  /** The rig's cage vertex. */
  vertex: number;
  found?: {
    frame: OffsetFrame;
    /** Units of the axial and the radial/tangential offsets (asset units). */
    units: readonly [number, number];
    axis: number[];
    keyWeights: Float64Array;
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
function poseLimb(
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
  const Rb = (i: number) => R.subarray(9 * chain[i], 9 * chain[i] + 9);
  const linear = chain.map((j) => {
    const o = 16 * j;
    return Float64Array.of(skinning[o], skinning[o + 4], skinning[o + 8], skinning[o + 1], skinning[o + 5], skinning[o + 9], skinning[o + 2], skinning[o + 6], skinning[o + 10]); // prettier-ignore
  });
  const Lb = (i: number) => linear[i]; // row-major linear part of bone i's skinning matrix
  // Per bone, once per frame: where its start is, its template's relevant-bone frames at rest and
  // now (the parent in full, the child by its swing only), and its bulge.
  const origin: number[][] = [];
  const boneRest: Float64Array[] = [], boneNow: Float64Array[] = [], jointRest: Float64Array[] = [], jointNow: Float64Array[] = [];
  const bulge = new Float64Array(n); // signed: > 0 on the inner side of the child's bend, < 0 the outer
  const slide = new Float64Array(n); // along the bone, a fraction of its length (mid-bone)
  const twist = new Float64Array(n); // about the bone, radians (mid-bone)
  const jointBulge = new Float64Array(n); // signed: > 0 on the inner side of joint i's bend, < 0 the outer
  // Drawn offsets (version 2), blended over the key poses; the key weights and bends for a probe.
  const boneOffsets: (Float64Array | undefined)[] = [], jointOffsets: (Float64Array | undefined)[] = [];
  const boneKeys: Float64Array[] = [], jointKeys: Float64Array[] = [];
  const bends = new Float64Array(n);
  const blendsBranches: boolean[] = []; // per joint: its template blends limbs branching off it
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
    // The joint at the start of bone i (i > 0): in the parent's frame, the parent and the child's
    // swing; with a template for more incident bones, the first bones of the limbs branching off
    // it too, turned in full (they carry no twist of their own along the bone that goes on).
    if (i > 0) {
      const ap = point(axes, i - 1), rp = point(references, i - 1);
      const rel = mulT3(Rb(i - 1), Rb(i));
      const b = turn(rel, a);
      const branches = incidentBones(library.templates.find((x) => x.id === limb.jointTemplates[i])!) > 2 ? branchesAt(rig, limb, i) : [];
      blendsBranches[i] = branches.length > 0;
      const side = (s: TemplateLimb) => [point(s.axes, 0), point(s.references, 0)];
      jointRest.push(Float64Array.from([...ap.map((x) => -x), ...rp, ...a, ...ref, ...branches.flatMap((s) => side(s).flat())]));
      jointNow.push(Float64Array.from([...ap.map((x) => -x), ...rp, ...b, ...turn(minimalRotation(a, b), ref), ...branches.flatMap((s) => side(s).flatMap((d) => turn(rel, d)))]));
    } else {
      jointRest.push(new Float64Array(0));
      jointNow.push(new Float64Array(0));
    }
    const b1 = now.subarray(6, 9);
    const template = library.templates.find((x) => x.id === limb.boneTemplates[i])!;
    const clampDot = (u: ArrayLike<number>) => Math.max(-1, Math.min(1, dot(a, u)));
    // The child's bend from its rest bend; the joint template of joint i + 1 bulges by it too.
    const bend = Math.max(0, Math.acos(clampDot(b1)) - Math.acos(clampDot(rest.subarray(6, 9))));
    bends[i] = bend;
    if (i + 1 < n) {
      const w = (boneKeys[i] = keyWeights(template, bend));
      bulge[i] = (template.side === 'outer' ? -1 : 1) * keyValue(template, w, (k) => k.bulge);
      slide[i] = keyValue(template, w, (k) => k.slide ?? 0);
      twist[i] = (keyValue(template, w, (k) => k.twist ?? 0) * Math.PI) / 180;
      boneOffsets[i] = blendedOffsets(template, w);
      const jt = library.templates.find((x) => x.id === limb.jointTemplates[i + 1])!;
      const wj = (jointKeys[i + 1] = keyWeights(jt, bend));
      jointBulge[i + 1] = (jt.side === 'outer' ? -1 : 1) * keyValue(jt, wj, (k) => k.bulge);
      jointOffsets[i + 1] = blendedOffsets(jt, wj);
    }
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
        apply3(Lb(i - 1), 0, local, 0, local, 0);
        for (let k = 0; k < 3; k++) out[o + k] = origin[i][k] + local[k];
      });
  const frame = offsetFrame();
  let jointStart = 0; // the first vertex of the joint template being posed
  for (let v = 0; v < roles.length; v++) {
    const role = roles[v];
    const i = role.index;
    // The template's offset, in bind orientation, then carried by the owning bone's linear part
    // (its rotation, and its scale where the armature scales).
    if (role.kind === 'cap') {
      local.set(role.local);
      apply3(Lb(i), 0, local, 0, local, 0);
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
        const radius = Math.hypot(rl[0] - a[0] * x, rl[1] - a[1] * x, rl[2] - a[2] * x);
        locateOffsets(local, a, inner[i], (4 * x) / lengths[i] - 1, frame);
        addOffsets(local, boneOffsets[i], frame, a, lengths[i], radius);
        if (probe?.vertex === first + v) probe.found = { frame: copyFrame(frame), units: [lengths[i], radius], axis: Array.from(a), keyWeights: boneKeys[i], bend: bends[i], slot: i, kind: 'bone' };
      }
      apply3(Lb(i), 0, local, 0, local, 0);
    } else {
      jointLocal(i, role.local, memo, 9 * (first + v));
      if (role.index !== roles[v - 1]?.index || roles[v - 1]?.kind !== 'joint') jointStart = v;
      if (jointOffsets[i] || probe?.vertex === first + v) {
        // Drawn offsets: in the joint's radius (its middle ring's), about the parent bone.
        const a = axes.subarray(3 * i - 3, 3 * i);
        const rl = roles[jointStart + SIDES].local;
        const radius = Math.hypot(rl[0], rl[1], rl[2]);
        locateOffsets(local, a, inner[i - 1], Math.floor((v - jointStart) / SIDES), frame);
        addOffsets(local, jointOffsets[i], frame, a, radius, radius);
        if (probe?.vertex === first + v) probe.found = { frame: copyFrame(frame), units: [radius, radius], axis: Array.from(a), keyWeights: jointKeys[i], bend: bends[i - 1], slot: i, kind: 'joint' };
      }
      apply3(Lb(i - 1), 0, local, 0, local, 0);
    }
    const o = origin[i];
    for (let k = 0; k < 3; k++) out[3 * (first + v) + k] = o[k] + local[k];
  }
}

/**
 * The template editor's vertex drag — templates are "defined once by artists" by posing the
 * relevant bones and moving template vertices into a key pose (Ju et al. 2008, §3): the template
 * on the slot of cage vertex `vertex`, renamed `id`, with a key pose at this pose's bend (added
 * with the values the template blends to there, Eq. 2, so nothing else moves; or the key pose
 * already within 0.5° of it) whose drawn offsets ({@link DESIGN_VERTICES}) move the vertex by
 * exactly `delta` at this pose. The offsets go to the design vertices the vertex is interpolated
 * from, in proportion to their weights (the least change that does it); `symmetric` mirrors them
 * about the bend plane (then a vertex on that plane cannot move around the bone). Put the result
 * into the library ({@link withTemplates}) and on the slot ({@link setBoneTemplate}).
 * @param skinning the pose: skinning matrices, 16·J, column-major, bind space → posed space
 * @param delta the vertex's move in posed space (the mesh's geometry space), 3 numbers
 * @throws CorskinError for a vertex of an end cap, a pose within 1° of the rest bend (the rest
 *   key pose is the fitted cage, Eq. 5–6), a vertex on its template's axis, or a move of more
 *   than 2 units (cage radii; bone lengths along a bone) at a design vertex
 * @throws RangeError for a vertex the cage lacks
 */
export function dragTemplateKeyPose(
  rig: TemplateRig,
  skinning: Float64Array,
  vertex: number,
  delta: ArrayLike<number>,
  id: string,
  options: { symmetric?: boolean } = {},
): TemplateDefinition {
  const limb = limbOfVertex(rig, vertex);
  if (limb.roles[vertex - limb.first].kind === 'cap') throw new CorskinError(`cage vertex ${vertex} belongs to an end cap, which has no template to edit`);
  const R = boneRotations(skinning);
  const scratch = new Float64Array(rig.cage.positions.length);
  const probe = (library: TemplateLibrary, l: TemplateLimb) => {
    const p: OffsetProbe = { vertex };
    poseLimb(l, { ...rig, library }, skinning, R, scratch, undefined, p);
    return p.found!;
  };
  const at = probe(rig.library, limb);
  const slots = at.kind === 'bone' ? limb.boneTemplates : limb.jointTemplates;
  const old = rig.library.templates.find((t) => t.id === slots[at.slot]);
  if (!old) throw new CorskinError(`the slot's template "${slots[at.slot]}" is not in the rig's library`);
  const bend = Math.min(180, (at.bend * 180) / Math.PI);
  if (bend < 1) throw new CorskinError('bend the joint first: the rest key pose is the fitted cage (more than 1° from the rest bend)');
  // The template renamed, with a key pose at this bend.
  const t: TemplateDefinition = structuredClone({ ...old, id, description: `${old.description ?? old.id}; key pose drawn at ${bend.toFixed(1)}°` });
  let key = t.keyPoses.findIndex((k, i) => i > 0 && Math.abs(k.bend - bend) < 0.5);
  if (key < 0) {
    const w = at.keyWeights;
    const k: BoneKeyPose = { bend, bulge: keyValue(old, w, (x) => x.bulge) };
    if (old.kind === 'bone') [k.slide, k.twist] = [keyValue(old, w, (x) => x.slide ?? 0), keyValue(old, w, (x) => x.twist ?? 0)];
    const D = blendedOffsets(old, w);
    if (D) k.offsets = Array.from({ length: DESIGN_VERTICES }, (_, d) => Array.from(D.subarray(3 * d, 3 * d + 3)));
    t.keyPoses.push(k);
    t.keyPoses.sort((a, b) => a.bend - b.bend);
    key = t.keyPoses.indexOf(k);
  }
  const keyPose = t.keyPoses[key];
  keyPose.offsets ??= Array.from({ length: DESIGN_VERTICES }, () => [0, 0, 0]);
  // Where the vertex is with the edited template on its slot (the same place: the key pose holds
  // what the template blended to), and how much the edited key pose weighs there (1, or close).
  const edited = { ...limb, [at.kind === 'bone' ? 'boneTemplates' : 'jointTemplates']: slots.map((x, i) => (i === at.slot ? id : x)) };
  const now = probe({ ...rig.library, templates: [...rig.library.templates.filter((x) => x.id !== id), t] }, edited);
  const W = now.keyWeights[key];
  const f = now.frame;
  if (!f.count) throw new CorskinError(`cage vertex ${vertex} lies on its template's axis: it has no side of the bend to take a drawn offset from`);
  // The move into the template's bind orientation, then design units.
  const d = bindOrientationMove(rig, skinning, vertex, delta);
  const target = [dot(d, now.axis) / now.units[0], dot(d, Array.from(f.radial)) / now.units[1], dot(d, Array.from(f.tangential)) / now.units[1]];
  let alpha = 0, beta = 0; // prettier-ignore
  const weightOf = (design: number) => {
    for (let k = 0; k < f.count; k++) if (f.index[k] === design) return f.weight[k];
    return 0;
  };
  for (let k = 0; k < f.count; k++) {
    alpha += f.weight[k] ** 2;
    beta += f.weight[k] * weightOf(mirroredDesignVertex(f.index[k]));
  }
  const symmetric = options.symmetric ?? true;
  const mirror = [1, 1, -1];
  // The vertex moves by W (α A + β M A) (symmetric) or W α A: solved per component.
  const A = target.map((x, c) => {
    const denom = W * (symmetric ? alpha + beta * mirror[c] : alpha);
    return denom > 1e-9 * W * alpha ? x / denom : 0;
  });
  const offsets = keyPose.offsets;
  for (let k = 0; k < f.count; k++) {
    const w = f.weight[k];
    for (let c = 0; c < 3; c++) offsets[f.index[k]][c] += w * A[c];
    if (symmetric) for (let c = 0; c < 3; c++) offsets[mirroredDesignVertex(f.index[k])][c] += w * mirror[c] * A[c];
  }
  const far = offsets.findIndex((o) => o.some((x) => Math.abs(x) > 2));
  if (far >= 0) throw new CorskinError(`the move takes design vertex ${far} more than 2 units (cage radii; bone lengths along a bone) from the radial default: drag less far`);
  return t;
}

/**
 * A move of cage vertex `vertex` at the pose `skinning` (16·J, column-major, bind space → posed
 * space), given in posed space (3 numbers), taken back to the bind orientation its template's rest
 * positions live in: through the inverse linear part of the bone that carries the template (a
 * joint template's: its parent bone; a bone template's or cap's: its bone) — what
 * {@link moveTemplateCageVertex} takes for a drag made on the posed cage.
 * @throws RangeError for a vertex the cage lacks
 */
export function bindOrientationMove(rig: TemplateRig, skinning: Float64Array, vertex: number, delta: ArrayLike<number>): number[] {
  const limb = limbOfVertex(rig, vertex);
  const role = limb.roles[vertex - limb.first];
  const o = 16 * limb.chain[role.kind === 'joint' ? role.index - 1 : role.index];
  const Li = invert3(Array.from({ length: 9 }, (_, k) => skinning[o + 4 * (k % 3) + Math.floor(k / 3)])); // row-major linear part
  return [0, 1, 2].map((r) => Li[3 * r] * delta[0] + Li[3 * r + 1] * delta[1] + Li[3 * r + 2] * delta[2]);
}

/** The inverse of a row-major 3×3 matrix. */
function invert3(m: ArrayLike<number>): Float64Array {
  const [a, b, c, d, e, f, g, h, i] = Array.from(m);
  const A = e * i - f * h, B = f * g - d * i, C = d * h - e * g; // prettier-ignore
  const det = a * A + b * B + c * C;
  return Float64Array.from([A, c * h - b * i, b * f - c * e, B, a * i - c * g, c * d - a * f, C, b * g - a * h, a * e - b * d].map((x) => x / det));
}

/**
 * The registered `templates` method: template functions → cage vertices → skin through the
 * binding, plus the linear skinning of the weight the cages do not carry ({@link TemplateRig.linear}),
 * with corskin's deformer signature.
 * @throws CorskinError (when called) for a mesh other than the one the rig was built for Allocation-free per frame after the first call with a given mesh (except the small
 * per-vertex template evaluations).
 */
export function createTemplateDeformer(rig: TemplateRig): Deformer {
  const posedCage = new Float64Array(rig.cage.positions.length);
  const memo = createTemplateMemo(rig);
  const { linear } = rig;
  const any = linear.some((w) => w > 0);
  let forMesh: SkinnedMesh | undefined;
  let deformer: CageDeformer | undefined;
  let displacement: Float64Array | undefined;
  return (mesh, skinning, out) => {
    if (mesh !== forMesh) {
      if (any && linear.length !== mesh.weights.length)
        throw new CorskinError(`the template rig was built for ${linear.length / mesh.influences} vertices, the mesh has ${mesh.positions.length / 3}`);
      deformer = createCageDeformer(mesh, rig.binding, rig.cage.positions);
      displacement = any ? new Float64Array(mesh.positions.length) : undefined;
      forMesh = mesh;
    }
    poseTemplates(rig, skinning, posedCage, memo);
    if (displacement) {
      // Σ_k λ_k (M_j x − x): the share of each influence the cages do not carry, skinned linearly.
      displacement.fill(0);
      const { positions: x, joints, influences: K } = mesh;
      for (let i = 0; i < x.length / 3; i++)
        for (let k = K * i; k < K * i + K; k++) {
          const w = linear[k];
          if (!(w > 0)) continue;
          const o = 16 * joints[k];
          for (let r = 0; r < 3; r++) {
            const y = skinning[o + r] * x[3 * i] + skinning[o + 4 + r] * x[3 * i + 1] + skinning[o + 8 + r] * x[3 * i + 2] + skinning[o + 12 + r]; // prettier-ignore
            displacement[3 * i + r] += w * (y - x[3 * i + r]);
          }
        }
    }
    deformer!.deform(posedCage, out, displacement);
  };
}
