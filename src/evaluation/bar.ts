/**
 * The bar of Le & Hodgins 2016, Fig. 2: a closed cylinder along +x bound to three bones with smooth
 * weights, for the five joint manipulations.
 *
 * @module
 */
import { computeVertexNormals, type SkinnedMesh } from '../core/mesh.js';
import { createSkeleton, type Skeleton } from '../core/skeleton.js';

/** Options of {@link createBar}. */
export interface BarOptions {
  /** Rings along the bar (≥ 2); default 97. */
  rings?: number;
  /** Vertices per ring; default 32. */
  segments?: number;
  /** Bone length (the bar is 3 bones long); default 1. */
  boneLength?: number;
  /** Bar radius; default 0.2. */
  radius?: number;
  /** Half-width of the weight blend around each inner joint; default 0.3. */
  blend?: number;
}

/**
 * A closed cylinder along +x from 0 to `length`: `rings` rings of `segments` vertices (ring r at
 * x = length·r/(rings − 1)), then the two cap centres (x = 0, x = length), outward-facing
 * triangles.
 * @returns positions (3·n) and triangles (3·t)
 */
export function closedTube(
  rings: number,
  segments: number,
  length: number,
  radius: number,
): {
  /** Vertex positions, 3·n: the rings, then the two cap centres. */
  positions: Float32Array;
  /** Triangles, outward-facing, 3·t. */
  triangles: Uint32Array;
} {
  const pos: number[] = [];
  const tri: number[] = [];
  for (let r = 0; r < rings; r++) {
    const x = (length * r) / (rings - 1);
    for (let s = 0; s < segments; s++) {
      const a = (2 * Math.PI * s) / segments;
      pos.push(x, radius * Math.cos(a), radius * Math.sin(a));
    }
  }
  for (let r = 0; r + 1 < rings; r++) {
    for (let s = 0; s < segments; s++) {
      const a = r * segments + s, b = r * segments + ((s + 1) % segments); // prettier-ignore
      tri.push(a, b, a + segments, b, b + segments, a + segments);
    }
  }
  const c0 = pos.length / 3;
  pos.push(0, 0, 0, length, 0, 0);
  const last = (rings - 1) * segments;
  for (let s = 0; s < segments; s++) {
    tri.push(c0, (s + 1) % segments, s);
    tri.push(c0 + 1, last + s, last + ((s + 1) % segments));
  }
  return { positions: Float32Array.from(pos), triangles: Uint32Array.from(tri) };
}

/**
 * A bar of three bones along +x: joints `bone0` at x = 0, `bone1` at L, `bone2` at 2L and a
 * weightless end joint `end` at 3L (so every weighted joint has a child). Weights blend between
 * neighbouring bones with a smoothstep over ±blend around each inner joint (at most two
 * influences per vertex); the caps are closed, so the enclosed volume is well defined.
 */
export function createBar(options: BarOptions = {}): {
  /** The bar's skin, bind space (the bind pose is the straight bar). */
  mesh: SkinnedMesh;
  /** Its four joints: `bone0`, `bone1`, `bone2` and `end`. */
  skeleton: Skeleton;
} {
  const rings = options.rings ?? 97;
  const segments = options.segments ?? 32;
  const L = options.boneLength ?? 1;
  const radius = options.radius ?? 0.2;
  const blend = options.blend ?? 0.3;
  const { positions, triangles } = closedTube(rings, segments, 3 * L, radius);
  const n = positions.length / 3;
  const joints = new Uint32Array(4 * n);
  const weights = new Float32Array(4 * n);
  const smooth = (t: number) => {
    const u = Math.min(1, Math.max(0, t));
    return u * u * (3 - 2 * u);
  };
  for (let i = 0; i < n; i++) {
    const x = positions[3 * i];
    const k = x < 1.5 * L ? 1 : 2; // the inner joint this vertex blends across
    const w = smooth((x - (k * L - blend)) / (2 * blend)); // weight of bone k
    joints.set([k - 1, k, 0, 0], 4 * i);
    weights.set([1 - w, w, 0, 0], 4 * i);
  }
  const ibm = (x: number) => [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -x, 0, 0, 1];
  const skeleton = createSkeleton({
    jointNames: ['bone0', 'bone1', 'bone2', 'end'],
    parents: [-1, 0, 1, 2],
    restTranslations: [0, 0, 0, L, 0, 0, L, 0, 0, L, 0, 0],
    inverseBindMatrices: [...ibm(0), ...ibm(L), ...ibm(2 * L), ...ibm(3 * L)],
  });
  return {
    mesh: { positions, normals: computeVertexNormals(positions, triangles), triangles, influences: 4, joints, weights },
    skeleton,
  };
}
