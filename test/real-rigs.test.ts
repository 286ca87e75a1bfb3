/**
 * What real rigs need of the deformers: covariance under translation with scaled joints, the
 * antipodality rule that does not depend on slot order (CPU and SIMD), SBS on equal transforms,
 * the K-largest influence limit, and morph targets before skinning.
 */
import { join } from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { samplePose } from '../src/core/animation.js';
import { boundingBoxDiagonal, limitInfluences, type SkinnedMesh } from '../src/core/mesh.js';
import { applyMorphTargets, sampleMorphWeights } from '../src/core/morph.js';
import { restPose, skinningMatrices } from '../src/core/pose.js';
import { computeCentersOfRotation } from '../src/cor/precompute.js';
import { deform, deformers } from '../src/deformers/index.js';
import { deformStretchedVertices, deformTwoPhase, splitScale, uniformScale } from '../src/deformers/two-phase.js';
import { corRigid, corRigidVertex } from '../src/deformers/cor.js';
import { dqsRigid, dqsRigidVertex } from '../src/deformers/dqs.js';
import { stressPose } from '../src/evaluation/stress-pose.js';
import { extractSkinnedModels, type SkinnedModel } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { createSimdDeformer } from '../src/wasm/simd-skinning.js';
import { runCli } from './helpers/cli.js';
import { CESIUM_MAN, rng, scratch, SHARED } from './helpers/data.js';
import { referenceError, sampleScene } from './helpers/skinning-reference.js';
import { readRaw } from './helpers/gltf.js';

const METHODS = ['lbs', 'dqs', 'sbs', 'lms', 'cor'] as const;

function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

describe('CesiumMan with every joint scaled differently (non-uniform, animated pose)', () => {
  let model: SkinnedModel;
  let S: Float64Array;
  beforeAll(async () => {
    [model] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
    model.mesh.centersOfRotation = computeCentersOfRotation(model.mesh).centers;
    const pose = samplePose(model.skeleton, model.animations[0], 1.1);
    const random = rng(3);
    for (let i = 0; i < pose.scales.length; i++) pose.scales[i] = 0.7 + 0.6 * random();
    S = skinningMatrices(model.skeleton, pose);
  });

  it.each(METHODS)(
    '%s: translating the whole rig in bind space translates the result (≤ 1e-6 of the diagonal)',
    (method) => {
      const { mesh } = model;
      const diag = boundingBoxDiagonal(mesh.positions);
      const T = [0.8 * diag, -0.5 * diag, 0.3 * diag];
      // Bind space moved by T: positions and CoRs + T, S'_j = Tr(T)·S_j·Tr(−T).
      const moved: SkinnedMesh = {
        ...mesh,
        positions: mesh.positions.map((x, i) => x + T[i % 3]),
        centersOfRotation: mesh.centersOfRotation!.map((x, i) => x + T[i % 3]),
      };
      const S2 = S.slice();
      for (let j = 0; j < S.length / 16; j++) {
        for (let r = 0; r < 3; r++) {
          let lt = 0;
          for (let c = 0; c < 3; c++) lt += S[16 * j + 4 * c + r] * T[c];
          S2[16 * j + 12 + r] = S[16 * j + 12 + r] + T[r] - lt;
        }
      }
      const a = deform(method, mesh, S).positions;
      const b = deform(method, moved, S2).positions;
      const expected = a.map((x, i) => x + T[i % 3]);
      expect(maxDiff(b, expected) / diag).toBeLessThan(1e-6);
    },
  );
});

