/**
 * The registered `templates` deformer: dual quaternion skinning, then the templates' correction
 * (see the rig's module comment) — per cage vertex the rigid motion taking it from where DQS puts
 * it to where its template puts it, blended per skin vertex over its binding as dual quaternions
 * (with the identity for the share left to DQS), so the correction turns the skin as a rigid
 * motion locally and thin parts keep their cross-section.
 *
 * @module
 */
import { CorskinError } from '../../core/errors.js';
import { quatClosestRotation, quatPolarRotation } from '../../core/math.js';
import type { SkinnedMesh } from '../../core/mesh.js';
import type { DeformTarget, Deformer } from '../../deformers/contract.js';
import { deformDqs } from '../../deformers/dqs.js';
import { poseUnmirrored } from '../../deformers/mirror.js';
import { writeDualQuaternion } from '../../deformers/vertex-writers.js';
import { SIDES } from './fit.js';
import { createTemplateMemo, poseTemplates } from './pose.js';
import { CAGE_INFLUENCES, type TemplateRig } from './rig.js';

/**
 * The rotation extraction's stopping step (rad): converged well below float32 precision. It starts
 * afresh each frame (not from the last frame's), so a pose always gives the same correction.
 */
const ROTATION_TOLERANCE = 1e-12;

/**
 * Per cage vertex, the templates' correction for a pose: c′_k where the templates put it
 * (Eq. 1–4), c°_k where DQS puts it with the cage's skinning weights ({@link TemplateRig.cageSkin}:
 * the skin's around it), and the rigid motion `[R_k | t_k]` from the second to the first: R_k the
 * rotation of the vertex's ring (the cage is rings around the limb, `fitChain`; an end cap's
 * apex takes its ring's) from the DQS-posed cage to the templates', the rotation closest to the
 * map between their centred ring vertices (Kabsch; extracted as Müller, Bender, Chentanez,
 * Macklin, "A Robust Method to Extract the Rotational Part of Deformations", MIG 2016) —
 * rings turn as a whole under both, so their rotations are well defined even where neighbouring
 * rings turn far apart (a twisted forearm) — and `t_k = c′_k − R_k c°_k`. Allocation-free per call.
 */
export interface CageCorrection {
  /** The correction of the pose `skinning` (16·J, column-major, bind → posed space): fills the arrays below. */
  update(skinning: Float64Array): void;
  /** The cage posed by its templates, 3·m (posed space). */
  readonly posed: Float64Array;
  /** The cage posed by DQS, 3·m (posed space). */
  readonly base: Float32Array;
  /**
   * The corrections as unit dual quaternions, 8·m: real part (x, y, z, w, with w ≥ 0), dual part
   * (x, y, z, w) — `q̂ = q + ε ½ (t ⊗ q)`.
   */
  readonly dualQuaternions: Float64Array;
}

/**
 * The rig's cage as a skinned mesh of its own (no triangles; {@link TemplateRig.cageSkin}'s
 * influences), bind space, for DQS of the cage.
 */
export function templateCageMesh(rig: TemplateRig): SkinnedMesh {
  return { positions: Float32Array.from(rig.cage.positions), triangles: new Uint32Array(0), influences: CAGE_INFLUENCES, ...rig.cageSkin };
}

/**
 * The correction of a rig's cage ({@link CageCorrection}).
 * @param cageDqs DQS of the cage ({@link templateCageMesh}) for skinning matrices, into `out`
 *   (3·m, posed space); default the JavaScript deformer
 */
