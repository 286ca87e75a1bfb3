/**
 * Corrective morph targets as a basis: the corrections of all samples (one displacement field each)
 * spanned by a few fields, each sample a weighted sum of them — the eigen-displacements of Kry,
 * James and Pai, "EigenSkin: Real Time Large Deformation Character Skinning in Hardware", SCA
 * 2002 — chosen so that every sample is reproduced within its tolerance at every vertex, not only
 * on average. Two steps, both in units of the tolerances:
 *
 * 1. A greedy pivoted Gram–Schmidt (QR with column pivoting, Businger & Golub, "Linear least
 *    squares solutions by Householder transformations", Numerische Mathematik 7, 1965): the next
 *    field is the residual of the sample farthest off (largest residual among those off by more
 *    than half a tolerance somewhere), until none is — a span that holds every sample to half
 *    its tolerance, found at a cost of fields × samples × values, with no samples × samples matrix.
 * 2. Its principal directions (the eigenvectors of the samples' weights' Gram matrix within that
 *    span: the samples' singular vectors, as EigenSkin's PCA): taken by decreasing energy until
 *    every sample is within its tolerance everywhere — usually far fewer than step 1 needed.
 * 3. Localized fields: the principal directions rotated (an orthogonal rotation of the fields,
 *    its inverse applied to the weights, so every sample's sum is unchanged) by varimax (Kaiser,
 *    "The varimax criterion for analytic rotation in factor analysis", Psychometrika 23, 1958),
 *    on each vertex's squared length as one loading: principal directions mix regions of the body
 *    whose corrections carry as much energy, and the rotation gives each field fewer vertices
 *    (CesiumMan CoR helpers+morphs: 24.6% → 23.6% of the values non-zero).
 * 4. Sparser fields: at each vertex, the values of the fields that every sample can do without
 *    (staying within its tolerance there) set to 0, the weakest fields first — the targets are
 *    then stored as sparse accessors where that is smaller (CesiumMan DQS: 86% → 31% of the values
 *    non-zero).
 *
 * Engines blend morph weights linearly, so between samples the result is the same linear blend of
 * neighbouring samples as with one target per sample.
 *
 * @module
 */

/** One sample's correction: per array (positions, then each corrected direction), 3·n bind-space values. */
export type SampleCorrection = readonly Float32Array[];

/** A basis of the corrections ({@link correctionBasis}). */
export interface CorrectionBasis {
  /** The fields: per target, per array 3·n bind-space values (0 off the active vertices). */
  targets: Float32Array[][];
  /**
   * Per sample, the weights of the targets (one per target), in [0, 1]; where some field's
   * weights change sign, the last target is a constant offset, weighted 1 at every sample (see
   * {@link correctionBasis}).
   */
  weights: Float64Array[];
  /**
   * Per vertex, the largest distance over the samples between its position correction and the
   * basis's sum (bind space, before float32 rounding; within the position limit).
   */
  positionResidual: Float32Array;
}

/** Options of {@link correctionBasis}. */
export interface BasisOptions {
  /**
   * Steps 1 and 2 hold every sample to this share of its limits (default 1); step 4 may then take
   * each value up to the limit itself, less the rounding reserved for `shortPositions`.
   */
  fit?: number;
  /**
   * The positions (array 0) will be stored as 16-bit integers of each target's largest value
   * (`quantizeTargets`): step 4 leaves at each vertex room for the rounding of the fields' values
   * there and of the offset target (half a step per coordinate), at weight 1.
   */
  shortPositions?: boolean;
}

/** The span step 1 builds holds every sample to this share of its tolerances. */
const SPAN_SHARE = 0.5;

