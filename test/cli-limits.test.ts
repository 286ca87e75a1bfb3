/**
 * Bounded work, clear errors, finite and valid outputs: each case a new user hit — a clip a
 * million seconds long, a sample rate of a million, 10⁷ smoothing iterations, λ = 1e308, a clip
 * of 3e38 s, positions of 1e30, two clips with one name, a joint scaled to 0, a stored cage with a
 * NaN, `--report` where it does nothing, 4,096 threads — ends in a `corskin: error:` line and no output within
 * seconds, or in a valid, finite file.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Animation, Document, Node } from '@gltf-transform/core';
import { createIO, readDocument, writeDocument } from '../src/io/node-io.js';
import { runCli } from './helpers/cli.js';
import { CESIUM_MAN, scratch, SHARED } from './helpers/data.js';
import { validate } from './helpers/gltf.js';

const tmp = scratch();
afterAll(tmp.cleanup);
const FOX = join(SHARED, 'characters/Fox.glb');

/** A copy of `from`, edited by `edit`, written into the scratch folder. */
async function variant(name: string, from: string, edit: (doc: Document) => void): Promise<string> {
  const doc = await readDocument(from);
  edit(doc);
  const path = join(tmp.dir, name);
  await writeDocument(doc, path, { force: true });
  return path;
}

/** Adds to `animation` a LINEAR channel moving `node`'s `path` through `values` (VEC3) at `times`. */
function linearChannel(
  doc: Document,
  animation: Animation,
  node: Node,
  path: 'translation' | 'scale',
  times: number[],
  values: number[],
): void {
  const buffer = doc.getRoot().listBuffers()[0];
  const accessor = (type: 'SCALAR' | 'VEC3', a: number[]) => doc.createAccessor().setType(type).setArray(Float32Array.from(a)).setBuffer(buffer); // prettier-ignore
  const sampler = doc.createAnimationSampler().setInput(accessor('SCALAR', times)).setOutput(accessor('VEC3', values));
  animation.addSampler(sampler).addChannel(doc.createAnimationChannel().setTargetNode(node).setTargetPath(path).setSampler(sampler)); // prettier-ignore
}

/** The first clip's last key moved to `end` seconds. */
const clipEndingAt = (end: number) => (doc: Document) => {
  const sampler = doc.getRoot().listAnimations()[0].listSamplers()[0];
  const input = sampler.getInput()!.clone();
  const times = Float32Array.from(input.getArray()!);
  times[times.length - 1] = end;
  sampler.setInput(input.setArray(times));
};

/** Runs the CLI, expecting a one-line error matching `message`, exit 1 or 2, and no output. */
async function refused(args: string[], message: RegExp, output: string, seconds = 5) {
  const start = performance.now();
  const r = await runCli(...args, '-o', output);
  expect(r.code, r.stdout).toBeGreaterThan(0);
  expect(r.stderr).toMatch(/^corskin: error: /m);
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toMatch(/ at .*\.(js|ts):\d+|RangeError|undefined|NaN/); // no stack, no raw values
  expect(existsSync(output)).toBe(false);
  expect(performance.now() - start).toBeLessThan(seconds * 1000);
}

