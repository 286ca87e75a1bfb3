/**
 * The bake's largest and 99th-percentile distances over millions of (sample, vertex) pairs
 * (35M for Ybot's clips): exact order statistics, without sorting and without copying the values.
 *
 * @module
 */

/**
 * The index of the 99th percentile among n sorted values (0-based: `Math.floor(0.99·n)`, at most
 * n − 1), as the bake's measure and its never-worse guard (`never-worse.ts`) take it.
 */
export function percentileIndex(n: number): number {
  return Math.min(n - 1, Math.floor(0.99 * n));
}

/**
 * The largest value of `a` and its 99th percentile ({@link percentileIndex}, {@link kthSmallest});
 * NaN counts as the largest. `a` is left as it is; [0, 0] when empty. Above a few thousand values
 * the largest is found in {@link kthSmallest}'s one pass, not in a pass of its own.
 */
export function maxAndP99(a: Float32Array): [number, number] {
  const n = a.length;
  if (!n) return [0, 0];
  const k = percentileIndex(n);
  const bracket = n > BRACKET_FROM ? bracketed(a, k) : undefined;
  if (bracket) return bracket.nan ? [NaN, NaN] : [bracket.max, bracket.value];
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    if (Number.isNaN(a[i])) return [NaN, NaN];
    if (a[i] > max) max = a[i];
  }
  return [max, select(a.slice(), k)];
}

/**
 * Whether the largest value of `a` is at most `maxBound` and its 99th percentile at most
 * `p99Bound` (as {@link maxAndP99} gives them; of the square roots of the values with `roots`),
 * by counting the values past the bounds rather than selecting: the k-th smallest is at most x
 * exactly when at most n − 1 − k values exceed x. NaN is past any bound; true when empty.
 */
export function maxAndP99Within(a: Float32Array, maxBound: number, p99Bound: number, roots = false): boolean {
  let room = a.length - 1 - percentileIndex(a.length);
  for (let i = 0; i < a.length; i++) {
    const x = roots ? Math.sqrt(a[i]) : a[i];
    if (!(x <= maxBound)) return false;
    if (x > p99Bound && --room < 0) return false;
  }
  return true;
}

/** Below this many values {@link kthSmallest} selects on a copy of them all. */
const BRACKET_FROM = 4096;

/**
 * The k-th smallest of `a` (0-based; what a sorted copy holds at k), leaving `a` as it is, in
 * about one pass over it: a sample of `a` brackets the k-th value, a pass counts the values below
 * the bracket and gathers those in it, and {@link select} finds the value among those (the
 * sampling idea of Floyd & Rivest, "Expected time bounds for selection", CACM 18(3), 1975). Where
 * the bracket misses it (rare: the sample is drawn at random positions, with 4 standard
 * deviations of room each side), {@link select} on a copy of all. On 28M distances (Ybot's
 * clips) 0.06 s against Hoare's selection's 0.24 s with its copy; on one sample's 35K, 0.14 ms
 * against 0.39 ms.
 * @param a the values (no NaN); not modified
 * @param k 0 ≤ k < a.length
 */
export function kthSmallest(a: Float32Array, k: number): number {
  return (a.length > BRACKET_FROM ? bracketed(a, k)?.value : undefined) ?? select(a.slice(), k);
}

/**
 * {@link kthSmallest}'s bracket and pass (more than {@link BRACKET_FROM} values), which finds the
 * largest value and whether any is NaN on the way (NaN falls outside the bracket: the value is
 * the one selected among the others, as before): undefined where the bracket misses the k-th
 * value (the caller then selects on a copy of all).
 */
function bracketed(a: Float32Array, k: number): { value: number; max: number; nan: boolean } | undefined {
  const n = a.length;
  const m = n > 1 << 20 ? 16384 : 512;
  const sample = new Float32Array(m);
  // Positions from a fixed-seed xorshift32: the same result each run, no stride that could
  // fall in step with the values' layout (one block of n vertices per sample).
  let state = 0x9e3779b9;
  for (let j = 0; j < m; j++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    sample[j] = a[(state >>> 0) % n];
  }
  sample.sort();
  const q = k / n;
  const room = 4 * Math.sqrt(m * q * (1 - q)) + 2;
  const lo = sample[Math.max(0, Math.floor(q * m - room))];
  const hi = sample[Math.min(m - 1, Math.ceil(q * m + room))];
  const capacity = Math.min(n, Math.ceil(((3 * (2 * room + 2)) / m) * n) + 1024);
  const between = new Float32Array(capacity);
  let below = 0;
  let count = 0;
  let max = -Infinity; // of the values above the bracket
  let nan = false;
  let overflow = false;
  for (let i = 0; i < n; i++) {
    const x = a[i];
    if (x < lo) below++;
    else if (x <= hi) {
      if (count < capacity) between[count++] = x;
      else overflow = true;
    } else if (x > max) max = x;
    else if (x !== x) nan = true;
  }
  if (overflow || k < below || k >= below + count) return undefined;
  const inside = between.subarray(0, count);
  if (max === -Infinity) for (let j = 0; j < count; j++) if (inside[j] > max) max = inside[j];
  return { value: select(inside, k - below), max, nan };
}

