/**
 * Incremental centers of rotation for weight painting — the open problem Le & Hodgins 2016 end on
 * (§5: "the pre-computed CoRs need to be updated on the fly with the weight changes").
 *
 * A session keeps what the precomputation builds, per piece: each input triangle's weight-space
 * subdivision, each joint pair's entries (in triangle order), each pair's vertex statistics and
 * evaluation plan (exact, bins or lattice, `fast.ts`). An edit of some vertices' weights
 *
 * 1. re-subdivides only the triangles around them;
 * 2. rebuilds the entries of the pairs those triangles carried or now carry;
 * 3. re-plans the pairs whose entries or vertex statistics changed;
 * 4. re-evaluates the vertices that have such a pair, and the edited vertices.
 *
 * Every piece is computed by the same functions, from the same data in the same order, as
 * {@link computeCentersOfRotation} computes it: after any sequence of edits the centers equal a
 * from-scratch precomputation of the final weights (bit for bit; the tests allow 1e-9 of the
 * diagonal). Undo and redo replay the edits through the same path.
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';
import type { SkinnedMesh } from '../core/mesh.js';
import type { PairTable } from './centers.js';
import { centersOfRotationPlanned, exactPlan, gatherInfluences, planPairs, type FastCorResolution, type PairPlan, type PairStrategy, type Lattice } from './fast.js';
import { DEFAULT_EPSILON, DEFAULT_SIGMA } from './precompute.js';
import { subdivideByWeights, type SubdividedTriangles } from './subdivide.js';

/** Options of {@link createCorSession}. */
export interface CorSessionOptions {
  sigma?: number;
  epsilon?: number;
  /** `fast` (default) or `exact`, as in {@link computeCentersOfRotation}. */
  method?: 'fast' | 'exact';
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
  pairs: number;
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
  const sigma = options.sigma ?? DEFAULT_SIGMA;
  const epsilon = options.epsilon ?? DEFAULT_EPSILON;
  if (!(sigma > 0)) throw new RangeError(`sigma must be > 0, got ${sigma}`);
  if (!(epsilon > 0)) throw new RangeError(`epsilon must be > 0, got ${epsilon}`);
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

  // Pieces: per triangle its sub-triangles; per pair key its entries triangle by triangle, its
  // vertices, statistics and plan.
  const subdivisions: SubdividedTriangles[] = new Array(T);
  const segments = new Map<number, Map<number, Float64Array>>(); // pair → triangle → entries
  const pairVertices = new Map<number, Set<number>>();
  const pairEntries = new Map<number, Float64Array>();
  const pairStats = new Map<number, Float64Array>();
  const pairPlan = new Map<number, { strategy: PairStrategy; bins?: Float64Array; grid?: Lattice }>();

