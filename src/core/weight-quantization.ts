/**
 * Skin weights as normalised unsigned 16-bit integers, as glTF 2.0 allows `WEIGHTS_n` to be stored
 * (UNSIGNED_SHORT, normalized: value / 65535), one vertex at a time: what a bake writes, and the
 * same rounding applied to the weights a bake measures before writing them, so that what it
 * measures is what an engine plays.
 *
 * @module
 */

/**
 * Weight sums within 1 ± this are read as they are (`extractSkinnedModels`); others are
 * renormalised (with a warning): glTF's own tolerance for normalized integer weights.
 */
export const WEIGHT_SUM_TOLERANCE = 2e-3;

/** The largest value of a normalised unsigned 16-bit weight: it stands for 1. */
export const WEIGHT_UNIT = 65535;

/**
 * One vertex's K weights as normalised 16-bit integers: rounded so that they sum to
 * round(65535 · their float sum) — exactly 65535 for weights summing to 1 within
 * {@link WEIGHT_SUM_TOLERANCE} (first rescaled to sum 1) — by largest remainder (each within one
 * step, 1.5e-5, of its float weight, rescaled; a weight under half a step, zero or negative
 * becomes 0).
 * @param weight reads weight k of the vertex, k in [0, K)
 * @param K the vertex's number of weights
 * @param out receives the K integers at `out[at + k]`
 * @param fraction room for K remainders (reused across vertices)
 * @param order room for K indices (reused across vertices)
 */
export function quantizeVertexWeights(
  weight: (k: number) => number,
  K: number,
  out: { [k: number]: number },
  at: number,
  fraction: Float64Array,
  order: Int32Array,
): void {
  let left = floorSteps(weight, K, out, at, fraction);
  if (left <= 0) return;
  // The steps left to reach the rounded sum go to the largest remainders (ties: the first), a
  // weight under half a step last: the others' remainders always have room for them (they sum to
  // more than `left` − 1/2), so such a weight stays 0.
  for (let k = 0; k < K; k++) order[k] = k;
  const key = (k: number) => (out[at + k] === 0 && fraction[k] < 0.5 ? fraction[k] - 1 : fraction[k]);
  order.subarray(0, K).sort((a, b) => key(b) - key(a) || a - b);
  for (let i = 0; i < K && left > 0; i++) {
    const k = order[i];
    if (!(fraction[k] > 0)) break;
    out[at + k]++;
    left--;
  }
}

/**
 * Each of one vertex's K weights as whole 16-bit steps, rounded down, into `out[at + k]`, its
 * remainder into `fraction[k]` (the weights rescaled to sum 1 where their sum is within
 * {@link WEIGHT_SUM_TOLERANCE} of it; a negative weight as 0).
 * @returns how many steps more make the rounded sum: round(65535 · their sum) (65535 where rescaled)
 */
function floorSteps(
  weight: (k: number) => number,
  K: number,
  out: { [k: number]: number },
  at: number,
  fraction: Float64Array,
): number {
  let total = 0;
  for (let k = 0; k < K; k++) total += Math.max(0, weight(k));
  const scale = Math.abs(total - 1) <= WEIGHT_SUM_TOLERANCE ? WEIGHT_UNIT / total : WEIGHT_UNIT;
  let sum = 0;
  let assigned = 0;
  for (let k = 0; k < K; k++) {
    const x = Math.max(0, weight(k)) * scale;
    sum += x;
    const whole = Math.min(WEIGHT_UNIT, Math.floor(x));
    out[at + k] = whole;
    assigned += whole;
    fraction[k] = x - whole;
  }
  return Math.min(WEIGHT_UNIT, Math.round(sum)) - assigned;
}

/** Room for {@link roundToStoredWeights}, reused across vertices (for up to `K` weights each). */
export interface StoredWeightRoom {
  q: Uint16Array;
  fraction: Float64Array;
  order: Int32Array;
}

/** Room for {@link roundToStoredWeights} for vertices of up to `K` weights. */
export function storedWeightRoom(K: number): StoredWeightRoom {
  return { q: new Uint16Array(K), fraction: new Float64Array(K), order: new Int32Array(K) };
}

/**
 * Rounds K weights of one vertex, `weights[at … at + K)`, in place to what a normalised 16-bit
 * `WEIGHTS_n` accessor stores ({@link quantizeVertexWeights}, decoded as value / 65535): a bake
 * measures and guards the weights an engine will play. A weight under half a step (7.6e-6) becomes
 * 0. Idempotent: rounding weights already on the grid leaves them there.
 * @param room reused across calls ({@link storedWeightRoom}, for at least K weights)
 */
export function roundToStoredWeights(
  weights: Float32Array,
  at: number,
  K: number,
  room: StoredWeightRoom = storedWeightRoom(K),
): void {
  const { q, fraction, order } = room;
  quantizeVertexWeights((k) => weights[at + k], K, q, 0, fraction, order);
  for (let k = 0; k < K; k++) weights[at + k] = q[k] / WEIGHT_UNIT;
}

/**
 * Rounds K weights of one vertex, `weights[at … at + K)`, in place to the normalised 16-bit grid
 * a `WEIGHTS_n` accessor stores, choosing among the roundings next to them (each weight its floor
 * or one step more, the steps summing as {@link quantizeVertexWeights} sums them) the one of least
 * `cost`: least squares over the grid near the solution, where largest remainders alone can leave
 * a vertex that the fit held within a bound a step outside it. On the grid, a writer's
 * rounding (`quantizeWeightSets` in `io/gltf-weights.ts`) stores the result as it is.
 * @param cost the cost of the vertex's weights as `weights` holds them now (called once per
 *   rounding tried: at most C(K, K/2), 6 for K = 4)
 * @param room reused across calls ({@link storedWeightRoom}, for at least K weights)
 */
export function roundToStoredWeightsBest(
  weights: Float32Array,
  at: number,
  K: number,
  cost: () => number,
  room: StoredWeightRoom = storedWeightRoom(K),
): void {
  const { q, fraction } = room;
  const left = floorSteps((k) => weights[at + k], K, q, 0, fraction);
  let open = 0; // the weights with a remainder, as bits
  for (let k = 0; k < K; k++) if (fraction[k] > 0) open |= 1 << k;
  const play = (up: number) => {
    for (let k = 0; k < K; k++) weights[at + k] = (q[k] + ((up >> k) & 1)) / WEIGHT_UNIT;
  };
  let best = 0;
  let bestCost = Infinity;
  if (left > 0)
    for (let up = open; ; up = (up - 1) & open) {
      if (popCount(up) === left) {
        play(up);
        const c = cost();
        if (c < bestCost) [best, bestCost] = [up, c];
      }
      if (up === 0) break;
    }
  play(best);
}

/** Number of bits set in a 32-bit integer. */
function popCount(x: number): number {
  let n = 0;
  for (; x; x &= x - 1) n++;
  return n;
}
