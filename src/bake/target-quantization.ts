/**
 * Morph targets' positions as 16-bit integers (`corskin bake --target-positions short`): the step
 * of each target, within a rounding budget (`io/morph-bake.ts` writes them, KHR_mesh_quantization).
 *
 * @module
 */

/**
 * The step of each target's positions stored as 16-bit integers (`MorphBakeOptions.positions`):
 * q_t = max |x_t| / 32767, so that round(x_t / q_t) fits, with its weights multiplied by q_t
 * (engines then play w·q_t · round(x_t / q_t)). Rounding moves a vertex by at most √3/2 · q_t in
 * bind space (half a step per coordinate), at most gain_t · √3/2 · q_t once posed, gain_t the
 * largest `CorrectionBounds.gain` over the vertices the target moves; a target is stored in
 * float (step 0) where the sum of that over the targets, weighted by a sample's |weights|, could
 * exceed `budget` at some sample — the largest contributions first — and where its whole posed
 * displacement, gain_t · max |x_t|, is within `budget` (so that no step, nor weight scaled by it,
 * is vanishingly small).
 * @param positions per target, its position displacements (3·n, bind space)
 * @param weights per sample, its weight of each target; omitted: one target per sample, target s
 *   weighted 1 at sample s alone
 * @param gain per vertex, the bound on |M₃ d| / |d| over the samples
 * @param budget posed-space distance the rounding may add (asset units)
 * @returns per target, its step (0: float)
 */
export function quantizeTargets(
  positions: readonly Float32Array[],
  weights: readonly ArrayLike<number>[] | undefined,
  gain: ArrayLike<number>,
  budget: number,
): Float64Array {
  const T = positions.length;
  const steps = new Float64Array(T);
  // Per target, the bound per unit of step and weight: √3/2 · gain_t.
  const perStep = positions.map((x, t) => {
    let largest = 0;
    let largestGain = 0;
    for (let v = 0; v < x.length / 3; v++) {
      const l = Math.max(Math.abs(x[3 * v]), Math.abs(x[3 * v + 1]), Math.abs(x[3 * v + 2]));
      if (l > 0) [largest, largestGain] = [Math.max(largest, l), Math.max(largestGain, gain[v])];
    }
    steps[t] = largest * largestGain > budget ? largest / 32767 : 0;
    return (largestGain * Math.sqrt(3)) / 2;
  });
  const S = weights?.length ?? T;
  // Per sample, the bound over all vertices; per target, the largest part of it it makes.
  const total = new Float64Array(S);
  const peak = new Float64Array(T);
  const parts = (t: number, add: (s: number, part: number) => void) => {
    if (!weights) return add(t, perStep[t] * steps[t]);
    for (let s = 0; s < S; s++) add(s, perStep[t] * steps[t] * Math.abs(weights[s][t]));
  };
  for (let t = 0; t < T; t++)
    parts(t, (s, part) => {
      total[s] += part;
      peak[t] = Math.max(peak[t], part);
    });
  const order = Array.from({ length: T }, (_, t) => t).sort((a, b) => peak[b] - peak[a]);
  let over = total.reduce((c, x) => c + (x > budget ? 1 : 0), 0);
  for (const t of order) {
    if (!over) break;
    parts(t, (s, part) => {
      const before = total[s] > budget;
      total[s] -= part;
      if (before && !(total[s] > budget)) over--;
    });
    steps[t] = 0;
  }
  return steps;
}
