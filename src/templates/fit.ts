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
export type ChainCage = Omit<TemplateLimb, 'first' | 'boneTemplates' | 'jointTemplates'> & { cage: Cage };


/**
 * Fits the template cage of joint chain `chain` (bind joint positions `P`, 3·J) to the points
 * `X` (3·n, the skin it must enclose): each bone's rings as far out as the farthest of the
 * points nearest to it (the paper's radial scaling), grown bone by bone (the bones nearest to
 * points still outside) until every point is inside; its end caps' apexes `apex` ring radii beyond
 * their rings; the last bone towards `leaf` when given ({@link leafDirection}).
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
  // Each bone's part of the skin (the points closest to it) and its radius.
  const boneRadius = new Float64Array(n);
  const nearest = new Int32Array(X.length / 3);
  for (let v = 0; v < X.length / 3; v++) {
    let best = Infinity, bone = 0; // prettier-ignore
    for (let i = 0; i < n; i++) {
      const dist = segmentDistance(X, 3 * v, pts[i], pts[i + 1]);
      if (dist < best) [best, bone] = [dist, i];
    }
    boneRadius[bone] = Math.max(boneRadius[bone], best);
    nearest[v] = bone;
  }
  // A bone no point is closest to (a leaf bone inside a foot or hand) takes its neighbours' radius.
  for (let i = 0; i < n; i++)
    if (!(boneRadius[i] > 0)) boneRadius[i] = Math.max(boneRadius[i - 1] ?? 0, boneRadius[i + 1] ?? 0) || 0.05 * totalLength;
  const lengths = Array.from({ length: n }, (_, i) => Math.hypot(...sub(pts[i + 1], pts[i])));
  // Grown bone by bone: the bones nearest to skin still outside, until none is (bounded).
  const grow = new Float64Array(n).fill(1.15);
  for (;;) {
    const radius = Array.from(boneRadius, (r, i) => (r / Math.cos(Math.PI / SIDES)) * grow[i]);
    const { cage, roles } = assemble(points, axes, references, lengths, radius, head, apex);
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
 * both end rings. Per bone `radius`, its rings' radius; a joint's rings as far out as the farther
 * ring of its two bones.
 */
function assemble(points: Float64Array, axes: Float64Array, refs: Float64Array, lengths: number[], radius: number[], head: number, apex: number) {
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
  const tip = (p: number[], bone: number, origin: number[]) => {
    positions.push(...p);
    roles.push({ kind: 'cap', index: bone, local: sub(p, origin) });
    return positions.length / 3 - 1;
  };
  const P = (i: number) => point(points, i);
  // Root cap: moves with bone 0, or with the template of the joint the limb branches off (poseTemplates).
  const a0 = point(axes, 0), r0 = point(refs, 0);
  const rootApex = tip(P(0).map((x, k) => x - a0[k] * (head + apex * radius[0])), 0, P(0));
  ring(P(0).map((x, k) => x - a0[k] * head), a0, r0, radius[0], { kind: 'cap', index: 0 }, P(0));
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
      ring(P(i).map((c, k) => c + a[k] * x), a, ref, radius[i], { kind: 'bone', index: i }, P(i));
  }
  // Leaf cap (rigid with the last bone) at the end of the skin.
  const an = point(axes, n - 1), rn = point(refs, n - 1);
  ring(P(n), an, rn, radius[n - 1], { kind: 'cap', index: n - 1 }, P(n - 1));
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

