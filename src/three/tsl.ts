/**
 * The shared pieces of corskin's TSL skinning kernels (WebGPURenderer, `nodes.ts`): what a
 * method's {@link TslKernel} builds on — the joint texture read as the WebGL chunks read it
 * (`chunks.ts`: {@link TEXELS_PER_JOINT} texels per joint, matrix rows and rotation quaternion, in
 * the mesh's bind space), the vertex's influences, the joints' QLERP with the two-phase stretch,
 * DQS's translation, and the assignments of position, normal and tangent. Kept apart from
 * `kernel.ts` so that WebGL users never load three's node system.
 *
 * @module
 */
import {
  attribute,
  cross,
  dot,
  float,
  int,
  ivec2,
  mat3,
  normalLocal,
  positionLocal,
  select,
  tangentLocal,
  texture,
  transpose,
  uniform,
  vec3,
  vec4,
} from 'three/tsl';
import type { NodePatchOptions } from './index.js';
import { TEXELS_PER_JOINT, TEXTURE_WIDTH } from './kernel.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- TSL nodes are untyped proxies */
/** A TSL node (an untyped proxy). */
export type Node = any;

/** `v + 2 q.xyz × (q.xyz × v + q.w v)`: v rotated by unit quaternion q. */
export const rotate = (q: Node, v: Node): Node => v.add(cross(q.xyz, cross(q.xyz, v).add(q.w.mul(v))).mul(2));

/** v / |v|, or v itself when it is zero (zero normals in real files stay zero, never NaN). */
export const safeNormalize = (v: Node): Node => {
  const l = v.length();
  return select(l.greaterThan(0), v.div(l), v);
};

/** det(A)·A⁻ᵀ n with the sign of det(A) (columns a0, a1, a2). */
export const cofactor = (a: Node[], n: Node): Node => {
  const c0 = cross(a[1], a[2]), c1 = cross(a[2], a[0]), c2 = cross(a[0], a[1]); // prettier-ignore
  const r = c0.mul(n.x).add(c1.mul(n.y)).add(c2.mul(n.z));
  return select(dot(a[0], c0).lessThan(0), r.negate(), r);
};

/** The columns of S·v (S as its columns s). */
export const mulColumns = (s: Node[], v: Node): Node => s[0].mul(v.x).add(s[1].mul(v.y)).add(s[2].mul(v.z));

/** The sum of nodes. */
export const sum = (parts: Node[]): Node => parts.reduce((a, b) => a.add(b));

/** Texel i (an int node) of a {@link TEXTURE_WIDTH}-wide data texture, as `texture.load`'s address. */
export const texelAddress = (i: Node): Node =>
  ivec2(i.bitAnd(TEXTURE_WIDTH - 1), i.shiftRight(Math.log2(TEXTURE_WIDTH)));

/** What a kernel builds a vertex's skinning from. */
export interface TslContext {
  /** The mesh's patch options (its joint texture, the method's data textures and uniforms). */
  o: NodePatchOptions;
  /** Whether the geometry has normals (the kernel assigns `normalLocal` only then). */
  hasNormal: boolean;
  /** Whether the geometry has tangents (the kernel assigns `tangentLocal` only then). */
  hasTangent: boolean;
  /** Texel k (0–2: the skinning matrix's rows, 3: its rotation quaternion) of a joint (float node). */
  fetch(joint: Node, k: number): Node;
  /** 1 while some skinning matrix has scale, shear or reflection (updated every frame). */
  stretch: Node;
}

/**
 * A method's TSL kernel: assigns `positionLocal` (after morph targets), `normalLocal` and
 * `tangentLocal` (where the geometry has them) for the vertex.
 */
export interface TslKernel {
  /** The method's id (one of the registry's methods with `gpu: true`). */
  id: string;
  /** Builds the vertex's skinning in the node graph (called once per material, not per frame). */
  skin(c: TslContext): void;
}

/** The context of a kernel for a mesh's patch options. */
export function tslContext(o: NodePatchOptions, hasNormal: boolean, hasTangent: boolean): TslContext {
  const tex = texture(o.jointTexture);
  const size = int(o.jointTexture.image.width);
  return {
    o,
    hasNormal,
    hasTangent,
    stretch: uniform(0).onObjectUpdate(() => o.stretch.value),
    fetch: (joint, k) => {
      const i = int(joint).mul(TEXELS_PER_JOINT).add(k).toConst();
      return tex.load(ivec2(i.mod(size), i.div(size)));
    },
  };
}

/** Joint j's linear part L_j (its columns) from its matrix rows. */
const columns = (rows: Node[]): Node[] => ['x', 'y', 'z'].map((c) => vec3(rows[0][c], rows[1][c], rows[2][c]));

/**
 * A joint's skinning matrix `[L | τ]` read once: `linear` its columns, `transform(p)` the image of
 * a point (a vec3 node).
 */
export function jointMatrix(c: TslContext, joint: Node): { linear: Node[]; transform: (p: Node) => Node } {
  const rows = [0, 1, 2].map((k) => c.fetch(joint, k).toConst());
  return {
    linear: columns(rows),
    transform: (p) => {
      const p1 = vec4(p, float(1));
      return vec3(dot(rows[0], p1), dot(rows[1], p1), dot(rows[2], p1));
    },
  };
}

