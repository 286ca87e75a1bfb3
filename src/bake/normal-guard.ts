/**
 * Never worse than plain LBS in the normals either: a helper fit (smooth skinning decomposition,
 * Le & Deng 2012) matches positions alone, and a helper whose vertices leave its turn free — a
 * few points, or points on a line, as a flat-shaded mesh repeats them — lands on any turn about
 * them that places them right. An engine skins a vertex's normal by the same weighted matrices
 * (three.js: the blended skinning matrix's linear part), so such a vertex's normal turns with the
 * helper: on the Fox (CoR, guarded at the samples alone) 5.5% of its (time, vertex) normals were
 * more than 15° from CoR's, up to 180°, where plain LBS's never were. Here a fitted vertex whose
 * normal, at some sample, is farther from the method's than plain LBS's by more than
 * {@link NORMAL_MARGIN} is given its own influences back — after trying other weights that hold
 * it ({@link repairTurnedNormals}), since given back whole it plays plain LBS's distance. The
 * margin is wide enough for the turns a fit that follows the method leaves (CesiumMan's and the
 * Soldier's bakes lose nothing to it; at 10° CesiumMan's DQS bake gave back the vertices at its
 * worst and kept 0.55 of LBS's max distance rather than 0.15) and narrow enough for a free
 * helper's (the Fox's CoR bake: no normal more than 34° from CoR's, 0.10% of them past 15°,
 * against 0.76% and up to 180° without).
 *
 * @module
 */
import type { SkinnedMesh } from '../core/mesh.js';
import { fitViews, type FitData } from './fit.js';
import { updateVertexWeights, weightScratch } from './ssdr-weights.js';
import { BLEND_SHARES, blendWeights } from './weight-blend.js';

/** How much farther (radians) than plain LBS's a vertex's normal may turn from the method's: 30°. */
export const NORMAL_MARGIN = (30 * Math.PI) / 180;

/** How much more a turned vertex's normal rows weigh in its repair's weight solves, tried in turn ({@link repairTurnedNormals}). */
const NORMAL_REPAIR_WEIGHTS = [16, 256, 4096];

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
  if (!mesh.normals) throw new RangeError('turnedNormals: the mesh has no normals');
  const excess = new Float64Array(data.n);
  const turn = normalTurn(data, mesh);
  for (let t = 0; t < data.T; t++) {
    const method = methodNormals(t);
    for (let a = 0; a < data.n; a++) excess[a] = Math.max(excess[a], turn(t, a, active[a], method));
  }
  const out: number[] = [];
  for (let a = 0; a < data.n; a++) if (excess[a] > NORMAL_MARGIN) out.push(a);
  return out;
}

/**
 * Tries each turned vertex ({@link turnedNormals}) on other weights before it is given back whole
 * (then it plays plain LBS's distance, which on the Soldier's DDM bake was LBS's largest over the
 * mesh): its weights solved again by the fit's weight update (Le & Deng 2012, Sec. 3.2) over its
 * candidates and the fit's samples, its normal rows weighing {@link NORMAL_REPAIR_WEIGHTS} times
 * more in turn, then blends of its fitted weights with its own (`BLEND_SHARES`); it keeps the
 * first whose normal is within {@link NORMAL_MARGIN} of plain LBS's turn at every sample (the
 * positions' guard judges them after). Needs the fit's target normals at every sample
 * (`FitData.targetNormals`); a fit without them repairs none.
 * @param data the fit (as {@link turnedNormals}); a repaired vertex's new weights are written to it
 * @param active the fitted vertices (data.n, indices into `mesh`)
 * @param mesh the skin (bind-space unit normals; its own influences are plain LBS's)
 * @param turned indices into `active` ({@link turnedNormals})
 * @param own writes active vertex a's own K influences (as it plays them given back)
 * @returns the turned vertices repaired (indices into `active`); the others' weights are as fitted
 * @throws RangeError when `mesh` has no normals
 */
