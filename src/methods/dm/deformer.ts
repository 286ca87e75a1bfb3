/**
 * Delta Mush (Joe Mancewicz, Matt L. Derksen, Hans Rijpkema and Cyrus A. Wilson, "Delta Mush:
 * smoothing deformations while preserving detail", DigiPro 2014), the deformer Maya's deltaMush
 * and Blender's Corrective Smooth compute and Direct Delta Mush (Le & Lewis 2019) approximates
 * in closed form.
 *
 * Prepared once, at the bind pose: the welded surface, its smoothed rest shape S(v̄), and every
 * vertex's delta d = v̄ − S(v̄) in the frame F̄_c of each of its triangle corners c on S(v̄):
 * δ_c = F̄_cᵀ d (§3; the frames in `surface.ts`). Per frame: LBS of the welded vertices, the same
 * smoothing of that, the corner frames F_c of the result, and
 * v' = S(LBS(v)) + σ Σ_c ω_c F_c δ_c / Σ_c ω_c (§3, the "mush" then the deltas added back),
 * ω_c = π − (corner angle) on the posed surface.
 *
 * σ keeps the deltas at the posed scale (the paper assumes rigid joints): the vertex's blend of
 * its joints' signed uniform scales det(L_j)^{1/3} (L_j the linear part of M_j), 1 for rigid
 * joints. Its sign is the rig's handedness: under a mirrored rig the smoothed surface's normal
 * turns the other way round against the mirrored surface, so the normal part of δ is negated.
 * Normals and tangents turn by the blended frame change Σ_c ω_c F_c F̄_cᵀ (with that sign, a
 * reflection), renormalised.
 *
 * Vertices at one position (UV seams, split normals) move as one, with the influences of the
 * first; a vertex in no triangle moves by LBS.
 *
 * @module
 */
import { mat4LinearDeterminant } from '../../core/math.js';
import { CorskinError } from '../../core/errors.js';
import type { SkinnedMesh } from '../../core/mesh.js';
import { checkDeformArgs, type DeformTarget, type Deformer } from '../../deformers/contract.js';
import { writeTangent } from '../../deformers/vertex-writers.js';
import { resolveDeltaMushParameters, type DeltaMushParameters } from './parameters.js';
import { cornerFrames, mushSurface, smoothSurface, type MushSurface } from './surface.js';

/** What Delta Mush prepares at the bind pose (see the module notes), shared by its deformers. */
export interface DeltaMushRest {
  /** The resolved parameters. */
  parameters: Required<DeltaMushParameters>;
  /** The welded surface. */
  surface: MushSurface;
  /** Per welded vertex, the share of a smoothing pass it moves (0 pinned, 1 free), length m. */
  weight: Float64Array;
  /** Each corner's delta v̄ − S(v̄) in its rest frame (t, b, n), length 3·corners. */
  delta: Float64Array;
  /** Each corner's rest frame, columns t, b, n (column-major 3×3), length 9·corners. */
  restFrames: Float32Array;
}

/**
 * Delta Mush's bind-pose preparation of `mesh`: the welded surface, its smoothed rest shape and
 * every vertex's delta in each of its corners' frames (Mancewicz et al. 2014, §3).
 * @param mesh bind-space mesh (positions 3·n, triangles 3·t); its rest shape is the bind shape
 * @throws CorskinError naming the parameter when one is invalid (see {@link resolveDeltaMushParameters})
 */
