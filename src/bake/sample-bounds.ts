/**
 * What plain LBS allows a helper bake at each sample, and the checks against it
 * (`never-worse.ts`): per sample, LBS's largest and 99th-percentile distance to the method over
 * the mesh plus a tolerance, and how many fitted vertices may be past that percentile; whether a
 * vertex's distances are within them; and the sweep that gives vertices back their own influences
 * until every sample is.
 *
 * @module
 */
import { kthSmallest, percentileIndex } from './percentile.js';

/**
 * Whether active vertex a's distances to the method (its column of `fitted`, posed units) are
 * within plain LBS's at the vertex — their squares summed over the times, and at its worst time
 * — and within `bounds` at every time: LBS's largest over the mesh, and past LBS's percentile at
 * no time where its distances before (`old`) and LBS's were not — or, given `past` (per time, how
 * many active vertices are past it now), at no time where its distances before were not and
 * `room` is taken: for a change no later sweep counts against `room`. Given `over`, every time
 * out of those bounds is pushed to it (rather than returning at the first).
 */
export function withinBounds(
  bounds: SampleBounds,
  fitted: Float32Array,
  a: number,
  old: Float32Array,
  past?: Int32Array,
  over?: number[],
): boolean {
  const { nA, maxBound, pBound, room, lbsActive } = bounds;
  let [sum, lbsSum, max, lbsMax] = [0, 0, 0, 0];
  for (let t = 0; t < maxBound.length; t++) {
    const o = t * nA + a;
    const d = fitted[o], l = lbsActive[o]; // prettier-ignore
    sum += d * d;
    lbsSum += l * l;
    max = Math.max(max, d);
    lbsMax = Math.max(lbsMax, l);
    if (d > maxBound[t] || (d > pBound[t] && old[t] <= pBound[t] && (past ? past[t] >= room[t] : l <= pBound[t]))) {
      if (!over) return false;
      over.push(t);
    }
  }
  return !over?.length && sum <= lbsSum && max <= lbsMax;
}

/** Per sample, what plain LBS allows ({@link sampleBounds}); nA active vertices. */
export interface SampleBounds {
  nA: number;
  /** LBS's largest distance plus the tolerance, per sample. */
  maxBound: Float64Array;
  /** LBS's 99th-percentile distance plus the tolerance, per sample. */
  pBound: Float64Array;
  /** How many active vertices may be past `pBound`, per sample. */
  room: Int32Array;
  /** LBS's distance at active vertex a and sample t, `[t·nA + a]`. */
  lbsActive: Float32Array;
}

/**
 * What plain LBS allows at each sample.
 * @param lbsDistance per sample t (T), plain LBS's distance to the method at every vertex (n;
 *   posed units); read once
 * @param active the vertices the bake fitted (nA, indices into n)
 * @param tolerance how far above LBS a sample may be (posed units)
 */
export function sampleBounds(
  lbsDistance: (t: number) => Float32Array,
  T: number,
  active: readonly number[],
  tolerance: number,
): SampleBounds {
  const nA = active.length;
  const b: SampleBounds = {
    nA,
    maxBound: new Float64Array(T),
    pBound: new Float64Array(T),
    room: new Int32Array(T),
    lbsActive: new Float32Array(T * nA),
  };
  let isActive: Uint8Array | undefined;
  for (let t = 0; t < T; t++) {
    const d = lbsDistance(t);
    const n = d.length;
    if (!isActive) {
      isActive = new Uint8Array(n);
      for (const i of active) isActive[i] = 1;
    }
    let max = 0;
    for (let i = 0; i < n; i++) if (d[i] > max) max = d[i];
    b.maxBound[t] = max + tolerance;
    b.pBound[t] = kthSmallest(d, percentileIndex(n)) + tolerance;
    // The vertices the bake never touches that are past the percentile's bound take room.
    let outside = 0;
    for (let i = 0; i < n; i++) if (!isActive[i] && d[i] > b.pBound[t]) outside++;
    b.room[t] = n - 1 - percentileIndex(n) - outside;
    active.forEach((i, a) => (b.lbsActive[t * nA + a] = d[i]));
  }
  return b;
}

/**
 * Gives vertices back their own influences until, at every sample, the baked mesh's largest and
 * 99th-percentile distance to the method are within `bounds`. Where a sample's largest is over,
 * every fitted vertex past LBS's largest is given back; where its percentile is over, the fitted
 * vertices that push it (past LBS's percentile there, within it by LBS) are given back, those
 * most farther than LBS first, as many as it takes — each first repaired once by `repair` where
 * given (kept if that returns true, its distances in `fitted` updated). A vertex's distance
 * changes at every sample, so the sweep repeats until no sample is over (it ends: each vertex is
 * repaired at most once here and given back at most once, and with none fitted the bound holds).
 * @param fitted the fitted weights' distance to the method at active vertex a and sample t,
 *   `fitted[t·nA + a]` (posed units)
 * @param kept per active vertex, 1 where its fitted weights are kept (cleared here where given
 *   back; 0 already: played as plain LBS)
 * @returns the vertices given back
 */
export function keepNeverWorse(
  bounds: SampleBounds,
  fitted: Float32Array,
  kept: Uint8Array,
  repair?: (a: number, over: number[]) => boolean,
): number {
  const { nA, maxBound, pBound, room, lbsActive } = bounds;
  const T = maxBound.length;
  let given = 0;
  const tried = new Uint8Array(nA);
  // Gives vertex a back, unless a first repair (once per vertex) brings it within the bounds at
  // every sample where it is past them.
  const giveBack = (a: number) => {
    if (!kept[a]) return;
    if (repair && !tried[a]) {
      tried[a] = 1;
      const over: number[] = [];
      for (let t = 0; t < T; t++) {
        const d = fitted[t * nA + a];
        if (d > maxBound[t] || (d > pBound[t] && lbsActive[t * nA + a] <= pBound[t])) over.push(t);
      }
      if (repair(a, over)) return;
    }
    given++;
    kept[a] = 0;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (let t = 0; t < T; t++) {
      const o = t * nA;
      for (let a = 0; a < nA; a++)
        if (kept[a] && fitted[o + a] > maxBound[t]) {
          giveBack(a);
          changed = true;
        }
      let past = 0;
      const pushing: number[] = [];
      for (let a = 0; a < nA; a++) {
        const lbs = lbsActive[o + a];
        const d = kept[a] ? fitted[o + a] : lbs;
        if (d <= pBound[t]) continue;
        past++;
        if (kept[a] && lbs <= pBound[t]) pushing.push(a);
      }
      if (past <= room[t]) continue;
      pushing.sort((a, b) => fitted[o + b] - lbsActive[o + b] - (fitted[o + a] - lbsActive[o + a]));
      for (const a of pushing.slice(0, past - room[t])) giveBack(a);
      changed = true;
    }
  }
  return given;
}