/**
 * A basis of `samples` (each as many arrays as `limits`) that reproduces every sample within its
 * limits: at every sample s, vertex v and array a, |x_s,a(v) − Σ_k w_s,k B_k,a(v)| ≤ limits[a][v]
 * (a 3-vector's length, bind space; before float32 rounding). Vertices whose every correction is
 * within its limits get 0 in every field. The weights are in [0, 1]: a field whose weights w span
 * [lo, hi] ∋ 0 is stored scaled by hi − lo and weighted (w − lo) / (hi − lo), and a last target,
 * Σ lo·field over the fields whose weights change sign, is weighted 1 at every sample (players
 * such as Blender 3.4 clamp shape-key values to [0, 1]); a field whose weights keep one sign needs
 * no share of that target. See the module comment.
 * @param limits per array, n bind-space lengths ≥ 0 (0 where the array is 0 at every sample; a
 *   non-zero value over a zero limit makes a basis impossible: undefined)
 * @param maxTargets stop with undefined once more fields than this would be needed
 * @param step called after each field of either step; may throw to stop
 * @param options the share of the limits the fields are fitted to, and whether the positions
 *   will be rounded to 16 bits ({@link BasisOptions})
 * @returns undefined when more than `maxTargets` fields are needed
 */
export function correctionBasis(
  samples: readonly SampleCorrection[],
  limits: readonly Float32Array[],
  maxTargets: number,
  step?: () => void,
  options: BasisOptions = {},
): CorrectionBasis | undefined {
  const fit = options.fit ?? 1;
  const S = samples.length;
  const A = limits.length;
  const n = limits[0]?.length ?? 0;
  // The active vertices: off by more than a limit at some sample.
  const off = new Uint8Array(n);
  for (const x of samples)
    x.forEach((d, a) => {
      const limit = limits[a];
      for (let v = 0; v < n; v++) {
        const dx = d[3 * v], dy = d[3 * v + 1], dz = d[3 * v + 2]; // prettier-ignore
        if (dx * dx + dy * dy + dz * dz > limit[v] * limit[v]) off[v] = 1;
      }
    });
  const active: number[] = [];
  for (let v = 0; v < n; v++) if (off[v]) active.push(v);
  const m = active.length;
  const L = 3 * A * m;
  // A zero limit (a zero-length rest normal or tangent) holds only where that array is 0 throughout.
  for (const v of active)
    for (let a = 0; a < A; a++)
      if (!(limits[a][v] > 0) && samples.some((x) => x[a][3 * v] || x[a][3 * v + 1] || x[a][3 * v + 2]))
        return undefined;
  /** Sample s in units of the limits, over the active vertices: array a of vertex j at 3(a·m + j). */
  const scaled = (s: number): Float64Array => {
    const r = new Float64Array(L);
    for (let a = 0; a < A; a++)
      active.forEach((v, j) => {
        for (let c = 0; c < 3; c++)
          r[3 * (a * m + j) + c] = limits[a][v] > 0 ? samples[s][a][3 * v + c] / limits[a][v] : 0;
      });
    return r;
  };

  // Step 1: a span holding every sample within SPAN_SHARE of its limits.
  const residual = Array.from({ length: S }, (_, s) => scaled(s));
  const state = measure(residual, fit * SPAN_SHARE);
  const span: Float64Array[] = [];
  const coefficients = Array.from({ length: S }, () => [] as number[]);
  const spanLimit = Math.min(S, maxTargets + Math.ceil(maxTargets / 2));
  for (let p = farthest(state); p >= 0 && span.length < spanLimit; p = farthest(state)) {
    // The residuals are orthogonal to the span already; once more against rounding.
    const q = residual[p].slice();
    for (const f of span) {
      const c = dot(f, q);
      for (let i = 0; i < L; i++) q[i] -= c * f[i];
    }
    const norm = Math.sqrt(dot(q, q));
    if (!(norm > 0)) break;
    for (let i = 0; i < L; i++) q[i] /= norm;
    span.push(q);
    projectOut(q, residual, coefficients, state, fit * SPAN_SHARE);
    step?.();
  }
  const K = span.length;

  // Step 2: the span's principal directions, most energy first, until every sample is within its limits.
  const gram = new Float64Array(K * K);
  for (const c of coefficients) for (let a = 0; a < K; a++) for (let b = 0; b < K; b++) gram[a * K + b] += c[a] * c[b];
  const { values, vectors } = symmetricEigen(gram, K);
  const order = Array.from({ length: K }, (_, k) => k).sort((a, b) => values[b] - values[a]);
  for (let s = 0; s < S; s++) residual[s] = scaled(s);
  const within = measure(residual, fit);
  const fields: Float64Array[] = [];
  const weights = Array.from({ length: S }, () => [] as number[]);
  for (const k of order) {
    if (farthest(within) < 0) break;
    if (fields.length >= maxTargets) return undefined;
    const field = new Float64Array(L);
    for (let a = 0; a < K; a++) {
      const v = vectors[a * K + k];
      if (v) for (let i = 0; i < L; i++) field[i] += v * span[a][i];
    }
    fields.push(field);
    projectOut(field, residual, weights, within, fit);
    step?.();
  }
  if (farthest(within) >= 0) return undefined; // the span fell short (it stopped at its size limit)
  if (!fields.length)
    return { targets: [], weights: samples.map(() => new Float64Array(0)), positionResidual: largestCorrection(samples, off) }; // prettier-ignore
  varimax(fields, weights);
  const room = new Float64Array(A * m).fill(1);
  if (options.shortPositions) reserveRounding(fields, weights, limits[0], active, room);
  const left = dropUnneeded(fields, weights, residual, room);
  const positionResidual = largestCorrection(samples, off);
  active.forEach((v, j) => (positionResidual[v] = left[j] * limits[0][v]));
  // Weights in [0, 1] (players such as Blender 3.4 clamp shape-key values to [0, 1] by default):
  // field k, whose weights span [lo, hi] ∋ 0, is stored scaled by s = hi − lo and weighted
  // (w − c) / s with c = lo, and one more target, Σ c·B_k, is weighted 1 at every sample —
  // Σ w_k B_k = Σ ((w_k − c_k) / s_k) (s_k B_k) + Σ c_k B_k, linear in the weights, so blending
  // samples still blends their corrections. A field whose weights keep one sign needs no part of
  // that target (c = 0; s = lo where they are ≤ 0), which is then sparser, or not written.
  const { c, s } = storedScales(weights, fields.length);
  const arrays = (k: number, scale: number) =>
    limits.map((limit, a) => {
      const out = new Float64Array(3 * n);
      active.forEach((v, j) => {
        for (let c = 0; c < 3; c++) out[3 * v + c] = fields[k][3 * (a * m + j) + c] * limit[v] * scale;
      });
      return out;
    });
  const targets = fields.map((_, k) => arrays(k, s[k]).map((x) => Float32Array.from(x)));
  const stored = weights.map((w) => w.map((x, k) => (x - c[k]) / s[k]));
  if (c.some((x) => x < 0)) {
    const offset = limits.map(() => new Float64Array(3 * n));
    c.forEach((x, k) => {
      if (x < 0) arrays(k, x).forEach((y, a) => y.forEach((z, i) => (offset[a][i] += z)));
    });
    targets.push(offset.map((x) => Float32Array.from(x)));
    for (const w of stored) w.push(1);
  }
  return { targets, weights: stored.map((w) => Float64Array.from(w)), positionResidual };
}

