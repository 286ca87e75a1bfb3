/**
 * `corskin bake --as morphs` and its library: CoR and DQS baked as sparse corrective morph targets
 * are played by the file's own LBS within 1e-5 of the bounding-box diagonal at the samples
 * (CesiumMan, Fox); the sparse file against today's dense bake; the baked file in three.js's
 * stock GLTFLoader + AnimationMixer matches corskin's LBS playback of it. `--as helpers+morphs`:
 * helper joints, then the residual as targets, played by three.js as the method at the samples;
 * 16-bit target positions and `--quantize`. The command line's errors and reports are in
 * `bake-cli.test.ts`, more than 4 influences in an engine that skins 4 in `bake-influences.test.ts`.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { afterAll, describe, expect, it } from 'vitest';
import { samplePose } from '../src/core/animation.js';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { applyMorphTargets, sampleMorphWeights } from '../src/core/morph.js';
import { skinningMatrices } from '../src/core/pose.js';
import { computeCentersOfRotation } from '../src/cor/precompute.js';
import { deform, deformers } from '../src/deformers/index.js';
import { measureBake } from '../src/bake/measure.js';
import { bakeMorphTargets, bakeTemplateClips } from '../src/io/morph-bake.js';
import { quantizeTargets } from '../src/bake/target-quantization.js';
import { bakeSampleTimes } from '../src/bake/samples.js';
import { bakeHelperJoints } from '../src/io/helper-bake.js';
import { extractSkinnedModels, type SkinnedModel } from '../src/io/gltf.js';
import { readDocument, writeDocument } from '../src/io/node-io.js';
import { runCli } from './helpers/cli.js';
import { CESIUM_MAN, rng, SHARED, scratch } from './helpers/data.js';
import { threePlayer } from './helpers/three-playback.js';
import { validate } from './helpers/gltf.js';

const FOX = join(SHARED, 'characters', 'Fox.glb');
const tmp = scratch();
afterAll(() => tmp.cleanup());

/** Bakes `method` of the first skin of `input` as morphs into a file; returns the models and paths. */
async function bake(input: string, method: 'cor' | 'dqs', out: string, dense = false, targets?: 'samples' | 'basis') {
  const document = await readDocument(input);
  const [model] = extractSkinnedModels(document, input);
  if (method === 'cor' && !model.mesh.centersOfRotation)
    model.mesh.centersOfRotation = computeCentersOfRotation(model.mesh).centers;
  const result = dense
    ? bakeTemplateClips(document, model, deformers[method], { rate: 30 })
    : bakeMorphTargets(document, model, deformers[method], { rate: 30, targets });
  await writeDocument(document, out);
  const [baked] = extractSkinnedModels(await readDocument(out), out);
  return { model, baked, result };
}

/** corskin's own LBS playback of a baked skin at time t of its clip `name`. */
function lbsPlayback(baked: SkinnedModel, name: string, t: number): Float32Array {
  const clip = baked.animations.find((c) => c.name === name)!;
  const S = skinningMatrices(baked.skeleton, samplePose(baked.skeleton, clip, t));
  const morphed = applyMorphTargets(baked.mesh, baked.morphGroups, sampleMorphWeights(baked.morphGroups, clip.morphChannels ?? [], t)); // prettier-ignore
  const out = { positions: new Float32Array(baked.mesh.positions.length) };
  deformers.lbs(morphed, S, out);
  return out.positions;
}

