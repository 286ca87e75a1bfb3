/**
 * Morph targets' positions as 8- or 16-bit integers (`corskin bake --target-positions short`):
 * the bits and step of each target, within a rounding budget (`io/morph-bake.ts` writes them,
 * KHR_mesh_quantization).
 *
 * @module
 */

/** How each target's positions are stored ({@link quantizeTargets}). */
export interface TargetQuantization {
  /** Per target, bind-space units per integer step (0: float). */
  steps: Float64Array;
  /** Per target, the integers' bits: 8 (BYTE), 16 (SHORT), or 0 (float). */
  bits: Uint8Array;
}

/** The largest integer of each width, signed. */
const LARGEST_INTEGER: Readonly<Record<number, number>> = { 8: 127, 16: 32767 };

/**
 * The bits and step of each target's positions stored as integers (`MorphBakeOptions.positions`):
 * q_t = max |x_t| / 127 in 8 bits or / 32767 in 16, so that round(x_t / q_t) fits, with its weights
 * multiplied by q_t (engines then play w·q_t · round(x_t / q_t)). Rounding moves vertex v of
 * target t by r_t(v) = |q_t · round(x_t(v) / q_t) − x_t(v)| in bind space, at most
 * gain(v) · r_t(v) once posed; at sample s the vertex moves by at most gain(v) · Σ_t |w_s,t| · r_t(v),
 * the rounding of each target as it is, not its worst case. First every target in 16 bits: while
 * that sum exceeds the vertex's budget at some sample, the target that weighs most in it there (at
 * the vertex farthest over) is stored in float instead (step 0). Then each 16-bit target, the one
 * with the most non-zero displacements first, is stored in 8 bits where every vertex stays within
 * its budget at every sample. A target whose posed displacement, gain · |x_t|, is within the
 * budget at every vertex stays float (so that no step, nor weight scaled by it, is vanishingly
 * small).
 * @param positions per target, its position displacements (3·n, bind space)
 * @param weights per sample, its weight of each target; omitted: one target per sample, target s
 *   weighted 1 at sample s alone, each in the narrowest width that holds it
 * @param gain per vertex, the bound on |M₃ d| / |d| over the samples
 * @param budget per vertex, the posed-space distance the rounding may add there (asset units)
 * @returns per target, its bits and step
 */
export function quantizeTargets(
  positions: readonly Float32Array[],
  weights: readonly ArrayLike<number>[] | undefined,
  gain: ArrayLike<number>,
  budget: ArrayLike<number>,
): TargetQuantization {
  const T = positions.length;
  const n = gain.length;
  const [steps, bits, largest] = [new Float64Array(T), new Uint8Array(T), new Float64Array(T)];
  const nonZero = new Int32Array(T);
  /** Stores target t in `width` bits (0: float). */
  const setWidth = (t: number, width: number) => {
    bits[t] = width;
    steps[t] = width ? largest[t] / LARGEST_INTEGER[width] : 0;
  };
  positions.forEach((x, t) => {
    let over = false;
    for (let v = 0; v < n; v++) {
      const l = Math.max(Math.abs(x[3 * v]), Math.abs(x[3 * v + 1]), Math.abs(x[3 * v + 2]));
      largest[t] = Math.max(largest[t], l);
      over ||= l * gain[v] > budget[v];
      if (l > 0) nonZero[t]++;
    }
    if (over) setWidth(t, 16);
  });
  /** Posed-space rounding of target t at vertex v with step q: gain(v) · r_t(v). */
  const rounding = (t: number, v: number, q = steps[t]) => {
    const x = positions[t];
    if (!q) return 0;
    let r = 0;
    for (let c = 3 * v; c < 3 * v + 3; c++) r += (q * Math.round(x[c] / q) - x[c]) ** 2;
    return gain[v] * Math.sqrt(r);
  };
  /** Whether target t alone, in `width` bits at `weight`, keeps every vertex within its budget. */
  const holdsAlone = (t: number, width: number, weight: number) => {
    const q = largest[t] / LARGEST_INTEGER[width];
    for (let v = 0; v < n; v++) if (weight * rounding(t, v, q) > budget[v]) return false;
    return true;
  };
  if (!weights) {
    // One target per sample, at weight 1: each on its own.
    for (let t = 0; t < T; t++) if (bits[t]) setWidth(t, holdsAlone(t, 8, 1) ? 8 : holdsAlone(t, 16, 1) ? 16 : 0);
    return { steps, bits };
  }
  // Per vertex, its integer targets and their rounding there.
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
  /** Stores target t in `width` bits, its rounding anew at every vertex; returns the vertices it changed. */
  const rewidth = (t: number, width: number) => {
    setWidth(t, width);
    const changed: number[] = [];
    for (let u = 0; u < n; u++) {
      const r = rounding(t, u);
      const had = at[u].some((e) => e.t === t);
      if (!had && !r) continue;
      at[u] = at[u].filter((e) => e.t !== t);
      if (r > 0) at[u].push({ t, r });
      bounds[u] = worst(u);
      changed.push(u);
    }
    return changed;
  };
  for (;;) {
    let v = -1;
    for (let u = 0; u < n; u++) if (bounds[u].largest > budget[u] && (v < 0 || bounds[u].largest - budget[u] > bounds[v].largest - budget[v])) v = u; // prettier-ignore
    if (v < 0) break;
    rewidth(bounds[v].target, 0);
  }
  const wide = Array.from({ length: T }, (_, t) => t).filter((t) => bits[t] === 16);
  // A target whose own 8-bit rounding at its heaviest weight is over some vertex's budget is not tried.
  for (const t of wide.sort((a, b) => nonZero[b] - nonZero[a]))
    if (holdsAlone(t, 8, heaviest[t]) && rewidth(t, 8).some((u) => bounds[u].largest > budget[u])) rewidth(t, 16);
  return { steps, bits };
}