/** Assigns the affine map x ↦ L x + t (L's columns) to position, normal (its cofactor) and tangent. */
export function applyAffine(c: TslContext, L: Node[], t: Node): void {
  if (c.hasNormal) normalLocal.assign(safeNormalize(cofactor(L, normalLocal)));
  if (c.hasTangent) tangentLocal.assign(safeNormalize(mulColumns(L, tangentLocal.xyz)));
  positionLocal.assign(mulColumns(L, positionLocal).add(t));
}

/** The vertex's influences: joints J (float nodes), weights W and each joint's matrix. */
export interface Influences {
  J: Node[];
  W: Node[];
  joints: ReturnType<typeof jointMatrix>[];
}

/** The vertex's 4 influences (`skinIndex`, `skinWeight`) or 8 to 16 (`corskinIndex0…`, `corskinWeight0…`). */
export function influences(c: TslContext): Influences {
  const sets: Node[][] =
    c.o.influenceSets > 1
      ? Array.from({ length: c.o.influenceSets }, (_, s) => [
          attribute(`corskinIndex${s}`, 'vec4'),
          attribute(`corskinWeight${s}`, 'vec4'),
        ])
      : [[attribute('skinIndex', 'uvec4'), attribute('skinWeight', 'vec4')]];
  const J: Node[] = [];
  const W: Node[] = [];
  for (const [idx, wgt] of sets) {
    for (const k of ['x', 'y', 'z', 'w']) {
      J.push(float(idx[k]).toConst());
      W.push(wgt[k].toConst());
    }
  }
  return { J, W, joints: J.map((j) => jointMatrix(c, j)) };
}

/** The joints' QLERP over the influences: quaternions Q, signed weights S, the blend r (length len), stretch K. */
export interface Qlerp extends Influences {
  Q: Node[];
  S: Node[];
  r: Node;
  len: Node;
  /** The blended stretch K̄ = Σ w_j R_jᵀ L_j (its columns; the identity while every matrix is rigid). */
  K: Node[];
}

/**
 * The joints' QLERP with the pivot at the largest weight (ties to the smaller joint index),
 * the rule of every corskin kernel, and the two-phase stretch K̄.
 */
export function qlerp(c: TslContext): Qlerp {
  const inf = influences(c);
  const { J, W } = inf;
  const Q = J.map((j) => c.fetch(j, 3).toConst());
  let bestW: Node = W[0];
  let bestJ: Node = J[0];
  let pivot: Node = Q[0];
  for (let k = 1; k < W.length; k++) {
    const better = W[k].greaterThan(bestW).or(W[k].equal(bestW).and(J[k].lessThan(bestJ)));
    bestW = select(better, W[k], bestW);
    bestJ = select(better, J[k], bestJ);
    pivot = select(better, Q[k], pivot);
  }
  pivot = pivot.toConst();
  const S = W.map((w, k) => select(dot(Q[k], pivot).lessThan(0), w.negate(), w).toConst());
  const qSum = sum(Q.map((q, k) => q.mul(S[k]))).toConst();
  const len = qSum.length().toConst();
  const parts = W.map((_, k) => {
    const Rt = transpose(mat3(rotate(Q[k], vec3(1, 0, 0)), rotate(Q[k], vec3(0, 1, 0)), rotate(Q[k], vec3(0, 0, 1))));
    return inf.joints[k].linear.map((col) => Rt.mul(col));
  });
  const K = [0, 1, 2].map((col) =>
    select(
      c.stretch.greaterThan(0.5),
      sum(W.map((w, k) => parts[k][col].mul(w))),
      vec3(col === 0 ? 1 : 0, col === 1 ? 1 : 0, col === 2 ? 1 : 0),
    ).toConst(),
  );
  return { ...inf, Q, S, r: qSum.div(len).toConst(), len, K };
}

/** K̄ v (K̄ as its columns). */
export const applyStretch = (b: Qlerp, v: Node): Node => mulColumns(b.K, v);

/**
 * DQS's position with the vertex as center: the dual quaternions of `[R_j | M_j(v) − v]` blended
 * and v moved by the blend's translation `2 (d ⊗ r*)`.
 */
export function dqsPosition(b: Qlerp): void {
  const v = positionLocal.toConst();
  const d = sum(
    b.W.map((_, k) => {
      const m = b.joints[k].transform(v).sub(v);
      const q = b.Q[k];
      return vec4(q.w.mul(m).add(cross(m, q.xyz)), dot(m, q.xyz).negate()).mul(b.S[k].mul(0.5));
    }),
  )
    .div(b.len)
    .toConst();
  const r = b.r;
  positionLocal.assign(v.add(r.w.mul(d.xyz).sub(d.w.mul(r.xyz)).add(cross(r.xyz, d.xyz)).mul(2)));
}

/** Normal and tangent: the stretch K̄'s cofactor, then the rotation r (a unit quaternion node). */
export function rotateNormals(c: TslContext, b: Qlerp, r: Node): void {
  if (c.hasNormal) normalLocal.assign(rotate(r, safeNormalize(cofactor(b.K, normalLocal))));
  if (c.hasTangent) tangentLocal.assign(rotate(r, safeNormalize(applyStretch(b, tangentLocal))));
}