describe('antipodality: one rule whatever the slot order', () => {
  // Two joints of a cylinder-like pair of vertices: the pose puts the joints' quaternions in
  // opposite hemispheres (compound rotation > 180° between them).
  const mesh: SkinnedMesh = {
    positions: Float32Array.from([1, 0.2, 0.1, 1, 0.2, 0.1, 0.5, 0.1, -0.4]),
    triangles: Uint32Array.from([0, 1, 2]),
    influences: 4,
    // Vertex 0: slot 0 has weight 0 (and names joint 2); vertex 1: the same influences in another order.
    joints: Uint32Array.from([2, 0, 1, 0, 1, 0, 2, 0, 0, 1, 2, 0]),
    weights: Float32Array.from([0, 0.35, 0.65, 0, 0.65, 0.35, 0, 0, 0.3, 0.3, 0.4, 0]),
    centersOfRotation: Float32Array.from([0.8, 0.1, 0, 0.8, 0.1, 0, 0.6, 0, 0]),
  };
  const S = new Float64Array(48);
  const setRot = (j: number, ax: number[], angle: number, t: number[]) => {
    const [x, y, z] = ax.map((v) => v / Math.hypot(...ax));
    const c = Math.cos(angle), s = Math.sin(angle), C = 1 - c; // prettier-ignore
    S.set(
      [
        c + x * x * C,
        y * x * C + z * s,
        z * x * C - y * s,
        0,
        x * y * C - z * s,
        c + y * y * C,
        z * y * C + x * s,
        0,
        x * z * C + y * s,
        y * z * C - x * s,
        c + z * z * C,
        0,
        t[0],
        t[1],
        t[2],
        1,
      ],
      16 * j,
    );
  };
  setRot(0, [1, 0, 0], (170 * Math.PI) / 180, [0, 0.1, 0]);
  setRot(1, [1, 0.2, 0], (-150 * Math.PI) / 180, [0.1, 0, 0]);
  setRot(2, [0, 0, 1], (40 * Math.PI) / 180, [0, 0, 0.2]);

  it.each(['dqs', 'cor'] as const)(
    '%s: permuted slots (and a zero slot 0) give the same vertex, on the CPU and in SIMD',
    async (method) => {
      const cpu = deform(method, mesh, S).positions;
      expect(maxDiff(cpu.subarray(0, 3), cpu.subarray(3, 6))).toBeLessThan(1e-12);
      const simd = await createSimdDeformer(mesh, method);
      simd.deform(S);
      expect(maxDiff(simd.output.positions, cpu)).toBeLessThan(1e-5);
      // The pivot is the largest weight: against joint 1 (0.65), not slot 0 or the first non-zero.
      const swapped: SkinnedMesh = {
        ...mesh,
        weights: Float32Array.from([0, 0.65, 0.35, 0, 0.35, 0.65, 0, 0, 0.3, 0.3, 0.4, 0]),
      };
      const other = deform(method, swapped, S).positions;
      expect(maxDiff(other.subarray(0, 3), other.subarray(3, 6))).toBeLessThan(1e-12);
    },
  );
});

describe('SBS', () => {
  it('is exactly the rigid motion when every joint has the same transform', () => {
    const mesh: SkinnedMesh = {
      positions: Float32Array.from([0.3, 1.2, -0.4, 2, 0.1, 0.5]),
      triangles: new Uint32Array(0),
      influences: 2,
      joints: Uint32Array.from([0, 1, 1, 2]),
      weights: Float32Array.from([0.4, 0.6, 0.5, 0.5]),
    };
    const S = new Float64Array(48);
    const c = Math.cos(0.7), s = Math.sin(0.7); // prettier-ignore
    for (let j = 0; j < 3; j++) S.set([c, s, 0, 0, -s, c, 0, 0, 0, 0, 1, 0, 5, -3, 2, 1], 16 * j);
    // Float noise in one joint must not explode either.
    S[16 + 12] += 1e-7;
    const out = deform('sbs', mesh, S).positions;
    for (let i = 0; i < 2; i++) {
      const [x, y, z] = mesh.positions.subarray(3 * i, 3 * i + 3);
      expect(out[3 * i]).toBeCloseTo(c * x - s * y + 5, 5);
      expect(out[3 * i + 1]).toBeCloseTo(s * x + c * y - 3, 5);
      expect(out[3 * i + 2]).toBeCloseTo(z + 2, 5);
    }
  });

  // Rest pose = bind pose up to float noise (or one common rotation) on these; the others'
  // rest poses really differ from their bind poses, where SBS and LBS differ by design.
  it.each(['gltf/CesiumMan.glb', 'characters/rpm-avatar.glb', 'characters/Fox.glb'])(
    'deviates from LBS by ≤ 1e-5 of the diagonal on the rest pose of %s',
    async (file) => {
      const path = join(SHARED, file);
      for (const model of extractSkinnedModels(await readDocument(path), path)) {
        const S = skinningMatrices(model.skeleton, restPose(model.skeleton));
        const lbs = deform('lbs', model.mesh, S).positions;
        const sbs = deform('sbs', model.mesh, S).positions;
        expect(maxDiff(sbs, lbs) / boundingBoxDiagonal(lbs)).toBeLessThan(1e-5);
      }
    },
  );
});

