/**
 * Skinning templates on real, branching skeletons: CesiumMan, a humanoid with fingers (the
 * Mixamo Soldier) and a quadruped (the Fox). Each limb's cage is a valid closed cage around the
 * skin bound to it; the bind pose and a rigid motion are reproduced; animation frames stay near
 * linear blend skinning (a limb's cage never drags another limb's skin); the rig stored by
 * `corskin templates build` deforms as the one built in memory.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkCage, type Cage } from '../src/cage/cage.js';
import { pointsOutside } from '../src/cage/winding-number.js';
import { samplePose } from '../src/core/animation.js';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { bindPoseSkinningMatrices, skinningMatrices } from '../src/core/pose.js';
import { deform } from '../src/deformers/index.js';
import { readTemplateRig } from '../src/io/cage-gltf.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { buildTemplateRig, createTemplateDeformer, type TemplateRig } from '../src/templates/rig.js';
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
  it('one valid closed cage per limb around its skin; bind pose and rigid motion reproduced; frames near LBS', async () => {
    const [model] = extractSkinnedModels(await readDocument(file), file);
    const { mesh, skeleton } = model;
    const rig = buildTemplateRig(mesh, skeleton);
    expect(rig.limbs.length).toBeGreaterThanOrEqual(5); // spine, two arms, two legs at least
    const n = mesh.positions.length / 3;
    const covered = new Uint8Array(n);
    rig.limbs.forEach((_, l) => {
      const { cage, vertices } = component(rig, l);
      expect(() => checkCage(cage)).not.toThrow(); // closed, 2-manifold, outward
      const X = Float32Array.from(vertices.flatMap((v) => Array.from(mesh.positions.subarray(3 * v, 3 * v + 3))));
      expect(pointsOutside(cage, X)).toEqual([]);
      for (const v of vertices) covered[v] = 1;
    });
    // Every vertex is moved by some cage unless all its weight is skinned linearly.
    const K = mesh.influences;
    for (let v = 0; v < n; v++) {
      let linear = 0;
      for (let k = K * v; k < K * v + K; k++) linear += rig.linear[k];
      if (!covered[v]) expect(linear).toBeGreaterThan(0.999);
    }
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
    // Animation frames: the templates differ from LBS at the joints, but no skin is dragged away
    // by another limb's cage (a first design that bound all skin to every cage moved CesiumMan's
    // feet 0.8 of the diagonal).
    const clip = model.animations[0];
    let worst = 0;
    for (const f of [0.2, 0.5, 0.8]) {
      const S = skinningMatrices(skeleton, samplePose(skeleton, clip, f * clip.duration));
      templates(mesh, S, out);
      const lbs = deform('lbs', mesh, S).positions;
      for (let i = 0; i < n; i++)
        worst = Math.max(worst, Math.hypot(out.positions[3 * i] - lbs[3 * i], out.positions[3 * i + 1] - lbs[3 * i + 1], out.positions[3 * i + 2] - lbs[3 * i + 2])); // prettier-ignore
    }
    console.log(
      `${name}: ${rig.limbs.length} limbs, cage of ${rig.cage.positions.length / 3} vertices; largest distance from LBS over 3 frames ${(worst / diag).toFixed(3)} of the diagonal`,
    );
    expect(worst).toBeLessThan(0.1 * diag);
  });
});

describe('stored template rigs of a branching skeleton', () => {
  it('corskin templates build on CesiumMan: the stored rig (limbs, reaches, linear part) deforms as the one built in memory', async () => {
    const out = join(tmp.dir, 'cesium-templates.glb');
    const r = await runCli(
      'templates',
      'build',
      CESIUM_MAN,
      '--template',
      'Skeleton_arm_joint_L__3_=muscle-bulge',
      '-o',
      out,
    );
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect((await validate(out)).issues.numErrors).toBe(0);
    const list = await runCli('templates', 'list', out);
    expect(list.stdout).toMatch(/template bones in 5 limbs/);
    expect(list.stdout).toContain('bone from Skeleton_arm_joint_L__3_: muscle-bulge');
    const doc = await readDocument(out);
    const [model] = extractSkinnedModels(doc, out);
    const stored = readTemplateRig(doc, model, out)!;
    const fresh = buildTemplateRig(model.mesh, model.skeleton);
    fresh.limbs.forEach((l, q) => (l.boneTemplates = [...stored.limbs[q].boneTemplates]));
    expect(stored.linear).toEqual(fresh.linear);
    const clip = model.animations[0];
    const S = skinningMatrices(model.skeleton, samplePose(model.skeleton, clip, 0.4 * clip.duration));
    expect(deformationGap(stored, fresh, model.mesh, S)).toBeLessThan(1e-5 * boundingBoxDiagonal(model.mesh.positions)); // the cage is stored as 32-bit floats
  });

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
  }, 180_000);
});