export function prepareDeltaMushRest(mesh: SkinnedMesh, parameters: DeltaMushParameters = {}): DeltaMushRest {
  const resolved = resolveDeltaMushParameters(parameters);
  const { iterations, step, smoothing, pinBorders } = resolved;
  const surface = mushSurface(mesh.positions, mesh.triangles);
  const { representative, triangles } = surface;
  const m = representative.length;
  const corners = triangles.length;
  const weight = new Float64Array(m).fill(1);
  if (pinBorders) for (let w = 0; w < m; w++) if (surface.border[w]) weight[w] = 0;
  const x = new Float64Array(3 * m);
  const frames = new Float64Array(9 * corners);
  for (let w = 0; w < m; w++) for (let c = 0; c < 3; c++) x[3 * w + c] = mesh.positions[3 * representative[w] + c];
  smoothSurface(surface, x, iterations, step, smoothing === 'length-weighted', weight, new Float64Array(4 * m));
  cornerFrames(surface, x, frames, new Float64Array(corners));
  const delta = new Float64Array(3 * corners);
  for (let c = 0; c < corners; c++) {
    const v = 3 * triangles[c];
    const i = 3 * representative[triangles[c]];
    const P = mesh.positions;
    const dx = P[i] - x[v], dy = P[i + 1] - x[v + 1], dz = P[i + 2] - x[v + 2]; // prettier-ignore
    for (let a = 0; a < 3; a++) {
      const f = 9 * c + 3 * a;
      delta[3 * c + a] = frames[f] * dx + frames[f + 1] * dy + frames[f + 2] * dz;
    }
  }
  return { parameters: resolved, surface, weight, delta, restFrames: Float32Array.from(frames) };
}

/**
 * Prepares Delta Mush for `mesh` and returns its deformer (the shared {@link Deformer}
 * signature: skinning matrices 4×4 column-major, bind → posed space; outputs posed space, asset
 * units). The deformer keeps its scratch arrays: call it from one thread at a time.
 * O(n) memory (about 450 bytes per vertex on a closed mesh); per frame O(nK + iterations·edges).
 * @param mesh bind-space mesh (positions 3·n, triangles 3·t); its rest shape is the bind shape
 * @throws CorskinError naming the parameter when one is invalid (see {@link resolveDeltaMushParameters});
 *   the deformer throws as every deformer does when `out` is too small or the matrices' length
 *   is not a positive multiple of 16 (fewer matrices than the influences name is checked by
 *   `deform`, not per frame)
 */
