/**
 * Skinning-template deformation functions (Ju et al. 2008, Eq. 1–4), against the paper's claims
 * (Fig. 8): key poses reproduced, a sphere of joint-template vertices and a cylinder of
 * bone-template vertices keep their radius under a 90° bend plus a 90° twist where linear
 * blending of the same candidates collapses, the joint ring lands on the bisecting plane; the
 * spherical average of two points is slerp; Eq. 3's swing–twist is the frame-to-frame rotation.
 */
import { describe, expect, it } from 'vitest';
import {
  blendCylindrical,
  boneKeyPosition,
  boneMap,
  boneMapInverse,
  boneTemplateKey,
  prepareBoneTemplate,
  type BoneTemplateFrame,
} from '../src/methods/templates/bone.js';
import {
  frameRotation,
  jointKeyPosition,
  jointTemplateKey,
  blendMagnitudeDirection,
  prepareJointTemplate,
} from '../src/methods/templates/joint.js';
import { createKeyPoseWeights } from '../src/methods/templates/key-poses.js';
import { apply3, axisAngle } from '../src/methods/templates/rotation.js';
import { slerpScaled, sphericalAverage } from '../src/methods/templates/spherical-average.js';
import { rng } from './helpers/data.js';

const X = [1, 0, 0],
  Y = [0, 1, 0],
  Z = [0, 0, 1];
const turn = (R: ArrayLike<number>, v: number[]) => {
  const out = new Float64Array(3);
  apply3(R, 0, v, 0, out, 0);
  return Array.from(out);
};
/** A bone frame bent by `bend` about z, then twisted by `twist` about its own direction. */
function bentFrame(b: number[], r: number[], bend: number, twist: number): number[] {
  const swing = axisAngle(Z, bend);
  const bj = turn(swing, b);
  return [...bj, ...turn(axisAngle(bj, twist), turn(swing, r))];
}
const unit = (v: number[]) => v.map((x) => x / Math.hypot(...v));

function spherePoints(count: number, radius: number): number[][] {
  const pts: number[][] = [];
  for (let i = 0; i < count; i++) {
    const z = 1 - (2 * (i + 0.5)) / count,
      a = i * Math.PI * (3 - Math.sqrt(5));
    const s = Math.sqrt(1 - z * z);
    pts.push([radius * s * Math.cos(a), radius * s * Math.sin(a), radius * z]);
  }
  return pts;
}

describe('spherical averages (Buss & Fillmore 2001)', () => {
  it('of two points is slerp', () => {
    const random = rng(3);
    for (let k = 0; k < 20; k++) {
      const p = unit([random() - 0.5, random() - 0.5, random() - 0.5]);
      const q = unit([random() - 0.5, random() - 0.5, random() - 0.5]);
      const t = random();
      const omega = Math.acos(p[0] * q[0] + p[1] * q[1] + p[2] * q[2]);
      const slerp = p.map((x, i) => (Math.sin((1 - t) * omega) * x + Math.sin(t * omega) * q[i]) / Math.sin(omega));
      const avg = sphericalAverage([...p, ...q], [1 - t, t], new Float64Array(3));
      for (let i = 0; i < 3; i++) expect(Math.abs(avg[i] - slerp[i])).toBeLessThan(1e-12);
    }
  });
});

describe('spherical averages of more points', () => {
  it('satisfy Buss & Fillmore’s condition Σ w_i log_q(p_i) = 0', () => {
    const random = rng(9);
    for (let k = 0; k < 10; k++) {
      const pts = Array.from({ length: 4 }, () => unit([random() - 0.5, random() - 0.5, random() + 0.2]));
      const w = [0.1, 0.2, 0.3, 0.4];
      const q = Array.from(sphericalAverage(pts.flat(), w, new Float64Array(3)));
      const g = [0, 0, 0];
      pts.forEach((p, i) => {
        const c = p[0] * q[0] + p[1] * q[1] + p[2] * q[2];
        const v = p.map((x, j) => x - c * q[j]);
        const s = Math.hypot(...v);
        for (let j = 0; j < 3; j++) g[j] += (w[i] * Math.atan2(s, c) * v[j]) / s;
      });
      expect(Math.hypot(...g)).toBeLessThan(1e-12);
      expect(Math.hypot(...q)).toBeCloseTo(1, 14);
    }
  });
});

