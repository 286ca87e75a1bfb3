/**
 * Inputs are never overwritten, outputs never leak outside their folder, resources are read
 * only where the user pointed: `.gltf` outputs get resource names of their own, symbolic links
 * are resolved, absolute and `file:` URIs and paths leaving the input's folder are refused.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIO } from '../src/io/node-io.js';
import { runCli } from './helpers/cli.js';
import { CESIUM_MAN, scratch, SHARED } from './helpers/data.js';

const tmp = scratch();
afterAll(tmp.cleanup);
const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');

describe('.gltf with external resources', () => {
  let input: string;
  let before: Record<string, string>;
  beforeAll(async () => {
    // The Shiba Inu as .gltf + .bin + textures (its own data-URI buffer written out).
    const io = await createIO();
    const doc = await io.read(join(SHARED, 'characters/ShibaInu.gltf'));
    input = join(tmp.dir, 'A.gltf');
    const { json, resources } = await io.writeJSON(doc, { basename: 'A' });
    for (const [uri, data] of Object.entries(resources)) writeFileSync(join(tmp.dir, uri), data);
    writeFileSync(input, JSON.stringify(json));
    before = Object.fromEntries(readdirSync(tmp.dir).map((f) => [f, sha(join(tmp.dir, f))]));
  });

  it.each([
    ['precompute', []],
    ['deform', ['--method', 'dqs', '--time', '0.3']],
  ])('%s A.gltf -o C.gltf writes C.bin and leaves A.gltf and A.bin byte-identical', async (command, args) => {
    const out = join(tmp.dir, `C-${command}.gltf`);
    const r = await runCli(command, input, ...args, '-o', out);
    expect(r.stderr).not.toContain('error');
    expect(r.code).toBe(0);
    expect(existsSync(join(tmp.dir, `C-${command}.bin`))).toBe(true);
    for (const [f, h] of Object.entries(before)) expect(sha(join(tmp.dir, f)), f).toBe(h);
    const json = JSON.parse(readFileSync(out, 'utf8'));
    for (const b of json.buffers) expect(b.uri.startsWith(`C-${command}`)).toBe(true);
  });

  it('refuses an output whose resource would overwrite the input’s (A.gltf -o A-copy.gltf is fine, -o A.gltf is not)', async () => {
    const r = await runCli('precompute', input, '-o', join(tmp.dir, 'A.gltf'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('would overwrite');
    for (const [f, h] of Object.entries(before)) expect(sha(join(tmp.dir, f)), f).toBe(h);
  });

  it('refuses a symbolic link to the input as the output', async () => {
    const copy = join(tmp.dir, 'in.glb');
    writeFileSync(copy, readFileSync(CESIUM_MAN));
    const link = join(tmp.dir, 'link.glb');
    symlinkSync(copy, link);
    const h = sha(copy);
    const r = await runCli('precompute', link, '-o', copy);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('would overwrite the input');
    expect(sha(copy)).toBe(h);
  });

  it('refuses a non-glTF output name before computing', async () => {
    const r = await runCli('precompute', input, '-o', join(tmp.dir, 'out.txt'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('.glb or .gltf');
    expect(existsSync(join(tmp.dir, 'out.txt'))).toBe(false);
  });

  it.each([
    ['an absolute path', '/etc/hostname', 'only paths relative to the file'],
    ['a file: URI', 'file:///etc/hostname', 'only paths relative to the file'],
    ['a path outside the folder', '../../x.bin', 'outside the file'],
    ['a malformed escape', '%E0%A4%A.bin', 'malformed uri'],
  ])('refuses a resource given by %s', async (_what, uri, message) => {
    const json = JSON.parse(readFileSync(input, 'utf8'));
    json.images = [{ uri }];
    const bad = join(tmp.dir, `bad-${uri.length}.gltf`);
    writeFileSync(bad, JSON.stringify(json));
    const out = join(tmp.dir, 'never.glb');
    const r = await runCli('precompute', bad, '-o', out);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain(bad);
    expect(existsSync(out)).toBe(false);
  });
});

/** CesiumMan with its GLB JSON chunk edited (the BIN chunk kept). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an arbitrary glTF JSON
function mutatedGlb(name: string, edit: (json: Record<string, any>) => void): string {
  const bytes = readFileSync(CESIUM_MAN);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const jsonLength = view.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + jsonLength)));
  edit(json);
  const bin = bytes.subarray(20 + jsonLength);
  let text = JSON.stringify(json);
  while (text.length % 4) text += ' ';
  const head = new Uint8Array(20);
  const hv = new DataView(head.buffer);
  hv.setUint32(0, 0x46546c67, true);
  hv.setUint32(4, 2, true);
  hv.setUint32(8, 20 + text.length + bin.length, true);
  hv.setUint32(12, text.length, true);
  hv.setUint32(16, 0x4e4f534a, true);
  const out = join(tmp.dir, `${name}.glb`);
  writeFileSync(out, Buffer.concat([head, Buffer.from(text), bin]));
  return out;
}

describe('malformed glTF JSON is a clear error before any work (exit 1, no output)', () => {
  /* eslint-disable @typescript-eslint/no-explicit-any */
  it.each([
    ['a node cycle through a non-joint node', (j: any) => j.nodes[0].children.push(0), 'cycle'],
    [
      'a sparse count of 2^31',
      (j: any) =>
        (j.accessors[0].sparse = {
          count: 2 ** 31,
          indices: { bufferView: 0, componentType: 5125 },
          values: { bufferView: 0 },
        }),
      'sparse count',
    ],
    ['a skinned mesh with no primitives', (j: any) => (j.meshes[0].primitives = []), 'has no primitives'],
    [
      'a 4-number translation',
      (j: any) => (j.nodes[1].translation = [0, 0, 0, 0]),
      'translation must be 3 finite numbers',
    ],
    ['translation: 1.5', (j: any) => (j.nodes[1].translation = 1.5), 'translation must be 3 finite numbers'],
    ['inverseBindMatrices: 99', (j: any) => (j.skins[0].inverseBindMatrices = 99), 'inverseBindMatrices accessor 99'],
    ['an accessor one element too long', (j: any) => (j.accessors[0].count += 100000), 'needs'],
    ['a sampler without input', (j: any) => delete j.animations[0].samplers[0].input, 'sampler 0 has no valid input'],
    ['a joint named twice', (j: any) => j.skins[0].joints.push(j.skins[0].joints[0]), 'names a joint twice'],
  ])('%s', async (name, edit, message) => {
    const input = mutatedGlb(name.replace(/\W+/g, '-'), edit);
    const out = join(tmp.dir, 'never.glb');
    const r = await runCli('precompute', input, '-o', out);
    expect(r.stderr).toContain(input);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toContain('internal error');
    expect(r.code).toBe(1);
    expect(existsSync(out)).toBe(false);
  });
  /* eslint-enable @typescript-eslint/no-explicit-any */
});

