import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { NodeIO, type Node } from '@gltf-transform/core';
import { afterAll, describe, expect, it } from 'vitest';
import { SKINNING_METHODS } from '../src/deformers/registry.js';
import { runCli } from './helpers/cli.js';
import { CESIUM_MAN, ROOT, scratch, SHARED } from './helpers/data.js';
import { underRoot, validate, writeUnderRoot } from './helpers/gltf.js';
import { readDocument } from '../src/io/node-io.js';

const tmp = scratch();
afterAll(tmp.cleanup);

describe('corskin info', () => {
  it('--json describes the skin: joints, histogram summing to the vertex count, animation', async () => {
    const r = await runCli('info', CESIUM_MAN, '--json');
    expect(r.code).toBe(0);
    const info = JSON.parse(r.stdout);
    const [skin] = info.skins;
    expect(skin.joints).toBe(19);
    expect(skin.vertices).toBe(3273);
    expect(skin.triangles).toBe(4672);
    expect(Object.values(skin.influenceHistogram as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(3273);
    expect(skin.centersOfRotation.present).toBe(false);
    expect(skin.animations).toHaveLength(1);
  });

  // Found by a new user's check: the joint names --joint takes were printed only with --json.
  it('--joints prints the joint tree: every joint once, indented by its depth among the skin’s joints (the Soldier)', async () => {
    const file = join(SHARED, 'characters', 'Soldier.glb');
    const r = await runCli('info', file, '--joints');
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    const start = lines.indexOf('joints (the names --joint takes):');
    expect(start).toBeGreaterThan(0);
    // Independently: the skin's joints and their depth along glTF-Transform's node parents.
    const joints = (await new NodeIO().read(file)).getRoot().listSkins()[0].listJoints();
    const depth = (n: Node): number => {
      const p = n.getParentNode();
      return p && joints.includes(p) ? 1 + depth(p) : 0;
    };
    const tree = lines.slice(start + 1, start + 1 + joints.length);
    expect(tree.map((l) => l.trim()).sort()).toEqual(joints.map((j) => j.getName()).sort());
    for (const line of tree) {
      const joint = joints.find((j) => j.getName() === line.trim())!;
      expect(line.length - line.trimStart().length, line).toBe(2 + 2 * depth(joint));
    }
    // A child line follows its parent's, deeper.
    const at = (name: string) => tree.findIndex((l) => l.trim() === name);
    expect(at('mixamorig:LeftForeArm')).toBeGreaterThan(at('mixamorig:LeftArm'));
  });

  it("counts the morph targets (rpm-avatar's) and every channel of a clip: on joints, on morph weights, or ignored", async () => {
    const file = join(SHARED, 'characters', 'rpm-avatar.glb');
    const doc = await new NodeIO().read(file);
    // Independently: the targets of every skinned node's mesh (its primitives share them), and the file's channels.
    const meshes = new Set(
      doc
        .getRoot()
        .listNodes()
        .filter((n) => n.getSkin() && n.getMesh())
        .map((n) => n.getMesh()!),
    );
    const targets = [...meshes].reduce((sum, m) => sum + (m.listPrimitives()[0]?.listTargets().length ?? 0), 0);
    expect(targets).toBeGreaterThan(0);
    const [skin] = JSON.parse((await runCli('info', file, '--json')).stdout).skins;
    expect(skin.morphTargets.targets).toBe(targets);
    const [clip] = doc.getRoot().listAnimations();
    const [a] = skin.animations;
    expect(a.channels + a.morphChannels + skin.ignoredAnimationChannels).toBe(clip.listChannels().length);
    const text = (await runCli('info', file)).stdout;
    expect(text).toContain(`morph targets: ${targets} in `);
  });

  it('counts the skins that bind a mesh, and says how many the file holds when some bind none (skeleton.glb)', async () => {
    const file = join(SHARED, 'characters', 'skeleton.glb');
    const root = (await readDocument(file)).getRoot();
    const binding = new Set(
      root
        .listNodes()
        .filter((n) => n.getSkin() && n.getMesh())
        .map((n) => n.getSkin()),
    );
    expect(binding.size).toBeLessThan(root.listSkins().length);
    const text = (await runCli('info', file)).stdout;
    expect(text.split('\n')[0]).toBe(`${file}: ${binding.size} skins binding a mesh (of the file's ${root.listSkins().length}, numbered as in the file)`); // prettier-ignore
    // Numbered as in the file: each named skin is the file's skin of that index, and binds a mesh.
    for (const [, k] of text.matchAll(/^skin (\d+):/gm)) expect(binding.has(root.listSkins()[Number(k)])).toBe(true);
  });

  it("says what the file stores for each method module that precomputes: absent in the plain file, DDM's after precompute --method ddm", async () => {
    const stored = (json: string) =>
      Object.fromEntries(
        (JSON.parse(json).skins[0].methodData as { method: string; stored: boolean }[]).map((d) => [
          d.method,
          d.stored,
        ]),
      );
    const plain = await runCli('info', CESIUM_MAN, '--json');
    const modules = SKINNING_METHODS.filter((m) => m.precomputes && 'module' in m).map((m) => m.id);
    expect(stored(plain.stdout)).toEqual(Object.fromEntries(modules.map((id) => [id, false])));
    const withDdm = join(tmp.dir, 'info-ddm.glb');
    expect((await runCli('precompute', CESIUM_MAN, '--method', 'ddm', '--iterations', '7', '-o', withDdm)).code).toBe(
      0,
    );
    expect(stored((await runCli('info', withDdm, '--json')).stdout)).toEqual(
      Object.fromEntries(modules.map((id) => [id, id === 'ddm'])),
    );
    const text = (await runCli('info', withDdm)).stdout;
    expect(text).toMatch(/DDM: stored \(full, [\d.]+ joints per vertex; p = 7,/);
    expect(text).toContain('Templates: absent (corskin precompute --method templates)');
  });

  it('several files: one line each, with the counts --json gives for each file', async () => {
    const files = [CESIUM_MAN, join(SHARED, 'characters', 'Fox.glb')];
    const r = await runCli('info', ...files);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    for (const [k, file] of files.entries()) {
      const [skin] = JSON.parse((await runCli('info', file, '--json')).stdout).skins;
      expect(lines[k].startsWith(`${file}: 1 skin, ${skin.joints} joints, ${skin.vertices} vertices`)).toBe(true);
    }
  });

  it("channels on nodes that do not move the skin (the Soldier's end sites): counted by info, no warning on deform", async () => {
    const file = join(SHARED, 'characters', 'Soldier.glb');
    // Independently: channels whose node is neither a joint nor an ancestor of one.
    const doc = await new NodeIO().read(file);
    const joints = new Set(doc.getRoot().listSkins()[0].listJoints());
    const moves = (node: Node): boolean => joints.has(node) || node.listChildren().some((c) => moves(c));
    const expected = doc
      .getRoot()
      .listAnimations()
      .flatMap((a) => a.listChannels())
      .filter((c) => !moves(c.getTargetNode()!)).length;
    expect(expected).toBeGreaterThan(0);
    const info = await runCli('info', file, '--json');
    expect(JSON.parse(info.stdout).skins[0].ignoredAnimationChannels).toBe(expected);
    const out = join(tmp.dir, 'soldier-posed.glb');
    const r = await runCli('deform', file, '--method', 'dqs', '--time', '0.5', '-o', out);
    expect([r.code, r.stderr]).toEqual([0, '']);
    // --verbose says it.
    const verbose = await runCli('deform', file, '--method', 'dqs', '--time', '0.5', '-o', out, '--verbose');
    expect(verbose.code).toBe(0);
    expect(verbose.stderr).toContain(`${expected} animation channels on nodes that do not move the skin, ignored`);
  });
});

describe('corskin deform', () => {
  it('cor on a file without CoRs computes them first and says so; the .glb validates', async () => {
    const out = join(tmp.dir, 'cm-cor.glb');
    const r = await runCli('deform', CESIUM_MAN, '--method', 'cor', '--time', '1', '-o', out);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`${CESIUM_MAN}: no centers of rotation in the file; computing them`);
    const report = await validate(out);
    expect(report.issues.numErrors).toBe(0);
  });

  it('writes OBJ with the same vertex order and normals', async () => {
    const out = join(tmp.dir, 'cm.obj');
    const r = await runCli('deform', CESIUM_MAN, '--method', 'dqs', '--animation', '0', '--time', '0.5', '-o', out);
    expect(r.code).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text.match(/^v /gm)).toHaveLength(3273);
    expect(text.match(/^vn /gm)).toHaveLength(3273);
    expect(text.match(/^f /gm)).toHaveLength(4672);
  });

  it('names the animations when the one asked for does not exist', async () => {
    const r = await runCli(
      'deform',
      CESIUM_MAN,
      '--method',
      'lbs',
      '--animation',
      'walk',
      '-o',
      join(tmp.dir, 'x.glb'),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no animation "walk" \(animations: 0: animation 0\)/);
    expect(existsSync(join(tmp.dir, 'x.glb'))).toBe(false);
  });
});

describe('corskin demo', () => {
  it('precomputes, poses and deforms the bundled arm, writes six meshes and a table', async () => {
    const dir = join(tmp.dir, 'demo');
    const r = await runCli('demo', '-o', dir);
    expect(r.code).toBe(0);
    for (const pose of ['twist', 'bend']) {
      for (const m of ['lbs', 'dqs', 'cor']) {
        const f = join(dir, `arm-${pose}-${m}.glb`);
        expect(existsSync(f)).toBe(true);
        expect((await validate(f)).issues.numErrors).toBe(0);
      }
    }
    const rows = r.stdout.split('\n').filter((l) => /^(twist|bend)/.test(l));
    expect(rows).toHaveLength(6);
    // twist LBS row: min radius ratio (5th column) far below CoR's
    const minRatio = (row: string) => Number(row.trim().split(/\s{2,}/)[4]);
    expect(minRatio(rows[0])).toBeLessThan(0.2);
    expect(minRatio(rows[2])).toBeGreaterThan(0.6);
  }, 900_000);
});

describe('corskin precompute --threads', () => {
  it('writes byte-identical files with 1 and 2 threads', async () => {
    const a = join(tmp.dir, 't1.glb');
    const b = join(tmp.dir, 't2.glb');
    expect((await runCli('precompute', CESIUM_MAN, '-o', a, '--threads', '1')).code).toBe(0);
    expect((await runCli('precompute', CESIUM_MAN, '-o', b, '--threads', '2')).code).toBe(0);
    expect(readFileSync(a).equals(readFileSync(b))).toBe(true);
  });
});

describe('static outputs of corskin deform', () => {
  it('carry what draws the mesh only: a DDM pose is the size of an LBS pose, no skin or method data', async () => {
    const withDdm = join(tmp.dir, 'with-ddm.glb');
    expect((await runCli('precompute', '--method', 'ddm', CESIUM_MAN, '-o', withDdm)).code).toBe(0);
    const sizes: Record<string, number> = {};
    for (const method of ['lbs', 'ddm']) {
      const out = join(tmp.dir, `posed-${method}.glb`);
      expect((await runCli('deform', withDdm, '--method', method, '--time', '1', '-o', out)).code).toBe(0);
      sizes[method] = statSync(out).size;
      const doc = await readDocument(out);
      const semantics = new Set(
        doc
          .getRoot()
          .listMeshes()
          .flatMap((m) => m.listPrimitives())
          .flatMap((p) => p.listSemantics()),
      );
      expect([...semantics].sort(), method).toEqual(['NORMAL', 'POSITION', 'TEXCOORD_0']);
      expect(doc.getRoot().listSkins(), method).toHaveLength(0);
      const extras = doc
        .getRoot()
        .listMeshes()
        .flatMap((m) => m.listPrimitives())
        .map((p) => Object.keys(p.getExtras()));
      expect(
        extras.flat().filter((k) => k.startsWith('corskin')),
        method,
      ).toEqual([]);
    }
    expect(statSync(withDdm).size).toBeGreaterThan(4 * sizes.lbs); // the input carries the Ω matrices
    expect(sizes.ddm).toBeLessThanOrEqual(1.5 * sizes.lbs);
  });
});

describe('--resources, on any command', () => {
  it('reports the peak memory of its own process, not of the (large) process that started it', () => {
    // A parent holding 400 MB starts the CLI: getrusage's maxRSS would carry those 400 MB over
    // the fork + exec; the CLI's own peak for CesiumMan is far below that.
    const ballast = new Float64Array(5e7).fill(1);
    const out = execFileSync(
      process.execPath,
      [join(ROOT, 'bin', 'corskin.js'), 'precompute', CESIUM_MAN, '-o', join(tmp.dir, 'r.glb'), '--resources'],
      { encoding: 'utf8' },
    );
    const m = /CPU ([\d.]+) s, peak RSS (\d+) MB/.exec(out);
    expect(m).not.toBeNull();
    expect(Number(m![2])).toBeGreaterThan(20);
    expect(Number(m![2])).toBeLessThan(300);
    expect(ballast[0]).toBe(1);
  });

  it.each([
    ['precompute', '--method', 'ddm', '--resources', CESIUM_MAN, '-o', 'ddm.glb'],
    ['--resources', 'deform', CESIUM_MAN, '--method', 'dqs', '-o', 'posed.glb'],
    ['evaluate', '--character', CESIUM_MAN, '--methods', 'lbs', '--resources'],
  ])('%s … prints its CPU time and peak memory last', async (...args) => {
    const r = await runCli(...args.map((a) => (a.endsWith('.glb') && !a.includes('/') ? join(tmp.dir, a) : a)));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(/^CPU [\d.]+ s, peak RSS \d+ MB$/);
  });
});

describe('the package', () => {
  it('records the version of package.json in the files it writes', async () => {
    const { VERSION } = await import('../src/version.js');
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(VERSION).toBe(pkg.version);
  });
});

describe('batch runs: several inputs with --out-dir', () => {
  it('precomputes every file into a folder it makes, continues past a bad one, prints a line per file, and exits 1', async () => {
    const { writeFileSync } = await import('node:fs');
    const dir = join(tmp.dir, 'batch-out', 'nested'); // neither exists yet
    const bad = join(tmp.dir, 'bad.glb');
    writeFileSync(bad, 'not glTF');
    const fox = join(SHARED, 'characters/Fox.glb');
    const r = await runCli('precompute', CESIUM_MAN, bad, fox, '--out-dir', dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`ok      ${CESIUM_MAN} → ${join(dir, 'CesiumMan.glb')}`);
    expect(r.stdout).toContain(`ok      ${fox} → ${join(dir, 'Fox.glb')}`);
    expect(r.stderr).toContain(`corskin: error: failed: ${bad}: not a glTF file`);
    expect(r.stdout).toContain('2 of 3 files done, 1 failed');
    expect(existsSync(join(dir, 'CesiumMan.glb')) && existsSync(join(dir, 'Fox.glb'))).toBe(true);
    const ok = await runCli('deform', CESIUM_MAN, fox, '--method', 'dqs', '--out-dir', dir, '--force');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('2 of 2 files done');
    const usage = await runCli('precompute', CESIUM_MAN, fox, '-o', join(dir, 'x.glb'));
    expect(usage.code).toBe(2);
    const file = await runCli('precompute', CESIUM_MAN, fox, '--out-dir', bad);
    expect(file.code).toBe(2);
    expect(file.stderr).toContain(`--out-dir ${bad} is a file, not a folder`);
    // Below a file: a clear error, no stack trace.
    const under = await runCli('deform', CESIUM_MAN, fox, '--method', 'lbs', '--out-dir', join(bad, 'sub'));
    expect(under.code).toBe(1);
    expect(under.stderr).toContain('cannot make the --out-dir folder: a folder of the path is a file');
    expect(under.stderr).not.toContain('internal error');
    // Where a parent refuses new entries (/proc: ENOENT though it exists), an error, not a hang.
    if (existsSync('/proc/self')) {
      const proc = await runCli('deform', CESIUM_MAN, fox, '--method', 'lbs', '--out-dir', '/proc/corskin-out/sub');
      expect(proc.code).toBe(1);
      expect(proc.stderr).toContain('cannot make the --out-dir folder');
      // One output there: its folder exists, and refuses the file (it said the folder did not exist).
      const one = await runCli('deform', CESIUM_MAN, '--method', 'lbs', '-o', '/proc/corskin-out.glb');
      expect(one.code).toBe(1);
      expect(one.stderr).toContain('/proc/corskin-out.glb: cannot write: its folder (/proc) takes no new files');
    }
    // evaluate --report and demo likewise, before any work.
    for (const args of [
      ['evaluate', '--report', join(bad, 'report')],
      ['demo', '-o', join(bad, 'demo')],
    ]) {
      const r = await runCli(...args);
      expect([r.code, r.stdout]).toEqual([1, '']);
      expect(r.stderr).toMatch(/cannot make the (--report|demo) folder: a folder of the path is a file/);
    }
    const one = await runCli('deform', CESIUM_MAN, '--method', 'lbs', '-o', join(bad, 'x.glb'));
    expect(one.code).toBe(1);
    expect(one.stderr).toContain(`${bad} is a file, not a folder`);
  });

  it('--jobs 2 runs files on worker threads: the same bytes as one at a time, the same failures', async () => {
    const { mkdirSync, readFileSync, writeFileSync } = await import('node:fs');
    const [one, two] = [join(tmp.dir, 'jobs-1'), join(tmp.dir, 'jobs-2')];
    mkdirSync(one);
    mkdirSync(two);
    const bad = join(tmp.dir, 'broken.glb');
    writeFileSync(bad, 'not glTF');
    const inputs = [CESIUM_MAN, bad, join(SHARED, 'characters/Fox.glb'), join(SHARED, 'characters/chicken.glb')];
    const a = await runCli('precompute', ...inputs, '--out-dir', one, '--jobs', '1');
    const b = await runCli('precompute', ...inputs, '--out-dir', two, '--jobs', '2');
    expect([a.code, b.code]).toEqual([1, 1]);
    expect(b.stdout).toContain('3 of 4 files done, 1 failed');
    expect(b.stderr).toContain(`corskin: error: failed: ${bad}: not a glTF file`);
    for (const name of ['CesiumMan.glb', 'Fox.glb', 'chicken.glb'])
      expect(readFileSync(join(two, name)).equals(readFileSync(join(one, name)))).toBe(true);
  });

  it('refuses, before writing anything, two inputs of one name (one output) and an input given twice', async () => {
    const { copyFileSync, mkdirSync } = await import('node:fs');
    const other = join(tmp.dir, 'same-name');
    mkdirSync(other);
    copyFileSync(CESIUM_MAN, join(other, 'cesiumman.glb')); // one file where names ignore case
    const out = join(tmp.dir, 'same-name-out');
    for (const [inputs, message] of [
      [[CESIUM_MAN, join(other, 'cesiumman.glb')], `would both be written to ${join(out, 'cesiumman.glb')}`],
      [[CESIUM_MAN, CESIUM_MAN], `${CESIUM_MAN} is given twice`],
    ] as const) {
      const r = await runCli('deform', ...inputs, '--method', 'lbs', '--out-dir', out, '--jobs', '2');
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
      expect(existsSync(out)).toBe(false);
    }
  });
});

describe('corskin evaluate --character on scaled and moved copies', () => {
  it('the same figures for the Soldier under a root scaled ×100 and moved 50 units: the rigid gap in units of the posed diagonal', async () => {
    const rows = async (name: string, t: Parameters<typeof underRoot>[0]) => {
      const file = await writeUnderRoot(join(SHARED, 'characters/Soldier.glb'), t, join(tmp.dir, `${name}.glb`));
      const r = await runCli('evaluate', '--character', file, '--methods', 'dqs,ddm', '--json');
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('float32'); // near the origin: no rounding warning
      return JSON.parse(r.stdout) as { pose: string; method: string; rigidGap: number; flippedAgainstDqs: number }[];
    };
    const [plain, copy] = [await rows('plain', {}), await rows('scaled-moved', { scale: [100, 100, 100], translation: [0, 50, 0] })]; // prettier-ignore
    expect(copy.length).toBe(plain.length);
    const ddm = plain.filter((r) => r.method === 'ddm');
    expect(Math.max(...ddm.map((r) => r.rigidGap))).toBeGreaterThan(1e-4); // DDM leaves the rigid pieces: a gap to compare
    plain.forEach((r, k) => {
      expect([copy[k].pose, copy[k].method]).toEqual([r.pose, r.method]);
      expect(copy[k].rigidGap).toBeCloseTo(r.rigidGap, 5); // 100× before
    });
  }, 360_000);

  it('measures a character posed far from the origin about its first joint (as at the origin); warns where float32 rounding is what the rigid gap measures', async () => {
    const soldier = join(SHARED, 'characters/Soldier.glb');
    type Row = { pose: string; method: string; rigidGap: number; rounding: number; flippedAgainstDqs: number; creasedEdges: number }; // prettier-ignore
    const evaluate = async (file: string) => {
      const r = await runCli('evaluate', '--character', file, '--methods', 'dqs,lbs,cor,stretch', '--json');
      expect(r.code, r.stderr).toBe(0);
      return { rows: JSON.parse(r.stdout) as Row[], stderr: r.stderr };
    };
    const here = await evaluate(soldier);
    expect(new Set(here.rows.map((x) => x.method))).toEqual(new Set(['dqs', 'lbs', 'cor', 'stretch']));
    // 2e5 units out, 800,000 of its diagonals: float32 spacing there is 2^-6 units, 0.06 of its size.
    const far = await evaluate(await writeUnderRoot(soldier, { translation: [2e5, 0, 0] }, join(tmp.dir, 'far.glb'))); // prettier-ignore
    expect(far.rows.map((x) => [x.pose, x.method, x.flippedAgainstDqs, x.creasedEdges])).toEqual(here.rows.map((x) => [x.pose, x.method, x.flippedAgainstDqs, x.creasedEdges])); // prettier-ignore
    far.rows.forEach((x, k) => expect(Math.abs(x.rigidGap - here.rows[k].rigidGap)).toBeLessThan(1e-6));
    expect(Math.max(...far.rows.map((x) => x.rounding))).toBeLessThan(1e-5);
    expect(far.stderr).not.toContain('float32 numbers there');
    // 10 units out (40 diagonals): posed there, float32 spacing 2^-20 units.
    const near = await evaluate(await writeUnderRoot(soldier, { translation: [10, 0, 0] }, join(tmp.dir, 'ten.glb'))); // prettier-ignore
    const diagonal = 2 ** -20 / near.rows[0].rounding;
    expect(Math.abs(diagonal - 0.2475)).toBeLessThan(0.001); // the Soldier's diagonal posed at rest, measured: 0.2475 units
    expect(near.stderr).toMatch(/float32 numbers there are .* of its diagonal apart/);
    // What posing there adds to each gap is rounding, within a few spacings.
    near.rows.forEach((x, k) => expect(Math.abs(x.rigidGap - here.rows[k].rigidGap)).toBeLessThan(8 * x.rounding));
  }, 360_000);

  it('--methods names what it takes: stretch too, not by default', async () => {
    const r = await runCli('evaluate', '--character', CESIUM_MAN, '--methods', 'lbs,nope');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--methods: nope is not one of lbs, dqs, sbs, lms, cor, ddm, dm, templates, stretch');
  });
});

describe('empty name lists', () => {
  it('evaluate --methods "" is a usage error that says what it expects', async () => {
    const r = await runCli('evaluate', '--character', CESIUM_MAN, '--methods', ' , ');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--methods.*expected one or more names, comma-separated/);
  });
});
