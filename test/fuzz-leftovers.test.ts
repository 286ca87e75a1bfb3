/**
 * The leftovers of an independent fuzz campaign (issue 28, item 8): inputs that made a command
 * write a file corskin then refuses, raw JavaScript errors that reached the user, an error that
 * named no file, library functions that returned non-finite values silently, `deform --time`
 * posing with an animation that does not move the skin, and a 65,535-joint rig.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Document, NodeIO, type Node } from '@gltf-transform/core';
import { afterAll, describe, expect, it } from 'vitest';
import { samplePose, type AnimationClip } from '../src/core/animation.js';
import { CorskinError } from '../src/core/errors.js';
import { restPose, skinningMatrices } from '../src/core/pose.js';
import { deform } from '../src/deformers/index.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { runCli } from './helpers/cli.js';
import { cylinder } from './helpers/cylinder.js';
import { CESIUM_MAN, LIBIGL, scratch } from './helpers/data.js';

const tmp = scratch();
afterAll(tmp.cleanup);
const path = (name: string) => join(tmp.dir, name);

/** Runs the CLI and expects a refusal: exit 1, `FILE: message` on stderr, no output file. */
async function expectRefusal(args: string[], output: string, file: string, message: string) {
  const r = await runCli(...args);
  expect(r.stderr).not.toContain('internal error');
  expect(r.stderr).toContain(`corskin: error: ${file}: `);
  expect(r.stderr).toContain(message);
  expect(r.code).toBe(1);
  expect(existsSync(output)).toBe(false);
  return r;
}

/** A file of the libigl arm (`.obj`, `-weights.dmat`, `.tgf`). */
const arm = (name: string) => join(LIBIGL, `arm${name}`);

/**
 * A one-frame binary animation DMAT for the arm's 4 bones (identity rotations, zero translations,
 * column-major 4×3 blocks of a 16-row frame), edited by `edit(data, rows)`, written as `name`.
 */
function animationDmat(name: string, edit: (data: Float64Array, rows: number) => void): string {
  const bones = 4;
  const R = 4 * bones;
  const data = new Float64Array(12 * bones);
  for (let j = 0; j < bones; j++) for (let c = 0; c < 3; c++) data[4 * j + c + R * c] = 1;
  edit(data, R);
  const file = path(name);
  writeFileSync(file, Buffer.concat([Buffer.from(`0 0\n1 ${12 * bones}\n`, 'latin1'), Buffer.from(data.buffer)]));
  return file;
}

/** `corskin convert` of the libigl arm with `animation`, to `out`. */
const convertArm = (animation: string, out: string) => [
  'convert',
  arm('.obj'),
  '--weights',
  arm('-weights.dmat'),
  '--skeleton',
  arm('.tgf'),
  '--animation',
  animation,
  '-o',
  out,
];