describe('bake --as morphs (library)', () => {
  for (const [label, input] of [
    ['CesiumMan', CESIUM_MAN],
    ['Fox', FOX],
  ] as const)
    for (const method of ['cor', 'dqs'] as const)
      it(`${label}, ${method}: the file's LBS plays the method within 1e-5 of the diagonal at every sample`, async () => {
        const out = join(tmp.dir, `${label}-${method}.glb`);
        const { model, baked, result } = await bake(input, method, out);
        const m = measureBake(model, baked, deformers[method], 30);
        console.log(
          `${label} ${method}: baked vs method max ${m.max.toExponential(1)}, p99 ${m.p99.toExponential(1)}; LBS vs method max ${m.lbsMax.toExponential(1)}, p99 ${m.lbsP99.toExponential(1)}; ${result.targets} targets, ${(100 * result.nonZero).toFixed(1)}% non-zero, ${statSync(out).size} bytes`,
        );
        expect(m.max).toBeLessThanOrEqual(1e-5);
        expect(m.lbsMax).toBeGreaterThan(1e-3); // the targets do something
      });

  it('CesiumMan, dqs: the sparse file is smaller than the dense bake (measured, not 3×)', async () => {
    const sparse = join(tmp.dir, 'cesium-sparse.glb');
    const dense = join(tmp.dir, 'cesium-dense.glb');
    await bake(CESIUM_MAN, 'dqs', sparse, false, 'samples');
    await bake(CESIUM_MAN, 'dqs', dense, true);
    const [s, d] = [statSync(sparse).size, statSync(dense).size];
    console.log(`CesiumMan dqs: dense ${d} bytes, sparse ${s} bytes (${(d / s).toFixed(2)}× smaller)`);
    // Measured 1.85×: 40% of the (sample, vertex) corrections exceed the tolerances (1.57× at the former tolerance, 5e-6 for the dropped corrections and 1e-3 for the normals; 1.25× with the normal tolerance at 1e-4, before sparse accessors more than half non-zero were kept sparse where smaller).
    expect(s).toBeLessThan(0.85 * d);
    const doc = await new NodeIO().read(sparse);
    expect(
      doc
        .getRoot()
        .listAccessors()
        .some((a) => a.getSparse()),
    ).toBe(true);
  });

  it('CesiumMan and the Fox, dqs: a basis of the samples is exact at every sample, with fewer, sparse targets and a smaller file', async () => {
    for (const [label, input] of [
      ['CesiumMan', CESIUM_MAN],
      ['Fox', FOX],
    ] as const) {
      const files = { samples: join(tmp.dir, `${label}-samples.glb`), basis: join(tmp.dir, `${label}-basis.glb`) };
      const perSample = await bake(input, 'dqs', files.samples, false, 'samples');
      const { model, baked, result } = await bake(input, 'dqs', files.basis, false, 'basis');
      const m = measureBake(model, baked, deformers.dqs, 30);
      const [s, b] = [statSync(files.samples).size, statSync(files.basis).size];
      console.log(`${label} dqs: ${result.targets} basis targets for ${result.samples} samples, ${b} bytes (one per sample: ${s}); max ${m.max.toExponential(1)}`); // prettier-ignore
      expect(perSample.result).toMatchObject({ targets: result.samples, samples: result.samples, basis: false });
      expect(result.basis).toBe(true);
      expect(result.targets).toBeLessThan(0.6 * result.samples); // measured 0.43 (CesiumMan), 0.14 (Fox)
      expect(b).toBeLessThan(0.7 * s); // measured 0.41 (CesiumMan), 0.16 (Fox)
      expect(m.max).toBeLessThanOrEqual(1e-5);
      // The fields are 0 where every sample can do without them: sparse (measured 31% and 26% non-zero).
      expect(result.nonZero).toBeLessThan(0.6);
      // Each clip's weights channel holds the basis's weights: as many per key as targets.
      const doc = await readDocument(files.basis);
      const channel = doc
        .getRoot()
        .listAnimations()[0]
        .listChannels()
        .find((c) => c.getTargetPath() === 'weights')!;
      const sampler = channel.getSampler()!;
      expect(sampler.getOutput()!.getCount()).toBe(sampler.getInput()!.getCount() * result.targets);
    }
  });

  it('CesiumMan with every vertex on one joint (DQS = LBS there): no targets, no weights channels, no helpers', async () => {
    /** CesiumMan read, each vertex then on its heaviest joint alone. */
    const rigid = async () => {
      const document = await readDocument(CESIUM_MAN);
      const [model] = extractSkinnedModels(document, CESIUM_MAN);
      const { joints, weights, influences: K } = model.mesh;
      for (let i = 0; i < joints.length / K; i++) {
        let heaviest = K * i;
        for (let k = K * i; k < K * i + K; k++) if (weights[k] > weights[heaviest]) heaviest = k;
        joints.fill(joints[heaviest], K * i, K * i + K);
        weights.fill(0, K * i, K * i + K);
        weights[K * i] = 1;
      }
      return { document, model };
    };
    const { document, model } = await rigid();
    const channels = () =>
      document
        .getRoot()
        .listAnimations()
        .flatMap((a) => a.listChannels()).length;
    const before = channels();
    const r = bakeMorphTargets(document, model, deformers.dqs);
    expect(r.targets).toBe(0);
    expect(model.parts.every((p) => p.primitive.listTargets().length === 0)).toBe(true);
    expect(channels()).toBe(before);
    // With its real weights the same skin needs a target per sample.
    const other = await readDocument(CESIUM_MAN);
    const [real] = extractSkinnedModels(other, CESIUM_MAN);
    expect(bakeMorphTargets(other, real, deformers.dqs, { rate: 5 }).targets).toBeGreaterThan(0);
    // Helpers likewise: none brings a vertex closer to DQS than LBS already is, so none is written.
    const again = await rigid();
    const nodes = again.document.getRoot().listNodes().length;
    expect(bakeHelperJoints(again.document, again.model, deformers.dqs, { rate: 5 }).helpers).toBe(0);
    expect(again.document.getRoot().listNodes().length).toBe(nodes);
    // The CLI says so plainly, for each kind.
    const file = join(tmp.dir, 'cesium-one-influence.glb');
    const edited = await readDocument(CESIUM_MAN);
    for (const mesh of edited.getRoot().listMeshes())
      for (const primitive of mesh.listPrimitives()) {
        const J = primitive.getAttribute('JOINTS_0')!;
        const W = primitive.getAttribute('WEIGHTS_0')!;
        const [joints, weights] = [J.getArray()!.slice(), W.getArray()!.slice()];
        for (let i = 0; i < weights.length / 4; i++) {
          let heaviest = 4 * i;
          for (let k = 4 * i; k < 4 * i + 4; k++) if (weights[k] > weights[heaviest]) heaviest = k;
          joints.fill(joints[heaviest], 4 * i, 4 * i + 4);
          weights.fill(0, 4 * i, 4 * i + 4);
          weights[4 * i] = 1;
        }
        J.setArray(joints);
        W.setArray(weights);
      }
    await writeDocument(edited, file, { force: true });
    const helpers = await runCli('bake', file, '--method', 'dqs', '--as', 'helpers', '--rate', '5', '-o', join(tmp.dir, 'one-h.glb')); // prettier-ignore
    expect(helpers.code, helpers.stderr).toBe(0);
    expect(helpers.stdout).toMatch(
      /Armature: no helper joints added: none brought LBS closer to DQS over the \d+ samples/,
    );
    const morphs = await runCli('bake', file, '--method', 'dqs', '--as', 'morphs', '--rate', '5', '-o', join(tmp.dir, 'one-m.glb')); // prettier-ignore
    expect(morphs.code, morphs.stderr).toBe(0);
    expect(morphs.stdout).toMatch(/LBS already plays DQS within the tolerance at every sample: no morph targets added/);
  });
});

