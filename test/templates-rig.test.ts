/**
 * Skinning templates around joint chains (the bar of Le & Hodgins 2016's benchmark and the libigl
 * arm): the assembled cage is a valid closed cage around the whole skin, the rest pose and a rigid
 * motion of the skeleton are reproduced, and the default templates keep the cross-section where
 * LBS collapses (twists of 90°, 135°, 180°, bends of 90° and 126°), with no more
 * self-intersections than CoR.
 */
import { describe, expect, it } from 'vitest';
import { checkCage } from '../src/cage/cage.js';
import { pointsOutside } from '../src/cage/winding-number.js';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { bindPoseSkinningMatrices, skinningMatrices } from '../src/core/pose.js';
import { computeCentersOfRotation } from '../src/cor/precompute.js';
import { deform } from '../src/deformers/index.js';
import { armBenchmark, barBenchmark, rigidCase, type Benchmark } from '../src/evaluation/benchmark.js';
import { measureJointQuality, restPositions } from '../src/evaluation/joint-quality.js';
import { bendPose, twistPose } from '../src/evaluation/standard-poses.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { selfIntersections } from '../src/metrics/surface.js';
import { weldByPosition } from '../src/metrics/weld.js';
import { buildChainTemplateRig, createChainTemplateDeformer } from '../src/templates/chain-rig.js';
import { ARM_GLB } from './helpers/data.js';

const deg = Math.PI / 180;
const benches: [string, () => Promise<Benchmark>][] = [
  ['the bar', async () => barBenchmark()],
  ['the libigl arm', async () => armBenchmark(extractSkinnedModels(await readDocument(ARM_GLB), ARM_GLB)[0])],
];

describe.each(benches)('chain templates on %s', (_name, load) => {
  it('build a closed, outward cage around every skin vertex; reproduce the bind pose and a rigid motion', async () => {
    const bench = await load();
    const rig = buildChainTemplateRig(bench.mesh, bench.skeleton);
    expect(() => checkCage(rig.cage)).not.toThrow();
    expect(pointsOutside(rig.cage, bench.mesh.positions)).toEqual([]);
    const diag = boundingBoxDiagonal(bench.mesh.positions);
    const n = bench.mesh.positions.length / 3;
    const out = { positions: new Float32Array(3 * n) };
    const templates = createChainTemplateDeformer(rig);
    templates(bench.mesh, bindPoseSkinningMatrices(bench.skeleton), out);
    let err = 0;
    for (let i = 0; i < 3 * n; i++) err = Math.max(err, Math.abs(out.positions[i] - bench.mesh.positions[i]));
    expect(err).toBeLessThan(1e-5 * diag);
    const S = skinningMatrices(bench.skeleton, rigidCase(bench).pose);
    templates(bench.mesh, S, out);
    const lbs = deform('lbs', bench.mesh, S).positions; // exact for a rigid motion
    err = 0;
    for (let i = 0; i < 3 * n; i++) err = Math.max(err, Math.abs(out.positions[i] - lbs[i]));
    expect(err).toBeLessThan(1e-5 * diag);
  });

  it('keep the smallest cross-section ≥ 0.8 of rest under twists of 90°–180° and bends of 90° and 126°, with no more self-intersections than CoR', async () => {
    const bench = await load();
    const j = bench.cases[0].joint;
    const poses = [
      ...[90, 135, 180].map((a) => twistPose(bench.skeleton, j, a * deg)),
      ...[90, 126].map((a) => bendPose(bench.skeleton, j, [0, 0, 1], a * deg)),
    ];
    const rig = buildChainTemplateRig(bench.mesh, bench.skeleton);
    const templates = createChainTemplateDeformer(rig);
    const withCenters = { ...bench.mesh, centersOfRotation: computeCentersOfRotation(bench.mesh).centers };
    const rest = restPositions(bench.mesh, bench.skeleton);
    const weld = weldByPosition(rest);
    const n = bench.mesh.positions.length / 3;
    for (const pose of poses) {
      const S = skinningMatrices(bench.skeleton, pose);
      const out = { positions: new Float32Array(3 * n) };
      templates(bench.mesh, S, out);
      const q = measureJointQuality(bench.mesh, bench.skeleton, pose, out.positions, j, 0.1, rest);
      const lbs = measureJointQuality(
        bench.mesh,
        bench.skeleton,
        pose,
        deform('lbs', bench.mesh, S).positions,
        j,
        0.1,
        rest,
      );
      const cor = deform('cor', withCenters, S).positions;
      expect(q.minRadiusRatio).toBeGreaterThanOrEqual(0.8);
      expect(q.minRadiusRatio).toBeGreaterThan(lbs.minRadiusRatio);
      expect(selfIntersections(out.positions, bench.mesh.triangles, weld)).toBeLessThanOrEqual(
        selfIntersections(cor, bench.mesh.triangles, weld),
      );
    }
  });
});
