/**
 * Twist joints (seed 000, Sec. 4, Fig. 5).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { samplePose } from '../src/core/animation.js';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { globalMatrices, restPose, skinningMatrices } from '../src/core/pose.js';
import { distributeTwist } from '../src/core/twist.js';
import { quatMultiply } from '../src/core/math.js';
import { addTwistJoints } from '../src/io/twist-joints.js';
import type { Node, vec3, vec4 } from '@gltf-transform/core';
import { Matrix4 } from 'three';
import { deform } from '../src/deformers/index.js';
import { rigidCase } from '../src/evaluation/benchmark.js';
import { measureJointQuality } from '../src/evaluation/joint-quality.js';
import { findJoint, twistPose } from '../src/evaluation/standard-poses.js';
import { extractSkinnedModels, type SkinnedModel } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { runCli } from './helpers/cli.js';
import { convertLibigl } from './helpers/convert.js';
import { ARM_GLB, scratch, SHARED } from './helpers/data.js';
import { grownIssues, validate } from './helpers/gltf.js';

const tmp = scratch();
afterAll(tmp.cleanup);

/** The largest entry of a − b. */
const maxDifference = (a: Float64Array, b: Float64Array) => a.reduce((m, x, k) => Math.max(m, Math.abs(x - b[k])), 0);

async function load(file: string): Promise<SkinnedModel> {
  return extractSkinnedModels(await readDocument(file), file)[0];
}

describe('corskin add-twist-joints on the Fox', () => {
  it('adds no validator issue the input does not have (a slot the split empties points at joint 0)', async () => {
    const fox = join(SHARED, 'characters', 'Fox.glb');
    const out = join(tmp.dir, 'fox-twist.glb');
    const r = await runCli('add-twist-joints', fox, '--joints', 'b_LeftForeArm,b_RightForeArm,b_Tail01', '-o', out);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(await grownIssues(fox, out)).toEqual([]);
  });
});

describe('corskin add-twist-joints on the arm', () => {
  it('splits a bone split before with a twist joint of its own name (bone2_twist_2), joints and skin unchanged at rest', async () => {
    const once = join(tmp.dir, 'arm-twist-once.glb');
    const twice = join(tmp.dir, 'arm-twist-twice.glb');
    expect((await runCli('add-twist-joints', ARM_GLB, '--joints', 'bone2', '-o', once)).code).toBe(0);
    const r = await runCli('add-twist-joints', once, '--joints', 'bone2', '-o', twice);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/added bone2_twist_2/);
    const [a, b] = [await load(once), await load(twice)];
    const names = b.skeleton.jointNames;
    expect(names.filter((x) => x.startsWith('bone2_twist')).sort()).toEqual(['bone2_twist', 'bone2_twist_2']);
    expect(new Set(names).size).toBe(names.length);
    expect((await validate(twice)).issues.numErrors).toBe(0);
    // Every joint of the once-split arm where it was, and the skin as it was, at the rest pose.
    const [ga, gb] = [
      globalMatrices(a.skeleton, restPose(a.skeleton)),
      globalMatrices(b.skeleton, restPose(b.skeleton)),
    ];
    a.skeleton.jointNames.forEach((name, j) => {
      const k = names.indexOf(name);
      for (const e of [12, 13, 14]) expect(gb[16 * k + e]).toBeCloseTo(ga[16 * j + e], 6);
    });
    const [pa, pb] = [a, b].map(
      (m) => deform('lbs', m.mesh, skinningMatrices(m.skeleton, restPose(m.skeleton))).positions,
    );
    for (let i = 0; i < pa.length; i++) expect(pb[i]).toBeCloseTo(pa[i], 5);
  });

  it('splits bone2: valid file, weights conserved, LBS candy wrapper reduced at 180°, rigid motion exact', async () => {
    const out = join(tmp.dir, 'arm-twist.glb');
    const r = await runCli('add-twist-joints', ARM_GLB, '--joints', 'bone2', '-o', out);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/added bone2_twist; 8 influence slots per vertex/);
    expect((await validate(out)).issues.numErrors).toBe(0);
    const before = await load(ARM_GLB);
    const after = await load(out);
    expect(after.twistJoints).toHaveLength(1);
    const j = findJoint(after.skeleton, 'bone2');
    const t = findJoint(after.skeleton, 'bone2_twist');
    // w_j + w_j' after = w_j before, every other weight unchanged.
    const n = before.mesh.positions.length / 3;
    for (let i = 0; i < n; i += 7) {
      const sum = (m: SkinnedModel, joints: number[]) => {
        let s = 0;
        for (let k = 0; k < m.mesh.influences; k++) {
          if (joints.includes(m.mesh.joints[m.mesh.influences * i + k])) s += m.mesh.weights[m.mesh.influences * i + k];
        }
        return s;
      };
      expect(sum(after, [j, t])).toBeCloseTo(sum(before, [j]), 5);
      expect(sum(after, [1])).toBeCloseTo(sum(before, [1]), 5);
    }
    // LBS at the 180° twist, cross-section over the same slab (±10% of the whole bone).
    const lbsMin = (m: SkinnedModel, fraction: number) => {
      const pose = twistPose(m.skeleton, j, Math.PI);
      distributeTwist(m.skeleton, pose, m.twistJoints);
      const posed = deform('lbs', m.mesh, skinningMatrices(m.skeleton, pose)).positions;
      return measureJointQuality(m.mesh, m.skeleton, pose, posed, j, fraction).minRadiusRatio;
    };
    const without = lbsMin(before, 0.1);
    const withTwist = lbsMin(after, 0.2); // the bone to the twist joint is half as long
    expect(without).toBeLessThan(0.2);
    expect(withTwist).toBeGreaterThan(without + 0.3);
    // A rigid motion stays exact.
    const bench = {
      name: 'arm',
      mesh: after.mesh,
      skeleton: after.skeleton,
      cases: [{ name: 'x', pose: restPose(after.skeleton), joint: j }],
    };
    const rigid = rigidCase(bench);
    distributeTwist(after.skeleton, rigid.pose, after.twistJoints);
    const S = skinningMatrices(after.skeleton, rigid.pose);
    const posed = deform('lbs', after.mesh, S).positions;
    const G = S.subarray(0, 16);
    const p = after.mesh.positions;
    let err = 0;
    for (let i = 0; i < p.length; i += 3) {
      for (let c = 0; c < 3; c++)
        err = Math.max(
          err,
          Math.abs(posed[i + c] - (G[c] * p[i] + G[4 + c] * p[i + 1] + G[8 + c] * p[i + 2] + G[12 + c])),
        );
    }
    expect(err / boundingBoxDiagonal(p)).toBeLessThan(1e-6);
  });

  it('names joints that do not exist', async () => {
    const r = await runCli('add-twist-joints', ARM_GLB, '--joints', 'elbow', '-o', join(tmp.dir, 'x.glb'));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch('no joint named "elbow" in any skin');
  });

  it.each(['', ' , ,'])('refuses an empty joint list (%j): exit 2, no file', async (joints) => {
    const out = join(tmp.dir, 'none.glb');
    const r = await runCli('add-twist-joints', ARM_GLB, '--joints', joints, '-o', out);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--joints.*expected one or more names, comma-separated/);
    expect(existsSync(out)).toBe(false);
  });
});