describe('a baked file in three.js (stock GLTFLoader + AnimationMixer)', () => {
  it("CesiumMan, cor: three.js plays it as corskin's LBS does, within 1e-5 of the diagonal, at and between samples", async () => {
    const out = join(tmp.dir, 'three-cor.glb');
    const { baked } = await bake(CESIUM_MAN, 'cor', out);
    const player = await threePlayer(out, baked);
    const diag = boundingBoxDiagonal(baked.mesh.positions);
    const clip = baked.animations[0];
    const index = (await readDocument(out))
      .getRoot()
      .listAnimations()
      .findIndex((a, i) => (a.getName() || `animation ${i}`) === clip.name);
    const times = bakeSampleTimes(clip.duration, 30);
    let worst = 0;
    for (const t of [times[3], times[17], times[30], (times[44] + times[45]) / 2]) {
      const [three, ours] = [player.positions(index, t), lbsPlayback(baked, clip.name, t)];
      for (let i = 0; i < ours.length; i += 3)
        worst = Math.max(worst, Math.hypot(three[i] - ours[i], three[i + 1] - ours[i + 1], three[i + 2] - ours[i + 2]) / diag); // prettier-ignore
    }
    console.log(`three.js vs corskin LBS playback of the baked file: ${worst.toExponential(1)} of the diagonal`);
    expect(worst).toBeLessThan(1e-5);
  });

  it('CesiumMan with weights summing to 0.999 (read as they are), cor: three.js, which renormalises them on loading, plays the morph bake as CoR', async () => {
    const input = join(tmp.dir, 'cesium-weights-0.999.glb');
    const io = new NodeIO();
    const doc = await io.read(CESIUM_MAN);
    for (const p of doc
      .getRoot()
      .listMeshes()
      .flatMap((m) => m.listPrimitives())) {
      const w = p.getAttribute('WEIGHTS_0');
      if (w) w.setArray(Float32Array.from(w.getArray() as Float32Array, (x) => 0.999 * x));
    }
    await io.write(input, doc);
    const out = join(tmp.dir, 'cesium-weights-0.999-cor.glb');
    const { model, baked } = await bake(input, 'cor', out);
    expect(model.weightNormalization.renormalized).toBe(0); // within the reader's tolerance
    const player = await threePlayer(out, baked);
    const clip = model.animations[0];
    const index = (await readDocument(out))
      .getRoot()
      .listAnimations()
      .findIndex((a, i) => (a.getName() || `animation ${i}`) === clip.name);
    const t = bakeSampleTimes(clip.duration, 30)[17];
    const cor = deform(
      'cor',
      model.mesh,
      skinningMatrices(model.skeleton, samplePose(model.skeleton, clip, t)),
    ).positions;
    const three = player.positions(index, t);
    const diag = boundingBoxDiagonal(cor);
    let worst = 0;
    for (let i = 0; i < cor.length; i += 3)
      worst = Math.max(worst, Math.hypot(three[i] - cor[i], three[i + 1] - cor[i + 1], three[i + 2] - cor[i + 2]) / diag); // prettier-ignore
    console.log(`weights summing to 0.999: three.js vs CoR ${worst.toExponential(1)} of the diagonal`);
    expect(worst).toBeLessThan(1e-5);
  });
});

