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
import { length3 } from '../../core/vec3.js';
import { axisAngle, apply3, type NumbersOut } from './rotation.js';
import { sphericalAverage } from './spherical-average.js';
import type { TemplateKey } from './joint.js';

/** A bone template's geometry: the template bone and the reference direction r_c ⊥ axis. */
export interface BoneTemplateFrame {
  /** Unit direction of the template bone from its start at the origin (3 numbers). */
  axis: ArrayLike<number>;
  /** Length L of the template bone (template coordinates). */
  length: number;
  /** Unit reference direction r_c ⊥ axis (3 numbers). */
  reference: ArrayLike<number>;
}

/** α, β, n and m̂ = n × b_c of relevant bone {bj, rj} against {bc, rc} (Eq. 3's angles). */
function bendTwist(bc: number[], rc: number[], bj: number[], rj: number[]) {
  let nx = bc[1] * bj[2] - bc[2] * bj[1], ny = bc[2] * bj[0] - bc[0] * bj[2], nz = bc[0] * bj[1] - bc[1] * bj[0];
  const sinA = length3(nx, ny, nz), cosA = bc[0] * bj[0] + bc[1] * bj[1] + bc[2] * bj[2];
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
  const s = [0, 0, 0];
  apply3(swing, 0, rc, 0, s, 0);
  const cx = s[1] * rj[2] - s[2] * rj[1], cy = s[2] * rj[0] - s[0] * rj[2], cz = s[0] * rj[1] - s[1] * rj[0];
  const beta = Math.atan2(cx * bj[0] + cy * bj[1] + cz * bj[2], s[0] * rj[0] + s[1] * rj[1] + s[2] * rj[2]);
  const m = [n[1] * bc[2] - n[2] * bc[1], n[2] * bc[0] - n[0] * bc[2], n[0] * bc[1] - n[1] * bc[0]];
  return { alpha, beta, m };
}

/** End j's origin and b_c. */
function endOf(t: BoneTemplateFrame, j: number): { origin: number[]; bc: number[] } {
  const a = [t.axis[0], t.axis[1], t.axis[2]];
  return j === 0 ? { origin: [0, 0, 0], bc: a.map((x) => -x) } : { origin: a.map((x) => x * t.length), bc: a };
}

/** Six numbers of `frames` from `o` (one relevant bone's frame). */
const sixFrom = (frames: ArrayLike<number>, o: number): number[] => [frames[o], frames[o + 1], frames[o + 2], frames[o + 3], frames[o + 4], frames[o + 5]];

/** Eq. 4's parameters for one relevant bone at one pose: computed once, applied to many vertices. */
interface EndMap {
  origin: number[];
  bc: number[];
  beta: number;
  m: number[];
  tanHalf: number;
  length: number;
}

function endMap(t: BoneTemplateFrame, j: number, frame: ArrayLike<number>): EndMap {
  const { origin, bc } = endOf(t, j);
  const rc = [t.reference[0], t.reference[1], t.reference[2]];
  const { alpha, beta, m } = bendTwist(bc, rc, [frame[0], frame[1], frame[2]], [frame[3], frame[4], frame[5]]);
  return { origin, bc, beta, m, tanHalf: Math.tan(alpha / 2), length: t.length };
}

/** out = v turned by `angle` about the unit axis `k` (Rodrigues). */
function rotateAbout(k: number[], angle: number, v: ArrayLike<number>, out: NumbersOut): void {
  const c = Math.cos(angle), s = Math.sin(angle);
  const x = v[0], y = v[1], z = v[2];
  const d = (k[0] * x + k[1] * y + k[2] * z) * (1 - c);
  out[0] = x * c + (k[1] * z - k[2] * y) * s + k[0] * d;
  out[1] = y * c + (k[2] * x - k[0] * z) * s + k[1] * d;
  out[2] = z * c + (k[0] * y - k[1] * x) * s + k[2] * d;
}

