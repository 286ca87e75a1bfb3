import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Document, NodeIO, PropertyType } from '@gltf-transform/core';
import { dedup } from '@gltf-transform/functions';
import { KHRMeshQuantization } from '@gltf-transform/extensions';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { shortestFloat32 } from '../src/io/gltf-write.js';
import { quantizeWeightSets } from '../src/io/gltf-weights.js';
import { roundToStoredWeights, roundToStoredWeightsBest } from '../src/core/weight-quantization.js';
import { glbBytes, readDocument, storeAccessorsOnce, writeDocument } from '../src/io/node-io.js';
import { runCli } from './helpers/cli.js';
import { convertLibigl } from './helpers/convert.js';
import { CESIUM_MAN, rng, scratch } from './helpers/data.js';
import { attribute, readRaw, validate } from './helpers/gltf.js';
import { percentile, referenceCenter, referenceDomain } from './helpers/reference.js';

const tmp = scratch();
afterAll(tmp.cleanup);

const cases: { name: string; make: () => Promise<string> }[] = [
  { name: 'CesiumMan', make: async () => CESIUM_MAN },
  { name: 'elephant', make: () => convertLibigl(tmp.dir, 'elephant') },
  { name: 'arm', make: () => convertLibigl(tmp.dir, 'arm') },
];

describe.each(cases)('corskin precompute on $name', ({ name, make }) => {
  let input: string;
  let output: string;
  let stdout: string;
  beforeAll(async () => {
    input = await make();
    output = join(tmp.dir, `${name}-cor.glb`);
    const r = await runCli('precompute', input, '-o', output);
    expect(r.stderr).not.toMatch(/error/);
    expect(r.code).toBe(0);
    stdout = r.stdout;
  });

  it('prints vertices, subdivided triangles and time', () => {
    expect(stdout).toMatch(/\d+ vertices \(\d+ blended\), \d+ triangles → \d+ subdivided, [\d.]+ s/);
  });

  it('writes a file the Khronos validator accepts with 0 errors', async () => {
    expect((await validate(output)).issues.numErrors).toBe(0);
  });

  it('agrees with a brute-force evaluation of Eq. 4 (≤ 1e-3 of the bbox diagonal at the 95th percentile, ≤ 5e-3 max)', async () => {
    const [model] = extractSkinnedModels(await readDocument(input), input);
    const mesh = model.mesh;
    const cor = attribute(await readRaw(output), '_CENTER_OF_ROTATION');
    const diag = boundingBoxDiagonal(mesh.positions);
    const dom = referenceDomain(mesh, 0.1);
    const random = rng(42);
    const n = mesh.positions.length / 3;
    const errors: number[] = [];
    for (let tries = 0; errors.length < 120 && tries < 10000; tries++) {
      const i = Math.floor(random() * n);
      const ref = referenceCenter(mesh, dom, i, 0.1);
      if (!ref) continue;
      errors.push(Math.hypot(cor[3 * i] - ref[0], cor[3 * i + 1] - ref[1], cor[3 * i + 2] - ref[2]) / diag);
    }
    expect(errors.length).toBe(120);
    expect(percentile(errors, 95)).toBeLessThan(1e-3);
    expect(Math.max(...errors)).toBeLessThan(5e-3);
  });

  it('records the parameters and leaves everything else intact', async () => {
    const a = await readRaw(input);
    const b = await readRaw(output);
    const count = (d: Document) => {
      const r = d.getRoot();
      return [
        r.listNodes(),
        r.listMaterials(),
        r.listTextures(),
        r.listAnimations(),
        r.listSkins(),
        r.listMeshes(),
      ].map((l) => l.length);
    };
    expect(count(b)).toEqual(count(a));
    const prim = b.getRoot().listMeshes()[0].listPrimitives()[0];
    expect(prim.getExtras()).toMatchObject({ corskin: { sigma: 0.1, epsilon: 0.1, method: 'fast' } });
    expect([...attribute(b, 'POSITION')]).toEqual([...attribute(a, 'POSITION')]);
    expect([...attribute(b, 'WEIGHTS_0')]).toEqual([...attribute(a, 'WEIGHTS_0')]);
  });
});

