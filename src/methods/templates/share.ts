/**
 * Where skinning templates act: the **template share** of each skin vertex, the fraction of its
 * deformation that comes from the template cages, the rest coming from the base method (dual
 * quaternion skinning). Templates are a corrective over the base method — `x′ = D(x) + s·(T(x) −
 * D(x))` — so that what the skinning weights make rigid stays rigid, and skin the templates do not
 * cover follows its joints as the base method moves it.
 *
 * The rule: skin bends where its weights blend, so templates act there and fade out along the
 * surface. A vertex's weights **blend** when more than {@link BLEND_THRESHOLD} of its weight is
 * on joints other than its largest; its **blend distance** is the geodesic distance (along the
 * rest surface's edges, welded by position so UV seams do not cut it) to the nearest blending
 * vertex; its **flex** is 1 at blending vertices and fades (smoothstep) to 0 at a blend distance
 * of one local thickness (the vertex's distance from the nearest bone of its largest joint). So
 * a connected piece on one joint — a blade, a box, glasses, an armour plate, every piece of a
 * character of single influences — has no blending vertex, flex 0 and moves rigidly with its
 * joint; the middle of a long single-influence limb segment moves rigidly too, and the joint
 * regions between get the templates in full.
 *
 * @module
 */
import { segmentDistance } from '../../core/math.js';
import type { SkinnedMesh } from '../../core/mesh.js';
import { weldByPosition } from '../../metrics/weld.js';

/** Weight off a vertex's largest joint above which its weights blend (1%). */
export const BLEND_THRESHOLD = 0.01;

/**
 * Per skin vertex, its flex ∈ [0, 1] (see the module comment): 1 where the weights blend, fading
 * to 0 one local thickness away along the surface; 0 on every connected piece without blending.
 * @param mesh the skin (bind space)
 * @param P bind joint positions, 3·J (the mesh's bind space)
 * @param parents the skeleton's parent of each joint (−1 for a root), J
 * @returns Float32Array, n
 */
export function skinFlex(mesh: SkinnedMesh, P: ArrayLike<number>, parents: ArrayLike<number>): Float32Array {
  const { positions: X, joints, weights, influences: K, triangles } = mesh;
  const n = X.length / 3;
  const J = P.length / 3;
  // Each vertex's largest joint, and whether its weights blend.
  const top = new Int32Array(n);
  const distance = new Float64Array(n).fill(Infinity);
  for (let i = 0; i < n; i++) {
    let best = -1, w = -1, total = 0; // prettier-ignore
    for (let k = K * i; k < K * i + K; k++) {
      total += weights[k];
      if (weights[k] > w) [w, best] = [weights[k], joints[k]];
    }
    top[i] = best;
    if (total - w > BLEND_THRESHOLD) distance[i] = 0;
  }
  // Geodesic distance from the blending vertices (Dijkstra over the welded surface's edges).
  const weld = weldByPosition(X);
  const adjacency = edgeLists(triangles, weld, n);
  const heap = new DistanceHeap(n);
  // Seams: a vertex and its weld representative share the smallest distance.
  for (let i = 0; i < n; i++) if (distance[i] === 0) distance[weld[i]] = 0;
  for (let i = 0; i < n; i++) if (weld[i] === i && distance[i] === 0) heap.push(i, 0);
  while (heap.size) {
    const v = heap.pop();
    const d = distance[v];
    for (let e = adjacency.start[v]; e < adjacency.start[v + 1]; e++) {
      const u = adjacency.neighbours[e];
      const du = d + Math.hypot(X[3 * u] - X[3 * v], X[3 * u + 1] - X[3 * v + 1], X[3 * u + 2] - X[3 * v + 2]);
      if (du < distance[u]) {
        distance[u] = du;
        heap.push(u, du);
      }
    }
  }
  // Thickness: distance to the nearest bone (segment to the parent or to a child) of the vertex's largest joint.
  const bones: number[][] = Array.from({ length: J }, () => []);
  for (let j = 0; j < J; j++)
    if (parents[j] >= 0 && parents[j] < J) {
      bones[j].push(parents[j]);
      bones[parents[j]].push(j);
    }
  const flex = new Float32Array(n);
  const a = [0, 0, 0], b = [0, 0, 0]; // prettier-ignore
  for (let i = 0; i < n; i++) {
    const d = distance[weld[i]];
    if (d === 0) {
      flex[i] = 1;
      continue;
    }
    if (!Number.isFinite(d) || top[i] < 0 || top[i] >= J) continue;
    const j = top[i];
    for (let c = 0; c < 3; c++) a[c] = P[3 * j + c];
    let thickness = Math.hypot(X[3 * i] - a[0], X[3 * i + 1] - a[1], X[3 * i + 2] - a[2]);
    for (const o of bones[j]) {
      for (let c = 0; c < 3; c++) b[c] = P[3 * o + c];
      thickness = Math.min(thickness, segmentDistance(X, 3 * i, a, b));
    }
    const t = thickness > 0 ? Math.min(1, d / thickness) : 1;
    flex[i] = 1 - t * t * (3 - 2 * t);
  }
  return flex;
}