/**
 * Per field k, how {@link correctionBasis} stores it: its weights w span [lo, hi] ∋ 0; it is
 * stored scaled by s_k and weighted (w − c_k) / s_k, c_k = lo and s_k = hi − lo, or c_k = 0 and
 * s_k = lo where the weights are ≤ 0 (s_k = 1 where they are all 0).
 */
function storedScales(weights: readonly number[][], K: number): { c: number[]; s: number[] } {
  const range = Array.from({ length: K }, (_, k) => weights.reduce(([lo, hi], w) => [Math.min(lo, w[k]), Math.max(hi, w[k])], [0, 0])); // prettier-ignore
  return {
    c: range.map(([lo, hi]) => (hi > 0 ? lo : 0)),
    s: range.map(([lo, hi]) => (hi > 0 ? hi - lo : lo) || 1),
  };
}

/** Per vertex not `active`, its position correction's largest length over the samples (0 at the others). */
function largestCorrection(samples: readonly SampleCorrection[], active: Uint8Array): Float32Array {
  const largest = new Float32Array(active.length);
  for (const [x] of samples)
    for (let v = 0; v < active.length; v++)
      if (!active[v]) largest[v] = Math.max(largest[v], Math.hypot(x[3 * v], x[3 * v + 1], x[3 * v + 2]));
  return largest;
}

