/**
 * A helper fit's score (`placementScore`, src/bake/placement-score.ts) reads the candidate's
 * active vertices only and keeps the other vertices' figures (plain LBS) once per active set.
 * Checked here against a brute-force reference written apart: every vertex posed at every time
 * (the samples with the fit's transforms, half-way between with the kept keys interpolated), the
 * whole (time, vertex) array sorted for its largest value and 99th percentile, each half-way
 * time's roots sorted for its bounds — the score, the worse half-way times and the times a vertex
 * passes its largest plain-LBS distance; and `vertexResiduals`, each vertex's sum over the times.
 * On random problems (several candidates on one active set, then another set: the kept figures
 * reused and remade) and on CesiumMan's own samples of DQS (its 3,273 vertices at every sample
 * and half-way time: long enough for the streams to cut their buffers).
 */
import { describe, expect, it } from 'vitest';
import { placementScore, plainLbs, vertexResiduals } from '../src/bake/placement-score.js';
import type { HelperCandidate } from '../src/bake/helper-fit.js';
import type { MethodSamples } from '../src/bake/sampling.js';
import type { SkinnedMesh } from '../src/core/mesh.js';
import { deformers } from '../src/deformers/index.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { sampleMethod } from '../src/bake/sampling.js';
import { CESIUM_MAN, rng } from './helpers/data.js';

/** The bake's bar: p99 to a tenth of plain LBS's, max to a quarter (as placement-score.ts). */
const [P99_SHARE, MAX_SHARE] = [0.1, 0.25];

/** 4×4 column-major rigid matrix of unit quaternion q (x, y, z, w; normalised here) and translation p. */
function rigid(q: ArrayLike<number>, qo: number, p: ArrayLike<number>, po: number): Float64Array {
  const l = Math.hypot(q[qo], q[qo + 1], q[qo + 2], q[qo + 3]);
  const [x, y, z, w] = [q[qo] / l, q[qo + 1] / l, q[qo + 2] / l, q[qo + 3] / l];
  // prettier-ignore
  return Float64Array.of(
    1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w), 0,
    2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w), 0,
    2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y), 0,
    p[po], p[po + 1], p[po + 2], 1,
  );
}

/** A random rotation near the identity (angle up to about `spread` radians), as a quaternion. */
function nearIdentity(rand: () => number, spread: number): number[] {
  const v = [0, 1, 2].map(() => (rand() - 0.5) * spread);
  return [...v.map((x) => x / 2), 1];
}

/** The (sorted-copy) largest value and 99th percentile (index ⌊0.99·N⌋) of `values`. */
function sortedFigures(values: number[]): [number, number] {
  const sorted = Float64Array.from(values).sort();
  return [sorted[sorted.length - 1], sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))]];
}

/**
 * The reference: candidate `c` posed at every vertex and time by its own loops, against the
 * method's targets; a vertex outside `c.active` or keeping its own influences plays plain LBS
 * (its squared distance as the samples hold it, in 32 bits as the score stores them).
 */
