/**
 * Weight-painting brushes: the edits a painting tool makes to skinning weights, as plain data for
 * an incremental CoR session (`createCorSession(...).setWeights`). Every result is non-negative
 * and sums to 1 per vertex, in the mesh's K influence slots.
 *
 * - `add` raises the joint's weight by s, `subtract` lowers it by s (what it loses goes to the
 *   vertex's other joints in proportion), `replace` moves it towards `strength` by the falloff,
 *   `smooth` blends every weight towards the mean of the vertex's one-ring by s — with s =
 *   strength × falloff(distance / radius);
 * - a joint not among a vertex's influences takes its smallest slot (whose weight goes to the
 *   others first);
 * - `mirror` paints the mirrored stroke too: the centre reflected across a coordinate plane, the
 *   joint replaced by its mirror (see {@link mirrorJoints}).
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';
import type { SkinnedMesh } from '../core/mesh.js';

/** How a stroke changes the weights. */
export type BrushMode = 'add' | 'subtract' | 'replace' | 'smooth';

/** One brush dab, in the mesh's bind space. */
export interface BrushDab {
  /** How the dab changes the weights. */
  mode: BrushMode;
  /** The painted joint (not used by `smooth`). */
  joint: number;
  /** Centre (x, y, z), bind space. */
  centre: ArrayLike<number>;
  /** Radius, mesh units (> 0). */
  radius: number;
  /** 0–1. */
  strength: number;
  /** `smooth` (default: 1 − 3t² + 2t³), `linear` (1 − t) or `constant`. */
  falloff?: 'smooth' | 'linear' | 'constant';
  /**
   * Where weight taken from a vertex that has no other joint goes (e.g. the painted joint's
   * parent); without it such a vertex keeps its weight.
   */
  fallbackJoint?: number;
  /** Paint the mirrored dab too: the centre reflected across `axis` = `plane`, joints mapped by `joints`. */
  mirror?: {
    /** The axis normal to the mirror plane: 0 x, 1 y, 2 z. */
    axis: 0 | 1 | 2;
    /** The plane's coordinate on `axis`; default 0. */
    plane?: number;
    /** Per joint, its mirror's index ({@link mirrorJoints}). */
    joints: ArrayLike<number>;
  };
}

/** New influences of the vertices a dab touches (K slots each), for `CorSession.setWeights`. */
export interface BrushEdit {
  /** The vertices the dab touches, ascending. */
  vertices: Int32Array;
  /** Their new joints, K per vertex, in `vertices`' order. */
  joints: Uint32Array;
  /** Their new weights, K per vertex, summing to 1 (0 in unused slots). */
  weights: Float32Array;
}

/**
 * Each joint's mirror by name: `Left`↔`Right`, `left`↔`right`, `L`↔`R` as a word or after `_`,
 * `.` or before `_` (`LeftArm`, `arm_L`, `L_arm`, `Arm.L`); a joint without a counterpart is its
 * own mirror.
 * @returns per joint, its mirror's index
 */
export function mirrorJoints(names: readonly string[]): Int32Array {
  const swap = (s: string) =>
    s.replace(
      /Left|Right|left|right|(?<=^|[_.\s-])[LR](?=$|[_.\s-])|(?<=[a-z])[LR](?=$)/g,
      (m) => ({ Left: 'Right', Right: 'Left', left: 'right', right: 'left', L: 'R', R: 'L' })[m] ?? m,
    );
  const index = new Map(names.map((n, j) => [n, j]));
  return Int32Array.from(names, (n, j) => index.get(swap(n)) ?? j);
}

/**
 * The edit one dab makes to `mesh` (its current joints and weights; positions in bind space).
 * @param rings one-ring neighbours of every vertex (for `smooth`), e.g. from the triangles
 * @throws CorskinError for a joint out of range, a non-positive radius or a strength outside 0–1
 */
