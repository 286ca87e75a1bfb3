/**
 * Two-phase skinning for skinning matrices with scale, shear or reflection (after Kavan,
 * Collins, Žára, O'Sullivan, "Geometric Skinning with Approximate Dual Quaternion Blending", ACM
 * TOG 2008, Sec. 4.2): each skinning matrix `M_j = [L_j | τ_j]` is split into a proper rotation
 * R_j and a stretch `K_j = R_jᵀ L_j` (scale/shear, and a reflection for mirrored joints), the
 * stretches are blended linearly, the rigid parts by the method (DQS, SBS, LMS, CoR).
 *
 * corskin applies the stretch about a per-vertex center c (the vertex itself for DQS, SBS and
 * LMS; its center of rotation for CoR): in coordinates centered at c, the rigid transforms
 * `[R_j | M_j(c) − c]` are blended and applied to `K̄ (v − c)`, `K̄ = Σ_j w_j K_j`, and c is
 * added back:
 * - a vertex with one joint moves exactly by M_j: `R_j K_j (v − c) + M_j(c) = M_j v`;
 * - translating the whole rig translates the result (c moves with it) — Kavan et al.'s stretch
 *   about the bind-space origin does not;
 * - a stretch shared by every joint (a scaled armature, a mirrored character) is exact: the
 *   result is the rigid method applied to the uniformly stretched mesh (DQS, SBS and CoR; LMS
 *   through the uniform shortcut below: about the vertex its twists' translations M_j(c) − c
 *   are of the bind mesh's size, and LMS, invariant under a common change of origin but not of
 *   scale, then put the chicken, scaled by 0.01, 0.7 of its diagonal off its pose);
 * - for rigid matrices it is the rigid method itself (each method is invariant under a common
 *   change of origin of bind and posed space).
 * For a mirrored joint (det L_j < 0), R_j is the rotation closest to `L_j · diag(−1, 1, 1)`, so
 * the quaternion blend never sees a reflection.
 *
 * @module
 */
import { mat3FromQuat, mat4LinearDeterminant, quatRotationPart } from '../core/math.js';
import type { SkinnedMesh } from '../core/mesh.js';
import { writeAffine } from './vertex-writers.js';
import {
  checkDeformArgs,
  type DeformTarget,
  type Deformer,
  type RigidDeformer,
  type RigidVertexDeformer,
} from './contract.js';

/** The rigid/stretch split of every joint's skinning matrix (see the module notes). */
export interface ScaleSplit {
  /** Unit quaternion (x, y, z, w) of each joint's proper rotation R_j, length 4·J. */
  rotations: Float64Array;
  /** The same rotations as 3×3 matrices (column-major), length 9·J. */
  rotationMatrices: Float64Array;
  /** Each joint's stretch `K_j = R_jᵀ L_j` (bind space, 3×3 column-major), length 9·J. */
  stretch: Float64Array;
  /** 1 for each joint whose skinning matrix is a proper rigid transform (K_j = I), else 0; length J. */
  rigidJoints: Uint8Array;
}

/**
 * Splits the skinning matrices into rotations and stretches when any is not a proper rigid
 * transform (|LᵀL − I| > 1e-5 — float32 rounding stays within that, though some exports carry
 * scales of their own near 1: rpm-avatar's leg and foot joints 0.99991–1.00003 per axis — or det L ≤ 0).
 * Defined for every finite input, singular matrices (zero scale) included.
 * @param skinning 4×4 column-major skinning matrices, length 16·J
 * @returns null when every matrix is rigid, else the split
 */