describe('reading skinning attributes', () => {
  it('decodes normalized unsigned-byte weights and reads a second influence set (K = 8)', async () => {
    const doc = new Document();
    const buf = doc.createBuffer();
    const joints = [doc.createNode('a'), doc.createNode('b')];
    joints[0].addChild(joints[1]);
    const skin = doc.createSkin().addJoint(joints[0]).addJoint(joints[1]);
    const acc = (type: 'VEC3' | 'VEC4' | 'SCALAR', a: ArrayLike<number> & ArrayBufferView, normalized = false) =>
      doc
        .createAccessor()
        .setType(type)
        .setArray(a as Float32Array)
        .setBuffer(buf)
        .setNormalized(normalized);
    const prim = doc
      .createPrimitive()
      .setAttribute('POSITION', acc('VEC3', new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0])))
      .setIndices(acc('SCALAR', new Uint16Array([0, 1, 2])))
      .setAttribute('JOINTS_0', acc('VEC4', new Uint8Array([0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0])))
      .setAttribute('WEIGHTS_0', acc('VEC4', new Uint8Array([51, 102, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0]), true))
      .setAttribute('JOINTS_1', acc('VEC4', new Uint8Array([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])))
      .setAttribute('WEIGHTS_1', acc('VEC4', new Uint8Array([102, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), true));
    const scene = doc.createScene().addChild(joints[0]);
    scene.addChild(doc.createNode('m').setMesh(doc.createMesh().addPrimitive(prim)).setSkin(skin));
    const [model] = extractSkinnedModels(doc);
    expect(model.mesh.influences).toBe(8);
    expect(model.mesh.weights[0]).toBeCloseTo(0.2, 6);
    expect(model.mesh.weights[1]).toBeCloseTo(0.4, 6);
    expect(model.mesh.weights[4]).toBeCloseTo(0.4, 6);
    expect(model.mesh.joints[4]).toBe(1);
    expect(model.weightNormalization.renormalized).toBe(0);
  });

  it('writes .gltf with its buffer beside it', async () => {
    const out = join(tmp.dir, 'cm.gltf');
    const r = await runCli('precompute', CESIUM_MAN, '-o', out);
    expect(r.code).toBe(0);
    expect(existsSync(out)).toBe(true);
    const doc = await new NodeIO().read(out);
    expect(doc.getRoot().listMeshes()[0].listPrimitives()[0].getAttribute('_CENTER_OF_ROTATION')).toBeTruthy();
  });
});

describe('skin weights as normalised 16-bit integers (quantizeWeightSets)', () => {
  it('each integer within one step of its weight, zeros kept, and each vertex summing to round(65535 · its sum): exactly 65535 for weights summing to 1 within 2e-3', () => {
    const random = rng(5);
    for (const sets of [1, 2]) {
      const count = 500;
      const floats = Array.from({ length: sets }, () => new Float32Array(4 * count));
      const sums: number[] = [];
      for (let v = 0; v < count; v++) {
        // 1 to 4·sets non-zero weights, summing to 1 (or 0.9 for every fifth vertex, as read; or,
        // every fifth from the third, 1 + 1e-4, as Draco quantises them: read as they are).
        const k = 1 + Math.floor(random() * 4 * sets);
        const w = Array.from({ length: 4 * sets }, (_, i) => (i < k ? random() ** 3 : 0));
        const total = v % 5 === 0 ? 0.9 : v % 5 === 3 ? 1 + 1e-4 : 1;
        const s = w.reduce((a, b) => a + b, 0);
        w.forEach((x, i) => (floats[i >> 2][4 * v + (i & 3)] = (x / s) * total));
        sums.push(w.reduce((a, x, i) => a + floats[i >> 2][4 * v + (i & 3)], 0));
      }
      const shorts = quantizeWeightSets(floats);
      for (let v = 0; v < count; v++) {
        let sum = 0;
        for (let i = 0; i < 4 * sets; i++) {
          const [x, q] = [floats[i >> 2][4 * v + (i & 3)], shorts[i >> 2][4 * v + (i & 3)]];
          // Within a step of the weight (rescaled to sum 1 where its sum is within 2e-3 of 1).
          expect(Math.abs(q - (65535 * x) / (v % 5 ? sums[v] : 1))).toBeLessThan(1);
          if (x === 0) expect(q).toBe(0);
          sum += q;
        }
        expect(sum).toBe(v % 5 ? 65535 : Math.round(65535 * sums[v]));
      }
    }
  });
});

