/**
 * Fitting a limb's template cage to its skin (Ju et al. 2008, §5.1): rings along the chain —
 * joint templates at inner joints, bone templates along bones, end caps — bridged by minimal-area
 * triangulations, scaled to the skin and grown until every bound skin vertex is inside.
 *
 * @module
 */
import type { Cage } from '../cage/cage.js';
import { pointsOutside } from '../cage/winding-number.js';
import { CorskinError } from '../core/errors.js';
import type { SkinnedMesh } from '../core/mesh.js';
import { segmentDistance } from '../core/math.js';
import { cross, dot, normalize, point, sub } from '../core/vec3.js';
import { minimalAreaBridge } from './bridge.js';
import type { TemplateLimb, VertexRole } from './rig.js';

/** Ring sides of the chain templates. */
export const SIDES = 8;


/** `rings: 'fitted'`: no side of a ring nearer its bone than this fraction of the bone's radius. */
const FITTED_FLOOR = 0.3;

/** `rings: 'fitted'`: every side of a ring this fraction of the bone's radius beyond the skin. */
const FITTED_MARGIN = 0.05;

/** `rings: 'fitted'`: bones starting this near a joint where limbs branch (relative to the reach of the skin on it) keep round rings. */
const NEAR_BRANCH = 0.4;


/**
 * The joints near a joint where limbs branch (a chest, a hip, a hand): within
 * {@link NEAR_BRANCH} of the distance to the farthest skin vertex whose largest weight is on that
 * joint. Their bones keep round rings with `rings: 'fitted'`.
 */
export function nearBranches(mesh: SkinnedMesh, P: ArrayLike<number>, chains: number[][]): Set<number> {
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


/**
 * The direction of a leaf joint's bone (glTF gives it no end): towards the centroid of the skin it
 * holds at least half of (a curled tail's tip, a hand, a head), or undefined when that is empty
 * or at the joint (the parent bone's direction then goes on).
 */
export function leafDirection(mesh: SkinnedMesh, P: Float64Array, joint: number): number[] | undefined {
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


/** A chain's fitted template cage. */
export type ChainCage = Omit<TemplateLimb, 'first' | 'reach' | 'boneTemplates' | 'jointTemplates'> & { cage: Cage };


/**
 * Fits the template cage of joint chain `chain` (bind joint positions `P`, 3·J) to the points
 * `X` (3·n, the skin it must enclose); its end caps' apexes `apex` ring radii beyond their rings;
 * bone rings fitted to the skin's cross-section except on bones starting at a joint of `round`,
 * or round everywhere when `round` is undefined.
 * @throws CorskinError when it cannot be grown to enclose them
 */
export function fitChain(X: ArrayLike<number>, P: Float64Array, chain: number[], apex: number, round: Set<number> | undefined, ids?: number[], leaf?: number[]): ChainCage {
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
export function assemble(points: Float64Array, axes: Float64Array, refs: Float64Array, lengths: number[], shape: (number | Float64Array)[], head: number, apex: number) {
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
    // Bone template: rings at ⅓ and ⅔ of the bone that clear the joint templates at its ends (one
    // ring at ½ is coarser, but on the libigl arm it halves the muscle bulge the skin shows and
    // does not transfer it to a thicker arm within 25%).
    const lo = h[i] + 0.05 * L, hi = L - (i + 1 < n ? h[i + 1] : 0) - 0.05 * L;
    const at01 = [L / 3, (2 * L) / 3].filter((x) => x > lo && x < hi);
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