describe('corskin precompute killed by SIGINT or SIGTERM', () => {
  it('leaves no temporary file, and either no output or a complete one, whenever the signal comes', async () => {
    const { spawn } = await import('node:child_process');
    const { ROOT } = await import('./helpers/data.js');
    const { convertLibigl } = await import('./helpers/convert.js');
    const input = await convertLibigl(tmp.dir, 'armadillo'); // a 4 MB output: the write takes a while
    const outcomes = new Set<string>();
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      // From before start-up installs the handler (default action) to after the write.
      for (const delay of [10, 150, 300, 450, 600, 800, 1000, 1500]) {
        const out = join(tmp.dir, `killed-${signal}-${delay}.glb`);
        const child = spawn(process.execPath, [join(ROOT, 'bin/corskin.js'), 'precompute', input, '-o', out], {
          stdio: 'ignore',
        });
        const timer = setTimeout(() => child.kill(signal), delay);
        const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
        clearTimeout(timer);
        expect(
          readdirSync(tmp.dir).filter((f) => f.endsWith('.tmp')),
          `${signal} after ${delay} ms: ${readdirSync(tmp.dir).join(' ')}`,
        ).toEqual([]);
        if (existsSync(out)) {
          expect((await (await createIO()).read(out)).getRoot().listMeshes().length).toBe(1);
          outcomes.add('complete');
        } else {
          // Killed by our handler (128 + signal), or by the signal itself before start-up
          // installed the handler (no code): either way nothing was left.
          expect([signal === 'SIGINT' ? 130 : 143, null]).toContain(code);
          outcomes.add('none');
        }
      }
    }
    expect(outcomes.has('none')).toBe(true); // some runs were interrupted
  }, 360_000);
});