function reference(samples: MethodSamples, halfway: MethodSamples, c: HelperCandidate) {
  const n = samples.targets[0].length / 3;
  const J = samples.fixed[0].length / 16;
  const { model } = c;
  const active = new Set(c.active);
  // The written helpers' matrices half-way: keys lerped/slerped between the kept ones around.
  const written = [...c.used.keys()].filter((h) => c.used[h]);
  const halfTransforms: Float64Array[] = [];
  let first = 0;
  samples.clips.forEach(({ times }, ci) =>
    halfway.clips[ci].times.forEach((time, s) => {
      const X = new Float64Array(16 * written.length);
      written.forEach((h, k) => {
        const kept = Array.from(c.keptKeys[h][ci]);
        const a = Math.max(...kept.filter((x) => x <= s));
        const b = Math.min(...kept.filter((x) => x > s));
        const u = (time - times[a]) / (times[b] - times[a]);
        const { translation: tr, rotation: ro } = c.keys[h];
        const p = [0, 1, 2].map(
          (r) => tr[3 * (first + a) + r] + u * (tr[3 * (first + b) + r] - tr[3 * (first + a) + r]),
        );
        const q = slerp(ro, 4 * (first + a), ro, 4 * (first + b), u);
        X.set(hung(halfway.fixed[halfTransforms.length], (c.frames as unknown as { hang: number[] }).hang[h], rigid(q, 0, p, 0)), 16 * k); // prettier-ignore
      });
      halfTransforms.push(X);
      if (s === halfway.clips[ci].times.length - 1) first += times.length;
    }),
  );
  const sets = [
    { at: samples, transforms: model.transforms },
    { at: halfway, transforms: halfTransforms },
  ];
  const rows: Float32Array[] = [];
  const lbsRows: Float32Array[] = [];
  for (const { at, transforms } of sets)
    at.targets.forEach((Y, t) => {
      const [row, lbs] = [new Float32Array(n), Float32Array.from(at.lbsSquared[t])];
      const [F, X, x] = [at.fixed[t], transforms[t], at.rest[t]];
      for (let i = 0; i < n; i++) {
        if (!active.has(i) || c.own[i]) {
          row[i] = lbs[i];
          continue;
        }
        const p = [0, 0, 0];
        for (let k = 0; k < model.influences; k++) {
          const [w, j] = [model.weights[model.influences * i + k], model.joints[model.influences * i + k]];
          const [M, o] = j < J ? [F, 16 * j] : [X, 16 * (j - J)];
          for (let r = 0; r < 3; r++) p[r] += w * (M[o + r] * x[3 * i] + M[o + 4 + r] * x[3 * i + 1] + M[o + 8 + r] * x[3 * i + 2] + M[o + 12 + r]); // prettier-ignore
        }
        row[i] = (p[0] - Y[3 * i]) ** 2 + (p[1] - Y[3 * i + 1]) ** 2 + (p[2] - Y[3 * i + 2]) ** 2;
      }
      rows.push(row);
      lbsRows.push(lbs);
    });
  const [max, p99] = sortedFigures(rows.flatMap((r) => Array.from(r)));
  const [lbsMax, lbsP99] = sortedFigures(lbsRows.flatMap((r) => Array.from(r)));
  const score = Math.sqrt(p99 / lbsP99) / P99_SHARE + Math.sqrt(max / lbsMax) / MAX_SHARE;
  // Half-way: worse than plain LBS there (largest or 99th-percentile root past its own + margin).
  const Y0 = samples.targets[0];
  const extent = [0, 1, 2].map((r) => {
    const xs = Array.from(Y0).filter((_, k) => k % 3 === r);
    return Math.max(...xs) - Math.min(...xs);
  });
  const margin = 1e-4 * Math.hypot(...extent);
  const vertexMax = new Float32Array(n);
  for (const lbs of lbsRows) lbs.forEach((d, i) => (vertexMax[i] = Math.max(vertexMax[i], d)));
  const S = samples.targets.length;
  let worseHalfway = 0;
  const overTimes: number[] = [];
  for (let t = 0; t < halfway.targets.length; t++) {
    const [bMax, bP99] = sortedFigures(Array.from(rows[S + t], Math.sqrt));
    const [lMax, lP99] = sortedFigures(Array.from(lbsRows[S + t], Math.sqrt));
    const worse = bMax > lMax + margin || bP99 > lP99 + margin;
    if (worse) worseHalfway++;
    if (worse || rows[S + t].some((d, i) => d > vertexMax[i])) overTimes.push(t);
  }
  const residuals = new Float64Array(n);
  for (const row of rows) row.forEach((d, i) => (residuals[i] += d));
  return { score, worseHalfway, overTimes, residuals, rows };
}