export function splitScale(skinning: Float64Array): ScaleSplit | null {
  if (allRigid(skinning)) return null;
  const J = skinning.length / 16;
  const rigidJoints = new Uint8Array(J);
  for (let j = 0; j < J; j++) rigidJoints[j] = isRigid(skinning, 16 * j) ? 1 : 0;
  const rotations = new Float64Array(4 * J);
  const rotationMatrices = new Float64Array(9 * J);
  const stretch = new Float64Array(9 * J);
  for (let j = 0; j < J; j++) {
    const m = 16 * j;
    const R = 9 * j;
    quatRotationPart(rotations, 4 * j, skinning, m);
    mat3FromQuat(rotationMatrices, R, rotations, 4 * j);
    // K = Rᵀ L
    for (let c = 0; c < 3; c++) {
      for (let r = 0; r < 3; r++) {
        stretch[9 * j + 3 * c + r] =
          rotationMatrices[R + 3 * r] * skinning[m + 4 * c] +
          rotationMatrices[R + 3 * r + 1] * skinning[m + 4 * c + 1] +
          rotationMatrices[R + 3 * r + 2] * skinning[m + 4 * c + 2];
      }
    }
  }
  return { rotations, rotationMatrices, stretch, rigidJoints };
}

/**
 * Whether every skinning matrix (4×4 column-major, 16·J) is rigid — its linear part orthonormal
 * within 1e-5 (float32's tolerance), not a reflection: {@link splitScale} returns null then.
 */
export function allRigid(skinning: Float64Array): boolean {
  for (let m = 0; m < skinning.length; m += 16) if (!isRigid(skinning, m)) return false;
  return true;
}

/** Whether the 4×4 column-major matrix at `s[m..m+16)` is rigid (see {@link allRigid}). */
function isRigid(s: Float64Array, m: number): boolean {
  for (let a = 0; a < 3; a++)
    for (let b = a; b < 3; b++) if (!(Math.abs(gram(s, m, a, b) - (a === b ? 1 : 0)) <= 1e-5)) return false;
  return mat4LinearDeterminant(s, m) > 0;
}

/**
 * The common factor s when every joint's stretch is `s·I` — a rig under one uniformly scaled
 * node, the usual Mixamo/FBX export — within 1e-5·s (the float32 tolerance {@link splitScale}
 * allows a rigid matrix), else 0. Then two-phase skinning is `s · rigid([R_j | τ_j / s])`, with
 * no per-vertex work.
 */
export function uniformScale(split: ScaleSplit): number {
  const K = split.stretch;
  const s = K[0];
  if (!(s > 0)) return 0;
  for (let o = 0; o < K.length; o += 9) {
    for (let e = 0; e < 9; e++) {
      const expected = e % 4 === 0 ? s : 0;
      if (!(Math.abs(K[o + e] - expected) <= 1e-5 * s)) return 0;
    }
  }
  return s;
}

/**
 * The scale every skinning matrix shares, cheaper than {@link splitScale} + {@link uniformScale}
 * (no rotation is extracted): 1 when every matrix is a proper rigid transform (as
 * {@link splitScale} returning null), s when every linear part is s times a rotation (L_jᵀL_j =
 * s²·I within 2e-5·s², s² joint 0's mean diagonal, det L_j > 0: a rig under one uniformly scaled
 * node; s may be 1 within 1e-5), else 0 (scale that differs between joints, non-uniform scale,
 * shear, reflection: {@link splitScale} is not null). Near the tolerance it can differ from
 * {@link uniformScale}, which measures against joint 0's first stretch entry: callers that get 0
 * fall back to {@link splitScale} and {@link uniformScale}.
 * @param skinning 4×4 column-major skinning matrices, length 16·J
 */
export function commonScale(skinning: Float64Array): number {
  if (allRigid(skinning)) return 1;
  const J = skinning.length / 16;
  let s2 = 0;
  for (let j = 0; j < J; j++) {
    const m = 16 * j;
    const t = s2 || (gram(skinning, m, 0, 0) + gram(skinning, m, 1, 1) + gram(skinning, m, 2, 2)) / 3;
    if (!(t > 0) || !(mat4LinearDeterminant(skinning, m) > 0)) return 0;
    for (let a = 0; a < 3; a++)
      for (let b = a; b < 3; b++) if (!(Math.abs(gram(skinning, m, a, b) - (a === b ? t : 0)) <= 2e-5 * t)) return 0;
    s2 = t;
  }
  return Math.sqrt(s2);
}

/** Entry (a, b) of LᵀL for the linear part L of the matrix at m: column a · column b. */
function gram(s: Float64Array, m: number, a: number, b: number): number {
  return s[m + 4 * a] * s[m + 4 * b] + s[m + 4 * a + 1] * s[m + 4 * b + 1] + s[m + 4 * a + 2] * s[m + 4 * b + 2];
}