export function createCageCorrection(rig: TemplateRig, cageDqs?: (skinning: Float64Array, out: Float32Array) => void): CageCorrection {
  const m = rig.cage.positions.length / 3;
  const posed = new Float64Array(3 * m);
  const memo = createTemplateMemo(rig);
  const baseMesh = templateCageMesh(rig);
  const base = { positions: new Float32Array(3 * m) };
  const dq = new Float64Array(8 * m);
  for (let v = 0; v < m; v++) dq[8 * v + 3] = 1;
  const rings = cageRings(rig);
  const A = new Float64Array(16); // Σ posed ⊗ base, centred ring vertices, column-major 4×4
  const q = new Float64Array(4);
  return {
    posed,
    base: base.positions,
    dualQuaternions: dq,
    update(skinning) {
      if (!m) return;
      poseTemplates(rig, skinning, posed, memo);
      if (cageDqs) cageDqs(skinning, base.positions);
      else deformDqs(baseMesh, skinning, base);
      const b = base.positions;
      for (const { first, apexes } of rings) {
        let bx = 0, by = 0, bz = 0, px = 0, py = 0, pz = 0; // prettier-ignore
        for (let v = first; v < first + SIDES; v++) {
          bx += b[3 * v]; by += b[3 * v + 1]; bz += b[3 * v + 2]; // prettier-ignore
          px += posed[3 * v]; py += posed[3 * v + 1]; pz += posed[3 * v + 2]; // prettier-ignore
        }
        A.fill(0);
        for (let v = first; v < first + SIDES; v++) {
          const b0 = b[3 * v] - bx / SIDES, b1 = b[3 * v + 1] - by / SIDES, b2 = b[3 * v + 2] - bz / SIDES; // prettier-ignore
          const p0 = posed[3 * v] - px / SIDES, p1 = posed[3 * v + 1] - py / SIDES, p2 = posed[3 * v + 2] - pz / SIDES; // prettier-ignore
          A[0] += p0 * b0; A[1] += p1 * b0; A[2] += p2 * b0; // prettier-ignore
          A[4] += p0 * b1; A[5] += p1 * b1; A[6] += p2 * b1; // prettier-ignore
          A[8] += p0 * b2; A[9] += p1 * b2; A[10] += p2 * b2; // prettier-ignore
        }
        // A ring's centred vertices are nearly coplanar, so A is nearly of rank 2: its
        // determinant is rounding noise, and the polar iteration slow or undefined. A + c·cof(A)
        // (columns a₁ × a₂, a₂ × a₀, a₀ × a₁) has A's singular vectors and the same closest
        // rotation (for any A; cof(A) = 0 at rank ≤ 1), its third singular value lifted to
        // c·σ₁σ₂ with c = √2/|A|_F ≈ 1/σ, of the others' size: well conditioned, det > 0
        // unless the ring flipped.
        addScaledCofactor(A);
        // Newton's polar iteration (2–5 steps); Müller et al.'s fixed point where det ≤ 0.
        if (!quatPolarRotation(q, 0, A, 0)) quatClosestRotation(q, 0, A, 0, false, { tolerance: ROTATION_TOLERANCE });
        for (let v = first; v < first + SIDES; v++) setCorrection(v);
        for (const v of apexes) setCorrection(v);
      }
      function setCorrection(v: number): void {
        const o = 8 * v;
        const x = (dq[o] = q[0]), y = (dq[o + 1] = q[1]), z = (dq[o + 2] = q[2]), w = (dq[o + 3] = q[3]); // prettier-ignore
        // t = c′ − R c° (R c° by the quaternion: c + 2 q_v × (q_v × c + w c)).
        const cx = b[3 * v], cy = b[3 * v + 1], cz = b[3 * v + 2]; // prettier-ignore
        const ux = y * cz - z * cy + w * cx, uy = z * cx - x * cz + w * cy, uz = x * cy - y * cx + w * cz; // prettier-ignore
        const tx = posed[3 * v] - (cx + 2 * (y * uz - z * uy));
        const ty = posed[3 * v + 1] - (cy + 2 * (z * ux - x * uz));
        const tz = posed[3 * v + 2] - (cz + 2 * (x * uy - y * ux));
        // ½ (t, 0) ⊗ (x, y, z, w)
        dq[o + 4] = 0.5 * (tx * w + ty * z - tz * y);
        dq[o + 5] = 0.5 * (-tx * z + ty * w + tz * x);
        dq[o + 6] = 0.5 * (tx * y - ty * x + tz * w);
        dq[o + 7] = -0.5 * (tx * x + ty * y + tz * z);
      }
    },
  };
}

/** A += c·cof(A) for the 3×3 linear part of the column-major 4×4 A, c = √2 / |A|_F (see its use). */
function addScaledCofactor(A: Float64Array): void {
  const a0x = A[0], a0y = A[1], a0z = A[2], a1x = A[4], a1y = A[5], a1z = A[6], a2x = A[8], a2y = A[9], a2z = A[10]; // prettier-ignore
  const norm = Math.sqrt(a0x * a0x + a0y * a0y + a0z * a0z + a1x * a1x + a1y * a1y + a1z * a1z + a2x * a2x + a2y * a2y + a2z * a2z); // prettier-ignore
  if (!(norm > 0)) return;
  const c = Math.SQRT2 / norm;
  A[0] += c * (a1y * a2z - a1z * a2y); A[1] += c * (a1z * a2x - a1x * a2z); A[2] += c * (a1x * a2y - a1y * a2x); // prettier-ignore
  A[4] += c * (a2y * a0z - a2z * a0y); A[5] += c * (a2z * a0x - a2x * a0z); A[6] += c * (a2x * a0y - a2y * a0x); // prettier-ignore
  A[8] += c * (a0y * a1z - a0z * a1y); A[9] += c * (a0z * a1x - a0x * a1z); A[10] += c * (a0x * a1y - a0y * a1x); // prettier-ignore
}

/**
 * The cage's rings ({@link fitChain}'s layout: per limb its root apex, its rings of SIDES vertices
 * root to leaf, its leaf apex): each ring's first vertex and the apexes that turn with it.
 */