describe('limitInfluences on the 16-influence chicken', () => {
  it('keeps the 8 largest, renormalised, and reports what it dropped truthfully', async () => {
    const path = join(SHARED, 'characters/chicken.glb');
    const [model] = extractSkinnedModels(await readDocument(path), path);
    const { mesh } = model;
    expect(mesh.influences).toBe(16);
    const r = limitInfluences(mesh, 8);
    // Brute force: per vertex, sorted weights per distinct joint.
    let affected = 0;
    let largest = 0;
    const n = mesh.positions.length / 3;
    for (let i = 0; i < n; i++) {
      const by = new Map<number, number>();
      for (let k = 0; k < 16; k++) {
        const w = mesh.weights[16 * i + k];
        if (w > 0) by.set(mesh.joints[16 * i + k], (by.get(mesh.joints[16 * i + k]) ?? 0) + w);
      }
      const ws = [...by.values()].sort((a, b) => b - a);
      if (ws.length > 8) {
        affected++;
        largest = Math.max(largest, ws[8]);
      }
      const kept = ws.slice(0, 8).reduce((a, b) => a + b, 0);
      const got = Array.from(r.mesh.weights.subarray(8 * i, 8 * i + 8))
        .filter((w) => w > 0)
        .sort((a, b) => b - a);
      ws.slice(0, 8).forEach((w, k) => expect(got[k]).toBeCloseTo(ws.length > 8 ? w / kept : w, 6));
    }
    expect(affected).toBeGreaterThan(0);
    expect(r.verticesAffected).toBe(affected);
    expect(r.largestDroppedWeight).toBeCloseTo(largest, 7);
  });
});

describe('morph targets before skinning: the Ready Player Me avatar talking', () => {
  it.each(['lbs', 'dqs', 'cor'] as const)(
    '%s at a viseme pose of its clip matches the independent morph-then-skin reference (1e-5 of the diagonal)',
    async (method) => {
      const path = join(SHARED, 'characters/rpm-avatar.glb');
      const doc = await readDocument(path);
      // A talking pose: mouth open on the "aa" viseme, a half blink (weights by target name).
      const pose: Record<string, number> = { mouthOpen: 1, viseme_aa: 0.8, eyeBlinkLeft: 0.5, mouthSmile: 0.3 };
      for (const mesh of doc.getRoot().listMeshes()) {
        const names = (mesh.getExtras() as { targetNames?: string[] }).targetNames;
        if (names) mesh.setWeights(names.map((n) => pose[n] ?? 0));
      }
      const time = 1.7;
      const [model] = extractSkinnedModels(doc, path);
      model.mesh.centersOfRotation = computeCentersOfRotation(model.mesh).centers;
      const clip = model.animations[0];
      const weights = sampleMorphWeights(model.morphGroups, clip.morphChannels ?? [], time);
      expect(weights.filter((w) => w.some((x) => x > 0)).length).toBeGreaterThanOrEqual(3); // head, teeth, eyes
      const S = skinningMatrices(model.skeleton, samplePose(model.skeleton, clip, time));
      const ours = deform(method, applyMorphTargets(model.mesh, model.morphGroups, weights), S).positions;
      const plain = deform(method, model.mesh, S).positions;
      const diag = boundingBoxDiagonal(ours);
      expect(maxDiff(ours, plain) / diag).toBeGreaterThan(1e-3); // the face really moved
      const worst = referenceError(model, ours, method, sampleScene(doc, 0, time), diag);
      expect(worst).toBeLessThan(1e-5);
    },
    90_000,
  );
});

