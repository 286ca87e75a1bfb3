/**
 * The library's entry points name what is wrong with their input instead of returning NaN or an
 * invalid file (found by an independent review of the API against its TSDoc), on CesiumMan.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { samplePose } from '../src/core/animation.js';
import { CorskinError } from '../src/core/errors.js';
import { restPose, rotateJointWorld, skinningMatrices } from '../src/core/pose.js';
import { distributeTwist } from '../src/core/twist.js';
import { computeCentersOfRotation } from '../src/cor/precompute.js';
import { deform } from '../src/deformers/index.js';
import { extractSkinnedModels, setCentersOfRotation, type SkinnedModel } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { CESIUM_MAN } from './helpers/data.js';

describe('checked input', () => {
  let model: SkinnedModel;
  let S: Float64Array;
  beforeAll(async () => {
    [model] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
    S = skinningMatrices(model.skeleton, restPose(model.skeleton));
  });

  it('deform: joints or weights that do not hold K influences per vertex, or K = 0 (they gave NaN, or zeros)', () => {
    const n = model.mesh.positions.length / 3;
    const short = { ...model.mesh, joints: model.mesh.joints.subarray(0, 100) };
    expect(() => deform('lbs', short, S)).toThrow(
      `mesh joints and weights must hold 4 influences for each of the ${n} vertices (${4 * n} each), got 100 and ${4 * n}`,
    );
    expect(() => deform('dqs', { ...model.mesh, influences: 0 }, S)).toThrow(
      'mesh influences per vertex must be a whole number ≥ 1, got 0',
    );
    // The same mesh, whole, deforms.
    expect(deform('lbs', model.mesh, S).positions.every(Number.isFinite)).toBe(true);
  });

  it('deform cor: centers of the wrong length are named as such', () => {
    const mesh = { ...model.mesh, centersOfRotation: new Float32Array(30) };
    expect(() => deform('cor', mesh, S)).toThrow(
      `CoR skinning: 30 numbers of centers of rotation for ${model.mesh.positions.length / 3} vertices`,
    );
  });

  it('computeCentersOfRotation: weights cut short, a triangle naming a vertex the mesh lacks', () => {
    const n = model.mesh.positions.length / 3;
    expect(() => computeCentersOfRotation({ ...model.mesh, weights: model.mesh.weights.subarray(0, 10) })).toThrow(
      CorskinError,
    );
    const triangles = model.mesh.triangles.slice();
    triangles[7] = 999_999;
    expect(() => computeCentersOfRotation({ ...model.mesh, triangles })).toThrow(
      `triangle 2 references vertex 999999 ≥ ${n}`,
    );
  });

  it('setCentersOfRotation: centers not 3·n long (it wrote an accessor the validator rejects)', async () => {
    const doc = await readDocument(CESIUM_MAN);
    const [m] = extractSkinnedModels(doc, CESIUM_MAN);
    expect(() => setCentersOfRotation(doc, m, new Float32Array(30), { sigma: 0.1, epsilon: 0.1 })).toThrow(
      `centers of rotation: 30 numbers for ${m.mesh.positions.length / 3} vertices`,
    );
  });

  it('rotateJointWorld: a NaN axis or angle, a joint that is not an index (NaN rotations, a misleading error)', () => {
    const pose = restPose(model.skeleton);
    expect(() => rotateJointWorld(model.skeleton, pose, 3, [NaN, 0, 1], 1)).toThrow('finite, non-zero length');
    expect(() => rotateJointWorld(model.skeleton, pose, 3, [0, 0, 1], NaN)).toThrow('finite number of radians');
    expect(() => rotateJointWorld(model.skeleton, pose, 1.5, [0, 0, 1], 1)).toThrow('not a whole number');
    expect(pose.rotations.every(Number.isFinite)).toBe(true);
  });

  it('samplePose: a time that is not a number (NaN rotations, then an error blaming a translation)', () => {
    expect(() => samplePose(model.skeleton, model.animations[0], NaN)).toThrow(RangeError);
    expect(() => samplePose(model.skeleton, model.animations[0], Infinity)).toThrow('finite number of seconds');
  });

  it('distributeTwist: a twist joint outside the skeleton', () => {
    const pose = restPose(model.skeleton);
    expect(() => distributeTwist(model.skeleton, pose, [{ joint: 2, twist: 999, axis: [1, 0, 0] }])).toThrow(
      'not joints of the skeleton',
    );
  });
});
