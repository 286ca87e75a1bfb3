/**
 * The registry's consistency test: for every method of the registry and every surface its entry
 * claims, a run through that surface on CesiumMan and the Fox agrees with the method's CPU
 * deformer built from the library — `corskin deform` (every method; cage after `bind-cage`),
 * `corskin evaluate --character` (the registry's CHARACTER_METHODS), `corskin bake --as morphs`
 * (BAKE_METHODS: the baked file played by LBS reproduces the method at the samples) and `--as
 * helpers` (the helper joints bring LBS closer to the method), the
 * WebAssembly SIMD kernels (methods marked `simd`). A method added to the registry is tested on
 * each of these without a test of its own. (GPU surfaces run in the browser suite, from the
 * registry too: test-e2e/three-gpu.test.ts runs every `gpu` method on CesiumMan and the Fox with
 * WebGLRenderer and WebGPURenderer against its CPU deformer; viewer.test.ts and render the
 * methods corskin/three runs.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { samplePose } from '../src/core/animation.js';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { skinningMatrices } from '../src/core/pose.js';
import { createCageSkinningDeformer } from '../src/cage/rig.js';
import { computeCentersOfRotation } from '../src/cor/precompute.js';
import type { Deformer } from '../src/deformers/contract.js';
import { deformers } from '../src/deformers/index.js';
import {
  BAKE_METHODS,
  CHARACTER_METHODS,
  SIMD_METHODS,
  SKINNING_METHODS,
  type MethodId,
} from '../src/deformers/registry.js';
import { measureBake } from '../src/bake/measure.js';
import { createStretchDeformer, stretchRigFromSkeleton, type StretchRig } from '../src/deformers/stretch.js';
import { readCageRig } from '../src/io/cage-gltf.js';
import { extractSkinnedModels, jointBoneSegments, type SkinnedModel } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { methodModule, prepareMethod } from '../src/methods/index.js';
import { buildTemplateRig } from '../src/methods/templates/rig.js';
import { createTemplateDeformer } from '../src/methods/templates/deformer.js';
import { createSimdDeformer } from '../src/wasm/simd-skinning.js';
import { runCli } from './helpers/cli.js';
import { CESIUM_MAN, scratch, SHARED } from './helpers/data.js';

const tmp = scratch();
afterAll(tmp.cleanup);

const CHARACTERS = [
  ['CesiumMan', CESIUM_MAN],
  ['Fox', join(SHARED, 'characters/Fox.glb')],
] as const;

/** The method's CPU deformer for `model`, built from the library as a user would (defaults everywhere). */
function libraryDeformer(
  method: MethodId,
  model: SkinnedModel,
  file: string,
  document: Awaited<ReturnType<typeof readDocument>>,
): Deformer {
  const { mesh, skeleton } = model;
  if (methodModule(method)) return prepareMethod(method, { mesh, skeleton });
  switch (method) {
    case 'cor': {
      const withCenters = { ...mesh, centersOfRotation: computeCentersOfRotation(mesh).centers };
      return (_, S, out) => deformers.cor(withCenters, S, out);
    }
    case 'templates':
      return createTemplateDeformer(buildTemplateRig(mesh, skeleton));
    case 'cage':
      return createCageSkinningDeformer(readCageRig(document, model, file)!);
    case 'stretch':
      return createStretchDeformer(stretchRig(model, file));
    default:
      return deformers[method as keyof typeof deformers];
  }
}

/** The stretch rig as the CLI reads it: leaf joints' bones end where the file's child nodes are. */
function stretchRig(model: SkinnedModel, file: string): StretchRig {
  const { skeleton } = model;
  const hasChild = new Uint8Array(skeleton.parents.length);
  for (const p of skeleton.parents) if (p >= 0) hasChild[p] = 1;
  const ends = jointBoneSegments(model, file).map((segs, j) =>
    hasChild[j] ? undefined : segs.find((s) => s[0] !== s[3] || s[1] !== s[4] || s[2] !== s[5])?.slice(3),
  );
  return stretchRigFromSkeleton(skeleton, undefined, ends);
}

/** Samples per second of the helper bakes here (a few samples: the fit is quick). */
const HELPER_RATE = 2;

const objPositions = (text: string) =>
  Float32Array.from(
    text
      .split('\n')
      .filter((l) => l.startsWith('v '))
      .flatMap((l) => l.slice(2).trim().split(/\s+/).map(Number)),
  );