export function repairTurnedNormals(
  data: FitData,
  active: readonly number[],
  mesh: SkinnedMesh,
  turned: readonly number[],
  own: (a: number, joints: Uint32Array, weights: Float32Array) => void,
): number[] {
  if (!mesh.normals) throw new RangeError('repairTurnedNormals: the mesh has no normals');
  if (!data.targetNormals.length) return [];
  const { K } = data;
  const { problem, model } = fitViews(data, false);
  const scratch = weightScratch();
  const fit = { joints: new Uint32Array(K), weights: new Float32Array(K) };
  const ownWeights = { joints: new Uint32Array(K), weights: new Float32Array(K) };
  const repaired: number[] = [];
  for (const a of turned) {
    const at = K * a;
    fit.joints.set(data.joints.subarray(at, at + K));
    fit.weights.set(data.weights.subarray(at, at + K));
    const holds = () => normalHolds(data, active, mesh, a);
    const candidates = Array.from(data.candidates.subarray(data.candidateStart[a], data.candidateStart[a + 1]));
    const weight = data.normalWeights[a];
    let ok = false;
    for (const factor of NORMAL_REPAIR_WEIGHTS) {
      data.normalWeights[a] = weight * factor;
      updateVertexWeights(problem, model, a, candidates, scratch);
      data.normalWeights[a] = weight;
      if ((ok = holds())) break;
    }
    own(a, ownWeights.joints, ownWeights.weights);
    for (let k = 0; !ok && k < BLEND_SHARES.length; k++) {
      blendWeights(fit, ownWeights, BLEND_SHARES[k], data.joints, data.weights, at);
      ok = holds();
    }
    if (ok) repaired.push(a);
    else {
      data.joints.set(fit.joints, at);
      data.weights.set(fit.weights, at);
    }
  }
  return repaired;
}

/**
 * Whether active vertex a's normal, as `data` plays it, is within {@link NORMAL_MARGIN} of plain
 * LBS's turn from the method's at every sample (the test of {@link turnedNormals}, for one vertex).
 * Needs the fit's target normals at every sample (`FitData.targetNormals`).
 * @throws RangeError when the fit holds no target normals or `mesh` has none
 */
export function normalHolds(data: FitData, active: readonly number[], mesh: SkinnedMesh, a: number): boolean {
  if (!mesh.normals || !data.targetNormals.length) throw new RangeError('normalHolds: no normals to compare');
  const turn = normalTurn(data, mesh);
  const size = 3 * data.n;
  for (let t = 0; t < data.T; t++)
    if (turn(t, a, active[a], data.targetNormals.subarray(size * t, size * (t + 1))) > NORMAL_MARGIN) return false;
  return true;
}

/**
 * By how much (radians) active vertex a's normal at sample t, as `data` plays it, is farther from
 * the method's (`method`, 3 per active vertex, any length) than plain LBS's is (negative where
 * closer): a player skins a normal by its blended skinning matrix's linear part. Where the
 * played normal is itself within {@link NORMAL_MARGIN} of the method's, that angle instead (an
 * upper bound, as plain LBS's angle is not negative, and within the margin as the exact figure
 * is: all that the callers compare), without posing plain LBS's normal.
 */
function normalTurn(
  data: FitData,
  mesh: SkinnedMesh,
): (t: number, a: number, i: number, method: Float32Array) => number {
  const normals = mesh.normals!;
  const { J, H, K, fixed, transforms, joints, weights } = data;
  const Km = mesh.influences;
  const bake = new Float64Array(3);
  const lbs = new Float64Array(3);
  // out += w · (linear part of the matrix at M[o..]) · normal i.
  const add = (out: Float64Array, w: number, M: Float64Array, o: number, i: number) => {
    const x = normals[3 * i], y = normals[3 * i + 1], z = normals[3 * i + 2]; // prettier-ignore
    for (let r = 0; r < 3; r++) out[r] += w * (M[o + r] * x + M[o + 4 + r] * y + M[o + 8 + r] * z);
  };
  return (t, a, i, method) => {
    const F = 16 * J * t;
    bake.fill(0);
    lbs.fill(0);
    for (let k = K * a; k < K * a + K; k++) {
      const w = weights[k];
      if (!(w > 0)) continue;
      const j = joints[k];
      if (j < J) add(bake, w, fixed, F + 16 * j, i);
      else add(bake, w, transforms, 16 * H * t + 16 * (j - J), i);
    }
    const played = angle(bake, method, a);
    if (played <= NORMAL_MARGIN) return played;
    for (let k = Km * i; k < Km * i + Km; k++) if (mesh.weights[k] > 0) add(lbs, mesh.weights[k], fixed, F + 16 * mesh.joints[k], i); // prettier-ignore
    return played - angle(lbs, method, a);
  };
}

/** The angle (radians) between `v` and the vector i of `normals` (0 where either is zero). */
function angle(v: Float64Array, normals: Float32Array, i: number): number {
  const x = normals[3 * i], y = normals[3 * i + 1], z = normals[3 * i + 2]; // prettier-ignore
  const dot = v[0] * x + v[1] * y + v[2] * z;
  const cross = Math.sqrt((v[1] * z - v[2] * y) ** 2 + (v[2] * x - v[0] * z) ** 2 + (v[0] * y - v[1] * x) ** 2);
  return dot === 0 && cross === 0 ? 0 : Math.atan2(cross, dot);
}