export function brushDab(mesh: SkinnedMesh, dab: BrushDab, jointCount: number, rings?: number[][]): BrushEdit {
  if (!(dab.radius > 0)) throw new CorskinError(`brush radius must be > 0, got ${dab.radius}`);
  if (!(dab.strength >= 0 && dab.strength <= 1))
    throw new CorskinError(`brush strength must be 0 to 1, got ${dab.strength}`);
  if (dab.mode !== 'smooth' && !(Number.isInteger(dab.joint) && dab.joint >= 0 && dab.joint < jointCount))
    throw new CorskinError(`brush joint ${dab.joint} is not a joint (0–${jointCount - 1})`);
  const K = mesh.influences;
  const n = mesh.positions.length / 3;
  const falloff = (t: number) =>
    dab.falloff === 'constant' ? 1 : dab.falloff === 'linear' ? 1 - t : 1 - 3 * t * t + 2 * t * t * t;
  const dabs: { centre: number[]; joint: number }[] = [
    { centre: Array.from(dab.centre).slice(0, 3), joint: dab.joint },
  ];
  if (dab.mirror) {
    const c = dabs[0].centre.slice();
    c[dab.mirror.axis] = 2 * (dab.mirror.plane ?? 0) - c[dab.mirror.axis];
    dabs.push({ centre: c, joint: dab.mirror.joints[dab.joint] ?? dab.joint });
  }
  // Per touched vertex, its strongest influence from either dab.
  const touched = new Map<number, { f: number; joint: number }>();
  for (const d of dabs)
    for (let i = 0; i < n; i++) {
      const dist = Math.hypot(
        mesh.positions[3 * i] - d.centre[0],
        mesh.positions[3 * i + 1] - d.centre[1],
        mesh.positions[3 * i + 2] - d.centre[2],
      );
      if (dist >= dab.radius) continue;
      const f = falloff(dist / dab.radius);
      if (f > (touched.get(i)?.f ?? 0)) touched.set(i, { f, joint: d.joint });
    }
  const vertices = Int32Array.from([...touched.keys()].sort((a, b) => a - b));
  const joints = new Uint32Array(K * vertices.length);
  const weights = new Float32Array(K * vertices.length);
  const slots = (i: number) => {
    const m = new Map<number, number>();
    for (let k = K * i; k < K * i + K; k++)
      if (mesh.weights[k] > 0) m.set(mesh.joints[k], (m.get(mesh.joints[k]) ?? 0) + mesh.weights[k]);
    return m;
  };
  vertices.forEach((i, v) => {
    const { f, joint } = touched.get(i)!;
    const s = dab.strength * f;
    let w = slots(i);
    const total = [...w.values()].reduce((a, b) => a + b, 0) || 1;
    for (const [j, x] of w) w.set(j, x / total);
    if (dab.mode === 'smooth') {
      const mean = new Map<number, number>();
      const ring = rings?.[i] ?? [];
      for (const r of ring) for (const [j, x] of slots(r)) mean.set(j, (mean.get(j) ?? 0) + x / ring.length);
      if (ring.length) {
        const all = new Set([...w.keys(), ...mean.keys()]);
        const next = new Map<number, number>();
        for (const j of all) next.set(j, (1 - s) * (w.get(j) ?? 0) + s * (mean.get(j) ?? 0));
        w = next;
      }
    } else {
      const current = w.get(joint) ?? 0;
      const target =
        dab.mode === 'add'
          ? Math.min(1, current + s)
          : dab.mode === 'subtract'
            ? Math.max(0, current - s)
            : current + f * (dab.strength - current);
      const others = 1 - current;
      if (others <= 0 && target < 1) {
        // Nothing else to give the weight to: the fallback joint takes it (else leave the vertex).
        const fallback =
          dab.mirror && joint !== dab.joint ? dab.mirror.joints[dab.fallbackJoint ?? -1] : dab.fallbackJoint;
        if (fallback !== undefined && fallback !== joint && fallback >= 0) {
          w.set(joint, target);
          w.set(fallback, 1 - target);
        }
      } else {
        for (const [j, x] of w) if (j !== joint) w.set(j, others > 0 ? (x * (1 - target)) / others : 0);
        w.set(joint, target);
      }
    }
    // Keep the K largest, renormalised.
    const kept = [...w.entries()]
      .filter(([, x]) => x > 0)
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, K);
    const sum = kept.reduce((a, [, x]) => a + x, 0);
    kept.forEach(([j, x], k) => {
      joints[K * v + k] = j;
      weights[K * v + k] = x / sum;
    });
  });
  return { vertices, joints, weights };
}
