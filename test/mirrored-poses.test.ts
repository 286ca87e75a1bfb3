/**
 * Synthetic poses of mirrored rigs (an armature under a node scaled −1 along x): a rotation about
 * a world axis is that rotation whatever the frame's handedness, and the stress pose of a
 * mirrored character is the mirror image of the character's (found by a check on variants of the
 * shared characters: the mirrored chicken threw its head up where the chicken bends it down).
 */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { samplePose } from '../src/core/animation.js';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { globalMatrices, restPose, rotateJointWorld, skinningMatrices } from '../src/core/pose.js';
import { deformInto } from '../src/deformers/contract.js';
import { deform } from '../src/deformers/index.js';
import { createStretchDeformer, stretchRigFromSkeleton } from '../src/deformers/stretch.js';
import { createSimdDeformer } from '../src/wasm/simd-skinning.js';
import { createSkeleton } from '../src/core/skeleton.js';
import { stressPose } from '../src/evaluation/stress-pose.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument, writeDocument } from '../src/io/node-io.js';
import { runCli } from './helpers/cli.js';
import { CESIUM_MAN, scratch, SHARED } from './helpers/data.js';
import { underRoot } from './helpers/gltf.js';

/** The first skin's skeleton of `file`, and of the same file under a root node scaled (−1, 1, 1). */
async function withMirror(file: string) {
  const plain = await readDocument(file);
  const mirrored = await readDocument(file);
  await mirrored.transform(underRoot({ scale: [-1, 1, 1] }));
  return [plain, mirrored].map((d) => extractSkinnedModels(d, file)[0].skeleton);
}

describe('rotateJointWorld in a reflecting frame', () => {
  it('turns the subtree by the world rotation asked for (a reflection would reverse it)', () => {
    // Joint 0 under a pre-transform diag(−1, 1, 1); joint 1 one unit along local +y, joint 2 one
    // more along local +x: world (0, 1, 0) and (−1, 1, 0).
    const preTransforms = new Float64Array(48);
    for (let j = 0; j < 3; j++) for (let d = 0; d < 4; d++) preTransforms[16 * j + 5 * d] = 1;
    preTransforms[0] = -1;
    const s = createSkeleton({ parents: [-1, 0, 1], preTransforms, restTranslations: [0, 0, 0, 0, 1, 0, 1, 0, 0] });
    const pose = restPose(s);
    const g0 = globalMatrices(s, pose);
    expect([g0[32 + 12], g0[32 + 13], g0[32 + 14]]).toEqual([-1, 1, 0]);
    // +90° about world z at joint 1, (0, 1, 0): the offset (−1, 0, 0) turns to (0, −1, 0).
    rotateJointWorld(s, pose, 1, [0, 0, 1], Math.PI / 2);
    const g = globalMatrices(s, pose);
    expect(g[32 + 12]).toBeCloseTo(0, 12);
    expect(g[32 + 13]).toBeCloseTo(0, 12);
    expect(g[32 + 14]).toBeCloseTo(0, 12);
  });
});

describe('the stress pose of a mirrored character', () => {
  const characters = [
    CESIUM_MAN,
    join(SHARED, 'characters', 'chicken.glb'),
    join(SHARED, 'characters', 'ShibaInu.gltf'),
  ];
  it.each(characters)('is the mirror image of the character’s: %s', async (file) => {
    const [plain, mirrored] = await withMirror(file);
    for (const amplitude of [0.5, 1]) {
      const a = globalMatrices(plain, stressPose(plain, amplitude));
      const b = globalMatrices(mirrored, stressPose(mirrored, amplitude));
      let size = 0;
      for (let j = 0; j < plain.parents.length; j++) size = Math.max(size, Math.hypot(a[16 * j + 12], a[16 * j + 13], a[16 * j + 14])); // prettier-ignore
      let worst = 0;
      for (let j = 0; j < plain.parents.length; j++) {
        const o = 16 * j + 12;
        worst = Math.max(worst, Math.hypot(b[o] + a[o], b[o + 1] - a[o + 1], b[o + 2] - a[o + 2]));
      }
      expect(worst / size, `${file} at ${amplitude}`).toBeLessThan(1e-9);
    }
  });
});

describe('log-matrix, spherical blend and stretch skinning of a mirrored rig', () => {
  // x ↦ −x in posed space (every joint reflects): the mirror image of the character, JavaScript
  // and SIMD (both pose the unmirrored skeleton; the blend of logarithms is not invariant under
  // a reflection of the bind side alone: 5e-3 to 3e-2 of the diagonal before; stretch skinning's
  // twist compensation read the reflections' quaternions: 7.8e-2 off at rest on CesiumMan).
  const files = [CESIUM_MAN, join(SHARED, 'characters', 'Soldier.glb'), join(SHARED, 'characters', 'Ybot.glb')];
  it.each(files)('%s at a clip time and at the stress pose', async (file) => {
    const [model] = extractSkinnedModels(await readDocument(file), file);
    const { mesh, skeleton } = model;
    const poses = [samplePose(skeleton, model.animations[0], 0.5), stressPose(skeleton, 0.5)];
    const diag = boundingBoxDiagonal(mesh.positions);
    const rig = stretchRigFromSkeleton(skeleton);
    for (const method of ['lms', 'sbs', 'stretch'] as const) {
      const simd = await createSimdDeformer(mesh, method, method === 'stretch' ? { rig } : undefined);
      const js = method === 'stretch' ? createStretchDeformer(rig) : undefined;
      const play = (S: Float64Array) => (js ? deformInto(js, mesh, S) : deform(method as 'lms', mesh, S));
      for (const pose of poses) {
        const S = skinningMatrices(skeleton, pose);
        const mirrored = S.map((x, k) => (k % 4 === 0 ? -x : x));
        const worst = (a: Float32Array, b: Float32Array) => {
          let w = 0;
          for (let i = 0; i < a.length; i += 3) w = Math.max(w, Math.hypot(b[i] + a[i], b[i + 1] - a[i + 1], b[i + 2] - a[i + 2])); // prettier-ignore
          return w / diag;
        };
        expect(worst(play(S).positions, play(mirrored).positions), `${method} JS`).toBe(0);
        simd.deform(S);
        const a = simd.output.positions.slice();
        simd.deform(mirrored);
        expect(worst(a, simd.output.positions), `${method} SIMD`).toBe(0);
      }
    }
  });
});

