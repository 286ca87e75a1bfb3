/**
 * The artifacts of seed 000, Fig. 2, in numbers, on the bundled libigl arm (dense bounded
 * biharmonic weights): LBS's candy wrapper and collapse, DQS's bulge, CoR's fix.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { skinningMatrices, type Pose } from '../src/core/pose.js';
import { computeCentersOfRotation } from '../src/cor/precompute.js';
import { deform } from '../src/deformers/index.js';
import { measureJointQuality, type JointQuality } from '../src/evaluation/joint-quality.js';
import { bendPose, findJoint, twistPose } from '../src/evaluation/standard-poses.js';
import { extractSkinnedModels, type SkinnedModel } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { ARM_GLB } from './helpers/data.js';

let arm: SkinnedModel;
let joint: number;
beforeAll(async () => {
  [arm] = extractSkinnedModels(await readDocument(ARM_GLB), ARM_GLB);
  arm.mesh.centersOfRotation = computeCentersOfRotation(arm.mesh).centers;
  joint = findJoint(arm.skeleton, 'bone2'); // base of TGF edge "3 4"
}, 900_000);

function measure(pose: Pose): Record<'lbs' | 'dqs' | 'cor', JointQuality> {
  const S = skinningMatrices(arm.skeleton, pose);
  const q = (m: 'lbs' | 'dqs' | 'cor') =>
    measureJointQuality(arm.mesh, arm.skeleton, pose, deform(m, arm.mesh, S).positions, joint);
  return { lbs: q('lbs'), dqs: q('dqs'), cor: q('cor') };
}

describe('arm twisted about its third bone', () => {
  // Ring radii about each ring's own centroid, 5th percentile: the arm's rings sit off the bone
  // axis, so even a twist without collapse reshapes them a little (DQS, CoR ≈ 0.65).
  it('180°: LBS collapses below 20% of the rest radius, DQS and CoR stay above 60% (4× LBS)', () => {
    const q = measure(twistPose(arm.skeleton, joint, Math.PI));
    expect(q.lbs.minRadiusRatio).toBeLessThan(0.2);
    expect(q.dqs.minRadiusRatio).toBeGreaterThan(Math.max(0.6, 4 * q.lbs.minRadiusRatio));
    expect(q.cor.minRadiusRatio).toBeGreaterThan(Math.max(0.6, 4 * q.lbs.minRadiusRatio));
    expect(q.lbs.volumeRatio).toBeLessThan(q.cor.volumeRatio);
  });

  it('135°: LBS falls below cos(67.5°) + 0.05 (the 50/50 ring), DQS and CoR stay above 70%', () => {
    const q = measure(twistPose(arm.skeleton, joint, 0.75 * Math.PI));
    expect(q.lbs.minRadiusRatio).toBeLessThan(Math.cos((0.75 * Math.PI) / 2) + 0.05);
    expect(q.dqs.minRadiusRatio).toBeGreaterThan(0.7);
    expect(q.cor.minRadiusRatio).toBeGreaterThan(0.7);
  });
});

describe('arm bent 126° about the world z axis', () => {
  it('DQS bulges more than CoR, and LBS loses more volume than CoR', () => {
    const q = measure(bendPose(arm.skeleton, joint, [0, 0, 1], 0.7 * Math.PI));
    expect(q.dqs.maxRadiusRatio).toBeGreaterThan(q.cor.maxRadiusRatio);
    expect(q.dqs.maxRadiusRatio).toBeGreaterThan(1.05);
    expect(1 - q.lbs.volumeRatio).toBeGreaterThan(Math.abs(1 - q.cor.volumeRatio));
    expect(q.lbs.minRadiusRatio).toBeLessThan(q.cor.minRadiusRatio);
  });
});
