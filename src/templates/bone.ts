/**
 * Bone templates (Ju, Zhou, van de Panne, Cohen-Or, Neumann, "Reusable Skinning Templates Using
 * Cage-based Deformations", ACM TOG 27(5), SIGGRAPH Asia 2008, §4.2). A bone template's vertices
 * surround a bone (the template bone, from its start at the origin along the unit `axis` for
 * `length` L) and deform with the bones that meet it at either end:
 *
 * - Eq. 4, per relevant bone j meeting the template bone at end e_j, with b_c pointing away from
 *   the template bone there: `s = clamp(−(v·b_c)/L, 0, 1)`, `v_r = R(b_c, (1−s)β) v`, d the signed
 *   distance of v_r to the plane of b_c and n, `M_j(v) = v_r − (1−s) d tan(α/2) b_c` — a twist
 *   about the bone fading along it, and a skew along it that lays the ring at the joint onto the
 *   plane bisecting the template bone and bone j (α, β, n as in Eq. 3); injective while
 *   d·tan(α/2) < L, so the skew is clamped to ±0.9 L;
 * - Eq. 1 with u_j ∝ 1 / s_j and ⊕ blending the distance to the bone axis, the axial coordinate and
 *   the direction about the axis separately, so a vertex on a cylinder about the bone stays on it.
 *
 * Frames: 6 numbers per relevant bone (its direction b_j and reference r_j, template coordinates);
 * relevant bone 0 meets the start (b_c = −axis), bone 1 the end (b_c = +axis).
 *
 * @module
 */
import { axisAngle, apply3 } from './rotation.js';
import { sphericalAverage } from './spherical-average.js';
import type { TemplateKey } from './joint.js';

/** A bone template's geometry: the template bone and the reference direction r_c ⊥ axis. */
export interface BoneTemplateFrame {
  axis: ArrayLike<number>;
  length: number;
  reference: ArrayLike<number>;
}

/** α, β, n and m̂ = n × b_c of relevant bone {bj, rj} against {bc, rc} (Eq. 3's angles). */
function bendTwist(bc: number[], rc: number[], bj: number[], rj: number[]) {
  let nx = bc[1] * bj[2] - bc[2] * bj[1], ny = bc[2] * bj[0] - bc[0] * bj[2], nz = bc[0] * bj[1] - bc[1] * bj[0];
  const sinA = Math.hypot(nx, ny, nz), cosA = bc[0] * bj[0] + bc[1] * bj[1] + bc[2] * bj[2];
  const alpha = Math.atan2(sinA, cosA);
  if (sinA > 1e-15) {
    nx /= sinA; ny /= sinA; nz /= sinA;
  } else {
    // Straight (or folded back): the skew vanishes (or is undefined); take n ⊥ b_c in the r_c plane.
    const ox = bc[1] * rc[2] - bc[2] * rc[1], oy = bc[2] * rc[0] - bc[0] * rc[2], oz = bc[0] * rc[1] - bc[1] * rc[0];
    nx = ox; ny = oy; nz = oz;
  }
  const n = [nx, ny, nz];
  const swing = axisAngle(n, alpha);
  const s = new Float64Array(3);
  apply3(swing, 0, rc, 0, s, 0);
  const cx = s[1] * rj[2] - s[2] * rj[1], cy = s[2] * rj[0] - s[0] * rj[2], cz = s[0] * rj[1] - s[1] * rj[0];
  const beta = Math.atan2(cx * bj[0] + cy * bj[1] + cz * bj[2], s[0] * rj[0] + s[1] * rj[1] + s[2] * rj[2]);
  const m = [n[1] * bc[2] - n[2] * bc[1], n[2] * bc[0] - n[0] * bc[2], n[0] * bc[1] - n[1] * bc[0]];
  return { alpha, beta, m };
}

/**
 * Eq. 4's skew d·tan(α/2), clamped to ±0.9 L so the map stays injective (and invertible) where a
 * vertex lies farther from the axis than the bone is long over tan(α/2) — short, thick bones.
 */
function skew(d: number, alpha: number, length: number): number {
  const k = d * Math.tan(alpha / 2);
  return Math.max(-0.9 * length, Math.min(0.9 * length, k));
}

/** End j's origin and b_c. */
function endOf(t: BoneTemplateFrame, j: number): { origin: number[]; bc: number[] } {
  const a = [t.axis[0], t.axis[1], t.axis[2]];
  return j === 0 ? { origin: [0, 0, 0], bc: a.map((x) => -x) } : { origin: a.map((x) => x * t.length), bc: a };
}

/**
 * Eq. 4: `M_j(v)` for relevant bone j with frame {bj, rj}, `v` in template coordinates; writes
 * the moved point into `out[o..o+3)` (template coordinates).
 */
