/**
 * `bake --as helpers` is never worse than plain LBS at any sample (with `--guard between`, nor
 * half-way between two, where a player interpolates the helpers' keys): on every shared character and
 * on variants made here (mirrored, scaled ×0.01, ×100 and unevenly above the skeleton — the
 * skinning matrices then scale, as the chicken's do —, weights summing to 0.9, 20 influences),
 * the baked file's largest and 99th-percentile distance to the method over the vertices, at each
 * sample, are at most plain LBS's plus `NEVER_WORSE_MARGIN` (1e-4) of the diagonal. Checked by
 * brute force (every distance sorted), the file read back and played by LBS.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NodeIO, type Document } from '@gltf-transform/core';
import { samplePose } from '../src/core/animation.js';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { applyMorphTargets, sampleMorphWeights } from '../src/core/morph.js';
import { skinningMatrices } from '../src/core/pose.js';
import { computeCentersOfRotation } from '../src/cor/precompute.js';
import { deformers } from '../src/deformers/index.js';
import type { Deformer } from '../src/deformers/contract.js';
import { NEVER_WORSE_MARGIN } from '../src/bake/measure.js';
import { blendWeights } from '../src/bake/weight-blend.js';
import { bakeCheckTimes, bakeSampleTimes } from '../src/bake/samples.js';
import { bakeHelperJoints } from '../src/io/helper-bake.js';
import { extractSkinnedModels, type SkinnedModel } from '../src/io/gltf.js';
import { readDocument, writeDocument } from '../src/io/node-io.js';
import { CESIUM_MAN, scratch, SHARED } from './helpers/data.js';
import { runCli } from './helpers/cli.js';

const tmp = scratch();
afterAll(() => tmp.cleanup());

const FOX = join(SHARED, 'characters/Fox.glb');

/** `file` edited by `edit`, written to the scratch folder. */
async function variant(file: string, name: string, edit: (document: Document) => void): Promise<string> {
  const io = new NodeIO();
  const document = await io.read(file);
  edit(document);
  const out = join(tmp.dir, `${name}.glb`);
  await io.write(out, document);
  return out;
}

/** Every scene's content under a new node of scale `scale`. */
const underScale = (scale: [number, number, number]) => (document: Document) => {
  for (const scene of document.getRoot().listScenes()) {
    const root = document.createNode('variant').setScale(scale);
    for (const child of scene.listChildren()) {
      scene.removeChild(child);
      root.addChild(child);
    }
    scene.addChild(root);
  }
};

/** Each vertex's weights as floats: per primitive, per set, 4 per vertex. */
function weightSets(document: Document, edit: (joints: number[][], weights: number[][], jointCount: number) => void) {
  const jointCount = document.getRoot().listSkins()[0].listJoints().length;
  for (const p of document
    .getRoot()
    .listMeshes()
    .flatMap((m) => m.listPrimitives())) {
    if (!p.getAttribute('JOINTS_0')) continue;
    const count = p.getAttribute('JOINTS_0')!.getCount();
    const joints: number[][] = [];
    const weights: number[][] = [];
    for (let v = 0; v < count; v++) {
      const js: number[] = [];
      const ws: number[] = [];
      for (let set = 0; p.getAttribute(`JOINTS_${set}`); set++) {
        js.push(...p.getAttribute(`JOINTS_${set}`)!.getElement(v, []));
        ws.push(...p.getAttribute(`WEIGHTS_${set}`)!.getElement(v, []));
      }
      joints.push(js);
      weights.push(ws);
    }
    edit(joints, weights, jointCount);
    const sets = Math.ceil(Math.max(...joints.map((j) => j.length)) / 4);
    for (let set = 0; set < sets; set++) {
      const j = new Uint16Array(4 * count);
      const w = new Float32Array(4 * count);
      for (let v = 0; v < count; v++)
        for (let c = 0; c < 4; c++) {
          j[4 * v + c] = joints[v][4 * set + c] ?? 0;
          w[4 * v + c] = weights[v][4 * set + c] ?? 0;
        }
      const buffer = document.getRoot().listBuffers()[0];
      p.setAttribute(`JOINTS_${set}`, document.createAccessor().setType('VEC4').setArray(j).setBuffer(buffer));
      p.setAttribute(`WEIGHTS_${set}`, document.createAccessor().setType('VEC4').setArray(w).setBuffer(buffer));
    }
  }
}

/**
 * Per sample of every clip at `rate` (the bake's samples; `between`: and half-way between two), the baked file by LBS and
 * the original by plain LBS against the method: the largest and 99th-percentile distance (÷ the
 * method's diagonal at the first sample), by sorting.
 */