describe('weights rounded as the file stores them (roundToStoredWeights)', () => {
  it('lands on the 16-bit grid the writer stores exactly, idempotently, a weight under half a step dropped, and sums of 1 kept', () => {
    const random = rng(11);
    const count = 400;
    const floats = new Float32Array(4 * count);
    for (let v = 0; v < count; v++) {
      // 1 to 4 weights; every third vertex one of them under half a step (3e-6 to 7e-6).
      const w = Array.from({ length: 4 }, (_, i) => (i <= v % 4 ? random() : 0));
      if (v % 3 === 0) w[v % 4] = 3e-6 + 4e-6 * random();
      const s = w.reduce((a, b) => a + b, 0);
      w.forEach((x, i) => (floats[4 * v + i] = x / s));
    }
    const rounded = floats.slice();
    for (let v = 0; v < count; v++) roundToStoredWeights(rounded, 4 * v, 4);
    const [stored] = quantizeWeightSets([rounded]);
    const [direct] = quantizeWeightSets([floats]);
    for (let v = 0; v < count; v++) {
      let sum = 0;
      for (let k = 4 * v; k < 4 * v + 4; k++) {
        // On the grid, as the writer stores it from the rounded weights and from the floats alike.
        expect(rounded[k]).toBe(Math.fround(stored[k] / 65535));
        expect(stored[k]).toBe(direct[k]);
        if (floats[k] < 0.5 / 65535) expect(rounded[k]).toBe(0);
        sum += stored[k];
      }
      expect(sum).toBe(65535);
    }
    const again = rounded.slice();
    for (let v = 0; v < count; v++) roundToStoredWeights(again, 4 * v, 4);
    expect(again).toEqual(rounded);
  });
});

describe('the rounding of least cost next to the weights (roundToStoredWeightsBest)', () => {
  it('of every rounding within a step of each weight that sums to 65535 steps (brute force), the cheapest; stored as it is', () => {
    const random = rng(12);
    for (const K of [4, 8]) {
      for (let trial = 0; trial < 200; trial++) {
        const w = Array.from({ length: K }, (_, k) => (k < 1 + (trial % K) ? random() ** 2 : 0));
        const s = w.reduce((a, b) => a + b, 0);
        const weights = Float32Array.from(w, (x) => x / s);
        // A cost the writer's largest remainders do not know: a random quadratic in the steps.
        const target = Array.from({ length: K }, () => random() * 2 - 1);
        const cost = (x: ArrayLike<number>) =>
          target.reduce((a, t, k) => a + (x[k] * 65535 - Math.floor(weights[k] * 65535) - t) ** 2, 0);
        // Brute force: each weight its floor or one step more (a zero stays 0), 65535 steps in all.
        let best = Infinity;
        for (let up = 0; up < 1 << K; up++) {
          const steps = Array.from(weights, (x, k) => Math.floor(x * 65535) + (x > 0 && (up >> k) & 1 ? 1 : 0));
          if (steps.reduce((a, b) => a + b, 0) !== 65535) continue;
          best = Math.min(best, cost(steps.map((q) => Math.fround(q / 65535))));
        }
        const rounded = weights.slice();
        roundToStoredWeightsBest(rounded, 0, K, () => cost(rounded));
        expect(cost(rounded)).toBeCloseTo(best, 6);
        const back = quantizeWeightSets([rounded.subarray(0, 4), rounded.subarray(4)].slice(0, K / 4)).flatMap((q) => Array.from(q)); // prettier-ignore
        for (let k = 0; k < K; k++) expect(back[k]).toBe(Math.round(rounded[k] * 65535));
      }
    }
  });
});