export function boneMap(t: BoneTemplateFrame, j: number, frame: ArrayLike<number>, v: ArrayLike<number>, out: Float64Array, o = 0): Float64Array {
  const { origin, bc } = endOf(t, j);
  const rc = [t.reference[0], t.reference[1], t.reference[2]];
  const { alpha, beta, m } = bendTwist(bc, rc, [frame[0], frame[1], frame[2]], [frame[3], frame[4], frame[5]]);
  const p = [v[0] - origin[0], v[1] - origin[1], v[2] - origin[2]];
  const s = Math.max(0, Math.min(1, -(p[0] * bc[0] + p[1] * bc[1] + p[2] * bc[2]) / t.length));
  const vr = new Float64Array(3);
  apply3(axisAngle(bc, (1 - s) * beta), 0, p, 0, vr, 0);
  const d = vr[0] * m[0] + vr[1] * m[1] + vr[2] * m[2];
  const k = (1 - s) * skew(d, alpha, t.length);
  for (let c = 0; c < 3; c++) out[o + c] = origin[c] + vr[c] - k * bc[c];
  return out;
}

/** The inverse of {@link boneMap} (while d·tan(α/2) < L). */
export function boneMapInverse(t: BoneTemplateFrame, j: number, frame: ArrayLike<number>, x: ArrayLike<number>, out: Float64Array, o = 0): Float64Array {
  const { origin, bc } = endOf(t, j);
  const rc = [t.reference[0], t.reference[1], t.reference[2]];
  const { alpha, beta, m } = bendTwist(bc, rc, [frame[0], frame[1], frame[2]], [frame[3], frame[4], frame[5]]);
  const q = [x[0] - origin[0], x[1] - origin[1], x[2] - origin[2]];
  const d = q[0] * m[0] + q[1] * m[1] + q[2] * m[2];
  const dt = skew(d, alpha, t.length);
  const xa = q[0] * bc[0] + q[1] * bc[1] + q[2] * bc[2];
  // x_a = a − (1 − s(a)) d tan(α/2), s(a) = clamp(−a/L): piecewise linear and increasing in a.
  let a = (xa + dt) / (1 - dt / t.length);
  if (a > 0) a = xa + dt;
  else if (a < -t.length) a = xa;
  const s = Math.max(0, Math.min(1, -a / t.length));
  const vr = q.map((c, i) => c + (1 - s) * dt * bc[i]);
  const v = new Float64Array(3);
  apply3(axisAngle(bc, -(1 - s) * beta), 0, vr, 0, v, 0);
  for (let c = 0; c < 3; c++) out[o + c] = origin[c] + v[c];
  return out;
}

/**
 * ⊕ of bone templates: points (3·p, template coordinates) blended with weights (p, sum 1) —
 * axial coordinate and distance to the axis linearly, direction about the axis by the circular
 * (spherical) mean — into `out[o..o+3)`.
 */
export function blendCylindrical(t: BoneTemplateFrame, points: ArrayLike<number>, weights: ArrayLike<number>, out: Float64Array, o = 0): Float64Array {
  const p = weights.length;
  const ax = t.axis;
  const dirs = new Float64Array(3 * p);
  let axial = 0, radius = 0;
  for (let i = 0; i < p; i++) {
    const a = points[3 * i] * ax[0] + points[3 * i + 1] * ax[1] + points[3 * i + 2] * ax[2];
    const rx = points[3 * i] - a * ax[0], ry = points[3 * i + 1] - a * ax[1], rz = points[3 * i + 2] - a * ax[2];
    const r = Math.hypot(rx, ry, rz);
    axial += weights[i] * a;
    radius += weights[i] * r;
    if (r > 0) dirs.set([rx / r, ry / r, rz / r], 3 * i);
  }
  sphericalAverage(dirs, weights, out, o);
  for (let c = 0; c < 3; c++) out[o + c] = axial * ax[c] + radius * out[o + c];
  return out;
}

/**
 * Eq. 1 for a bone template vertex: its position at the pose `frames` (12 numbers: both relevant
 * bones) from one key pose, into `out[o..o+3)`. u_j ∝ 1 / s_j (the end nearer the vertex weighs
 * more; at an end, that end alone).
 */
export function boneKeyPosition(t: BoneTemplateFrame, key: TemplateKey, frames: ArrayLike<number>, out: Float64Array, o = 0): Float64Array {
  const v = key.position;
  const u = new Float64Array(2);
  const moved = new Float64Array(6);
  const canonical = new Float64Array(3);
  for (let j = 0; j < 2; j++) {
    const { origin, bc } = endOf(t, j);
    const s = Math.max(0, Math.min(1, -((v[0] - origin[0]) * bc[0] + (v[1] - origin[1]) * bc[1] + (v[2] - origin[2]) * bc[2]) / t.length));
    u[j] = s === 0 ? Infinity : 1 / s;
    const keyFrame = Array.from({ length: 6 }, (_, k) => key.frames[6 * j + k]);
    const frame = Array.from({ length: 6 }, (_, k) => frames[6 * j + k]);
    boneMapInverse(t, j, keyFrame, v, canonical, 0);
    boneMap(t, j, frame, canonical, moved, 3 * j);
  }
  if (u[0] === Infinity || u[1] === Infinity) {
    const j = u[1] === Infinity ? 1 : 0;
    for (let c = 0; c < 3; c++) out[o + c] = moved[3 * j + c];
    return out;
  }
  const sum = u[0] + u[1];
  return blendCylindrical(t, moved, [u[0] / sum, u[1] / sum], out, o);
}
