/**
 * A cage rigged to a skeleton: the cage vertices skinned by linear blend skinning, the skin bound
 * to the cage. Posing the skeleton poses the cage, and the cage poses the skin — the baseline
 * that skinning templates improve on (Ju, Zhou, van de Panne, Cohen-Or, Neumann, "Reusable
 * Skinning Templates Using Cage-based Deformations", ACM TOG 27(5), SIGGRAPH Asia 2008, Fig. 3).
 *
 * @module
 */
import type { SkinnedMesh } from '../core/mesh.js';
import { bindJointPositions, jointCount, type Skeleton } from '../core/skeleton.js';
import type { Deformer } from '../deformers/contract.js';
import { boneSegments, shepardWeights } from '../weights/shepard.js';
import type { CageBinding } from './bind.js';
import type { Cage } from './cage.js';
import { createCageDeformer, type CageDeformer } from './deform.js';

/** A cage skinned to a skeleton, with a skin bound to it. */
export interface CageRig {
  /** The cage, bind space. */
  cage: Cage;
  /** The skin's binding to the cage (`bindToCage`). */
  binding: CageBinding;
  /** The cage vertices' influences: count per vertex, joints and weights (K·m each). */
  cageInfluences: number;
  /** Joint of each cage influence, K·m. */
  cageJoints: Uint32Array;
  /** Weight of each cage influence, K·m, summing to 1 per cage vertex. */
  cageWeights: Float32Array;
}

/**
 * Skins the cage vertices to `skeleton` with Shepard automatic weights (Yang & Zhang, "Stretch
 * smooth skinning", 2006, Eq. 3) against the bind-space bones (joint → each child joint; a leaf
 * joint is a point).
 */
export function skinCageToSkeleton(
  cage: Cage,
  skeleton: Skeleton,
  influences = 4,
): {
  /** K: slots per cage vertex (`influences`). */
  influences: number;
  /** Joint of each slot, nearest bone first, K·m. */
  joints: Uint32Array;
  /** Weight of each slot, K·m, summing to 1 per cage vertex. */
  weights: Float32Array;
} {
  const P = bindJointPositions(skeleton);
  const J = jointCount(skeleton);
  const at = (j: number) => Array.from(P.subarray(3 * j, 3 * j + 3));
  const bones = Array.from({ length: J }, (_, j) => {
    const children = [...skeleton.parents.keys()].filter((c) => skeleton.parents[c] === j);
    return children.length ? children.map((c) => [...at(j), ...at(c)]) : [[...at(j), ...at(j)]];
  });
  return shepardWeights(cage.positions, boneSegments(bones), { influences });
}

/**
 * The {@link Deformer} of a cage rig: linear blend skinning of the cage vertices by the skinning
 * matrices, then the cage deformation of the mesh. Allocation-free per frame after the first call
 * with a given mesh.
 */
export function createCageSkinningDeformer(rig: CageRig): Deformer {
  const m = rig.cage.positions.length / 3;
  const K = rig.cageInfluences;
  const posed = new Float64Array(3 * m);
  const rest = rig.cage.positions;
  let forMesh: SkinnedMesh | undefined;
  let deformer: CageDeformer | undefined;
  return (mesh, skinning, out) => {
    if (mesh !== forMesh) {
      deformer = createCageDeformer(mesh, rig.binding, rest);
      forMesh = mesh;
    }
    for (let i = 0; i < m; i++) {
      const x = rest[3 * i], y = rest[3 * i + 1], z = rest[3 * i + 2];
      let px = 0, py = 0, pz = 0;
      for (let s = K * i; s < K * i + K; s++) {
        const w = rig.cageWeights[s];
        if (!w) continue;
        const o = 16 * rig.cageJoints[s];
        px += w * (skinning[o] * x + skinning[o + 4] * y + skinning[o + 8] * z + skinning[o + 12]);
        py += w * (skinning[o + 1] * x + skinning[o + 5] * y + skinning[o + 9] * z + skinning[o + 13]);
        pz += w * (skinning[o + 2] * x + skinning[o + 6] * y + skinning[o + 10] * z + skinning[o + 14]);
      }
      posed[3 * i] = px;
      posed[3 * i + 1] = py;
      posed[3 * i + 2] = pz;
    }
    deformer!.deform(posed, out);
  };
}