describe('corskin deform without an animation: rest pose and bind pose', () => {
  it('labels them truthfully; the bind pose returns the bind-space mesh, the rest pose of the Soldier differs', async () => {
    const tmp = scratch();
    try {
      const input = join(SHARED, 'characters/Soldier.glb');
      const bind = join(tmp.dir, 'bind.glb');
      const rest = join(tmp.dir, 'rest.glb');
      const rb = await runCli('deform', input, '--method', 'lbs', '--pose', 'bind', '-o', bind);
      const rr = await runCli('deform', input, '--method', 'lbs', '-o', rest);
      expect(rb.code).toBe(0);
      expect(rb.stdout).toContain('bind pose: inverse bind matrices');
      expect(rr.stdout).toContain("rest pose: the nodes' own transforms");
      const [model] = extractSkinnedModels(await readDocument(input), input);
      const positionsOf = async (f: string) =>
        (await readRaw(f))
          .getRoot()
          .listMeshes()
          .flatMap((m) => m.listPrimitives().map((p) => p.getAttribute('POSITION')!.getArray()!));
      const b = await positionsOf(bind);
      const r = await positionsOf(rest);
      const diag = boundingBoxDiagonal(model.mesh.positions);
      const bound = model.parts.map((part) =>
        model.mesh.positions.subarray(3 * part.vertexOffset, 3 * (part.vertexOffset + part.vertexCount)),
      );
      expect(Math.max(...b.map((x, k) => maxDiff(x, bound[k])))).toBeLessThan(1e-6 * diag);
      expect(Math.max(...r.map((x, k) => maxDiff(x, bound[k])))).toBeGreaterThan(1e-3 * diag);
    } finally {
      tmp.cleanup();
    }
  });
});

describe('a rig under one uniformly scaled node (the chicken: every skinning matrix × 0.01)', () => {
  it.each(['dqs', 'cor'] as const)(
    '%s: the SIMD kernels (shortcut) and the per-vertex two-phase path agree',
    async (method) => {
      const path = join(SHARED, 'characters/chicken.glb');
      const [model] = extractSkinnedModels(await readDocument(path), path);
      const mesh = limitInfluences(model.mesh, 8).mesh;
      if (method === 'cor') mesh.centersOfRotation = computeCentersOfRotation(mesh).centers;
      const S = skinningMatrices(model.skeleton, samplePose(model.skeleton, model.animations[0], 0.5));
      const split = splitScale(S)!;
      expect(uniformScale(split)).toBeCloseTo(0.01, 6);
      const n = mesh.positions.length / 3;
      const generic = { positions: new Float32Array(3 * n) };
      deformTwoPhase(mesh, S, split, generic, deformers[method], method === 'cor' ? 'cor' : 'vertex', false);
      const simd = await createSimdDeformer(mesh, method);
      simd.deform(S);
      const diag = boundingBoxDiagonal(generic.positions);
      expect(maxDiff(simd.output.positions, generic.positions) / diag).toBeLessThan(1e-6);
      expect(maxDiff(deform(method, mesh, S).positions, generic.positions) / diag).toBeLessThan(1e-6);
    },
  );
});

