/**
 * Skinning templates assembled into cages around a skeleton's limbs (Ju, Zhou, van de Panne,
 * Cohen-Or, Neumann, "Reusable Skinning Templates Using Cage-based Deformations", SIGGRAPH Asia
 * 2008, §4–5), applied as a **corrective over dual quaternion skinning** (Kavan, Collins, Žára,
 * O'Sullivan 2008): each skin vertex is first skinned by DQS, then moved by
 *
 *   C(x) = normalise( (1 − Σ_k W_k) · 1̂ + Σ_k W_k · ĉ_k )   (dual quaternions)
 *
 * where ĉ_k is cage vertex k's **correction** — the rigid motion from where DQS puts it (c°_k,
 * with the cage's own skinning weights {@link TemplateRig.cageSkin}) to where its template puts it
 * (c′_k, Eq. 1–4, key poses by Eq. 2), its rotation that of the vertex's ring
 * ({@link createCageCorrection}) — and W the skin's binding: per skin vertex its limb cage's
 * positive mean value coordinates (Lipman, Kopf, Cohen-Or, Levin, "GPU-assisted positive mean value
 * coordinates for mesh deformations", SGP 2007) scaled by its **template share**. Where a template
 * moves its cage as DQS moves the skin around it, the skin gets DQS exactly; what the templates
 * add — twist spread along a bone, radius kept through it, bulges and drawn key poses — is added
 * on top, as a rigid motion locally (blended like DQS, so thin parts keep their cross-section). So
 * the base method's qualities stay (no candy wrapper, exact rigid pieces, untouched torso) and the
 * cage's smoothing never reaches the skin (it moves c′ and c° alike).
 *
 * **The cage's weights.** Each cage vertex is skinned on the joints its template moves it with, in
 * the proportions of the nearest skin vertex ({@link transferCageWeights}); Eq. 1's blend at a
 * joint template's vertex takes the same proportions instead of the paper's geometric
 * `u_j ∝ 1 / angle` ({@link createTemplateMemo}), so a joint region swings as the character's
 * weights say and the templates change what they are made for.
 *
 * **Where templates act.** The skeleton is cut into limbs ({@link skeletonLimbs}); the templated
 * limbs ({@link templateLimbChains}) are the arms, legs, tails and the like — not the trunk (the
 * limb from the root: spine, neck and head stay DQS; `trunk: true` templates it too, with the
 * paper's 3- and 4-bone joint templates at the chest and hips), and not fingers or toes (a limb
 * ends at a hand: a joint where four or more limbs meet). A vertex's share of limb c is
 *
 * - its **flex** ({@link skinFlex}: 1 where its weights blend, fading to 0 along the surface, 0 on
 *   connected pieces without blending — a blade, a box, every piece of a character of single
 *   influences),
 * - times its skinning weight on the limb's **templated joints** ({@link templatedJoints}: from
 *   the limb's root joint on — the hip, the shoulder; the joint it branches off and a clavicle
 *   stay DQS like the trunk), times one less its weight on other templated limbs,
 * - times its **agreement** with the cage's weights there ({@link agreeWithCage}),
 * - zero where the nearest bone of the limb lies outside the skin (`leaveFleshless`: no flesh
 *   around it to model — a skeleton's forearm bones) or where the skin lies outside the limb's
 *   cage (fitted to the skin that does not face its bone, `facesBone`: not the side of a torso
 *   along an arm hanging down),
 * - smoothed along the surface ({@link SHARE_SMOOTHING}).
 *
 * So rigid skin stays rigid, a shoulder or hip fades from the limb's templates to the trunk's DQS
 * by its weights, and a cage vertex moves only skin bound to its own limb.
 *
 * Each templated limb gets one closed cage ({@link fitChain}): a **bone template** (rings at ⅓
 * and ⅔ of every bone), a **joint template** (three rings) at every inner joint, **end caps**;
 * fitted to the skin it moves and grown until all of it is inside — about a thousand triangles per
 * character. The rest pose is exact (Eq. 5–6 with the fitted cage as the single rest key pose).
 * The design's measures against the paper's (templates applied through the cages directly) on
 * every shared character: docs/templates.md.
 *
 * @module
 */