describe('joint templates (Eq. 1, Eq. 3)', () => {
  const canonical = [...X, ...Y];
  // A two-bone joint: the parent bone towards −x, the child bone towards +x (straight), r = +y.
  const rest = [-1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0];

  it("Eq. 3's swing and twist is the rotation from frame to frame", () => {
    const random = rng(5);
    for (let k = 0; k < 20; k++) {
      const b = unit([random() - 0.5, random() - 0.5, random() - 0.5]);
      const r0 = unit([random() - 0.5, random() - 0.5, random() - 0.5]);
      const d = r0[0] * b[0] + r0[1] * b[1] + r0[2] * b[2];
      const r = unit(r0.map((x, i) => x - d * b[i]));
      const R = frameRotation(X, Y, b, r);
      const [rb, rr] = [turn(R, X), turn(R, Y)];
      for (let i = 0; i < 3; i++) {
        expect(Math.abs(rb[i] - b[i])).toBeLessThan(1e-12);
        expect(Math.abs(rr[i] - r[i])).toBeLessThan(1e-12);
      }
    }
  });

  it('reproduces the key pose, and keeps a sphere a sphere under a 90° bend plus 90° twist where linear blending collapses', () => {
    const pose = [...rest.slice(0, 6), ...bentFrame([1, 0, 0], [0, 1, 0], Math.PI / 2, Math.PI / 2)];
    let keyError = 0,
      radiusError = 0,
      linearMin = Infinity;
    const out = new Float64Array(3);
    for (const v of spherePoints(200, 0.3)) {
      jointKeyPosition(canonical, { position: v, frames: rest }, rest, out);
      keyError = Math.max(keyError, Math.hypot(out[0] - v[0], out[1] - v[1], out[2] - v[2]));
      jointKeyPosition(canonical, { position: v, frames: rest }, pose, out);
      radiusError = Math.max(radiusError, Math.abs(Math.hypot(...out) - 0.3));
      // The same candidates and weights blended linearly (what LBS does).
      const parent = v,
        child = turn(frameRotation(X, Y, pose.slice(6, 9), pose.slice(9, 12)), v);
      const a0 = Math.acos(-v[0] / 0.3),
        a1 = Math.acos(v[0] / 0.3);
      const u0 = a0 < 1e-12 ? 1 : a1 < 1e-12 ? 0 : 1 / a0 / (1 / a0 + 1 / a1);
      linearMin = Math.min(linearMin, Math.hypot(...parent.map((x, i) => u0 * x + (1 - u0) * child[i])) / 0.3);
    }
    expect(keyError).toBeLessThan(1e-9);
    expect(radiusError).toBeLessThan(1e-9);
    console.log(`joint template, linear blend: smallest radius ${linearMin.toFixed(3)} of the sphere`);
    expect(linearMin).toBeLessThan(0.75); // linear blending pulls the sphere in
  });

  it.each([3, 4])(
    'for %i incident bones (Fig. 13): the key pose exact, a sphere kept under a 90° bend plus 90° twist, a vertex on a bone carried by that bone alone',
    (bones) => {
      // A chest: the parent bone towards −x, the bone that goes on towards +x, branches towards +y (and −y).
      const sides = [[0, 1, 0], [0, -1, 0]].slice(0, bones - 2); // prettier-ignore
      const keyFrames = [...rest, ...sides.flatMap((d) => [...d, 0, 0, 1])];
      // The child joint bent 90° about z and twisted 90° about its bone; the branches turned with it
      // (bent 90° about z), each then twisted 90° about its own direction.
      const pose = [
        ...rest.slice(0, 6),
        ...bentFrame([1, 0, 0], [0, 1, 0], Math.PI / 2, Math.PI / 2),
        ...sides.flatMap((d) => bentFrame(d, [0, 0, 1], Math.PI / 2, Math.PI / 2)),
      ];
      let keyError = 0,
        radiusError = 0,
        linearMin = Infinity;
      const out = new Float64Array(3);
      const bonesNow = Array.from({ length: bones }, (_, j) => pose.slice(6 * j, 6 * j + 6));
      const carries = bonesNow.map((f) => frameRotation(X, Y, f.slice(0, 3), f.slice(3, 6)));
      const carriesRest = Array.from({ length: bones }, (_, j) =>
        frameRotation(X, Y, keyFrames.slice(6 * j, 6 * j + 3), keyFrames.slice(6 * j + 3, 6 * j + 6)),
      );
      for (const v of spherePoints(300, 0.3)) {
        jointKeyPosition(canonical, { position: v, frames: keyFrames }, keyFrames, out);
        keyError = Math.max(keyError, Math.hypot(out[0] - v[0], out[1] - v[1], out[2] - v[2]));
        jointKeyPosition(canonical, { position: v, frames: keyFrames }, pose, out);
        radiusError = Math.max(radiusError, Math.abs(Math.hypot(...out) - 0.3));
        // The same candidates (each bone's carry of v) and weights (1 / angle to the bone) blended linearly.
        const angles = Array.from({ length: bones }, (_, j) =>
          Math.acos(
            Math.max(
              -1,
              Math.min(1, (v[0] * keyFrames[6 * j] + v[1] * keyFrames[6 * j + 1] + v[2] * keyFrames[6 * j + 2]) / 0.3),
            ),
          ),
        );
        if (angles.some((a) => a < 1e-9)) continue;
        const u = angles.map((a) => 1 / a);
        const total = u.reduce((a, b) => a + b);
        const blend = [0, 0, 0];
        carries.forEach((R, j) => {
          const back = new Float64Array(3);
          // M_j(M_j⁻¹(v, rest), pose) = R_j · R_j,rest⁻¹ · v.
          const Rr = carriesRest[j];
          const local = [0, 1, 2].map((r) => Rr[r] * v[0] + Rr[3 + r] * v[1] + Rr[6 + r] * v[2]);
          apply3(R, 0, local, 0, back, 0);
          for (let c = 0; c < 3; c++) blend[c] += (u[j] / total) * back[c];
        });
        linearMin = Math.min(linearMin, Math.hypot(...blend) / 0.3);
      }
      expect(keyError).toBeLessThan(1e-9);
      expect(radiusError).toBeLessThan(1e-9);
      console.log(`${bones}-bone joint template, linear blend: smallest radius ${linearMin.toFixed(3)} of the sphere`);
      expect(linearMin).toBeLessThan(0.8);
      // A vertex on a branch's direction moves with that branch alone (u_j = δ): rigidly with it.
      const onBranch = [0, 0.3, 0];
      jointKeyPosition(canonical, { position: onBranch, frames: keyFrames }, pose, out);
      const expected = bonesNow[2].slice(0, 3).map((x) => 0.3 * x);
      expect(Math.hypot(out[0] - expected[0], out[1] - expected[1], out[2] - expected[2])).toBeLessThan(1e-12);
    },
  );

  it('⊕ of equal magnitudes keeps the magnitude', () => {
    const out = blendMagnitudeDirection([0.5, 0, 0, 0, 0.5, 0, 0, 0, -0.5], [0.2, 0.5, 0.3], new Float64Array(3));
    expect(Math.hypot(...out)).toBeCloseTo(0.5, 14);
  });
});