/** Sweeps of {@link varimax} at most, and the angle (radians) below which a sweep ends it. */
const VARIMAX_SWEEPS = 12;
const VARIMAX_CONVERGED = 1e-4;
/**
 * Pairs of fields × vertices (about 25 ns each here) that {@link varimax} may visit in all: a
 * basis too large for its sweeps over every pair within it rotates pairs of fields close in
 * energy (within a window of the principal order: those that mix most) and sweeps fewer times.
 */
const VARIMAX_WORK = 1e8;

/**
 * Rotates `fields` (orthonormal, weighted by `weights`) in place to the varimax rotation of their
 * loadings (each field scaled by its weights' norm), then orders them by decreasing energy:
 * pairwise plane rotations (Kaiser 1958), sweeping every pair until no angle exceeds
 * {@link VARIMAX_CONVERGED} radians, the loading of a vertex being its 3-vector's squared length
 * (within {@link VARIMAX_WORK}: fields given in decreasing energy, as step 2 takes them).
 * `weights` get the same rotation (the fields' scale divided out), so that Σ_k w_s,k F_k is
 * unchanged for every sample s.
 */
function varimax(fields: Float64Array[], weights: number[][]): void {
  const K = fields.length;
  const L = fields[0]?.length ?? 0;
  const groups = L / 3;
  const norm = fields.map((_, k) => Math.sqrt(weights.reduce((x, w) => x + w[k] * w[k], 0)) || 1);
  fields.forEach((f, k) => f.forEach((x, i) => (f[i] = x * norm[k])));
  for (const w of weights) for (let k = 0; k < K; k++) w[k] /= norm[k];
  const window = Math.min(K - 1, Math.max(1, Math.floor(VARIMAX_WORK / (K * groups))));
  const pairs = window * K - (window * (window + 1)) / 2;
  const sweeps = Math.min(VARIMAX_SWEEPS, Math.max(1, Math.floor(VARIMAX_WORK / (pairs * groups))));
  for (let sweep = 0; sweep < sweeps; sweep++) {
    let largest = 0;
    for (let j = 0; j < K; j++)
      for (let k = j + 1; k <= Math.min(K - 1, j + window); k++) {
        const [a, b] = [fields[j], fields[k]];
        // The angle that maximizes the variance of the two fields' squared vertex lengths.
        let A = 0, B = 0, C = 0, D = 0; // prettier-ignore
        for (let i = 0; i < L; i += 3) {
          const u = a[i] * a[i] + a[i + 1] * a[i + 1] + a[i + 2] * a[i + 2] - b[i] * b[i] - b[i + 1] * b[i + 1] - b[i + 2] * b[i + 2]; // prettier-ignore
          const v = 2 * (a[i] * b[i] + a[i + 1] * b[i + 1] + a[i + 2] * b[i + 2]);
          A += u;
          B += v;
          C += u * u - v * v;
          D += 2 * u * v;
        }
        const phi = Math.atan2(D - (2 * A * B) / groups, C - (A * A - B * B) / groups) / 4;
        if (!(Math.abs(phi) > 1e-12)) continue;
        largest = Math.max(largest, Math.abs(phi));
        const [c, s] = [Math.cos(phi), Math.sin(phi)];
        for (let i = 0; i < L; i++) {
          const x = a[i];
          const y = b[i];
          a[i] = c * x + s * y;
          b[i] = c * y - s * x;
        }
        for (const w of weights) {
          const x = w[j];
          const y = w[k];
          w[j] = c * x + s * y;
          w[k] = c * y - s * x;
        }
      }
    if (largest < VARIMAX_CONVERGED) break;
  }
  const energy = fields.map((f, k) => dot(f, f) * weights.reduce((x, w) => x + w[k] * w[k], 0));
  const order = Array.from({ length: K }, (_, k) => k).sort((a, b) => energy[b] - energy[a]);
  const sorted = order.map((k) => fields[k]);
  sorted.forEach((f, k) => (fields[k] = f));
  for (const w of weights) order.map((k) => w[k]).forEach((x, k) => (w[k] = x));
}

