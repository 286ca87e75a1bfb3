/**
 * Blends of two sets of influences (a fitted vertex's and its own): what the helper bake's
 * never-worse guard (`never-worse.ts`) tries a vertex on before giving it back whole.
 *
 * @module
 */

import { roundToStoredWeights } from '../core/weight-quantization.js';

/**
 * The shares of its fitted weights a vertex a guard would give back is tried on, blended with its
 * own, in turn (`blendBack` in `never-worse.ts`, `repairTurnedNormals` in `normal-guard.ts`).
 */
export const BLEND_SHARES = [0.75, 0.5, 0.25, 0.125];

/**
 * α·a + (1 − α)·b of two sets of K influences (joints and weights, K each; a joint index < J a
 * fixed joint, else a helper), the K heaviest of their union kept and scaled to the blend's whole
 * sum, into `joints`/`weights` from element `at` (K·row) on, rounded as the file stores them
 * (`roundToStoredWeights`).
 */
export function blendWeights(
  a: { joints: ArrayLike<number>; weights: ArrayLike<number> },
  b: { joints: ArrayLike<number>; weights: ArrayLike<number> },
  alpha: number,
  joints: Uint32Array,
  weights: Float32Array,
  at: number,
): void {
  const K = a.joints.length;
  const sum = new Map<number, number>();
  for (let k = 0; k < K; k++) {
    if (a.weights[k] > 0) sum.set(a.joints[k], (sum.get(a.joints[k]) ?? 0) + alpha * a.weights[k]);
    if (b.weights[k] > 0) sum.set(b.joints[k], (sum.get(b.joints[k]) ?? 0) + (1 - alpha) * b.weights[k]);
  }
  const all = [...sum].sort((x, y) => y[1] - x[1] || x[0] - y[0]);
  const total = all.reduce((s, [, w]) => s + w, 0);
  const kept = all.slice(0, K);
  const keptSum = kept.reduce((s, [, w]) => s + w, 0);
  for (let k = 0; k < K; k++) {
    joints[at + k] = kept[k]?.[0] ?? 0;
    weights[at + k] = kept[k] ? (kept[k][1] * total) / keptSum : 0;
  }
  roundToStoredWeights(weights, at, K);
}
