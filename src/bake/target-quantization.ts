/**
 * Morph targets' positions as 16-bit integers (`corskin bake --target-positions short`): the step
 * of each target, within a rounding budget (`io/morph-bake.ts` writes them, KHR_mesh_quantization).
 *
 * @module
 */

/**
 * The step of each target's positions stored as 16-bit integers (`MorphBakeOptions.positions`):
 * q_t = max |x_t| / 32767, so that round(x_t / q_t) fits, with its weights multiplied by q_t
 * (engines then play w·q_t · round(x_t / q_t)). Rounding moves vertex v of target t by
 * r_t(v) = |q_t · round(x_t(v) / q_t) − x_t(v)| in bind space, at most gain(v) · r_t(v) once
 * posed; at sample s the vertex moves by at most gain(v) · Σ_t |w_s,t| · r_t(v), the rounding of
 * each target as it is, not its worst case. While that exceeds the vertex's budget at some
 * sample, the target that weighs most in it there (at the vertex farthest over) is stored in
 * float instead (step 0), as is a target whose posed displacement, gain · |x_t|, is within the
 * budget at every vertex (so that no step, nor weight scaled by it, is vanishingly small).
 * @param positions per target, its position displacements (3·n, bind space)
 * @param weights per sample, its weight of each target; omitted: one target per sample, target s
 *   weighted 1 at sample s alone
 * @param gain per vertex, the bound on |M₃ d| / |d| over the samples
 * @param budget per vertex, the posed-space distance the rounding may add there (asset units)
 * @returns per target, its step (0: float)
 */
export function quantizeTargets(
  positions: readonly Float32Array[],
  weights: readonly ArrayLike<number>[] | undefined,
  gain: ArrayLike<number>,
  budget: ArrayLike<number>,
): Float64Array {
  const T = positions.length;
  const n = gain.length;
  const steps = new Float64Array(T);
  positions.forEach((x, t) => {
    let [largest, over] = [0, false];
    for (let v = 0; v < n; v++) {
      const l = Math.max(Math.abs(x[3 * v]), Math.abs(x[3 * v + 1]), Math.abs(x[3 * v + 2]));
      largest = Math.max(largest, l);
      over ||= l * gain[v] > budget[v];
    }
    steps[t] = over ? largest / 32767 : 0;
  });
  /** Posed-space rounding of target t at vertex v: gain(v) · r_t(v). */
  const rounding = (t: number, v: number) => {
    const [x, q] = [positions[t], steps[t]];
    let r = 0;
    for (let c = 3 * v; c < 3 * v + 3; c++) r += (q * Math.round(x[c] / q) - x[c]) ** 2;
    return gain[v] * Math.sqrt(r);
  };
  if (!weights) {
    // One target per sample, at weight 1: each on its own.
    for (let t = 0; t < T; t++) for (let v = 0; v < n && steps[t]; v++) if (rounding(t, v) > budget[v]) steps[t] = 0;
    return steps;
  }
  // Per vertex, its quantized targets and their rounding there.
  const at = Array.from({ length: n }, () => [] as { t: number; r: number }[]);
  for (let t = 0; t < T; t++)
    for (let v = 0; v < n && steps[t]; v++) {
      const r = rounding(t, v);
      if (r > 0) at[v].push({ t, r });
    }
  const heaviest = Array.from({ length: T }, (_, t) => weights.reduce((x, w) => Math.max(x, Math.abs(w[t])), 0));
  /**
   * Vertex v's largest rounding over the samples, and the target that weighs most in it; where
   * its bound at every target's heaviest weight is within the budget, that bound (no target).
   */
  const worst = (v: number) => {
    const bound = at[v].reduce((x, e) => x + heaviest[e.t] * e.r, 0);
    if (bound <= budget[v]) return { largest: bound, target: -1 };
    let [largest, target] = [0, -1];
    for (const w of weights) {
      let [sum, part, t] = [0, 0, -1];
      for (const e of at[v]) {
        const x = Math.abs(w[e.t]) * e.r;
        sum += x;
        if (x > part) [part, t] = [x, e.t];
      }
      if (sum > largest) [largest, target] = [sum, t];
    }
    return { largest, target };
  };
  const bounds = Array.from({ length: n }, (_, v) => worst(v));
  for (;;) {
    let v = -1;
    for (let u = 0; u < n; u++) if (bounds[u].largest > budget[u] && (v < 0 || bounds[u].largest - budget[u] > bounds[v].largest - budget[v])) v = u; // prettier-ignore
    if (v < 0) return steps;
    const t = bounds[v].target;
    steps[t] = 0;
    for (let u = 0; u < n; u++)
      if (at[u].some((e) => e.t === t)) {
        at[u] = at[u].filter((e) => e.t !== t);
        bounds[u] = worst(u);
      }
  }
}
