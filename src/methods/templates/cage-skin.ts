/**
 * The template cage's own skinning weights (so DQS of the cage follows the skin under it), and
 * the tests that decide which skin a limb's cage is fitted to (no flesh beyond the bone, skin
 * facing its bone) — see `rig.ts`.
 *
 * @module
 */
import type { Cage } from '../../cage/cage.js';
import type { SkinnedMesh } from '../../core/mesh.js';
import { windingNumber } from '../../cage/winding-number.js';
import { segmentDistance } from '../../core/math.js';
import { dot, point, sub } from '../../core/vec3.js';
import type { LimbSkin, TemplateLimb, TemplateRig } from './rig.js';

/** Skinning influences per cage vertex ({@link TemplateRig.cageSkin}). */
export const CAGE_INFLUENCES = 4;
/** Below this part of the nearest skin vertex's weight on a cage vertex's template joints, it keeps its template's own blend. */
const TRANSFER_FLOOR = 0.2;

/**
 * The cage's skinning weights, on the joints each cage vertex's template moves it with — a joint
 * template's vertex: the parent bone's joint and the joint's own; a bone template's: its bone's
 * joint and those at its ends; a cap's: its bone's joint — in the proportions that the skin
 * vertex of its limb nearest to it has them. So DQS of the cage follows the skin under it (the
 * templates' correction is then what they add to that skin's DQS, the rig's module comment),
 * without taking weights of other parts the cage passes near (a chest under a shoulder's ring).
 * Where that skin vertex has less than {@link TRANSFER_FLOOR} of its weight on those joints, a
 * joint template's vertex blends them as Eq. 1 does at rest (`u_j ∝ 1 / angle(v, b_j)`), any
 * other follows its bone's joint. On the libigl arm twisted 180°, the nearest vertex's weights
 * keep 0.80 of the cross-section where an average over its 8 nearest keeps 0.75 (DQS: 0.65).
 */
export function transferCageWeights(limbs: TemplateLimb[], cage: Cage, parts: LimbSkin[], mesh: SkinnedMesh): TemplateRig['cageSkin'] {
  const m = cage.positions.length / 3;
  const joints = new Uint32Array(CAGE_INFLUENCES * m), weights = new Float32Array(CAGE_INFLUENCES * m); // prettier-ignore
  const { joints: MJ, weights: MW, influences: K } = mesh;
  const C = cage.positions;
  limbs.forEach((limb, q) => {
    const { vertices, X } = parts[q];
    limb.roles.forEach((role, r) => {
      const c = limb.first + r;
      const i = role.index;
      const relevant = role.kind === 'joint' ? [limb.chain[i - 1], limb.chain[i]] : role.kind === 'cap' ? [limb.chain[i]] : [limb.chain[i - 1], limb.chain[i], limb.chain[i + 1]].filter((j) => j !== undefined); // prettier-ignore
      let nearest = 0, best = Infinity; // prettier-ignore
      for (let t = 0; t < vertices.length; t++) {
        const d = (X[3 * t] - C[3 * c]) ** 2 + (X[3 * t + 1] - C[3 * c + 1]) ** 2 + (X[3 * t + 2] - C[3 * c + 2]) ** 2; // prettier-ignore
        if (d < best) [best, nearest] = [d, vertices[t]];
      }
      const w = relevant.map(() => 0);
      let all = 0;
      for (let k = K * nearest; k < K * nearest + K; k++) {
        all += MW[k];
        const s = relevant.indexOf(MJ[k]);
        if (s >= 0) w[s] += MW[k];
      }
      if (!(w.reduce((a, b) => a + b, 0) > TRANSFER_FLOOR * all)) {
        w.fill(0);
        if (role.kind === 'joint') {
          w[0] = eq1ParentShare(role.local, [point(limb.axes, i - 1).map((x) => -x), point(limb.axes, i)]);
          w[1] = 1 - w[0];
        } else w[relevant.indexOf(limb.chain[i])] = 1;
      }
      const sum = w.reduce((a, b) => a + b, 0);
      relevant.forEach((j, s) => {
        joints[CAGE_INFLUENCES * c + s] = j;
        weights[CAGE_INFLUENCES * c + s] = w[s] / sum;
      });
    });
  });
  return { joints, weights };
}

/** Eq. 1's weight of the parent bone for a vertex at `local` about a joint, its incident bones' directions `dirs` (the parent's first). */
function eq1ParentShare(local: ArrayLike<number>, dirs: number[][]): number {
  const len = Math.hypot(local[0], local[1], local[2]);
  if (!(len > 0)) return 0.5;
  const inv = dirs.map((d) => 1 / Math.max(1e-12, Math.acos(Math.max(-1, Math.min(1, dot(local, d) / len)))));
  return inv[0] / inv.reduce((a, b) => a + b, 0);
}

/**
 * Leaves to DQS (share 0) the skin nearest to limb c's bones that lie outside the skin: templates
 * model flesh around a bone (a cage ring around the skin, moving with it), and where the bone is
 * not inside the skin — a skeleton's forearm, whose axis runs between its two bones; a flap; a
 * plate — there is no such flesh. A bone is inside when the generalised winding number of the
 * skin about the bone's middle is at least ½ (Jacobson, Kavan, Sorkine-Hornung, SIGGRAPH 2013;
 * robust to the holes and overlapping pieces of real meshes).
 * @param share n·L, changed in place
 */
export function leaveFleshless(mesh: SkinnedMesh, P: ArrayLike<number>, chain: number[], share: Float64Array, L: number, c: number): void {
  const bones = chain.slice(0, -1).map((j, b) => [point(P, j), point(P, chain[b + 1])]);
  const surface = { positions: mesh.positions, triangles: mesh.triangles };
  const inside = bones.map(([a, b]) => windingNumber(surface, a.map((x, k) => 0.5 * (x + b[k]))) >= 0.5);
  if (inside.every((x) => x)) return;
  for (let i = 0; i < mesh.positions.length / 3; i++) if (share[L * i + c] > 0 && !inside[nearestBone(mesh.positions, i, bones).bone]) share[L * i + c] = 0;
}

/**
 * Whether skin vertex i faces its nearest bone of the chain (its normal points towards it): the
 * surface of another part next to the limb — the side of a torso along an arm hanging down —
 * whose flesh lies on the other side. The cage is fitted without such skin, so that it does not
 * widen to the torso; what of it lies inside the cage anyway is bound all the same.
 * @param normals unit vertex normals, 3·n
 */
export function facesBone(X: ArrayLike<number>, normals: ArrayLike<number>, i: number, bones: number[][][]): boolean {
  const { closest } = nearestBone(X, i, bones);
  return dot(sub(point(X, i), closest), point(normals, i)) < 0;
}

/** The bone (`bones`: segments [a, b]) nearest to point i of `X`, and the closest point on it. */
function nearestBone(X: ArrayLike<number>, i: number, bones: number[][][]): { bone: number; closest: number[] } {
  let best = Infinity, bone = 0; // prettier-ignore
  bones.forEach(([a, b], q) => {
    const d = segmentDistance(X, 3 * i, a, b);
    if (d < best) [best, bone] = [d, q];
  });
  const [a, b] = bones[bone];
  const ab = sub(b, a);
  const t = Math.max(0, Math.min(1, dot(sub(point(X, i), a), ab) / Math.max(1e-300, dot(ab, ab))));
  return { bone, closest: a.map((v, k) => v + t * ab[k]) };
}

/** A binding of n skin vertices to no cage vertex (the templates are DQS). */