/**
 * A candidate on `active` (the others keep their own influences), its fitted helpers (those at
 * odd indices unused) each hanging from a fixed joint: at a sample it plays that joint's matrix
 * times a rigid motion near the identity, and a key plays likewise (the mock `frames.play`, under
 * the joints' matrices at that time). Each fitted vertex: two random fixed joints and a helper
 * (random weights); or with `mesh`, its own influences (0.98 of their weight) and the helper
 * hanging from its heaviest joint (0.02), whose motions grow from none at the first sample to
 * `spread` at the last. Kept keys: each clip's ends and about a third of the rest.
 */
function candidateOn(
  samples: MethodSamples,
  active: number[],
  rand: () => number,
  { fitted = 3, ownShare = 0.1, mesh, spread = 0.3 }: { fitted?: number; ownShare?: number; mesh?: SkinnedMesh; spread?: number } = {}, // prettier-ignore
): HelperCandidate {
  const n = samples.targets[0].length / 3;
  const J = samples.fixed[0].length / 16;
  const heaviest = (i: number) => {
    const M = mesh!.influences;
    let best = M * i;
    for (let k = M * i + 1; k < M * i + M; k++) if (mesh!.weights[k] > mesh!.weights[best]) best = k;
    return mesh!.joints[best];
  };
  // With a mesh, one helper per heaviest joint among the fitted vertices, and one unused.
  const hangs = mesh ? [...new Set(active.map(heaviest))] : [];
  if (mesh) fitted = 2 * hangs.length;
  const hang = Array.from({ length: fitted }, (_, h) => (mesh ? hangs[h >> 1] : Math.floor(rand() * J)));
  const used = Uint8Array.from({ length: fitted }, (_, h) => (h % 2 === 0 ? 1 : 0));
  const written = [...used.keys()].filter((h) => used[h]);
  const H = written.length;
  const K = mesh ? mesh.influences + 1 : 3;
  const joints = new Uint32Array(K * n);
  const weights = new Float32Array(K * n);
  const own = new Uint8Array(n).fill(1);
  for (const i of active) {
    own[i] = rand() < ownShare ? 1 : 0;
    if (mesh) {
      const M = mesh.influences;
      joints.set(mesh.joints.subarray(M * i, M * i + M), K * i);
      for (let k = 0; k < M; k++) weights[K * i + k] = 0.98 * mesh.weights[M * i + k];
      joints[K * i + M] = J + hangs.indexOf(heaviest(i)); // written helper m is fitted helper 2m
      weights[K * i + M] = 0.02;
      continue;
    }
    const w = [rand(), rand(), rand()];
    const sum = w[0] + w[1] + w[2];
    joints.set([Math.floor(rand() * J), Math.floor(rand() * J), J + Math.floor(rand() * H)], K * i);
    weights.set(
      w.map((x) => x / sum),
      K * i,
    );
  }
  const T = samples.targets.length;
  const amplitude = (t: number) => (mesh ? (spread * t) / (T - 1) : spread);
  const transforms = Array.from({ length: T }, (_, t) => {
    const X = new Float64Array(16 * H);
    written.forEach((h, k) => X.set(hung(samples.fixed[t], hang[h], rigid(nearIdentity(rand, amplitude(t)), 0, [0, 1, 2].map(() => (rand() - 0.5) * 0.1 * amplitude(t)), 0)), 16 * k)); // prettier-ignore
    return X;
  });
  const keys = Array.from({ length: fitted }, () => {
    const translation = Float32Array.from({ length: 3 * T }, (_, c) => (rand() - 0.5) * 0.1 * amplitude(Math.floor(c / 3))); // prettier-ignore
    const rotation = new Float32Array(4 * T);
    for (let s = 0; s < T; s++) rotation.set(nearIdentity(rand, amplitude(s)), 4 * s);
    // A key stored as −q (the same rotation): the interpolation must take the shorter arc.
    for (let s = 1; s < T; s += 3) for (let c = 0; c < 4; c++) rotation[4 * s + c] *= -1;
    return { translation, rotation };
  });
  const keptKeys = Array.from({ length: fitted }, () =>
    samples.clips.map(({ times }) => {
      const last = times.length - 1;
      return Int32Array.from([...Array(times.length).keys()].filter((s) => s === 0 || s === last || rand() < 0.35));
    }),
  );
  const frames = {
    play(
      S: Float64Array,
      X: Float64Array,
      h: number,
      tr: ArrayLike<number>,
      to: number,
      ro: ArrayLike<number>,
      rof: number,
    ) {
      X.set(hung(S, hang[h], rigid(ro, rof, tr, to)), 16 * h);
    },
    hang,
  };
  return {
    model: { helpers: H, transforms, influences: K, joints, weights },
    own,
    active,
    used,
    keys,
    keptKeys,
    frames,
  } as unknown as HelperCandidate;
}

