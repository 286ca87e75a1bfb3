/**
 * Never worse than plain LBS in the normals either: a helper fit (smooth skinning decomposition,
 * Le & Deng 2012) matches positions alone, and a helper whose vertices leave its turn free — a
 * few points, or points on a line, as a flat-shaded mesh repeats them — lands on any turn about
 * them that places them right. An engine skins a vertex's normal by the same weighted matrices
 * (three.js: the blended skinning matrix's linear part), so such a vertex's normal turns with the
 * helper: on the Fox (CoR, guarded at the samples alone) 5.5% of its (time, vertex) normals were
 * more than 15° from CoR's, up to 180°, where plain LBS's never were. Here a fitted vertex whose
 * normal, at some sample, is farther from the method's than plain LBS's by more than
 * {@link NORMAL_MARGIN} is given its own influences back. The margin is wide enough for the turns
 * a fit that follows the method leaves (CesiumMan's and the Soldier's bakes lose nothing to it;
 * at 10° CesiumMan's DQS bake gave back the vertices at its worst and kept 0.55 of LBS's max
 * distance rather than 0.15) and narrow enough for a free helper's (the Fox's CoR bake: no normal
 * more than 34° from CoR's, 0.10% of them past 15°, against 0.76% and up to 180° without).
 *
 * @module
 */
import type { SkinnedMesh } from '../core/mesh.js';
import type { FitData } from './fit.js';

/** How much farther (radians) than plain LBS's a vertex's normal may turn from the method's: 30°. */
export const NORMAL_MARGIN = (30 * Math.PI) / 180;

/**
 * The fitted vertices whose normal as the fit plays it is, at some sample, more than
 * {@link NORMAL_MARGIN} farther from the method's normal than plain LBS's is.
 * @param data the fit over every sample (`fit.ts`): its fixed joints' and helpers' skinning
 *   matrices (4×4 column-major, bind → posed space) and its active vertices' weights as played
 * @param active the fitted vertices (data.n, indices into `mesh`)
 * @param mesh the skin (bind-space unit normals 3·n; its own influences are plain LBS's)
 * @param methodNormals the method's posed normals at sample t, 3 per vertex of `active` (each
 *   any length: only its direction counts; the mesh at that sample's rest positions, under its
 *   joints' matrices); read once per sample, in order
 * @returns indices into `active`, ascending
 * @throws RangeError when `mesh` has no normals
 */
export function turnedNormals(
  data: FitData,
  active: readonly number[],
  mesh: SkinnedMesh,
  methodNormals: (t: number) => Float32Array,
): number[] {
  const normals = mesh.normals;
  if (!normals) throw new RangeError('turnedNormals: the mesh has no normals');
  const { n: nA, T, J, H, K, fixed, transforms, joints, weights } = data;
  const Km = mesh.influences;
  const excess = new Float64Array(nA);
  const bake = new Float64Array(3);
  const lbs = new Float64Array(3);
  // out += w · (linear part of the matrix at M[o..]) · normal i.
  const add = (out: Float64Array, w: number, M: Float64Array, o: number, i: number) => {
    const x = normals[3 * i], y = normals[3 * i + 1], z = normals[3 * i + 2]; // prettier-ignore
    for (let r = 0; r < 3; r++) out[r] += w * (M[o + r] * x + M[o + 4 + r] * y + M[o + 8 + r] * z);
  };
  for (let t = 0; t < T; t++) {
    const method = methodNormals(t);
    const F = 16 * J * t;
    for (let a = 0; a < nA; a++) {
      const i = active[a];
      bake.fill(0);
      lbs.fill(0);
      for (let k = K * a; k < K * a + K; k++) {
        const w = weights[k];
        if (!(w > 0)) continue;
        const j = joints[k];
        if (j < J) add(bake, w, fixed, F + 16 * j, i);
        else add(bake, w, transforms, 16 * H * t + 16 * (j - J), i);
      }
      for (let k = Km * i; k < Km * i + Km; k++) if (mesh.weights[k] > 0) add(lbs, mesh.weights[k], fixed, F + 16 * mesh.joints[k], i); // prettier-ignore
      const d = angle(bake, method, a) - angle(lbs, method, a);
      if (d > excess[a]) excess[a] = d;
    }
  }
  const out: number[] = [];
  for (let a = 0; a < nA; a++) if (excess[a] > NORMAL_MARGIN) out.push(a);
  return out;
}

/** The angle (radians) between `v` and the vector i of `normals` (0 where either is zero). */
function angle(v: Float64Array, normals: Float32Array, i: number): number {
  const x = normals[3 * i], y = normals[3 * i + 1], z = normals[3 * i + 2]; // prettier-ignore
  const dot = v[0] * x + v[1] * y + v[2] * z;
  const cross = Math.sqrt((v[1] * z - v[2] * y) ** 2 + (v[2] * x - v[0] * z) ** 2 + (v[0] * y - v[1] * x) ** 2);
  return dot === 0 && cross === 0 ? 0 : Math.atan2(cross, dot);
}
