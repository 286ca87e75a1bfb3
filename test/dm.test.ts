/**
 * Delta Mush (method `dm`, Mancewicz et al. 2014): analytic properties on the shared characters
 * (the bind pose gives the bind mesh back; a rigid motion, a uniform scale and a mirroring of the
 * whole skeleton move the mesh as one piece; no smoothing is LBS), parameter errors naming the
 * parameter, and Blender 3.4's Corrective Smooth as the independent reference: the same file
 * imported by Blender's own glTF importer (merge_vertices), played with the same iterations,
 * factor and smoothing kind, within 1e-4 of the bounding-box diagonal — on CesiumMan at three
 * clip times and on the libigl arm twisted 90°.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeIO } from '@gltf-transform/core';
import { samplePose } from '../src/core/animation.js';
import { CorskinError } from '../src/core/errors.js';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { bindPoseSkinningMatrices, skinningMatrices } from '../src/core/pose.js';
import { deform } from '../src/deformers/index.js';
import { findJoint, twistPose } from '../src/evaluation/standard-poses.js';
import { extractSkinnedModels, type SkinnedModel } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { createDeltaMushDeformer } from '../src/methods/dm/deformer.js';
import type { DeltaMushParameters } from '../src/methods/dm/parameters.js';
import { prepareMethod } from '../src/methods/index.js';
import { BLENDER, matchVertices, runBlender, type BlenderResult } from './helpers/blender.js';
import { ARM_GLB, CESIUM_MAN, scratch, SHARED } from './helpers/data.js';

const tmp = scratch();
afterAll(tmp.cleanup);

const CHARACTERS = [CESIUM_MAN, join(SHARED, 'characters/Fox.glb'), join(SHARED, 'characters/Soldier.glb')];

async function load(file: string): Promise<SkinnedModel> {
  return extractSkinnedModels(await readDocument(file), file)[0];
}

function run(model: SkinnedModel, S: Float64Array, parameters: DeltaMushParameters = {}): Float32Array {
  const out = { positions: new Float32Array(model.mesh.positions.length) };
  createDeltaMushDeformer(model.mesh, parameters)(model.mesh, S, out);
  return out.positions;
}

/** Every bind-pose skinning matrix composed with the affine map A (4×4 column-major). */
function composed(model: SkinnedModel, A: number[]): Float64Array {
  const B = bindPoseSkinningMatrices(model.skeleton);
  const S = new Float64Array(B.length);
  for (let o = 0; o < B.length; o += 16)
    for (let c = 0; c < 4; c++)
      for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) S[o + 4 * c + r] += A[4 * k + r] * B[o + 4 * c + k];
  return S;
}

const apply = (A: number[]) => (p: number[]) =>
  [0, 1, 2].map((r) => A[r] * p[0] + A[4 + r] * p[1] + A[8 + r] * p[2] + A[12 + r]);

