/**
 * Incremental centers of rotation for weight painting — the open problem Le & Hodgins 2016 end on
 * (§5: "the pre-computed CoRs need to be updated on the fly with the weight changes").
 *
 * A session keeps what the precomputation builds: the pair table (each joint pair's entries in
 * triangle order, with the input triangle of each entry), each pair's vertices, vertex statistics
 * and evaluation plan (exact, bins or lattice, `fast.ts`). An edit of some vertices' weights
 *
 * 1. re-subdivides only the triangles around them;
 * 2. rewrites the entries of the pairs those triangles carried or now carry (the entries of the
 *    other triangles kept, the new ones merged in triangle order);
 * 3. updates the edited vertices' pairs' statistics by difference, and re-plans the pairs whose
 *    entries or statistics changed;
 * 4. re-evaluates the vertices that have such a pair, and the edited vertices.
 *
 * Every piece is computed by the same functions as {@link computeCentersOfRotation} computes it:
 * after any sequence of edits the centers equal a from-scratch precomputation of the final
 * weights — bit for bit on a mesh of one chunk (`stream.ts`: up to 8,192 triangles), to rounding
 * above, where the precomputation adds a pair's bins chunk by chunk and the session in triangle
 * order (the tests allow 1e-9 of the diagonal). Undo and redo replay the edits through the same
 * path.
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';
import type { SkinnedMesh } from '../core/mesh.js';
import { countPairs, fillPairs, type PairTable } from './centers.js';
import { centersOfRotationPlanned, gatherInfluences, planPairs, type FastCorResolution, type PairStrategy, type Lattice } from './fast.js';
import { corAlgorithm, resolveCorOptions } from './parameters.js';
import { subdivideByWeights } from './subdivide.js';

/** Options of {@link createCorSession}. */
export interface CorSessionOptions {
  /** Kernel width σ; default {@link DEFAULT_SIGMA}. */
  sigma?: number;
  /** Subdivision bound ε; default {@link DEFAULT_EPSILON}. */
  epsilon?: number;
  /** `fast` (default) or `exact`, as in {@link computeCentersOfRotation}. */
  algorithm?: 'fast' | 'exact';
  /** @deprecated the old name of {@link CorSessionOptions.algorithm}; removed in the next release */
  method?: 'fast' | 'exact';
  /** Bins and lattice of the `fast` algorithm; each defaults as in `FastCorResolution`. */
  resolution?: FastCorResolution;
  /** Number of joints J of the skeleton (joints painted later must be < J); default: as the weights need. */
  jointCount?: number;
}

/** What one edit changed. */
export interface CorUpdate {
  /** Vertices whose center was recomputed (the edited ones and those sharing a changed pair). */
  recomputed: Int32Array;
  /** Input triangles re-subdivided, pairs re-planned. */
  triangles: number;
  /** Number of joint pairs re-planned. */
  pairs: number;
  /** Wall-clock time of the edit, seconds. */
  seconds: number;
}

/** An incremental CoR precomputation over one mesh (see the module comment). */
export interface CorSession {
  /** The session's mesh: its `joints`/`weights` are the current (edited) ones. */
  readonly mesh: SkinnedMesh;
  /** Current centers of rotation, 3·n (updated in place). */
  readonly centers: Float32Array;
  /**
   * Sets the influences of `vertices` (K slots each, vertex-major: `joints`, `weights` of length
   * K·count), renormalised to sum 1, and updates the centers.
   * @throws CorskinError for a negative or non-finite weight, an all-zero vertex or a joint ≥ J
   */
  setWeights(vertices: ArrayLike<number>, joints: ArrayLike<number>, weights: ArrayLike<number>): CorUpdate;
  /** Reverts the last edit (false when there is none). */
  undo(): CorUpdate | false;
  /** Re-applies the last undone edit (false when there is none). */
  redo(): CorUpdate | false;
}

interface Edit {
  vertices: Int32Array;
  before: { joints: Uint32Array; weights: Float32Array };
  after: { joints: Uint32Array; weights: Float32Array };
}