/**
 * Sparser fields: at each active vertex and array, the fields' values that every sample can do
 * without — its residual there staying within `room` (units of the limit) — set to 0, the weakest
 * fields first (their values matter least); each sample's residual updated with what it lost. The
 * samples stay within their limits; the targets, 0 at more vertices, are stored sparse where that
 * is smaller.
 * @returns per 3-vector of the fields, the largest residual left there over the samples (units of
 *   the limit)
 */
function dropUnneeded(
  fields: Float64Array[],
  weights: readonly number[][],
  residual: readonly Float64Array[],
  room: Float64Array,
): Float64Array {
  const S = residual.length;
  const r = new Float64Array(3 * S);
  const largest = new Float64Array((fields[0]?.length ?? 0) / 3);
  for (let o = 0; o < (fields[0]?.length ?? 0); o += 3) {
    for (let s = 0; s < S; s++) r.set(residual[s].subarray(o, o + 3), 3 * s);
    for (let k = fields.length - 1; k >= 0; k--) {
      const f = fields[k];
      const f0 = f[o], f1 = f[o + 1], f2 = f[o + 2]; // prettier-ignore
      if (!f0 && !f1 && !f2) continue;
      let fits = true;
      for (let s = 0; s < S && fits; s++) {
        const w = weights[s][k];
        const x = r[3 * s] + w * f0, y = r[3 * s + 1] + w * f1, z = r[3 * s + 2] + w * f2; // prettier-ignore
        fits = x * x + y * y + z * z <= room[o / 3] * room[o / 3];
      }
      if (!fits) continue;
      for (let s = 0; s < S; s++) {
        const w = weights[s][k];
        r[3 * s] += w * f0;
        r[3 * s + 1] += w * f1;
        r[3 * s + 2] += w * f2;
      }
      f.fill(0, o, o + 3);
    }
    for (let s = 0; s < S; s++)
      largest[o / 3] = Math.max(largest[o / 3], Math.hypot(r[3 * s], r[3 * s + 1], r[3 * s + 2]));
  }
  return largest;
}

/**
 * Lowers `room` (per 3-vector of the fields, units of the limit; 1 before) at each active vertex's
 * positions by the rounding that 16-bit positions can add there (`quantizeTargets`): that of
 * each field's value there, stored scaled as {@link correctionBasis} stores it (weights at most
 * 1), and half a step per coordinate of the offset target. Taken from the fields before step 4
 * zeroes some of their values, which rounds them exactly (and can only shrink the steps).
 */
function reserveRounding(
  fields: readonly Float64Array[],
  weights: readonly number[][],
  limit: Float32Array,
  active: readonly number[],
  room: Float64Array,
): void {
  // Each field's 16-bit step as stored (bind space), and the offset's largest coordinate, at most
  // that of Σ |c_k| |field k| (which zeroing values can only lower).
  const { c, s } = storedScales(weights, fields.length);
  let offset = 0;
  active.forEach((v, j) => {
    for (let i = 3 * j; i < 3 * j + 3; i++)
      offset = Math.max(offset, fields.reduce((x, f, k) => x - c[k] * Math.abs(f[i]), 0) * limit[v]);
  });
  const steps = fields.map((f, k) => {
    let largest = 0;
    active.forEach((v, j) => {
      for (let i = 3 * j; i < 3 * j + 3; i++) largest = Math.max(largest, Math.abs(f[i]) * limit[v]);
    });
    return (Math.abs(s[k]) * largest) / 32767;
  });
  const offsetRounding = ((Math.sqrt(3) / 2) * offset) / 32767;
  active.forEach((v, j) => {
    let r = offsetRounding;
    fields.forEach((f, k) => {
      const q = steps[k];
      if (!q) return;
      let d = 0;
      for (let i = 3 * j; i < 3 * j + 3; i++) {
        const x = s[k] * f[i] * limit[v];
        d += (q * Math.round(x / q) - x) ** 2;
      }
      r += Math.sqrt(d);
    });
    room[j] = Math.max(0, 1 - r / limit[v]);
  });
}