describe('libigl inputs', () => {
  const write = (name: string, text: string | Buffer) => {
    const p = join(tmp.dir, name);
    writeFileSync(p, text);
    return p;
  };
  const obj = (body: string) => write(`m${body.length}.obj`, body);

  it('reads tab-separated OBJ lines (the faces do not shift)', async () => {
    const { readObj } = await import('../src/io/libigl.js');
    const m = await readObj(obj('v\t0 0 0\nv 1\t0 0\nv 0 1 0\nv 0 0 1\nf\t1 2 3\nf 1 3 4\n'));
    expect(Array.from(m.triangles)).toEqual([0, 1, 2, 0, 2, 3]);
  });

  it.each([
    ['1.9', 'f 1.9 2 3'],
    ['1abc', 'f 1abc 2 3'],
    ['0x10', 'f 0x10 2 3'],
  ])('refuses the face index %s', async (token, face) => {
    const { readObj } = await import('../src/io/libigl.js');
    await expect(readObj(obj(`v 0 0 0\nv 1 0 0\nv 0 1 0\n${face}\n`))).rejects.toThrow(`face index "${token}"`);
  });

  it('refuses a vertex beyond the 32-bit float range', async () => {
    const { readObj } = await import('../src/io/libigl.js');
    await expect(readObj(obj('v 1e39 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n'))).rejects.toThrow('invalid vertex');
  });

  it('refuses cyclic TGF bones and a joint ending two bones', async () => {
    const { readTgf } = await import('../src/io/libigl.js');
    await expect(readTgf(write('cycle.tgf', '1 0 0 0\n2 1 0 0\n#\n1 2\n2 1\n#\n'))).rejects.toThrow(
      /ends two bones|cycle/,
    );
    await expect(readTgf(write('loop.tgf', '1 0 0 0\n2 1 0 0\n3 2 0 0\n#\n1 2\n2 3\n3 1\n#\n'))).rejects.toThrow(
      /ends two bones|cycle/,
    );
  });

  it('refuses a DMAT without data after its header, and non-finite binary values', async () => {
    const { readDmat } = await import('../src/io/libigl.js');
    await expect(readDmat(write('nonl.dmat', '2 2'))).rejects.toThrow('no data after');
    const bin = Buffer.alloc(8 * 2);
    bin.writeDoubleLE(1, 0);
    bin.writeDoubleLE(Infinity, 8);
    await expect(readDmat(write('inf.dmat', Buffer.concat([Buffer.from('0 0\n1 2\n'), bin])))).rejects.toThrow(
      'not a finite number',
    );
  });

  it('converts two weights of 1e308 into a 50/50 split (no overflow to zero)', async () => {
    const mesh = obj('v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n');
    const weights = write('huge.dmat', '2 3\n1e308 1e308 1\n1e308 1e308 0\n');
    const out = join(tmp.dir, 'huge.glb');
    const r = await runCli('convert', mesh, '--weights', weights, '-o', out);
    expect(r.code).toBe(0);
    const doc = await (await createIO()).read(out);
    const w = doc.getRoot().listMeshes()[0].listPrimitives()[0].getAttribute('WEIGHTS_0')!;
    expect(Array.from(w.getElement(0, [])).slice(0, 2)).toEqual([0.5, 0.5]);
  });
});