describe('writing sparse accessors (glbBytes)', () => {
  /**
   * A primitive of 1,000 vertices with one morph target of `nonZero` non-zero displacements,
   * stored sparse, in `Type`; the target accessor as written (its JSON) and read back.
   */
  async function written(nonZero: number, Type: Float32ArrayConstructor | Int16ArrayConstructor, normalized = false) {
    const document = new Document();
    const buffer = document.createBuffer();
    const n = 1000;
    const delta = new Type(3 * n);
    for (let v = 0; v < nonZero; v++) delta[3 * ((v * 7) % n) + 1] = v + 1; // spread over the vertices
    const target = document.createAccessor().setType('VEC3').setArray(delta).setSparse(true).setNormalized(normalized).setBuffer(buffer); // prettier-ignore
    const prim = document
      .createPrimitive()
      .setAttribute(
        'POSITION',
        document
          .createAccessor()
          .setType('VEC3')
          .setArray(new Float32Array(3 * n))
          .setBuffer(buffer),
      ) // prettier-ignore
      .addTarget(document.createPrimitiveTarget('t').setAttribute('POSITION', target));
    document.createMesh().addPrimitive(prim);
    if (Type === Int16Array) document.createExtension(KHRMeshQuantization).setRequired(true);
    const bytes = await glbBytes(document);
    const io = new NodeIO().registerExtensions([KHRMeshQuantization]);
    const { json } = await io.binaryToJSON(bytes);
    const back = (await io.readBinary(bytes)).getRoot().listMeshes()[0].listPrimitives()[0].listTargets()[0];
    return { def: json.accessors![json.meshes![0].primitives[0].targets![0].POSITION], array: back.getAttribute('POSITION')!.getArray()!, delta }; // prettier-ignore
  }

  it('keeps them sparse where that is smaller, packed values and 2-byte indices against padded dense elements', async () => {
    // float VEC3: 12 bytes dense, 14 sparse: sparse pays below 6/7 non-zero (857 of 1,000).
    // short VEC3: 8 bytes dense (padded to 4), 8 sparse: sparse pays below all of them. The
    // indices are padded to 4 bytes: 857 sparse floats take 1,716 + 10,284 bytes, as dense ones.
    for (const [nonZero, Type, sparse] of [
      [700, Float32Array, true],
      [850, Float32Array, true],
      [856, Float32Array, true],
      [857, Float32Array, false],
      [870, Float32Array, false],
      [990, Int16Array, true],
      [1000, Int16Array, false],
    ] as const) {
      const warn = vi.spyOn(console, 'warn');
      const { def, array, delta } = await written(nonZero, Type);
      // glTF-Transform's ">50% non-zero may increase file size" is not said: it is smaller.
      expect(warn).not.toHaveBeenCalled();
      warn.mockRestore();
      expect(!!def.sparse, `${nonZero} ${Type.name}`).toBe(sparse);
      if (sparse) expect(def.sparse!.count).toBe(nonZero);
      expect(Array.from(array)).toEqual(Array.from(delta)); // the same values either way
    }
  });

  it('writes normalized ones dense, with their values (glTF-Transform 4.5 writes them sparse as zeros)', async () => {
    const { def, array, delta } = await written(10, Int16Array, true);
    expect(def.sparse).toBeUndefined();
    expect(def.normalized).toBe(true);
    expect(Array.from(array)).toEqual(Array.from(delta));
  });
});

describe('the JSON corskin writes', () => {
  it("leaves out an animation sampler's default LINEAR interpolation, .glb and .gltf alike; read back, each sampler interpolates as before, and the .glb validates", async () => {
    const document = new Document();
    const buffer = document.createBuffer();
    const node = document.createNode('n');
    document.createScene().addChild(node);
    const animation = document.createAnimation('a');
    const input = document
      .createAccessor()
      .setType('SCALAR')
      .setArray(new Float32Array([0, 1]))
      .setBuffer(buffer);
    for (const [path, interpolation] of [
      ['translation', 'LINEAR'],
      ['scale', 'STEP'],
    ] as const) {
      const output = document.createAccessor().setType('VEC3').setArray(new Float32Array([0, 0, 0, 1, 1, 1])).setBuffer(buffer); // prettier-ignore
      const sampler = document
        .createAnimationSampler()
        .setInput(input)
        .setOutput(output)
        .setInterpolation(interpolation);
      animation.addSampler(sampler).addChannel(document.createAnimationChannel().setTargetNode(node).setTargetPath(path).setSampler(sampler)); // prettier-ignore
    }
    for (const out of ['defaults.glb', 'defaults.gltf'].map((f) => join(tmp.dir, f))) {
      await writeDocument(document, out);
      const { json } = await new NodeIO().readAsJSON(out);
      expect(json.animations![0].samplers.map((s) => s.interpolation)).toEqual([undefined, 'STEP']);
      const back = (await readDocument(out)).getRoot().listAnimations()[0].listSamplers();
      expect(back.map((s) => s.getInterpolation())).toEqual(['LINEAR', 'STEP']);
      if (!out.endsWith('.glb')) continue;
      const report = await validate(out);
      expect(report.issues.numErrors, JSON.stringify(report.issues.messages.slice(0, 3))).toBe(0);
    }
  });

  it('writes a float32 in its fewest digits: the shortest decimal that rounds to the same float32', () => {
    // Known shortest forms of float32 values (as C's printf("%.9g") shortened by hand would give).
    expect(shortestFloat32(0.1)).toBe(0.1);
    expect(shortestFloat32(Math.fround(0.1))).toBe(0.1);
    expect(shortestFloat32(1 / 3)).toBe(0.33333334);
    expect(shortestFloat32(-0.004972442958020684)).toBe(-0.004972443);
    expect(shortestFloat32(16777217)).toBe(16777216); // not a float32: rounds to its neighbour
    expect(shortestFloat32(0)).toBe(0);
    const random = rng(7);
    for (let k = 0; k < 10_000; k++) {
      const x = (random() - 0.5) * 10 ** Math.round(random() * 20 - 10);
      const y = shortestFloat32(x);
      expect(Math.fround(y)).toBe(Math.fround(x));
      const digits = y
        .toExponential()
        .replace(/^-?|e.*$/g, '')
        .replace('.', '').length;
      expect(digits).toBeLessThanOrEqual(9);
      // One digit fewer, rounded either way, is another float32: it was the fewest.
      if (digits > 1) {
        const fewer = Number(y.toPrecision(digits - 1));
        expect(Math.fround(fewer) === Math.fround(x) && fewer !== y).toBe(false);
      }
    }
  });
});