  /** Subdivides input triangles `list` (sorted), in runs of consecutive triangles. */
  const subdivide = (list: number[]) => {
    for (let a = 0; a < list.length; ) {
      let b = a + 1;
      while (b < list.length && list[b] === list[b - 1] + 1) b++;
      const first = list[a], end = list[b - 1] + 1;
      const all = subdivideByWeights(mesh, epsilon, first, end);
      for (let t = first; t < end; t++) subdivisions[t] = slice(all, all.starts![t - first], all.starts![t - first + 1]);
      a = b;
    }
  };
  /** Triangle t's entries per pair (as `fillPairs` writes them). */
  const segmentsOf = (t: number): Map<number, Float64Array> => {
    const { count, stride, joints, weights, areas, centroids } = subdivisions[t];
    const lists = new Map<number, number[]>();
    for (let q = 0; q < count; q++) {
      const o = stride * q;
      const area = areas[q];
      const cx = centroids[3 * q], cy = centroids[3 * q + 1], cz = centroids[3 * q + 2];
      for (let i = 0; i < stride && joints[o + i] >= 0; i++)
        for (let k = i + 1; k < stride && joints[o + k] >= 0; k++) {
          const first = joints[o + i] < joints[o + k];
          const key = first ? joints[o + i] * J + joints[o + k] : joints[o + k] * J + joints[o + i];
          let list = lists.get(key);
          if (!list) lists.set(key, (list = []));
          list.push(first ? weights[o + i] : weights[o + k], first ? weights[o + k] : weights[o + i], area, area * cx, area * cy, area * cz);
        }
    }
    return new Map([...lists].map(([key, list]) => [key, Float64Array.from(list)]));
  };
  const addTriangle = (t: number, sign: 1 | -1, touched: Set<number>) => {
    for (const [key, seg] of segmentsOf(t)) {
      touched.add(key);
      let bySegment = segments.get(key);
      if (!bySegment) segments.set(key, (bySegment = new Map()));
      if (sign > 0) bySegment.set(t, seg);
      else bySegment.delete(t);
      if (!bySegment.size) segments.delete(key);
    }
  };
  /** Pair `key`'s entries: its triangles' segments in triangle order (as in the full table). */
  const entriesOf = (key: number): Float64Array | undefined => {
    const bySegment = segments.get(key);
    if (!bySegment) return undefined;
    const tris = [...bySegment.keys()].sort((x, y) => x - y);
    let length = 0;
    for (const t of tris) length += bySegment.get(t)!.length;
    const out = new Float64Array(length);
    let o = 0;
    for (const t of tris) {
      out.set(bySegment.get(t)!, o);
      o += bySegment.get(t)!.length;
    }
    return out;
  };
  /** Vertex i's pairs with their (α, s_v), as `pairVertexStats` sees them. */
  const js = new Int32Array(K), ws = new Float64Array(K);
  const pairsOf = (i: number, visit: (key: number, alpha: number, sv: number) => void) => {
    const u = gatherInfluences(mesh.joints, mesh.weights, K, i, js, ws);
    for (let a = 0; a < u; a++)
      for (let b = a + 1; b < u; b++) {
        const sv = ws[a] + ws[b];
        visit(js[a] * J + js[b], ws[a] / sv, sv);
      }
  };
  const membership = (i: number, add: boolean, keys: Set<number>) =>
    pairsOf(i, (key) => {
      keys.add(key);
      let set = pairVertices.get(key);
      if (!set) pairVertices.set(key, (set = new Set()));
      if (add) set.add(i);
      else set.delete(i);
    });
  /** Statistics of pair `key` over its vertices (count, αmin, αmax, smin, smax), as `pairVertexStats`. */
  const statsOf = (key: number): Float64Array => {
    const st = Float64Array.of(0, Infinity, -Infinity, Infinity, -Infinity);
    const verts = [...(pairVertices.get(key) ?? [])].sort((x, y) => x - y);
    for (const i of verts)
      pairsOf(i, (k, alpha, sv) => {
        if (k !== key) return;
        st[0]++;
        if (alpha < st[1]) st[1] = alpha;
        if (alpha > st[2]) st[2] = alpha;
        if (sv < st[3]) st[3] = sv;
        if (sv > st[4]) st[4] = sv;
      });
    return st;
  };

  const centers = new Float32Array(3 * n);
  let table: PairTable = assembleTable(new Map(), J);
  /** Re-plans the pairs `keys` (their statistics are current). */
  const replan = (keys: Iterable<number>) => {
    const list: number[] = [];
    for (const key of keys) {
      const b = table.buckets.get(key);
      if (b === undefined) pairPlan.delete(key);
      else list.push(b);
    }
    if (options.method === 'exact') {
      for (const b of list) pairPlan.set(keyOf[b], { strategy: 'exact' });
      return;
    }
    const stats = new Float64Array(5 * (table.offsets.length - 1));
    for (const [key, b] of table.buckets) stats.set(pairStats.get(key) ?? [0, Infinity, -Infinity, Infinity, -Infinity], 5 * b);
    const plan = planPairs(table, stats, sigma, options.resolution, list);
    for (const b of list) pairPlan.set(keyOf[b], { strategy: plan.strategy[b], bins: plan.bins[b], grid: plan.grids[b] });
  };
  let keyOf: number[] = [];
  const retable = () => {
    table = assembleTable(pairEntries, J);
    keyOf = [...table.buckets.keys()];
  };
  const currentPlan = (): PairPlan => {
    const plan = exactPlan(table, sigma);
    for (const [key, b] of table.buckets) {
      const p = pairPlan.get(key)!;
      plan.strategy[b] = p.strategy;
      plan.bins[b] = p.bins;
      plan.grids[b] = p.grid;
    }
    return plan;
  };
  /** Evaluates the vertices `list` (sorted), in runs of consecutive vertices. */
  const evaluate = (list: ArrayLike<number>) => {
    const plan = currentPlan();
    for (let a = 0; a < list.length; ) {
      let b = a + 1;
      while (b < list.length && list[b] === list[b - 1] + 1) b++;
      centersOfRotationPlanned(plan, mesh, list[a], list[b - 1] + 1, centers);
      a = b;
    }
  };
  {
    subdivide(Array.from({ length: T }, (_, t) => t));
    const all = new Set<number>();
    for (let t = 0; t < T; t++) addTriangle(t, 1, all);
    for (const key of segments.keys()) pairEntries.set(key, entriesOf(key)!);
    for (let i = 0; i < n; i++) membership(i, true, new Set());
    retable();
    for (const key of table.buckets.keys()) pairStats.set(key, statsOf(key));
    replan(table.buckets.keys());
    evaluate(Array.from({ length: n }, (_, i) => i));
  }