/**
 * The file played by three.js's stock loader and mixer at sample times (three of the first clip's,
 * or all), against the method on the original in corskin: the largest distance ÷ the diagonal of
 * the posed method.
 */
async function threeVsMethod(input: string, out: string, method: 'cor' | 'dqs', rate: number, every = false) {
  const [original] = extractSkinnedModels(await readDocument(input), input);
  if (method === 'cor') original.mesh.centersOfRotation = computeCentersOfRotation(original.mesh).centers;
  const [baked] = extractSkinnedModels(await readDocument(out), out);
  const player = await threePlayer(out, baked);
  const clip = original.animations[0];
  const times = bakeSampleTimes(clip.duration, rate);
  let worst = 0;
  for (const t of every ? times : [times[1], times[Math.floor(times.length / 2)], times[times.length - 2]]) {
    const S = skinningMatrices(original.skeleton, samplePose(original.skeleton, clip, t));
    const morphed = applyMorphTargets(original.mesh, original.morphGroups, sampleMorphWeights(original.morphGroups, clip.morphChannels ?? [], t)); // prettier-ignore
    const expected = { positions: new Float32Array(original.mesh.positions.length) };
    deformers[method](morphed, S, expected);
    const [three, y] = [player.positions(0, t), expected.positions];
    const diag = boundingBoxDiagonal(y);
    for (let i = 0; i < y.length; i += 3)
        worst = Math.max(worst, Math.hypot(three[i] - y[i], three[i + 1] - y[i + 1], three[i + 2] - y[i + 2]) / diag); // prettier-ignore
  }
  return worst;
}