describe('unbounded work is refused before it starts, naming the value and what to change', () => {
  const out = join(tmp.dir, 'out.glb');
  it('a clip a million seconds long, baked as morphs', async () => {
    const long = await variant('long.glb', CESIUM_MAN, clipEndingAt(1e6));
    await refused(
      ['bake', long, '--method', 'dqs', '--as', 'morphs'],
      /1\.000e\+6 s long.*limit of 200,000.*lower the sample rate/,
      out,
    );
  });
  it('a clip of 3e38 s (no typed-array error)', async () => {
    const huge = await variant('huge.glb', CESIUM_MAN, clipEndingAt(3e38));
    await refused(['bake', huge, '--method', 'dqs', '--as', 'helpers'], /3\.000e\+38 s long/, out);
  });
  it('bake --rate 1e6 and templates build --bake --bake-rate 1e6', async () => {
    await refused(
      ['bake', CESIUM_MAN, '--method', 'cor', '--as', 'helpers', '--rate', '1e6'],
      /at 1000000 samples\/s/,
      out,
    );
    await refused(['templates', 'build', CESIUM_MAN, '--bake', '--bake-rate', '1e6'], /at 1000000 samples\/s/, out, 10);
  });
  it('--threads 4096 (each thread a V8 instance: out of memory before) and --jobs 1000', async () => {
    const limit = /expected a whole number from 1 to 256/;
    await refused(['precompute', '--method', 'ddm', CESIUM_MAN, '--threads', '4096'], limit, out);
    await refused(['precompute', '--method', 'cor', CESIUM_MAN, '--threads', '257'], limit, out);
    await refused(['bake', CESIUM_MAN, '--method', 'dqs', '--as', 'helpers', '--threads', '100000'], limit, out);
    await refused(['precompute', '--method', 'cor', CESIUM_MAN, '--jobs', '1000'], limit, out);
  });
  it('precompute --method ddm --iterations 1e7, --lambda 1e308', async () => {
    await refused(
      ['precompute', '--method', 'ddm', CESIUM_MAN, '--iterations', '1e7'],
      /iterations p \(--iterations\) must be a whole number from 1 to 1000/,
      out,
    );
    await refused(
      ['precompute', '--method', 'ddm', CESIUM_MAN, '--lambda', '1e308'],
      /lambda must be a positive number up to 1000000/,
      out,
    );
  });
  it('precompute --method ddm on positions of 1e30 (finite, but their squares overflow float32)', async () => {
    const big = await variant('big.glb', FOX, (doc) => {
      for (const p of doc
        .getRoot()
        .listMeshes()
        .flatMap((m) => m.listPrimitives())) {
        const a = p.getAttribute('POSITION')!;
        a.setArray(Float32Array.from(a.getArray()!, (x: number) => x * 1e28));
      }
    });
    await refused(['precompute', '--method', 'ddm', big], /spans .* units.*rescale the asset/, out);
  });
  it('evaluate --character with --report (which only the benchmarks write) is a usage error', async () => {
    const r = await runCli('evaluate', '--character', FOX, '--methods', 'lbs', '--report', join(tmp.dir, 'report'));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/corskin: error: --report writes the HTML report of the benchmarks/);
    expect(existsSync(join(tmp.dir, 'report'))).toBe(false);
  });
});