/**
 * `s · rigid([L_j / s | τ_j / s])`: the rigid method on the matrices divided by a uniform scale
 * s, the positions multiplied by s (two-phase skinning when every stretch is s·I, exact; see
 * {@link deformTwoPhase}). Allocates the scaled matrices.
 */
function uniformlyScaled(mesh: SkinnedMesh, skinning: Float64Array, s: number, out: DeformTarget, rigid: Deformer): void {
  rigid(
    mesh,
    skinning.map((x, k) => (k % 16 === 15 ? x : x / s)),
    out,
  );
  const n3 = mesh.positions.length;
  for (let k = 0; k < n3; k++) out.positions[k] *= s;
}

/**
 * The entry of every quaternion-blending deformer (DQS, SBS, LMS, CoR): checks the arguments,
 * then runs `rigid` when every skinning matrix is rigid, else {@link deformTwoPhase} with `rigid`
 * as its second phase.
 * @param skinning skinning matrices, 4×4 column-major, length 16·J (bind → posed space)
 * @param center `vertex` (DQS, SBS, LMS) or `cor` (the mesh's centers of rotation)
 * @param rigidVertex the method's rigid phase for one vertex, where it has one (see
 *   {@link deformStretchedVertices})
 * @throws CorskinError when `out` is too small for the mesh or `skinning` is not 16 numbers per
 *   joint (fewer matrices than the influences name is checked by `deform`, not per frame)
 */
export function deformRigidOrTwoPhase(
  mesh: SkinnedMesh,
  skinning: Float64Array,
  out: DeformTarget,
  rigid: Deformer,
  center: 'vertex' | 'cor',
  rigidVertex?: RigidVertexDeformer,
): void {
  checkDeformArgs(mesh, skinning, out);
  const s = commonScale(skinning);
  if (s === 1) rigid(mesh, skinning, out);
  else if (s) uniformlyScaled(mesh, skinning, s, out, rigid);
  else deformTwoPhase(mesh, skinning, splitScale(skinning)!, out, rigid, center, true, rigidVertex);
}

/**
 * Deforms `mesh` in two phases (see the module notes) with `rigid`, a deformer for rigid
 * skinning matrices, as the second phase. Two shortcuts, each the same result up to rounding:
 * when every stretch is one uniform scale s ({@link uniformScale}) the whole mesh goes through
 * `rigid` once with the matrices divided by s, and the positions are multiplied by s — the rigid
 * method on the uniformly stretched mesh (for DQS, SBS and CoR the same result as the per-vertex
 * path; for LMS the one that stays near the pose); otherwise the whole mesh goes through `rigid`
 * once (right for the vertices bound to rigid joints only: with K̄ = I the two phases are the
 * rigid method about c, and each method is invariant under a change of origin) and
 * {@link deformStretchedVertices} redoes the vertices bound to a joint that stretches.
 * Allocates only per call.
 * @param skinning the original skinning matrices (16·J), split by {@link splitScale} into `split`
 * @param center `vertex` (DQS, SBS, LMS) or `cor` (the mesh's centers of rotation)
 * @param shortcuts take the shortcuts (default true); false: the per-vertex path for every vertex
 * @param rigidVertex the method's rigid phase for one vertex, where it has one (see
 *   {@link deformStretchedVertices})
 */
export function deformTwoPhase(
  mesh: SkinnedMesh,
  skinning: Float64Array,
  split: ScaleSplit,
  out: DeformTarget,
  rigid: Deformer,
  center: 'vertex' | 'cor',
  shortcuts = true,
  rigidVertex?: RigidVertexDeformer,
): void {
  const s = shortcuts ? uniformScale(split) : 0;
  if (s) return uniformlyScaled(mesh, skinning, s, out, rigid);
  const some = shortcuts && split.rigidJoints.includes(1);
  if (some) rigid(mesh, skinning, out);
  deformStretchedVertices(mesh, skinning, split, out, rigid, center, some ? 'stretched' : 'all', rigidVertex);
}