describe('corskin convert refuses what it would write but not read back', () => {
  it('a binary animation DMAT holding 1e+308 (finite as a double, infinite as float32)', async () => {
    // arm has 4 bones: one frame of 4 identity 4×3 blocks, 48 rows, with one translation 1e308.
    const file = animationDmat('huge-anim.dmat', (data, R) => (data[4 * 2 + 3 + R * 1] = 1e308)); // bone 2, translation y
    const out = path('huge-anim.glb');
    await expectRefusal(
      convertArm(file, out),
      out,
      file,
      'frame 0, bone 2: value 1e+308 is out of the 32-bit float range',
    );
  });

  it('an animation DMAT whose values fit float32 but whose composed joint transform does not', async () => {
    // Bone 3 (a leaf, its base at about (0.60, −0.08, 0.07)): x' = 3e38·(±x ± y ± z) + 3e38 > 3.4e38.
    const file = animationDmat('overflowing-anim.dmat', (data) =>
      [3e38, -3e38, 3e38, 3e38].forEach((x, r) => (data[4 * 3 + r] = x)),
    );
    const out = path('overflowing-anim.glb');
    await expectRefusal(
      convertArm(file, out),
      out,
      file,
      'frame 0: the translation of "bone3" is out of the 32-bit float range (±3.4e38) glTF stores; nothing written',
    );
  });

  it('an OBJ with one vertex and no faces: no triangles', async () => {
    const obj = path('one-vertex.obj');
    writeFileSync(obj, 'v 0 0 0\n');
    const weights = path('one-vertex.dmat');
    writeFileSync(weights, '1 1\n1\n');
    const out = path('one-vertex.glb');
    await expectRefusal(
      ['convert', obj, '--weights', weights, '-o', out],
      out,
      obj,
      'no triangles: 1 vertex but no "f" (face) line',
    );
  });

  it('a TGF joint beyond the float32 range', async () => {
    const tgf = path('far.tgf');
    const lines = readFileSync(arm('.tgf'), 'utf8').split('\n');
    lines[0] = '1 1e39 0 0';
    writeFileSync(tgf, lines.join('\n'));
    const out = path('far.glb');
    await expectRefusal(
      ['convert', arm('.obj'), '--weights', arm('-weights.dmat'), '--skeleton', tgf, '-o', out],
      out,
      tgf,
      'line 1: joint coordinate out of the 32-bit float range',
    );
  });
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an arbitrary, malformed glTF JSON
type Json = Record<string, any>;

/** CesiumMan's GLB with its JSON edited; `bin` replaces the BIN chunk (null: none). */
function editedGlb(name: string, edit: (json: Json) => void, bin?: Uint8Array | null): string {
  const bytes = readFileSync(CESIUM_MAN);
  const jsonLength = bytes.readUInt32LE(12);
  const json = JSON.parse(bytes.subarray(20, 20 + jsonLength).toString('utf8')) as Json;
  const at = 20 + jsonLength;
  const original = bytes.subarray(at + 8, at + 8 + bytes.readUInt32LE(at));
  edit(json);
  const pad = (b: Buffer, fill: number) => Buffer.concat([b, Buffer.alloc((4 - (b.length % 4)) % 4, fill)]);
  const chunk = (type: number, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32LE(data.length, 0);
    head.writeUInt32LE(type, 4);
    return Buffer.concat([head, data]);
  };
  const binary = bin === null ? undefined : Buffer.from(bin ?? original);
  const body = Buffer.concat([
    chunk(0x4e4f534a, pad(Buffer.from(JSON.stringify(json)), 0x20)),
    ...(binary ? [chunk(0x004e4942, pad(binary, 0))] : []),
  ]);
  const header = Buffer.alloc(12);
  header.write('glTF', 0, 'latin1');
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(12 + body.length, 8);
  const file = path(`${name}.glb`);
  writeFileSync(file, Buffer.concat([header, body]));
  return file;
}

describe('malformed glTF: a message naming the file and what is wrong, not a JavaScript error', () => {
  it.each<[string, (json: Json) => void, string, (Uint8Array | null)?]>([
    // was: Cannot read properties of undefined (reading 'getParentNode')
    [
      'a scene naming a node out of range',
      (j) => (j.scenes[0].nodes = [25]),
      'scene 0 names node 25, but the file has 22 nodes',
    ],
    // was: Cannot read properties of undefined (reading 'version')
    ['no asset', (j) => delete j.asset, 'no asset object (glTF 2.0 requires asset.version)'],
    ['glTF 1.0', (j) => (j.asset.version = '1.0'), 'asset.version is "1.0": only glTF 2.0 files are read'],
    // was: sceneDefs.map is not a function
    ['scenes not an array', (j) => (j.scenes = { 0: { nodes: [0] } }), '"scenes" is not an array'],
    // was: Cannot read properties of undefined (reading 'path')
    [
      'an animation channel without a target',
      (j) => delete j.animations[0].channels[3].target,
      'animation 0, channel 3 has no target (glTF requires target.path)',
    ],
    // was: Invalid typed array length: 0
    [
      'a malformed data URI buffer',
      (j) => (j.buffers[0].uri = 'data:application/octet-stream;base64,'),
      'buffer 0 declares 637192 bytes, its data URI holds 0',
      null,
    ],
    // was: Cannot resolve external buffers with binaryToJSON()
    [
      'an external buffer that is not there',
      (j) => j.buffers.push({ uri: 'missing.bin', byteLength: 4 }),
      'buffer 1 refers to "missing.bin", which cannot be read (no such file)',
    ],
    // Accepted silently before: the mesh lost its index buffer, the default scene did not exist.
    [
      'primitive indices out of range',
      (j) => (j.meshes[0].primitives[0].indices = 999),
      'mesh 0, primitive 0 (indices) names accessor 999, but the file has 83 accessors',
    ],
    [
      'a default scene out of range',
      (j) => (j.scene = 3),
      'the default scene ("scene") names scene 3, but the file has 1 scene',
    ],
    ['a node that is null', (j) => j.nodes.push(null), 'node 22 is not an object'],
  ])('%s', async (name, edit, message, bin) => {
    const input = editedGlb(name.replace(/\W+/g, '-'), edit, bin);
    for (const command of [['info'], ['deform', '--method', 'lbs', '-o', path(`${name}.out.glb`)]]) {
      const out = path(`${name}.out.glb`);
      await expectRefusal([command[0], input, ...command.slice(1)], out, input, message);
    }
  });

  it('an external buffer beside a .glb that is there is read', async () => {
    writeFileSync(path('extra.bin'), Buffer.from([1, 2, 3, 4]));
    const input = editedGlb('external-present', (j) => j.buffers.push({ uri: 'extra.bin', byteLength: 4 }));
    const r = await runCli('info', input);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('3273 vertices');
  });
});

describe('corskin weights with a singular inverse bind matrix', () => {
  it('names the file (and the joint)', async () => {
    const io = new NodeIO();
    const doc = await io.read(CESIUM_MAN);
    doc.getRoot().listSkins()[0].getInverseBindMatrices()!.setElement(3, new Array(16).fill(0));
    const input = path('singular-ibm.glb');
    writeFileSync(input, await io.writeBinary(doc));
    const out = path('singular-ibm-weights.glb');
    await expectRefusal(
      ['weights', input, '-o', out],
      out,
      input,
      'the inverse bind matrix of joint "Skeleton_neck_joint_1" is singular',
    );
  });
});

describe('skinningMatrices and deform throw instead of returning non-finite values', () => {
  const { mesh, skeleton } = cylinder({ rings: 5, segments: 6 });

  it('skinningMatrices names the joint whose pose is not finite, and the joint it reaches', () => {
    const pose = restPose(skeleton);
    pose.translations[3 * 1] = NaN; // joint "mid"
    expect(() => skinningMatrices(skeleton, pose)).toThrow(CorskinError);
    expect(() => skinningMatrices(skeleton, pose)).toThrow(
      'the pose gives joint "mid" a non-finite skinning matrix (its translation is not finite)',
    );
    const overflow = restPose(skeleton);
    overflow.scales.set([1e200, 1e200, 1e200], 0); // finite in each joint, infinite once composed
    overflow.scales.set([1e200, 1e200, 1e200], 3);
    expect(() => skinningMatrices(skeleton, overflow)).toThrow(
      'the pose gives joint "mid" a non-finite skinning matrix (the transforms along its chain overflow)',
    );
  });

  it('skinningMatrices names a non-finite inverse bind matrix, and keeps a zero scale (finite, singular)', () => {
    const ibm = skeleton.inverseBindMatrices.slice();
    ibm[16 * 2 + 12] = Infinity;
    const bad = { ...skeleton, inverseBindMatrices: ibm };
    expect(() => skinningMatrices(bad, restPose(bad))).toThrow(
      'joint "end" a non-finite skinning matrix (its inverse bind matrix is not finite)',
    );
    const pose = restPose(skeleton);
    pose.scales.fill(0, 3, 6);
    const S = skinningMatrices(skeleton, pose);
    expect(S.every(Number.isFinite)).toBe(true);
    expect(deform('dqs', mesh, S).positions.every(Number.isFinite)).toBe(true);
  });

  it('deform names the joint whose skinning matrix is not finite', () => {
    const S = skinningMatrices(skeleton, restPose(skeleton));
    S[16 * 1 + 13] = NaN;
    for (const method of ['lbs', 'dqs'] as const)
      expect(() => deform(method, mesh, S)).toThrow(
        'the skinning matrix of joint 1 is not finite (entry 13 is NaN); nothing deformed',
      );
  });
});

describe('corskin deform --time without --animation', () => {
  it("takes the skin's first animation, not the document's first (a camera move), and says which", async () => {
    const input = editedGlb('camera-first', (j) => {
      j.animations[0].name = 'Walk';
      // A node outside the skin, moved by a clip that comes first in the file.
      j.nodes.push({ name: 'Camera', translation: [0, 0, 5] });
      j.scenes[0].nodes.push(j.nodes.length - 1);
      const { input: times, output } = j.animations[0].samplers[0];
      j.animations.unshift({
        name: 'Camera move',
        samplers: [{ input: times, output, interpolation: 'LINEAR' }],
        channels: [{ sampler: 0, target: { node: j.nodes.length - 1, path: 'translation' } }],
      });
    });
    const byDefault = path('camera-first-default.glb');
    const r = await runCli('deform', input, '--method', 'lbs', '--time', '1', '-o', byDefault);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`"Walk" at 1 s, the skin's first animation`);
    const named = path('camera-first-walk.glb');
    expect(
      (await runCli('deform', input, '--method', 'lbs', '--animation', 'Walk', '--time', '1', '-o', named)).code,
    ).toBe(0);
    const rest = path('camera-first-rest.glb');
    expect((await runCli('deform', input, '--method', 'lbs', '-o', rest)).code).toBe(0);
    const positions = async (file: string) =>
      Array.from(
        (await new NodeIO().read(file))
          .getRoot()
          .listMeshes()[0]
          .listPrimitives()[0]
          .getAttribute('POSITION')!
          .getArray()!,
      );
    const walked = await positions(byDefault);
    expect(walked).toEqual(await positions(named));
    expect(walked).not.toEqual(await positions(rest));
  });

  it('refuses --time when no animation moves the skin', async () => {
    const input = editedGlb('camera-only', (j) => {
      j.nodes.push({ name: 'Camera' });
      j.scenes[0].nodes.push(j.nodes.length - 1);
      j.animations[0].channels = [{ sampler: 0, target: { node: j.nodes.length - 1, path: 'translation' } }];
      j.animations[0].samplers = [j.animations[0].samplers[0]];
    });
    const out = path('camera-only-posed.glb');
    await expectRefusal(
      ['deform', input, '--method', 'lbs', '--time', '1', '-o', out],
      out,
      input,
      '--time given but no animation moves the skin (animations: 0: animation 0)',
    );
  });
});

describe('a 65,535-joint rig', () => {
  it('a flat one (every joint a child of the root) reads, poses and deforms correctly', () => {
    const J = 65535;
    const doc = new Document();
    const buffer = doc.createBuffer();
    const root = doc.createNode('j0');
    doc.createScene().addChild(root);
    const joints: Node[] = [root];
    for (let j = 1; j < J; j++) {
      const node = doc.createNode(`j${j}`).setTranslation([j * 1e-3, 0, 0]);
      root.addChild(node);
      joints.push(node);
    }
    const ibm = new Float32Array(16 * J);
    for (let j = 0; j < J; j++) ibm.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -j * 1e-3, 0, 0, 1], 16 * j);
    const skin = doc
      .createSkin()
      .setInverseBindMatrices(doc.createAccessor().setType('MAT4').setArray(ibm).setBuffer(buffer));
    for (const node of joints) skin.addJoint(node);
    const last = J - 1;
    const accessor = (type: 'VEC3' | 'VEC4' | 'SCALAR', array: Float32Array | Uint16Array) =>
      doc.createAccessor().setType(type).setArray(array).setBuffer(buffer);
    const prim = doc
      .createPrimitive()
      .setAttribute('POSITION', accessor('VEC3', new Float32Array([0, 0, 0, 1, 0, 0, last * 1e-3, 1, 0])))
      .setAttribute('JOINTS_0', accessor('VEC4', new Uint16Array([0, 0, 0, 0, 1, 0, 0, 0, last, 0, 0, 0])))
      .setAttribute('WEIGHTS_0', accessor('VEC4', new Float32Array([1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0])))
      .setIndices(accessor('SCALAR', new Uint16Array([0, 1, 2])));
    doc.createScene().addChild(doc.createNode('mesh').setMesh(doc.createMesh().addPrimitive(prim)).setSkin(skin));

    const [model] = extractSkinnedModels(doc, 'flat.glb');
    expect(model.skeleton.parents.length).toBe(J);
    expect(model.skeleton.parents[last]).toBe(0);
    // The root turned a quarter about z: joint k's bind offset (k·1e-3, 0, 0) goes to (0, k·1e-3, 0).
    const s = Math.SQRT1_2;
    const clip: AnimationClip = {
      name: 'turn',
      duration: 1,
      channels: [
        {
          joint: 0,
          path: 'rotation',
          interpolation: 'LINEAR',
          times: new Float32Array([0, 1]),
          values: new Float32Array([0, 0, 0, 1, 0, 0, s, s]),
        },
      ],
    };
    const S = skinningMatrices(model.skeleton, samplePose(model.skeleton, clip, 1));
    const out = deform('lbs', model.mesh, S).positions;
    const expected = [0, 0, 0, 0, 1, 0, -1, last * 1e-3, 0];
    expected.forEach((x, k) => expect(out[k]).toBeCloseTo(x, 4));
  }, 360_000);
});