import { CAGE_INFLUENCES, facesBone, leaveFleshless, transferCageWeights } from './cage-skin.js';
import { bindToCage, type CageBinding } from '../../cage/bind.js';
import type { Cage } from '../../cage/cage.js';
import { pointsOutside } from '../../cage/winding-number.js';
import { CorskinError } from '../../core/errors.js';
import { limbRoot, skeletonLimbs, trunkFirst } from '../../core/limbs.js';
import { computeVertexNormals, type SkinnedMesh } from '../../core/mesh.js';
import { bindJointPositions, type Skeleton } from '../../core/skeleton.js';
import { point } from '../../core/vec3.js';
import { weldByPosition } from '../../metrics/weld.js';
import { fitChain, leafDirection, type ChainCage } from './fit.js';
import { DEFAULT_TEMPLATE_LIBRARY, incidentBones, type TemplateDefinition, type TemplateLibrary } from './library.js';
import { slotBones } from './pose.js';
import { skinFlex, smoothAlongSurface } from './share.js';

/**
 * Cage vertices kept per skin vertex in a limb's binding, PMVC with the positive correction (see
 * {@link bindToCage}): weights ≥ 0, so a cage vertex never pulls on skin it cannot see. About
 * what an inside point of a limb's cage sees, so truncation is rare (where it happens, the
 * positive correction's jumps show as self-intersections under a strong twist: the libigl arm
 * twisted 180°, 62 with 24, 12 with 48).
 */
const LIMB_CAGE_INFLUENCES = 48;

/**
 * Smoothing steps of the template shares along the surface ({@link smoothAlongSurface}). Without,
 * on the Fox's stress pose a triangle in the folded elbow whose vertices had shares 0.52, 0 and
 * 0.26 turned over; on the libigl arm twisted 180°, 0 / 3 / 10 steps leave 78 / 12 / 12
 * self-intersections with 24 cage influences, 12 with 48 and 10 steps (DQS: 0, LBS: 237).
 */
const SHARE_SMOOTHING = 10;

/** What each cage vertex is: part of which template, with its rest position in that template's frame. */
export interface VertexRole {
  /** The kind of template the vertex belongs to. */
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
  /** Unit bone directions, bind space, 3·n. */
  axes: Float64Array;
  /** Unit reference directions ⊥ each bone, carried along the chain, 3·n. */
  references: Float64Array;
  /** The limb's cage vertices are the rig cage's `[first, first + roles.length)`. */
  first: number;
  /** The role of each of the limb's cage vertices, in cage order. */
  roles: VertexRole[];
  /** The bone template of each chain bone (an id of the rig's library); change with {@link setBoneTemplate}. */
  boneTemplates: string[];
  /** The joint template at each inner chain joint (index 0: none, `''`); change with {@link setBoneTemplate}. */
  jointTemplates: string[];
}

/** A skeleton's template cages (one closed component per templated limb), the skin's binding and the library. */
export interface TemplateRig {
  /** The templated limbs, their cage vertices in this order. */
  limbs: TemplateLimb[];
  /** All limbs' cages as one cage (closed components, one per limb). */
  cage: Cage;
  /**
   * Per skin vertex, its limbs' PMVC weights scaled by its template share of each (their sum is
   * the vertex's total share, ≤ 1; 0 for skin the templates leave to DQS).
   */
  binding: CageBinding;
  /**
   * The cage's own skinning weights, `CAGE_INFLUENCES` (4) per cage vertex (joints, weights):
   * those of the skin around it (`transferCageWeights`), so DQS moves the cage as it moves
   * that skin — the base the templates' correction is measured from.
   */
  cageSkin: {
    /** Joint of each slot, 4·m (m cage vertices). */
    joints: Uint32Array;
    /** Weight of each slot, 4·m, summing to 1 per cage vertex. */
    weights: Float32Array;
  };
  /** The template library the choices come from. */
  library: TemplateLibrary;
}

/** Options of {@link buildTemplateRig}. */
export interface TemplateBuildOptions {
  /** Skin vertices bound so far, of all the limbs' (the binding is the long part of a build). */
  onProgress?: (done: number, total: number) => void;
  /** Stops the build between vertex batches. */
  signal?: AbortSignal;
  /**
   * Template the trunk too (the limb from the root: spine, neck, head), with joint templates for
   * all incident bones where limbs branch off it (a chest: 4, Fig. 13). Default false: the trunk
   * follows DQS, which measures better on every shared character (docs/templates.md).
   */
  trunk?: boolean;
}

