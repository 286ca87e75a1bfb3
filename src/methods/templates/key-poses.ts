/**
 * Blending a template's key poses (Ju et al. 2008, Eq. 2): `f(B) = ⊕_i w_i(B) · f_i(B)`, the
 * weights by radial basis functions of the pose distance (Lewis, Cordner, Fong, "Pose Space
 * Deformation", SIGGRAPH 2000) with a constant term, so that w_i(B_k) = δ_ik and Σ w = 1; negative
 * weights are clamped and the rest renormalised. The pose distance is the sum over the relevant
 * bones of the geodesic angle between their frames (twist included).
 *
 * @module
 */
import { rotationAngle } from './rotation.js';

/** Frame matrix [b, r, b×r] (rows) of relevant bone j of `frames` (6·r). */
function frameMatrix(frames: ArrayLike<number>, j: number): Float64Array {
  const b = [frames[6 * j], frames[6 * j + 1], frames[6 * j + 2]], r = [frames[6 * j + 3], frames[6 * j + 4], frames[6 * j + 5]];
  return Float64Array.from([...b, ...r, b[1] * r[2] - b[2] * r[1], b[2] * r[0] - b[0] * r[2], b[0] * r[1] - b[1] * r[0]]);
}

/** Pose distance: Σ_j angle between relevant bone j's frames in the two poses (rad). */
export function poseDistance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let d = 0;
  for (let j = 0; j < a.length / 6; j++) d += rotationAngle(frameMatrix(a, j), frameMatrix(b, j));
  return d;
}

/**
 * Radial-basis weights over `n` key poses with pairwise distances `distance(i, j)`: returns
 * `weights(d)` for the distances `d` (n) of a pose to the keys → one weight per key, ≥ 0, summing
 * to 1, exactly δ at a key. φ(d) = d plus a constant; the (n+1)² system is solved once here.
 * @throws RangeError when two key poses coincide
 */
export function createRbfWeights(n: number, distance: (i: number, j: number) => number): (d: ArrayLike<number>) => number[] {
  if (n === 1) return () => [1];
  // [Φ 1; 1ᵀ 0] X = [I; 0]
  const N = n + 1;
  const A = Array.from({ length: N }, (_, i) =>
    Array.from({ length: N + n }, (_, j) => {
      if (j < N) return i < n && j < n ? distance(i, j) : i === n && j === n ? 0 : 1;
      return i < n && j - N === i ? 1 : 0;
    }),
  );
  for (let c = 0; c < N; c++) {
    let piv = c;
    for (let r = c + 1; r < N; r++) if (Math.abs(A[r][c]) > Math.abs(A[piv][c])) piv = r;
    if (Math.abs(A[piv][c]) < 1e-12) throw new RangeError('two key poses of the template coincide');
    [A[c], A[piv]] = [A[piv], A[c]];
    for (let r = 0; r < N; r++) {
      if (r === c) continue;
      const f = A[r][c] / A[c][c];
      for (let k = c; k < N + n; k++) A[r][k] -= f * A[c][k];
    }
  }
  const X = A.map((row, i) => row.slice(N).map((v) => v / row[i])); // (n+1) × n
  return (d) => {
    const w: number[] = new Array(n).fill(0);
    let sum = 0;
    for (let i = 0; i < n; i++) {
      let v = X[n][i];
      for (let k = 0; k < n; k++) v += d[k] * X[k][i];
      w[i] = Math.max(0, v);
      sum += w[i];
    }
    for (let i = 0; i < n; i++) w[i] /= sum;
    return w;
  };
}

/**
 * Prepares the key-pose weights of a template with key poses `keys` (each 6·r frames): returns
 * `weights(frames)` → an array (one weight per key, ≥ 0, summing to 1; exactly δ at a key pose).
 * @throws RangeError when two key poses coincide
 */
export function createKeyPoseWeights(keys: ArrayLike<number>[]): (frames: ArrayLike<number>) => number[] {
  const weights = createRbfWeights(keys.length, (i, j) => poseDistance(keys[i], keys[j]));
  return (frames) => weights(keys.map((k) => poseDistance(frames, k)));
}
