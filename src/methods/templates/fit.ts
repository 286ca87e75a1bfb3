/**
 * Fitting a limb's template cage to its skin (Ju et al. 2008, §5.1): rings along the chain —
 * joint templates at inner joints, bone templates along bones, end caps — bridged by minimal-area
 * triangulations, scaled to the skin and grown until every bound skin vertex is inside.
 *
 * @module
 */
import type { Cage } from '../../cage/cage.js';
import { pointsOutside } from '../../cage/winding-number.js';
import { CorskinError } from '../../core/errors.js';
import type { SkinnedMesh } from '../../core/mesh.js';
import { segmentDistance } from '../../core/math.js';
import { cross, dot, normalize, point, sub } from '../../core/vec3.js';
import { minimalAreaBridge } from './bridge.js';
import type { TemplateLimb, VertexRole } from './rig.js';

/**
 * A cage vertex's role, made the one way every role is made (fitted, read from a file, or handed
 * back by a worker), so that V8 gives all roles one hidden class and each `local` unboxed doubles:
 * posing the cage reads these fields for every cage vertex every frame, and a role of a shape of
 * its own (as `{ ...role, local }` gave nearly every one) turns each read into a slow lookup.
 */
export function vertexRole(kind: VertexRole['kind'], index: number, local: ArrayLike<number>): VertexRole {
  return { kind, index, local: [+local[0], +local[1], +local[2]] };
}

/**
 * `rig` with every cage vertex role made again by {@link vertexRole}: for a rig that came through a
 * structured clone (a worker's result: `runWorkerScript`'s `revive`), whose roles share a hidden
 * class but hold their numbers boxed. The limbs are new objects; everything else is the rig's own.
 */
export function withRolesRemade<T extends { limbs: TemplateLimb[] }>(rig: T): T {
  return { ...rig, limbs: rig.limbs.map((limb) => ({ ...limb, roles: limb.roles.map((r) => vertexRole(r.kind, r.index, r.local)) })) };
}

/** Ring sides of the chain templates. */
export const SIDES = 8;


/**
 * The direction of a leaf joint's bone (glTF gives it no end): towards the centroid of the skin it
 * holds at least half of (a curled tail's tip, a hand, a head), or undefined when that is empty
 * or at the joint (the parent bone's direction then goes on). Each position counts once (split
 * vertices of UV seams and hard edges do not pull the centroid).
 * @param weld per vertex, the first vertex at its position (the metrics' weld by position)
 */