function cageRings(rig: Pick<TemplateRig, 'limbs'>): { first: number; apexes: number[] }[] {
  const rings: { first: number; apexes: number[] }[] = [];
  for (const limb of rig.limbs) {
    const count = (limb.roles.length - 2) / SIDES;
    for (let r = 0; r < count; r++) rings.push({ first: limb.first + 1 + r * SIDES, apexes: [] });
    rings[rings.length - count].apexes.push(limb.first);
    rings[rings.length - 1].apexes.push(limb.first + limb.roles.length - 1);
  }
  return rings;
}

/**
 * A rig's binding compacted per bound skin vertex (CSR): vertex `bound[b]` has the entries
 * `[start[b], start[b + 1])`, each a cage vertex `cage[e]` and its weight `weight[e]` (non-zero).
 */
export interface CompactBinding {
  bound: Uint32Array;
  start: Uint32Array;
  cage: Uint32Array;
  weight: Float64Array;
}

/**
 * The non-zero entries of `rig`'s binding of `n` skin vertices ({@link CompactBinding}).
 * @throws CorskinError when the rig was built for another number of vertices
 */
export function compactBinding(rig: TemplateRig, n: number): CompactBinding {
  const { influences: k, indices, weights } = rig.binding;
  if (indices.length !== k * n) throw new CorskinError(`the template rig was built for ${indices.length / k} vertices, the mesh has ${n}`);
  const bound: number[] = [], cage: number[] = [], weight: number[] = [], start = [0]; // prettier-ignore
  for (let i = 0; i < n; i++) {
    for (let e = k * i; e < k * i + k; e++)
      if (weights[e] !== 0) {
        cage.push(indices[e]);
        weight.push(weights[e]);
      }
    if (cage.length === start[start.length - 1]) continue;
    bound.push(i);
    start.push(cage.length);
  }
  return { bound: Uint32Array.from(bound), start: Uint32Array.from(start), cage: Uint32Array.from(cage), weight: Float64Array.from(weight) };
}

/**
 * The registered `templates` method with corskin's deformer signature: DQS of the whole skin, then
 * each bound vertex's position, normal and tangent moved by its blend of the cage's corrections
 * (see the module comment). Skinning matrices that all reflect (an armature under a mirroring
 * node) are posed unmirrored and the result mirrored back, so a mirrored character gets the mirror
 * image. Per frame it allocates nothing but a closure, after the first call with a given mesh.
 * @throws CorskinError (when called) for a mesh other than the one the rig was built for
 */
export function createTemplateDeformer(rig: TemplateRig): Deformer {
  const correction = createCageCorrection(rig);
  const dq = correction.dualQuaternions;
  let forMesh: SkinnedMesh | undefined;
  let binding: CompactBinding | undefined;
  let scratch = new Float64Array(0);
  return (mesh, matrices, out) => {
    const n = mesh.positions.length / 3;
    if (mesh !== forMesh || !binding) {
      binding = compactBinding(rig, n);
      forMesh = mesh;
    }
    if (scratch.length < matrices.length) scratch = new Float64Array(matrices.length);
    const current = binding;
    poseUnmirrored(
      mesh,
      matrices,
      out,
      (skinning) => {
        deformDqs(mesh, skinning, out);
        if (current.bound.length) correct(mesh, skinning, out, current);
      },
      scratch,
    );
  };

  function correct(mesh: SkinnedMesh, skinning: Float64Array, out: DeformTarget, { bound, start, cage, weight }: CompactBinding): void {
    correction.update(skinning);
    // DQS's result, corrected in place (the writer reads a vertex before it writes it).
    const dqsPosed: SkinnedMesh = {
      ...mesh,
      positions: out.positions,
      normals: mesh.normals && out.normals,
      tangents: mesh.tangents && out.tangents,
    };
    for (let b = 0; b < bound.length; b++) {
      const i = bound[b];
      // The identity for the share left to DQS, then the vertex's cage entries (w ≥ 0: no sign flips).
      let rx = 0, ry = 0, rz = 0, rw = 0, dx = 0, dy = 0, dz = 0, dw = 0, share = 0; // prettier-ignore
      for (let e = start[b], end = start[b + 1]; e < end; e++) {
        const w = weight[e];
        const o = 8 * cage[e];
        share += w;
        rx += w * dq[o]; ry += w * dq[o + 1]; rz += w * dq[o + 2]; rw += w * dq[o + 3]; // prettier-ignore
        dx += w * dq[o + 4]; dy += w * dq[o + 5]; dz += w * dq[o + 6]; dw += w * dq[o + 7]; // prettier-ignore
      }
      rw += Math.max(0, 1 - share);
      writeDualQuaternion(dqsPosed, out, i, rx, ry, rz, rw, dx, dy, dz, dw);
    }
  }
}