/** Fixed joint j's matrix in `F` (16·J, 4×4 column-major) times `local`. */
function hung(F: Float64Array, j: number, local: Float64Array): Float64Array {
  const out = new Float64Array(16);
  for (let c = 0; c < 4; c++)
    for (let r = 0; r < 4; r++) {
      let x = 0;
      for (let k = 0; k < 4; k++) x += F[16 * j + 4 * k + r] * local[4 * c + k];
      out[4 * c + r] = x;
    }
  return out;
}

/**
 * Spherical linear interpolation of unit quaternions a and b (x, y, z, w) at u along the shorter
 * arc (b negated where a·b < 0), written here apart from the library's.
 */
function slerp(a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number, u: number): number[] {
  const qa = [0, 1, 2, 3].map((c) => a[ao + c]);
  let qb = [0, 1, 2, 3].map((c) => b[bo + c]);
  let dot = qa.reduce((s, x, c) => s + x * qb[c], 0);
  if (dot < 0) [qb, dot] = [qb.map((x) => -x), -dot];
  if (dot > 0.9995) return qa.map((x, c) => x + u * (qb[c] - x));
  const theta = Math.acos(Math.min(1, dot));
  const [wa, wb] = [Math.sin((1 - u) * theta) / Math.sin(theta), Math.sin(u * theta) / Math.sin(theta)];
  return qa.map((x, c) => wa * x + wb * qb[c]);
}

/** Random samples: `clips` clips of the given sample counts over unit-cube points, targets the rest moved by up to `noise`. */
function randomSamples(rand: () => number, n: number, counts: number[], halfway: boolean, noise = 0.2): MethodSamples {
  const J = 4;
  const rest = Float32Array.from({ length: 3 * n }, () => rand());
  const clips = counts.map((count) => ({
    clip: {} as never,
    times: Float32Array.from({ length: halfway ? count - 1 : count }, (_, s) => (halfway ? s + 0.5 : s) / 30),
  }));
  const T = clips.reduce((s, c) => s + c.times.length, 0);
  return {
    clips,
    rest: Array.from({ length: T }, () => rest),
    targets: Array.from({ length: T }, () => rest.map((x) => x + (rand() - 0.5) * noise)),
    lbsSquared: Array.from({ length: T }, () => Float64Array.from({ length: n }, () => rand() * 0.5)),
    fixed: Array.from({ length: T }, () => {
      const F = new Float64Array(16 * J);
      for (let j = 0; j < J; j++) F.set(rigid(nearIdentity(rand, 0.3), 0, [0, 0, 0], 0), 16 * j);
      return F;
    }),
    rate: 30,
    between: false,
  };
}