describe("a morph bake and the file's own morph targets", () => {
  it('says that the clips now key them at their default weights (one weights channel per mesh), and they do', async () => {
    // CesiumMan with one morph target of its own (no clip animates it), weight 0 by default.
    const file = join(tmp.dir, 'cesium-own-target.glb');
    const document = await readDocument(CESIUM_MAN);
    for (const primitive of document.getRoot().listMeshes()[0].listPrimitives()) {
      const n = primitive.getAttribute('POSITION')!.getCount();
      const offsets = document
        .createAccessor()
        .setType('VEC3')
        .setArray(new Float32Array(3 * n).fill(0.01));
      primitive.addTarget(document.createPrimitiveTarget('own').setAttribute('POSITION', offsets));
    }
    document.getRoot().listMeshes()[0].setWeights([0]);
    await writeDocument(document, file, { force: true });
    const out = join(tmp.dir, 'cesium-own-target-morphs.glb');
    const r = await runCli('bake', file, '--method', 'dqs', '--as', 'morphs', '--rate', '5', '-o', out);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Armature: the file's own 1 morph target \(Cesium_Man\) is keyed at its default weight in the clips that did not animate them/); // prettier-ignore
    // The file's first target (its own) keyed at 0 at every key of the clip's weights channel.
    const baked = await readDocument(out);
    const channel = baked
      .getRoot()
      .listAnimations()[0]
      .listChannels()
      .find((c) => c.getTargetPath() === 'weights')!;
    const targets = baked.getRoot().listMeshes()[0].listPrimitives()[0].listTargets().length;
    const values = channel.getSampler()!.getOutput()!.getArray()!;
    expect(targets).toBeGreaterThan(1);
    for (let k = 0; k < values.length; k += targets) expect(values[k]).toBe(0);
  });
});

describe('bake --as helpers+morphs: the helpers, then what they leave as morph targets', () => {
  it.each([
    ['CesiumMan', 'cor', CESIUM_MAN, 5],
    // Its own morph targets play under the bake's (talking): the residual is on the morphed mesh.
    ['rpm-avatar', 'dqs', join(SHARED, 'characters/rpm-avatar.glb'), 2],
  ] as const)(
    '%s, %s: a plain glTF with helper joints and residual targets that three.js plays as the method within 1e-5 of the diagonal at the samples',
    async (name, method, input, rate) => {
      const out = join(tmp.dir, `${name}-helpers+morphs.glb`);
      const r = await runCli('bake', input, '--method', method, '--as', 'helpers+morphs', '--rate', `${rate}`, '-o', out); // prettier-ignore
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/helper joints added/);
      expect(r.stdout).toMatch(/residual morph targets/);
      const report = await validate(out);
      expect(report.issues.numErrors, JSON.stringify(report.issues.messages.slice(0, 3))).toBe(0);
      const [before, after] = [input, out].map((f) => new NodeIO().read(f));
      const [joints0, joints1] = (await Promise.all([before, after])).map((d) => d.getRoot().listSkins()[0].listJoints().length); // prettier-ignore
      expect(joints1).toBeGreaterThan(joints0); // helpers
      const worst = await threeVsMethod(input, out, method, rate);
      console.log(
        `${name} ${method} helpers+morphs in three.js at the samples: ${worst.toExponential(1)} of the diagonal`,
      );
      expect(worst).toBeLessThan(1e-5);
    },
    360_000,
  );
});