describe('bone templates (Eq. 1, Eq. 4)', () => {
  const t: BoneTemplateFrame = { axis: X, length: 1, reference: Y };
  // Relevant bone 0 continues the template bone backwards (−x), bone 1 forwards (+x).
  const rest = [-1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0];
  const pose = [...rest.slice(0, 6), ...bentFrame([1, 0, 0], [0, 1, 0], Math.PI / 2, Math.PI / 2)];
  const cylinder: number[][] = [];
  for (let i = 0; i <= 10; i++)
    for (let k = 0; k < 12; k++) {
      const a = (2 * Math.PI * k) / 12;
      cylinder.push([i / 10, 0.2 * Math.cos(a), 0.2 * Math.sin(a)]);
    }

  it('M_j⁻¹ inverts M_j at both ends', () => {
    const out = new Float64Array(3),
      back = new Float64Array(3);
    const start = [...bentFrame([-1, 0, 0], [0, 1, 0], -Math.PI / 3, Math.PI / 4), ...pose.slice(6)];
    for (const j of [0, 1])
      for (const v of cylinder) {
        boneMap(t, j, start.slice(6 * j, 6 * j + 6), v, out);
        boneMapInverse(t, j, start.slice(6 * j, 6 * j + 6), out, back);
        expect(Math.hypot(back[0] - v[0], back[1] - v[1], back[2] - v[2])).toBeLessThan(1e-12);
      }
  });

  it('reproduces the key pose, keeps the cylinder radius under a 90° bend plus 90° twist, and lays the end ring on the bisecting plane', () => {
    const out = new Float64Array(3);
    let keyError = 0,
      radiusError = 0,
      ringOff = 0,
      linearMin = Infinity;
    const bj = pose.slice(6, 9);
    for (const v of cylinder) {
      boneKeyPosition(t, { position: v, frames: rest }, rest, out);
      keyError = Math.max(keyError, Math.hypot(out[0] - v[0], out[1] - v[1], out[2] - v[2]));
      boneKeyPosition(t, { position: v, frames: rest }, pose, out);
      radiusError = Math.max(radiusError, Math.abs(Math.hypot(out[1], out[2]) - 0.2));
      if (v[0] === 1)
        ringOff = Math.max(ringOff, Math.abs((out[0] - 1) * (1 + bj[0]) + out[1] * bj[1] + out[2] * bj[2]));
      // Linear blending of the two ends' candidates.
      const end = new Float64Array(3);
      boneMap(t, 1, pose.slice(6), v, end);
      const s1 = 1 - v[0],
        s0 = v[0];
      if (s0 > 0 && s1 > 0) {
        const u1 = 1 / s1 / (1 / s0 + 1 / s1);
        linearMin = Math.min(linearMin, Math.hypot((1 - u1) * v[1] + u1 * end[1], (1 - u1) * v[2] + u1 * end[2]) / 0.2);
      }
    }
    expect(keyError).toBeLessThan(1e-9);
    expect(radiusError).toBeLessThan(1e-9);
    expect(ringOff).toBeLessThan(1e-9);
    expect(linearMin).toBeLessThan(0.9); // measured 0.88: linear blending of the same candidates pulls the cylinder in
  });
});

