/**
 * Skinning templates on real, branching skeletons: CesiumMan, a humanoid with fingers (the
 * Mixamo Soldier) and a quadruped (the Fox). Each limb's cage is a valid closed cage around the
 * skin bound to it; the bind pose and a rigid motion are reproduced; animation frames stay near
 * linear blend skinning (a limb's cage never drags another limb's skin); the rig stored by
 * `corskin templates build` deforms as the one built in memory; where limbs branch, the joint
 * takes a template for all its incident bones (Fig. 13), checked against Eq. 1 written out anew.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkCage, type Cage } from '../src/cage/cage.js';
import { pointsOutside } from '../src/cage/winding-number.js';
import { samplePose } from '../src/core/animation.js';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { bindJointPositions } from '../src/core/skeleton.js';
import { skeletonLimbs, trunkFirst } from '../src/core/limbs.js';
import { bindPoseSkinningMatrices, skinningMatrices } from '../src/core/pose.js';
import { deform } from '../src/deformers/index.js';
import { readTemplateRig } from '../src/methods/templates/storage.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { DEFAULT_TEMPLATE_LIBRARY, incidentBones } from '../src/methods/templates/library.js';
import { buildTemplateRig, type TemplateRig } from '../src/methods/templates/rig.js';
import { compatibleTemplates, setBoneTemplate } from '../src/methods/templates/edit.js';
import { createTemplateDeformer } from '../src/methods/templates/deformer.js';
import { poseTemplates } from '../src/methods/templates/pose.js';
import { sphericalAverage } from '../src/methods/templates/spherical-average.js';
import { runCli } from './helpers/cli.js';
import { CESIUM_MAN, SHARED, scratch } from './helpers/data.js';
import { validate } from './helpers/gltf.js';
import { deformationGap } from './helpers/templates.js';

const CHARACTERS: [string, string][] = [
  ['CesiumMan', CESIUM_MAN],
  ['the Soldier (fingers)', join(SHARED, 'characters/Soldier.glb')],
  ['the Fox (quadruped)', join(SHARED, 'characters/Fox.glb')],
];
const tmp = scratch();
afterAll(() => tmp.cleanup());

/** Limb l's cage component and the skin vertices its cage moves (a slot on it with weight > 0). */
function component(rig: TemplateRig, l: number): { cage: Cage; vertices: number[] } {
  const { first, roles } = rig.limbs[l];
  const end = first + roles.length;
  const triangles: number[] = [];
  for (let t = 0; t < rig.cage.triangles.length; t += 3)
    if (rig.cage.triangles[t] >= first && rig.cage.triangles[t] < end)
      for (let c = 0; c < 3; c++) triangles.push(rig.cage.triangles[t + c] - first);
  const cage = { positions: rig.cage.positions.slice(3 * first, 3 * end), triangles: Uint32Array.from(triangles) };
  const { influences: k, indices, weights } = rig.binding;
  const vertices: number[] = [];
  for (let v = 0; v < indices.length / k; v++)
    for (let s = k * v; s < k * v + k; s++)
      if (weights[s] > 0 && indices[s] >= first && indices[s] < end) {
        vertices.push(v);
        break;
      }
  return { cage, vertices };
}

