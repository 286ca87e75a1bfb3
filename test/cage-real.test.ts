/**
 * Cages on real meshes: a tube cage around the libigl arm and around CesiumMan's left leg, the
 * cage skinned to the skeleton (Shepard weights), the skin bound with PMVC; bending the skeleton
 * bends the cage and the cage the skin, with every vertex a convex combination of the posed cage
 * (inside its hull) and no NaN.
 */
import { describe, expect, it } from 'vitest';
import { bindToCage } from '../src/cage/bind.js';
import { checkCage } from '../src/cage/cage.js';
import { createCageSkinningDeformer, skinCageToSkeleton, type CageRig } from '../src/cage/rig.js';
import { enclosingTubeCage } from '../src/cage/tube.js';
import { pointsOutside } from '../src/cage/winding-number.js';
import { boundingBoxDiagonal, type SkinnedMesh } from '../src/core/mesh.js';
import { bindPoseSkinningMatrices, skinningMatrices } from '../src/core/pose.js';
import { bindJointPositions, type Skeleton } from '../src/core/skeleton.js';
import { bendPose, findJoint } from '../src/evaluation/standard-poses.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { ARM_GLB, CESIUM_MAN } from './helpers/data.js';

/** The part of `mesh` made of the vertices whose weights all lie on `joints`. */
function part(mesh: SkinnedMesh, joints: number[]): Float32Array {
  const K = mesh.influences;
  const out: number[] = [];
  for (let i = 0; i < mesh.positions.length / 3; i++) {
    let w = 0;
    for (let k = 0; k < K; k++) if (joints.includes(mesh.joints[K * i + k])) w += mesh.weights[K * i + k];
    if (w > 0.999) out.push(...mesh.positions.subarray(3 * i, 3 * i + 3));
  }
  return Float32Array.from(out);
}

function rig(skin: Float32Array, skeleton: Skeleton, chain: number[]): CageRig {
  const P = bindJointPositions(skeleton);
  const cage = enclosingTubeCage(
    skin,
    chain.map((j) => Array.from(P.subarray(3 * j, 3 * j + 3))),
  );
  checkCage(cage);
  expect(pointsOutside(cage, skin)).toEqual([]);
  const binding = bindToCage(skin, cage);
  const w = skinCageToSkeleton(cage, skeleton);
  return { cage, binding, cageInfluences: w.influences, cageJoints: w.joints, cageWeights: w.weights };
}

/** Bends `joint` by `degrees`, deforms through the cage; checks hull membership and NaN; returns the largest displacement / diagonal. */
function bendThroughCage(skin: Float32Array, skeleton: Skeleton, r: CageRig, joint: number, degrees: number): number {
  const mesh = { positions: skin, triangles: new Uint32Array(0) } as unknown as SkinnedMesh;
  const pose = bendPose(skeleton, joint, [0, 1, 0], (degrees * Math.PI) / 180);
  const deform = createCageSkinningDeformer(r);
  const out = { positions: new Float32Array(skin.length) };
  deform(mesh, bindPoseSkinningMatrices(skeleton), out);
  const diag = boundingBoxDiagonal(skin);
  for (let i = 0; i < skin.length; i++) expect(Math.abs(out.positions[i] - skin[i])).toBeLessThan(1e-6 * diag);
  // The posed cage, then the posed skin.
  const S = skinningMatrices(skeleton, pose);
  deform(mesh, S, out);
  // The posed cage by LBS, written here: every posed vertex must be Σ w_k c′_k with w ≥ 0, Σ w = 1.
  const m = r.cage.positions.length / 3;
  const cagePosed = new Float64Array(3 * m);
  for (let c = 0; c < m; c++)
    for (let s = 0; s < r.cageInfluences; s++) {
      const w = r.cageWeights[r.cageInfluences * c + s],
        o = 16 * r.cageJoints[r.cageInfluences * c + s];
      const [x, y, z] = r.cage.positions.subarray(3 * c, 3 * c + 3);
      for (let a = 0; a < 3; a++)
        cagePosed[3 * c + a] += w * (S[o + a] * x + S[o + 4 + a] * y + S[o + 8 + a] * z + S[o + 12 + a]);
    }
  let moved = 0;
  const k = r.binding.influences;
  for (let i = 0; i < skin.length / 3; i++) {
    for (let c = 0; c < 3; c++) expect(Number.isFinite(out.positions[3 * i + c])).toBe(true);
    let sum = 0;
    for (let s = 0; s < k; s++) {
      expect(r.binding.weights[k * i + s]).toBeGreaterThanOrEqual(0);
      sum += r.binding.weights[k * i + s];
    }
    expect(sum).toBeCloseTo(1, 5);
    const hull = [0, 1, 2].map((a) => {
      let v = 0;
      for (let s = 0; s < k; s++) v += r.binding.weights[k * i + s] * cagePosed[3 * r.binding.indices[k * i + s] + a];
      return v;
    });
    expect(Math.hypot(...hull.map((v, a) => v - out.positions[3 * i + a]))).toBeLessThan(1e-5 * diag);
    moved = Math.max(
      moved,
      Math.hypot(
        out.positions[3 * i] - skin[3 * i],
        out.positions[3 * i + 1] - skin[3 * i + 1],
        out.positions[3 * i + 2] - skin[3 * i + 2],
      ),
    );
  }
  return moved / diag;
}

describe('cages on real meshes', () => {
  it('the libigl arm: a tube cage binds, and bending the elbow 90° bends the arm inside the posed cage', async () => {
    const [arm] = extractSkinnedModels(await readDocument(ARM_GLB), ARM_GLB);
    const skin = arm.mesh.positions;
    const r = rig(skin, arm.skeleton, [1, 2, 3]); // shoulder, elbow, wrist (bone0 is a short stub across)
    expect(bendThroughCage(skin, arm.skeleton, r, findJoint(arm.skeleton, 'bone2'), 90)).toBeGreaterThan(0.1);
  });

  it("CesiumMan's left leg: a tube cage binds, and bending the knee 60° bends the leg inside the posed cage", async () => {
    const [man] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
    const leg = ['leg_joint_L_1', 'leg_joint_L_2', 'leg_joint_L_3', 'leg_joint_L_5'].map((n) =>
      findJoint(man.skeleton, n),
    );
    const skin = part(man.mesh, leg);
    expect(skin.length / 3).toBeGreaterThan(150);
    const r = rig(skin, man.skeleton, leg);
    expect(bendThroughCage(skin, man.skeleton, r, leg[1], 60)).toBeGreaterThan(0.1);
  });
});