describe.each(CHARACTERS)('Delta Mush on %s', (file) => {
  let model: SkinnedModel;
  beforeAll(async () => {
    model = await load(file);
  });

  it('gives the bind mesh back at the bind pose', () => {
    const B = bindPoseSkinningMatrices(model.skeleton);
    const bind = deform('lbs', model.mesh, B).positions; // where the bind pose puts the mesh
    const a = run(model, B);
    let e = 0;
    for (let i = 0; i < a.length; i++) e = Math.max(e, Math.abs(a[i] - bind[i]));
    expect(e / boundingBoxDiagonal(model.mesh.positions)).toBeLessThan(1e-6);
  });

  it('moves the mesh as one piece under a rigid motion, a uniform scale, a mirroring of the whole skeleton', () => {
    const c = Math.cos(0.7), s = Math.sin(0.7); // prettier-ignore
    const rigid = [c, s, 0, 0, -s, c, 0, 0, 0, 0, 1, 0, 0.3, -1.2, 2, 1];
    const scaled = [2.5, 0, 0, 0, 0, 2.5, 0, 0, 0, 0, 2.5, 0, 1, 2, 3, 1];
    const mirrored = [-1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.5, 0, 0, 1];
    for (const A of [rigid, scaled, mirrored]) {
      const B = bindPoseSkinningMatrices(model.skeleton);
      const bind = deform('lbs', model.mesh, B).positions;
      const moved = run(model, composed(model, A));
      let e = 0;
      for (let i = 0; i < moved.length; i += 3) {
        const q = apply(A)([bind[i], bind[i + 1], bind[i + 2]]);
        e = Math.max(e, Math.hypot(moved[i] - q[0], moved[i + 1] - q[1], moved[i + 2] - q[2]));
      }
      expect(e / (boundingBoxDiagonal(model.mesh.positions) * Math.abs(A[0]))).toBeLessThan(1e-5);
    }
  });

  it('is LBS without smoothing, and smooths LBS away from it with', () => {
    const clip = model.animations[0];
    const S = skinningMatrices(model.skeleton, samplePose(model.skeleton, clip, clip.duration / 3));
    const lbs = deform('lbs', model.mesh, S).positions;
    const a = run(model, S, { iterations: 0 });
    let e = 0;
    for (let i = 0; i < a.length; i++) e = Math.max(e, Math.abs(a[i] - lbs[i]));
    expect(e / boundingBoxDiagonal(model.mesh.positions)).toBeLessThan(1e-6);
    const b = run(model, S);
    let d = 0;
    for (let i = 0; i < b.length; i++) d = Math.max(d, Math.abs(b[i] - lbs[i]));
    expect(d / boundingBoxDiagonal(model.mesh.positions)).toBeGreaterThan(1e-4);
  });
});

describe('Delta Mush parameters', () => {
  it('are checked, naming the parameter', async () => {
    const model = await load(CESIUM_MAN);
    const bad: [DeltaMushParameters, RegExp][] = [
      [{ iterations: -1 }, /iterations/],
      [{ iterations: 2.5 }, /iterations/],
      [{ step: 0 }, /step/],
      [{ step: 1.5 }, /step/],
      [{ step: NaN }, /step/],
      [{ smoothing: 'cotangent' as 'uniform' }, /smoothing/],
    ];
    for (const [p, message] of bad) {
      expect(() => createDeltaMushDeformer(model.mesh, p)).toThrow(CorskinError);
      expect(() => createDeltaMushDeformer(model.mesh, p)).toThrow(message);
    }
    expect(() => prepareMethod('lbs', { mesh: model.mesh, skeleton: model.skeleton })).toThrow(/not a method module/);
  });
});

// --- Blender 3.4's Corrective Smooth as the reference ----------------------------------------

if (!BLENDER)
  console.warn(
    'dm.test.ts: Blender not found on the PATH: the Corrective Smooth reference tests are skipped (apt-get install --no-install-recommends blender python3-numpy)',
  );

const blender = (file: string, times: number[], iterations: number, factor: number, kind: string, pin: boolean) =>
  runBlender(tmp.dir, file, times, { iterations, factor, kind, pin });

/** Writes `file` without normals and tangents: Blender's importer then welds by position and skin alone, as corskin does. */
async function withoutNormals(file: string, name: string): Promise<string> {
  const io = new NodeIO();
  const doc = await io.read(file);
  for (const mesh of doc.getRoot().listMeshes())
    for (const p of mesh.listPrimitives()) p.setAttribute('NORMAL', null).setAttribute('TANGENT', null);
  const out = join(tmp.dir, name);
  await io.write(out, doc);
  return out;
}

function compare(
  model: SkinnedModel,
  result: BlenderResult,
  poses: Float64Array[],
  parameters: DeltaMushParameters,
): { lbs: number; dm: number; moved: number } {
  const mesh = result.meshes[0];
  const map = matchVertices(model.mesh.positions, mesh.rest);
  const dm = createDeltaMushDeformer(model.mesh, parameters);
  const diagonal = boundingBoxDiagonal(model.mesh.positions);
  const worstOf = { lbs: 0, dm: 0, moved: 0 };
  poses.forEach((S, k) => {
    const lbs = deform('lbs', model.mesh, S).positions;
    const out = { positions: new Float32Array(model.mesh.positions.length) };
    dm(model.mesh, S, out);
    for (let b = 0; b < map.length; b++) {
      const i = 3 * map[b];
      const at = (a: ArrayLike<number>, o: number) => [a[o], a[o + 1], a[o + 2]];
      const d = (p: number[], q: number[]) => Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]) / diagonal;
      worstOf.lbs = Math.max(worstOf.lbs, d(at(lbs, i), at(mesh.lbs[k], 3 * b)));
      worstOf.dm = Math.max(worstOf.dm, d(at(out.positions, i), at(mesh.smoothed[k], 3 * b)));
      worstOf.moved = Math.max(worstOf.moved, d(at(mesh.lbs[k], 3 * b), at(mesh.smoothed[k], 3 * b)));
    }
  });
  return worstOf;
}