describe.each(CHARACTERS)('every registry method on every CPU surface it claims: %s', (name, file) => {
  let model: SkinnedModel;
  let S: Float64Array;
  let diagonal: number;
  beforeAll(async () => {
    [model] = extractSkinnedModels(await readDocument(file), file);
    S = skinningMatrices(
      model.skeleton,
      samplePose(model.skeleton, model.animations[0], 0.4 * model.animations[0].duration),
    );
    diagonal = boundingBoxDiagonal(model.mesh.positions);
  });

  it.each(SKINNING_METHODS.map((m) => m.id))('corskin deform --method %s = its CPU deformer', async (method) => {
    let input: string = file;
    if (method === 'cage') {
      input = join(tmp.dir, `${name}-cage.glb`);
      expect((await runCli('bind-cage', file, '--cage', 'auto', '-o', input)).code).toBe(0);
    }
    const out = join(tmp.dir, `${name}-${method}.obj`);
    const time = String(0.4 * model.animations[0].duration);
    const r = await runCli('deform', input, '--method', method, '--time', time, '-o', out);
    expect(r.code, r.stderr).toBe(0);
    const document = await readDocument(input);
    const [withRig] = extractSkinnedModels(document, input);
    const expected = { positions: new Float32Array(model.mesh.positions.length) };
    libraryDeformer(method, withRig, input, document)(withRig.mesh, S, expected);
    const written = objPositions(readFileSync(out, 'utf8'));
    expect(written.length).toBe(expected.positions.length);
    let e = 0;
    for (let i = 0; i < written.length; i++) e = Math.max(e, Math.abs(written[i] - expected.positions[i]));
    expect(e / diagonal).toBeLessThan(1e-5); // the OBJ's decimal digits
  });

  it('corskin evaluate --character reports every CHARACTER_METHOD over the whole pose battery', async () => {
    const r = await runCli('evaluate', '--character', file, '--json');
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as { skin: string; method: string; flippedAgainstDqs: number }[];
    expect(new Set(rows.map((x) => x.skin))).toEqual(new Set([model.name])); // each row names its skin
    for (const method of CHARACTER_METHODS) {
      const mine = rows.filter((x) => x.method === method);
      expect(mine.length, method).toBeGreaterThan(0);
      expect(mine.every((x) => Number.isFinite(x.flippedAgainstDqs))).toBe(true);
    }
  });

  it.each(BAKE_METHODS)(
    'corskin bake --method %s --as morphs: played by LBS, the file is its CPU deformer at the samples',
    async (method) => {
      const out = join(tmp.dir, `${name}-${method}-morphs.glb`);
      const r = await runCli('bake', file, '--method', method, '--as', 'morphs', '--rate', '5', '-o', out);
      expect(r.code, r.stderr).toBe(0);
      const document = await readDocument(file);
      const [original] = extractSkinnedModels(document, file);
      const [baked] = extractSkinnedModels(await readDocument(out), out);
      const m = measureBake(original, baked, libraryDeformer(method, original, file, document), 5);
      expect(m.max).toBeLessThan(1e-5); // the morph bake's tolerance (1e-5, float32 rounding included)
      expect(m.lbsMax).toBeGreaterThan(1e-4); // the method is not LBS here
    },
  );

  it.each(BAKE_METHODS)(
    'corskin bake --method %s --as helpers: played by LBS, the file is closer to its CPU deformer than LBS is',
    async (method) => {
      const out = join(tmp.dir, `${name}-${method}-helpers.glb`);
      // One helper per region at HELPER_RATE samples per second: the fit is quick; its quality at
      // the defaults is helper-bake.test.ts's. Guarded at the samples alone: half a second apart,
      // the helpers cannot follow the method half-way between samples, and the default guard
      // (auto) holds them never worse than plain LBS there too, which leaves little of the gap
      // (CesiumMan DQS: 25% of LBS's p99 distance removed; bake-cli.test.ts tests that guard).
      const r = await runCli(
        'bake',
        file,
        '--method',
        method,
        '--as',
        'helpers',
        '--helpers',
        '1',
        '--rate',
        String(HELPER_RATE),
        '--guard',
        'samples',
        '-o',
        out,
      );
      expect(r.code, r.stderr).toBe(0);
      const document = await readDocument(file);
      const [original] = extractSkinnedModels(document, file);
      const [baked] = extractSkinnedModels(await readDocument(out), out);
      expect(baked.mesh.influences).toBeLessThanOrEqual(4); // what every engine plays
      const m = measureBake(original, baked, libraryDeformer(method, original, file, document), HELPER_RATE);
      console.log(`${name}, ${method} helpers: p99 ${m.p99.toExponential(2)} vs LBS ${m.lbsP99.toExponential(2)}`);
      expect(m.p99).toBeLessThan(0.5 * m.lbsP99); // measured 0.12–0.35 of LBS's
    },
    180_000,
  );

  it.each(SIMD_METHODS)('the SIMD kernel of %s = its CPU deformer', async (method) => {
    const mesh =
      method === 'cor'
        ? { ...model.mesh, centersOfRotation: computeCentersOfRotation(model.mesh).centers }
        : { ...model.mesh, methodData: { ...model.mesh.methodData } };
    // A method module's kernel runs on the mesh as its prepare left it (its data on the mesh).
    // Stretch skinning's kernel takes its rig as its JavaScript deformer does.
    const rig = method === 'stretch' ? stretchRig(model, file) : undefined;
    const cpu: Deformer = methodModule(method)
      ? prepareMethod(method, { mesh, skeleton: model.skeleton })
      : rig
        ? createStretchDeformer(rig)
        : (m, skinning, o) => deformers[method as keyof typeof deformers](m, skinning, o);
    const simd = await createSimdDeformer(mesh, method, rig && { rig });
    const out = { positions: new Float32Array(mesh.positions.length) };
    simd.deform(S, out);
    const expected = { positions: new Float32Array(mesh.positions.length) };
    cpu(mesh, S, expected);
    let e = 0;
    for (let i = 0; i < out.positions.length; i++) e = Math.max(e, Math.abs(out.positions[i] - expected.positions[i]));
    expect(e / diagonal).toBeLessThan(1e-5);
  });
});
