/**
 * `corskin bake` from the command line: bad input (no animation, usage errors, a clip of length 0,
 * a clip that targets a joint twice), what the report says (the gap, the half-way measure, a bake
 * that removes less than half, an input that is already a corskin bake) and characters stored or
 * animated far from the origin.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { NodeIO, type Document } from '@gltf-transform/core';
import { afterAll, describe, expect, it } from 'vitest';
import { samplePose } from '../src/core/animation.js';
import { deformers } from '../src/deformers/index.js';
import { float32Resolution } from '../src/bake/measure.js';
import { bakeSampleTimes } from '../src/bake/samples.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { runCli } from './helpers/cli.js';
import { CESIUM_MAN, SHARED, scratch } from './helpers/data.js';
import { underRoot, validate, writeUnderRoot } from './helpers/gltf.js';

const tmp = scratch();
afterAll(() => tmp.cleanup());

describe('corskin bake: bad input', () => {
  it('no animation: a clear error naming the file, exit 1; --helpers 99, an unknown method or kind: usage errors, exit 2; no output', async () => {
    const still = join(tmp.dir, 'still.glb');
    const io = new NodeIO();
    const doc = await io.read(CESIUM_MAN);
    for (const a of doc.getRoot().listAnimations()) a.dispose();
    await io.write(still, doc);
    const cases: [string[], RegExp, number][] = [
      [[still, '--method', 'dqs', '--as', 'morphs'], /no animation/, 1],
      [
        [CESIUM_MAN, '--method', 'dqs', '--as', 'helpers', '--helpers', '99'],
        /'--helpers <n>' argument '99' is invalid\. expected a whole number from 1 to 16/,
        2,
      ],
      [[CESIUM_MAN, '--method', 'nope', '--as', 'morphs'], /'--method <m>' argument 'nope' is invalid/, 2],
      [[CESIUM_MAN, '--method', 'lbs', '--as', 'morphs'], /Allowed choices are dqs, sbs/, 2],
      [[CESIUM_MAN, '--method', 'dqs', '--as', 'pancakes'], /'--as <kind>' argument 'pancakes' is invalid/, 2],
      [[CESIUM_MAN, '--method', 'dqs', '--as', 'helpers', '--influences', '6'], /expected 4 or 8/, 2],
    ];
    for (const [k, [args, message, code]] of cases.entries()) {
      const out = join(tmp.dir, `bad-${k}.glb`);
      const r = await runCli('bake', ...args, '-o', out);
      expect(r.code).toBe(code);
      expect(r.stderr).toMatch(/^corskin: error: /m);
      expect(r.stderr).toMatch(message);
      if (code === 1) expect(r.stderr).toContain(args[0]); // the file's problem names the file
      expect(existsSync(out)).toBe(false);
    }
  });

  it('the CLI bakes and reports (CesiumMan, dqs)', async () => {
    const out = join(tmp.dir, 'cli-dqs.glb');
    const r = await runCli('bake', CESIUM_MAN, '--method', 'dqs', '--as', 'morphs', '-o', out);
    expect([r.code, r.stderr]).toEqual([0, '']);
    // A basis of the 61 samples (fewer targets, each sample within the tolerance).
    const [, targets] = /(\d+) morph targets, a basis of the 61 samples/.exec(r.stdout) ?? [];
    expect(Number(targets)).toBeGreaterThan(0);
    expect(Number(targets)).toBeLessThan(61);
    expect(r.stdout).toMatch(/baked file by LBS vs DQS max \d\.\de-(6|7|8)/);
    expect(r.stdout).toMatch(/plain LBS vs DQS max/);
    expect(existsSync(out)).toBe(true);
  });

  it('the CLI warns when a helper bake removes less than half of the gap, with the figure its report gives', async () => {
    // One helper per region at 2 samples/s, held never worse than plain LBS half-way between
    // the samples too, keeps little of spherical blend skinning's departure (measured: 35%; 80%
    // guarded at the samples alone, its helpers bound at their members' centres).
    const out = join(tmp.dir, 'cli-sbs-half.glb');
    const r = await runCli('bake', CESIUM_MAN, '--method', 'sbs', '--as', 'helpers', '--helpers', '1', '--rate', '2', '--guard', 'between', '-o', out); // prettier-ignore
    expect(r.code).toBe(0);
    // The report's own p99 figures (two significant digits) give the removed share independently.
    const [, baked, plain] = /at the \d+ samples[^\n]*baked file by LBS vs SBS max [^,]+, p99 ([\d.e-]+); plain LBS vs SBS max [^,]+, p99 ([\d.e-]+)/.exec(r.stdout) ?? []; // prettier-ignore
    const removed = 1 - Number(baked) / Number(plain);
    const [, percent] = /removes ([\d.]+)% of plain LBS's p99 distance to SBS/.exec(r.stdout) ?? [];
    expect(Math.abs(Number(percent) / 100 - removed)).toBeLessThan(0.05);
    expect(Number(percent)).toBeLessThan(50);
    expect(r.stderr).toContain(`corskin: warning: ${CESIUM_MAN}: Armature: the bake removes less than half of plain LBS's p99 distance to SBS (`); // prettier-ignore
    const [, warned] = /less than half of plain LBS's p99 distance to SBS \((\d+)%\)/.exec(r.stderr) ?? [];
    expect(Math.abs(Number(warned) - Number(percent))).toBeLessThanOrEqual(0.5); // the same figure, rounded
    // Held half-way between samples half a second apart: the warning says the rate is the cause.
    expect(r.stderr).toContain("at 2 samples/s the helpers' keys are too far apart to follow the motion half-way between them: a higher --rate (the default is 30) keys them closer"); // prettier-ignore
    expect(existsSync(out)).toBe(true); // a warning, not an error: the file is written
  });

  it('a clip of length 0 (a T-pose, as the Soldier has): sampled once; every kind of bake writes valid glTF', async () => {
    expect(Array.from(bakeSampleTimes(0, 30))).toEqual([0]);
    const io = new NodeIO();
    const doc = await io.read(CESIUM_MAN);
    const root = doc.getRoot();
    const joint = root.listSkins()[0].listJoints()[3];
    const buffer = root.listBuffers()[0];
    const sampler = doc
      .createAnimationSampler()
      .setInput(doc.createAccessor().setType('SCALAR').setArray(new Float32Array([0])).setBuffer(buffer))
      .setOutput(doc.createAccessor().setType('VEC4').setArray(Float32Array.from(joint.getRotation())).setBuffer(buffer)); // prettier-ignore
    doc
      .createAnimation('TPose')
      .addSampler(sampler)
      .addChannel(doc.createAnimationChannel().setTargetNode(joint).setTargetPath('rotation').setSampler(sampler));
    const input = join(tmp.dir, 'tpose.glb');
    await io.write(input, doc);
    for (const kind of ['helpers', 'morphs', 'helpers+morphs']) {
      const out = join(tmp.dir, `tpose-${kind}.glb`);
      const r = await runCli('bake', input, '--method', 'dqs', '--as', kind, '--rate', '2', '--helpers', '1', '-o', out); // prettier-ignore
      expect(r.code, r.stderr).toBe(0);
      const report = await validate(out);
      expect(report.issues.numErrors, `${kind}: ${JSON.stringify(report.issues.messages.slice(0, 2))}`).toBe(0);
    }
  }, 360_000);

  it('a clip that targets a joint twice: said (naming the node and the validator error), played as its last channel, baked into valid glTF', async () => {
    // CesiumMan with a second rotation channel on one animated joint, after the first: a
    // constant quarter turn about x. glTF allows one channel per node and path.
    const doc = await new NodeIO().read(CESIUM_MAN);
    const anim = doc.getRoot().listAnimations()[0];
    const original = anim.listChannels().find((c) => c.getTargetPath() === 'rotation')!;
    const node = original.getTargetNode()!;
    const q = [Math.SQRT1_2, 0, 0, Math.SQRT1_2];
    const input = doc
      .createAccessor()
      .setType('SCALAR')
      .setArray(new Float32Array([0, 10]));
    const output = doc
      .createAccessor()
      .setType('VEC4')
      .setArray(new Float32Array([...q, ...q]));
    const sampler = doc.createAnimationSampler().setInput(input).setOutput(output).setInterpolation('LINEAR');
    anim
      .addSampler(sampler)
      .addChannel(doc.createAnimationChannel().setTargetNode(node).setTargetPath('rotation').setSampler(sampler));
    const twice = join(tmp.dir, 'cesium-twice.glb');
    await new NodeIO().write(twice, doc);
    const duplicate = (await validate(twice)).issues.messages.filter((m) => m.severity === 0);
    expect(duplicate.length).toBeGreaterThan(0); // the validator refuses the input

    const out = join(tmp.dir, 'cesium-twice-baked.glb');
    const r = await runCli('bake', twice, '--method', 'dqs', '--as', 'morphs', '-o', out);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`targets node "${node.getName()}" (rotation) more than once`);
    // The report names the input's validator errors, and says the baked file has none of them.
    expect(r.stderr).toMatch(new RegExp(`the input has \\d+ glTF validator errors?: ${duplicate[0].code} ×`));
    expect(r.stdout).toContain('glTF validator: the baked file has none of the input');
    expect((await validate(out)).issues.numErrors).toBe(0);
    // The baked clip turns that joint as the last channel did: the quarter turn at every time.
    const baked = await readDocument(out);
    const [model] = extractSkinnedModels(baked, out);
    const j = model.skeleton.jointNames.indexOf(node.getName());
    const pose = samplePose(model.skeleton, model.animations[0], 0.7);
    const got = Array.from(pose.rotations.subarray(4 * j, 4 * j + 4));
    const dot = got.reduce((sum, v, k) => sum + v * q[k], 0);
    expect(Math.abs(dot)).toBeGreaterThan(1 - 1e-6);
  });

  it("--keyframe-tolerance 1e-4 reduces the keyframes (the Fox, dqs): a smaller file, as close to DQS; by default the rig's moving keys are kept and its constant channels take two keys, smaller still", async () => {
    const fox = join(SHARED, 'characters/Fox.glb');
    const [reduced, every, collapsed] = ['reduced', 'every', 'collapsed'].map((name) =>
      join(tmp.dir, `fox-${name}.glb`),
    );
    const a = await runCli('bake', fox, '--method', 'dqs', '--as', 'helpers', '--constant-tolerance', '0', '--keyframe-tolerance', '1e-4', '-o', reduced); // prettier-ignore
    const b = await runCli('bake', fox, '--method', 'dqs', '--as', 'helpers', '--constant-tolerance', '0', '-o', every);
    const c = await runCli('bake', fox, '--method', 'dqs', '--as', 'helpers', '-o', collapsed);
    expect([a.code, b.code, c.code]).toEqual([0, 0, 0]);
    const p99 = (out: string) => Number(/baked file by LBS vs DQS max \S+, p99 (\S+);/.exec(out)![1]);
    const size = (file: string) => statSync(file).size;
    console.log(
      `Fox helpers: ${size(reduced)} bytes (every key: ${size(every)}; the default, constant channels as two keys: ${size(collapsed)}); p99 ${p99(a.stdout)}, ${p99(b.stdout)}, ${p99(c.stdout)}`,
    );
    // Measured: every key 720,132 bytes (1.39× the input), reduced 492,816 (0.95×), the default
    // 486,168 (0.94×), the same p99 to the report's two digits.
    expect(size(reduced)).toBeLessThan(0.85 * size(every));
    expect(p99(a.stdout)).toBeLessThanOrEqual(1.05 * p99(b.stdout));
    expect(size(collapsed)).toBeLessThanOrEqual(size(reduced));
    expect(p99(c.stdout)).toBeLessThanOrEqual(1.05 * p99(b.stdout));
    expect(c.stdout).toMatch(/; \d+ constant channels stored as 2 keys each, [\d.]+ [KM]B less\)/);
  }, 540_000);

  it('the report measures half-way between the samples; the Fox (dqs) guarded at the samples alone is worse than LBS at some such times, at none with --guard between or the default (auto)', async () => {
    const fox = join(SHARED, 'characters/Fox.glb');
    const halfway = /half-way between the samples .*at (\d+) times: baked file by LBS vs DQS max (\S+), p99 (\S+);/;
    const worse = /half-way between samples, at (\d+) of (\d+) times/;
    const results = [];
    for (const guard of ['samples', 'between', undefined]) {
      const out = join(tmp.dir, `fox-guard-${guard ?? 'default'}.glb`);
      const r = await runCli('bake', fox, '--method', 'dqs', '--as', 'helpers', '--rate', '10', ...(guard ? ['--guard', guard] : []), '-o', out); // prettier-ignore
      expect(r.code, r.stderr).toBe(0);
      const line = halfway.exec(r.stdout);
      expect(line, r.stdout).not.toBeNull();
      results.push({ times: Number(line![1]), worse: Number(worse.exec(r.stderr)?.[1] ?? 0), stdout: r.stdout, stderr: r.stderr }); // prettier-ignore
    }
    console.log(`the Fox at 10 samples/s: half-way times worse than LBS ${results.map((x) => x.worse).join(' (--guard samples), ')} (--guard between), ${results[2].worse} (default) of ${results[0].times}`); // prettier-ignore
    // 16 s at 10 samples/s: 160 intervals, each with its half-way time.
    expect(results.map((x) => x.times)).toEqual([160, 160, 160]);
    expect(results[0].worse).toBeGreaterThan(0);
    expect(results[0].stderr).toContain('--guard auto (the default) or between holds the bake there too');
    expect(results[1].worse).toBe(0);
    // The default saw what the samples' guard leaves half-way, said so, and wrote the bake guarded between.
    const [, times] = /guarded at the samples alone, the closest fit played farther from DQS than plain LBS there at (\d+) half-way times?\)/.exec(results[2].stdout) ?? []; // prettier-ignore
    expect(Number(times), results[2].stdout).toBeGreaterThan(0);
    expect(results[2].worse).toBe(0);
    expect(results[2].stderr).not.toContain('holds the bake there too');
    const morphs = await runCli('bake', fox, '--method', 'dqs', '--as', 'morphs', '--rate', '2', '--guard', 'between', '-o', join(tmp.dir, 'fox-morphs-guard.glb')); // prettier-ignore
    expect(morphs.stderr).toContain('--guard applies to the helpers; ignored with --as morphs');
  }, 360_000);
});

describe('corskin bake: inputs already baked, or far from the origin', () => {
  it('says when its input is already a corskin bake (its helpers and targets counted)', async () => {
    const [once, twice] = ['baked-once.glb', 'baked-twice.glb'].map((f) => join(tmp.dir, f));
    const args = ['--method', 'dqs', '--as', 'helpers+morphs', '--helpers', '1', '--rate', '2'];
    const a = await runCli('bake', CESIUM_MAN, ...args, '-o', once);
    expect(a.code, a.stderr).toBe(0);
    expect(a.stderr).not.toContain('already a corskin bake');
    const helpers = Number(/(\d+) helper joints? added/.exec(a.stdout)![1]);
    const targets = Number(/(\d+) residual morph targets/.exec(a.stdout)![1]);
    const b = await runCli('bake', once, ...args, '-o', twice);
    expect(b.stderr).toContain(`the input is already a corskin bake (${helpers} helper joints, ${targets} corrective morph targets)`); // prettier-ignore
  });

  it('bakes a character animated 10,000 units from the origin as at the origin, and says when a mesh stored that far cannot be', async () => {
    const io = new NodeIO();
    const write = async (name: string, edit: (doc: Document) => unknown) => {
      const doc = await io.read(CESIUM_MAN);
      await edit(doc);
      const path = join(tmp.dir, name);
      await io.write(path, doc);
      return path;
    };
    // Posed far away: a root node 10,000 units out.
    const far = await write('far.glb', (doc) => doc.transform(underRoot({ translation: [1e4, 0, 1e4] })));
    // Stored far away: the vertices 10,000 units out in bind space, the inverse bind matrices
    // taking them back (IBM · T(−d)): the same posed character, its positions resolved to ~1e-3.
    const stored = await write('stored-far.glb', (doc) => {
      const d = 1e4;
      const prim = doc.getRoot().listMeshes()[0].listPrimitives()[0];
      const positions = prim.getAttribute('POSITION')!.getArray()!.slice();
      for (let i = 0; i < positions.length; i += 3) positions[i] += d;
      prim.getAttribute('POSITION')!.setArray(positions);
      const ibm = doc.getRoot().listSkins()[0].getInverseBindMatrices()!;
      const m = ibm.getArray()!.slice();
      for (let o = 0; o < m.length; o += 16) for (let r = 0; r < 3; r++) m[o + 12 + r] -= m[o + r] * d;
      ibm.setArray(m);
    });
    const args = ['--method', 'dqs', '--as', 'morphs', '--rate', '10'];
    const max = (stdout: string) => Number(/baked file by LBS vs DQS max ([\d.e+-]+)/.exec(stdout)![1]);
    const [near, away, kept] = [CESIUM_MAN, far, stored].map((f, k) => join(tmp.dir, `distance-${k}.glb`));
    const runs = [await runCli('bake', CESIUM_MAN, ...args, '-o', near), await runCli('bake', far, ...args, '-o', away), await runCli('bake', stored, ...args, '-o', kept)]; // prettier-ignore
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0]);
    // The bake samples about the first joint: the far character's targets are the near one's.
    for (const r of runs.slice(0, 2)) {
      expect(max(r.stdout)).toBeLessThanOrEqual(1e-5);
      expect(r.stderr).not.toContain('its morph targets hold');
    }
    expect(Math.abs(statSync(away).size / statSync(near).size - 1)).toBeLessThan(0.02);
    // --quantize rewrites the inverse bind matrices: the baked skeleton is moved as the original.
    const quantized = [await runCli('bake', CESIUM_MAN, ...args, '--quantize', '-o', join(tmp.dir, 'q-near.glb')), await runCli('bake', far, ...args, '--quantize', '-o', join(tmp.dir, 'q-far.glb'))]; // prettier-ignore
    expect(quantized.map((r) => r.code)).toEqual([0, 0]);
    expect(max(quantized[1].stdout)).toBeLessThan(2 * max(quantized[0].stdout));
    // 32-bit floats 10,000 units out step by 1e-3: the method's own result is that coarse there.
    expect(max(runs[2].stdout)).toBeGreaterThan(1e-4);
    expect(runs[2].stderr).toMatch(/plays up to [\d.e+-]+ of the diagonal from DQS at the samples, more than the 1\.0e-5 its morph targets hold: its vertices lie so far from the origin of their space that 32-bit floats resolve only [\d.e+-]+ of its diagonal/); // prettier-ignore
  });

  it('bakes a character stored in other units than it plays in (the chicken: centimetres under a 0.01 root) 1,000 units out as at the origin; its float32 resolution in its own units', async () => {
    const far = await writeUnderRoot(join(SHARED, 'characters/chicken.glb'), { translation: [1000, 0, 0] }, join(tmp.dir, 'chicken-far.glb')); // prettier-ignore
    // 1,000 m is 1,250 of its posed diagonals (0.8 m), 12 of its bind-space ones (81 cm): it must
    // be sampled about its first joint, or 32-bit floats resolve it to about 3e-5 of its size.
    const r = await runCli('bake', far, '--method', 'dqs', '--as', 'morphs', '--rate', '10', '-o', join(tmp.dir, 'chicken-far-baked.glb')); // prettier-ignore
    expect(r.code).toBe(0);
    expect(Number(/baked file by LBS vs DQS max ([\d.e+-]+)/.exec(r.stdout)![1])).toBeLessThanOrEqual(1e-5);
    expect(r.stdout).toContain("a basis of the 99 samples' corrections");
    expect(r.stderr).not.toContain('its morph targets hold');
    // At the origin, stored and posed each resolved to about 6e-8 of its size (2^-24 × reach ÷ diagonal).
    const [chicken] = extractSkinnedModels(await readDocument(join(SHARED, 'characters/chicken.glb')));
    const resolution = float32Resolution(chicken, deformers.lbs);
    expect(resolution).toBeGreaterThan(1e-8);
    expect(resolution).toBeLessThan(2e-7);
  });
});