/**
 * The limbs a template rig covers, as chains of joints ({@link skeletonLimbs}): every limb but the
 * trunk (unless `trunk`, or the skeleton is a single chain — an arm, a bar — which is then the
 * one limb) and those starting at a hand, each cut after the first hand it reaches. A hand is a
 * joint outside the trunk where four or more limbs start or go on (fingers, a bird's toes: too
 * small for a cage, left to DQS).
 * @param P bind joint positions, 3·J
 * @returns the chains, and whether the trunk is among them (then a limb's joints after its first
 *   are templated, `templatedJoints`)
 */
export function templateLimbChains(
  skeleton: Skeleton,
  P: ArrayLike<number>,
  trunk = false,
): {
  /** Per templated limb, its joints root to leaf (at least 3), the trunk first when included. */
  chains: number[][];
  /** Whether the trunk is among the chains. */
  trunk: boolean;
} {
  const all = trunkFirst(skeleton, skeletonLimbs(skeleton, P));
  const withTrunk = trunk || all.length === 1;
  const count = new Map<number, number>();
  for (const c of all) c.forEach((j, i) => i < c.length - 1 && count.set(j, (count.get(j) ?? 0) + 1));
  const hands = new Set([...count].filter(([j, k]) => k >= 4 && !all[0].includes(j)).map(([j]) => j));
  const chains = (withTrunk ? all : all.slice(1))
    .filter((c) => !hands.has(c[0]))
    .map((c) => {
      const h = c.findIndex((j) => hands.has(j));
      return h >= 0 ? c.slice(0, h + 1) : c;
    })
    .filter((c) => c.length >= 3);
  return { chains, trunk: withTrunk };
}

/**
 * Per joint, the templated limb whose templates act on skin weighted to it, or −1: a limb's joints
 * from its root joint on ({@link limbRoot}: the hip or shoulder that moves its first long bone);
 * the joint it branches off and a clavicle before its root stay DQS like the trunk. Where the
 * trunk has templates too (`trunk`, {@link templateLimbChains}), all joints after the first.
 * @param P bind joint positions, 3·J
 */
export function templatedJoints(P: ArrayLike<number>, chains: readonly number[][], trunk = false): Int32Array {
  const owner = new Int32Array(P.length / 3).fill(-1);
  chains.forEach((chain, c) => {
    const root = trunk ? 1 : limbRoot(chain, P);
    chain.forEach((j, i) => i >= root && (owner[j] = c));
  });
  return owner;
}

/**
 * Per skin vertex and limb, its template share (n·L): its flex ({@link skinFlex}) times its
 * skinning weight w_c on the limb's templated joints (`templatedJoints`), times 1 − its
 * weight on other limbs' (skin between two limbs — a crotch — takes less of each; two cages
 * correcting it crease it).
 * @param P bind joint positions, 3·J; @param chains the templated limbs
 */
export function templateShares(mesh: SkinnedMesh, skeleton: Skeleton, P: ArrayLike<number>, chains: readonly number[][], trunk = false): Float64Array {
  const L = chains.length;
  const owner = templatedJoints(P, chains, trunk);
  const flex = skinFlex(mesh, P, skeleton.parents);
  const { joints, weights, influences: K } = mesh;
  const n = mesh.positions.length / 3;
  const share = new Float64Array(n * L);
  for (let i = 0; i < n; i++) {
    if (!(flex[i] > 0)) continue;
    for (let k = K * i; k < K * i + K; k++) {
      const c = owner[joints[k]] ?? -1;
      if (c >= 0 && weights[k] > 0) share[L * i + c] += flex[i] * weights[k];
    }
    // Skin between two limbs (a crotch: weight on both legs) takes less of each.
    let total = 0;
    for (let c = 0; c < L; c++) total += share[L * i + c];
    for (let c = 0; c < L; c++) share[L * i + c] *= Math.max(0, 1 - (total - share[L * i + c]) / flex[i]);
  }
  return share;
}

/**
 * Builds the template cages of `mesh`'s skeleton (one per templated limb,
 * {@link templateLimbChains}), fits each to the skin it moves and binds that skin with PMVC (see
 * the module comment). A limb whose cage cannot be grown to enclose its skin starts one joint
 * further; one that is then too short to have a joint template is left out (its skin stays DQS).
 * Where no limb has skin to move the rig has no limb and no cage: the templates are DQS.
 * @throws CorskinError for a bad library (no bone or joint template); the signal's reason when aborted
 */