// Found by an independent review: the twist was measured from the nodes' rest rotations, which on
// the Soldier differ from the bind pose by up to 65° (its arms): a pose at the bind pose no longer
// gave the bind mesh once its arms were split.
describe('twist joints on a rig whose rest pose is not its bind pose (the Soldier)', () => {
  it('a clip keyed at the bind pose still gives the bind mesh after the split, and distributeTwist agrees', async () => {
    const file = join(SHARED, 'characters', 'Soldier.glb');
    const doc = await readDocument(file);
    // A clip "bind" keyed at the bind pose: each joint's world matrix its inverse bind matrix's
    // inverse (glTF-Transform's world matrices and TRS decomposition, joints parents first).
    const skin = doc.getRoot().listSkins()[0];
    const joints = skin.listJoints();
    const ibm = skin.getInverseBindMatrices()!.getArray()!;
    const depth = (n: Node): number => (n.getParentNode() ? 1 + depth(n.getParentNode()!) : 0);
    const saved = joints.map((n) => [n.getTranslation(), n.getRotation(), n.getScale()] as const);
    const bind = new Map<Node, { t: vec3; r: vec4; s: vec3 }>();
    for (const node of [...joints].sort((a, b) => depth(a) - depth(b))) {
      const k = joints.indexOf(node);
      const world = new Matrix4().fromArray(Array.from(ibm), 16 * k).invert();
      const parent = node.getParentNode();
      const local = parent ? new Matrix4().fromArray(parent.getWorldMatrix()).invert().multiply(world) : world;
      node.setMatrix(local.toArray() as Parameters<Node['setMatrix']>[0]);
      bind.set(node, { t: node.getTranslation(), r: node.getRotation(), s: node.getScale() });
    }
    joints.forEach((n, k) => n.setTranslation(saved[k][0]).setRotation(saved[k][1]).setScale(saved[k][2]));
    const buffer = doc.getRoot().listBuffers()[0];
    const clip = doc.createAnimation('bind');
    const times = doc
      .createAccessor()
      .setType('SCALAR')
      .setArray(new Float32Array([0, 1]))
      .setBuffer(buffer);
    for (const [node, trs] of bind)
      for (const [path, value, type] of [
        ['translation', trs.t, 'VEC3'],
        ['rotation', trs.r, 'VEC4'],
        ['scale', trs.s, 'VEC3'],
      ] as const) {
        const output = doc
          .createAccessor()
          .setType(type)
          .setArray(new Float32Array([...value, ...value]))
          .setBuffer(buffer);
        const sampler = doc.createAnimationSampler().setInput(times).setOutput(output);
        clip
          .addSampler(sampler)
          .addChannel(doc.createAnimationChannel().setTargetNode(node).setTargetPath(path).setSampler(sampler));
      }
    const atBind = (m: SkinnedModel) =>
      samplePose(
        m.skeleton,
        m.animations.find((a) => a.name === 'bind')!,
        0.5,
      );
    const offBind = (m: SkinnedModel, S: Float64Array) => {
      const posed = deform('lbs', m.mesh, S).positions;
      let e = 0;
      for (let i = 0; i < posed.length; i++) e = Math.max(e, Math.abs(posed[i] - m.mesh.positions[i]));
      return e / boundingBoxDiagonal(m.mesh.positions);
    };
    const [before] = extractSkinnedModels(doc, file);
    expect(offBind(before, skinningMatrices(before.skeleton, atBind(before)))).toBeLessThan(1e-6); // the clip is the bind pose
    // The rest pose is far from it (what the split must not measure from).
    expect(offBind(before, skinningMatrices(before.skeleton, restPose(before.skeleton)))).toBeGreaterThan(0.05);

    await addTwistJoints(
      doc,
      ['mixamorig:LeftArm', 'mixamorig:LeftForeArm', 'mixamorig:RightArm', 'mixamorig:RightUpLeg'],
      file,
    );
    const [after] = extractSkinnedModels(doc, file);
    expect(after.twistJoints).toHaveLength(4);
    const pose = atBind(after);
    expect(offBind(after, skinningMatrices(after.skeleton, pose))).toBeLessThan(1e-6);
    // distributeTwist leaves the split pose as it is (the two joints hold the twist), and splits
    // the same pose written for the unsplit rig (each split joint holding its whole rotation,
    // its twist joint none) as the clip's rewrite did.
    const S = skinningMatrices(after.skeleton, pose);
    distributeTwist(after.skeleton, pose, after.twistJoints);
    expect(maxDifference(skinningMatrices(after.skeleton, pose), S)).toBeLessThan(1e-9);
    for (const { joint, twist } of after.twistJoints) {
      quatMultiply(pose.rotations, 4 * joint, pose.rotations, 4 * joint, pose.rotations, 4 * twist);
      pose.rotations.set([0, 0, 0, 1], 4 * twist);
    }
    distributeTwist(after.skeleton, pose, after.twistJoints);
    expect(offBind(after, skinningMatrices(after.skeleton, pose))).toBeLessThan(1e-6);
    // The file's rest pose is split as a clip frame at that pose would be.
    const rest = restPose(after.skeleton);
    const Srest = skinningMatrices(after.skeleton, rest);
    distributeTwist(after.skeleton, rest, after.twistJoints);
    expect(maxDifference(skinningMatrices(after.skeleton, rest), Srest)).toBeLessThan(1e-9);
  });
});