function perSample(original: SkinnedModel, baked: SkinnedModel, deform: Deformer, rate: number, between: boolean) {
  const n = original.mesh.positions.length / 3;
  const rows: { baked: [number, number]; lbs: [number, number] }[] = [];
  let diagonal = 0;
  const stats = (a: Float64Array): [number, number] => {
    const s = Float64Array.from(a).sort();
    return [s[n - 1] / diagonal, s[Math.min(n - 1, Math.floor(0.99 * n))] / diagonal];
  };
  for (const clip of original.animations) {
    const other = baked.animations.find((c) => c.name === clip.name)!;
    for (const t of (between ? bakeCheckTimes : bakeSampleTimes)(clip.duration, rate)) {
      const S = skinningMatrices(original.skeleton, samplePose(original.skeleton, clip, t));
      const mesh = applyMorphTargets(original.mesh, original.morphGroups, sampleMorphWeights(original.morphGroups, clip.morphChannels ?? [], t)); // prettier-ignore
      const bakedMesh = applyMorphTargets(baked.mesh, baked.morphGroups, sampleMorphWeights(baked.morphGroups, other.morphChannels ?? [], t)); // prettier-ignore
      const [method, lbs, played] = [0, 1, 2].map(() => ({ positions: new Float32Array(3 * n) }));
      deform(mesh, S, method);
      deformers.lbs(mesh, S, lbs);
      deformers.lbs(bakedMesh, skinningMatrices(baked.skeleton, samplePose(baked.skeleton, other, t)), played);
      diagonal ||= boundingBoxDiagonal(method.positions);
      const [db, dl] = [played, lbs].map(
        ({ positions: p }) =>
        Float64Array.from({ length: n }, (_, i) => Math.hypot(p[3 * i] - method.positions[3 * i], p[3 * i + 1] - method.positions[3 * i + 1], p[3 * i + 2] - method.positions[3 * i + 2])), // prettier-ignore
      );
      rows.push({ baked: stats(db), lbs: stats(dl) });
    }
  }
  return rows;
}

async function check(file: string, method: 'cor' | 'dqs', rate: number, guard: 'samples' | 'between' = 'samples') {
  const document = await readDocument(file);
  const [model] = extractSkinnedModels(document, file);
  const [original] = extractSkinnedModels(await readDocument(file), file);
  if (method === 'cor')
    original.mesh.centersOfRotation = model.mesh.centersOfRotation = computeCentersOfRotation(model.mesh).centers;
  const deform = deformers[method];
  const result = bakeHelperJoints(document, model, deform, { rate, guard });
  const out = join(tmp.dir, `never-worse-${Math.random().toString(36).slice(2)}.glb`);
  await writeDocument(document, out);
  const [baked] = extractSkinnedModels(await readDocument(out), out);
  const rows = perSample(original, baked, deform, rate, guard === 'between');
  const worse = rows.filter(
    (r) => r.baked[0] > r.lbs[0] + NEVER_WORSE_MARGIN || r.baked[1] > r.lbs[1] + NEVER_WORSE_MARGIN,
  );
  const sum = (k: 'baked' | 'lbs') => rows.reduce((s, r) => s + r[k][1], 0);
  const removed = 1 - sum('baked') / sum('lbs');
  return { result, rows, worse, removed, clips: original.animations.length };
}