describe('outputs are finite and valid, or not written', () => {
  it('two clips with one name: each keeps its own helper channels (no duplicate targets)', async () => {
    const twice = await variant('twice.glb', CESIUM_MAN, (doc) => {
      const [clip] = doc.getRoot().listAnimations();
      const copy = doc.createAnimation(clip.getName());
      for (const ch of clip.listChannels()) {
        const s = ch.getSampler()!;
        const sampler = doc
          .createAnimationSampler()
          .setInput(s.getInput())
          .setOutput(s.getOutput())
          .setInterpolation(s.getInterpolation());
        copy
          .addSampler(sampler)
          .addChannel(
            doc
              .createAnimationChannel()
              .setTargetNode(ch.getTargetNode())
              .setTargetPath(ch.getTargetPath()!)
              .setSampler(sampler),
          );
      }
    });
    const out = join(tmp.dir, 'twice-baked.glb');
    const r = await runCli('bake', twice, '--method', 'dqs', '--as', 'helpers', '--helpers', '1', '-o', out);
    expect(r.code, r.stderr).toBe(0);
    const report = await validate(out);
    expect(report.issues.messages.map((m) => m.code)).not.toContain('ANIMATION_DUPLICATE_TARGETS');
    expect(report.issues.numErrors).toBe(0);
    const [a, b] = (await readDocument(out)).getRoot().listAnimations();
    expect(b.listChannels().length).toBe(a.listChannels().length);
  }, 180_000);

  it('a joint scaled to 0: deform cor and templates write unit normals (the rest normal where the map loses it)', async () => {
    const zero = await variant('zero-scale.glb', CESIUM_MAN, (doc) => {
      const joint = doc.getRoot().listSkins()[0].listJoints()[3];
      const clip = doc.getRoot().listAnimations()[0];
      const old = clip.listChannels().find((c) => c.getTargetNode() === joint && c.getTargetPath() === 'scale');
      old?.dispose();
      linearChannel(doc, clip, joint, 'scale', [0, 2], [0, 0, 0, 0, 0, 0]);
    });
    for (const method of ['cor', 'templates', 'lbs', 'dqs', 'sbs', 'lms', 'ddm', 'stretch']) {
      const out = join(tmp.dir, `zero-${method}.glb`);
      const r = await runCli('deform', zero, '--method', method, '--time', '1', '-o', out);
      expect(r.code, r.stderr).toBe(0);
      const codes = (await validate(out)).issues.messages.filter((m) => m.severity === 0).map((m) => m.code);
      expect([...new Set(codes)], method).toEqual([]);
    }
  }, 180_000);

  it('a stored cage with a NaN: bake --method templates --as morphs refuses, as deform does', async () => {
    const built = join(tmp.dir, 'templates.glb');
    expect((await runCli('templates', 'build', FOX, '-o', built)).code).toBe(0);
    const doc = await readDocument(built);
    const p = doc
      .getRoot()
      .listMeshes()
      .flatMap((m) => m.listPrimitives())
      .find((q) => q.getAttribute('_CAGE_WEIGHTS_0'))!;
    const a = p.getAttribute('_CAGE_WEIGHTS_0')!;
    const w = Float32Array.from(a.getArray()!);
    w[5] = NaN;
    a.setArray(w);
    // corskin refuses to write the NaN itself …
    const mine = join(tmp.dir, 'nan-cage-mine.glb');
    await expect(writeDocument(doc, mine)).rejects.toThrow(
      /non-finite number \(NaN\) in a _CAGE_WEIGHTS_0 attribute, element 1: nothing written/,
    );
    expect(existsSync(mine)).toBe(false);
    // … so another tool wrote it.
    const broken = join(tmp.dir, 'nan-cage.glb');
    await (await createIO()).write(broken, doc);
    for (const args of [
      ['bake', broken, '--method', 'templates', '--as', 'morphs'],
      ['deform', broken, '--method', 'templates', '--time', '1'],
    ])
      await refused(args, /cage|not finite|non-finite/, join(tmp.dir, 'nan-out.glb'), 30);
  }, 180_000);

  it.each([
    ['all zero', () => 0, /of vertex 0 is empty \(every slot zero\): precompute it again/],
    ['NaN', () => NaN, /of vertex 0 is not finite/],
  ])('stored Direct Delta Mush data that is %s: deform --method ddm refuses', async (_, value, message) => {
    const ddm = join(tmp.dir, 'fox-ddm.glb');
    expect((await runCli('precompute', '--method', 'ddm', FOX, '-o', ddm, '--force')).code).toBe(0);
    const doc = await readDocument(ddm);
    for (const p of doc
      .getRoot()
      .listMeshes()
      .flatMap((m) => m.listPrimitives()))
      for (const name of p.listSemantics().filter((x) => x.startsWith('_DDM_OMEGA'))) {
        const a = p.getAttribute(name)!;
        a.setArray(Float32Array.from(a.getArray()!, value));
      }
    const broken = join(tmp.dir, 'broken-ddm.glb');
    await (await createIO()).write(broken, doc);
    await refused(['deform', broken, '--method', 'ddm', '--time', '1'], message, join(tmp.dir, 'broken-out.glb'));
  });
});