describe('identical accessors stored once (storeAccessorsOnce)', () => {
  /** Two primitives with equal POSITION arrays; `sharedWithTarget`: the second's is also its morph target's. */
  function twoPrimitives(sharedWithTarget: boolean) {
    const document = new Document();
    const buffer = document.createBuffer();
    const positions = () => document.createAccessor().setType('VEC3').setArray(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0])).setBuffer(buffer); // prettier-ignore
    const [a, b] = [positions(), positions()];
    const mesh = document.createMesh();
    mesh.addPrimitive(document.createPrimitive().setAttribute('POSITION', a));
    const second = document.createPrimitive().setAttribute('POSITION', b);
    if (sharedWithTarget) second.addTarget(document.createPrimitiveTarget('t').setAttribute('POSITION', b));
    mesh.addPrimitive(second);
    // Two samplers keyed at equal times.
    const node = document.createNode('n');
    const animation = document.createAnimation();
    for (const path of ['translation', 'scale'] as const) {
      const input = document
        .createAccessor()
        .setType('SCALAR')
        .setArray(new Float32Array([0, 1]))
        .setBuffer(buffer);
      const output = document.createAccessor().setType('VEC3').setArray(new Float32Array([1, 1, 1, 2, 2, 2])).setBuffer(buffer); // prettier-ignore
      const sampler = document.createAnimationSampler().setInput(input).setOutput(output);
      animation.addSampler(sampler).addChannel(document.createAnimationChannel().setTargetNode(node).setTargetPath(path).setSampler(sampler)); // prettier-ignore
    }
    return { document, second };
  }

  it('stores equal attributes and keyframe times once', async () => {
    const { document } = twoPrimitives(false);
    expect(await storeAccessorsOnce(document)).toBe(true);
    const root = document.getRoot();
    expect(root.listAccessors().length).toBe(3); // one POSITION, one input, one output
    const [p, q] = root.listMeshes()[0].listPrimitives();
    expect(p.getAttribute('POSITION')).toBe(q.getAttribute('POSITION'));
  });

  it("leaves a document alone where an attribute is a morph target's too (glTF-Transform's dedup would take it from the target)", async () => {
    // What dedup does there: the target loses its displacement.
    const raw = twoPrimitives(true);
    await raw.document.transform(dedup({ propertyTypes: [PropertyType.ACCESSOR] }));
    expect(raw.second.listTargets()[0].getAttribute('POSITION')).toBeNull();
    const { document, second } = twoPrimitives(true);
    const before = document.getRoot().listAccessors().length;
    expect(await storeAccessorsOnce(document)).toBe(false);
    expect(document.getRoot().listAccessors().length).toBe(before);
    expect(second.listTargets()[0].getAttribute('POSITION')).toBe(second.getAttribute('POSITION'));
  });
});