describe('corskin deform of a mirrored character', () => {
  // The posed geometry is written under an identity node: a mirrored character's triangles must
  // be turned over there (renderers turned them over for the mirroring node it no longer has), and
  // its tangents' handedness negated. Found by a new user's check: inside-out outputs, every method.
  const tmp = scratch();
  afterAll(() => tmp.cleanup());

  /** Per triangle, its unnormalised normal from the order of its vertices. */
  const faceNormals = (P: ArrayLike<number>, I: ArrayLike<number>) =>
    Array.from({ length: I.length / 3 }, (_, t) => {
      const [a, b, c] = [I[3 * t], I[3 * t + 1], I[3 * t + 2]];
      const u = [0, 1, 2].map((k) => P[3 * b + k] - P[3 * a + k]);
      const v = [0, 1, 2].map((k) => P[3 * c + k] - P[3 * a + k]);
      return [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
    });
  /** Triangles of the output's primitives, each [positions, indices, tangents?]. */
  const read = async (file: string) =>
    (await readDocument(file))
      .getRoot()
      .listMeshes()
      .flatMap((m) => m.listPrimitives())
      .map((p) => ({
        P: p.getAttribute('POSITION')!.getArray()!,
        I:
          p.getIndices()?.getArray() ??
          Uint32Array.from({ length: p.getAttribute('POSITION')!.getCount() }, (_, i) => i),
        T: p.getAttribute('TANGENT')?.getArray() ?? undefined,
      }));
  const objFaces = (file: string) => {
    const lines = readFileSync(file, 'utf8').split('\n');
    const P = lines.filter((l) => l.startsWith('v ')).flatMap((l) => l.split(/\s+/).slice(1, 4).map(Number));
    const I = lines.filter((l) => l.startsWith('f ')).flatMap((l) => l.split(/\s+/).slice(1, 4).map((f) => Number(f.split('/')[0]) - 1)); // prettier-ignore
    return { P, I };
  };
  /** The largest |M n_plain − n_mirrored| over triangles, ÷ the largest |n|: 0 when each faces as its mirror image should. */
  const facing = (plain: { P: ArrayLike<number>; I: ArrayLike<number> }, mirrored: typeof plain) => {
    const [a, b] = [faceNormals(plain.P, plain.I), faceNormals(mirrored.P, mirrored.I)];
    let [worst, size] = [0, 0];
    a.forEach((n, t) => {
      size = Math.max(size, Math.hypot(...n));
      worst = Math.max(worst, Math.hypot(-n[0] - b[t][0], n[1] - b[t][1], n[2] - b[t][2]));
    });
    return worst / size;
  };

  it.each([
    [CESIUM_MAN, 'dqs'],
    [CESIUM_MAN, 'sbs'],
    [join(SHARED, 'characters', 'chicken.glb'), 'cor'],
  ])(
    '%s by %s: each triangle faces as the mirror image of the character’s (.glb and .obj), tangents’ w negated',
    async (file, method) => {
      const mirrored = join(tmp.dir, `mirrored-${method}-${basename(file)}`.replace(/\.gltf$/, '.glb'));
      const doc = await readDocument(file);
      await doc.transform(underRoot({ scale: [-1, 1, 1] }));
      await writeDocument(doc, mirrored);
      const out = (input: string, ext: string) => join(tmp.dir, `${basename(input)}-${method}.${ext}`);
      for (const input of [file, mirrored])
      for (const ext of ['glb', 'obj'])
        expect((await runCli('deform', input, '--method', method, '--pose', 'stress', '-o', out(input, ext), '-q')).code).toBe(0); // prettier-ignore
      const [plain, mirror] = [await read(out(file, 'glb')), await read(out(mirrored, 'glb'))];
      expect(mirror.length).toBe(plain.length);
      plain.forEach((p, k) => {
        expect(facing(p, mirror[k]), `primitive ${k}`).toBeLessThan(1e-4);
        if (!p.T) return;
        let worst = 0;
        for (let i = 0; i < p.T.length; i += 4)
          worst = Math.max(worst, Math.abs(p.T[i] + mirror[k].T![i]), Math.abs(p.T[i + 3] + mirror[k].T![i + 3]));
        expect(worst, `tangents of primitive ${k}`).toBeLessThan(1e-5);
      });
      expect(facing(objFaces(out(file, 'obj')), objFaces(out(mirrored, 'obj')))).toBeLessThan(1e-4);
    },
  );
});