describe('LMS on a rig under one uniformly scaled node (the chicken, × 0.01)', () => {
  it('is the same as on the chicken under a node scaled 100 (rigid skinning matrices), scaled by 0.01', async () => {
    const path = join(SHARED, 'characters/chicken.glb');
    const io = new NodeIO();
    const doc = await io.read(path);
    for (const scene of doc.getRoot().listScenes()) {
      const wrap = doc.createNode('×100').setScale([100, 100, 100]);
      for (const child of scene.listChildren()) {
        scene.removeChild(child);
        wrap.addChild(child);
      }
      scene.addChild(wrap);
    }
    const tmp = scratch();
    try {
      const wrapped = join(tmp.dir, 'chicken-x100.glb');
      await io.write(wrapped, doc);
      const [small, large] = [
        extractSkinnedModels(await readDocument(path), path)[0],
        extractSkinnedModels(await readDocument(wrapped), wrapped)[0],
      ];
      for (const t of [0, 0.5]) {
        const S = skinningMatrices(small.skeleton, samplePose(small.skeleton, small.animations[0], t));
        const R = skinningMatrices(large.skeleton, samplePose(large.skeleton, large.animations[0], t));
        expect(uniformScale(splitScale(S)!)).toBeCloseTo(0.01, 6);
        expect(splitScale(R)).toBeNull();
        const [a, b] = [deform('lms', small.mesh, S).positions, deform('lms', large.mesh, R).positions];
        const diag = boundingBoxDiagonal(a);
        let worst = 0;
        for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - 0.01 * b[i]) / diag);
        expect(worst, `t = ${t}`).toBeLessThan(1e-5);
        const simd = await createSimdDeformer(small.mesh, 'lms');
        simd.deform(S);
        expect(maxDiff(simd.output.positions, a) / diag, `SIMD, t = ${t}`).toBeLessThan(1e-5);
      }
    } finally {
      tmp.cleanup();
    }
  });
});

describe('an animated non-joint ancestor (root motion on the armature node)', () => {
  it.each(['lbs', 'dqs', 'cor'] as const)(
    '%s follows it: CesiumMan under a moving node matches the reference',
    async (method) => {
      const doc = await readDocument(CESIUM_MAN);
      const root = doc.getRoot();
      const mover = doc.createNode('mover');
      for (const scene of root.listScenes()) {
        for (const child of scene.listChildren()) {
          scene.removeChild(child);
          mover.addChild(child);
        }
        scene.addChild(mover);
      }
      const buffer = root.listBuffers()[0];
      const acc = (type: 'SCALAR' | 'VEC3' | 'VEC4', a: number[]) =>
        doc.createAccessor().setType(type).setArray(Float32Array.from(a)).setBuffer(buffer);
      const anim = root.listAnimations()[0];
      const s = Math.SQRT1_2;
      for (const [path, type, values] of [
        ['rotation', 'VEC4', [0, 0, 0, 1, 0, s, 0, s]],
        ['translation', 'VEC3', [0, 0, 0, 1.5, 0.2, -0.7]],
      ] as const) {
        const sampler = doc
          .createAnimationSampler()
          .setInput(acc('SCALAR', [0, 2]))
          .setOutput(acc(type, [...values]));
        anim
          .addSampler(sampler)
          .addChannel(doc.createAnimationChannel().setTargetNode(mover).setTargetPath(path).setSampler(sampler));
      }
      const [model] = extractSkinnedModels(doc, 'moving');
      expect(model.skeleton.skinJoints).toBe(19);
      expect(model.skeleton.jointNames.length).toBeGreaterThan(19); // the mover (and the chain below it)
      model.mesh.centersOfRotation = computeCentersOfRotation(model.mesh).centers;
      const time = 1.2;
      const S = skinningMatrices(model.skeleton, samplePose(model.skeleton, model.animations[0], time));
      const ours = deform(method, model.mesh, S).positions;
      const diag = boundingBoxDiagonal(ours);
      expect(referenceError(model, ours, method, sampleScene(doc, 0, time), diag)).toBeLessThan(1e-5);
    },
  );
});