export function buildTemplateRig(
  mesh: SkinnedMesh,
  skeleton: Skeleton,
  library: TemplateLibrary = DEFAULT_TEMPLATE_LIBRARY,
  options: TemplateBuildOptions = {},
): TemplateRig {
  const P = bindJointPositions(skeleton);
  const n = mesh.positions.length / 3;
  // Smooth normals across UV seams and split vertices: over the mesh welded by position.
  const weld = weldByPosition(mesh.positions);
  const welded = computeVertexNormals(mesh.positions, mesh.triangles.map((v) => weld[v]));
  const normals = Float32Array.from({ length: 3 * n }, (_, c) => welded[3 * weld[Math.floor(c / 3)] + (c % 3)]);
  const boneDefault = defaultTemplate(library, 'bone');
  const apex = library.templates.find((t) => t.kind === 'cap')?.apex ?? 0.5;
  const limbChains = templateLimbChains(skeleton, P, options.trunk);
  let chains = limbChains.chains;
  const trunk = limbChains.trunk;
  // A limb whose cage cannot be fitted (it turns too sharply for its thickness near the joint it
  // branches from) gives up its first joint, and the shares are taken again.
  for (;;) {
    const share = templateShares(mesh, skeleton, P, chains, trunk);
    const L = chains.length;
    chains.forEach((chain, c) => leaveFleshless(mesh, P, chain, share, L, c));
    const fitted: { part: ChainCage; vertices: number[]; X: Float64Array; limb: number }[] = [];
    let failed = -1;
    for (let c = 0; c < L && failed < 0; c++) {
      const chain = chains[c];
      const skin = limbSkin(mesh, share, L, c);
      if (!skin.vertices.length) continue;
      const bones = chain.slice(0, -1).map((j, b) => [point(P, j), point(P, chain[b + 1])]);
      const core = skin.vertices.filter((v) => share[L * v + c] >= CORE_SHARE && !facesBone(mesh.positions, normals, v, bones));
      try {
        const part = fitChain(limbSkin(mesh, share, L, c, core).X, P, chain, apex, core, leafDirection(mesh, P, chain[chain.length - 1], weld));
        // Skin the cage was not fitted to, or left outside, is left to DQS where it is outside.
        for (const q of pointsOutside(part.cage, skin.X)) share[L * skin.vertices[q] + c] = 0;
        fitted.push({ part, ...limbSkin(mesh, share, L, c), limb: c });
      } catch (e) {
        if (!(e instanceof CorskinError)) throw e;
        failed = c;
      }
    }
    if (failed >= 0) {
      chains = chains.map((chain, c) => (c === failed ? chain.slice(1) : chain)).filter((c) => c.length >= 3);
      continue;
    }
    if (!fitted.length) return emptyTemplateRig(n, library);
    let first = 0;
    const limbs: TemplateLimb[] = fitted.map(({ part }) => {
      const out = { ...part, first, boneTemplates: part.chain.map(() => boneDefault), jointTemplates: part.chain.map(() => '') };
      first += part.cage.positions.length / 3;
      return out;
    });
    for (const limb of limbs) limb.jointTemplates = limb.chain.map((_, i) => (i > 0 ? defaultTemplate(library, 'joint', slotBones({ limbs, library }, limb, i)) : ''));
    const parts = bindLimbs(
      fitted.map((f, q) => ({ cage: f.part.cage, vertices: f.vertices, X: f.X, share: f.vertices.map((v) => share[L * v + f.limb]), first: limbs[q].first })),
      options,
    );
    const cage = joinCages(limbs, parts);
    const cageSkin = transferCageWeights(limbs, cage, parts, mesh);
    agreeWithCage(parts, mesh, cageSkin, templatedJoints(P, chains, trunk), fitted.map((f) => f.limb));
    for (const p of parts) smoothShares(p, mesh);
    return { limbs, cage, binding: combineBindings(parts, n), cageSkin, library };
  }
}

/**
 * A limb's shares smoothed along the surface ({@link SHARE_SMOOTHING} steps), fading to 0 at the
 * edge of the limb's skin, so neighbouring vertices never take very different parts of the
 * correction.
 */
