/**
 * Morph targets (glTF blend shapes) of a skinned mesh, applied before skinning: the bind-space
 * mesh is displaced by `Σ_t w_t Δ_t` at the pose's morph weights, then skinned — glTF's order
 * (morph, then skin). Centers of rotation stay those of the unmorphed bind pose: they depend on
 * the weights and the rest shape, and facial or corrective shapes move vertices by far less
 * than a bone length.
 *
 * @module
 */
import { sampleValues, type Interpolation } from './animation.js';
import type { SkinnedMesh } from './mesh.js';

/** One morph target's displacements of a range of the merged mesh's vertices (bind space). */
export interface MorphTarget {
  /** First vertex of the range in the merged mesh. */
  vertexOffset: number;
  /** Number of vertices in the range. */
  vertexCount: number;
  /** Position displacements, length 3·vertexCount, asset units. */
  positions?: Float32Array;
  /** Normal displacements, length 3·vertexCount. */
  normals?: Float32Array;
  /** Tangent (x, y, z) displacements, length 3·vertexCount. */
  tangents?: Float32Array;
}

/**
 * The morph targets driven by one weight vector (one glTF mesh, whose primitives share its
 * weights): `targets[t]` lists the vertex ranges that weight t moves.
 */
export interface MorphGroup {
  /** The glTF mesh's name. */
  name: string;
  /** Default weights (the node's, else the mesh's; zeros when neither), length T. */
  weights: Float64Array;
  /** Per target t (length T), the vertex ranges that weight t displaces (one per primitive that has it). */
  targets: MorphTarget[][];
}

/** An animated weight vector (a glTF `weights` channel with its sampler). */
export interface MorphChannel {
  /** Index of the {@link MorphGroup} it drives. */
  group: number;
  /** How values are interpolated between keys (glTF sampler mode). */
  interpolation: Interpolation;
  /** Key times in seconds, ascending, length K. */
  times: Float32Array | Float64Array;
  /** K·T numbers (3·K·T for CUBICSPLINE, per key in-tangents, values, out-tangents). */
  values: Float32Array | Float64Array;
}

/**
 * The morph weights of every group at `time` of `channels` (default weights where a group is not
 * animated; LINEAR, STEP and CUBICSPLINE as glTF; clamped to the keys).
 * @returns one Float64Array per group, length T of the group
 */
export function sampleMorphWeights(
  groups: readonly MorphGroup[],
  channels: readonly MorphChannel[],
  time: number,
): Float64Array[] {
  const out = groups.map((g) => g.weights.slice());
  for (const ch of channels) {
    const w = out[ch.group];
    if (w && w.length) sampleValues(ch, w.length, false, time, w, 0);
  }
  return out;
}

/**
 * The mesh displaced by its morph targets at `weights` (bind space): positions `+ Σ w_t Δp_t`,
 * normals and tangents displaced likewise and renormalised; everything else shared with `mesh`.
 * Returns `mesh` itself when every weight is 0.
 * @param weights one array per group, as {@link sampleMorphWeights} returns
 * @param renormalise false: normals and tangents left as summed, not renormalised (what an engine
 * skins: glTF 2.0, "Morph Targets")
 */
export function applyMorphTargets(
  mesh: SkinnedMesh,
  groups: readonly MorphGroup[],
  weights: readonly Float64Array[],
  renormalise = true,
): SkinnedMesh {
  if (!weights.some((w) => w.some((x) => x !== 0))) return mesh;
  const out: SkinnedMesh = {
    ...mesh,
    positions: mesh.positions.slice(),
    normals: mesh.normals?.slice(),
    tangents: mesh.tangents?.slice(),
  };
  const touched = new Uint8Array(mesh.positions.length / 3);
  groups.forEach((g, gi) => {
    g.targets.forEach((ranges, t) => {
      const w = weights[gi]?.[t] ?? 0;
      if (w === 0) return;
      for (const r of ranges) {
        const add = (dst: Float32Array | undefined, stride: number, delta: Float32Array | undefined) => {
          if (!dst || !delta) return;
          for (let i = 0; i < r.vertexCount; i++) {
            const o = stride * (r.vertexOffset + i);
            dst[o] += w * delta[3 * i];
            dst[o + 1] += w * delta[3 * i + 1];
            dst[o + 2] += w * delta[3 * i + 2];
          }
        };
        add(out.positions, 3, r.positions);
        add(out.normals, 3, r.normals);
        add(out.tangents, 4, r.tangents);
        if (r.normals || r.tangents) touched.fill(1, r.vertexOffset, r.vertexOffset + r.vertexCount);
      }
    });
  });
  for (let i = 0; renormalise && i < touched.length; i++) {
    if (!touched[i]) continue;
    for (const [a, s] of [
      [out.normals, 3],
      [out.tangents, 4],
    ] as const) {
      if (!a) continue;
      const l = Math.hypot(a[s * i], a[s * i + 1], a[s * i + 2]) || 1;
      a[s * i] /= l;
      a[s * i + 1] /= l;
      a[s * i + 2] /= l;
    }
  }
  return out;
}