describe('one meaning per option name; the old spellings work for one more release, with a note', () => {
  it('precompute --algorithm exact = the deprecated --exact; bind-cage --coordinates mvc = the deprecated --method mvc', async () => {
    const exact = await runCli('precompute', CESIUM_MAN, '--algorithm', 'exact', '-o', join(tmp.dir, 'exact.glb'));
    const old = await runCli('precompute', CESIUM_MAN, '--exact', '-o', join(tmp.dir, 'exact-old.glb'));
    expect([exact.code, old.code]).toEqual([0, 0]);
    expect(exact.stdout).toMatch(/, exact\)/);
    expect(old.stdout).toMatch(/, exact\)/);
    expect(exact.stderr).not.toMatch(/deprecated/);
    expect(old.stderr).toMatch(/--exact is deprecated .* use --algorithm exact/);
    const [a, b] = await Promise.all(
      ['exact.glb', 'exact-old.glb'].map(async (f) =>
        (await readDocument(join(tmp.dir, f)))
          .getRoot()
          .listMeshes()[0]
          .listPrimitives()[0]
          .getAttribute('_CENTER_OF_ROTATION')!
          .getArray(),
      ),
    );
    expect(Array.from(b!)).toEqual(Array.from(a!));
    const cage = await runCli(
      'bind-cage',
      CESIUM_MAN,
      '--cage',
      'auto',
      '--coordinates',
      'mvc',
      '-o',
      join(tmp.dir, 'mvc.glb'),
    );
    const cageOld = await runCli(
      'bind-cage',
      CESIUM_MAN,
      '--cage',
      'auto',
      '--method',
      'mvc',
      '-o',
      join(tmp.dir, 'mvc-old.glb'),
    );
    expect([cage.code, cageOld.code]).toEqual([0, 0]);
    expect(cage.stdout).toMatch(/\(MVC,/);
    expect(cageOld.stdout).toMatch(/\(MVC,/);
    expect(cageOld.stderr).toMatch(/bind-cage --method is deprecated .* use --coordinates/);
  });
});