function smoothShares(p: LimbSkin, mesh: SkinnedMesh): void {
  const field = new Float64Array(mesh.positions.length / 3);
  p.vertices.forEach((v, r) => (field[v] = p.share[r]));
  smoothAlongSurface(field, mesh.positions, mesh.triangles, SHARE_SMOOTHING);
  p.vertices.forEach((v, r) => (p.share[r] = field[v]));
}

/**
 * Each bound vertex's share scaled to its agreement with the cage: the part of its skinning
 * weight on the limb's templated joints that the cage's own weights there — its binding's
 * interpolation of the cage's skinning ({@link TemplateRig.cageSkin}) — give the same joints,
 * `Σ_j min(w_j, ω̄_j) / Σ_j w_j`. The correction is measured from the cage moved by those weights,
 * so it fits skin moved by them; skin the weights move otherwise takes a smaller part of it.
 * @param owner per joint, the templated limb ({@link templatedJoints}); @param limbOf per part, its limb
 */
function agreeWithCage(parts: (LimbSkin & { binding: CageBinding })[], mesh: SkinnedMesh, cageSkin: TemplateRig['cageSkin'], owner: Int32Array, limbOf: number[]): void {
  const { joints, weights, influences: K } = mesh;
  const omega = new Float64Array(owner.length);
  parts.forEach((p, q) => {
    const kp = p.binding.influences;
    p.vertices.forEach((v, r) => {
      omega.fill(0);
      for (let e = kp * r; e < kp * r + kp; e++) {
        const c = p.first + p.binding.indices[e], w = p.binding.weights[e]; // prettier-ignore
        for (let t = CAGE_INFLUENCES * c; t < CAGE_INFLUENCES * c + CAGE_INFLUENCES; t++) omega[cageSkin.joints[t]] += w * cageSkin.weights[t];
      }
      let agree = 0, total = 0; // prettier-ignore
      for (let k = K * v; k < K * v + K; k++) {
        if (owner[joints[k]] !== limbOf[q] || !(weights[k] > 0)) continue;
        total += weights[k];
        agree += Math.min(weights[k], Math.max(0, omega[joints[k]]));
      }
      p.share[r] *= total > 0 ? agree / total : 0;
    });
  });
}

/** Below this share a limb's skin is bound to its cage where it lies inside it, but the cage is not fitted to it (torso skin with a little weight on an upper arm). */
const CORE_SHARE = 0.5;

export { CAGE_INFLUENCES };

/**
 * What every surface says of a skin with no limb to template ({@link emptyTemplateRig}): the
 * templates deform it as DQS, and no cage is stored for it.
 */
export const NO_LIMB_TO_TEMPLATE = "no limb to template (no blending weights on a limb's joints): DQS, no cage";

/**
 * The rig of a skin with no limb to template (no blending weights on a limb's joints): no cage,
 * every vertex bound to nothing, so the templates deform it as DQS.
 * @param n the skin's vertex count
 */
export function emptyTemplateRig(n: number, library: TemplateLibrary = DEFAULT_TEMPLATE_LIBRARY): TemplateRig {
  return {
    limbs: [],
    cage: { positions: new Float64Array(0), triangles: new Uint32Array(0) },
    binding: { method: 'pmvc', resolution: 0, influences: 1, indices: new Uint32Array(n), weights: new Float32Array(n) },
    cageSkin: { joints: new Uint32Array(0), weights: new Float32Array(0) },
    library,
  };
}

/** The skin vertices limb c has a share of (`share`: n·L), or those `only`, and their positions. */
function limbSkin(mesh: SkinnedMesh, share: Float64Array, L: number, c: number, only?: number[]): { vertices: number[]; X: Float64Array } {
  const vertices: number[] = only ?? [];
  if (!only) for (let i = 0; i < mesh.positions.length / 3; i++) if (share[L * i + c] > 0) vertices.push(i);
  const X = new Float64Array(3 * vertices.length);
  vertices.forEach((v, q) => X.set(mesh.positions.subarray(3 * v, 3 * v + 3), 3 * q));
  return { vertices, X };
}

/** One limb's skin: its vertices, their positions, their shares, and the limb's cage (its first vertex in the rig's cage). */
export interface LimbSkin {
  cage: Cage;
  vertices: number[];
  X: Float64Array;
  share: number[];
  first: number;
}