describe('bake --target-positions short: 8- and 16-bit target positions, the scale in the weights', () => {
  it.each([
    ['CesiumMan', 'cor', 'helpers+morphs', CESIUM_MAN, 5],
    // Its armature is scaled 0.0254: the targets are in the mesh's units, the tolerance posed.
    ['Fox', 'dqs', 'morphs', FOX, 2],
  ] as const)(
    '%s, %s, %s: three.js plays the method within 1e-5 of the diagonal at every sample; the file requires KHR_mesh_quantization and is smaller',
    async (name, method, kind, input, rate) => {
      const files = { float: join(tmp.dir, `${name}-float.glb`), short: join(tmp.dir, `${name}-short.glb`) };
      let report = '';
      for (const [type, out] of Object.entries(files)) {
        const r = await runCli('bake', input, '--method', method, '--as', kind, '--rate', `${rate}`, '--target-positions', type, '-o', out); // prettier-ignore
        expect(r.code, r.stderr).toBe(0);
        report = r.stdout;
      }
      const validation = await validate(files.short);
      expect(validation.issues.numErrors, JSON.stringify(validation.issues.messages.slice(0, 3))).toBe(0);
      const json = (await new NodeIO().readAsJSON(files.short)).json;
      expect(json.extensionsRequired).toContain('KHR_mesh_quantization');
      const targets = json.meshes!.flatMap((m) => m.primitives.flatMap((p) => p.targets ?? []));
      const types = targets.map((t) => json.accessors![t.POSITION].componentType);
      const [short, byte] = [5122, 5120].map((type) => types.filter((c) => c === type).length);
      console.log(`${name}: of ${types.length} targets, ${short} in 16 bits and ${byte} in 8`);
      expect(short + byte).toBeGreaterThan(types.length / 2);
      // The report counts the file's targets of each width.
      const reported = (width: string) => {
        const m = report.match(new RegExp(`(every target|\\d+) in ${width}`));
        return !m ? 0 : m[1] === 'every target' ? types.length : Number(m[1]);
      };
      expect(['8 bits', '16 bits', 'float'].map(reported)).toEqual([byte, short, types.length - short - byte]);
      const worst = await threeVsMethod(input, files.short, method, rate, true);
      const [a, b] = [statSync(files.float).size, statSync(files.short).size];
      console.log(`${name} ${method} ${kind}, short target positions: ${worst.toExponential(1)} of the diagonal in three.js; ${b} bytes (float: ${a})`); // prettier-ignore
      expect(worst).toBeLessThan(1e-5);
      expect(b).toBeLessThan(a);
    },
    360_000,
  );

  it('--quantize with --target-positions short: a usage error, exit 2, nothing written (quantize would read the integers as displacements)', async () => {
    const out = join(tmp.dir, 'quantize-short.glb');
    const r = await runCli('bake', CESIUM_MAN, '--method', 'dqs', '--as', 'morphs', '--target-positions', 'short', '--quantize', '-o', out); // prettier-ignore
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--quantize .* cannot go with --target-positions short/);
    expect(existsSync(out)).toBe(false);
  });
});

