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
import { buildPairTable, type PairTable } from './centers.js';
import { centersOfRotationPlanned, exactPlan, pairVertexStats, planPairs, type FastCorResolution, type PairPlan, type PairStrategy, type Lattice } from './fast.js';
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

  // Pieces: per triangle its sub-triangles; per pair key the triangles carrying it, its entries,
  // statistics and plan.
  const subdivisions: SubdividedTriangles[] = [];
  const pairTriangles = new Map<number, Set<number>>();
  const pairEntries = new Map<number, Float64Array>();
  const pairStats = new Map<number, Float64Array>();
  const pairPlan = new Map<number, { strategy: PairStrategy; bins?: Float64Array; grid?: Lattice }>();
  const keysOf = (tris: SubdividedTriangles): Set<number> => {
    const keys = new Set<number>();
    const { count, stride, joints } = tris;
    for (let s = 0; s < count; s++)
      for (let a = 0; a < stride && joints[stride * s + a] >= 0; a++)
        for (let b = a + 1; b < stride && joints[stride * s + b] >= 0; b++) {
          const x = joints[stride * s + a], y = joints[stride * s + b];
          keys.add(x < y ? x * J + y : y * J + x);
        }
    return keys;
  };
  for (let t = 0; t < T; t++) {
    const s = subdivideByWeights(mesh, epsilon, t, t + 1);
    subdivisions.push(s);
    for (const key of keysOf(s)) {
      let set = pairTriangles.get(key);
      if (!set) pairTriangles.set(key, (set = new Set()));
      set.add(t);
    }
  }
  /**
   * Rebuilds the entries of the pairs `keys`: one table over the union of their triangles, in
   * triangle order (a pair's entries there are exactly its entries in the full table).
   */
  const rebuildEntries = (keys: Iterable<number>) => {
    const list = [...keys];
    const union = new Set<number>();
    for (const key of list) for (const t of pairTriangles.get(key) ?? []) union.add(t);
    const tris = [...union].sort((a, b) => a - b);
    const part = buildPairTable(concat(tris.map((t) => subdivisions[t]), subdivisions[0]?.stride ?? 3 * K), J);
    for (const key of list) {
      const b = part.buckets.get(key);
      if (b === undefined) {
        pairEntries.delete(key);
        pairTriangles.delete(key);
      } else pairEntries.set(key, part.data.slice(6 * part.offsets[b], 6 * part.offsets[b + 1]));
    }
  };
  rebuildEntries([...pairTriangles.keys()]);

  const centers = new Float32Array(3 * n);
  let table = assembleTable(pairEntries, J);
  const restat = () => {
    const stats = pairVertexStats(table, mesh);
    const changed = new Set<number>();
    for (const [key, b] of table.buckets) {
      const s = stats.slice(5 * b, 5 * b + 5);
      const old = pairStats.get(key);
      if (!old || old.some((x, i) => x !== s[i])) changed.add(key);
      pairStats.set(key, s);
    }
    for (const key of [...pairStats.keys()]) if (!table.buckets.has(key)) pairStats.delete(key);
    return { stats, changed };
  };
  const replan = (keys: Set<number>, stats: Float64Array) => {
    if (options.method === 'exact') {
      for (const key of keys) pairPlan.set(key, { strategy: 'exact' });
      return;
    }
    const list = [...keys].map((k) => table.buckets.get(k)).filter((b): b is number => b !== undefined);
    const plan = planPairs(table, stats, sigma, options.resolution, list);
    for (const key of keys) {
      const b = table.buckets.get(key);
      if (b === undefined) pairPlan.delete(key);
      else pairPlan.set(key, { strategy: plan.strategy[b], bins: plan.bins[b], grid: plan.grids[b] });
    }
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
  {
    const { stats } = restat();
    replan(new Set(table.buckets.keys()), stats);
    centersOfRotationPlanned(currentPlan(), mesh, 0, n, centers);
  }

  const apply = (vertices: Int32Array, joints: ArrayLike<number>, weights: ArrayLike<number>): CorUpdate => {
    const start = performance.now();
    for (let v = 0; v < vertices.length; v++) {
      const i = vertices[v];
      for (let k = 0; k < K; k++) {
        mesh.joints[K * i + k] = joints[K * v + k];
        mesh.weights[K * i + k] = weights[K * v + k];
      }
    }
    // 1–2: the triangles around the edited vertices, and the pairs they carried or carry.
    const triangles = new Set<number>();
    for (const i of vertices) for (const t of around[i]) triangles.add(t);
    const touched = new Set<number>();
    for (const t of triangles) {
      for (const key of keysOf(subdivisions[t])) {
        touched.add(key);
        pairTriangles.get(key)?.delete(t);
      }
      subdivisions[t] = subdivideByWeights(mesh, epsilon, t, t + 1);
      for (const key of keysOf(subdivisions[t])) {
        touched.add(key);
        let set = pairTriangles.get(key);
        if (!set) pairTriangles.set(key, (set = new Set()));
        set.add(t);
      }
    }
    rebuildEntries(touched);
    table = assembleTable(pairEntries, J);
    // 3: re-plan the pairs whose entries or vertex statistics changed.
    const { stats, changed } = restat();
    for (const key of touched) changed.add(key);
    replan(changed, stats);
    // 4: re-evaluate the edited vertices and every vertex with a changed pair.
    const plan = currentPlan();
    const redo = new Uint8Array(n);
    for (const i of vertices) redo[i] = 1;
    for (let i = 0; i < n; i++) {
      if (redo[i]) continue;
      for (let a = K * i; a < K * i + K && !redo[i]; a++)
        for (let b = K * i; b < K * i + K; b++) {
          if (!(mesh.weights[a] > 0 && mesh.weights[b] > 0) || mesh.joints[a] >= mesh.joints[b]) continue;
          if (changed.has(mesh.joints[a] * J + mesh.joints[b])) {
            redo[i] = 1;
            break;
          }
        }
    }
    const list: number[] = [];
    for (let i = 0; i < n; i++) if (redo[i]) list.push(i);
    // Runs of consecutive vertices in one call each.
    for (let a = 0; a < list.length; ) {
      let b = a + 1;
      while (b < list.length && list[b] === list[b - 1] + 1) b++;
      centersOfRotationPlanned(plan, mesh, list[a], list[b - 1] + 1, centers);
      a = b;
    }
    return { recomputed: Int32Array.from(list), triangles: triangles.size, pairs: changed.size, seconds: (performance.now() - start) / 1000 };
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

/** Sub-triangles of several triangles, one after the other (in the given order). */
function concat(parts: SubdividedTriangles[], stride: number): SubdividedTriangles {
  let count = 0;
  for (const p of parts) count += p.count;
  const out: SubdividedTriangles = {
    count,
    stride,
    areas: new Float64Array(count),
    centroids: new Float64Array(3 * count),
    joints: new Int32Array(stride * count),
    weights: new Float64Array(stride * count),
  };
  let o = 0;
  for (const p of parts) {
    out.areas.set(p.areas.subarray(0, p.count), o);
    out.centroids.set(p.centroids.subarray(0, 3 * p.count), 3 * o);
    out.joints.set(p.joints.subarray(0, stride * p.count), stride * o);
    out.weights.set(p.weights.subarray(0, stride * p.count), stride * o);
    o += p.count;
  }
  return out;
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