describe('corskin add-twist-joints', () => {
  it('refuses a joint named twice, and a skin without inverse bind matrices (no NaN weights)', async () => {
    const out = join(tmp.dir, 'twist.glb');
    const twice = await runCli(
      'add-twist-joints',
      CESIUM_MAN,
      '--joints',
      'Skeleton_arm_joint_L__3_,Skeleton_arm_joint_L__3_',
      '-o',
      out,
    );
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('named twice');
    const noIbm = mutatedGlb('no-ibm', (j) => delete j.skins[0].inverseBindMatrices);
    const r = await runCli('add-twist-joints', noIbm, '--joints', 'Skeleton_arm_joint_L__3_', '-o', out);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('coincide in the bind pose');
    expect(existsSync(out)).toBe(false);
  });

  it('does not trust a negative σ recorded in the file (the CoRs are recomputed with the defaults)', async () => {
    const withCor = join(tmp.dir, 'with-cor.glb');
    expect((await runCli('precompute', CESIUM_MAN, '-o', withCor)).code).toBe(0);
    const doc = await (await createIO()).read(withCor);
    for (const p of doc.getRoot().listMeshes()[0].listPrimitives())
      p.setExtras({ corskin: { sigma: -1, epsilon: 0.1 } });
    const bad = join(tmp.dir, 'bad-sigma.glb');
    await (await createIO()).write(bad, doc);
    const out = join(tmp.dir, 'twisted.glb');
    const r = await runCli('add-twist-joints', bad, '--joints', 'Skeleton_arm_joint_L__3_', '-o', out);
    expect(r.stderr).not.toContain('internal error');
    expect(r.code).toBe(0);
  });
});