/**
 * The per-vertex two-phase path (see the module notes) for `vertices`: `all`, or only those
 * bound to a joint whose matrix stretches (`split.rigidJoints` 0) — the others are left as they
 * are in `out` (the caller has them from the rigid method).
 * Each vertex with several joints becomes a vertex `K̄ (v − c)` of a scratch mesh whose joints are
 * its own transforms `[R_j | M_j(c) − c]` (with the split's rotations); `rigid` runs on batches of
 * up to 2,048 such vertices, then c is added back. With `rigidVertex` (DQS, CoR), the method's
 * rigid phase runs on each vertex directly, without the batch (the same numbers bit for bit; the
 * JavaScript DQS of rpm-avatar's clip frames 1.86 → 1.41 ms). Allocates only per call.
 * @param skinning the original skinning matrices (16·J), split by {@link splitScale} into `split`
 * @param out posed positions (3·n), normals (3·n), tangents (4·n): the chosen vertices written
 * @param rigid a deformer for rigid skinning matrices, the second phase
 * @param center `vertex` (DQS, SBS, LMS) or `cor` (the mesh's centers of rotation)
 * @param vertices `all`, or `stretched`: those bound to a joint whose `split.rigidJoints` is 0
 *   (and those with no weight when joint 0 stretches: they follow joint 0)
 * @param rigidVertex the method's rigid phase for one vertex, in place of `rigid`'s batches
 *   (`rigid` then unused)
 */