describe.each(CHARACTERS)('skinning templates on %s', (name, file) => {
  it('one valid closed cage per limb around its skin; the trunk and fingers left to DQS; bind pose and rigid motion reproduced; frames near DQS', async () => {
    const [model] = extractSkinnedModels(await readDocument(file), file);
    const { mesh, skeleton } = model;
    const rig = buildTemplateRig(mesh, skeleton);
    expect(rig.limbs.length).toBeGreaterThanOrEqual(4); // two arms, two legs at least
    const n = mesh.positions.length / 3;
    rig.limbs.forEach((_, l) => {
      const { cage, vertices } = component(rig, l);
      expect(() => checkCage(cage)).not.toThrow(); // closed, 2-manifold, outward
      const X = Float32Array.from(vertices.flatMap((v) => Array.from(mesh.positions.subarray(3 * v, 3 * v + 3))));
      expect(pointsOutside(cage, X)).toEqual([]);
    });
    // No limb is the trunk (the limb from the root) or starts at a hand.
    const P = bindJointPositions(skeleton);
    const [trunk] = trunkFirst(skeleton, skeletonLimbs(skeleton, P));
    for (const limb of rig.limbs) expect(trunk.slice(0, -1).includes(limb.chain[1])).toBe(false);
    const diag = boundingBoxDiagonal(mesh.positions);
    const templates = createTemplateDeformer(rig);
    const out = { positions: new Float32Array(3 * n) };
    const maxGap = (a: Float32Array, b: Float32Array) => {
      let e = 0;
      for (let i = 0; i < a.length; i++) e = Math.max(e, Math.abs(a[i] - b[i]));
      return e;
    };
    templates(mesh, bindPoseSkinningMatrices(skeleton), out);
    expect(maxGap(out.positions, mesh.positions)).toBeLessThan(1e-5 * diag);
    // The whole character turned 70° about (0.6, 0.8, 0) and moved: every joint the same rigid matrix.
    const [c, s] = [Math.cos(1.2), Math.sin(1.2)];
    const [x, y] = [0.6, 0.8];
    const R = [
      c + x * x * (1 - c),
      x * y * (1 - c),
      -y * s,
      x * y * (1 - c),
      c + y * y * (1 - c),
      x * s,
      y * s,
      -x * s,
      c,
    ];
    const M = [...R.slice(0, 3), 0, ...R.slice(3, 6), 0, ...R.slice(6, 9), 0, 0.3 * diag, -0.2 * diag, 0.1 * diag, 1];
    const rigid = new Float64Array(16 * skeleton.parents.length);
    for (let j = 0; j < skeleton.parents.length; j++) rigid.set(M, 16 * j);
    templates(mesh, rigid, out);
    expect(maxGap(out.positions, deform('lbs', mesh, rigid).positions)).toBeLessThan(1e-5 * diag);
    // Animation frames: the templates differ from DQS at the joints, but no skin is dragged away
    // by a cage (a first design that bound all skin to every cage moved CesiumMan's feet 0.8 of
    // the diagonal).
    const clip = model.animations[0];
    let worst = 0;
    for (const f of [0.2, 0.5, 0.8]) {
      const S = skinningMatrices(skeleton, samplePose(skeleton, clip, f * clip.duration));
      templates(mesh, S, out);
      const dqs = deform('dqs', mesh, S).positions;
      for (let i = 0; i < n; i++)
        worst = Math.max(worst, Math.hypot(out.positions[3 * i] - dqs[3 * i], out.positions[3 * i + 1] - dqs[3 * i + 1], out.positions[3 * i + 2] - dqs[3 * i + 2])); // prettier-ignore
    }
    console.log(
      `${name}: ${rig.limbs.length} limbs, cage of ${rig.cage.positions.length / 3} vertices; largest distance from DQS over 3 frames ${(worst / diag).toFixed(3)} of the diagonal`,
    );
    expect(worst).toBeLessThan(0.1 * diag);
  });
});