/**
 * Starts a session: the full precomputation once (the same cost as {@link computeCentersOfRotation}),
 * kept in pieces for the edits. The session copies the mesh's influences (the caller's arrays are
 * not changed).
 * @throws RangeError for σ or ε ≤ 0; CorskinError for an empty mesh
 */
export function createCorSession(input: SkinnedMesh, options: CorSessionOptions = {}): CorSession {
  const { sigma, epsilon } = resolveCorOptions(options);
  const n = input.positions.length / 3;
  if (!n) throw new CorskinError('the mesh has no vertices');
  const K = input.influences;
  const mesh: SkinnedMesh = { ...input, joints: input.joints.slice(), weights: input.weights.slice() };
  let J = options.jointCount ?? 0;
  for (let i = 0; i < mesh.joints.length; i++) if (mesh.weights[i] > 0 && mesh.joints[i] >= J) J = mesh.joints[i] + 1;
  J = Math.max(J, 2);
  const T = mesh.triangles.length / 3;
  // Triangles around each vertex.
  const around: number[][] = Array.from({ length: n }, () => []);
  for (let t = 0; t < T; t++) for (let c = 0; c < 3; c++) around[mesh.triangles[3 * t + c]].push(t);

  // The pair table as an arena: each pair's entries contiguous and in triangle order, as in the
  // full table. An edit writes the pairs it changes afresh at the end and leaves their old ranges
  // dead until the next compaction; bucket numbers only name ranges (no result depends on them).
  let data = new Float64Array(0); // 6 per entry (fillPairs)
  let origin = new Int32Array(0); // input triangle of each entry
  let offsets = new Int32Array(1); // bucket b: entries [offsets[b], offsets[b+1])
  let keyOf = new Int32Array(0); // bucket → pair key, −1 when dead
  let stats = new Float64Array(0); // 5 per bucket, as pairVertexStats
  const buckets = new Map<number, number>(); // live pair key → bucket
  const strategy: PairStrategy[] = [];
  const bins: (Float64Array | undefined)[] = [];
  const grids: (Lattice | undefined)[] = [];
  let P = 0;
  let dead = 0; // entries in dead ranges
  const trianglePairs: number[][] = Array.from({ length: T }, () => []); // pair keys each triangle carries
  const pairVertices = new Map<number, Set<number>>(); // pair key → vertices having both joints

  const table = (): PairTable => ({
    jointCount: J,
    buckets,
    offsets: offsets.subarray(0, P + 1),
    data: data.subarray(0, 6 * offsets[P]),
  });
  /** Room for `entries` more entries in one more bucket. */
  const reserve = (entries: number) => {
    const used = offsets[P];
    if (used + entries > origin.length) {
      const cap = Math.max(used + entries, 2 * origin.length);
      const d = new Float64Array(6 * cap);
      d.set(data.subarray(0, 6 * used));
      const o = new Int32Array(cap);
      o.set(origin.subarray(0, used));
      [data, origin] = [d, o];
    }
    if (P + 1 > keyOf.length) {
      const cap = Math.max(16, 2 * keyOf.length);
      const of = new Int32Array(cap + 1);
      of.set(offsets.subarray(0, P + 1));
      const k = new Int32Array(cap);
      k.set(keyOf.subarray(0, P));
      const st = new Float64Array(5 * cap);
      st.set(stats.subarray(0, 5 * P));
      [offsets, keyOf, stats] = [of, k, st];
    }
  };
  /** Moves the live buckets down over the dead ranges, in bucket order (in place). */
  const compact = () => {
    let c = 0;
    for (let b = 0; b < P; b++) {
      if (keyOf[b] < 0) continue;
      const [s, e, w] = [offsets[b], offsets[b + 1], offsets[c]];
      data.copyWithin(6 * w, 6 * s, 6 * e);
      origin.copyWithin(w, s, e);
      stats.copyWithin(5 * c, 5 * b, 5 * b + 5);
      [offsets[c + 1], keyOf[c], strategy[c], bins[c], grids[c]] = [w + e - s, keyOf[b], strategy[b], bins[b], grids[b]];
      buckets.set(keyOf[c], c++);
    }
    [P, dead, strategy.length, bins.length, grids.length] = [c, 0, c, c, c];
  };

  /** Vertex i's pairs with their (α, s_v), as `pairVertexStats` sees them. */
  const js = new Int32Array(K), ws = new Float64Array(K); // prettier-ignore
  const pairsOf = (i: number, visit: (key: number, alpha: number, sv: number) => void) => {
    const u = gatherInfluences(mesh.joints, mesh.weights, K, i, js, ws);
    for (let a = 0; a < u; a++)
      for (let b = a + 1; b < u; b++) {
        const sv = ws[a] + ws[b];
        visit(js[a] * J + js[b], ws[a] / sv, sv);
      }
  };
  /** Adds or removes vertex i from its pairs' vertex sets, logging each pair's (α, s_v). */
  const membership = (i: number, add: boolean, log: Map<number, number[]>) =>
    pairsOf(i, (key, alpha, sv) => {
      let set = pairVertices.get(key);
      if (!set) pairVertices.set(key, (set = new Set()));
      if (add) set.add(i);
      else set.delete(i);
      const values = log.get(key);
      if (values) values.push(alpha, sv);
      else log.set(key, [alpha, sv]);
    });
  /** Statistics of pair `key` over all its vertices (count, αmin, αmax, smin, smax). */
  const statsOf = (key: number, st: Float64Array) => {
    st.set([0, Infinity, -Infinity, Infinity, -Infinity]);
    for (const i of pairVertices.get(key) ?? [])
      pairsOf(i, (k, alpha, sv) => {
        if (k === key) include(st, alpha, sv);
      });
  };

  /**
   * Re-subdivides the triangles `list` (sorted), in runs of consecutive triangles, and rewrites
   * every pair they carried or now carry.
   * @returns the rewritten pairs' keys, and those new to the table (their statistics computed)
   */
  const retriangulate = (list: number[]) => {
    const touched = new Set<number>();
    const added = new Set<number>();
    const replaced = new Uint8Array(T);
    for (const t of list) {
      replaced[t] = 1;
      for (const key of trianglePairs[t]) touched.add(key);
      trianglePairs[t] = [];
    }
    // The new entries, per pair in blocks of triangle order (one block per run).
    const blocks = new Map<number, { data: Float64Array; origin: Int32Array }[]>();
    for (let a = 0; a < list.length; ) {
      let b = a + 1;
      while (b < list.length && list[b] === list[b - 1] + 1) b++;
      const first = list[a];
      const tris = subdivideByWeights(mesh, epsilon, first, list[b - 1] + 1);
      const { keys, counts } = countPairs(tris, J);
      const start = new Int32Array(keys.length + 1);
      counts.forEach((c, q) => (start[q + 1] = start[q] + c));
      const runData = new Float64Array(6 * start[keys.length]);
      const runOrigin = new Int32Array(start[keys.length]);
      fillPairs(tris, J, new Map(keys.map((key, q) => [key, q])), start.slice(0, keys.length), runData, runOrigin);
      const triangleOf = new Int32Array(tris.count);
      for (let t = first; t <= list[b - 1]; t++) triangleOf.fill(t, tris.starts![t - first], tris.starts![t - first + 1]);
      keys.forEach((key, q) => {
        for (let e = start[q]; e < start[q + 1]; e++) {
          const t = (runOrigin[e] = triangleOf[runOrigin[e]]);
          const carried = trianglePairs[t];
          if (carried[carried.length - 1] !== key) carried.push(key);
        }
        touched.add(key);
        const block = { data: runData.subarray(6 * start[q], 6 * start[q + 1]), origin: runOrigin.subarray(start[q], start[q + 1]) }; // prettier-ignore
        const list = blocks.get(key);
        if (list) list.push(block);
        else blocks.set(key, [block]);
      });
      a = b;
    }
    for (const key of touched) {
      const old = buckets.get(key);
      const [s, e] = old === undefined ? [0, 0] : [offsets[old], offsets[old + 1]];
      let size = 0;
      for (let i = s; i < e; i++) if (!replaced[origin[i]]) size++;
      for (const block of blocks.get(key) ?? []) size += block.origin.length;
      if (old !== undefined) {
        keyOf[old] = -1;
        dead += e - s;
        [strategy[old], bins[old], grids[old]] = ['exact', undefined, undefined];
        buckets.delete(key);
      }
      if (!size) continue;
      reserve(size);
      // Merge: the old entries of the triangles kept, the blocks in between, in triangle order.
      let w = offsets[P];
      let i = s;
      const keep = (before: number) => {
        while (i < e && origin[i] < before) {
          let j = i;
          while (j < e && origin[j] < before && !replaced[origin[j]]) j++;
          data.copyWithin(6 * w, 6 * i, 6 * j);
          origin.copyWithin(w, i, j);
          w += j - i;
          i = j;
          while (i < e && origin[i] < before && replaced[origin[i]]) i++;
        }
      };
      for (const block of blocks.get(key) ?? []) {
        keep(block.origin[0]);
        data.set(block.data, 6 * w);
        origin.set(block.origin, w);
        w += block.origin.length;
      }
      keep(T);
      offsets[P + 1] = w;
      keyOf[P] = key;
      [strategy[P], bins[P], grids[P]] = ['exact', undefined, undefined];
      const st = stats.subarray(5 * P, 5 * P + 5);
      if (old !== undefined) st.set(stats.subarray(5 * old, 5 * old + 5));
      else {
        statsOf(key, st);
        added.add(key);
      }
      buckets.set(key, P++);
    }
    return { touched, added };
  };
  const scratch = new Float64Array(0x8000); // planPairs' binning workspace (default resolution), reused
  /** Re-plans the pairs `keys` (their statistics are current). */
  const replan = (keys: Iterable<number>) => {
    const list: number[] = [];
    for (const key of keys) {
      const b = buckets.get(key);
      if (b !== undefined) list.push(b);
    }
    if (corAlgorithm(options) === 'exact') return; // every bucket is written 'exact'
    const plan = planPairs(table(), stats.subarray(0, 5 * P), sigma, options.resolution, list, scratch);
    for (const b of list) [strategy[b], bins[b], grids[b]] = [plan.strategy[b], plan.bins[b], plan.grids[b]];
  };
  const centers = new Float32Array(3 * n);
  /** Evaluates the vertices `list`. */
  const evaluate = (list: ArrayLike<number>) =>
    centersOfRotationPlanned({ table: table(), sigma, strategy, bins, grids }, mesh, 0, list.length, centers, list);
  {
    const log = new Map<number, number[]>();
    for (let i = 0; i < n; i++) membership(i, true, log);
    const { touched } = retriangulate(Array.from({ length: T }, (_, t) => t));
    replan(touched);
    evaluate(Array.from({ length: n }, (_, i) => i));
  }

  const apply = (vertices: Int32Array, joints: ArrayLike<number>, weights: ArrayLike<number>): CorUpdate => {
    const start = performance.now();
    // The edited vertices leave their pairs and join their new ones (values logged per pair).
    const left = new Map<number, number[]>();
    const joined = new Map<number, number[]>();
    for (const i of vertices) membership(i, false, left);
    for (let v = 0; v < vertices.length; v++) {
      const i = vertices[v];
      for (let k = 0; k < K; k++) {
        mesh.joints[K * i + k] = joints[K * v + k];
        mesh.weights[K * i + k] = weights[K * v + k];
      }
    }
    for (const i of vertices) membership(i, true, joined);
    // 1–2: the triangles around the edited vertices; the pairs they carried or carry.
    const triangleSet = new Set<number>();
    for (const i of vertices) for (const t of around[i]) triangleSet.add(t);
    const triangles = [...triangleSet].sort((a, b) => a - b);
    const { touched, added } = retriangulate(triangles);
    // 3: the statistics of the edited vertices' pairs, by difference (a full pass when a vertex
    // that left held an extreme); re-plan the pairs whose statistics or entries changed.
    const changed = new Set<number>();
    for (const key of touched) if (buckets.has(key)) changed.add(key);
    for (const key of new Set([...left.keys(), ...joined.keys()])) {
      const b = buckets.get(key);
      if (b === undefined || added.has(key)) continue;
      const st = stats.subarray(5 * b, 5 * b + 5);
      const before = st.slice();
      const out = left.get(key) ?? [];
      let extreme = false;
      for (let q = 0; q < out.length; q += 2) {
        st[0]--;
        extreme ||= out[q] === st[1] || out[q] === st[2] || out[q + 1] === st[3] || out[q + 1] === st[4];
      }
      if (extreme) statsOf(key, st);
      else {
        const into = joined.get(key) ?? [];
        for (let q = 0; q < into.length; q += 2) include(st, into[q], into[q + 1]);
      }
      if (st.some((x, q) => x !== before[q])) changed.add(key);
    }
    replan(changed);
    // 4: re-evaluate the edited vertices and every vertex with a changed pair.
    const redo = new Uint8Array(n);
    for (const i of vertices) redo[i] = 1;
    for (const key of changed) for (const i of pairVertices.get(key) ?? []) redo[i] = 1;
    const list: number[] = [];
    for (let i = 0; i < n; i++) if (redo[i]) list.push(i);
    evaluate(list);
    if (dead > offsets[P] - dead) compact();
    return { recomputed: Int32Array.from(list), triangles: triangles.length, pairs: changed.size, seconds: (performance.now() - start) / 1000 };
  };

  const done: Edit[] = [];
  const undone: Edit[] = [];
  return {
    mesh,
    centers,
    setWeights(vertices, joints, weights) {
      const ids = Int32Array.from(vertices);
      if (joints.length !== K * ids.length || weights.length !== K * ids.length)
        throw new CorskinError(`setWeights: ${ids.length} vertices need ${K * ids.length} joints and weights (${K} each)`);
      const w = Float32Array.from(weights);
      const j = Uint32Array.from(joints);
      for (let v = 0; v < ids.length; v++) {
        const i = ids[v];
        if (!(Number.isInteger(i) && i >= 0 && i < n)) throw new CorskinError(`setWeights: no vertex ${i} (the mesh has ${n})`);
        let sum = 0;
        for (let k = 0; k < K; k++) {
          const x = w[K * v + k];
          if (!(x >= 0) || !Number.isFinite(x)) throw new CorskinError(`setWeights: vertex ${i} has weight ${x}`);
          if (x > 0 && j[K * v + k] >= J) throw new CorskinError(`setWeights: vertex ${i} names joint ${j[K * v + k]} of ${J}`);
          sum += x;
        }
        if (!(sum > 0)) throw new CorskinError(`setWeights: vertex ${i} has no weight`);
        for (let k = 0; k < K; k++) w[K * v + k] /= sum;
      }
      const before = {
        joints: Uint32Array.from(ids.length ? [...ids].flatMap((i) => Array.from(mesh.joints.subarray(K * i, K * i + K))) : []),
        weights: Float32Array.from([...ids].flatMap((i) => Array.from(mesh.weights.subarray(K * i, K * i + K)))),
      };
      done.push({ vertices: ids, before, after: { joints: j, weights: w } });
      undone.length = 0;
      return apply(ids, j, w);
    },
    undo() {
      const edit = done.pop();
      if (!edit) return false;
      undone.push(edit);
      return apply(edit.vertices, edit.before.joints, edit.before.weights);
    },
    redo() {
      const edit = undone.pop();
      if (!edit) return false;
      done.push(edit);
      return apply(edit.vertices, edit.after.joints, edit.after.weights);
    },
  };
}

/** Counts one vertex (α, s_v) into pair statistics (count, αmin, αmax, smin, smax). */
function include(st: Float64Array, alpha: number, sv: number) {
  st[0]++;
  if (alpha < st[1]) st[1] = alpha;
  if (alpha > st[2]) st[2] = alpha;
  if (sv < st[3]) st[3] = sv;
  if (sv > st[4]) st[4] = sv;
}
