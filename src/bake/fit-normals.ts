/**
 * The normals the helper fit matches besides the positions (`SsdrProblem.normals`): a player
 * skins a vertex's normal by its blended matrix's linear part, so a helper that places its
 * vertices right while turning about them — free to, where they lie near a line or a point —
 * turns their normals, which a fit of positions alone (Le & Deng 2012, "Smooth Skinning
 * Decomposition with Rigid Bones", ACM TOG 31(6), SIGGRAPH Asia 2012) never sees. With λ²/s² ‖Σ w L n
 * − s·m‖² (s the joint's scale) added to each vertex's squared error at each sample, the bone update's rotation and the
 * weight update's weights hold the method's normals too, and fewer vertices are left for the
 * normals' guard (`normal-guard.ts`) to give back.
 *
 * @module
 */
import type { SkinnedMesh } from '../core/mesh.js';
import type { MethodSamples } from './sampling.js';
import { jointScale } from './ssdr.js';

/**
 * λ ÷ the posed mesh's bounding-box diagonal: a normal off by θ radians weighs in the fit about
 * as a position off by θ·λ.
 */
export const NORMAL_FIT_LENGTH = 0.002;

/**
 * How far (radians) the method's normal may turn from plain LBS's and keep its full weight in the
 * fit: 30°. A vertex whose method normal turns farther, at some sample, by θ is weighed
 * (30°/θ)²: a method's normals can be far from any rigid motion's — Direct Delta Mush's are its
 * per-vertex polar factor's, which on the Fox and ShibaInu turn up to 171° from LBS's (their
 * DQS at most 9° and 34°) — and matching them there costs the positions.
 */
export const NORMAL_FIT_TRUST = (30 * Math.PI) / 180;

/** The fit's target normals and their weights ({@link fitTargetNormals}). */
export interface FitTargetNormals {
  /** Bind-space unit normals (3 per mesh vertex). */
  rest: Float32Array;
  /** At sample t, 3 per mesh vertex (one array, overwritten at each call): see {@link fitTargetNormals}. */
  targets: (t: number) => Float32Array;
  /** λ_i²/s_i² per mesh vertex (posed units² ÷ its joint's scale²); complete once `targets` has been read at every sample. */
  weights: Float32Array;
}

/**
 * The fit's target normals (`SsdrProblem.normals`): at sample t, each listed vertex's normal as
 * the method poses it (unit), times the scale its heaviest joint's skinning matrix carries there
 * (|det L|^⅓; 1 on a rig whose skinning matrices are rigid), so that the target is what a
 * player's Σ w L n would be at that scale; each vertex weighed λ²/s² (λ = {@link NORMAL_FIT_LENGTH}
 * · `diagonal`, s that scale: at its smallest weight over the samples), so that an angle weighs
 * alike whatever the rig's scale, less where the method's normal turns from plain LBS's by more than
 * {@link NORMAL_FIT_TRUST}, and 0 (target 0) where either normal is zero or not finite at some sample.
 * @param mesh the skin (bind-space unit normals; its own influences are plain LBS's)
 * @param samples the method and LBS sampled (`samples.fixed[t]`: the joints' skinning matrices)
 * @param methodNormals the method's posed normals at sample t (3 per mesh vertex); read once per t
 * @param vertices the vertices whose targets and weights are written (the others' stay 0)
 * @param diagonal the posed mesh's bounding-box diagonal (asset units)
 * @throws RangeError when the mesh has no normals
 */
export function fitTargetNormals(
  mesh: SkinnedMesh,
  samples: MethodSamples,
  methodNormals: (t: number) => Float32Array,
  vertices: readonly number[],
  diagonal: number,
): FitTargetNormals {
  if (!mesh.normals) throw new RangeError('fitTargetNormals: the mesh has no normals');
  // A bind normal that is not finite is matched as 0 (its vertex weighs 0 below): 0 · NaN would
  // still be NaN in the fit's sums.
  const rest = mesh.normals.every(Number.isFinite)
    ? mesh.normals
    : mesh.normals.map((v) => (Number.isFinite(v) ? v : 0));
  const K = mesh.influences;
  const heaviest = vertices.map((i) => {
    let best = K * i;
    for (let k = K * i + 1; k < K * i + K; k++) if (mesh.weights[k] > mesh.weights[best]) best = k;
    return mesh.joints[best];
  });
  const lambda2 = (NORMAL_FIT_LENGTH * diagonal) ** 2;
  const J = samples.fixed[0].length >> 4;
  const scale = new Float64Array(J);
  const scales = (F: Float64Array) => {
    for (let j = 0; j < J; j++) scale[j] = Math.abs(jointScale(F, j));
  };
  // A normal's residual ‖Σ w L n − s m‖ is s times its angle (s its joint's scale), the positions'
  // are asset units: λ²/s² weighs an angle alike at any scale of the rig (a root node scaled 0.01
  // or 100 above the skeleton made the normals weigh 10⁻⁴ or 10⁴ times as much).
  const weights = new Float32Array(mesh.positions.length / 3);
  scales(samples.fixed[0]);
  vertices.forEach((i, a) => (weights[i] = lambda2 / scale[heaviest[a]] ** 2));
  const out = new Float32Array(mesh.positions.length);
  const trusted = Math.cos(NORMAL_FIT_TRUST);
  const targets = (t: number) => {
    const normals = methodNormals(t);
    const F = samples.fixed[t];
    scales(F);
    vertices.forEach((i, a) => {
      const s = scale[heaviest[a]];
      weights[i] = Math.min(weights[i], lambda2 / (s * s));
      for (let c = 0; c < 3; c++) out[3 * i + c] = s * normals[3 * i + c];
      // Plain LBS's normal, Σ w L n, and the method's angle from it.
      let x = 0, y = 0, z = 0; // prettier-ignore
      const n0 = rest[3 * i], n1 = rest[3 * i + 1], n2 = rest[3 * i + 2]; // prettier-ignore
      for (let k = K * i; k < K * i + K; k++) {
        const w = mesh.weights[k];
        if (!(w > 0)) continue;
        const o = 16 * mesh.joints[k];
        x += w * (F[o] * n0 + F[o + 4] * n1 + F[o + 8] * n2);
        y += w * (F[o + 1] * n0 + F[o + 5] * n1 + F[o + 9] * n2);
        z += w * (F[o + 2] * n0 + F[o + 6] * n1 + F[o + 10] * n2);
      }
      const m0 = normals[3 * i], m1 = normals[3 * i + 1], m2 = normals[3 * i + 2]; // prettier-ignore
      const cos = (x * m0 + y * m1 + z * m2) / Math.sqrt((x * x + y * y + z * z) * (m0 * m0 + m1 * m1 + m2 * m2));
      if (!Number.isFinite(cos) || !(s > 0 && Number.isFinite(s))) {
        // A zero or degenerate normal (the method's or plain LBS's) has no direction to match.
        weights[i] = 0;
        out.fill(0, 3 * i, 3 * i + 3);
      } else if (cos < trusted) {
        const angle = Math.acos(Math.max(-1, cos));
        weights[i] = Math.min(weights[i], (lambda2 / (s * s)) * (NORMAL_FIT_TRUST / angle) ** 2);
      }
    });
    return out;
  };
  return { rest, targets, weights };
}