  const apply = (vertices: Int32Array, joints: ArrayLike<number>, weights: ArrayLike<number>): CorUpdate => {
    const start = performance.now();
    // Pairs of the edited vertices before and after (their statistics may change).
    const statsKeys = new Set<number>();
    for (const i of vertices) membership(i, false, statsKeys);
    for (let v = 0; v < vertices.length; v++) {
      const i = vertices[v];
      for (let k = 0; k < K; k++) {
        mesh.joints[K * i + k] = joints[K * v + k];
        mesh.weights[K * i + k] = weights[K * v + k];
      }
    }
    for (const i of vertices) membership(i, true, statsKeys);
    // 1–2: the triangles around the edited vertices; the pairs they carried or carry.
    const triangleSet = new Set<number>();
    for (const i of vertices) for (const t of around[i]) triangleSet.add(t);
    const triangles = [...triangleSet].sort((a, b) => a - b);
    const touched = new Set<number>();
    for (const t of triangles) addTriangle(t, -1, touched);
    subdivide(triangles);
    for (const t of triangles) addTriangle(t, 1, touched);
    for (const key of touched) {
      const e = entriesOf(key);
      if (e) pairEntries.set(key, e);
      else pairEntries.delete(key);
    }
    retable();
    // 3: statistics of the pairs the edited vertices had or have; re-plan those that changed and the touched ones.
    const changed = new Set<number>(touched);
    for (const key of statsKeys) {
      if (!table.buckets.has(key)) {
        pairStats.delete(key);
        continue;
      }
      const st = statsOf(key);
      const old = pairStats.get(key);
      if (!old || old.some((x, q) => x !== st[q])) changed.add(key);
      pairStats.set(key, st);
    }
    for (const key of touched) if (table.buckets.has(key) && !pairStats.has(key)) pairStats.set(key, statsOf(key));
    for (const key of [...pairStats.keys()]) if (!table.buckets.has(key)) pairStats.delete(key);
    replan(changed);
    // 4: re-evaluate the edited vertices and every vertex with a changed pair.
    const redo = new Uint8Array(n);
    for (const i of vertices) redo[i] = 1;
    for (const key of changed) for (const i of pairVertices.get(key) ?? []) redo[i] = 1;
    const list: number[] = [];
    for (let i = 0; i < n; i++) if (redo[i]) list.push(i);
    evaluate(list);
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

/** Sub-triangles [a, b) of a subdivision, as views. */
function slice(tris: SubdividedTriangles, a: number, b: number): SubdividedTriangles {
  const { stride } = tris;
  return {
    count: b - a,
    stride,
    areas: tris.areas.subarray(a, b),
    centroids: tris.centroids.subarray(3 * a, 3 * b),
    joints: tris.joints.subarray(stride * a, stride * b),
    weights: tris.weights.subarray(stride * a, stride * b),
  };
}

/** A pair table from per-pair entries (bucket numbers in the map's order). */
function assembleTable(entries: Map<number, Float64Array>, J: number): PairTable {
  const buckets = new Map<number, number>();
  const offsets = new Int32Array(entries.size + 1);
  let b = 0;
  for (const [key, e] of entries) {
    buckets.set(key, b);
    offsets[b + 1] = offsets[b] + e.length / 6;
    b++;
  }
  const data = new Float64Array(6 * offsets[entries.size]);
  b = 0;
  for (const e of entries.values()) data.set(e, 6 * offsets[b++]);
  return { jointCount: J, buckets, offsets, data };
}