describe('stored template rigs of a branching skeleton', () => {
  it.each([
    [
      '',
      'Skeleton_arm_joint_L__3_=muscle-bulge,Skeleton_arm_joint_L__2_=no-pinch-joint',
      'bone from Skeleton_arm_joint_L__3_: muscle-bulge',
      4,
    ],
    ['--trunk', 'torso_joint_3=no-pinch-joint-4', 'joint torso_joint_3 (4 incident bones): no-pinch-joint-4;', 5],
  ])(
    'corskin templates build %s on CesiumMan: the stored rig (limbs, cage skinning, binding) deforms as the one built in memory',
    async (trunk, choices, listed, limbs) => {
      const out = join(tmp.dir, `cesium-templates${trunk}.glb`);
      const r = await runCli(
        'templates',
        'build',
        CESIUM_MAN,
        ...(trunk ? [trunk] : []),
        '--template',
        choices,
        '-o',
        out,
      );
      expect([r.code, r.stderr]).toEqual([0, '']);
      expect((await validate(out)).issues.numErrors).toBe(0);
      const list = await runCli('templates', 'list', out);
      expect(list.stdout).toMatch(new RegExp(`template bones in ${limbs} limbs`));
      expect(list.stdout).toContain(listed);
      if (trunk) expect(list.stdout).toMatch(/radial-joint-4 \(joint, 4 bones\)/); // the chest takes a 4-bone template
      const doc = await readDocument(out);
      const [model] = extractSkinnedModels(doc, out);
      const stored = readTemplateRig(doc, model, out)!;
      const fresh = buildTemplateRig(model.mesh, model.skeleton, undefined, { trunk: !!trunk });
      fresh.limbs.forEach((l, q) => {
        l.boneTemplates = [...stored.limbs[q].boneTemplates];
        l.jointTemplates = [...stored.limbs[q].jointTemplates];
      });
      // The cage's skinning as stored (float32, slots by decreasing weight, empty ones dropped).
      const skinning = (r: typeof stored) =>
        Array.from({ length: r.cageSkin.joints.length / 4 }, (_, c) =>
          [0, 1, 2, 3]
            .map((s) => [r.cageSkin.joints[4 * c + s], r.cageSkin.weights[4 * c + s]])
            .filter(([, w]) => w > 0)
            .sort((a, b) => a[0] - b[0]),
        );
      const [a, b] = [skinning(stored), skinning(fresh)];
      expect(a.map((v) => v.map(([j]) => j))).toEqual(b.map((v) => v.map(([j]) => j)));
      a.forEach((v, c) => v.forEach(([, w], s) => expect(Math.abs(w - b[c][s][1])).toBeLessThan(1e-6)));
      const clip = model.animations[0];
      const S = skinningMatrices(model.skeleton, samplePose(model.skeleton, clip, 0.4 * clip.duration));
      expect(deformationGap(stored, fresh, model.mesh, S)).toBeLessThan(
        1e-5 * boundingBoxDiagonal(model.mesh.positions),
      ); // the cage is stored as 32-bit floats
    },
  );

  it('corskin templates build on rpm-avatar (9 primitives; an animated armature node after the skin joints): validator-clean, the cage skinned to skin joints only', async () => {
    const file = join(SHARED, 'characters/rpm-avatar.glb');
    const out = join(tmp.dir, 'rpm-templates.glb');
    const r = await runCli('templates', 'build', file, '-o', out);
    expect(r.code, r.stderr).toBe(0);
    const doc = await readDocument(out);
    const [model] = extractSkinnedModels(doc, out);
    expect(model.skeleton.jointNames.length).toBeGreaterThan(model.jointNodes.length); // the helper node
    const cage = doc
      .getRoot()
      .listNodes()
      .find((n) => n.getName() === `${model.name} cage`)!;
    const prim = cage.getMesh()!.listPrimitives()[0];
    const [joints, weights] = ['JOINTS_0', 'WEIGHTS_0'].map((a) => prim.getAttribute(a)!);
    for (let i = 0; i < joints.getCount(); i++) {
      expect(Math.max(...joints.getElement(i, []))).toBeLessThan(model.jointNodes.length);
      expect(weights.getElement(i, []).reduce((t, w) => t + w, 0)).toBeCloseTo(1, 6);
    }
    expect((await validate(out)).issues.numErrors).toBe(0);
  });
});

describe('template rigs of a file with many skins', () => {
  it('the skeleton (40 skins on one skeleton): a rig per skin, validator-clean; list and deform --method templates read them', async () => {
    const file = join(SHARED, 'characters/skeleton.glb');
    const out = join(tmp.dir, 'skeleton-templates.glb');
    const r = await runCli('templates', 'build', file, '-o', out);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const built = r.stdout.split('\n').filter((l) => /template cages of \d+ vertices/.test(l)).length;
    const models = extractSkinnedModels(await readDocument(file), file);
    expect(models.length).toBe(40);
    expect(built).toBeGreaterThan(0);
    expect((await validate(out)).issues.numErrors).toBe(0);
    const doc = await readDocument(out);
    const stored = extractSkinnedModels(doc, out).filter((m) => readTemplateRig(doc, m, out));
    expect(stored.length).toBe(built); // one stored rig per skin with a limb (the others are LBS)
    const list = await runCli('templates', 'list', out);
    expect(list.stdout).toMatch(/skin \d+: \d+ template bones in \d+ limbs/);
    const posed = await runCli('deform', out, '--method', 'templates', '-o', join(tmp.dir, 'skeleton-posed.glb'));
    expect([posed.code, posed.stderr]).toEqual([0, '']);
  }, 540_000);
});