describe("a method's parameters given with another method", () => {
  it('are ignored with a warning naming the option and its method', async () => {
    const out = join(tmp.dir, 'dqs-step.glb');
    const r = await runCli('deform', CESIUM_MAN, '--method', 'dqs', '--step', '0.7', '--pin-borders', '-o', out);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: --step is a parameter of --method dm; ignored with --method dqs/);
    expect(r.stderr).toMatch(/warning: --pin-borders is a parameter of --method dm; ignored with --method dqs/);
    const dm = await runCli(
      'deform',
      CESIUM_MAN,
      '--method',
      'dm',
      '--step',
      '0.7',
      '-o',
      join(tmp.dir, 'dm-step.glb'),
    );
    expect([dm.code, dm.stderr]).toEqual([0, '']);
    const zero = await runCli(
      'deform',
      CESIUM_MAN,
      '--method',
      'dm',
      '--step',
      '0',
      '-o',
      join(tmp.dir, 'dm-zero.glb'),
    );
    expect(zero.code).toBe(2); // bad usage, whatever the file
    expect(zero.stderr).toMatch(/Delta Mush step must lie in \(0, 1\] \(got 0\)$/m);
    expect(existsSync(join(tmp.dir, 'dm-zero.glb'))).toBe(false);
  });

  it('precompute --method cor with a DDM option, bake --as morphs with --keyframe-tolerance, --threads and --jobs for one file, deform --time with --pose: warned, ignored', async () => {
    const cor = await runCli(
      'precompute',
      CESIUM_MAN,
      '--method',
      'cor',
      '--lambda',
      '5',
      '-o',
      join(tmp.dir, 'cor.glb'),
    );
    expect(cor.code).toBe(0);
    expect(cor.stderr).toMatch(/warning: --lambda is a parameter of --method ddm; ignored with --method cor/);
    const out = join(tmp.dir, 'morphs-kt.glb');
    const bake = await runCli('bake', CESIUM_MAN, '--method', 'dqs', '--as', 'morphs', '--rate', '5', '--keyframe-tolerance', '0.1', '--threads', '2', '--jobs', '2', '-o', out); // prettier-ignore
    expect(bake.code).toBe(0);
    expect(bake.stderr).toMatch(/warning: \S+: --keyframe-tolerance applies to the helpers; ignored with --as morphs/);
    // The morph bake runs on one thread; --jobs spreads files written with --out-dir.
    expect(bake.stderr).toMatch(/warning: \S+: --threads applies to the helpers; ignored with --as morphs/);
    expect(bake.stderr).toMatch(/warning: --jobs applies to files written with --out-dir; ignored for one file/);
    // deform poses a clip's frame or, without one, --pose's pose: both asked, --pose is said to be ignored.
    const clip = await runCli('deform', CESIUM_MAN, '--method', 'dqs', '--time', '0.5', '--pose', 'stress', '-o', join(tmp.dir, 'clip.glb')); // prettier-ignore
    expect(clip.code).toBe(0);
    expect(clip.stderr).toMatch(/warning: --pose poses the character without an animation; ignored with --time/);
    // A clip asked for that moves no skin: the skin rests (not at --pose's pose, which is ignored).
    const withProp = await variant('prop-clip.glb', CESIUM_MAN, (doc) => {
      const prop = doc.createNode('prop');
      doc.getRoot().listScenes()[0].addChild(prop);
      linearChannel(doc, doc.createAnimation('prop only'), prop, 'translation', [0, 1], [0, 0, 0, 0, 1, 0]);
    });
    const [rested, rest] = [join(tmp.dir, 'prop-stress.glb'), join(tmp.dir, 'prop-rest.glb')];
    const asked = await runCli('deform', withProp, '--method', 'dqs', '--animation', 'prop only', '--pose', 'stress', '-o', rested); // prettier-ignore
    expect(asked.stderr).toMatch(/--pose .* ignored with --animation/);
    expect(asked.stdout).toMatch(/rest pose: "prop only" moves no skin/);
    expect((await runCli('deform', withProp, '--method', 'dqs', '--pose', 'rest', '-o', rest)).code).toBe(0);
    const positions = async (file: string) => (await readDocument(file)).getRoot().listMeshes()[0].listPrimitives()[0].getAttribute('POSITION')!.getArray(); // prettier-ignore
    expect(Array.from((await positions(rested))!)).toEqual(Array.from((await positions(rest))!));
    // A batch of morph bakes on two threads: nothing said of --threads, which it does not give them.
    const batch = await runCli('bake', CESIUM_MAN, out, '--method', 'dqs', '--as', 'morphs', '--rate', '5', '--jobs', '2', '--out-dir', join(tmp.dir, 'morphs-batch')); // prettier-ignore
    expect(batch.code, batch.stderr).toBe(0);
    expect(batch.stdout.match(/^ok /gm)).toHaveLength(2);
    expect(batch.stderr).not.toMatch(/--threads|--jobs/);
  });

  it("DDM options with the file's stored DDM data: checked all the same, and said to be unused", async () => {
    const stored = join(tmp.dir, 'cesium-ddm.glb');
    expect((await runCli('precompute', CESIUM_MAN, '--method', 'ddm', '-o', stored)).code).toBe(0);
    const bad = join(tmp.dir, 'ddm-bad.glb');
    const r = await runCli('deform', stored, '--method', 'ddm', '--kappa', '9', '-o', bad);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/DDM kappa must be smaller than lambda \(got kappa 9, lambda 3\)/);
    expect(existsSync(bad)).toBe(false);
    const ok = await runCli('deform', stored, '--method', 'ddm', '--lambda', '5', '-o', join(tmp.dir, 'ddm-ok.glb'));
    expect(ok.code).toBe(0);
    expect(ok.stderr).toMatch(
      /warning: .*the file's stored DDM data is used; --lambda applies only when it is computed/,
    );
    const fresh = await runCli(
      'precompute',
      CESIUM_MAN,
      '--method',
      'ddm',
      '--kappa',
      '9',
      '-o',
      join(tmp.dir, 'p.glb'),
    );
    // Bad usage whatever the file: refused before any file is read, with the CLI's usage code.
    expect(fresh.code).toBe(2);
    expect(fresh.stderr).toMatch(/^corskin: error: DDM kappa must be smaller than lambda/m);
    for (const command of [['bake', '--as', 'morphs'], ['deform']]) {
      const r = await runCli(command[0], CESIUM_MAN, ...command.slice(1), '--method', 'ddm', '--alpha', '1', '-o', join(tmp.dir, 'a.glb')); // prettier-ignore
      expect([r.code, r.stderr.trim()]).toEqual([2, 'corskin: error: DDM alpha must lie in [0, 1) (got 1)']);
    }
  });
});