export function deformStretchedVertices(
  mesh: SkinnedMesh,
  skinning: Float64Array,
  split: ScaleSplit,
  out: DeformTarget,
  rigid: RigidDeformer,
  center: 'vertex' | 'cor',
  vertices: 'all' | 'stretched',
  rigidVertex?: RigidVertexDeformer,
): void {
  const { positions: P, normals: N, tangents: T, joints: MJ, weights: MW, influences: K } = mesh;
  const C = center === 'cor' ? mesh.centersOfRotation! : P;
  const S = skinning;
  const { rotations: RQ, rotationMatrices: RM, stretch, rigidJoints } = split;
  const n = P.length / 3;
  // The vertices to do (a vertex with no weight follows joint 0), and the batch's size for them.
  const chosen: number[] = [];
  for (let i = 0; i < n; i++) {
    if (vertices === 'stretched') {
      let stretched = false;
      for (let k = K * i; k < K * i + K && !stretched; k++) stretched = !rigidJoints[MJ[k]] && MW[k] !== 0;
      // A vertex with no weight follows joint 0.
      if (!stretched && (rigidJoints[0] || MW.subarray(K * i, K * i + K).some((w) => w !== 0))) continue;
    }
    chosen.push(i);
  }
  const B = rigidVertex ? 0 : Math.min(BATCH, chosen.length);
  // The scratch mesh and output hold 64-bit floats (the deformers only index them): the rigid
  // phase returns M(c) − c + …, to which c is added back, and in 32 bits that cancellation costs
  // up to 1e-7 of |c| — much more than the result's precision on a rig scaled by 0.01. Slot a of
  // batch vertex b is joint K·b + a, whose transform is local[16(K·b + a) …].
  const f64 = (n: number) => new Float64Array(n) as unknown as Float32Array;
  const batch: SkinnedMesh = {
    positions: f64(3 * B),
    normals: N ? f64(3 * B) : undefined,
    tangents: T ? f64(4 * B) : undefined,
    triangles: new Uint32Array(0),
    influences: K,
    joints: identityIndices(K * B),
    weights: f64(K * B),
    centersOfRotation: f64(3 * B),
  };
  const target = (count: number): DeformTarget => ({
    positions: f64(3 * count),
    normals: N && out.normals ? f64(3 * count) : undefined,
    tangents: T && out.tangents ? f64(4 * count) : undefined,
  });
  const batchOut = target(B);
  const local = new Float64Array(16 * K * B);
  const rotations = new Float64Array(4 * K * B);
  const vertexOf = new Int32Array(B);
  const centers = new Float64Array(3 * B);
  let b = 0;
  // Vertex i of `out` from vertex q of the rigid phase's output, c (at centers[3q]) added back.
  const putBack = (moved: DeformTarget, q: number, i: number, at: Float64Array) => {
    for (let e = 0; e < 3; e++) out.positions[3 * i + e] = moved.positions[3 * q + e] + at[3 * q + e];
    if (moved.normals) for (let e = 0; e < 3; e++) out.normals![3 * i + e] = moved.normals[3 * q + e];
    if (moved.tangents) for (let e = 0; e < 4; e++) out.tangents![4 * i + e] = moved.tangents[4 * q + e];
  };
  // The batch's first b vertices through the rigid phase, then back by c into `out`.
  const flush = () => {
    const view = <A extends Float32Array | undefined>(a: A, width: number) => a?.subarray(0, width * b) as A;
    rigid(
      {
        ...batch,
        positions: view(batch.positions, 3),
        normals: view(batch.normals, 3),
        tangents: view(batch.tangents, 4),
        centersOfRotation: view(batch.centersOfRotation, 3),
        joints: batch.joints.subarray(0, K * b),
        weights: view(batch.weights, K),
      },
      local.subarray(0, 16 * K * b),
      { positions: view(batchOut.positions, 3), normals: view(batchOut.normals, 3), tangents: view(batchOut.tangents, 4) },
      rotations.subarray(0, 4 * K * b),
    );
    for (let q = 0; q < b; q++) putBack(batchOut, q, vertexOf[q], centers);
    b = 0;
  };
  // Phase one's input, the vertex itself, and its stretch as a 4×4 matrix; its output, which is
  // the rigid phase's input vertex (`stretchedMesh`) on the per-vertex path.
  const one: SkinnedMesh = { ...batch, positions: f64(3), normals: N ? f64(3) : undefined, tangents: T ? f64(4) : undefined };
  const stretched: DeformTarget = { positions: f64(3), normals: N ? f64(3) : undefined, tangents: T ? f64(4) : undefined };
  const stretchedMesh: SkinnedMesh = { ...one, ...stretched };
  const stretch16 = new Float64Array(16);
  stretch16[15] = 1;
  const js = new Int32Array(K);
  const ws = new Float64Array(K);
  const A = new Float64Array(9);
  // The per-vertex path's transforms (rotation, translation, weight per influence), its output, and c.
  const vq = new Float64Array(4 * K);
  const vt = new Float64Array(3 * K);
  const vw = new Float64Array(K);
  const moved = target(1);
  const vc = new Float64Array(3);
  for (const i of chosen) {
    let u = 0;
    for (let k = K * i; k < K * i + K; k++) {
      if (MW[k] === 0) continue;
      let a = 0;
      while (a < u && js[a] !== MJ[k]) a++;
      if (a === u) {
        js[u] = MJ[k];
        ws[u++] = MW[k];
      } else ws[a] += MW[k];
    }
    // Joints in increasing order: the batch vertex's pivot (largest weight, ties to the first
    // slot) is then the vertex's own (ties to the smaller joint index, as in every corskin
    // kernel; a joint repeated in a vertex's slots is summed here, compared slot by slot there).
    for (let a = 1; a < u; a++)
      for (let c = a; c > 0 && js[c - 1] > js[c]; c--) {
        const j = js[c];
        const w = ws[c];
        js[c] = js[c - 1];
        ws[c] = ws[c - 1];
        js[c - 1] = j;
        ws[c - 1] = w;
      }
    if (u <= 1) {
      writeAffine(mesh, out, i, S, (u ? js[0] : 0) << 4);
      continue;
    }
    // Weights renormalised to sum 1: c, added back after the rigid phase, must cancel exactly
    // (files keep sums within glTF's 2e-3, which times |c| would shift the vertex).
    let sum = 0;
    for (let a = 0; a < u; a++) sum += ws[a];
    const cx = C[3 * i], cy = C[3 * i + 1], cz = C[3 * i + 2]; // prettier-ignore
    A.fill(0);
    for (let a = 0; a < (rigidVertex ? u : K); a++) {
      // Batch slots past the vertex's influences: weight 0, the identity.
      const o = 16 * (K * b + a);
      const g = 4 * (K * b + a);
      if (a >= u) {
        batch.weights[K * b + a] = 0;
        local.fill(0, o, o + 16);
        local[o] = local[o + 5] = local[o + 10] = local[o + 15] = 1;
        rotations.fill(0, g, g + 3);
        rotations[g + 3] = 1;
        continue;
      }
      const w = ws[a] / sum;
      const j = js[a];
      for (let e = 0; e < 9; e++) A[e] += w * stretch[9 * j + e];
      // [R_j | M_j(c) − c], the rotation's quaternion with w ≥ 0, as the deformers' own (LMS
      // takes its logarithms from it).
      const sign = RQ[4 * j + 3] < 0 ? -1 : 1;
      const m = 16 * j;
      const tx = S[m] * cx + S[m + 4] * cy + S[m + 8] * cz + S[m + 12] - cx;
      const ty = S[m + 1] * cx + S[m + 5] * cy + S[m + 9] * cz + S[m + 13] - cy;
      const tz = S[m + 2] * cx + S[m + 6] * cy + S[m + 10] * cz + S[m + 14] - cz;
      if (rigidVertex) {
        vw[a] = w;
        for (let e = 0; e < 4; e++) vq[4 * a + e] = sign * RQ[4 * j + e];
        vt[3 * a] = tx;
        vt[3 * a + 1] = ty;
        vt[3 * a + 2] = tz;
        continue;
      }
      batch.weights[K * b + a] = w;
      for (let e = 0; e < 4; e++) rotations[g + e] = sign * RQ[4 * j + e];
      const R = 9 * j;
      local[o] = RM[R]; local[o + 1] = RM[R + 1]; local[o + 2] = RM[R + 2]; local[o + 3] = 0; // prettier-ignore
      local[o + 4] = RM[R + 3]; local[o + 5] = RM[R + 4]; local[o + 6] = RM[R + 5]; local[o + 7] = 0; // prettier-ignore
      local[o + 8] = RM[R + 6]; local[o + 9] = RM[R + 7]; local[o + 10] = RM[R + 8]; local[o + 11] = 0; // prettier-ignore
      local[o + 12] = tx; local[o + 13] = ty; local[o + 14] = tz; local[o + 15] = 1; // prettier-ignore
    }
    // Phase one: the vertex by the affine map [K̄ | −K̄c] (normal by K̄'s cofactor, tangent by K̄).
    const p = 3 * i;
    for (let e = 0; e < 3; e++) one.positions[e] = P[p + e];
    if (N) for (let e = 0; e < 3; e++) one.normals![e] = N[p + e];
    if (T) for (let e = 0; e < 4; e++) one.tangents![e] = T[4 * i + e];
    for (let c = 0; c < 3; c++) for (let r = 0; r < 3; r++) stretch16[4 * c + r] = A[3 * c + r];
    stretch16[12] = -(A[0] * cx + A[3] * cy + A[6] * cz);
    stretch16[13] = -(A[1] * cx + A[4] * cy + A[7] * cz);
    stretch16[14] = -(A[2] * cx + A[5] * cy + A[8] * cz);
    writeAffine(one, stretched, 0, stretch16, 0);
    if (rigidVertex) {
      // Phase two for this vertex alone.
      rigidVertex(stretchedMesh, moved, vq, vt, vw, u);
      vc[0] = cx;
      vc[1] = cy;
      vc[2] = cz;
      putBack(moved, 0, i, vc);
      continue;
    }
    for (let e = 0; e < 3; e++) batch.positions[3 * b + e] = stretched.positions[e];
    if (N) for (let e = 0; e < 3; e++) batch.normals![3 * b + e] = stretched.normals![e];
    if (T) for (let e = 0; e < 4; e++) batch.tangents![4 * b + e] = stretched.tangents![e];
    centers[3 * b] = cx;
    centers[3 * b + 1] = cy;
    centers[3 * b + 2] = cz;
    vertexOf[b++] = i;
    if (b === B) flush();
  }
  if (b) flush();
}

/** Vertices per batch of the per-vertex two-phase path's rigid phase. */
const BATCH = 2048;

/** 0, 1, …, count − 1 (a loop: `Uint32Array.from` with a map function takes V8's slow generic path). */
function identityIndices(count: number): Uint32Array {
  const out = new Uint32Array(count);
  for (let k = 0; k < count; k++) out[k] = k;
  return out;
}