describe('joints where limbs branch (Ju et al. 2008, Fig. 13) on the Fox, the trunk templated too', () => {
  it("take the library's template for their incident bones (3 at the hip, 4 at the chest), which also moves the branching limbs' end caps: Eq. 1 over all of them", async () => {
    const file = join(SHARED, 'characters/Fox.glb');
    const [model] = extractSkinnedModels(await readDocument(file), file);
    const { mesh, skeleton } = model;
    const rig = buildTemplateRig(mesh, skeleton, undefined, { trunk: true });
    const joint = (name: string) => skeleton.jointNames.indexOf(name);
    const ids = (bones: number) =>
      DEFAULT_TEMPLATE_LIBRARY.templates
        .filter((t) => t.kind === 'joint' && incidentBones(t) === bones)
        .map((t) => t.id);
    const [hip, chest, elbow] = [joint('b_Hip'), joint('b_Spine02'), joint('b_LeftForeArm')];
    // The hip: the root bone in, the tail going on, the spine branching (3); the chest: the spine
    // in, the neck going on, both front legs branching (4); an elbow: 2.
    expect(compatibleTemplates(rig, hip, 'joint')).toEqual(ids(3));
    expect(compatibleTemplates(rig, chest, 'joint')).toEqual(ids(4));
    expect(compatibleTemplates(rig, elbow, 'joint')).toEqual(ids(2));
    const through = (j: number) => rig.limbs.find((l) => l.chain.indexOf(j) >= 1)!;
    expect(through(hip).jointTemplates[through(hip).chain.indexOf(hip)]).toBe('radial-joint-3');
    expect(through(chest).jointTemplates[through(chest).chain.indexOf(chest)]).toBe('radial-joint-4');
    expect(() => setBoneTemplate(rig, chest, 'radial-joint')).toThrow(
      /"radial-joint" is made for 2 incident bones; joint \d+ takes 4 \(radial-joint-4, no-pinch-joint-4\)/,
    );
    expect(() => setBoneTemplate(rig, chest, 'round-cap')).toThrow(/end cap: caps shape the rest cage/);
    setBoneTemplate(rig, chest, 'no-pinch-joint-4');
    setBoneTemplate(rig, chest, 'radial-joint-4');

    // Eq. 1 written out in the parent bone's bind frame, for the end-cap vertices of the limbs
    // branching off each joint: weights 1 / angle to each incident bone, carries I (the parent),
    // the child's swing (the bone that goes on), the joint's rotation (each branch), directions
    // averaged on the sphere, |v| kept; then the parent's skinning matrix.
    const rotation = (S: Float64Array, j: number) =>
      [0, 1, 2].flatMap((r) => [0, 1, 2].map((c) => S[16 * j + 4 * c + r])); // row-major
    const apply = (R: number[], v: number[]) =>
      [0, 1, 2].map((r) => R[3 * r] * v[0] + R[3 * r + 1] * v[1] + R[3 * r + 2] * v[2]);
    const applyT = (R: number[], v: number[]) => [0, 1, 2].map((r) => R[r] * v[0] + R[3 + r] * v[1] + R[6 + r] * v[2]);
    const rodrigues = (v: number[], from: number[], to: number[]) => {
      const axis = [
        from[1] * to[2] - from[2] * to[1],
        from[2] * to[0] - from[0] * to[2],
        from[0] * to[1] - from[1] * to[0],
      ];
      const s = Math.hypot(...axis), c = from[0] * to[0] + from[1] * to[1] + from[2] * to[2]; // prettier-ignore
      if (s < 1e-15) return v;
      const k = axis.map((x) => x / s);
      const kv = k[0] * v[0] + k[1] * v[1] + k[2] * v[2];
      const kxv = [k[1] * v[2] - k[2] * v[1], k[2] * v[0] - k[0] * v[2], k[0] * v[1] - k[1] * v[0]];
      return v.map((x, i) => x * c + kxv[i] * s + k[i] * kv * (1 - c));
    };
    const diag = boundingBoxDiagonal(mesh.positions);
    const posed = new Float64Array(rig.cage.positions.length);
    const clip = model.animations[0];
    let checked = 0,
      worst = 0,
      moved = 0;
    for (const f of [0.3, 0.7]) {
      const S = skinningMatrices(skeleton, samplePose(skeleton, clip, f * clip.duration));
      poseTemplates(rig, S, posed);
      for (const j of [hip, chest]) {
        const t = through(j), i = t.chain.indexOf(j), p = t.chain[i - 1]; // prettier-ignore
        const Rp = rotation(S, p), Rj = rotation(S, j); // prettier-ignore
        const det =
          Rp[0] * (Rp[4] * Rp[8] - Rp[5] * Rp[7]) -
          Rp[1] * (Rp[3] * Rp[8] - Rp[5] * Rp[6]) +
          Rp[2] * (Rp[3] * Rp[7] - Rp[4] * Rp[6]);
        expect(det).toBeCloseTo(1, 6); // the Fox's skinning matrices are rigid: rotation = linear part
        const rel = (v: number[]) => applyT(Rp, apply(Rj, v)); // the joint's rotation in the parent's frame
        const axis = (l: typeof t, b: number) => Array.from(l.axes.subarray(3 * b, 3 * b + 3));
        const goesOn = axis(t, i);
        const branches = rig.limbs.filter((l) => l.chain[0] === j);
        const bones = [axis(t, i - 1).map((x) => -x), goesOn, ...branches.map((l) => axis(l, 0))];
        const carries = [
          (v: number[]) => v,
          (v: number[]) => rodrigues(v, goesOn, rel(goesOn)),
          ...branches.map(() => rel),
        ];
        const origin = [0, 1, 2].map((r) => S[16 * j + r] * t.points[3 * i] + S[16 * j + 4 + r] * t.points[3 * i + 1] + S[16 * j + 8 + r] * t.points[3 * i + 2] + S[16 * j + 12 + r]); // prettier-ignore
        for (const l of branches)
          l.roles.forEach((role, v) => {
            if (role.kind !== 'cap' || role.index !== 0) return;
            const len = Math.hypot(...role.local);
            const dir = role.local.map((x) => x / len);
            const u = bones.map(
              (b) => 1 / Math.acos(Math.max(-1, Math.min(1, b[0] * dir[0] + b[1] * dir[1] + b[2] * dir[2]))),
            );
            const sum = u.reduce((a, b) => a + b);
            const avg = sphericalAverage(
              carries.flatMap((carry) => carry(dir)),
              u.map((x) => x / sum),
              new Float64Array(3),
            );
            const expected = apply(
              Rp,
              Array.from(avg, (x) => x * len),
            ).map((x, c) => x + origin[c]);
            const got = Array.from(posed.subarray(3 * (l.first + v), 3 * (l.first + v) + 3));
            worst = Math.max(worst, Math.hypot(...got.map((x, c) => x - expected[c])));
            // How far that is from moving rigidly with the joint (the caps' motion before Fig. 13).
            const rigid = apply(Rj, role.local).map((x, c) => x + origin[c]);
            moved = Math.max(moved, Math.hypot(...got.map((x, c) => x - rigid[c])));
            checked++;
          });
      }
    }
    console.log(
      `Fox, branching limbs' cap vertices at the hip and chest: ${checked} checked, largest gap from Eq. 1 ${(worst / diag).toExponential(1)} of the diagonal; ${(moved / diag).toFixed(4)} from rigid with the joint`,
    );
    expect(checked).toBeGreaterThanOrEqual(2 * 3 * 9); // two frames, three branching limbs, apex and ring
    // The skinning matrices come from float32 inverse bind matrices, rotations to about 1e-7:
    // corskin takes their polar rotation, this check their linear part.
    expect(worst).toBeLessThan(1e-6 * diag);
    expect(moved).toBeGreaterThan(1e-4 * diag); // the parent bone's share is felt
  });
});