describe('a vertex the repairs leave farther than LBS', () => {
  it('blendWeights: α·fitted + (1 − α)·own over their union, the K heaviest kept at the blend’s whole sum', () => {
    const fitted = { joints: [3, 7, 20, 21], weights: [0.5, 0.2, 0.2, 0.1] }; // 20, 21: helpers
    const own = { joints: [3, 5, 0, 0], weights: [0.6, 0.4, 0, 0] };
    const [joints, weights] = [new Uint32Array(8), new Float32Array(8)];
    blendWeights(fitted, own, 0.25, joints, weights, 4);
    // Union: 3: 0.125 + 0.45, 5: 0.3, 7: 0.05, 20: 0.05, 21: 0.025 (sum 1); the K = 4 heaviest
    // (7 before 20 on a tie: the lower joint) scaled by 1 / 0.975.
    expect(Array.from(joints.subarray(4))).toEqual([3, 5, 7, 20]);
    // Rounded as the file stores them: each within a 16-bit step (1.5e-5), on the grid.
    [0.575, 0.3, 0.05, 0.05].forEach((w, k) => expect(Math.abs(weights[4 + k] - w / 0.975)).toBeLessThan(1 / 65535));
    for (const w of weights.subarray(4)) expect(w).toBe(Math.fround(Math.round(w * 65535) / 65535));
    expect(Array.from(joints.subarray(0, 4))).toEqual([0, 0, 0, 0]); // other rows untouched
    blendWeights(fitted, own, 1, joints, weights, 0);
    expect(Array.from(joints.subarray(0, 4))).toEqual([3, 7, 20, 21]);
    blendWeights(fitted, { joints: [3, 5, 0, 0], weights: [0.54, 0.36, 0, 0] }, 0, joints, weights, 0);
    expect(Math.abs(weights[0] + weights[1] - 0.9)).toBeLessThan(1 / 65535); // a sum other than 1 held
  });

  it('the Fox, dqs, 30 samples/s, guarded between: plays a blend of its fitted and own weights, not LBS’s largest distance', async () => {
    // Given back whole, the vertices whose fit is farther than LBS at a few times played LBS's
    // distance there — the bake's largest was LBS's (1.00 of it, 74.3% of the p99 gap removed).
    const { rows, worse, removed } = await check(FOX, 'dqs', 30, 'between');
    const largest = (k: 'baked' | 'lbs') => Math.max(...rows.map((r) => r[k][0]));
    console.log(`the Fox dqs between, 30/s: largest ${(largest('baked') / largest('lbs')).toFixed(2)} of LBS's; ${(100 * removed).toFixed(1)}% of the per-sample p99 removed`); // prettier-ignore
    expect(worse).toEqual([]);
    expect(largest('baked')).toBeLessThan(0.5 * largest('lbs'));
  }, 540_000);
});

describe('a helper bake does not depend on the rig’s scale', () => {
  it('the Fox under a root scaled ×0.01 and ×100 (its skinning matrices scaled): as much of the gap removed as the Fox, dqs', async () => {
    // The normals the fit matches weighed λ² on residuals s times their angle: a root scaled by s
    // made them weigh s² times as much (the Fox ×0.01: 50 vertices given back, 78% removed; ×100:
    // 88%; the Fox itself 97%).
    const plain = (await check(FOX, 'dqs', 5)).removed;
    for (const scale of [0.01, 100]) {
      const file = await variant(FOX, `scale-${scale}`, underScale([scale, scale, scale]));
      const { removed, worse } = await check(file, 'dqs', 5);
      console.log(
        `the Fox ×${scale}, dqs: ${(100 * removed).toFixed(1)}% removed (the Fox: ${(100 * plain).toFixed(1)}%)`,
      );
      expect(worse).toEqual([]);
      expect(Math.abs(removed - plain)).toBeLessThan(0.04);
    }
  }, 540_000);
});

describe('bake --as helpers is never worse than plain LBS, at every sample', () => {
  it.each([
    ['CesiumMan', CESIUM_MAN, 'cor', 5],
    ['the Fox', FOX, 'dqs', 5],
    ['the Soldier', join(SHARED, 'characters/Soldier.glb'), 'dqs', 4],
    ['Ybot', join(SHARED, 'characters/Ybot.glb'), 'dqs', 2],
    ['ShibaInu', join(SHARED, 'characters/ShibaInu.gltf'), 'cor', 3],
    ['the chicken (16 influences; skinning matrices scaled 0.01)', join(SHARED, 'characters/chicken.glb'), 'dqs', 4],
    ['rpm-avatar (morph targets)', join(SHARED, 'characters/rpm-avatar.glb'), 'dqs', 2],
    ['the skeleton (first of its 40 skins)', join(SHARED, 'characters/skeleton.glb'), 'dqs', 4],
  ] as const)(
    '%s, %s',
    async (_, file, method, rate) => {
      const { result, rows, worse, removed } = await check(file, method, rate);
      console.log(
        `${_} ${method}: ${result.helpers} helpers, ${result.revertedVertices} of ${result.activeVertices} vertices given back; ${rows.length} samples, ${worse.length} worse; ${(100 * removed).toFixed(0)}% of LBS's per-sample p99 removed`,
      );
      expect(worse).toEqual([]);
      expect(result.helpers).toBeGreaterThan(0);
      expect(removed).toBeGreaterThan(0.3); // the bake still does its work
    },
    540_000,
  );

  const variants: [string, (document: Document) => void][] = [
    ['mirrored above its skeleton', underScale([-1, 1, 1])],
    ['scaled ×0.01 above its skeleton', underScale([0.01, 0.01, 0.01])],
    ['scaled ×100 above its skeleton', underScale([100, 100, 100])],
    ['scaled unevenly (1, 2, 1) above its skeleton', underScale([1, 2, 1])],
    [
      'with weights scaled to sum to 0.9',
      (document) => weightSets(document, (_, weights) => weights.forEach((w) => w.forEach((x, k) => (w[k] = 0.9 * x)))), // prettier-ignore
    ],
    [
      'with up to 20 influences per vertex (its own at 80%, 16 more joints at 1.25% each)',
      (document) =>
        weightSets(document, (joints, weights, J) =>
          joints.forEach((js, v) => {
            const own = js.filter((_, k) => weights[v][k] > 0);
            const ws = weights[v].filter((w) => w > 0).map((w) => 0.8 * w);
            const more = Array.from({ length: J }, (_, j) => j)
              .filter((j) => !own.includes(j))
              .slice(0, 16);
            joints[v] = [...own, ...more];
            weights[v] = [...ws, ...more.map(() => 0.2 / more.length)];
          }),
        ),
    ],
  ];
  it.each(variants)(
    'the Fox %s, dqs',
    async (name, edit) => {
      const file = await variant(FOX, name.replace(/\W+/g, '-'), edit);
      const { result, rows, worse, removed } = await check(file, 'dqs', 5);
      console.log(
        `Fox ${name}: ${result.helpers} helpers, ${result.revertedVertices} of ${result.activeVertices} given back; ${rows.length} samples, ${worse.length} worse; ${(100 * removed).toFixed(0)}% removed`,
      );
      expect(worse).toEqual([]);
      // Unevenly scaled, a helper's fit is sheared in its joint's frame, and a node keyed by
      // translation and rotation cannot play it: the bake measures what the file plays, and
      // gives nearly every vertex back (the report says it could not help).
      if (!name.includes('unevenly')) expect(removed).toBeGreaterThan(0.3);
    },
    360_000,
  );
});