/** Eq. 4 with prepared parameters: `v` → `out[o..o+3)` (template coordinates). */
function mapForward(e: EndMap, v: ArrayLike<number>, out: NumbersOut, o: number, scratch3: NumbersOut): void {
  const { origin, bc, m, length } = e;
  const p0 = v[0] - origin[0], p1 = v[1] - origin[1], p2 = v[2] - origin[2];
  const s = Math.max(0, Math.min(1, -(p0 * bc[0] + p1 * bc[1] + p2 * bc[2]) / length));
  scratch3[0] = p0; scratch3[1] = p1; scratch3[2] = p2;
  rotateAbout(bc, (1 - s) * e.beta, scratch3, scratch3);
  const d = scratch3[0] * m[0] + scratch3[1] * m[1] + scratch3[2] * m[2];
  const k = (1 - s) * clampSkew(d * e.tanHalf, length);
  for (let c = 0; c < 3; c++) out[o + c] = origin[c] + scratch3[c] - k * bc[c];
}

/**
 * Eq. 4's inverse at end `e` (at the pose `e` was made for) of the point q (from the end's
 * origin): writes 1 − s(a) into `share[0]` and returns (1 − s(a))·dt, dt = d·tan(α/2) the skew at
 * q (clamped) and a q's axial coordinate before the skew.
 */
function inverseShare(e: EndMap, q0: number, q1: number, q2: number, share: NumbersOut): number {
  const { bc, m, length } = e;
  const dt = clampSkew((q0 * m[0] + q1 * m[1] + q2 * m[2]) * e.tanHalf, length);
  // x_a = a − (1 − s(a)) d tan(α/2), s(a) = clamp(−a/L): piecewise linear and increasing in a.
  const xa = q0 * bc[0] + q1 * bc[1] + q2 * bc[2];
  let a = (xa + dt) / (1 - dt / length);
  if (a > 0) a = xa + dt;
  else if (a < -length) a = xa;
  const s = Math.max(0, Math.min(1, -a / length));
  share[0] = 1 - s;
  return (1 - s) * dt;
}

/** The inverse of {@link mapForward}. */
function mapInverse(e: EndMap, x: ArrayLike<number>, out: NumbersOut, o: number, scratch3: NumbersOut): void {
  const { origin, bc } = e;
  const q0 = x[0] - origin[0], q1 = x[1] - origin[1], q2 = x[2] - origin[2];
  const shift = inverseShare(e, q0, q1, q2, scratch3);
  const turn = -scratch3[0] * e.beta;
  scratch3[0] = q0 + shift * bc[0];
  scratch3[1] = q1 + shift * bc[1];
  scratch3[2] = q2 + shift * bc[2];
  rotateAbout(bc, turn, scratch3, scratch3);
  for (let c = 0; c < 3; c++) out[o + c] = origin[c] + scratch3[c];
}

/** `a` less the whole turns that bring it into [−π, π). */
function wrapAngle(a: number): number {
  return a - 2 * Math.PI * Math.round(a / (2 * Math.PI));
}

/** Eq. 4's skew clamped to ±0.9 L (see {@link boneMap}). */
function clampSkew(k: number, length: number): number {
  return Math.max(-0.9 * length, Math.min(0.9 * length, k));
}

/**
 * Eq. 4: `M_j(v)` for relevant bone j with frame {bj, rj}, `v` in template coordinates; writes
 * the moved point into `out[o..o+3)` (template coordinates).
 */
export function boneMap(t: BoneTemplateFrame, j: number, frame: ArrayLike<number>, v: ArrayLike<number>, out: Float64Array, o = 0): Float64Array {
  mapForward(endMap(t, j, frame), v, out, o, new Float64Array(3));
  return out;
}

/** The inverse of {@link boneMap} (while d·tan(α/2) < L). */
export function boneMapInverse(t: BoneTemplateFrame, j: number, frame: ArrayLike<number>, x: ArrayLike<number>, out: Float64Array, o = 0): Float64Array {
  mapInverse(endMap(t, j, frame), x, out, o, new Float64Array(3));
  return out;
}

/**
 * ⊕ of bone templates: points (3·p, template coordinates) blended with weights (p, sum 1) —
 * axial coordinate and distance to the axis linearly, direction about the axis by the circular
 * (spherical) mean — into `out[o..o+3)`.
 * @param dirs workspace of 3·p numbers (allocated when not given)
 */