describe('rigs where only some joints stretch: the rigid joints’ vertices take the rigid path', () => {
  it('ShibaInu at twice the stress pose, its heaviest joint stretched: tied weights pick the pivot by joint index on both paths', async () => {
    // Four vertices weigh two nearly opposite joints equally (0.283 each), the larger index stored
    // first: the per-vertex path took the first stored as the pivot, the rigid path the smaller
    // index: 0.037 of the diagonal apart here.
    const path = join(SHARED, 'characters/ShibaInu.gltf');
    const [{ mesh, skeleton }] = extractSkinnedModels(await readDocument(path), path);
    const S = skinningMatrices(skeleton, stressPose(skeleton, 2));
    const total = new Float64Array(S.length / 16);
    for (let k = 0; k < mesh.joints.length; k++) total[mesh.joints[k]] += mesh.weights[k];
    const heaviest = total.indexOf(Math.max(...total));
    for (let r = 0; r < 3; r++) [S[16 * heaviest + r], S[16 * heaviest + 4 + r]] = [1.5 * S[16 * heaviest + r], 0.6 * S[16 * heaviest + 4 + r]]; // prettier-ignore
    const split = splitScale(S)!;
    const reference = { positions: new Float32Array(mesh.positions.length) };
    deformTwoPhase(mesh, S, split, reference, deformers.dqs, 'vertex', false);
    const js = deform('dqs', mesh, S);
    expect(maxDiff(js.positions, reference.positions) / boundingBoxDiagonal(reference.positions)).toBeLessThan(1e-6);
  });

  // rpm-avatar's clip scales its twelve leg and foot joints by 1 ± 1e-4; CesiumMan with one forearm
  // joint scaled (1, 1.4, 0.7) in bind space.
  const cases = [
    ['rpm-avatar', join(SHARED, 'characters/rpm-avatar.glb'), -1],
    ['CesiumMan, one joint stretched', CESIUM_MAN, 12],
  ] as const;
  it.each(
    cases.flatMap(([name, path, joint]) =>
      (['dqs', 'sbs', 'lms', 'cor'] as const).map((method) => ({ name, path, joint, method })),
    ),
  )(
    '$name, $method: JavaScript and SIMD as the per-vertex two-phase path of every vertex (≤ 1e-6 of the diagonal)',
    async ({ path, joint, method }) => {
      const [model] = extractSkinnedModels(await readDocument(path), path);
      const mesh = model.mesh;
      if (method === 'cor') mesh.centersOfRotation = computeCentersOfRotation(mesh).centers;
      const S = skinningMatrices(model.skeleton, samplePose(model.skeleton, model.animations[0], 0.4));
      if (joint >= 0)
        for (const [c, k] of [[1, 1.4], [2, 0.7]]) for (let r = 0; r < 3; r++) S[16 * joint + 4 * c + r] *= k; // prettier-ignore
      const split = splitScale(S)!;
      // Both kinds of joints, and vertices bound to each.
      expect(split.rigidJoints.includes(0) && split.rigidJoints.includes(1)).toBe(true);
      const n = mesh.positions.length / 3;
      const touches = (rigid: number) =>
        Array.from({ length: n }, (_, i) => i).some((i) =>
          Array.from({ length: mesh.influences }, (_, k) => mesh.influences * i + k).some(
            (k) => mesh.weights[k] > 0 && split.rigidJoints[mesh.joints[k]] === rigid,
          ),
        );
      expect(touches(0) && touches(1)).toBe(true);
      const reference = { positions: new Float32Array(3 * n), normals: new Float32Array(3 * n) };
      deformTwoPhase(mesh, S, split, reference, deformers[method], method === 'cor' ? 'cor' : 'vertex', false);
      const js = deform(method, mesh, S);
      const simd = await createSimdDeformer(mesh, method);
      simd.deform(S);
      const diag = boundingBoxDiagonal(reference.positions);
      expect(maxDiff(js.positions, reference.positions) / diag).toBeLessThan(1e-6);
      expect(maxDiff(simd.output.positions, reference.positions) / diag).toBeLessThan(1e-6);
      expect(maxDiff(js.normals!, reference.normals)).toBeLessThan(1e-5);
      expect(maxDiff(simd.output.normals!, reference.normals)).toBeLessThan(1e-4);
    },
  );

  // CesiumMan at a clip pose whose joints are each stretched differently, one of them mirrored,
  // with random unit tangents: every vertex takes the per-vertex two-phase path.
  async function stretchedCesiumMan(method: 'dqs' | 'cor' | 'lms' | 'sbs') {
    const [model] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
    const mesh = model.mesh;
    if (method === 'cor') mesh.centersOfRotation = computeCentersOfRotation(mesh).centers;
    const n = mesh.positions.length / 3;
    const random = rng(7);
    mesh.tangents = new Float32Array(4 * n);
    for (let i = 0; i < n; i++) {
      const t = [random() - 0.5, random() - 0.5, random() - 0.5];
      const l = Math.hypot(...t);
      mesh.tangents.set([t[0] / l, t[1] / l, t[2] / l, random() < 0.5 ? -1 : 1], 4 * i);
    }
    const S = skinningMatrices(model.skeleton, samplePose(model.skeleton, model.animations[0], 0.7));
    const J = S.length / 16;
    for (let j = 0; j < J; j++) for (let c = 0; c < 3; c++) for (let r = 0; r < 3; r++) S[16 * j + 4 * c + r] *= 1 + 0.1 * (random() - 0.5); // prettier-ignore
    for (let r = 0; r < 3; r++) S[16 * 5 + r] *= -1; // joint 5 mirrored
    const split = splitScale(S)!;
    expect(split.rigidJoints.includes(1)).toBe(false);
    const target = () => ({ positions: new Float32Array(3 * n), normals: new Float32Array(3 * n), tangents: new Float32Array(4 * n) }); // prettier-ignore
    return { mesh, S, split, target };
  }

  it.each(['dqs', 'cor'] as const)(
    'CesiumMan stretched, %s: the per-vertex rigid phase gives the batched rigid phase’s numbers, bit for bit',
    async (method) => {
      const { mesh, S, split, target } = await stretchedCesiumMan(method);
      const [batched, direct] = [target(), target()];
      const [rigid, rigidVertex] = method === 'dqs' ? [dqsRigid, dqsRigidVertex] : [corRigid, corRigidVertex];
      const center = method === 'cor' ? 'cor' : 'vertex';
      deformStretchedVertices(mesh, S, split, batched, rigid, center, 'all');
      deformStretchedVertices(mesh, S, split, direct, rigid, center, 'all', rigidVertex);
      expect(Array.from(direct.positions)).toEqual(Array.from(batched.positions));
      expect(Array.from(direct.normals)).toEqual(Array.from(batched.normals));
      expect(Array.from(direct.tangents)).toEqual(Array.from(batched.tangents));
      // Every vertex written: unit normals throughout.
      for (let i = 0; i < direct.normals.length / 3; i++)
        expect(Math.hypot(...direct.normals.subarray(3 * i, 3 * i + 3))).toBeCloseTo(1, 5);
    },
  );

  // Also under a node scaled by 0.01 (every matrix × 0.01, as a Mixamo export's armature): the
  // blends must not cancel bind-size terms down to the posed size in float32.
  it.each((['dqs', 'cor', 'lms', 'sbs'] as const).flatMap((method) => [1, 0.01].map((scale) => ({ method, scale }))))(
    'CesiumMan stretched, $method, rig × $scale: the SIMD two-phase kernel as the JavaScript deformer, tangents and weight sums of 0.9 included (float32)',
    async ({ method, scale }) => {
      const { mesh, S, target } = await stretchedCesiumMan(method);
      for (let k = 0; k < S.length; k++) if (k % 16 !== 15) S[k] *= scale;
      // Every other vertex's weights summing to 0.9: the two-phase path divides by the sum.
      const K = mesh.influences;
      for (let k = 0; k < mesh.weights.length; k++) if (Math.floor(k / K) % 2) mesh.weights[k] *= 0.9;
      const js = target();
      deformers[method](mesh, S, js);
      const simd = await createSimdDeformer(mesh, method);
      simd.deform(S);
      expect(maxDiff(simd.output.positions, js.positions) / boundingBoxDiagonal(js.positions)).toBeLessThan(1e-6);
      expect(maxDiff(simd.output.normals!, js.normals)).toBeLessThan(1e-4);
      expect(maxDiff(simd.output.tangents!, js.tangents)).toBeLessThan(1e-4);
    },
  );
});
