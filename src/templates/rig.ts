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
import { pointsOutside } from '../cage/winding-number.js';
import { CorskinError } from '../core/errors.js';
import type { SkinnedMesh } from '../core/mesh.js';
import { bindJointPositions, type Skeleton } from '../core/skeleton.js';
import { skeletonLimbs } from '../core/limbs.js';
import { segmentDistance } from '../core/math.js';
import { point } from '../core/vec3.js';
import { DEFAULT_TEMPLATE_LIBRARY, incidentBones, type TemplateDefinition, type TemplateLibrary } from './library.js';

import { fitChain, nearBranches, leafDirection, type ChainCage } from './fit.js';
import { slotBones } from './pose.js';

/**
 * Cage vertices kept per skin vertex in each limb's binding (a vertex two limbs share keeps this
 * many of each), corrected linearly (negative weights allowed; see {@link bindToCage}). More than
 * a lone cage's default: a limb cage has many rings, and on Soldier.glb's clip the skin's creases
 * (edges whose dihedral angle changes by > 30°) fell from 1,138 with 24 (plain top-k, positive
 * correction) to 228 with 32 (soft-thresholded) and 182 corrected linearly (DQS: 91), at about 5%
 * of the GPU frame time.
 */
const LIMB_CAGE_INFLUENCES = 32;


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