export function blendCylindrical(
  t: BoneTemplateFrame,
  points: ArrayLike<number>,
  weights: ArrayLike<number>,
  out: Float64Array,
  o = 0,
  dirs: NumbersOut = new Float64Array(3 * weights.length),
): Float64Array {
  const p = weights.length;
  const ax = t.axis;
  let axial = 0, radius = 0; // prettier-ignore
  for (let i = 0; i < p; i++) {
    const a = points[3 * i] * ax[0] + points[3 * i + 1] * ax[1] + points[3 * i + 2] * ax[2];
    const rx = points[3 * i] - a * ax[0], ry = points[3 * i + 1] - a * ax[1], rz = points[3 * i + 2] - a * ax[2]; // prettier-ignore
    const r = Math.sqrt(rx * rx + ry * ry + rz * rz);
    axial += weights[i] * a;
    radius += weights[i] * r;
    const f = r > 0 ? 1 / r : 0;
    dirs[3 * i] = rx * f;
    dirs[3 * i + 1] = ry * f;
    dirs[3 * i + 2] = rz * f;
  }
  sphericalAverage(dirs, weights, out, o);
  for (let c = 0; c < 3; c++) out[o + c] = axial * ax[c] + radius * out[o + c];
  return out;
}

/** What a bone template's evaluation keeps of its key pose (Eq. 4's parameters at both ends): {@link boneTemplateKey}. */
export interface BoneTemplateKey {
  readonly template: BoneTemplateFrame;
  readonly ends: readonly [EndMap, EndMap];
}

/** A bone template's key pose `keyFrames` (12 numbers: both relevant bones), prepared once for any number of poses. */
export function boneTemplateKey(t: BoneTemplateFrame, keyFrames: ArrayLike<number>): BoneTemplateKey {
  return { template: t, ends: [endMap(t, 0, keyFrames), endMap(t, 1, sixFrom(keyFrames, 6))] };
}

/**
 * A bone template prepared for one pose: Eq. 1 for any number of its vertices, each from its key
 * pose (`key`, {@link boneTemplateKey}) to `frames` (12 numbers), with the per-pose parameters
 * computed once. The returned function's optional `memo` (9 numbers from `mo`, NaN-filled when
 * fresh) keeps the part of a vertex's evaluation that depends on the key pose only — Eq. 4's
 * inverse at each end and the blend weights — so later poses of the same key pose skip it.
 *
 * Evaluated in closed form rather than by {@link boneMapInverse}, {@link boneMap} and
 * {@link blendCylindrical} (which define it, and which the tests compare it with): both ends turn
 * a point about the template bone's axis and shift it along it, so each end's candidate keeps the
 * vertex's distance ρ to the axis, its direction about the axis is the rest direction turned by
 * φ_j = ±(1 − s_j)·(β_j − β_j^key) (that difference taken in [−π, π)), and ⊕'s spherical mean of
 * two such directions (slerp) is the rest direction turned by φ₀ + u₁·(φ₁ − φ₀) (the difference
 * taken in [−π, π), slerp's shorter arc). Per vertex that is three sine–cosine pairs and no allocation.
 */