describe('bake --as helpers --guard between is never worse than plain LBS half-way between samples either', () => {
  // A player at another rate interpolates the helpers' keys; each sample's helpers are fitted on
  // their own and can turn far from one sample to the next. Guarded at the samples alone, the
  // Fox's DQS bake at 30 samples/s is worse than plain LBS at 5–6 of its 479 half-way times (140
  // with its helpers bound at their clusters' centres rather than their members').
  it.each([
    ['CesiumMan', CESIUM_MAN, 'cor', 10],
    ['the Fox', FOX, 'dqs', 30],
  ] as const)(
    '%s, %s, %s samples/s: at every sample and half-way between',
    async (_, file, method, rate) => {
      const { result, rows, worse, removed, clips } = await check(file, method, rate, 'between');
      console.log(
        `${_} ${method} --guard between: ${result.helpers} helpers, ${result.revertedVertices} of ${result.activeVertices} vertices given back; ${rows.length} times, ${worse.length} worse; ${(100 * removed).toFixed(0)}% of LBS's per-time p99 removed`,
      );
      expect(rows.length).toBe(2 * result.samples - clips);
      expect(worse).toEqual([]);
      expect(removed).toBeGreaterThan(0.3);
    },
    540_000,
  );
});

describe('a morph bake says where it plays worse than plain LBS half-way between samples', () => {
  it('the Fox, CoR, 5 samples/s: the reported half-way times are those a brute-force replay finds', async () => {
    const out = join(tmp.dir, 'fox-cor-morphs.glb');
    const r = await runCli('bake', FOX, '--method', 'cor', '--as', 'morphs', '--rate', '5', '-o', out);
    expect(r.code, r.stderr).toBe(0);
    const reported = /half-way between samples, at (\d+) of (\d+) times, the baked file plays farther from CoR than plain LBS/.exec(r.stderr); // prettier-ignore
    expect(reported, r.stderr).not.toBeNull();
    // Replayed here in JavaScript: the input by CoR and by LBS, the baked file by LBS, at every
    // check time (samples and half-way, alternating in the clip).
    const [original] = extractSkinnedModels(await readDocument(FOX), FOX);
    original.mesh.centersOfRotation = computeCentersOfRotation(original.mesh).centers;
    const [baked] = extractSkinnedModels(await readDocument(out), out);
    const rows = perSample(original, baked, deformers.cor, 5, true);
    const halfway = rows.filter((_, k) => k % 2 === 1);
    const worse = halfway.filter(
      (w) => w.baked[0] > w.lbs[0] + NEVER_WORSE_MARGIN || w.baked[1] > w.lbs[1] + NEVER_WORSE_MARGIN,
    );
    expect(worse.length).toBeGreaterThan(0);
    expect([Number(reported![1]), Number(reported![2])]).toEqual([worse.length, halfway.length]);
  }, 360_000);
});
