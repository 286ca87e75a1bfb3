/**
 * The cage deformer: posed cage vertices → posed skin, in the displacement form of Ju, Zhou,
 * van de Panne, Cohen-Or, Neumann, "Reusable Skinning Templates Using Cage-based Deformations",
 * ACM TOG 27(5), SIGGRAPH Asia 2008: `x′_i = x_i + Σ_k w_ik (c′_k − c_k)`, which reproduces the bind
 * pose exactly. Normals and tangents follow the surface: each vertex's authored normal and tangent
 * are turned by the smallest rotation taking its area-weighted rest normal to its posed one
 * (authored hard edges and seams are kept; normal and tangent stay orthogonal), then by the turn
 * about the posed normal that one of the vertex's edges shows (the minimal rotation has none), so
 * a rigid motion of the cage turns them exactly, however far the authored normal leans from the
 * area-weighted one.
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';
import { computeVertexNormals } from '../core/mesh.js';
import type { DeformTarget } from '../deformers/contract.js';
import type { CageBinding } from './bind.js';

/** The skin a cage drives, bind space. */
export interface CageSkin {
  /** Rest positions, 3·n. */
  positions: Float32Array;
  /** Unit rest normals, 3·n, when the mesh has them. */
  normals?: Float32Array;
  /** Rest tangents (x, y, z, w = ±1), 4·n, when the mesh has them. */
  tangents?: Float32Array;
  /** Triangles, 3·t (for the posed normals). */
  triangles: Uint32Array;
}

/** A cage deformer made for one skin, binding and rest cage; allocation-free per frame. */
export interface CageDeformer {
  /**
   * Writes the skin posed by `posedCage` (cage vertex positions, 3·m, same space as the rest
   * cage) into `out` (positions 3·n; normals 3·n and tangents 4·n when both sides have them).
   * @param displacement added to each vertex's position (3·n) before the normals and tangents
   *   follow the surface (a skinning term the cage does not carry)
   * @throws CorskinError when an array is too short
   */
  deform(posedCage: ArrayLike<number>, out: DeformTarget, displacement?: ArrayLike<number>): void;
}

/**
 * Prepares the cage deformation of `skin` by `binding` (from `bindToCage`) relative to the rest
 * cage positions `restCage` (3·m).
 * @throws CorskinError when the binding does not fit the skin or the cage
 */