/** Whether `placementScore` and `vertexResiduals` give the reference's figures for `c`. */
function expectReference(
  samples: MethodSamples,
  halfway: MethodSamples,
  plain: ReturnType<typeof plainLbs>,
  c: HelperCandidate,
) {
  const want = reference(samples, halfway, c);
  const got = placementScore(samples, halfway, plain, c);
  // The same float32 distances up to a few roundings: the score to 1e-6.
  expect(got.score).toBeCloseTo(want.score, 6);
  expect(got.worseHalfway).toBe(want.worseHalfway);
  expect(got.overTimes).toEqual(want.overTimes);
  // Per vertex: the half-way keys interpolated by another slerp than the library's (a few float
  // roundings apart), so within 1e-5 of the sum.
  const residuals = vertexResiduals(samples, halfway, plain, c);
  let off = 0;
  for (let i = 0; i < residuals.length; i++)
    off = Math.max(off, Math.abs(residuals[i] - want.residuals[i]) / (want.residuals[i] + 1e-30));
  expect(off).toBeLessThan(1e-5);
  return want;
}

describe('placementScore: the fitted vertices only, as every vertex brute force', () => {
  it('random problems: candidates on one active set, then on another', () => {
    const rand = rng(20261206);
    const n = 600;
    const samples = randomSamples(rand, n, [7, 5], false);
    const halfway = randomSamples(rand, n, [7, 5], true);
    // Plain LBS tiny at every third half-way time (the candidates are worse there), and at some
    // vertices about the candidate's own distances (those pass their largest at some times only).
    halfway.lbsSquared.forEach((row, t) => t % 3 === 0 && row.forEach((_, i) => (row[i] *= 1e-6)));
    const active = [...Array(n).keys()].filter(() => rand() < 0.4);
    const first = candidateOn(samples, active, rand);
    const rows = reference(samples, halfway, first).rows;
    for (const i of active.slice(0, 3)) {
      const mine = rows.map((r) => r[i]).sort((a, b) => a - b);
      for (const at of [...samples.lbsSquared, ...halfway.lbsSquared]) at[i] = mine[mine.length >> 1];
    }
    const plain = plainLbs(samples, halfway);
    const seen = { worse: new Set<number>(), over: 0 };
    for (const c of [
      first,
      candidateOn(samples, active, rand),
      candidateOn(samples, active, rand, { fitted: 5, ownShare: 0.3 }),
    ]) {
      const want = expectReference(samples, halfway, plain, c);
      seen.worse.add(want.worseHalfway);
      seen.over = Math.max(seen.over, want.overTimes.length - want.worseHalfway);
    }
    // Another active set: the kept figures remade (and the first set's again after it).
    const other = active.filter((_, a) => a % 2 === 0).concat([1, 2, 3].filter((i) => !active.includes(i)));
    other.sort((a, b) => a - b);
    expectReference(samples, halfway, plain, candidateOn(samples, other, rand));
    expectReference(samples, halfway, plain, candidateOn(samples, active, rand));
    // The reference itself finds times worse than plain LBS, not all of them, and times where a
    // vertex passes its largest plain-LBS distance without the time being worse.
    const halves = halfway.targets.length;
    expect([...seen.worse].every((w) => w > 0 && w < halves)).toBe(true);
    expect(seen.over).toBeGreaterThan(0);
  });

  it('half-way times at the bounds: one value past them decides, whichever vertices it is at', () => {
    // 200 vertices (the 99th percentile the second largest: one value past its bound is allowed,
    // two are worse), placed along y at x = 0; every fitted vertex plays its bind position (one
    // fixed joint, the identity), and its target is moved along x by d: its distance is d,
    // exactly (d = k/4096 ≤ 1: d² is a float32). One clip of 3 samples, so 2 half-way times.
    const n = 200;
    const step = 1 / 4096;
    const rest = new Float32Array(3 * n);
    for (let i = 0; i < n; i++) rest[3 * i + 1] = i / 256;
    const moved = (d: Map<number, number>) => {
      const Y = rest.slice();
      for (const [i, x] of d) Y[3 * i] = x;
      return Y;
    };
    const identity = Float64Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1);
    const at = (times: number[], targets: Float32Array[], lbs: Float64Array[], fixed = times.map(() => identity)) =>
      ({ clips: [{ clip: {} as never, times: Float32Array.from(times) }], rest: times.map(() => rest), targets, lbsSquared: lbs, fixed, rate: 30, between: false }) as MethodSamples; // prettier-ignore
    const flat = (x: number) => new Float64Array(n).fill(x * x);
    const samples = at([0, 1 / 30, 2 / 30], [rest, rest, rest], [flat(0.25), flat(0.25), flat(0.25)]);
    // Half-way time 0: plain LBS's largest at vertex 100, 2 steps above the rest (0.5): its 99th
    // percentile 0.5. Vertex 0 fitted 1 step above 0.5 (past the percentile's bound, within the
    // largest's), vertex 100 2 steps (likewise). Half-way time 1: the same, vertex 0 at 0.5.
    const lbsHalf = flat(0.5);
    lbsHalf[100] = (0.5 + 2 * step) ** 2;
    const halfway = at(
      [0.5 / 30, 1.5 / 30],
      [moved(new Map([[0, 0.5 + step], [100, 0.5 + 2 * step]])), moved(new Map([[0, 0.5], [100, 0.5 + 2 * step]]))], // prettier-ignore
      [lbsHalf, lbsHalf.slice()],
    );
    const plain = plainLbs(samples, halfway);
    const on = (active: number[]) =>
      ({
        model: { helpers: 0, transforms: samples.targets.map(() => new Float64Array(0)), influences: 1, joints: new Uint32Array(n), weights: new Float32Array(n).fill(1) }, // prettier-ignore
        own: Uint8Array.from({ length: n }, (_, i) => (active.includes(i) ? 0 : 1)),
        active,
        used: new Uint8Array(0),
        keys: [],
        keptKeys: [],
        frames: {},
      }) as unknown as HelperCandidate;
    const range = (from: number, to: number) => [...Array(to - from).keys()].map((k) => from + k);
    // Vertices 0–99 fitted: at time 0, vertex 0 and (outside, plain LBS) vertex 100 past the
    // percentile's bound: worse; at time 1, vertex 100 alone: not.
    expect(expectReference(samples, halfway, plain, on(range(0, 100))).worseHalfway).toBe(1);
    expect(placementScore(samples, halfway, plain, on(range(0, 100))).overTimes).toEqual([0]);
    // Vertices 50–149 fitted: vertex 100 past the bound as a fitted vertex, vertex 0 plays plain
    // LBS (0.5): one value past at each time, neither worse; then the first set again.
    expect(expectReference(samples, halfway, plain, on(range(50, 150))).worseHalfway).toBe(0);
    expect(expectReference(samples, halfway, plain, on(range(0, 100))).worseHalfway).toBe(1);
  });

  it("CesiumMan's samples of DQS (3,273 vertices, every sample and half-way time)", async () => {
    const [model] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
    const samples = sampleMethod(model, deformers.dqs, 10);
    const halfway = sampleMethod(model, deformers.dqs, 10, { halfway: true });
    const n = samples.targets[0].length / 3;
    const rand = rng(7);
    // The legs' vertices fitted (plain LBS is farthest from DQS there; about 40% of them).
    const byDistance = [...Array(n).keys()].sort((a, b) => samples.lbsSquared[5][b] - samples.lbsSquared[5][a]);
    const active = byDistance.slice(0, Math.round(0.4 * n)).sort((a, b) => a - b);
    const plain = plainLbs(samples, halfway);
    expect((samples.targets.length + halfway.targets.length) * n).toBeGreaterThan(100 * 1024);
    const worse = [0.5, 0.95].map((ownShare) => expectReference(samples, halfway, plain, candidateOn(samples, active, rand, { mesh: model.mesh, ownShare })).worseHalfway); // prettier-ignore
    // Some half-way times worse than plain LBS, not all (the helpers' motions grow over the clip).
    console.log(`CesiumMan: half-way times worse than plain LBS ${worse.join(', ')} of ${halfway.targets.length}`);
    expect(worse.some((w) => w > 0 && w < halfway.targets.length)).toBe(true);
  });
});