export function prepareBoneTemplate(
  { template: t, ends: key }: BoneTemplateKey,
  frames: ArrayLike<number>,
): (v: ArrayLike<number>, out: Float64Array, o?: number, memo?: Float64Array, mo?: number) => Float64Array {
  const now = [endMap(t, 0, frames), endMap(t, 1, sixFrom(frames, 6))];
  // Each end's turn from the key pose, β − β^key taken within half a turn (wrapAngle): the twist
  // fades along the bone, (1 − s)·(β − β^key), so its branch matters where a rotation by it would
  // not; the principal value of β jumped by 2π·(1 − s) as a bone's twist crossed ±π (ShibaInu's
  // front legs, whose bind β is ±110°: a ring of the cage 0.13 of the diagonal off between frames).
  const turn0 = wrapAngle(now[0].beta - key[0].beta), turn1 = wrapAngle(now[1].beta - key[1].beta); // prettier-ignore
  const a0 = t.axis[0], a1 = t.axis[1], a2 = t.axis[2]; // prettier-ignore
  const L = t.length;
  const m0 = now[0].m, m1 = now[1].m; // prettier-ignore
  const tan0 = now[0].tanHalf, tan1 = now[1].tanHalf; // prettier-ignore
  const own = [0, 0, 0, 0, 0, 0, 0, 0, 0];
  const tmp = [0, 0, 0];
  return (v, out, o = 0, memo, mo = 0) => {
    // Key side (memo, 9 numbers): [1 − s₀, 1 − s₁, (1 − s₀)·dt₀, (1 − s₁)·dt₁, u₁, –, –, –, at] —
    // per end j Eq. 4's inverse at the key pose (inverseShare: s_j of the axial coordinate before
    // the skew dt_j), u₁ the blend weight of end 1 (u ∝ 1/s of v itself), and the end the vertex is
    // at (or −1).
    const k = memo ?? own;
    const b = memo ? mo : 0;
    if (!memo || Number.isNaN(k[b + 8])) {
      k[b + 8] = -1;
      let u0 = 0, u1 = 0; // prettier-ignore
      for (let j = 0; j < 2; j++) {
        const e = key[j];
        const { origin, bc } = e;
        const q0 = v[0] - origin[0], q1 = v[1] - origin[1], q2 = v[2] - origin[2]; // prettier-ignore
        const s = Math.max(0, Math.min(1, -(q0 * bc[0] + q1 * bc[1] + q2 * bc[2]) / L));
        if (s === 0) k[b + 8] = j;
        if (j === 0) u0 = s === 0 ? 0 : 1 / s;
        else u1 = s === 0 ? 0 : 1 / s;
        const dt = inverseShare(e, q0, q1, q2, tmp);
        k[b + j] = tmp[0];
        k[b + 2 + j] = dt;
      }
      k[b + 4] = u1 / (u0 + u1);
    }
    const at = k[b + 8];
    // The vertex's axial coordinate x and radial part r (⊥ axis), and a × r.
    const x = v[0] * a0 + v[1] * a1 + v[2] * a2;
    const r0 = v[0] - a0 * x, r1 = v[1] - a1 * x, r2 = v[2] - a2 * x; // prettier-ignore
    const c0 = a1 * r2 - a2 * r1, c1 = a2 * r0 - a0 * r2, c2 = a0 * r1 - a1 * r0; // prettier-ignore
    // Per end: the turn φ_j about the axis (bc₀ = −axis, bc₁ = +axis) and the axial coordinate.
    let phi0 = 0, phi1 = 0, x0 = 0, x1 = 0; // prettier-ignore
    if (at !== 1) {
      phi0 = -k[b] * turn0;
      const c = Math.cos(phi0), s = Math.sin(phi0); // prettier-ignore
      const d = c * (r0 * m0[0] + r1 * m0[1] + r2 * m0[2]) + s * (c0 * m0[0] + c1 * m0[1] + c2 * m0[2]);
      x0 = x - (k[b + 2] - k[b] * clampSkew(d * tan0, L));
    }
    if (at !== 0) {
      phi1 = k[b + 1] * turn1;
      const c = Math.cos(phi1), s = Math.sin(phi1); // prettier-ignore
      const d = c * (r0 * m1[0] + r1 * m1[1] + r2 * m1[2]) + s * (c0 * m1[0] + c1 * m1[1] + c2 * m1[2]);
      x1 = x + (k[b + 3] - k[b + 1] * clampSkew(d * tan1, L));
    }
    const u1 = at < 0 ? k[b + 4] : at; // ⊕ reduces to the end the vertex is at
    const axial = (1 - u1) * x0 + u1 * x1;
    const psi = phi0 + u1 * wrapAngle(phi1 - phi0);
    const c = Math.cos(psi), s = Math.sin(psi); // prettier-ignore
    out[o] = axial * a0 + c * r0 + s * c0;
    out[o + 1] = axial * a1 + c * r1 + s * c1;
    out[o + 2] = axial * a2 + c * r2 + s * c2;
    return out;
  };
}

/**
 * Eq. 1 for a bone template vertex: its position at the pose `frames` (12 numbers: both relevant
 * bones) from one key pose, into `out[o..o+3)`. u_j ∝ 1 / s_j (the end nearer the vertex weighs
 * more; at an end, that end alone).
 */
export function boneKeyPosition(t: BoneTemplateFrame, key: TemplateKey, frames: ArrayLike<number>, out: Float64Array, o = 0): Float64Array {
  return prepareBoneTemplate(boneTemplateKey(t, key.frames), frames)(key.position, out, o);
}