/** Per sample: its residual's squared norm, and whether some vertex's 3-vector is off (longer than the limit). */
interface ResidualState {
  norms: Float64Array;
  off: Uint8Array;
}

/** The {@link ResidualState} of `residual` against `limit`. */
function measure(residual: readonly Float64Array[], limit: number): ResidualState {
  const state = { norms: new Float64Array(residual.length), off: new Uint8Array(residual.length) };
  residual.forEach((r, s) => {
    let norm = 0;
    for (let i = 0; i < r.length; i += 3) {
      const d = r[i] * r[i] + r[i + 1] * r[i + 1] + r[i + 2] * r[i + 2];
      norm += d;
      if (d > limit * limit) state.off[s] = 1;
    }
    state.norms[s] = norm;
  });
  return state;
}

/** The sample with the largest residual among those off somewhere; -1 when none is. */
function farthest({ norms, off }: ResidualState): number {
  let best = -1;
  for (let s = 0; s < norms.length; s++) if (off[s] && (best < 0 || norms[s] > norms[best])) best = s;
  return best;
}

/**
 * Takes the unit vector q out of every residual (r −= (q·r) q), appending q·r to its sample's
 * `weights`, and updates `state` against `limit` in the same pass.
 */
function projectOut(
  q: Float64Array,
  residual: Float64Array[],
  weights: number[][],
  state: ResidualState,
  limit: number,
): void {
  const l2 = limit * limit;
  residual.forEach((r, s) => {
    const c = dot(q, r);
    weights[s].push(c);
    let norm = 0;
    let off = 0;
    for (let i = 0; i < r.length; i += 3) {
      const x = (r[i] -= c * q[i]);
      const y = (r[i + 1] -= c * q[i + 1]);
      const z = (r[i + 2] -= c * q[i + 2]);
      const d = x * x + y * y + z * z;
      norm += d;
      if (d > l2) off = 1;
    }
    state.norms[s] = norm;
    state.off[s] = off;
  });
}

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/**
 * Eigenvalues and eigenvectors of the symmetric K×K matrix `a` (row-major; destroyed), cyclic
 * Jacobi rotations until the off-diagonal part is below 1e-15 of the matrix's norm.
 * @returns `values` (K) and `vectors` (K×K, row-major, eigenvector k in column k)
 */
function symmetricEigen(a: Float64Array, K: number): { values: Float64Array; vectors: Float64Array } {
  const vectors = new Float64Array(K * K);
  for (let i = 0; i < K; i++) vectors[i * K + i] = 1;
  let total = 0;
  for (let i = 0; i < K * K; i++) total += a[i] * a[i];
  for (let sweep = 0; sweep < 50; sweep++) {
    let off = 0;
    for (let p = 0; p < K; p++) for (let q = p + 1; q < K; q++) off += a[p * K + q] ** 2;
    if (!(off > 1e-30 * total)) break;
    for (let p = 0; p < K; p++)
      for (let q = p + 1; q < K; q++) {
        const apq = a[p * K + q];
        if (apq === 0) continue;
        const theta = (a[q * K + q] - a[p * K + p]) / (2 * apq);
        const t = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < K; k++) {
          const [akp, akq] = [a[k * K + p], a[k * K + q]];
          a[k * K + p] = c * akp - s * akq;
          a[k * K + q] = s * akp + c * akq;
        }
        for (let k = 0; k < K; k++) {
          const [apk, aqk] = [a[p * K + k], a[q * K + k]];
          a[p * K + k] = c * apk - s * aqk;
          a[q * K + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < K; k++) {
          const [vkp, vkq] = [vectors[k * K + p], vectors[k * K + q]];
          vectors[k * K + p] = c * vkp - s * vkq;
          vectors[k * K + q] = s * vkp + c * vkq;
        }
      }
  }
  return { values: Float64Array.from({ length: K }, (_, k) => a[k * K + k]), vectors };
}
