/**
 * Where helper joints go (the placement of `io/helper-bake.ts`, after Le & Deng 2012's
 * clustering start): the vertices where a method departs from LBS — largest distance over the
 * samples above 1% of the largest and above 1e-4 of the posed bounding-box diagonal — grouped by the
 * joint between their two heaviest influences (the child of the pair), each group split into
 * up to `perRegion` clusters by k-means on the bind positions, weighted by the departure (or as
 * many as {@link helperCounts} gives it, `perRegion` per group on average, more where the method
 * departs more).
 *
 * @module
 */
import { boundingBoxDiagonal, type SkinnedMesh } from '../core/mesh.js';
import { jointScale } from './ssdr.js';
import { rigidFit } from './ssdr-helpers.js';

/** What {@link placeHelpers} decides. */
export interface HelperPlacement {
  /** Per vertex, the largest distance between the method and LBS over the samples (asset units). */
  departure: Float64Array;
  /** Per vertex, its region's joint, or −1 where the method does not depart from LBS. */
  regionOf: Int32Array;
  /** Per helper, its region's joint. */
  helperRegion: number[];
  /** Per helper, its cluster's departure-weighted bind centroid (x, y, z). */
  helperCentre: number[][];
  /** Per region joint, its helpers. */
  regionHelpers: Map<number, number[]>;
  /** Per vertex, the helper whose cluster it is in, or −1. */
  clusterOf: Int32Array;
}

/** Where a method departs from LBS ({@link helperRegions}): what {@link placeHelpers} shares helpers out over. */
export interface HelperRegions {
  /** Per vertex, the largest distance between the method and LBS over the samples (asset units). */
  departure: Float64Array;
  /** Per vertex, its region's joint, or −1 where the method does not depart from LBS. */
  regionOf: Int32Array;
  /** Per region joint, its vertices. */
  vertices: Map<number, number[]>;
}

/**
 * The regions of a bake: the vertices where the method departs from LBS, each under the joint
 * between its two heaviest influences (see the module comment).
 * @param targets the method's posed positions per sample, length 3·n each
 * @param lbsSquared plain LBS's squared distance to the method at every vertex at the same
 *   samples, length n each (`MethodSamples.lbsSquared`)
 */
export function helperRegions(
  mesh: SkinnedMesh,
  parents: Int32Array,
  targets: readonly Float32Array[],
  lbsSquared: readonly Float64Array[],
): HelperRegions {
  const n = mesh.positions.length / 3;
  const departure = new Float64Array(n);
  for (const squared of lbsSquared)
    for (let i = 0; i < n; i++) if (squared[i] > departure[i]) departure[i] = squared[i];
  for (let i = 0; i < n; i++) departure[i] = Math.sqrt(departure[i]);
  let most = 0;
  for (let i = 0; i < n; i++) most = Math.max(most, departure[i]);
  // 1e-4 of the posed mesh's diagonal (its units are the departure's; the bind mesh's may differ).
  const threshold = Math.max(0.01 * most, 1e-4 * boundingBoxDiagonal(targets[0]));
  const regionOf = new Int32Array(n).fill(-1);
  const vertices = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    if (!(departure[i] > threshold)) continue;
    const r = regionJoint(mesh.joints, mesh.weights, mesh.influences, i, parents);
    regionOf[i] = r;
    (vertices.get(r) ?? vertices.set(r, []).get(r)!).push(i);
  }
  return { departure, regionOf, vertices };
}

/**
 * Places the helpers of a bake in its regions ({@link helperRegions}).
 * @param perRegion helpers per region (a region of fewer than 4 vertices gets none), at most or,
 *   with `share`, on average
 * @param share share the helpers out by the departure ({@link helperCounts}) instead of
 *   `perRegion` in each region
 * @param given helpers per region joint, instead of either (a region not in it gets none; a
 *   refinement's, {@link refinedCounts})
 */
export function placeHelpers(
  mesh: SkinnedMesh,
  regions: HelperRegions,
  perRegion: number,
  share = false,
  given?: ReadonlyMap<number, number>,
): HelperPlacement {
  const n = mesh.positions.length / 3;
  const { departure, regionOf, vertices: regionVertices } = regions;
  const helperRegion: number[] = [];
  const helperCentre: number[][] = [];
  const regionHelpers = new Map<number, number[]>();
  const clusterOf = new Int32Array(n).fill(-1);
  const counts = given ?? (share ? helperCounts(regionVertices, departure, perRegion) : undefined);
  for (const [r, list] of regionVertices) {
    const k = counts ? (counts.get(r) ?? 0) : evenCount(list.length, perRegion);
    if (k < 1) continue;
    const ids: number[] = [];
    for (const { centre, members } of kMeans(mesh.positions, list, departure, k)) {
      const h = helperRegion.length;
      helperRegion.push(r);
      helperCentre.push(centre);
      ids.push(h);
      for (const i of members) clusterOf[i] = h;
    }
    regionHelpers.set(r, ids);
  }
  return { departure, regionOf, helperRegion, helperCentre, regionHelpers, clusterOf };
}