export function createCageDeformer(skin: CageSkin, binding: CageBinding, restCage: ArrayLike<number>): CageDeformer {
  const n = skin.positions.length / 3;
  const m = restCage.length / 3;
  const k = binding.influences;
  const { indices, weights } = binding;
  if (indices.length !== k * n || weights.length !== k * n)
    throw new CorskinError(`the cage binding has ${indices.length / k} vertices, the skin ${n}`);
  for (let s = 0; s < indices.length; s++)
    if (indices[s] >= m) throw new CorskinError(`the cage binding names cage vertex ${indices[s]} of ${m}`);
  const rest = skin.positions;
  const restCageCopy = Float64Array.from(restCage);
  const disp = new Float64Array(3 * m);
  const restFaceNormals = skin.normals || skin.tangents ? computeVertexNormals(rest, skin.triangles) : undefined;
  const acc = restFaceNormals ? new Float64Array(3 * n) : undefined;
  // For the twist about the normal: one neighbour of each vertex (−1: none).
  const neighbour = new Int32Array(n).fill(-1);
  if (restFaceNormals)
    for (let f = 0; f < skin.triangles.length; f += 3)
      for (let c = 0; c < 3; c++) if (neighbour[skin.triangles[f + c]] < 0) neighbour[skin.triangles[f + c]] = skin.triangles[f + ((c + 1) % 3)];
  const e = new Float64Array(3);
  return {
    deform(posedCage, out, displacement) {
      if (posedCage.length < 3 * m) throw new CorskinError(`posed cage has ${posedCage.length / 3} vertices, the cage ${m}`);
      if (out.positions.length < 3 * n) throw new CorskinError(`output positions hold fewer than ${n} vertices`);
      for (let c = 0; c < 3 * m; c++) disp[c] = posedCage[c] - restCageCopy[c];
      const pos = out.positions;
      for (let i = 0; i < n; i++) {
        let x = 0, y = 0, z = 0;
        for (let s = k * i, end = s + k; s < end; s++) {
          const w = weights[s];
          const c = 3 * indices[s];
          x += w * disp[c];
          y += w * disp[c + 1];
          z += w * disp[c + 2];
        }
        pos[3 * i] = rest[3 * i] + x;
        pos[3 * i + 1] = rest[3 * i + 1] + y;
        pos[3 * i + 2] = rest[3 * i + 2] + z;
      }
      if (displacement) for (let c = 0; c < 3 * n; c++) pos[c] += displacement[c];
      const normals = skin.normals && out.normals ? out.normals : undefined;
      const tangents = skin.tangents && out.tangents ? out.tangents : undefined;
      if (!(normals || tangents) || !acc || !restFaceNormals) return;
      if (normals && normals.length < 3 * n) throw new CorskinError(`output normals hold fewer than ${n} vertices`);
      if (tangents && tangents.length < 4 * n) throw new CorskinError(`output tangents hold fewer than ${n} vertices`);
      // Area-weighted posed normals.
      acc.fill(0);
      const tri = skin.triangles;
      for (let f = 0; f < tri.length; f += 3) {
        const a = 3 * tri[f], b = 3 * tri[f + 1], c = 3 * tri[f + 2];
        const ux = pos[b] - pos[a], uy = pos[b + 1] - pos[a + 1], uz = pos[b + 2] - pos[a + 2];
        const vx = pos[c] - pos[a], vy = pos[c + 1] - pos[a + 1], vz = pos[c + 2] - pos[a + 2];
        const nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
        acc[a] += nx; acc[a + 1] += ny; acc[a + 2] += nz;
        acc[b] += nx; acc[b + 1] += ny; acc[b + 2] += nz;
        acc[c] += nx; acc[c + 1] += ny; acc[c + 2] += nz;
      }
      for (let i = 0; i < n; i++) {
        const ax = restFaceNormals[3 * i], ay = restFaceNormals[3 * i + 1], az = restFaceNormals[3 * i + 2];
        let bx = acc[3 * i], by = acc[3 * i + 1], bz = acc[3 * i + 2];
        const l = Math.sqrt(bx * bx + by * by + bz * bz);
        // Rotation a → b: v′ = v cos + (k × v) + k (k·v) / (1 + cos), k = a × b.
        let kx = 0, ky = 0, kz = 0, cos = 1;
        const framed = l > 0 && (ax !== 0 || ay !== 0 || az !== 0);
        if (framed) {
          bx /= l; by /= l; bz /= l;
          cos = ax * bx + ay * by + az * bz;
          kx = ay * bz - az * by; ky = az * bx - ax * bz; kz = ax * by - ay * bx;
          if (cos < -1 + 1e-9) { cos = 1; kx = ky = kz = 0; } // turned inside out: leave the frame
        }
        const f = 1 / (1 + cos);
        // The minimal rotation has no twist about the normal: measure it on an edge (its rest
        // direction so turned, against its posed one, both in the posed tangent plane). Authored
        // normals need it as much as tangents: they can lean far from the area-weighted normal
        // (Soldier.glb: median 17° at rest).
        let tsin = 0, tcos = 1; // prettier-ignore
        const j = neighbour[i];
        if (j >= 0 && framed) {
          for (let c = 0; c < 3; c++) e[c] = rest[3 * j + c] - rest[3 * i + c];
          turn(kx, ky, kz, cos, f, e, 0, e);
          const px = pos[3 * j] - pos[3 * i], py = pos[3 * j + 1] - pos[3 * i + 1], pz = pos[3 * j + 2] - pos[3 * i + 2];
          const d1 = e[0] * bx + e[1] * by + e[2] * bz, d2 = px * bx + py * by + pz * bz;
          const ux = e[0] - d1 * bx, uy = e[1] - d1 * by, uz = e[2] - d1 * bz;
          const vx = px - d2 * bx, vy = py - d2 * by, vz = pz - d2 * bz;
          const sin = (uy * vz - uz * vy) * bx + (uz * vx - ux * vz) * by + (ux * vy - uy * vx) * bz;
          const co = ux * vx + uy * vy + uz * vz;
          const r = Math.hypot(sin, co);
          if (r > 0) {
            tsin = sin / r;
            tcos = co / r;
          }
        }
        if (normals) {
          turn(kx, ky, kz, cos, f, skin.normals!, 3 * i, normals);
          twist(bx, by, bz, tsin, tcos, normals, 3 * i);
        }
        if (tangents) {
          turn(kx, ky, kz, cos, f, skin.tangents!, 4 * i, tangents);
          twist(bx, by, bz, tsin, tcos, tangents, 4 * i);
          tangents[4 * i + 3] = skin.tangents![4 * i + 3];
        }
      }
    },
  };
}

/** v[o..o+3) turned in place about the unit axis b by the angle of sine `sin` and cosine `cos`. */
function twist(bx: number, by: number, bz: number, sin: number, cos: number, v: Float32Array, o: number): void {
  if (sin === 0 && cos === 1) return;
  if (cos > -1 + 1e-9) turn(bx * sin, by * sin, bz * sin, cos, 1 / (1 + cos), v, o, v);
  else {
    // A half turn: v′ = 2 (b·v) b − v.
    const bv = 2 * (v[o] * bx + v[o + 1] * by + v[o + 2] * bz);
    v[o] = bv * bx - v[o];
    v[o + 1] = bv * by - v[o + 1];
    v[o + 2] = bv * bz - v[o + 2];
  }
}

/** out[o..o+3) = v[o..o+3) turned by the rotation with axis·sin k and cosine `cos` (f = 1 / (1 + cos)). */
function turn(kx: number, ky: number, kz: number, cos: number, f: number, v: Float32Array | Float64Array, o: number, out: Float32Array | Float64Array): void {
  const vx = v[o], vy = v[o + 1], vz = v[o + 2];
  const kv = (kx * vx + ky * vy + kz * vz) * f;
  out[o] = vx * cos + (ky * vz - kz * vy) + kx * kv;
  out[o + 1] = vy * cos + (kz * vx - kx * vz) + ky * kv;
  out[o + 2] = vz * cos + (kx * vy - ky * vx) + kz * kv;
}