export function leafDirection(mesh: SkinnedMesh, P: Float64Array, joint: number, weld: Uint32Array): number[] | undefined {
  const { joints, weights, influences: K, positions: X } = mesh;
  const sum = [0, 0, 0];
  let count = 0;
  for (let i = 0; i < X.length / 3; i++) {
    if (weld[i] !== i) continue;
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


/** A chain's fitted template cage. */
export type ChainCage = Omit<TemplateLimb, 'first' | 'boneTemplates' | 'jointTemplates'> & { cage: Cage };


/**
 * Fits the template cage of joint chain `chain` (bind joint positions `P`, 3·J) to the points
 * `X` (3·n, the skin it must enclose): each ring (a joint template's three rings together) as far
 * out as the farthest point between it and its neighbouring rings along the chain (the paper's
 * radial scaling, ring by ring, so that skin bunched at one joint — a chest, a shoulder — does not
 * widen the rings of the next), grown ring by ring (those around points still outside) until every
 * point is inside; its end caps' apexes `apex` ring radii beyond their rings; the last bone
 * towards `leaf` when given ({@link leafDirection}).
 * @param ids the points' skin vertex indices (named in the error)
 * @throws CorskinError when it cannot be grown to enclose them (4× at most)
 */
export function fitChain(X: ArrayLike<number>, P: Float64Array, chain: number[], apex: number, ids?: number[], leaf?: number[]): ChainCage {
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
  const lengths = Array.from({ length: n }, (_, i) => Math.hypot(...sub(pts[i + 1], pts[i])));
  const start = lengths.map((_, i) => lengths.slice(0, i).reduce((a, b) => a + b, 0)); // arc length of each bone's start
  // Each point's place along the chain (arc length on its nearest bone, beyond the ends on the end
  // bones) and its distance from that bone.
  const m = X.length / 3;
  const along = new Float64Array(m), dist = new Float64Array(m);
  for (let v = 0; v < m; v++) {
    let best = Infinity, bone = 0; // prettier-ignore
    for (let i = 0; i < n; i++) {
      const d = segmentDistance(X, 3 * v, pts[i], pts[i + 1]);
      if (d < best) [best, bone] = [d, i];
    }
    const t = dot(sub(point(X, v), pts[bone]), point(axes, bone));
    along[v] = start[bone] + Math.min(bone === n - 1 ? Infinity : lengths[bone], Math.max(bone === 0 ? -Infinity : 0, t));
    dist[v] = best;
  }
  // Each inner joint's template reaches h along its two bones: far enough that its side rings do
  // not cross its middle ring at a bent joint (h > r·tan(half the bend)), within the bones. r is
  // first the skin's radius within a fifth of the shorter bone of the joint, then its rings'.
  const reachAt = (i: number, r: number) => {
    const near = 0.2 * Math.min(lengths[i - 1], lengths[i]);
    const half = 0.5 * Math.acos(Math.max(-1, Math.min(1, dot(point(axes, i - 1), point(axes, i)))));
    const h0 = Math.min(near, Math.max(0.6 * r, 0.25 * near));
    return Math.min(0.45 * Math.min(lengths[i - 1], lengths[i]), Math.max(h0, 1.1 * r * Math.tan(half)));
  };
  let h = lengths.map((_, i) => {
    if (i === 0) return 0;
    const near = 0.2 * Math.min(lengths[i - 1], lengths[i]);
    let r = 0;
    for (let v = 0; v < m; v++) if (Math.abs(along[v] - start[i]) <= near) r = Math.max(r, dist[v]);
    return reachAt(i, r / Math.cos(Math.PI / SIDES));
  });
  // Grown ring by ring (the rings around skin still outside) until none is, bounded; the joint
  // templates reach further as their rings grow (until they settle, 16 times at most).
  const grow = new Float64Array(radiusGroups(n)).fill(1.15);
  for (let relayouts = 0; ; ) {
    const stations = layout(points, axes, references, lengths, h, head);
    const radius = ringRadii(stations, along, dist, totalLength).map((r, g) => (r / Math.cos(Math.PI / SIDES)) * grow[g]);
    gentleWalls(stations, radius);
    const further = h.map((x, i) => (i === 0 ? 0 : Math.max(x, reachAt(i, radius[jointGroup(i)]))));
    if (relayouts < 16 && further.some((x, i) => x > 1.01 * h[i])) {
      [h, relayouts] = [further, relayouts + 1];
      continue;
    }
    const { cage, roles } = assemble(stations, radius, apex);
    const outside = pointsOutside(cage, X);
    if (!outside.length) return { chain, points, axes, references, cage, roles };
    const grown = new Set(outside.flatMap((v) => bracket(stations, along[v])));
    if ([...grown].some((g) => grow[g] > 4))
      throw new CorskinError(`the template cage leaves ${outside.length} skin vertices outside even grown 4×; first: ${outside.slice(0, 5).map((q) => ids?.[q] ?? q).join(', ')}`);
    for (const g of grown) grow[g] *= 1.15;
  }
}

/**
 * Radius groups of a chain of `n` bones, in order along it: the root cap's ring; per bone, its
 * joint template's three rings (none at bone 0) and its two bone rings (the second unused when
 * the bone has room for one); the leaf cap's ring. Fixed by the chain, so growth stays with its
 * rings when the joint templates' reach changes the layout.
 */
const radiusGroups = (n: number) => 1 + 3 * n - 1 + 1;
/** The radius group of the joint template at chain joint i ≥ 1. */
const jointGroup = (i: number) => 3 * i;
/** The radius group of bone i's k-th ring. */
const boneGroup = (i: number, k: number) => (i === 0 ? 1 : 3 * i + 1) + k;

/** The radius groups of the two stations around arc length `s` (the end station's twice beyond the ends). */
function bracket(stations: Station[], s: number): [number, number] {
  let k = 0;
  while (k + 1 < stations.length && stations[k + 1].s <= s) k++;
  return [stations[k].group, stations[Math.min(k + 1, stations.length - 1)].group];
}

/**
 * Per radius group, the skin's radius there: the farthest of the points (at arc length `along`,
 * `dist` from their nearest bone) between the group's rings and their neighbours; a group no point
 * reaches (a leaf bone inside a foot) as its neighbours; then no ring less than its neighbours'
 * radius minus the distance between them (cage walls at most 45° to the bone), so that skin
 * bunched at one joint widens the rings next to it gradually and the cage does not fold.
 */
function ringRadii(stations: Station[], along: Float64Array, dist: Float64Array, totalLength: number): Float64Array {
  const groups = 1 + stations[stations.length - 1].group;
  const need = new Float64Array(groups);
  for (let v = 0; v < along.length; v++) for (const g of bracket(stations, along[v])) need[g] = Math.max(need[g], dist[v]);
  for (let g = 0; g < groups; g++) if (!(need[g] > 0)) need[g] = Math.max(need[g - 1] ?? 0, need[g + 1] ?? 0) || 0.05 * totalLength;
  // A joint template's rings reach as far as both its bones' rings (the paper's joint radius): a
  // joint's own skin is often thinner, and tight joint rings twist the skin too sharply there.
  for (let i = 1; 3 * i < groups - 1; i++)
    need[jointGroup(i)] = Math.max(need[jointGroup(i)], need[boneGroup(i - 1, 0)], need[boneGroup(i - 1, 1)], need[boneGroup(i, 0)], need[boneGroup(i, 1)]);
  gentleWalls(stations, need);
  return need;
}

/** Raises `radius` (per group) until no ring is less than a neighbouring ring's radius minus the distance between them. */
function gentleWalls(stations: Station[], radius: Float64Array): void {
  for (let changed = true; changed; ) {
    changed = false;
    for (let k = 0; k + 1 < stations.length; k++) {
      const a = stations[k].group, b = stations[k + 1].group, gap = stations[k + 1].s - stations[k].s; // prettier-ignore
      if (radius[b] < radius[a] - gap) [radius[b], changed] = [radius[a] - gap, true];
      if (radius[a] < radius[b] - gap) [radius[a], changed] = [radius[b] - gap, true];
    }
  }
}

/** A ring of the cage before its radius is known: where along the chain, its plane, its radius group. */
interface Station {
  /** Arc length along the chain from its first joint. */
  s: number;
  /** Rings of one group share a radius (a joint template's three rings). */
  group: number;
  centre: number[];
  dir: number[];
  ref: number[];
  role: Omit<VertexRole, 'local'>;
  /** The point its vertices' rest offsets are from (their joint). */
  origin: number[];
}

/**
 * The rings along the chain, in order: the root cap's, each inner joint's three (parent side at
 * `h` along the parent bone, the joint in the bisecting plane, child side), each bone's at ⅓ and ⅔
 * clear of the joint templates at its ends (one ring at ½ is coarser, but on the libigl arm it
 * halves the muscle bulge the skin shows and does not transfer it to a thicker arm within 25%), the
 * leaf cap's.
 */
function layout(points: Float64Array, axes: Float64Array, refs: Float64Array, lengths: number[], h: number[], head: number): Station[] {
  const n = lengths.length;
  const P = (i: number) => point(points, i);
  const out: Station[] = [];
  let s = 0;
  const a0 = point(axes, 0);
  out.push({ s: -head, group: 0, centre: P(0).map((x, k) => x - a0[k] * head), dir: a0, ref: point(refs, 0), role: { kind: 'cap', index: 0 }, origin: P(0) });
  for (let i = 0; i < n; i++) {
    const a = point(axes, i), ref = point(refs, i), L = lengths[i];
    if (i > 0) {
      const ap = point(axes, i - 1), rp = point(refs, i - 1);
      const mid = normalize(ap.map((x, k) => x + a[k]));
      const midRef = normalize(sub(rp, mid.map((x) => x * dot(rp, mid))));
      const role = { kind: 'joint', index: i } as const, group = jointGroup(i); // prettier-ignore
      out.push({ s: s - h[i], group, centre: P(i).map((x, k) => x - ap[k] * h[i]), dir: ap, ref: rp, role, origin: P(i) });
      out.push({ s, group, centre: P(i), dir: mid, ref: midRef, role, origin: P(i) });
      out.push({ s: s + h[i], group, centre: P(i).map((x, k) => x + a[k] * h[i]), dir: a, ref, role, origin: P(i) });
    }
    const lo = h[i] + 0.05 * L, hi = L - (i + 1 < n ? h[i + 1] : 0) - 0.05 * L;
    const at = [L / 3, (2 * L) / 3].filter((x) => x > lo && x < hi);
    (at.length ? at : [(lo + hi) / 2]).forEach((x, k) =>
      out.push({ s: s + x, group: boneGroup(i, k), centre: P(i).map((c, q) => c + a[q] * x), dir: a, ref, role: { kind: 'bone', index: i }, origin: P(i) }),
    );
    s += L;
  }
  out.push({ s, group: radiusGroups(n) - 1, centre: P(n), dir: point(axes, n - 1), ref: point(refs, n - 1), role: { kind: 'cap', index: n - 1 }, origin: P(n - 1) });
  return out;
}

/**
 * The cage: the stations' rings (radius per group), bridged (minimal area), fans to an apex `apex`
 * ring radii beyond both end rings.
 */
function assemble(stations: Station[], radius: ArrayLike<number>, apex: number) {
  const positions: number[] = [];
  const roles: VertexRole[] = [];
  const tip = (p: number[], bone: number, origin: number[]) => {
    positions.push(...p);
    roles.push(vertexRole('cap', bone, sub(p, origin)));
    return positions.length / 3 - 1;
  };
  // Root cap apex: moves with bone 0, or with the template of the joint the limb branches off (poseTemplates).
  const first = stations[0], last = stations[stations.length - 1];
  const rootApex = tip(first.centre.map((x, k) => x - first.dir[k] * apex * radius[first.group]), 0, first.origin);
  const rings = stations.map(({ centre, dir, ref, role, origin, group }) => {
    const other = cross(dir, ref);
    const ids: number[] = [];
    for (let q = 0; q < SIDES; q++) {
      const a = (2 * Math.PI * q) / SIDES;
      const p = centre.map((c, k) => c + radius[group] * (Math.cos(a) * ref[k] + Math.sin(a) * other[k]));
      ids.push(positions.length / 3);
      positions.push(...p);
      roles.push(vertexRole(role.kind, role.index, sub(p, origin)));
    }
    return ids;
  });
  // Leaf cap apex, rigid with the last bone, beyond the end of the skin.
  const leafApex = tip(last.centre.map((x, k) => x + last.dir[k] * apex * radius[last.group]), last.role.index, last.origin);
  const triangles: number[] = [];
  for (let q = 0; q < SIDES; q++) triangles.push(rootApex, rings[0][(q + 1) % SIDES], rings[0][q]);
  for (let k = 0; k + 1 < rings.length; k++) triangles.push(...minimalAreaBridge(positions, rings[k], rings[k + 1]).triangles);
  const end = rings[rings.length - 1];
  for (let q = 0; q < SIDES; q++) triangles.push(leafApex, end[q], end[(q + 1) % SIDES]);
  const cage: Cage = { positions: Float64Array.from(positions), triangles: Uint32Array.from(triangles) };
  let vol = 0;
  const p = cage.positions, tri = cage.triangles;
  for (let f = 0; f < tri.length; f += 3) vol += dot(point(p, tri[f]), cross(point(p, tri[f + 1]), point(p, tri[f + 2])));
  if (vol < 0) for (let f = 0; f < tri.length; f += 3) [tri[f + 1], tri[f + 2]] = [tri[f + 2], tri[f + 1]];
  return { cage, roles };
}