/**
 * The helpers' starting transforms (Le & Deng 2012's initialisation from clusters): at each
 * sample, helper h is the rigid fit (Kabsch) of its cluster's bind positions to their targets,
 * weighted by the departure.
 * @param rest bind positions per sample, length 3·n each
 * @param targets the method's posed positions per sample
 * @param fixed the joints' skinning matrices per sample: each helper is fitted at its joint's
 *   signed scale there (see `SsdrProblem.helperJoints`)
 * @returns per sample, the helpers' skinning matrices, 4×4 column-major, length 16·H each
 */
export function clusterStart(
  placement: HelperPlacement,
  rest: readonly ArrayLike<number>[],
  targets: readonly Float32Array[],
  fixed?: readonly Float64Array[],
): Float64Array[] {
  const { clusterOf, departure } = placement;
  const H = placement.helperRegion.length;
  const out = targets.map(() => new Float64Array(16 * H));
  for (let h = 0; h < H; h++) {
    const members: number[] = [];
    for (let i = 0; i < clusterOf.length; i++) if (clusterOf[i] === h) members.push(i);
    const P = new Float64Array(3 * members.length);
    const Q = new Float64Array(3 * members.length);
    const u = Float64Array.from(members, (i) => departure[i]);
    for (let t = 0; t < targets.length; t++) {
      members.forEach((i, a) => {
        for (let c = 0; c < 3; c++) {
          P[3 * a + c] = rest[t][3 * i + c];
          Q[3 * a + c] = targets[t][3 * i + c];
        }
      });
      rigidFit(P, Q, u, members.length, out[t], 16 * h, fixed ? jointScale(fixed[t], placement.helperRegion[h]) : 1);
    }
  }
  return out;
}

/** A vertex's positive influences, heaviest first (`K` slots of `joints`/`weights`). */
export function influencesOf(
  joints: Uint32Array,
  weights: Float32Array,
  K: number,
  i: number,
): { j: number; w: number }[] {
  const out: { j: number; w: number }[] = [];
  for (let k = K * i; k < K * i + K; k++) if (weights[k] > 0) out.push({ j: joints[k], w: weights[k] });
  return out.sort((a, b) => b.w - a.w);
}

/**
 * What each fitted vertex may play in the weight update (Le & Deng 2012's, over a few candidates
 * near the vertex rather than every bone): its own joints and the helpers of its region and of
 * the regions of its other influences — at most its 2K heaviest joints and the helpers of its K
 * heaviest (a 20-influence vertex would otherwise take ~40 candidates, and the weight update's
 * time grows with their square). A vertex none of whose regions has a helper (one influence on a
 * joint whose own region has none: the Soldier's hips, which Direct Delta Mush's smoothing moves
 * with the thighs) takes the helpers of the regions of its K heaviest joints' parents and
 * children instead: without them it could only play LBS.
 * @param parents the skin's joint hierarchy (−1 at a root), J joints
 * @param K influences per vertex in the bake
 * @returns for vertex i, its candidates: joints as their index, helper h as J + h
 */
export function helperCandidates(
  mesh: SkinnedMesh,
  placement: Pick<HelperPlacement, 'regionOf' | 'regionHelpers'>,
  parents: Int32Array,
  K: number,
): (i: number) => number[] {
  const { regionOf, regionHelpers } = placement;
  const J = parents.length;
  const adjacent = Array.from({ length: J }, (_, j) => (parents[j] >= 0 ? [parents[j]] : []));
  parents.forEach((p, j) => p >= 0 && adjacent[p].push(j));
  return (i) => {
    const joints = influencesOf(mesh.joints, mesh.weights, mesh.influences, i).slice(0, 2 * K);
    const set = new Set(joints.map((e) => e.j));
    const size = set.size;
    const helpersOf = (r: number) => {
      for (const h of regionHelpers.get(r) ?? []) set.add(J + h);
    };
    for (const e of joints.slice(0, K)) helpersOf(e.j);
    helpersOf(regionOf[i]);
    if (set.size === size) for (const e of joints.slice(0, K)) adjacent[e.j].forEach(helpersOf);
    return [...set];
  };
}