describe('key poses (Eq. 2)', () => {
  it('weights are δ at every key pose, non-negative and sum to 1 between them', () => {
    const rest = [-1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0];
    const keys = [
      rest,
      [...rest.slice(0, 6), ...bentFrame(X, Y, Math.PI / 2, 0)],
      [...rest.slice(0, 6), ...bentFrame(X, Y, 0, Math.PI / 2)],
    ];
    const weights = createKeyPoseWeights(keys);
    keys.forEach((k, i) => {
      const w = weights(k);
      w.forEach((x, j) => expect(Math.abs(x - (i === j ? 1 : 0))).toBeLessThan(1e-12));
    });
    const between = weights([...rest.slice(0, 6), ...bentFrame(X, Y, Math.PI / 4, Math.PI / 6)]);
    expect(between.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 14);
    expect(Math.min(...between)).toBeGreaterThanOrEqual(0);
  });
});

describe('the closed forms of Eq. 1 against their definitions', () => {
  // Random bends (about z) and twists of both relevant bones, at the key pose and at the pose; the
  // twists kept within ±80° so that principal angles and the evaluation's branch of β agree.
  const random = rng(11);
  const angle = (max: number) => (2 * random() - 1) * max;
  const frames = (bend: number) => [
    ...bentFrame([-1, 0, 0], [0, 1, 0], angle(bend), angle((4 * Math.PI) / 9)),
    ...bentFrame([1, 0, 0], [0, 1, 0], angle(bend), angle((4 * Math.PI) / 9)),
  ];

  it('a bone template vertex is Eq. 4 inverted at the key pose, applied at the pose from each end and ⊕-blended (u ∝ 1/s)', () => {
    const t: BoneTemplateFrame = { axis: X, length: 1.3, reference: Y };
    let worst = 0;
    for (let trial = 0; trial < 40; trial++) {
      const key = frames(0.6);
      const pose = frames(1.4);
      for (let p = 0; p < 25; p++) {
        const v = [1.3 * random(), 0.3 * (random() - 0.5), 0.3 * (random() - 0.5)];
        const moved = new Float64Array(6);
        const canonical = new Float64Array(3);
        const s = [v[0] / 1.3, 1 - v[0] / 1.3]; // distance from each end along the bone, in lengths
        for (let j = 0; j < 2; j++) {
          boneMapInverse(t, j, key.slice(6 * j, 6 * j + 6), v, canonical);
          boneMap(t, j, pose.slice(6 * j, 6 * j + 6), canonical, moved, 3 * j);
        }
        const u = [1 / s[0], 1 / s[1]].map((x, _, a) => x / (a[0] + a[1]));
        const expected = blendCylindrical(t, moved, u, new Float64Array(3));
        const got = boneKeyPosition(t, { position: v, frames: key }, pose, new Float64Array(3));
        worst = Math.max(worst, Math.hypot(got[0] - expected[0], got[1] - expected[1], got[2] - expected[2]));
      }
    }
    expect(worst).toBeLessThan(1e-12);
  });

  it('a two-bone joint template vertex is the spherical average of v carried by each bone (u ∝ 1/angle)', () => {
    const canonical = [...X, ...Y];
    let worst = 0;
    for (let trial = 0; trial < 40; trial++) {
      const key = frames(0.6);
      const pose = frames(1.4);
      for (let p = 0; p < 25; p++) {
        const v = [random() - 0.5, random() - 0.5, random() - 0.5].map((x) => 0.4 * x);
        const len = Math.hypot(...v);
        const dirs: number[] = [];
        const u: number[] = [];
        for (let j = 0; j < 2; j++) {
          const b = key.slice(6 * j, 6 * j + 3);
          u.push(1 / Math.acos((v[0] * b[0] + v[1] * b[1] + v[2] * b[2]) / len));
          // M_j(pose) · M_j(key)ᵀ · v
          const atKey = frameRotation(X, Y, key.slice(6 * j, 6 * j + 3), key.slice(6 * j + 3, 6 * j + 6));
          const atPose = frameRotation(X, Y, pose.slice(6 * j, 6 * j + 3), pose.slice(6 * j + 3, 6 * j + 6));
          const back = [0, 1, 2].map((c) => atKey[c] * v[0] + atKey[3 + c] * v[1] + atKey[6 + c] * v[2]);
          dirs.push(...turn(atPose, back).map((x) => x / len));
        }
        const expected = sphericalAverage(dirs, [u[0] / (u[0] + u[1]), u[1] / (u[0] + u[1])], new Float64Array(3)).map(
          (x) => x * len,
        );
        const got = jointKeyPosition(canonical, { position: v, frames: key }, pose, new Float64Array(3));
        worst = Math.max(worst, Math.hypot(got[0] - expected[0], got[1] - expected[1], got[2] - expected[2]));
      }
    }
    expect(worst).toBeLessThan(1e-12);
  });

  it('a memo kept from another pose gives what a fresh evaluation gives (what posing a cage keeps between frames)', () => {
    const t: BoneTemplateFrame = { axis: X, length: 1.3, reference: Y };
    const key = frames(0.6);
    const [poseA, poseB] = [frames(1.4), frames(1.4)];
    const bone = boneTemplateKey(t, key);
    const joint = jointTemplateKey([...X, ...Y], key);
    const points = Array.from({ length: 50 }, () => [1.3 * random(), 0.3 * (random() - 0.5), 0.3 * (random() - 0.5)]);
    const memo = new Float64Array(9 * points.length).fill(NaN);
    const [a, b] = [new Float64Array(3), new Float64Array(3)];
    for (const [prepare, name] of [
      [(f: number[]) => prepareBoneTemplate(bone, f), 'bone'],
      [(f: number[]) => prepareJointTemplate(joint, f), 'joint'],
    ] as const) {
      memo.fill(NaN);
      const [atA, atB] = [prepare(poseA), prepare(poseB)];
      points.forEach((v, i) => atA(v, a, 0, memo, 9 * i)); // fills the memo at pose A
      points.forEach((v, i) => {
        atB(v, a, 0, memo, 9 * i);
        atB(v, b);
        expect(Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]), name).toBe(0);
      });
    }
  });

  it('slerp keeps the length and halves the angle within 1e-9 near opposite directions (from the arc cosine of the dot product: 1e-8)', () => {
    const out = new Float64Array(3);
    for (const gap of [1e-3, 1e-5, 1e-6, 3e-7, 1.5e-7]) {
      const theta = Math.PI - gap;
      for (const t of [0, 0.3, 0.5, 1]) {
        expect(slerpScaled(0.3, 0, 0, 0.3 * Math.cos(theta), 0.3 * Math.sin(theta), 0, t, 0.3, out, 0)).toBe(true);
        const want = [0.3 * Math.cos(t * theta), 0.3 * Math.sin(t * theta), 0];
        expect(Math.hypot(out[0] - want[0], out[1] - want[1], out[2] - want[2])).toBeLessThan(1e-9);
      }
    }
    // Within 1e-7 rad of opposite there is no shorter arc: nothing written.
    expect(slerpScaled(1, 0, 0, Math.cos(Math.PI - 5e-8), Math.sin(Math.PI - 5e-8), 0, 0.5, 1, out, 0)).toBe(false);
  });
});