describe('corskin render: bad requests fail fast and clearly (no browser started for a bad file)', () => {
  it.each([
    [['--size', '0x0'], '16 to 8192'],
    [['--size', '100000x100000'], '16 to 8192'],
    [['--joint', 'nope'], 'no joint named "nope"'],
    [['--paint', 'nope'], '--paint: no joint named "nope"'],
    [['--animation', 'nope'], 'no animation "nope"'],
    [['--time', '99'], 'past the end'],
    [['--method', 'templates', '--template', 'garbage'], '"garbage" is not JOINT=ID'],
    [['--method', 'templates', '--template', 'foo=bulge-joint'], 'no template bone starts at "foo"'],
    [['--template', 'leg_joint_L_2=nosuch'], 'no template "nosuch"'],
  ])('%j', async (args, message) => {
    const out = join(tmp.dir, 'r.png');
    const r = await runCli('render', CESIUM_MAN, ...args, '-o', out);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(message);
    expect(existsSync(out)).toBe(false);
  });

  it('refuses -o r.jpg and an output folder; a text file is a clear error', async () => {
    expect((await runCli('render', CESIUM_MAN, '-o', join(tmp.dir, 'r.jpg'))).stderr).toContain('must end in .png');
    expect((await runCli('render', CESIUM_MAN, '-o', tmp.dir)).stderr).toContain('must end in .png');
    const text = join(tmp.dir, 'notes.glb');
    writeFileSync(text, 'hello');
    const r = await runCli('render', text, '-o', join(tmp.dir, 'n.png'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${text}: not a glTF file`);
  });

  it('a Chromium that does not start: a clear error, and the process exits (nothing left serving the viewer)', async () => {
    const { spawn } = await import('node:child_process');
    const { ROOT } = await import('./helpers/data.js');
    const out = join(tmp.dir, 'never.png');
    const child = spawn(process.execPath, [join(ROOT, 'bin/corskin.js'), 'render', CESIUM_MAN, '-o', out], {
      env: { ...process.env, CORSKIN_CHROMIUM: '/bin/false' },
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    clearTimeout(killer);
    expect(code, stderr).toBe(1); // not killed (null)
    expect(stderr).toContain('Chromium (/bin/false) did not start');
    expect(stderr).not.toContain('internal error');
    expect(existsSync(out)).toBe(false);
  }, 180_000);

  it('a closed stdout (`bake … -o out.glb | head -1`) stops the printing, not the command: the file is written, exit 0', async () => {
    const { spawn } = await import('node:child_process');
    const { ROOT } = await import('./helpers/data.js');
    const out = join(tmp.dir, 'piped.glb');
    const args = ['bake', CESIUM_MAN, '--method', 'dqs', '--as', 'morphs', '--rate', '5', '-o', out];
    const child = spawn(process.execPath, [join(ROOT, 'bin/corskin.js'), ...args]);
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    // As `head -1` does: read the first line, then close the pipe.
    child.stdout.once('data', () => child.stdout.destroy());
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    clearTimeout(killer);
    expect(code, stderr).toBe(0);
    expect(stderr).not.toContain('internal error');
    expect(existsSync(out)).toBe(true);
    expect(readdirSync(tmp.dir).filter((f) => f.includes('piped.glb.') && f.endsWith('.tmp'))).toEqual([]);
  }, 270_000);

  it('a closed stderr (`bake … 2>&1 | head -3`) stops the warnings, not the command: the file is written, exit 0', async () => {
    const { spawn } = await import('node:child_process');
    const { ROOT } = await import('./helpers/data.js');
    const out = join(tmp.dir, 'piped-err.glb');
    // --refine with --as morphs: a warning on stderr, for certain, before the bake.
    const args = ['bake', CESIUM_MAN, '--method', 'dqs', '--as', 'morphs', '--rate', '5', '--refine', '1', '-o', out];
    const child = spawn(process.execPath, [join(ROOT, 'bin/corskin.js'), ...args]);
    child.stderr.destroy();
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    clearTimeout(killer);
    expect(code).toBe(0);
    expect(existsSync(out)).toBe(true);
    expect(readdirSync(tmp.dir).filter((f) => f.includes('piped-err.glb.') && f.endsWith('.tmp'))).toEqual([]);
  }, 270_000);

  it('--twist or --bend without --joint, and a malformed --size, are bad usage (exit 2)', async () => {
    for (const args of [
      ['--twist', '30'],
      ['--bend', '40'],
      ['--size', '10x'],
      ['--size', '0x100'],
    ]) {
      const r = await runCli('render', CESIUM_MAN, ...args, '-o', join(tmp.dir, 'u.png'));
      expect(r.code, args.join(' ')).toBe(2);
    }
  });

  it('refuses a CORSKIN_CHROMIUM that does not exist instead of replacing it', async () => {
    const saved = process.env.CORSKIN_CHROMIUM;
    process.env.CORSKIN_CHROMIUM = '/nonexistent/chromium';
    try {
      const r = await runCli('render', CESIUM_MAN, '-o', join(tmp.dir, 'c.png'));
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('CORSKIN_CHROMIUM names /nonexistent/chromium');
    } finally {
      if (saved === undefined) delete process.env.CORSKIN_CHROMIUM;
      else process.env.CORSKIN_CHROMIUM = saved;
    }
  });
});

/** CesiumMan edited through glTF-Transform (accessor data, animations), written as a GLB. */
async function edited(name: string, edit: (doc: import('@gltf-transform/core').Document) => void): Promise<string> {
  const io = await createIO();
  const doc = await io.read(CESIUM_MAN);
  edit(doc);
  const out = join(tmp.dir, `${name}.glb`);
  await io.write(out, doc);
  return out;
}

describe('degenerate numbers: a finite result or a clear error, never garbage or a crash', () => {
  const firstRotation = (doc: import('@gltf-transform/core').Document) =>
    doc
      .getRoot()
      .listAnimations()[0]
      .listChannels()
      .find((c) => c.getTargetPath() === 'rotation')!
      .getSampler()!;

  it.each(['dqs', 'cor', 'sbs', 'lms'])('%s: a joint scaled to zero deforms without overflow', async (method) => {
    const input = await edited('zero-scale', (doc) => doc.getRoot().listSkins()[0].listJoints()[5].setScale([0, 0, 0]));
    const out = join(tmp.dir, `zero-scale-${method}.glb`);
    const r = await runCli('deform', input, '--method', method, '-o', out);
    expect(r.stderr).not.toContain('internal error');
    expect(r.code).toBe(0);
    const p = (await (await createIO()).read(out))
      .getRoot()
      .listMeshes()[0]
      .listPrimitives()[0]
      .getAttribute('POSITION')!;
    expect(Array.from(p.getArray()!).every(Number.isFinite)).toBe(true);
  });

  it.each([
    [
      'NaN in an inverse bind matrix',
      (doc: import('@gltf-transform/core').Document) =>
        doc.getRoot().listSkins()[0].getInverseBindMatrices()!.setElement(2, new Array(16).fill(NaN)),
      'is not finite',
    ],
    // An independent check: with every inverse bind matrix zero, deform put every vertex at the
    // origin and exited 0 (the Khronos validator: ACCESSOR_INVALID_IBM).
    [
      'a singular (all-zero) inverse bind matrix',
      (doc: import('@gltf-transform/core').Document) =>
        doc.getRoot().listSkins()[0].getInverseBindMatrices()!.setElement(7, new Array(16).fill(0)),
      'is singular',
    ],
    [
      'a singular (rank-2) inverse bind matrix',
      (doc: import('@gltf-transform/core').Document) =>
        doc
          .getRoot()
          .listSkins()[0]
          .getInverseBindMatrices()!
          .setElement(3, [1, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1]),
      'is singular',
    ],
    [
      'a sampler output shorter than its input',
      (doc: import('@gltf-transform/core').Document) => {
        const s = firstRotation(doc);
        s.setOutput(
          doc
            .createAccessor()
            .setType('VEC4')
            .setArray(s.getOutput()!.getArray()!.slice(0, 8) as Float32Array)
            .setBuffer(doc.getRoot().listBuffers()[0]),
        );
      },
      'output values',
    ],
    [
      'CUBICSPLINE on a LINEAR-sized output',
      (doc: import('@gltf-transform/core').Document) => firstRotation(doc).setInterpolation('CUBICSPLINE'),
      'CUBICSPLINE needs',
    ],
    [
      'a NaN rotation key',
      (doc: import('@gltf-transform/core').Document) => firstRotation(doc).getOutput()!.setElement(1, [NaN, 0, 0, 1]),
      'is not finite',
    ],
    [
      'an all-zero rotation key',
      (doc: import('@gltf-transform/core').Document) => firstRotation(doc).getOutput()!.setElement(1, [0, 0, 0, 0]),
      'is zero',
    ],
    [
      'an all-zero CUBICSPLINE rotation key value (its tangents are not checked: flat is valid)',
      (doc: import('@gltf-transform/core').Document) => {
        const s = firstRotation(doc);
        const keys = s.getOutput()!.getArray()!;
        const cubic = new Float32Array(3 * keys.length); // tangents 0
        for (let k = 0; k < keys.length / 4; k++)
          cubic.set(k === 1 ? [0, 0, 0, 0] : keys.subarray(4 * k, 4 * k + 4), 4 * (3 * k + 1));
        s.setInterpolation('CUBICSPLINE').setOutput(doc.createAccessor().setType('VEC4').setArray(cubic).setBuffer(doc.getRoot().listBuffers()[0])); // prettier-ignore
      },
      'rotation key 1 is zero',
    ],
  ])('%s is refused by name', async (name, edit, message) => {
    const input = await edited(name.replace(/\W+/g, '-'), edit);
    const out = join(tmp.dir, 'never.glb');
    const r = await runCli('deform', input, '--method', 'dqs', '--time', '0.5', '-o', out);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(input);
    expect(r.stderr).toContain(message);
    expect(existsSync(out)).toBe(false);
  });

  it('a singular inverse bind matrix of a joint that weights no vertex is a warning (players never read it)', async () => {
    const input = await edited('unweighted-singular', (doc) => {
      const skin = doc.getRoot().listSkins()[0];
      const extra = doc.createNode('unweighted');
      skin.listJoints()[0].addChild(extra);
      skin.addJoint(extra);
      const ibm = skin.getInverseBindMatrices()!;
      const matrices = new Float32Array(16 * (ibm.getCount() + 1));
      matrices.set(ibm.getArray() as Float32Array);
      ibm.setArray(matrices); // the new joint's matrix all zero
    });
    const out = join(tmp.dir, 'unweighted-singular-lbs.glb');
    const r = await runCli('deform', input, '--method', 'lbs', '-o', out);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('the inverse bind matrix of joint(s) "unweighted" is singular; they weight no vertex');
    expect(existsSync(out)).toBe(true);
  });

  it('NaN in _CENTER_OF_ROTATION is refused', async () => {
    const withCor = join(tmp.dir, 'cor-for-nan.glb');
    expect((await runCli('precompute', CESIUM_MAN, '-o', withCor)).code).toBe(0);
    const io = await createIO();
    const doc = await io.read(withCor);
    doc.getRoot().listMeshes()[0].listPrimitives()[0].getAttribute('_CENTER_OF_ROTATION')!.setElement(4, [NaN, 0, 0]);
    const bad = join(tmp.dir, 'nan-cor.glb');
    await io.write(bad, doc);
    const r = await runCli('deform', bad, '--method', 'cor', '-o', join(tmp.dir, 'never2.glb'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('_CENTER_OF_ROTATION of vertex 4 is not finite');
  });
});

describe('progress', () => {
  it('moves through the exact evaluation of a small mesh (not 0% until the end)', async () => {
    const { computeCentersOfRotation } = await import('../src/cor/precompute.js');
    const { extractSkinnedModels } = await import('../src/io/gltf.js');
    const { readDocument } = await import('../src/io/node-io.js');
    const [model] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
    const seen: number[] = [];
    computeCentersOfRotation(model.mesh, { algorithm: 'exact', onProgress: (done, total) => seen.push(done / total) });
    expect(seen.length).toBeGreaterThanOrEqual(50);
    expect(seen[0]).toBeLessThan(0.05);
    expect(seen[seen.length - 1]).toBe(1);
  });
});

describe('a 4,000-deep node hierarchy', () => {
  it('deforms and writes static geometry (no recursion through the tree)', async () => {
    const input = await edited('deep', (doc) => {
      const scene = doc.getRoot().listScenes()[0];
      const tops = scene.listChildren();
      const first = doc.createNode('d0');
      let top = first;
      for (let i = 1; i < 4000; i++) {
        const n = doc.createNode(`d${i}`);
        top.addChild(n);
        top = n;
      }
      for (const c of tops) {
        scene.removeChild(c);
        top.addChild(c);
      }
      scene.addChild(first);
    });
    const out = join(tmp.dir, 'deep-deformed.glb');
    const r = await runCli('deform', input, '--method', 'dqs', '--time', '0.5', '-o', out);
    expect(r.stderr).not.toContain('internal error');
    expect(r.code).toBe(0);
    expect((await (await createIO()).read(out)).getRoot().listNodes().length).toBe(1);
  });
});

describe('more inputs refused or handled by name', () => {
  it('an out-of-range sparse index', async () => {
    const input = mutatedGlb('sparse-range', (j) => {
      const pos = j.meshes[0].primitives[0].attributes.POSITION;
      const view = j.accessors[pos].bufferView;
      j.accessors[0].sparse = {
        count: 1,
        indices: { bufferView: view, componentType: 5125 },
        values: { bufferView: view },
      };
    });
    const r = await runCli('precompute', input, '-o', join(tmp.dir, 'never.glb'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('accessor 0: sparse index');
  });

  it('float joint indices', async () => {
    const input = await edited('float-joints', (doc) => {
      const p = doc.getRoot().listMeshes()[0].listPrimitives()[0];
      const j = p.getAttribute('JOINTS_0')!;
      p.setAttribute(
        'JOINTS_0',
        doc
          .createAccessor()
          .setType('VEC4')
          .setArray(Float32Array.from(j.getArray()!))
          .setBuffer(doc.getRoot().listBuffers()[0]),
      );
    });
    const r = await runCli('precompute', input, '-o', join(tmp.dir, 'never.glb'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('JOINTS_0 must hold unsigned bytes or shorts');
  });

  it('a tiny ε is refused before subdividing, with the estimated size', async () => {
    const r = await runCli('precompute', CESIUM_MAN, '--epsilon', '0.0001', '-o', join(tmp.dir, 'never.glb'));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/would make up to .* sub-triangles .*GB.*--max-subdivided/);
  });

  it('a small job over a small limit is estimated in seconds, not "≈ 1 min"', async () => {
    const r = await runCli('precompute', CESIUM_MAN, '--max-subdivided', '10', '-o', join(tmp.dir, 'never.glb'));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/with the exact algorithm ≈ 1 s and ≈ 0\.0 GB/);
  });

  it('an empty output name writes nothing anywhere', async () => {
    const before = readdirSync(process.cwd()).sort();
    const r = await runCli('precompute', CESIUM_MAN, '-o', '');
    expect(r.code).not.toBe(0);
    expect(readdirSync(process.cwd()).sort()).toEqual(before);
  });

  it('a .gltf with two buffers (valid) becomes a .glb with one', async () => {
    const io = await createIO();
    const doc = await io.read(CESIUM_MAN);
    const second = doc.createBuffer('second');
    doc
      .getRoot()
      .listAccessors()
      .slice(0, 3)
      .forEach((a) => a.setBuffer(second));
    const dir = join(tmp.dir, 'two-buffers');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dir);
    const { json, resources } = await io.writeJSON(doc, { basename: 'two' });
    for (const [uri, data] of Object.entries(resources)) writeFileSync(join(dir, uri), data);
    writeFileSync(join(dir, 'two.gltf'), JSON.stringify(json));
    expect(json.buffers!.length).toBe(2);
    const out = join(dir, 'one.glb');
    const r = await runCli('precompute', join(dir, 'two.gltf'), '-o', out);
    expect(r.stderr).not.toContain('error');
    expect(r.code).toBe(0);
    expect((await io.read(out)).getRoot().listBuffers().length).toBe(1);
  });
});

describe('options that do nothing with the others given say so (and change nothing)', () => {
  it('precompute --method ddm --sigma --epsilon: warned, the same bytes as without them', async () => {
    const [a, b] = [join(tmp.dir, 'ddm-plain.glb'), join(tmp.dir, 'ddm-sigma.glb')];
    const plain = await runCli('precompute', CESIUM_MAN, '--method', 'ddm', '-o', a);
    const given = await runCli('precompute', CESIUM_MAN, '--method', 'ddm', '--sigma', '0.3', '--epsilon', '0.2', '-o', b); // prettier-ignore
    expect([plain.code, given.code]).toEqual([0, 0]);
    expect(plain.stderr).not.toContain('warning');
    expect(given.stderr).toMatch(
      /--sigma applies to the centers of rotation \(--method cor\); ignored with --method ddm/,
    );
    expect(given.stderr).toMatch(/--epsilon applies to the centers of rotation/);
    expect(sha(b)).toBe(sha(a));
  });

  it('templates build --bake-rate and --no-bake-normals without --bake: warned, the same bytes as without them', async () => {
    const [a, b] = [join(tmp.dir, 'tpl-plain.glb'), join(tmp.dir, 'tpl-rate.glb')];
    const plain = await runCli('templates', 'build', CESIUM_MAN, '-o', a);
    const given = await runCli('templates', 'build', CESIUM_MAN, '--bake-rate', '10', '--no-bake-normals', '-o', b);
    expect([plain.code, given.code]).toEqual([0, 0]);
    expect(plain.stderr).not.toContain('warning');
    expect(given.stderr).toMatch(/--bake-rate applies to --bake; ignored without it/);
    expect(given.stderr).toMatch(/--no-bake-normals applies to --bake; ignored without it/);
    expect(sha(b)).toBe(sha(a));
  });

  it('evaluate --benchmark with --character, and --methods without it', async () => {
    const character = await runCli('evaluate', '--character', CESIUM_MAN, '--benchmark', 'arm', '--methods', 'lbs,dqs', '--json'); // prettier-ignore
    expect(character.code).toBe(0);
    expect(character.stderr).toMatch(/--benchmark picks a benchmark; ignored with --character/);
    expect(new Set(JSON.parse(character.stdout).map((r: { method: string }) => r.method))).toEqual(new Set(['lbs', 'dqs'])); // prettier-ignore
    const bench = await runCli('evaluate', '--methods', 'lbs', '--json');
    expect(bench.code).toBe(0);
    expect(bench.stderr).toMatch(/--methods applies to --character .*; ignored/);
    expect(new Set(JSON.parse(bench.stdout).map((r: { method: string }) => r.method)).size).toBeGreaterThan(1);
  });
});