/** The joint between a vertex's two heaviest influences (the child of the pair; else the heaviest). */
function regionJoint(joints: Uint32Array, weights: Float32Array, K: number, i: number, parents: Int32Array): number {
  const [a, b] = influencesOf(joints, weights, K, i);
  if (!b) return a.j;
  if (parents[a.j] === b.j) return a.j;
  if (parents[b.j] === a.j) return b.j;
  const depth = (j: number) => {
    let d = 0;
    for (let p = parents[j]; p >= 0; p = parents[p]) d++;
    return d;
  };
  return depth(b.j) > depth(a.j) ? b.j : a.j;
}

/** k-means (5 Lloyd steps, farthest-point start) of the listed bind positions, weighted. */
function kMeans(
  P: Float32Array,
  list: number[],
  weight: Float64Array,
  k: number,
): { centre: number[]; members: number[] }[] {
  const at = (i: number) => [P[3 * i], P[3 * i + 1], P[3 * i + 2]];
  const d2 = (p: number[], q: number[]) => (p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 + (p[2] - q[2]) ** 2;
  let first = list[0];
  for (const i of list) if (weight[i] > weight[first]) first = i;
  const centres = [at(first)];
  while (centres.length < k) {
    let far = list[0];
    let best = -1;
    for (const i of list) {
      const d = Math.min(...centres.map((c) => d2(at(i), c)));
      if (d > best) {
        best = d;
        far = i;
      }
    }
    centres.push(at(far));
  }
  let assign = new Int32Array(list.length);
  for (let step = 0; step < 5; step++) {
    assign = Int32Array.from(list, (i) => {
      let c = 0;
      for (let q = 1; q < k; q++) if (d2(at(i), centres[q]) < d2(at(i), centres[c])) c = q;
      return c;
    });
    for (let q = 0; q < k; q++) {
      const s = [0, 0, 0];
      let w = 0;
      list.forEach((i, a) => {
        if (assign[a] !== q) return;
        const u = weight[i] || 1e-12;
        for (let c = 0; c < 3; c++) s[c] += u * P[3 * i + c];
        w += u;
      });
      if (w > 0) centres[q] = s.map((x) => x / w);
    }
  }
  return centres
    .map((centre, q) => ({ centre, members: list.filter((_, a) => assign[a] === q) }))
    .filter((c) => c.members.length > 0);
}

/** A region keeps `perRegion` helpers where its largest departure is at least this share of the largest anywhere. */
const KEEP_FROM = 0.25;
/** A region gets at most this many times `perRegion` helpers. */
const MOST_PER_REGION = 3;

/**
 * How many helpers each region gets: a budget of `perRegion` per region (at most one per 4 of its
 * vertices), shared out by the departure. A region whose largest departure is at least a quarter
 * of the largest anywhere keeps `perRegion` (the worst vertex is what a bake's max measures),
 * every other one 1; what that leaves goes one helper at a time to the region where it lowers
 * the most a k-means cluster error E_r / k (E_r = Σ departure², k its helpers), that is to the
 * largest E_r / (k (k + 1)), up to 3·`perRegion`. Measured against the even split on the shared
 * characters with 2 (4 influences, every clip; docs/bake.md): the same helpers in all, the p99 gap to
 * the method removed 84.5 → 86.6% (CesiumMan CoR), 82.4 → 90.0% (Soldier templates), 82.6 →
 * 85.7% (ShibaInu DQS), Ybot unchanged — but the Fox's CoR 92.9 → 72.3%, and its DQS with the
 * guard half-way between samples 82% → 15%: so the bake's default (`placement: 'auto'` in
 * `io/helper-bake.ts`) fits both and keeps the closer.
 * @param regions each region's vertices
 * @param departure per vertex, its largest distance from LBS over the samples
 * @returns helpers per region (0 for a region of fewer than 4 vertices)
 */
export function helperCounts(
  regions: ReadonlyMap<number, readonly number[]>,
  departure: Float64Array,
  perRegion: number,
): Map<number, number> {
  const counts = new Map<number, number>();
  const open: { r: number; energy: number; cap: number }[] = []; // regions that may take more
  let top = 0;
  for (const list of regions.values()) for (const i of list) top = Math.max(top, departure[i]);
  let left = 0;
  for (const [r, list] of regions) {
    const even = evenCount(list.length, perRegion);
    if (even < 1) continue;
    let energy = 0;
    let most = 0;
    for (const i of list) {
      energy += departure[i] ** 2;
      most = Math.max(most, departure[i]);
    }
    const k = most >= KEEP_FROM * top ? even : 1;
    counts.set(r, k);
    left += even - k;
    open.push({ r, energy, cap: Math.min(MOST_PER_REGION * perRegion, Math.floor(list.length / 4)) });
  }
  for (; left > 0; left--) {
    let best = -1;
    let most = 0;
    for (const { r, energy, cap } of open) {
      const k = counts.get(r)!;
      const gain = energy / (k * (k + 1));
      if (k < cap && gain > most) {
        most = gain;
        best = r;
      }
    }
    if (best < 0) break;
    counts.set(best, counts.get(best)! + 1);
  }
  return counts;
}

/** The even split's helpers in a region of `size` vertices: `perRegion`, at most one per 4 vertices. */
const evenCount = (size: number, perRegion: number): number => Math.min(perRegion, Math.floor(size / 4));

/** The share of the largest region's remaining error from which a region takes one more helper in a refinement ({@link refinedCounts}). */
export const REFINE_FROM = 0.1;

/**
 * The share from which a round that kept neither way is tried once more ({@link refinedCounts}'
 * `from`), before the rounds stop: a helper more in the regions that leave the most alone.
 */
export const REFINE_FOCUSED_FROM = 0.5;

/**
 * One refinement of a fitted placement (`HelperBakeOptions.refine`): more helpers only where the
 * fit falls short. One more helper in each region whose remaining error — the fit's squared
 * distance to the method summed over the region's vertices and the times scored — is at least
 * `from` ({@link REFINE_FROM} unless given) of the largest region's, up to one helper per 4 of its
 * vertices; every other region keeps its count.
 * @param regions the regions the placement was made over ({@link helperRegions})
 * @param placement the placement fitted
 * @param residual per region joint, the fit's remaining error (`regionResiduals`)
 * @returns helpers per region joint for {@link splitHelpers} or {@link placeHelpers}, and how many were added; none
 *   added where no region can take one more
 */
export function refinedCounts(
  regions: HelperRegions,
  placement: HelperPlacement,
  residual: ReadonlyMap<number, number>,
  from = REFINE_FROM,
): { counts: Map<number, number>; added: number } {
  let top = 0;
  for (const e of residual.values()) top = Math.max(top, e);
  const counts = new Map<number, number>();
  let added = 0;
  for (const [r, list] of regions.vertices) {
    const k = placement.regionHelpers.get(r)?.length ?? 0;
    const more = k > 0 && top > 0 && (residual.get(r) ?? 0) >= from * top && k < Math.floor(list.length / 4);
    counts.set(r, k + +more);
    added += +more;
  }
  return { counts, added };
}

/**
 * A refinement's placement grown from a fitted one (`HelperBakeOptions.refine`): in each region
 * whose count `counts` raises, the helper whose members leave the most `residual` is split in two
 * by 2-means on their bind positions — the part holding more of that residual goes to a new
 * helper, numbered after the placement's; every other helper keeps its number and its members, so
 * the fit can start from the fitted one (`HelperFitSettings.start`).
 * @param counts helpers per region joint ({@link refinedCounts})
 * @param residual per vertex, the fit's remaining error (`vertexResiduals`)
 */
export function splitHelpers(
  mesh: SkinnedMesh,
  placement: HelperPlacement,
  counts: ReadonlyMap<number, number>,
  residual: Float64Array,
): HelperPlacement {
  const helperRegion = placement.helperRegion.slice();
  const helperCentre = placement.helperCentre.map((c) => c.slice());
  const regionHelpers = new Map([...placement.regionHelpers].map(([r, ids]) => [r, ids.slice()]));
  const clusterOf = placement.clusterOf.slice();
  const members = helperRegion.map((): number[] => []);
  for (let i = 0; i < clusterOf.length; i++) if (clusterOf[i] >= 0) members[clusterOf[i]].push(i);
  const left = (list: number[]) => list.reduce((s, i) => s + residual[i], 0);
  for (const [r, ids] of regionHelpers) {
    if ((counts.get(r) ?? 0) <= ids.length) continue;
    const leaves = ids.map((h) => left(members[h]));
    const worst = ids[leaves.indexOf(Math.max(...leaves))];
    const parts = kMeans(mesh.positions, members[worst], residual, 2);
    if (parts.length < 2) continue;
    const [keep, part] = left(parts[0].members) >= left(parts[1].members) ? [parts[1], parts[0]] : parts;
    const h = helperRegion.length;
    helperRegion.push(r);
    helperCentre.push(part.centre);
    helperCentre[worst] = keep.centre;
    ids.push(h);
    for (const i of part.members) clusterOf[i] = h;
  }
  return { ...placement, helperRegion, helperCentre, regionHelpers, clusterOf };
}