/** Per welded vertex, its welded neighbours along triangle edges (CSR). */
export function edgeLists(triangles: ArrayLike<number>, weld: Uint32Array, n: number): { start: Uint32Array; neighbours: Uint32Array } {
  const count = new Uint32Array(n + 1);
  const pairs: number[] = [];
  for (let f = 0; f < triangles.length; f += 3)
    for (let c = 0; c < 3; c++) {
      const a = weld[triangles[f + c]], b = weld[triangles[f + ((c + 1) % 3)]]; // prettier-ignore
      if (a === b) continue;
      pairs.push(a, b);
      count[a + 1]++;
      count[b + 1]++;
    }
  for (let i = 0; i < n; i++) count[i + 1] += count[i];
  const fill = count.slice(0, n);
  const neighbours = new Uint32Array(pairs.length);
  for (let e = 0; e < pairs.length; e += 2) {
    neighbours[fill[pairs[e]]++] = pairs[e + 1];
    neighbours[fill[pairs[e + 1]]++] = pairs[e];
  }
  return { start: count, neighbours };
}

/** A binary min-heap of (vertex, distance) entries; stale entries are skipped by the caller's check. */
class DistanceHeap {
  private items: Uint32Array;
  private keys: Float64Array;
  size = 0;
  constructor(capacity: number) {
    this.items = new Uint32Array(Math.max(16, capacity));
    this.keys = new Float64Array(Math.max(16, capacity));
  }
  push(item: number, key: number): void {
    if (this.size === this.items.length) {
      const items = new Uint32Array(2 * this.size), keys = new Float64Array(2 * this.size); // prettier-ignore
      items.set(this.items);
      keys.set(this.keys);
      [this.items, this.keys] = [items, keys];
    }
    let i = this.size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.keys[p] <= key) break;
      this.items[i] = this.items[p];
      this.keys[i] = this.keys[p];
      i = p;
    }
    this.items[i] = item;
    this.keys[i] = key;
  }
  pop(): number {
    const top = this.items[0];
    const item = this.items[--this.size], key = this.keys[this.size]; // prettier-ignore
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= this.size) break;
      if (c + 1 < this.size && this.keys[c + 1] < this.keys[c]) c++;
      if (this.keys[c] >= key) break;
      this.items[i] = this.items[c];
      this.keys[i] = this.keys[c];
      i = c;
    }
    this.items[i] = item;
    this.keys[i] = key;
    return top;
  }
}

/**
 * Smooths per-vertex values along the surface: `iterations` Jacobi steps of `v_i ← (v_i + Σ_j
 * v_j) / (1 + degree)` over the welded surface's edges, a vertex and its weld twins sharing their
 * value; vertices whose value is 0 stay 0 and count as 0 for their neighbours (the values fade to
 * zero at the edge of where they are non-zero, and never spread there).
 * @param values per vertex, n (changed in place)
 */
export function smoothAlongSurface(values: Float64Array, positions: ArrayLike<number>, triangles: ArrayLike<number>, iterations: number): void {
  const n = values.length;
  const weld = weldByPosition(positions);
  const { start, neighbours } = edgeLists(triangles, weld, n);
  const cur = new Float64Array(n), next = new Float64Array(n); // prettier-ignore
  for (let i = 0; i < n; i++) cur[weld[i]] = Math.max(cur[weld[i]], values[i]);
  for (let it = 0; it < iterations; it++) {
    for (let v = 0; v < n; v++) {
      if (weld[v] !== v || cur[v] === 0) continue;
      let sum = cur[v];
      for (let e = start[v]; e < start[v + 1]; e++) sum += cur[neighbours[e]];
      next[v] = sum / (1 + start[v + 1] - start[v]);
    }
    cur.set(next);
  }
  for (let i = 0; i < n; i++) if (values[i] !== 0) values[i] = cur[weld[i]];
}