describe.skipIf(!BLENDER)("Delta Mush equals Blender 3.4's Corrective Smooth", () => {
  const TIMES = [0.5, 1, 1.5]; // frames 12, 24, 36 at Blender's 24 fps

  it.each([
    ['defaults (5 passes, factor 0.5, uniform)', {}, 'SIMPLE', 5, 0.5, false],
    [
      '10 passes, factor 0.7, length-weighted, borders pinned',
      { iterations: 10, step: 0.7, smoothing: 'length-weighted', pinBorders: true },
      'LENGTH_WEIGHTED',
      10,
      0.7,
      true,
    ],
  ] as const)('on CesiumMan at three clip times, %s', async (_, parameters, kind, iterations, factor, pin) => {
    const file = await withoutNormals(CESIUM_MAN, 'CesiumMan.glb');
    const model = await load(file);
    const clip = model.animations[0];
    const poses = TIMES.map((t) => skinningMatrices(model.skeleton, samplePose(model.skeleton, clip, t)));
    const e = compare(model, blender(file, TIMES, iterations, factor, kind, pin), poses, parameters);
    console.log(
      `CesiumMan, ${_}: DM vs Corrective Smooth ${e.dm.toExponential(2)}, LBS vs Blender's ${e.lbs.toExponential(2)}, Corrective Smooth moved LBS by up to ${e.moved.toExponential(2)} of the diagonal`,
    );
    expect(e.lbs).toBeLessThan(1e-5); // both play the same clip
    expect(e.moved).toBeGreaterThan(1e-3); // the reference does smooth
    expect(e.dm).toBeLessThan(1e-4);
  });

  it('on the libigl arm twisted 90° about its third bone', async () => {
    // The arm with a clip that holds the twist, so that Blender plays the same pose.
    const io = new NodeIO();
    const doc = await io.read(ARM_GLB);
    const arm = await load(ARM_GLB);
    const joint = findJoint(arm.skeleton, 'bone2');
    const pose = twistPose(arm.skeleton, joint, Math.PI / 2);
    const node = doc.getRoot().listSkins()[0].listJoints()[joint];
    const q = Array.from(pose.rotations.subarray(4 * joint, 4 * joint + 4));
    const buffer = doc.getRoot().listBuffers()[0];
    const input = doc
      .createAccessor()
      .setType('SCALAR')
      .setArray(new Float32Array([0, 2]))
      .setBuffer(buffer);
    const output = doc
      .createAccessor()
      .setType('VEC4')
      .setArray(new Float32Array([...q, ...q]))
      .setBuffer(buffer);
    const sampler = doc.createAnimationSampler().setInput(input).setOutput(output).setInterpolation('LINEAR');
    const channel = doc.createAnimationChannel().setTargetNode(node).setTargetPath('rotation').setSampler(sampler);
    doc.createAnimation('twist').addSampler(sampler).addChannel(channel);
    const file = join(tmp.dir, 'arm-twist.glb');
    await io.write(file, doc);
    const model = await load(file);
    const S = skinningMatrices(model.skeleton, samplePose(model.skeleton, model.animations[0], 1));
    const e = compare(model, blender(file, [1], 5, 0.5, 'SIMPLE', false), [S], {});
    console.log(
      `arm twisted 90°: DM vs Corrective Smooth ${e.dm.toExponential(2)}, LBS vs Blender's ${e.lbs.toExponential(2)}, moved ${e.moved.toExponential(2)}`,
    );
    expect(e.lbs).toBeLessThan(1e-5);
    expect(e.moved).toBeGreaterThan(1e-3);
    expect(e.dm).toBeLessThan(1e-4);
  });
});