describe('twist joints on an animated rig (elephant)', () => {
  it('rewrites the animation so every original joint keeps its pose; the twist joint carries the full rotation', async () => {
    const src = await convertLibigl(tmp.dir, 'elephant', true);
    const out = join(tmp.dir, 'elephant-twist.glb');
    expect((await runCli('add-twist-joints', src, '--joints', 'bone1,bone16', '-o', out)).code).toBe(0);
    expect((await validate(out)).issues.numErrors).toBe(0);
    const a = await load(src);
    const b = await load(out);
    for (const time of [0.5, 3.3, 9.1]) {
      const ga = globalMatrices(a.skeleton, samplePose(a.skeleton, a.animations[0], time));
      const gb = globalMatrices(b.skeleton, samplePose(b.skeleton, b.animations[0], time));
      const J = a.skeleton.parents.length;
      for (let j = 0; j < J; j++) {
        if (a.skeleton.jointNames[j] === 'bone1' || a.skeleton.jointNames[j] === 'bone16') continue;
        for (let e = 0; e < 16; e++) expect(gb[16 * j + e]).toBeCloseTo(ga[16 * j + e], 4);
      }
      for (const tj of b.twistJoints) {
        // The twist joint's rotation is the split joint's original one.
        for (const e of [0, 1, 2, 4, 5, 6, 8, 9, 10])
          expect(gb[16 * tj.twist + e]).toBeCloseTo(ga[16 * tj.joint + e], 4);
      }
    }
  });
});
