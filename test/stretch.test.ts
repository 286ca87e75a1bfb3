/**
 * Stretch smooth skinning and Shepard weights (Yang & Zhang 2006, seed 003).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mat4FromTRS } from '../src/core/math.js';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { restPose, skinningMatrices, type Pose } from '../src/core/pose.js';
import type { DeformTarget } from '../src/deformers/contract.js';
import { deform } from '../src/deformers/index.js';
import { createStretchDeformer, stretchRigFromSkeleton } from '../src/deformers/stretch.js';
import { measureJointQuality } from '../src/evaluation/joint-quality.js';
import { bendPose, findJoint, twistPose } from '../src/evaluation/standard-poses.js';
import { stressPose } from '../src/evaluation/stress-pose.js';
import { extractSkinnedModels, jointBoneSegments, type SkinnedModel } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { readObj, readTgf } from '../src/io/libigl.js';
import { boneSegments, shepardWeights } from '../src/weights/shepard.js';
import { runCli } from './helpers/cli.js';
import { ARM_GLB, LIBIGL, scratch, SHARED } from './helpers/data.js';
import { grownIssues, validate } from './helpers/gltf.js';
import { cylinder } from './helpers/cylinder.js';

const tmp = scratch();
afterAll(tmp.cleanup);

describe('Shepard weights', () => {
  const chain = boneSegments([[[0, 0, 0, 1, 0, 0]], [[1, 0, 0, 2, 0, 0]]]); // two bones along x

  it('match the two-bone formula W₁ = D₂^m / (D₁^m + D₂^m)', () => {
    const p = [0.3, 0.8, 0, 1.7, -0.4, 0.2];
    const w = shepardWeights(p, chain, { dropRate: 3, influences: 2 });
    for (let i = 0; i < 2; i++) {
      const [x, y, z] = p.slice(3 * i, 3 * i + 3);
      const d0 = x <= 1 ? Math.hypot(y, z) : Math.hypot(x - 1, y, z);
      const d1 = x >= 1 ? Math.hypot(y, z) : Math.hypot(x - 1, y, z);
      const w0 = d1 ** 3 / (d0 ** 3 + d1 ** 3);
      const got = w.joints[2 * i] === 0 ? w.weights[2 * i] : w.weights[2 * i + 1];
      expect(got).toBeCloseTo(w0, 6);
    }
  });

  it('large drop rates tend to the nearest bone alone (m = 5,000 gave three bones a third each)', () => {
    // Three bones at distances 1, 1.01 and 1.02 from the vertex (log-domain reference).
    const three = boneSegments([[[0, 0, 0, 0, 0, 1]], [[1.01, 0, 0, 1.01, 0, 1]], [[0, 1.02, 0, 0, 1.02, 1]]]);
    const p = [0, 0, 0.5]; // on bone 0
    const q = [-1, 0, 0.5]; // 1, 2.01 and √(1 + 1.0404) from the bones
    for (const m of [2, 50, 1000, 5000, 1e6]) {
      const w = shepardWeights(q, three, { dropRate: m, influences: 3 });
      const d = [1, 2.01, Math.hypot(1, 1.02)];
      const logs = d.map((x) => -m * Math.log(x));
      const top = Math.max(...logs);
      const expected = logs.map((l) => Math.exp(l - top));
      const total = expected.reduce((a, b) => a + b, 0);
      for (let r = 0; r < 3; r++) expect(w.weights[r], `m = ${m}`).toBeCloseTo(expected[w.joints[r]] / total, 6);
      expect(w.joints[0]).toBe(0);
      // On a bone: that bone alone, at any drop rate.
      const on = shepardWeights(p, three, { dropRate: m, influences: 3 });
      expect([on.joints[0], on.weights[0]]).toEqual([0, 1]);
    }
  });

  it('on the cylinder: non-negative, sum to 1, continuous across the joint, 1 on a bone', () => {
    const { mesh } = cylinder({ rings: 81 });
    const segs = boneSegments([[[0, 0, 0, 1, 0, 0]], [[1, 0, 0, 2, 0, 0]]]);
    const w = shepardWeights(mesh.positions, segs);
    const n = mesh.positions.length / 3;
    const w0 = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let k = 0; k < 4; k++) {
        expect(w.weights[4 * i + k]).toBeGreaterThanOrEqual(0);
        s += w.weights[4 * i + k];
        if (w.joints[4 * i + k] === 0) w0[i] += w.weights[4 * i + k];
      }
      expect(s).toBeCloseTo(1, 6);
    }
    // Continuity: along every mesh edge the weight changes by at most L × edge length.
    let lipschitz = 0;
    for (let t = 0; t < mesh.triangles.length; t += 3) {
      for (let e = 0; e < 3; e++) {
        const a = mesh.triangles[t + e], b = mesh.triangles[t + ((e + 1) % 3)]; // prettier-ignore
        const len = Math.hypot(...[0, 1, 2].map((d) => mesh.positions[3 * a + d] - mesh.positions[3 * b + d]));
        lipschitz = Math.max(lipschitz, Math.abs(w0[a] - w0[b]) / len);
      }
    }
    expect(lipschitz).toBeLessThan(10); // radius 0.25: a jump would show as ~1/edge ≈ 20+
    // The cap centres lie on the bones' axis, far from the other bone: weight exactly 1.
    expect(w0[n - 2]).toBe(1);
    expect(w0[n - 1]).toBe(0);
  });

  it("on the arm's skeleton with arm.obj: valid weights, and 1 on a point of a bone far from the others", async () => {
    const obj = await readObj(join(LIBIGL, 'arm.obj'));
    const tgf = await readTgf(join(LIBIGL, 'arm.tgf'));
    const P = tgf.joints;
    const bones = Array.from({ length: tgf.bones.length / 2 }, (_, b) => {
      const [h, t] = [tgf.bones[2 * b], tgf.bones[2 * b + 1]];
      return [[P[3 * h], P[3 * h + 1], P[3 * h + 2], P[3 * t], P[3 * t + 1], P[3 * t + 2]]];
    });
    const w = shepardWeights(obj.positions, boneSegments(bones));
    for (let i = 0; i < obj.positions.length / 3; i++) {
      let s = 0;
      for (let k = 0; k < 4; k++) s += w.weights[4 * i + k];
      expect(s).toBeCloseTo(1, 5);
    }
    const mid = [0, 1, 2].map((d) => 0.5 * (P[3 * 1 + d] + P[3 * 2 + d])); // middle of bone 1
    const one = shepardWeights(mid, boneSegments(bones));
    expect(one.joints[0]).toBe(1);
    expect(one.weights[0]).toBe(1);
  });
});

describe('stretch smooth skinning on the arm', () => {
  let arm: SkinnedModel;
  let joint: number;
  const run = (pose: Pose, twistCompensation = true) => {
    const n = arm.mesh.positions.length / 3;
    const out: DeformTarget = { positions: new Float32Array(3 * n), normals: new Float32Array(3 * n) };
    createStretchDeformer(stretchRigFromSkeleton(arm.skeleton), { twistCompensation })(
      arm.mesh,
      skinningMatrices(arm.skeleton, pose),
      out,
    );
    return out;
  };
  const quality = (pose: Pose, posed: Float32Array) => measureJointQuality(arm.mesh, arm.skeleton, pose, posed, joint);
  beforeAll(async () => {
    [arm] = extractSkinnedModels(await readDocument(ARM_GLB), ARM_GLB);
    joint = findJoint(arm.skeleton, 'bone2');
  });

  it('180° twist: keeps the cross-section above 65% of rest (ring radii, 5th percentile) where LBS falls below 20%', () => {
    const pose = twistPose(arm.skeleton, joint, Math.PI);
    const lbs = quality(pose, deform('lbs', arm.mesh, skinningMatrices(arm.skeleton, pose)).positions);
    const stretch = quality(pose, run(pose).positions);
    const noTwist = quality(pose, run(pose, false).positions);
    expect(lbs.minRadiusRatio).toBeLessThan(0.2);
    expect(stretch.minRadiusRatio).toBeGreaterThan(0.65);
    // The twist step is what fixes the candy wrapper: without it, a fifth of the rest radius less.
    expect(stretch.minRadiusRatio - noTwist.minRadiusRatio).toBeGreaterThan(0.2);
  });

  it('126° bend: collapses less than LBS', () => {
    const pose = bendPose(arm.skeleton, joint, [0, 0, 1], 0.7 * Math.PI);
    const lbs = quality(pose, deform('lbs', arm.mesh, skinningMatrices(arm.skeleton, pose)).positions);
    const stretch = quality(pose, run(pose).positions);
    expect(stretch.minRadiusRatio).toBeGreaterThan(lbs.minRadiusRatio + 0.05);
    expect(Math.abs(1 - stretch.volumeRatio)).toBeLessThan(Math.abs(1 - lbs.volumeRatio));
  });

  it('reproduces a rigid motion of the whole skeleton exactly', () => {
    const J = arm.skeleton.parents.length;
    const G = mat4FromTRS(new Float64Array(16), 0, [0.4, -0.2, 1.5], 0, [0.5, 0.5, -0.5, 0.5], 0, [1, 1, 1], 0);
    const S = new Float64Array(16 * J);
    for (let j = 0; j < J; j++) S.set(G, 16 * j);
    const n = arm.mesh.positions.length / 3;
    const out: DeformTarget = { positions: new Float32Array(3 * n) };
    createStretchDeformer(stretchRigFromSkeleton(arm.skeleton))(arm.mesh, S, out);
    const p = arm.mesh.positions;
    let err = 0;
    for (let i = 0; i < p.length; i += 3) {
      for (let r = 0; r < 3; r++)
        err = Math.max(
          err,
          Math.abs(out.positions[i + r] - (G[r] * p[i] + G[4 + r] * p[i + 1] + G[8 + r] * p[i + 2] + G[12 + r])),
        );
    }
    expect(err / boundingBoxDiagonal(p)).toBeLessThan(1e-6);
  });

  it('leaves the bind pose unchanged', () => {
    const out = run(restPose(arm.skeleton));
    let err = 0;
    for (let i = 0; i < out.positions.length; i++)
      err = Math.max(err, Math.abs(out.positions[i] - arm.mesh.positions[i]));
    expect(err).toBeLessThan(1e-6);
  });
});

// Found by an independent review: the normals were the blend of the influences' rotated normals,
// where LBS maps them by the blended matrix's inverse transpose (18.75° apart at a 90° bend, w = ½).
describe('stretch skinning without its two compensations is LBS', () => {
  it.each(['Fox.glb', 'Soldier.glb', 'rpm-avatar.glb', 'chicken.glb'])(
    '%s at the stress pose: positions, normals and tangents as the LBS deformer gives them',
    async (name) => {
      const file = join(SHARED, 'characters', name);
      for (const model of extractSkinnedModels(await readDocument(file), file)) {
        const S = skinningMatrices(model.skeleton, stressPose(model.skeleton));
        const n = model.mesh.positions.length / 3;
        const out: DeformTarget = {
          positions: new Float32Array(3 * n),
          normals: model.mesh.normals && new Float32Array(3 * n),
          tangents: model.mesh.tangents && new Float32Array(4 * n),
        };
        const rig = { ...stretchRigFromSkeleton(model.skeleton), stretchJoints: new Int32Array(0) };
        createStretchDeformer(rig, { twistCompensation: false })(model.mesh, S, out);
        const lbs = deform('lbs', model.mesh, S);
        const apart = (a?: Float32Array, b?: Float32Array) => {
          let e = 0;
          for (let k = 0; a && b && k < a.length; k++) e = Math.max(e, Math.abs(a[k] - b[k]));
          return e;
        };
        expect(model.mesh.normals).toBeDefined();
        expect(apart(out.positions, lbs.positions) / boundingBoxDiagonal(lbs.positions)).toBeLessThan(1e-6);
        expect(apart(out.normals, lbs.normals), model.name).toBeLessThan(1e-5);
        expect(apart(out.tangents, lbs.tangents), model.name).toBeLessThan(1e-5);
      }
    },
  );

  it('a 90° bend at weight ½: the normal by the blended matrix’s inverse transpose (analytic)', () => {
    // Two joints at the origin, the second turned 90° about z; a vertex on x with weight ½ each.
    const S = new Float64Array(32);
    S.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    S.set([0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], 16);
    const mesh = {
      positions: new Float32Array([1, 0, 0]),
      normals: new Float32Array([0, 0.6, 0.8]),
      joints: new Uint32Array([0, 1]),
      weights: new Float32Array([0.5, 0.5]),
      influences: 2,
      triangles: new Uint32Array(0),
    };
    const rig = {
      jointPositions: new Float64Array(6),
      boneAxes: new Float64Array([1, 0, 0, 1, 0, 0]),
      stretchJoints: new Int32Array(0),
    };
    const out: DeformTarget = { positions: new Float32Array(3), normals: new Float32Array(3) };
    createStretchDeformer(rig, { twistCompensation: false })(mesh, S, out);
    // A = ½(I + Rz90) = [[½, −½, 0], [½, ½, 0], [0, 0, 1]]: its xy block is (√2/2)·Rz45, so
    // A⁻ᵀ n = (√2·Rz45 (0, 0.6), 0.8) = (−0.6, 0.6, 0.8); the blended rotated normal A n was
    // (−0.3, 0.3, 0.8), 18.7° from it.
    const expected = [-0.6, 0.6, 0.8].map((x) => x / Math.hypot(0.6, 0.6, 0.8));
    for (let d = 0; d < 3; d++) expect(out.normals![d]).toBeCloseTo(expected[d], 6);
    expect(Array.from(out.positions)).toEqual([0.5, 0.5, 0]);
  });
});

describe('corskin weights and deform --method stretch', () => {
  it('binds arm.obj to arm.tgf; LBS, DQS, CoR and the CoR precomputation run unchanged on the result', async () => {
    const weighted = join(tmp.dir, 'arm-shepard.glb');
    const r = await runCli(
      'weights',
      join(LIBIGL, 'arm.obj'),
      '--skeleton',
      join(LIBIGL, 'arm.tgf'),
      '--drop-rate',
      '2',
      '-o',
      weighted,
    );
    expect(r.code).toBe(0);
    expect((await validate(weighted)).issues.numErrors).toBe(0);
    const withCor = join(tmp.dir, 'arm-shepard-cor.glb');
    expect((await runCli('precompute', weighted, '-o', withCor)).code).toBe(0);
    for (const method of ['lbs', 'dqs', 'cor', 'stretch']) {
      const out = join(tmp.dir, `arm-shepard-deformed-${method}.glb`);
      const d = await runCli('deform', withCor, '--method', method, '-o', out);
      expect([d.code, d.stderr]).toEqual([0, '']);
      const report = await validate(out);
      expect(report.issues.messages.filter((m) => m.severity === 0)).toEqual([]);
    }
    // And CoR on those weights still fixes the candy wrapper.
    const [model] = extractSkinnedModels(await readDocument(withCor), withCor);
    const j = findJoint(model.skeleton, 'bone2');
    const pose = twistPose(model.skeleton, j, Math.PI);
    const S = skinningMatrices(model.skeleton, pose);
    const cor = measureJointQuality(model.mesh, model.skeleton, pose, deform('cor', model.mesh, S).positions, j);
    const lbs = measureJointQuality(model.mesh, model.skeleton, pose, deform('lbs', model.mesh, S).positions, j);
    expect(cor.minRadiusRatio).toBeGreaterThan(lbs.minRadiusRatio);
  });

  it('takes --stretch-joints and --no-twist-compensation, and names unknown joints', async () => {
    const ok = await runCli(
      'deform',
      ARM_GLB,
      '--method',
      'stretch',
      '--stretch-joints',
      'bone2',
      '--no-twist-compensation',
      '-o',
      join(tmp.dir, 's.obj'),
    );
    expect(ok.code).toBe(0);
    const bad = await runCli(
      'deform',
      ARM_GLB,
      '--method',
      'stretch',
      '--stretch-joints',
      'elbow',
      '-o',
      join(tmp.dir, 'bad.obj'),
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/no joint named "elbow" \(joints: bone0, bone1, bone2, bone3\)/);
  });

  it('binds unskinned mesh nodes in world space: normals by the inverse transpose under non-uniform scale, a shared mesh per node', async () => {
    const { Document, NodeIO } = await import('@gltf-transform/core');
    const doc = new Document();
    const buffer = doc.createBuffer();
    const acc = (type: 'VEC3' | 'MAT4', a: number[]) =>
      doc.createAccessor().setType(type).setArray(new Float32Array(a)).setBuffer(buffer);
    // A skeleton of two joints along +y (bind = world), and a triangle mesh used by two nodes.
    const j0 = doc.createNode('j0');
    const j1 = doc.createNode('j1').setTranslation([0, 1, 0]);
    j0.addChild(j1);
    const ibm = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1];
    doc.createSkin().addJoint(j0).addJoint(j1).setInverseBindMatrices(acc('MAT4', ibm));
    const n = [1, 1, 0].map((x) => x / Math.SQRT2);
    const prim = doc
      .createPrimitive()
      .setAttribute('POSITION', acc('VEC3', [0, 0, 0, 0.2, 0, 0, 0, 0.2, 0.1]))
      .setAttribute('NORMAL', acc('VEC3', [...n, ...n, ...n]));
    const mesh = doc.createMesh().addPrimitive(prim);
    const parent = doc.createNode('scaled').setScale([2, 1, 1]);
    const a = doc.createNode('a').setMesh(mesh);
    const b = doc.createNode('b').setMesh(mesh).setTranslation([0, 1, 0]);
    parent.addChild(a).addChild(b);
    doc.createScene().addChild(j0).addChild(parent);
    const input = join(tmp.dir, 'unskinned.glb');
    await new NodeIO().write(input, doc);
    const out = join(tmp.dir, 'unskinned-weighted.glb');
    const r = await runCli('weights', input, '-o', out);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const models = extractSkinnedModels(await readDocument(out), out);
    const all = models.flatMap((m) => m.parts.map((p) => ({ m, p })));
    expect(all).toHaveLength(2);
    // World positions: x doubled, node b 1 up; normals: inverse transpose of diag(2, 1, 1) → (½, 1, 0)/|·|.
    const expectedN = [0.5, 1, 0].map((x) => x / Math.hypot(0.5, 1));
    const ys = new Set<number>();
    for (const { m, p } of all) {
      const pos = m.mesh.positions.subarray(3 * p.vertexOffset, 3 * (p.vertexOffset + 3));
      const nrm = m.mesh.normals!.subarray(3 * p.vertexOffset, 3 * (p.vertexOffset + 3));
      ys.add(Math.round(pos[1]));
      expect(pos[3]).toBeCloseTo(0.4, 6);
      expect(pos[8]).toBeCloseTo(0.1, 6);
      for (let k = 0; k < 9; k++) expect(nrm[k]).toBeCloseTo(expectedN[k % 3], 6);
    }
    expect([...ys].sort()).toEqual([0, 1]);
  });

  it("replaces every influence set of a 16-influence character (the chicken's four), with 4 and with 8", async () => {
    const input = join(SHARED, 'characters', 'chicken.glb');
    const [original] = extractSkinnedModels(await readDocument(input), input);
    expect(original.mesh.influences).toBe(16);
    for (const K of [4, 8]) {
      const out = join(tmp.dir, `chicken-shepard-${K}.glb`);
      const r = await runCli('weights', input, '--influences', String(K), '-o', out);
      expect([r.code, r.stderr]).toEqual([0, '']);
      // No validator issue grows (the old sets' accessors are not left behind unused either).
      expect(await grownIssues(input, out)).toEqual([]);
      const document = await readDocument(out);
      for (const p of document
        .getRoot()
        .listMeshes()
        .flatMap((m) => m.listPrimitives()))
        expect(
          p
            .listSemantics()
            .filter((x) => /^(JOINTS|WEIGHTS)_/.test(x))
            .sort(),
        ).toEqual(
          Array.from({ length: K / 4 }, (_, k) => [`JOINTS_${k}`, `WEIGHTS_${k}`])
            .flat()
            .sort(),
        );
      // The file's weights are the library's Shepard weights, nothing of the input's left.
      const [model] = extractSkinnedModels(document, out);
      const w = shepardWeights(original.mesh.positions, boneSegments(jointBoneSegments(original, input)), {
        influences: K,
      });
      expect(model.mesh.influences).toBe(K);
      expect(Array.from(model.mesh.joints)).toEqual(Array.from(w.joints));
      expect(Array.from(model.mesh.weights)).toEqual(Array.from(Float32Array.from(w.weights)));
    }
    // A drop rate that leaves most slots at weight 0: those point at joint 0, as glTF asks.
    const steep = join(tmp.dir, 'chicken-shepard-steep.glb');
    expect((await runCli('weights', input, '--drop-rate', '5000', '-o', steep)).code).toBe(0);
    expect(await grownIssues(input, steep)).toEqual([]);
  });

  it('an OBJ without --skeleton is a clear error', async () => {
    const r = await runCli('weights', join(LIBIGL, 'arm.obj'), '-o', join(tmp.dir, 'x.glb'));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch('an OBJ mesh needs --skeleton BONES.tgf');
  });
});
