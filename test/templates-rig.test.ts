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
import { bindJointPositions } from '../src/core/skeleton.js';
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
import { buildTemplateRig, templatedJoints, templateShares } from '../src/methods/templates/rig.js';
import { createTemplateDeformer } from '../src/methods/templates/deformer.js';
import { poseTemplates } from '../src/methods/templates/pose.js';
import { setBoneTemplate } from '../src/methods/templates/edit.js';
import {
  DEFAULT_TEMPLATE_LIBRARY,
  parseTemplateLibrary,
  type TemplateLibrary,
} from '../src/methods/templates/library.js';
import { ARM_GLB } from './helpers/data.js';
import { secondKeyWeight, thickerAcrossChain } from './helpers/templates.js';

const deg = Math.PI / 180;
const benches: [string, () => Promise<Benchmark>][] = [
  ['the bar', async () => barBenchmark()],
  ['the libigl arm', async () => armBenchmark(extractSkinnedModels(await readDocument(ARM_GLB), ARM_GLB)[0])],
];

describe.each(benches)('chain templates on %s', (_name, load) => {
  it('build a closed, outward cage around every skin vertex it binds (most of the skin); reproduce the bind pose and a rigid motion', async () => {
    const bench = await load();
    const rig = buildTemplateRig(bench.mesh, bench.skeleton);
    expect(() => checkCage(rig.cage)).not.toThrow();
    const { influences: K, weights } = rig.binding;
    const bound: number[] = [];
    for (let i = 0; i < bench.mesh.positions.length / 3; i++)
      if (weights.subarray(K * i, K * i + K).some((w) => w > 0)) bound.push(i);
    expect(bound.length).toBeGreaterThan(0.5 * (bench.mesh.positions.length / 3));
    expect(
      pointsOutside(
        rig.cage,
        Float64Array.from(bound.flatMap((i) => Array.from(bench.mesh.positions.subarray(3 * i, 3 * i + 3)))),
      ),
    ).toEqual([]);
    const diag = boundingBoxDiagonal(bench.mesh.positions);
    const n = bench.mesh.positions.length / 3;
    const out = { positions: new Float32Array(3 * n) };
    const templates = createTemplateDeformer(rig);
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

  it('keep the smallest cross-section ≥ 0.8 of rest under twists of 90°–180° and bends of 90° and 126°, self-intersections within 0.1% of the triangles of CoR', async () => {
    const bench = await load();
    const j = bench.cases[0].joint;
    const poses = [
      ...[90, 135, 180].map((a) => twistPose(bench.skeleton, j, a * deg)),
      ...[90, 126].map((a) => bendPose(bench.skeleton, j, [0, 0, 1], a * deg)),
    ];
    const rig = buildTemplateRig(bench.mesh, bench.skeleton);
    const templates = createTemplateDeformer(rig);
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
      // The twist spread along the forearm leaves a few crossing triangles at 180° on the arm (12
      // of its 16,618; DQS 0, CoR 0, LBS 237): at most 0.1% of the triangles, and no more than CoR's
      // plus that.
      expect(selfIntersections(out.positions, bench.mesh.triangles, weld)).toBeLessThanOrEqual(
        selfIntersections(cor, bench.mesh.triangles, weld) + 1e-3 * (bench.mesh.triangles.length / 3),
      );
    }
  });
});

/**
 * The muscle bulge of `muscle` over `radial` (two posings of `rest`, 3·n each) on the middle of
 * chain bone 1 (the upper arm): per vertex there, the change of its distance to the posed bone
 * line relative to its rest distance, over the vertices on the crease side (the skin facing the
 * bent forearm, whose direction from the bone is `crease`, posed space): its 95th percentile (the
 * bulge's crest).
 */
function creaseBulge(
  rig: ReturnType<typeof buildTemplateRig>,
  rest: Float32Array,
  radial: Float32Array,
  muscle: Float32Array,
  S: Float64Array,
  crease: number[],
): number {
  const i = 1;
  const a = Array.from(rig.limbs[0].points.subarray(3 * i, 3 * i + 3)),
    b = Array.from(rig.limbs[0].points.subarray(3 * i + 3, 3 * i + 6));
  const o = 16 * rig.limbs[0].chain[i];
  const move = (p: number[]) =>
    [0, 1, 2].map((r) => S[o + r] * p[0] + S[o + 4 + r] * p[1] + S[o + 8 + r] * p[2] + S[o + 12 + r]);
  const [pa, pb] = [move(a), move(b)];
  const line = (p: ArrayLike<number>, q0: number[], q1: number[]) => {
    const d = q1.map((x, k) => x - q0[k]);
    const t =
      ((p[0] - q0[0]) * d[0] + (p[1] - q0[1]) * d[1] + (p[2] - q0[2]) * d[2]) / (d[0] ** 2 + d[1] ** 2 + d[2] ** 2);
    const off = [0, 1, 2].map((k) => p[k] - q0[k] - t * d[k]);
    return { t, off, dist: Math.hypot(...off) };
  };
  const c = crease.map((x) => x / Math.hypot(...crease));
  const changes: number[] = [];
  for (let v = 0; v < rest.length / 3; v++) {
    const r = line(rest.subarray(3 * v, 3 * v + 3), a, b);
    if (r.t < 0.3 || r.t > 0.7 || r.dist === 0) continue;
    const p = line(radial.subarray(3 * v, 3 * v + 3), pa, pb);
    if (dot(p.off, c) < 0.7 * p.dist) continue; // the crease side
    changes.push((line(muscle.subarray(3 * v, 3 * v + 3), pa, pb).dist - p.dist) / r.dist);
  }
  changes.sort((x, y) => x - y);
  return changes[Math.floor(0.95 * (changes.length - 1))];
}

describe('template choices on the arm', () => {
  it('the muscle-bulge template swells the upper arm as the elbow bends, by a similar relative amount on an arm 1.5× thicker; switching takes effect on the next frame', async () => {
    const [arm] = extractSkinnedModels(await readDocument(ARM_GLB), ARM_GLB);
    const elbow = arm.skeleton.jointNames.indexOf('bone2');
    const S = skinningMatrices(arm.skeleton, bendPose(arm.skeleton, elbow, [0, 0, 1], 90 * deg));
    // The crease: the posed forearm's direction across the posed upper arm.
    const P = bindJointPositions(arm.skeleton);
    const posedJoint = (name: string) => {
      const j = arm.skeleton.jointNames.indexOf(name);
      return [0, 1, 2].map((r) => S[16 * j + r] * P[3 * j] + S[16 * j + 4 + r] * P[3 * j + 1] + S[16 * j + 8 + r] * P[3 * j + 2] + S[16 * j + 12 + r]); // prettier-ignore
    };
    const [s0, e0, w0] = ['bone1', 'bone2', 'bone3'].map(posedJoint);
    const upper = e0.map((x, k) => x - s0[k]), fore = w0.map((x, k) => x - e0[k]); // prettier-ignore
    const crease = fore.map((x, k) => x - (dot(upper, fore) / dot(upper, upper)) * upper[k]);
    const bulgeOn = (mesh: typeof arm.mesh) => {
      const rig = buildTemplateRig(mesh, arm.skeleton);
      expect(rig.limbs[0].chain[1]).toBe(arm.skeleton.jointNames.indexOf('bone1')); // the upper arm
      const templates = createTemplateDeformer(rig);
      const out = { positions: new Float32Array(mesh.positions.length) };
      templates(mesh, S, out);
      const radial = out.positions.slice();
      setBoneTemplate(rig, rig.limbs[0].chain[1], 'muscle-bulge');
      templates(mesh, S, out);
      const muscle = out.positions.slice();
      expect(muscle).not.toEqual(radial);
      setBoneTemplate(rig, rig.limbs[0].chain[1], 'radial-bone');
      templates(mesh, S, out);
      expect(out.positions).toEqual(radial); // back to the very same result
      return creaseBulge(rig, mesh.positions, radial, muscle, S, crease);
    };
    const thin = bulgeOn(arm.mesh);
    // The arm 1.5× thicker: every vertex's offset from its bone axis (the chain of bones 1–3) scaled.
    const thick = bulgeOn({ ...arm.mesh, positions: thickerAcrossChain(arm.mesh.positions, buildTemplateRig(arm.mesh, arm.skeleton).limbs[0], 1.5) }); // prettier-ignore
    console.log(
      `muscle bulge, crease side of the mid upper arm: ${thin.toFixed(4)} (arm), ${thick.toFixed(4)} (1.5× thicker) of the radius`,
    );
    expect(thin).toBeGreaterThan(0.02);
    expect(Math.abs(thick - thin) / thin).toBeLessThan(0.25);
  });

  it('a bad library or template choice is a clear error', () => {
    expect(() => parseTemplateLibrary({ format: 'x', version: 1, templates: [] }, 'lib.json')).toThrow(
      /lib.json: template library: format must be "corskin-templates"/,
    );
    const bad = JSON.parse(JSON.stringify(DEFAULT_TEMPLATE_LIBRARY));
    bad.templates[1].keyPoses[1].bend = 200;
    expect(() => parseTemplateLibrary(bad, 'lib.json')).toThrow(
      /templates\[1\]\.keyPoses\[1\]\.bend must be a number of degrees from 0 to 180/,
    );
    bad.templates[1].keyPoses[1].bend = 90;
    bad.templates[2].id = bad.templates[1].id;
    expect(() => parseTemplateLibrary(bad, 'lib.json')).toThrow(/templates\[2\]\.id "muscle-bulge" is defined twice/);
    expect(parseTemplateLibrary(JSON.parse(JSON.stringify(DEFAULT_TEMPLATE_LIBRARY)))).toEqual(
      DEFAULT_TEMPLATE_LIBRARY,
    );
    const rig = buildTemplateRig(barBenchmark().mesh, barBenchmark().skeleton);
    expect(() => setBoneTemplate(rig, rig.limbs[0].chain[0], 'biceps')).toThrow(
      /no template "biceps" \(templates: radial-bone \(bone\), muscle-bulge \(bone\)/,
    );
    // The first joint of the only limb starts it: no joint template there.
    expect(() => setBoneTemplate(rig, rig.limbs[0].chain[0], 'no-pinch-joint')).toThrow(/has no joint template/);
    // Version 3: joint templates for more incident bones, end caps.
    const v3 = (t: Record<string, unknown>, version = 3) => ({ format: 'corskin-templates', version, templates: [t] });
    expect(() => parseTemplateLibrary(v3({ id: 'c', kind: 'cap' }, 2), 'lib.json')).toThrow(
      /templates\[0\]\.kind "cap" needs "version": 3/,
    );
    expect(() => parseTemplateLibrary(v3({ id: 'j', kind: 'joint', bones: 4, keyPoses: [{ bend: 0, bulge: 0 }] }, 2), 'lib.json')).toThrow(/templates\[0\]\.bones needs "version": 3/); // prettier-ignore
    expect(() => parseTemplateLibrary(v3({ id: 'j', kind: 'joint', bones: 1, keyPoses: [{ bend: 0, bulge: 0 }] }), 'lib.json')).toThrow(/bones must be a whole number of incident bones from 2 to 8/); // prettier-ignore
    expect(() => parseTemplateLibrary(v3({ id: 'b', kind: 'bone', bones: 3, keyPoses: [{ bend: 0, bulge: 0 }] }), 'lib.json')).toThrow(/bones is for joint templates/); // prettier-ignore
    expect(() => parseTemplateLibrary(v3({ id: 'c', kind: 'cap', keyPoses: [{ bend: 0, bulge: 0 }, { bend: 90, bulge: 0.2 }] }), 'lib.json')).toThrow(/keyPoses of a cap must be the rest only/); // prettier-ignore
    expect(() => parseTemplateLibrary(v3({ id: 'c', kind: 'cap', apex: 3 }), 'lib.json')).toThrow(
      /apex must be a number of ring radii from 0 to 2/,
    );
    expect(parseTemplateLibrary(v3({ id: 'c', kind: 'cap', apex: 0.2 })).templates[0]).toEqual({
      id: 'c',
      kind: 'cap',
      apex: 0.2,
      keyPoses: [{ bend: 0, bulge: 0 }],
      description: undefined,
    });
    expect(() => setBoneTemplate(rig, rig.limbs[0].chain[0], 'round-cap')).toThrow(/"round-cap" is an end cap/);
  });

  it("end caps (library version 3): the library's first cap sets how far the cage's ends reach beyond their last rings", () => {
    const { mesh, skeleton } = barBenchmark();
    const beyond = (library: TemplateLibrary) => {
      const [limb] = buildTemplateRig(mesh, skeleton, library).limbs;
      const m = limb.roles.length;
      const apex = limb.roles[m - 1].local; // the leaf cap: its ring, then its apex (from the last joint)
      const ring = limb.roles.slice(m - 1 - 8, m - 1).map((r) => r.local);
      const a = Array.from(limb.axes.subarray(limb.axes.length - 3));
      const along = (p: number[]) => p[0] * a[0] + p[1] * a[1] + p[2] * a[2];
      const centre = [0, 1, 2].map((c) => ring.reduce((t, p) => t + p[c], 0) / 8);
      const radius = Math.hypot(...ring[0].map((x, c) => x - centre[c]));
      return (along(apex) - along(centre)) / radius;
    };
    const withCapFirst = (id: string) => ({
      ...DEFAULT_TEMPLATE_LIBRARY,
      templates: [...DEFAULT_TEMPLATE_LIBRARY.templates].sort((x, y) => +(y.id === id) - +(x.id === id)),
    });
    for (const id of ['round-cap', 'flat-cap', 'pointed-cap'])
      expect(beyond(withCapFirst(id))).toBeCloseTo(
        DEFAULT_TEMPLATE_LIBRARY.templates.find((t) => t.id === id)!.apex!,
        9,
      );
  });

  it('joint templates at the elbow: no-pinch swells the crease side and bulge the outer side as it bends (Fig. 4)', async () => {
    const bend = await elbowBend(110);
    const radial = bend.pose('bone2', 'radial-joint');
    const noPinch = bend.shift(bend.pose('bone2', 'no-pinch-joint'), radial);
    const bulge = bend.shift(bend.pose('bone2', 'bulge-joint'), radial);
    console.log(
      `elbow at 110°: no-pinch moves the skin up to ${(noPinch.largest / bend.diag).toFixed(4)}, bulge up to ${(bulge.largest / bend.diag).toFixed(4)} of the diagonal`,
    );
    expect(noPinch.largest).toBeGreaterThan(2e-3 * bend.diag);
    expect(bulge.largest).toBeGreaterThan(2e-3 * bend.diag);
    expect(dot(noPinch.mean, bend.crease)).toBeGreaterThan(0); // the crease side swells
    expect(dot(bulge.mean, bend.crease)).toBeLessThan(0); // the outer side bulges
    expect(bend.pose('bone2', 'radial-joint')).toEqual(radial); // back to the radial default: the very same result
  });

  it('the exaggerated bone templates of Fig. 12: upward-bulge swells the outer side, sliding moves the skin along the bone', async () => {
    const bend = await elbowBend(90);
    const radial = bend.pose('bone1', 'radial-bone'); // the upper arm
    const [muscle, upward, sliding] = ['muscle-bulge', 'upward-bulge', 'sliding'].map(
      (id) => bend.shift(bend.pose('bone1', id), radial).mean,
    );
    expect(dot(muscle, bend.crease)).toBeGreaterThan(0); // the crease side swells
    expect(dot(upward, bend.crease)).toBeLessThan(0); // the outer side swells
    // Sliding: along the upper arm, towards the elbow, more than across it.
    const along = dot(sliding, bend.upperArm) / Math.sqrt(dot(bend.upperArm, bend.upperArm));
    expect(along).toBeGreaterThan(0);
    expect(Math.abs(along)).toBeGreaterThan(Math.sqrt(Math.max(0, dot(sliding, sliding) - along * along)));
    expect(bend.pose('bone1', 'radial-bone')).toEqual(radial);
  });

  it("the twisting bone template of Fig. 12 turns the upper arm's cage about the bone, keeping each vertex's radius and axial place", async () => {
    const bend = await elbowBend(90);
    const [radial, twisting] = ['radial-bone', 'twisting'].map((id) => bend.cage('bone1', id));
    const limb = bend.rig.limbs[0];
    const i = limb.chain.indexOf(bend.joint('bone1'));
    const axis = bend.upperArm.map((x) => x / Math.sqrt(dot(bend.upperArm, bend.upperArm)));
    const L = Math.sqrt(dot(bend.upperArm, bend.upperArm));
    let checked = 0;
    limb.roles.forEach((role, v) => {
      if (role.kind !== 'bone' || role.index !== i) return;
      // Cylindrical coordinates about the posed upper arm, from the shoulder.
      const cyl = (p: Float64Array) => {
        const d = [0, 1, 2].map((k) => p[3 * (limb.first + v) + k] - bend.shoulder[k]);
        const x = dot(d, axis);
        const r = d.map((c, k) => c - x * axis[k]);
        return { x, r };
      };
      const [a, b] = [cyl(radial), cyl(twisting)];
      expect(Math.abs(b.x - a.x)).toBeLessThan(1e-9 * bend.diag);
      expect(Math.abs(Math.sqrt(dot(b.r, b.r)) - Math.sqrt(dot(a.r, a.r)))).toBeLessThan(1e-9 * bend.diag);
      const angle = Math.acos(Math.min(1, dot(a.r, b.r) / Math.sqrt(dot(a.r, a.r) * dot(b.r, b.r))));
      // Key poses 0° and 30° at bends 0° and 90°, blended by Eq. 2 over the forearm's rotation
      // (two keys, φ(d) = d), times the profile sin πt at the vertex's place t along the bone.
      const t = a.x / L;
      expect(angle * (180 / Math.PI)).toBeCloseTo(30 * bend.key90 * Math.sin(Math.PI * t), 4);
      checked++;
    });
    expect(checked).toBeGreaterThanOrEqual(8);
    console.log(`twisting: the forearm bent ${bend.bend.toFixed(1)}° from its rest bend`);
    expect(bend.bend).toBeGreaterThan(30);
    expect(bend.shift(bend.pose('bone1', 'twisting'), bend.pose('bone1', 'radial-bone')).largest).toBeGreaterThan(
      2e-3 * bend.diag,
    );
  });
});

const dot = (u: number[], v: number[]) => u[0] * v[0] + u[1] * v[1] + u[2] * v[2];

/**
 * The libigl arm's elbow bent by `degrees` with a template rig: the skin posed with a template
 * chosen at a joint, the displacement between two posings (mean, largest), the posed upper arm
 * and the crease direction (the forearm's direction across the upper arm).
 */
async function elbowBend(degrees: number) {
  const [arm] = extractSkinnedModels(await readDocument(ARM_GLB), ARM_GLB);
  const joint = (name: string) => arm.skeleton.jointNames.indexOf(name);
  const S = skinningMatrices(arm.skeleton, bendPose(arm.skeleton, joint('bone2'), [0, 0, 1], degrees * deg));
  const rig = buildTemplateRig(arm.mesh, arm.skeleton);
  const templates = createTemplateDeformer(rig);
  const n = arm.mesh.positions.length / 3;
  const P = bindJointPositions(arm.skeleton);
  const posed = (j: number) => [0, 1, 2].map((r) => S[16 * j + r] * P[3 * j] + S[16 * j + 4 + r] * P[3 * j + 1] + S[16 * j + 8 + r] * P[3 * j + 2] + S[16 * j + 12 + r]); // prettier-ignore
  const [s0, e0, w0] = ['bone1', 'bone2', 'bone3'].map((name) => posed(joint(name)));
  const upperArm = e0.map((x, k) => x - s0[k]);
  const forearm = w0.map((x, k) => x - e0[k]);
  const crease = forearm.map((x, k) => x - (dot(upperArm, forearm) / dot(upperArm, upperArm)) * upperArm[k]);
  const angle = (u: number[], v: number[]) => Math.acos(dot(u, v) / Math.sqrt(dot(u, u) * dot(v, v))) * (180 / Math.PI);
  const [rs, re, rw] = ['bone1', 'bone2', 'bone3'].map((name) =>
    Array.from(P.subarray(3 * joint(name), 3 * joint(name) + 3)),
  );
  const restBend = angle(
    re.map((x, k) => x - rs[k]),
    rw.map((x, k) => x - re[k]),
  );
  return {
    diag: boundingBoxDiagonal(arm.mesh.positions),
    rig,
    joint,
    shoulder: s0,
    /** The forearm's bend from its rest bend, degrees. */
    bend: angle(upperArm, forearm) - restBend,
    /** Eq. 2's weight of a template's 90° key pose at this pose (two keys: 0° and 90°). */
    key90: secondKeyWeight(
      [0, 1, 2].flatMap((r) => [0, 1, 2].map((c) => S[16 * joint('bone2') + 4 * c + r])),
      rw.map((x, k) => (x - re[k]) / Math.hypot(...rw.map((y, m) => y - re[m]))),
      Math.PI / 2,
    ),
    upperArm,
    crease,
    pose(at: string, id: string) {
      setBoneTemplate(rig, joint(at), id);
      const out = { positions: new Float32Array(3 * n) };
      templates(arm.mesh, S, out);
      return out.positions;
    },
    cage(at: string, id: string) {
      setBoneTemplate(rig, joint(at), id);
      return poseTemplates(rig, S, new Float64Array(rig.cage.positions.length));
    },
    shift(p: Float32Array, from: Float32Array) {
      const mean = [0, 0, 0];
      let largest = 0;
      for (let i = 0; i < n; i++) {
        const d = [0, 1, 2].map((k) => p[3 * i + k] - from[3 * i + k]);
        d.forEach((x, k) => (mean[k] += x / n));
        largest = Math.max(largest, Math.hypot(d[0], d[1], d[2]));
      }
      return { mean, largest };
    },
  };
}

describe('template shares at a branching joint', () => {
  // A trunk root(0) → spine(1) → chest(2) → neck(3) and an arm chest(2) → shoulder(4) → elbow(5) →
  // wrist(6): the arm branches off the chest; its joints from its root (the shoulder, or the joint
  // after a clavicle) are templated. Without the trunk, the arm is the one limb.
  const arm = [2, 4, 5, 6];
  const P = Float64Array.of(0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 1, 2, 0, 2, 2, 0, 3, 2, 0);
  it("templates act on the weight of a limb's joints from its root joint (after the branch point with the trunk templated too)", () => {
    expect(Array.from(templatedJoints(P, [arm]))).toEqual([-1, -1, -1, -1, 0, 0, 0]);
    expect(Array.from(templatedJoints(P, [[0, 1, 2, 3], arm], true))).toEqual([-1, 0, 0, 0, 1, 1, 1]);
    // A clavicle: the bone from 4 to 5 less than 0.7 times the next, so 5 is the shoulder and 4 stays DQS.
    const clavicle = Float64Array.of(0, 0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0.2, 2, 0, 0.5, 2, 0, 2, 2, 0);
    expect(Array.from(templatedJoints(clavicle, [arm]))).toEqual([-1, -1, -1, -1, -1, 0, 0]);
  });
  it("a vertex takes its share of each limb from its weight on the limb's templated joints, where its weights blend", () => {
    // One triangle at the elbow with blended weights (shoulder, elbow, chest), and a far triangle on
    // the chest alone (no blending: flex 0).
    const mesh = {
      positions: Float32Array.of(2, 2.2, 0, 2.1, 1.8, 0, 1.9, 2, 0.2, 0, 2.5, 1, 0.1, 2.5, 1, 0, 2.6, 1),
      triangles: Uint32Array.of(0, 1, 2, 3, 4, 5),
      influences: 3,
      joints: Uint32Array.of(4, 5, 2, 4, 5, 2, 4, 5, 2, 2, 4, 5, 2, 4, 5, 2, 4, 5),
      weights: Float32Array.of(0.3, 0.6, 0.1, 0.5, 0.5, 0, 0.2, 0.7, 0.1, 1, 0, 0, 1, 0, 0, 1, 0, 0),
    };
    const skeleton = { parents: Int32Array.of(-1, 0, 1, 2, 2, 4, 5) } as unknown as Parameters<
      typeof templateShares
    >[1];
    const share = templateShares(mesh, skeleton, P, [arm]);
    [0.9, 1, 0.9].forEach((arm, i) => expect(share[i]).toBeCloseTo(arm, 6)); // the shoulder's and the elbow's weight; the chest's is the branch point's
    for (let i = 3; i < 6; i++) expect(share[i]).toBe(0); // rigid on the chest
  });
});
