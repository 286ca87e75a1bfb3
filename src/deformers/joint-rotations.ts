/**
 * Per-joint and per-vertex rotation data that the rotation-blending deformers (DQS, SBS, LMS,
 * CoR) share: each joint's rotation quaternion, computed once per frame, and each vertex's
 * antipodality pivot.
 *
 * @module
 */
import { quatFromMat4 } from '../core/math.js';

/**
 * Unit quaternion (x, y, z, w) of each skinning matrix's rotation, computed once per frame.
 * @param skinning length 16·J; @param out length 4·J (allocated when omitted)
 */
export function jointQuaternions<T extends Float32Array | Float64Array = Float64Array>(skinning: Float64Array, out?: T): T {
  const J = skinning.length / 16;
  const q = out ?? (new Float64Array(4 * J) as T);
  for (let j = 0; j < J; j++) quatFromMat4(q, 4 * j, skinning, 16 * j);
  return q;
}

/**
 * The antipodality pivot of vertex i — the joint of its largest weight, ties to the smaller joint
 * index (the rule of every corskin kernel) — or, when all its non-zero weights name one joint,
 * −2 − that joint (−1 when it has none): such a vertex moves rigidly.
 */
export function pivotJoint(joints: Uint32Array, weights: Float32Array, K: number, i: number): number {
  let pivot = -1;
  let best = 0;
  let several = false;
  for (let k = K * i, end = k + K; k < end; k++) {
    const w = weights[k];
    if (w === 0) continue;
    const j = joints[k];
    if (pivot >= 0 && j !== pivot) several = true;
    if (w > best || (w === best && j < pivot)) {
      best = w;
      pivot = j;
    }
  }
  return several ? pivot : pivot < 0 ? -1 : -2 - pivot;
}
