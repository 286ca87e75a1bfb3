/**
 * The corrections of the morph bake (`io/morph-bake.ts`): per vertex, the bind-space displacement
 * that the file's own linear blend skinning turns into a deformer's result, and the bounds that
 * say how far a displacement moves a vertex once posed.
 *
 * @module
 */
import { mat4InvertBlended } from '../core/math.js';

/**
 * Per vertex, over the samples so far: `gain`, the largest bound on |M₃ d| / |d| (M₃ the linear
 * part of its blended skinning matrix: Σ w_k ‖L_k‖₂, L_k the joints' linear parts), and per
 * corrected direction `length`, its shortest length before skinning: a bind-space displacement
 * within limit / gain (positions) or limit · length (directions) stays within the limit at every
 * sample.
 */
export interface CorrectionBounds {
  gain: Float32Array;
  length: Float32Array[];
}

/**
 * Per vertex, the bind-space d with LBS(x + d) = y: x + d = M⁻¹ y, M the vertex's blended skinning
 * matrix (Σ w_k S_k); and for each direction (normals, tangents' x, y, z) the displacement e with
 * M (m + e) ∥ ñ: m + e = |m| M⁻¹ñ / |M⁻¹ñ| (m the summed direction before skinning, ñ the posed
 * one; engines skin normals and tangents by the blended matrix and normalise). Where the linear
 * part is singular (|det| ≤ 1e-12 of its scale³) all are 0. A d with |M₃ d| ≤ `limits.position`
 * and an e with |e| ≤ `limits.direction` · |m| are flagged `under` (0 in one target per sample);
 * `bounds` grows to cover this sample.
 * @param x the vertices before skinning, 3·n (bind space, asset units)
 * @param joints influences' joints, K per vertex
 * @param weights influences' weights, K per vertex (as the engine plays them: summing to 1)
 * @param S skinning matrices, 16·J (column-major, bind → posed space)
 * @param y the deformer's posed vertices, 3·n
 * @param directions per corrected direction: `rest` (before skinning) and `posed`, `stride` per vertex
 * @param limits position (posed units) and direction (relative) tolerances
 * @param bounds grown in place
 * @returns `arrays`: the positions (3·n) and one displacement (3·n) per direction; `under`: per
 *   array, n flags
 */
export function correction(
  x: ArrayLike<number>,
  joints: ArrayLike<number>,
  weights: ArrayLike<number>,
  K: number,
  S: Float64Array,
  y: ArrayLike<number>,
  directions: readonly { rest: Float32Array; posed: Float32Array; stride: number }[],
  limits: { position: number; direction: number },
  bounds: CorrectionBounds,
): { arrays: Float32Array[]; under: Uint8Array[] } {
  const n = x.length / 3;
  const d = new Float32Array(3 * n);
  const e = directions.map(() => new Float32Array(3 * n));
  const under = [d, ...e].map(() => new Uint8Array(n));
  const M = new Float64Array(16);
  const inverse = new Float64Array(16);
  const norms = jointNorms(S);
  for (let i = 0; i < n; i++) {
    M.fill(0);
    let gain = 0;
    for (let k = K * i; k < K * i + K; k++) {
      const w = weights[k];
      if (!(w > 0)) continue;
      for (let c = 0; c < 16; c++) M[c] += w * S[16 * joints[k] + c];
      gain += w * norms[joints[k]];
    }
    bounds.gain[i] = Math.max(bounds.gain[i], gain);
    directions.forEach(({ rest: m, stride }, slot) => {
      const o = stride * i;
      bounds.length[slot][i] = Math.min(bounds.length[slot][i], Math.hypot(m[o], m[o + 1], m[o + 2]));
    });
    let scale = 0;
    for (let c = 0; c < 3; c++) for (let r = 0; r < 3; r++) scale = Math.max(scale, Math.abs(M[4 * c + r]));
    if (!mat4InvertBlended(inverse, M, 1e-12 * scale ** 3)) {
      under.forEach((u) => (u[i] = 1));
      continue;
    }
    const [y0, y1, y2] = [y[3 * i], y[3 * i + 1], y[3 * i + 2]];
    for (let r = 0; r < 3; r++)
      d[3 * i + r] = inverse[r] * y0 + inverse[4 + r] * y1 + inverse[8 + r] * y2 + inverse[12 + r] - x[3 * i + r];
    const [d0, d1, d2] = [d[3 * i], d[3 * i + 1], d[3 * i + 2]];
    const moved = Math.hypot(M[0] * d0 + M[4] * d1 + M[8] * d2, M[1] * d0 + M[5] * d1 + M[9] * d2, M[2] * d0 + M[6] * d1 + M[10] * d2); // prettier-ignore
    if (moved <= limits.position) under[0][i] = 1;
    directions.forEach(({ rest: m, posed, stride }, slot) => {
      const o = stride * i;
      const [n0, n1, n2] = [posed[o], posed[o + 1], posed[o + 2]];
      const u = [0, 1, 2].map((r) => inverse[r] * n0 + inverse[4 + r] * n1 + inverse[8 + r] * n2);
      const lu = Math.hypot(u[0], u[1], u[2]);
      const lm = Math.hypot(m[o], m[o + 1], m[o + 2]);
      if (lu > 0) for (let r = 0; r < 3; r++) e[slot][3 * i + r] = (lm * u[r]) / lu - m[o + r];
      const ei = e[slot].subarray(3 * i, 3 * i + 3);
      if (Math.hypot(ei[0], ei[1], ei[2]) <= limits.direction * lm) under[slot + 1][i] = 1;
    });
  }
  return { arrays: [d, ...e], under };
}

/** Each joint's ‖L_j‖₂ (L_j the linear part of its skinning matrix), bounded above: √ of the largest eigenvalue of LᵀL by Gershgorin. */
function jointNorms(S: Float64Array): Float64Array {
  const J = S.length / 16;
  const out = new Float64Array(J);
  for (let j = 0; j < J; j++) {
    const o = 16 * j;
    // G = LᵀL: G_ab = column a · column b.
    const col = (a: number, b: number) => S[o + 4 * a] * S[o + 4 * b] + S[o + 4 * a + 1] * S[o + 4 * b + 1] + S[o + 4 * a + 2] * S[o + 4 * b + 2]; // prettier-ignore
    let largest = 0;
    for (let a = 0; a < 3; a++) {
      let row = 0;
      for (let b = 0; b < 3; b++) row += Math.abs(col(a, b));
      largest = Math.max(largest, row);
    }
    out[j] = Math.sqrt(largest);
  }
  return out;
}