export function createDeltaMushDeformer(mesh: SkinnedMesh, parameters: DeltaMushParameters = {}): Deformer {
  const rest = prepareDeltaMushRest(mesh, parameters);
  const { surface, weight, delta, restFrames } = rest;
  const { iterations, step, smoothing } = rest.parameters;
  const lengthWeighted = smoothing === 'length-weighted';
  const { representative, vertexOf, triangles } = surface;
  const m = representative.length;
  const corners = triangles.length;
  const x = new Float64Array(3 * m);
  const scratch = new Float64Array(4 * m);
  const frames = new Float64Array(9 * corners);
  const cornerWeight = new Float64Array(corners);
  const sigma = new Float64Array(m);
  const moved = new Float64Array(3 * m); // Σ weight · F δ per vertex
  const blend = new Float64Array(9 * m); // Σ weight · F F̄ᵀ per vertex (normals, tangents)
  const total = new Float64Array(m);
  let jointScale = new Float64Array(0);

  return (target: SkinnedMesh, skinning: Float64Array, out: DeformTarget): void => {
    checkDeformArgs(target, skinning, out);
    if (target.positions.length !== mesh.positions.length)
      throw new CorskinError(
        `this Delta Mush deformer was prepared for ${mesh.positions.length / 3} vertices, the mesh has ${target.positions.length / 3}`,
      );
    const J = skinning.length >> 4;
    if (jointScale.length !== J) jointScale = new Float64Array(J);
    const M = skinning;
    for (let j = 0; j < J; j++) {
      const o = j << 4;
      jointScale[j] = Math.cbrt(mat4LinearDeterminant(M, o));
    }
    // LBS of the welded vertices, and their blended signed scale σ
    const { positions: P, normals: N, tangents: TI, joints, weights, influences: K } = target;
    for (let w = 0; w < m; w++) {
      const i = representative[w];
      const px = P[3 * i], py = P[3 * i + 1], pz = P[3 * i + 2]; // prettier-ignore
      let X = 0, Y = 0, Z = 0, s = 0, sum = 0; // prettier-ignore
      for (let k = K * i; k < K * i + K; k++) {
        const wt = weights[k];
        if (wt === 0) continue;
        const o = joints[k] << 4;
        X += wt * (M[o] * px + M[o + 4] * py + M[o + 8] * pz + M[o + 12]);
        Y += wt * (M[o + 1] * px + M[o + 5] * py + M[o + 9] * pz + M[o + 13]);
        Z += wt * (M[o + 2] * px + M[o + 6] * py + M[o + 10] * pz + M[o + 14]);
        s += wt * jointScale[joints[k]];
        sum += wt;
      }
      x[3 * w] = X;
      x[3 * w + 1] = Y;
      x[3 * w + 2] = Z;
      sigma[w] = sum > 0 ? s / sum : 1;
    }
    smoothSurface(surface, x, iterations, step, lengthWeighted, weight, scratch);
    cornerFrames(surface, x, frames, cornerWeight);
    const turn = Boolean((N && out.normals) || (TI && out.tangents));
    moved.fill(0);
    total.fill(0);
    if (turn) blend.fill(0);
    for (let c = 0; c < corners; c++) {
      const cw = cornerWeight[c];
      if (cw === 0) continue;
      const w = triangles[c];
      // a mirrored rig turns the corner frames' n against the mirrored surface's (t and b follow it)
      const e = sigma[w] < 0 ? -1 : 1;
      const F = 9 * c;
      const d0 = delta[3 * c], d1 = delta[3 * c + 1], d2 = e * delta[3 * c + 2]; // prettier-ignore
      moved[3 * w] += cw * (frames[F] * d0 + frames[F + 3] * d1 + frames[F + 6] * d2);
      moved[3 * w + 1] += cw * (frames[F + 1] * d0 + frames[F + 4] * d1 + frames[F + 7] * d2);
      moved[3 * w + 2] += cw * (frames[F + 2] * d0 + frames[F + 5] * d1 + frames[F + 8] * d2);
      total[w] += cw;
      if (!turn) continue;
      // F diag(1, 1, e) F̄ᵀ, column-major
      for (let col = 0; col < 3; col++) {
        const r0 = cw * restFrames[F + col], r1 = cw * restFrames[F + 3 + col], r2 = cw * e * restFrames[F + 6 + col]; // prettier-ignore
        for (let row = 0; row < 3; row++)
          blend[9 * w + 3 * col + row] += frames[F + row] * r0 + frames[F + 3 + row] * r1 + frames[F + 6 + row] * r2;
      }
    }
    const OP = out.positions;
    const ON = N ? out.normals : undefined;
    const OT = TI ? out.tangents : undefined;
    const n = P.length / 3;
    for (let i = 0; i < n; i++) {
      const w = vertexOf[i];
      const tw = total[w];
      const k = tw > 0 ? Math.abs(sigma[w]) / tw : 0; // a vertex in no triangle: LBS
      OP[3 * i] = x[3 * w] + k * moved[3 * w];
      OP[3 * i + 1] = x[3 * w + 1] + k * moved[3 * w + 1];
      OP[3 * i + 2] = x[3 * w + 2] + k * moved[3 * w + 2];
      if (!turn) continue;
      const B = 9 * w;
      // no corner: the identity (the rest normal)
      const a00 = tw > 0 ? blend[B] : 1, a10 = blend[B + 1], a20 = blend[B + 2]; // prettier-ignore
      const a01 = blend[B + 3], a11 = tw > 0 ? blend[B + 4] : 1, a21 = blend[B + 5]; // prettier-ignore
      const a02 = blend[B + 6], a12 = blend[B + 7], a22 = tw > 0 ? blend[B + 8] : 1; // prettier-ignore
      if (N && ON) {
        const nx = N[3 * i], ny = N[3 * i + 1], nz = N[3 * i + 2]; // prettier-ignore
        const rx = a00 * nx + a01 * ny + a02 * nz, ry = a10 * nx + a11 * ny + a12 * nz, rz = a20 * nx + a21 * ny + a22 * nz; // prettier-ignore
        const l = Math.hypot(rx, ry, rz);
        if (l > 0) {
          ON[3 * i] = rx / l;
          ON[3 * i + 1] = ry / l;
          ON[3 * i + 2] = rz / l;
        } else ON.set(N.subarray(3 * i, 3 * i + 3), 3 * i);
      }
      if (TI && OT) writeTangent(TI, OT, i, a00, a10, a20, a01, a11, a21, a02, a12, a22);
    }
  };
}
