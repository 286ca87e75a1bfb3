/**
 * Smooth skinning decomposition with rigid bones (Binh Huy Le and Zhigang Deng, "Smooth Skinning
 * Decomposition with Rigid Bones", ACM TOG 31(6), SIGGRAPH Asia 2012), specialised to helper
 * joints: the skeleton's own joints keep their animation (fixed transforms), and a few rigid
 * helper joints are added so that linear blend skinning reproduces a target deformation (the
 * posed meshes of another skinning method) over sampled poses.
 *
 * The alternation of the paper (Sec. 3):
 * - **bone update** (Sec. 3.3, `ssdr-helpers.ts`): weights fixed, each helper's rigid transform per sample is the
 *   weighted Procrustes fit of the residual its vertices leave — minimise
 *   Σ_i ‖q_i − w_ih (R p_i + T)‖², q_i the target less the other influences' contributions —
 *   closed form: the Kabsch rotation of the w²-weighted cross-covariance, then T;
 * - **weight update** (Sec. 3.2): transforms fixed, each active vertex's weights over its
 *   candidates (its joints and the helpers of its region) by non-negative least squares with the
 *   affinity constraint Σ w = 1 as a heavily weighted row (`ssdr-weights.ts`).
 *
 * All positions are in bind space (in) and posed space (targets), the asset's units.
 *
 * @module
 */
import { mat4LinearDeterminant } from '../core/math.js';

/** The data of a decomposition: T samples of n vertices. */
export interface SsdrProblem {
  /** Vertices n. */
  n: number;
  /** Bind-space positions at sample t (the same array for every t without morph targets), length 3·n each. */
  rest: Float32Array[];
  /** Target posed positions at sample t, length 3·n each. */
  targets: Float32Array[];
  /** The fixed joints' skinning matrices at sample t, 4×4 column-major, length 16·J each. */
  fixed: Float64Array[];
  /**
   * The fixed joint each helper hangs from: at each sample the helper is fitted with that joint's
   * skinning matrix's signed uniform scale ({@link jointScale}: a rig whose armature scale is not
   * in its inverse bind matrices, a mirrored rig), so that its transform relative to the joint
   * stays a rotation of unit scale. Absent: every helper is a rotation.
   */
  helperJoints?: readonly number[];
  /**
   * Where given, each helper takes its weight only from the joint it hangs from
   * ({@link helperJoints}): the weight update holds, per vertex and fixed joint r, the joint's
   * weight plus its helpers' at r's weight here (`weights` over `joints`, K slots per vertex as
   * the model's), so that where the helpers rest on their joints (a pose no clip holds) the
   * vertex plays these weights' linear blend skinning (see `updateVertexWeights`).
   */
  anchor?: { joints: ArrayLike<number>; weights: ArrayLike<number> };
  /**
   * Where given (every sample with the same rest positions; the bone update ignores it
   * otherwise), the fit matches the normals as an
   * engine skins them too ({@link SsdrNormals}): each vertex's squared error at a sample adds
   * λ²‖Σ_k w_k L_k n − m‖² to its positions' (L_k the linear part of influence k's matrix).
   */
  normals?: SsdrNormals;
}

/**
 * The normals a decomposition matches besides the positions: a player skins a vertex's normal n
 * by its blended matrix's linear part (Σ_k w_k L_k) n — three.js, Babylon.js and Blender alike —
 * so a helper that places its vertices right but turns about them (free where they lie near a
 * line or a point) turns their normals, which positions alone never see. With the normals in the
 * least squares, both the bone update (their term in the cross-covariance) and the weight update
 * (their rows in the normal equations) hold them.
 */
export interface SsdrNormals {
  /** Bind-space unit normals, 3·n. */
  rest: Float32Array;
  /**
   * The target normals at sample t, 3·n each: the method's posed unit normals times the scale the
   * vertex's heaviest joint carries at t (|det L|^⅓; 1 on a rig whose skinning matrices are rigid).
   */
  targets: Float32Array[];
  /** λ_i² per vertex (n), posed units²: vertex i's normal's squared error weighs as a position's of λ_i² times it. */
  weights: Float32Array;
}

/**
 * Joint `j`'s skinning matrix's signed uniform scale in `fixed` (16·J, column-major): the cube
 * root of its linear part's determinant (negative where it mirrors; 1 where it is 0 or not finite).
 */
export function jointScale(fixed: Float64Array, j: number): number {
  const s = Math.cbrt(mat4LinearDeterminant(fixed, j << 4));
  return Number.isFinite(s) && s !== 0 ? s : 1;
}

/** The unknowns: helper transforms and the weights. */
export interface SsdrModel {
  /** Helpers H. */
  helpers: number;
  /** Each helper's skinning matrix at sample t (rigid, bind → posed), 4×4 column-major, length 16·H each. */
  transforms: Float64Array[];
  /** Influences per vertex K. */
  influences: number;
  /** Influence indices: < J a fixed joint, J + h helper h; length K·n. */
  joints: Uint32Array;
  /** Weights, length K·n, summing to 1 per vertex. */
  weights: Float32Array;
}

