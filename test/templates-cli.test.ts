/**
 * `corskin templates build|list` and `deform --method templates`: the template rig stored in the
 * glTF file (validator-clean) deforms exactly as the rig built in memory with the same choices;
 * branching skeletons, bad libraries and unknown templates are clear errors with no output file.
 */
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { skinningMatrices } from '../src/core/pose.js';
import { bendPose, findJoint } from '../src/evaluation/standard-poses.js';
import { readTemplateRig } from '../src/methods/templates/storage.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument, writeDocument } from '../src/io/node-io.js';
import { buildTemplateRig } from '../src/methods/templates/rig.js';
import { setBoneTemplate } from '../src/methods/templates/edit.js';
import { DEFAULT_TEMPLATE_LIBRARY } from '../src/methods/templates/library.js';
import { runCli } from './helpers/cli.js';
import { ARM_GLB, CESIUM_MAN, scratch } from './helpers/data.js';
import { validate } from './helpers/gltf.js';
import { deformationGap, pinchStoredCageRing } from './helpers/templates.js';

const tmp = scratch();
afterAll(() => tmp.cleanup());

describe('corskin templates', () => {
  it('builds the arm’s template cage into the file; the stored rig deforms as the one built in memory', async () => {
    const out = join(tmp.dir, 'arm-templates.glb');
    const r = await runCli('templates', 'build', ARM_GLB, '--template', 'bone1=muscle-bulge', '-o', out);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect((await validate(out)).issues.numErrors).toBe(0);
    const list = await runCli('templates', 'list', out);
    expect(list.stdout).toContain('bone from bone1: muscle-bulge');
    expect(list.stdout).toContain('bone from bone2: radial-bone');
    const doc = await readDocument(out);
    const [model] = extractSkinnedModels(doc, out);
    const stored = readTemplateRig(doc, model, out)!;
    const fresh = buildTemplateRig(model.mesh, model.skeleton);
    setBoneTemplate(fresh, fresh.limbs[0].chain[1], 'muscle-bulge');
    const S = skinningMatrices(
      model.skeleton,
      bendPose(model.skeleton, findJoint(model.skeleton, 'bone2'), [0, 0, 1], Math.PI / 2),
    );
    expect(deformationGap(stored, fresh, model.mesh, S)).toBeLessThan(1e-5); // the cage is stored as 32-bit floats
    const posed = await runCli(
      'deform',
      out,
      '--method',
      'templates',
      '--template',
      'bone1=inverse-bulge',
      '-o',
      join(tmp.dir, 'posed.glb'),
    );
    expect([posed.code, posed.stderr]).toEqual([0, '']);
  });

  it('precompute --method templates stores the rig templates build stores; bake of that file plays without the cage; bad choices name the joint', async () => {
    const built = join(tmp.dir, 'cm-built.glb');
    const stored = join(tmp.dir, 'cm-precomputed.glb');
    expect((await runCli('templates', 'build', CESIUM_MAN, '-o', built)).code).toBe(0);
    const p = await runCli('precompute', CESIUM_MAN, '--method', 'templates', '-o', stored);
    expect([p.code, p.stderr]).toEqual([0, '']);
    const rigOf = async (f: string) => {
      const d = await readDocument(f);
      return readTemplateRig(d, extractSkinnedModels(d, f)[0], f)!;
    };
    const [a, b] = [await rigOf(built), await rigOf(stored)];
    expect(b.cage.positions).toEqual(a.cage.positions);
    expect(b.binding.weights).toEqual(a.binding.weights);
    // The file's rig is read: no "computing it" note.
    const posed = await runCli(
      'deform',
      stored,
      '--method',
      'templates',
      '--time',
      '0.5',
      '-o',
      join(tmp.dir, 'cm-posed.glb'),
    );
    expect([posed.code, posed.stderr]).toEqual([0, '']);
    // evaluate says what it prepared first (the stored rig), then the table, then its legend.
    const e = await runCli('evaluate', '--character', stored, '--methods', 'dqs,templates');
    expect(e.code, e.stderr).toBe(0);
    const lines = e.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^Templates: .+: template cages of \d+ vertices .+ \(stored in the file\)$/);
    expect(lines.findIndex((l) => /^poses\s+method/.test(l))).toBeGreaterThan(0);
    expect(lines.at(-1)).toMatch(/^poses: the stress pose/);
    // A bake is for engines: no corskin cage node, no binding attributes left in it.
    const baked = join(tmp.dir, 'cm-baked.glb');
    const r = await runCli('bake', stored, '--method', 'templates', '--as', 'morphs', '-o', baked);
    expect(r.code, r.stderr).toBe(0);
    const doc = await readDocument(baked);
    expect(
      doc
        .getRoot()
        .listNodes()
        .filter((n) => n.getExtras().corskinCage),
    ).toEqual([]);
    const semantics = doc
      .getRoot()
      .listMeshes()
      .flatMap((m) => m.listPrimitives().flatMap((q) => q.listSemantics()));
    expect(semantics.filter((x) => x.startsWith('_CAGE_'))).toEqual([]);
    expect((await validate(baked)).issues.numErrors).toBe(0);
    // Choices: a joint template where a limb starts, and a joint given twice, are errors naming the joint.
    const first = extractSkinnedModels(doc, baked)[0].skeleton.jointNames[b.limbs[0].chain[0]];
    // (A joint given twice is bad usage whatever the file: exit 2, before the file is read.)
    for (const [choice, message, code] of [
      [`${first}=radial-joint`, `"${first}" starts its limb`, 1],
      [`${first}=radial-bone,${first}=muscle-bulge`, `"${first}" is given twice`, 2],
    ] as const) {
      const out = join(tmp.dir, 'cm-choice.glb');
      const bad = await runCli('deform', stored, '--method', 'templates', '--template', choice, '-o', out);
      expect(bad.code).toBe(code);
      expect(bad.stderr).toContain(message);
      expect(existsSync(out)).toBe(false);
    }
  }, 540_000);

  it("--trunk reaches the build (CesiumMan: a fifth limb, the trunk, with the chest's 4-bone template); an unknown option is a usage error", async () => {
    const out = join(tmp.dir, 'cesium-trunk.glb');
    const r = await runCli('templates', 'build', CESIUM_MAN, '--trunk', '-o', out);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const doc = await readDocument(out);
    const [model] = extractSkinnedModels(doc, out);
    const stored = readTemplateRig(doc, model, out)!;
    const fresh = (trunk: boolean) => buildTemplateRig(model.mesh, model.skeleton, undefined, { trunk });
    expect(stored.limbs.length).toBe(fresh(true).limbs.length);
    expect(stored.limbs.length).toBe(fresh(false).limbs.length + 1);
    const bad = await runCli('templates', 'build', CESIUM_MAN, '--rings', 'fitted', '-o', join(tmp.dir, 'bad.glb'));
    expect(bad.code).toBe(2); // a usage error
    expect(existsSync(join(tmp.dir, 'bad.glb'))).toBe(false);
  });

  it('built again on its own output (templates build, precompute, bind-cage), a file keeps no earlier cage data: the same size, no unused accessor', async () => {
    const files = [join(tmp.dir, 'again-0.glb')];
    expect((await runCli('templates', 'build', CESIUM_MAN, '-o', files[0])).code).toBe(0);
    const steps = [
      ['templates', 'build'],
      ['precompute', '--method', 'templates'],
      ['templates', 'build'],
    ];
    for (const [k, step] of steps.entries()) {
      files.push(join(tmp.dir, `again-${k + 1}.glb`));
      const r = await runCli(step[0], ...step.slice(1), files[k], '-o', files[k + 1]);
      expect(r.code, r.stderr).toBe(0);
    }
    const sizes = files.map((f) => statSync(f).size);
    expect(new Set(sizes).size, sizes.join(', ')).toBe(1); // 1.9 MB more per build before
    for (const f of files) {
      const report = await validate(f);
      expect(
        report.issues.messages.filter((m) => m.code === 'UNUSED_OBJECT'),
        f,
      ).toEqual([]);
    }
  });

  it('a stored cage edited so that skin lies outside it: templates list and deform warn, naming how many', async () => {
    const built = join(tmp.dir, 'arm-edit.glb');
    expect((await runCli('templates', 'build', ARM_GLB, '-o', built)).code).toBe(0);
    // Another tool pinches a ring of the upper arm's bone template 95% of the way to the bone.
    const doc = await readDocument(built);
    pinchStoredCageRing(doc, built, 1, 0.95);
    const edited = join(tmp.dir, 'arm-edited.glb');
    await writeDocument(doc, edited);
    const list = await runCli('templates', 'list', edited);
    expect(list.code).toBe(0);
    expect(list.stderr).toMatch(
      /warning: .*arm-edited\.glb: .*: \d+ skin vertices lie outside the stored template cage \(first: \d+/,
    );
    const posed = await runCli('deform', edited, '--method', 'templates', '-o', join(tmp.dir, 'posed-edited.glb'));
    expect(posed.code).toBe(0);
    expect(posed.stderr).toMatch(/skin vertices lie outside the stored template cage/);
    // The file as built: no warning.
    expect((await runCli('templates', 'list', built)).stderr).toBe('');
  });

  const bad: [string, string[], RegExp][] = [
    ['an unknown template', [ARM_GLB, '--template', 'bone1=biceps'], /no template "biceps"/],
    [
      'a joint that starts no template bone',
      [ARM_GLB, '--template', 'elbow=muscle-bulge'],
      /no template bone starts at "elbow"/,
    ],
    [
      'a bad library',
      [ARM_GLB, '--library', 'LIB'],
      /lib\.json: template library: templates\[0\]\.keyPoses\[0\] must be the rest/,
    ],
  ];
  it.each(bad)('%s: a clear message, exit code 1, no output file', async (_name, args, message) => {
    const lib = join(tmp.dir, 'lib.json');
    const broken = JSON.parse(JSON.stringify(DEFAULT_TEMPLATE_LIBRARY));
    broken.templates[0].keyPoses[0].bulge = 0.5;
    writeFileSync(lib, JSON.stringify(broken));
    const out = join(tmp.dir, 'bad.glb');
    const r = await runCli('templates', 'build', ...args.map((a) => (a === 'LIB' ? lib : a)), '-o', out);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(existsSync(out)).toBe(false);
  });
});