/** Binds each limb's skin vertices to the limb's cage with PMVC, progress over all of them. */
function bindLimbs(limbs: LimbSkin[], options: TemplateBuildOptions): (LimbSkin & { binding: CageBinding })[] {
  const total = limbs.reduce((t, f) => t + f.vertices.length, 0);
  let done = 0;
  return limbs.map((f) => {
    const binding = bindToCage(f.X, f.cage, {
      influences: LIMB_CAGE_INFLUENCES,
      signal: options.signal,
      onProgress: options.onProgress && ((d) => options.onProgress!(done + d, total)),
    });
    done += f.vertices.length;
    return { ...f, binding };
  });
}

/** The limbs' cages as one cage, in limb order. */
function joinCages(limbs: TemplateLimb[], parts: { cage: Cage }[]): Cage {
  return {
    positions: Float64Array.from(parts.flatMap((p) => Array.from(p.cage.positions))),
    triangles: Uint32Array.from(parts.flatMap((p, q) => Array.from(p.cage.triangles, (v) => v + limbs[q].first))),
  };
}

/** One binding of the whole skin (n vertices) from the limbs' bindings, each scaled by its shares. */
function combineBindings(parts: (LimbSkin & { binding: CageBinding })[], n: number): CageBinding {
  const slots = new Int32Array(n);
  for (const p of parts) for (const v of p.vertices) slots[v] += p.binding.influences;
  const k = slots.reduce((a, b) => Math.max(a, b), 1);
  const binding: CageBinding = { ...parts[0].binding, influences: k, indices: new Uint32Array(k * n), weights: new Float32Array(k * n) };
  slots.fill(0);
  for (const p of parts) {
    const kp = p.binding.influences;
    p.vertices.forEach((v, r) => {
      for (let e = 0; e < kp; e++, slots[v]++) {
        binding.indices[k * v + slots[v]] = p.binding.indices[kp * r + e] + p.first;
        binding.weights[k * v + slots[v]] = p.share[r] * p.binding.weights[kp * r + e];
      }
    });
  }
  return binding;
}

/**
 * Per skin vertex and limb (n·L), the share the rig's binding gives the limb: the sum of the
 * vertex's weights on the limb's cage vertices (its PMVC weights sum to 1, so this is the share
 * they were scaled by).
 */
export function bindingShares(rig: TemplateRig, n: number): Float64Array {
  const L = rig.limbs.length;
  const limbOf = new Int32Array(rig.cage.positions.length / 3);
  rig.limbs.forEach((l, c) => limbOf.fill(c, l.first, l.first + l.roles.length));
  const share = new Float64Array(n * L);
  const { influences: k, indices, weights } = rig.binding;
  for (let i = 0; i < n; i++) for (let s = k * i; s < k * i + k; s++) if (weights[s] !== 0) share[L * i + limbOf[indices[s]]] += weights[s];
  return share;
}

/**
 * The rig with its skin bound anew to its (edited) cage: each limb's skin (the vertices with a
 * share of it, the shares as bound before) bound with PMVC to the limb's part of the cage, as
 * {@link buildTemplateRig} binds a fitted cage; templates and choices kept.
 * @throws CorskinError naming the skin vertices outside a limb's cage (move the vertex back out)
 */
export function rebindTemplateRig(rig: TemplateRig, mesh: SkinnedMesh, options: TemplateBuildOptions = {}): TemplateRig {
  if (!rig.limbs.length) return rig;
  const n = mesh.positions.length / 3;
  const L = rig.limbs.length;
  const share = bindingShares(rig, n);
  const limbs = rig.limbs.map((limb, c) => {
    const { vertices, X } = limbSkin(mesh, share, L, c);
    return { cage: limbCage(rig, limb), vertices, X, share: vertices.map((v) => share[L * v + c]), first: limb.first };
  });
  return { ...rig, binding: combineBindings(bindLimbs(limbs, options), n) };
}

/** The limb's closed component of the rig's cage, its vertices renumbered from 0. */
export function limbCage(rig: TemplateRig, limb: TemplateLimb): Cage {
  const m = limb.roles.length;
  const triangles: number[] = [];
  for (let f = 0; f < rig.cage.triangles.length; f += 3) {
    const v = rig.cage.triangles[f];
    if (v >= limb.first && v < limb.first + m) for (let k = 0; k < 3; k++) triangles.push(rig.cage.triangles[f + k] - limb.first);
  }
  return { positions: rig.cage.positions.slice(3 * limb.first, 3 * (limb.first + m)), triangles: Uint32Array.from(triangles) };
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