/**
 * Squared error of the model at vertex i summed over the samples (posed units²).
 */
export function vertexError(problem: SsdrProblem, model: SsdrModel, i: number): number {
  return vertexErrors(problem, model, i).sum;
}

/**
 * Squared error of the model at vertex i over the samples (posed units²): summed, and the
 * largest at one sample.
 * @param perSample where given, receives the squared error at sample t at `perSample[t·n + i]`
 *   (n: `problem.n`; T·n long)
 */
export function vertexErrors(
  problem: SsdrProblem,
  model: SsdrModel,
  i: number,
  perSample?: Float32Array,
): { sum: number; max: number } {
  const [sum, max] = [new Float64Array(1), new Float64Array(1)];
  verticesErrors(problem, model, [i], sum, max, perSample);
  return { sum: sum[0], max: max[0] };
}

/**
 * {@link vertexErrors} of many vertices at once, sample by sample (each sample's arrays read in
 * order, where one vertex at a time would stride across them all: CesiumMan to Ybot's samples
 * are hundreds of MB).
 * @param vertices the vertices (indices into `problem.n`)
 * @param sum receives vertex `vertices[a]`'s squared error summed over the samples at `sum[a]`
 * @param max receives its largest at one sample at `max[a]`
 * @param perSample where given, receives the squared error at sample t of vertex i at
 *   `perSample[t·n + i]` (n: `problem.n`; T·n long)
 */
export function verticesErrors(
  problem: SsdrProblem,
  model: SsdrModel,
  vertices: ArrayLike<number>,
  sum: Float64Array,
  max: Float64Array,
  perSample?: Float32Array,
): void {
  const K = model.influences;
  const J = problem.fixed[0].length >> 4;
  const { joints, weights } = model;
  const { normals } = problem;
  const count = vertices.length;
  sum.fill(0, 0, count);
  max.fill(0, 0, count);
  for (let t = 0; t < problem.targets.length; t++) {
    const rest = problem.rest[t];
    const F = problem.fixed[t];
    const X = model.transforms[t];
    const Y = problem.targets[t];
    const row = t * problem.n;
    for (let a = 0; a < count; a++) {
      const i = vertices[a];
      const x0 = rest[3 * i], x1 = rest[3 * i + 1], x2 = rest[3 * i + 2]; // prettier-ignore
      let x = 0, y = 0, z = 0; // prettier-ignore
      for (let k = K * i; k < K * i + K; k++) {
        const w = weights[k];
        if (w === 0) continue;
        const j = joints[k];
        const M = j < J ? F : X;
        const o = j < J ? j << 4 : (j - J) << 4;
        x += w * (M[o] * x0 + M[o + 4] * x1 + M[o + 8] * x2 + M[o + 12]);
        y += w * (M[o + 1] * x0 + M[o + 5] * x1 + M[o + 9] * x2 + M[o + 13]);
        z += w * (M[o + 2] * x0 + M[o + 6] * x1 + M[o + 10] * x2 + M[o + 14]);
      }
      let d = (x - Y[3 * i]) ** 2 + (y - Y[3 * i + 1]) ** 2 + (z - Y[3 * i + 2]) ** 2;
      if (normals)
        d += normals.weights[i] * normalError(normals.rest, normals.targets[t], F, X, J, K, joints, weights, i);
      sum[a] += d;
      if (d > max[a]) max[a] = d;
      if (perSample) perSample[row + i] = d;
    }
  }
}

/**
 * ‖Σ_k w_k L_k n_i − m_i‖² at one sample (see {@link SsdrNormals}): n the bind normals, m the
 * target normals at the sample, F and X the fixed joints' and the helpers' matrices there.
 */
function normalError(
  n: Float32Array,
  m: Float32Array,
  F: Float64Array,
  X: Float64Array,
  J: number,
  K: number,
  joints: Uint32Array,
  weights: Float32Array,
  i: number,
): number {
  const n0 = n[3 * i], n1 = n[3 * i + 1], n2 = n[3 * i + 2]; // prettier-ignore
  let x = -m[3 * i], y = -m[3 * i + 1], z = -m[3 * i + 2]; // prettier-ignore
  for (let k = K * i; k < K * i + K; k++) {
    const w = weights[k];
    if (w === 0) continue;
    const j = joints[k];
    const M = j < J ? F : X;
    const o = j < J ? j << 4 : (j - J) << 4;
    x += w * (M[o] * n0 + M[o + 4] * n1 + M[o + 8] * n2);
    y += w * (M[o + 1] * n0 + M[o + 5] * n1 + M[o + 9] * n2);
    z += w * (M[o + 2] * n0 + M[o + 6] * n1 + M[o + 10] * n2);
  }
  return x * x + y * y + z * z;
}