describe('bake --quantize with morphs', () => {
  it('--quantize with morphs says the targets go dense: the file is larger than the sparse float one', async () => {
    const [plain, quantized] = ['morphs-float.glb', 'morphs-quantized.glb'].map((f) => join(tmp.dir, f));
    const args = ['bake', CESIUM_MAN, '--method', 'dqs', '--as', 'morphs', '--rate', '10'];
    const a = await runCli(...args, '-o', plain);
    const b = await runCli(...args, '--quantize', '-o', quantized);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(a.stderr).not.toContain('--quantize');
    expect(b.stderr).toContain('--quantize stores the morph targets dense');
    expect(statSync(quantized).size).toBeGreaterThan(statSync(plain).size);
  });

  it("quantizeTargets keeps the played rounding within each vertex's budget at every sample (brute force), the heaviest part in float first, then 8 bits where they hold", () => {
    const random = rng(11);
    const [T, n, S] = [6, 40, 10];
    const positions = Array.from({ length: T }, (_, t) => Float32Array.from({ length: 3 * n }, () => (random() < 0.3 ? 0 : (t + 1) * (random() - 0.5)))); // prettier-ignore
    const W = Array.from({ length: S }, () => Array.from({ length: T }, () => random()));
    const gain = Float32Array.from({ length: n }, () => 1 + random());
    /** The posed rounding engines play at sample s, vertex v (w·q·round(x/q) against w·x). */
    const played = (steps: Float64Array, s: number, v: number, weights = W) => {
      const d = [0, 1, 2].map((c) => positions.reduce((y, x, t) => { const q = steps[t]; return q ? y + weights[s][t] * (q * Math.round(x[3 * v + c] / q) - x[3 * v + c]) : y; }, 0)); // prettier-ignore
      return gain[v] * Math.hypot(d[0], d[1], d[2]);
    };
    const largest = positions.map((x) => Math.max(...x.map(Math.abs)));
    const widths = new Set<string>(); // the widths one budget mixes
    for (const scale of [1e-1, 3e-2, 1e-2, 1e-3, 1e-4, 3e-5, 1e-5, 3e-6, 1e-6, 1e-8]) {
      const budget = Float32Array.from({ length: n }, () => scale * (0.5 + random()));
      const { steps, bits } = quantizeTargets(positions, W, gain, budget);
      for (let s = 0; s < S; s++) for (let v = 0; v < n; v++) expect(played(steps, s, v)).toBeLessThanOrEqual(budget[v] * (1 + 1e-9)); // prettier-ignore
      steps.forEach((q, t) => expect(q).toBe(bits[t] === 8 ? largest[t] / 127 : bits[t] === 16 ? largest[t] / 32767 : 0)); // prettier-ignore
      widths.add([...new Set(bits)].sort().join());
    }
    expect(widths).toContain('16,8');
    expect(widths).toContain('0,16');
    // A generous budget: all 8 bits; one that 16 bits hold: all integers; one below every rounding: all float.
    expect(Array.from(quantizeTargets(positions, W, gain, new Float32Array(n).fill(0.3)).bits)).toEqual(new Array(T).fill(8)); // prettier-ignore
    expect(Array.from(quantizeTargets(positions, W, gain, new Float32Array(n).fill(1e-3)).steps).every((q) => q > 0)).toBe(true); // prettier-ignore
    expect(Array.from(quantizeTargets(positions, W, gain, new Float32Array(n).fill(1e-9)).steps)).toEqual(new Array(T).fill(0)); // prettier-ignore
    // A target whose posed displacement is within the budget everywhere stays float.
    const tiny = [...positions, positions[0].map((x) => x * 1e-6)];
    expect(
      quantizeTargets(
        tiny,
        W.map((w) => [...w, 1]),
        gain,
        new Float32Array(n).fill(1e-5),
      ).steps[T],
    ).toBe(0);
    // One target per sample: each on its own, at weight 1.
    const identity = positions.map((_, s) => positions.map((_, t) => (s === t ? 1 : 0)));
    for (const limit of [3e-5, 3e-3]) {
      const alone = quantizeTargets(positions, undefined, gain, new Float32Array(n).fill(limit));
      /** Whether target t alone, in `bits`, stays within the budget at every vertex. */
      const holds = (t: number, bits: number) => Array.from({ length: n }, (_, v) => played(Float64Array.from(positions, (_, u) => (u === t ? largest[t] / (bits === 8 ? 127 : 32767) : 0)), t, v, identity)).every((r) => r <= limit); // prettier-ignore
      alone.bits.forEach((b, t) => expect(b).toBe(holds(t, 8) ? 8 : holds(t, 16) ? 16 : 0));
    }
    // Two targets on one vertex, over the budget only together: the one weighing more there goes float.
    const two = [Float32Array.of(1, 0, 0, 0.3, 0.2, 0.1), Float32Array.of(0.5, 0, 0, 0.123456, 0.2, 0.1)];
    const g1 = Float32Array.of(1, 1);
    const r = two.map((x) => { const q = Math.max(...x) / 32767; return Math.hypot(...[3, 4, 5].map((c) => q * Math.round(x[c] / q) - x[c])); }); // prettier-ignore
    const [w0, w1] = [0.4, 1];
    const budget2 = Float32Array.of(1, (w0 * r[0] + w1 * r[1]) * 0.99);
    const { bits: bits2 } = quantizeTargets(two, [[w0, w1]], g1, budget2);
    expect(bits2[w0 * r[0] > w1 * r[1] ? 0 : 1]).toBe(0);
    expect(bits2[w0 * r[0] > w1 * r[1] ? 1 : 0]).toBe(16);
  });
});