/**
 * The k-th smallest of `a` (0-based; what `a.sort()[k]` is), by Hoare's selection (Hoare,
 * "Algorithm 65: Find", CACM 4(7), 1961) with the median of three as the pivot: linear time on
 * average. Reorders `a`; no NaN.
 */
export function select(a: Float32Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (hi > lo) {
    const mid = (lo + hi) >> 1;
    const x = a[lo], y = a[mid], z = a[hi]; // prettier-ignore
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        const t = a[i];
        a[i++] = a[j];
        a[j--] = t;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k];
  }
  return a[k];
}

/**
 * {@link maxAndP99} of values given a block at a time, without holding them: the largest, and
 * the 99th percentile of the `total` values as the rank-th largest (rank = total −
 * {@link percentileIndex}(total)), kept exactly by holding only the values that can still be among
 * the rank largest — a buffer of at least twice that many (or all of them, when fewer), cut back to
 * the rank largest when full
 * (those above the rank-th, and as many copies of it as make up the rank), after which a value not
 * above the cut cannot change the top rank. The same two numbers as {@link maxAndP99} on all the
 * values at once, in about 2% of their memory (the bake's measure: 28M distances on Ybot's clips).
 */
export class MaxAndP99Stream {
  private readonly rank: number;
  private readonly buffer: Float32Array;
  private count = 0;
  private seen = 0;
  /** Values not above it cannot be among the rank largest. */
  private floor = -Infinity;
  private max = -Infinity;
  private nan = false;

  /**
   * @param total how many values will be given ({@link result} checks it)
   * @throws RangeError when total is not a whole number ≥ 0
   */
  constructor(readonly total: number) {
    if (!(Number.isInteger(total) && total >= 0)) throw new RangeError(`MaxAndP99Stream: total must be a whole number ≥ 0, got ${total}`); // prettier-ignore
    this.rank = total ? total - percentileIndex(total) : 0;
    this.buffer = new Float32Array(Math.min(total, Math.max(2 * this.rank, 1 << 16)));
  }

  /** Takes the values of `a` (not kept; NaN makes both results NaN, as {@link maxAndP99}). */
  push(a: Float32Array): void {
    this.seen += a.length;
    const { buffer } = this;
    let { count, floor, max } = this;
    for (let i = 0; i < a.length; i++) {
      const x = a[i];
      if (x > floor) {
        if (count === buffer.length) {
          this.count = count;
          floor = this.cut();
          count = this.count;
          if (!(x > floor)) continue;
        }
        buffer[count++] = x;
        if (x > max) max = x;
      } else if (x !== x) this.nan = true;
    }
    this.count = count;
    this.floor = floor;
    this.max = max;
  }

  /** Keeps the rank largest values of the buffer; returns the rank-th (the new floor). */
  private cut(): number {
    const { buffer, rank } = this;
    const v = select(buffer, this.count - rank);
    let kept = 0;
    for (let i = 0; i < this.count; i++) if (buffer[i] > v) buffer[kept++] = buffer[i];
    buffer.fill(v, kept, rank);
    this.count = rank;
    this.floor = v;
    return v;
  }

  /**
   * What the stream holds, as plain data (for another thread's {@link merge}): the values kept
   * (a copy), how many were given, the largest, and whether one was NaN.
   */
  state(): MaxAndP99StreamState {
    return { total: this.total, values: this.buffer.slice(0, this.count), seen: this.seen, max: this.max, nan: this.nan }; // prettier-ignore
  }

  /**
   * Takes in another stream's values by its {@link state} (a stream of the same `total` given
   * the others): as if they had been given here.
   * @throws RangeError when its `total` differs
   */
  merge(other: MaxAndP99StreamState): void {
    if (other.total !== this.total) throw new RangeError(`MaxAndP99Stream: cannot merge a stream of ${other.total} values into one of ${this.total}`); // prettier-ignore
    this.push(other.values);
    this.seen += other.seen - other.values.length;
    this.nan ||= other.nan;
    this.max = Math.max(this.max, other.max);
  }

  /**
   * The largest value and the 99th percentile ({@link maxAndP99}): [0, 0] when `total` is 0.
   * @throws RangeError when other than `total` values were given
   */
  result(): [number, number] {
    if (this.seen !== this.total) throw new RangeError(`MaxAndP99Stream: ${this.total} values expected, ${this.seen} given`); // prettier-ignore
    if (!this.total) return [0, 0];
    if (this.nan) return [NaN, NaN];
    if (this.count < this.rank) return [this.max, -Infinity]; // the others were -Infinity
    return [this.max, select(this.buffer.subarray(0, this.count), this.count - this.rank)];
  }
}

/** A {@link MaxAndP99Stream}'s {@link MaxAndP99Stream.state | state}. */
export interface MaxAndP99StreamState {
  total: number;
  values: Float32Array;
  seen: number;
  max: number;
  nan: boolean;
}
