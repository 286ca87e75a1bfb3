/**
 * `bake --as helpers`: CoR and DQS baked into helper joints fitted by smooth skinning
 * decomposition (Le & Deng 2012). The baked file is plain glTF (validator-clean, at most the
 * asked helpers per joint region, 4 influences), played by three.js's stock GLTFLoader +
 * AnimationMixer as corskin's LBS plays it, and its LBS is far closer to the method than the
 * original's LBS (measured over every sample of the clip). Blender 3.4's own importer and
 * armature play the helper bake of a scaled rig (the Fox, armature scaled 0.025) as corskin does:
 * its helpers carry unit local scale, as the rig's joints do (a Blender bone has no rest scale).
 */
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NodeIO } from '@gltf-transform/core';
import { samplePose } from '../src/core/animation.js';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { skinningMatrices } from '../src/core/pose.js';
import { computeCentersOfRotation } from '../src/cor/precompute.js';
import { deform, deformers } from '../src/deformers/index.js';
import { measureBake } from '../src/bake/measure.js';
import { bakeSampleTimes } from '../src/bake/samples.js';
import { sampleMethod } from '../src/bake/sampling.js';
import { bakeHelperJoints } from '../src/io/helper-bake.js';
import { bakeHelperJointsParallel } from '../src/io/helper-bake-parallel.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { stressPose } from '../src/evaluation/stress-pose.js';
import { readDocument, writeDocument } from '../src/io/node-io.js';
import { underRoot, validate } from './helpers/gltf.js';
import { BLENDER, matchVertices, runBlender } from './helpers/blender.js';
import { CESIUM_MAN, scratch, SHARED } from './helpers/data.js';
import { loadInThree, threePlayer } from './helpers/three-playback.js';
import type * as THREE from 'three';
import { skeletonFromThree } from '../src/methods/templates/three.js';

const tmp = scratch();
afterAll(() => tmp.cleanup());

/**
 * ShibaInu baked by DQS helpers with `influences` per vertex at `rate` samples/s, guarded at the
 * samples, written and read back: the file, and its share of plain LBS's p99 gap removed and its
 * max ÷ LBS's at those samples.
 */
async function bakeShibaInu(influences: 4 | 8, rate: number) {
  const input = join(SHARED, 'characters/ShibaInu.gltf');
  const document = await readDocument(input);
  const [model] = extractSkinnedModels(document, input);
  bakeHelperJoints(document, model, deformers.dqs, { influences, rate, guard: 'samples' });
  const out = join(tmp.dir, `shiba-${influences}.glb`);
  await writeDocument(document, out);
  const [original] = extractSkinnedModels(await readDocument(input), input);
  const [baked] = extractSkinnedModels(await readDocument(out), out);
  const m = measureBake(original, baked, deformers.dqs, rate);
  return { baked, gap: 1 - m.p99 / m.lbsP99, max: m.max / m.lbsMax };
}

describe('bake --as helpers (smooth skinning decomposition, Le & Deng 2012)', () => {
  it.each(['cor', 'dqs'] as const)(
    'CesiumMan, %s: plain glTF with ≤ 2 helpers per region and 4 influences; its LBS removes most of the gap to the method',
    async (method) => {
      const document = await readDocument(CESIUM_MAN);
      const [model] = extractSkinnedModels(document, CESIUM_MAN);
      model.mesh.centersOfRotation = computeCentersOfRotation(model.mesh).centers;
      const deform = deformers[method];
      const result = bakeHelperJoints(document, model, deform, { helpers: 2, influences: 4 });
      expect(result.helpers).toBeGreaterThan(0);
      expect(result.helpers).toBeLessThanOrEqual(2 * result.regions);
      const out = join(tmp.dir, `helpers-${method}.glb`);
      await writeDocument(document, out);
      const report = await validate(out);
      expect(report.issues.numErrors, JSON.stringify(report.issues.messages.slice(0, 3))).toBe(0);
      // Weights as normalised 16-bit integers (glTF 2.0's UNSIGNED_SHORT), half the bytes of floats.
      const written = (await new NodeIO().read(out)).getRoot().listMeshes()[0].listPrimitives()[0].getAttribute('WEIGHTS_0')!; // prettier-ignore
      expect([written.getComponentType(), written.getNormalized()]).toEqual([5123, true]);
      const [original] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
      original.mesh.centersOfRotation = model.mesh.centersOfRotation;
      const [baked] = extractSkinnedModels(await readDocument(out), out);
      expect(baked.mesh.influences).toBe(4);
      expect(baked.skeleton.jointNames.length).toBe(original.skeleton.jointNames.length + result.helpers);
      const m = measureBake(original, baked, deform);
      console.log(
        `${method}: p99 ${m.p99.toExponential(2)} vs LBS ${m.lbsP99.toExponential(2)}; max ${m.max.toExponential(2)} vs ${m.lbsMax.toExponential(2)}`,
      );
      // Measured: CoR 84% and DQS 89% of the p99 gap removed, max 0.42 and 0.15 of LBS's (CoR's
      // 0.23 when the fitted vertices were chosen on the bind diagonal: the fit took another path).
      expect(1 - m.p99 / m.lbsP99).toBeGreaterThan(0.8);
      expect(m.max / m.lbsMax).toBeLessThan(0.5);
    },
    360_000,
  );

  it("CesiumMan, cor: three.js's stock loader and mixer play the helpers as corskin's LBS does, within 1e-5 of the diagonal", async () => {
    const out = join(tmp.dir, 'helpers-cor.glb');
    const [baked] = extractSkinnedModels(await readDocument(out), out);
    const player = await threePlayer(out, baked);
    const clip = baked.animations[0];
    const diag = boundingBoxDiagonal(baked.mesh.positions);
    let worst = 0;
    for (const t of [0.1, 0.5, 0.77, 0.93].map((f) => f * clip.duration)) {
      const three = player.positions(0, t);
      const S = skinningMatrices(baked.skeleton, samplePose(baked.skeleton, clip, t));
      const out2 = { positions: new Float32Array(baked.mesh.positions.length) };
      deformers.lbs(baked.mesh, S, out2);
      for (let i = 0; i < out2.positions.length; i += 3)
        worst = Math.max(worst, Math.hypot(three[i] - out2.positions[i], three[i + 1] - out2.positions[i + 1], three[i + 2] - out2.positions[i + 2]) / diag); // prettier-ignore
    }
    expect(worst).toBeLessThan(1e-5);
  });

  it('ShibaInu, dqs, 4 influences, 645 samples, guarded at the samples: the alternation fits 120, then the helpers settle over all 645', async () => {
    const { gap, max } = await bakeShibaInu(4, 30);
    console.log(`ShibaInu dqs, 4 influences: ${(100 * gap).toFixed(1)}% of the gap, max ${max.toFixed(2)} of LBS's`);
    // Measured (2026-12-04): 84.0%, 0.37 with 12 bone updates over every sample after the
    // alternation; with 6, the samples between the subset's unsettled: 78.3% and 0.80. With the
    // weight update exact over its supports (2026-12-06): 84.6%, 0.56 (the largest distance moves
    // with the fit's local minimum; docs/bake.md, "The weight update exact over its supports").
    expect(gap).toBeGreaterThan(0.81);
    expect(max).toBeLessThan(0.6);
  }, 360_000);

  it('ShibaInu, dqs, 8 influences, 215 samples, guarded at the samples: the fit sees every sample, and removes most of the p99 gap (≥ 85%), never past LBS’s max', async () => {
    const { baked, gap, max } = await bakeShibaInu(8, 10);
    expect(baked.mesh.influences).toBe(8);
    console.log(`ShibaInu dqs, 8 influences: ${(100 * gap).toFixed(0)}% of the gap, max ${max.toFixed(2)} of LBS's`);
    // Measured: 90%, 0.93 (before the normals' guard 91%, 0.19: the vertex at the max is one
    // whose normal the helpers turned, now given back); fitted to 120 of the 215 samples (as
    // with 4 influences), 84% and 0.73 before the guard.
    expect(gap).toBeGreaterThanOrEqual(0.85);
    expect(max).toBeLessThanOrEqual(1);
  }, 360_000);
});

describe("bake --as helpers: the helpers' rotation keys", () => {
  it("short by default (normalized SHORT, 8 bytes a key, valid glTF), float when asked: up to 8 bytes a key more, the same fit within the keys' precision (CesiumMan, dqs)", async () => {
    const bytes: Record<string, number> = {};
    const measures: Record<string, ReturnType<typeof measureBake>> = {};
    for (const rotations of ['short', 'float'] as const) {
      const document = await readDocument(CESIUM_MAN);
      const [model] = extractSkinnedModels(document, CESIUM_MAN);
      bakeHelperJoints(document, model, deformers.dqs, { rate: 10, rotations, keyTolerance: 0 });
      const out = join(tmp.dir, `rotations-${rotations}.glb`);
      await writeDocument(document, out);
      const report = await validate(out);
      expect(report.issues.numErrors, JSON.stringify(report.issues.messages.slice(0, 3))).toBe(0);
      const written = await new NodeIO().read(out);
      const outputs = written
        .getRoot()
        .listAnimations()
        .flatMap((a) => a.listChannels())
        .filter((c) => c.getTargetNode()!.getName().includes('_helper') && c.getTargetPath() === 'rotation')
        .map((c) => c.getSampler()!.getOutput()!);
      expect(outputs.length).toBeGreaterThan(0);
      for (const a of outputs) {
        expect(a.getComponentType()).toBe(rotations === 'short' ? 5122 : 5126); // SHORT, FLOAT
        expect(a.getNormalized()).toBe(rotations === 'short');
      }
      bytes[rotations] = (await readFile(out)).length;
      bytes[`${rotations} keys`] = outputs.reduce((s, a) => s + a.getCount(), 0);
      const [original] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
      const [baked] = extractSkinnedModels(await readDocument(out), out);
      measures[rotations] = measureBake(original, baked, deformers.dqs, 10);
    }
    console.log(`rotation keys: ${bytes['short keys']}; short ${bytes.short} B, float ${bytes.float} B; p99 ${measures.short.p99.toExponential(3)} vs ${measures.float.p99.toExponential(3)}`); // prettier-ignore
    // 8 bytes less a key (measured 0.89 of it: the writer shares a few identical accessors).
    expect(bytes.float - bytes.short).toBeGreaterThanOrEqual(0.8 * 8 * bytes['short keys']);
    expect(bytes.float - bytes.short).toBeLessThanOrEqual(8 * bytes['short keys'] + 64);
    // A key moves by at most 1/32767 per component: the fit, and so the measure, moves by far less
    // than the bake's own distance to DQS.
    expect(Math.abs(measures.short.p99 - measures.float.p99)).toBeLessThan(0.02 * measures.float.p99);
    expect(measures.short.worseSamples).toBe(0);
  }, 360_000);
});

describe('the bakes stop when their AbortSignal says so', () => {
  it.each(['helpers', 'morphs'] as const)(
    '%s: an abort during the bake throws its reason, and the document is untouched',
    async (kind) => {
      const { bakeMorphTargets } = await import('../src/io/morph-bake.js');
      const document = await readDocument(CESIUM_MAN);
      const [model] = extractSkinnedModels(document, CESIUM_MAN);
      const before = document.getRoot().listNodes().length;
      const controller = new AbortController();
      let calls = 0;
      const deform = (...args: Parameters<typeof deformers.dqs>) => {
        if (++calls === 3) controller.abort(new Error('stop'));
        deformers.dqs(...args);
      };
      const options = { signal: controller.signal };
      expect(() =>
        kind === 'helpers'
          ? bakeHelperJoints(document, model, deform, options)
          : bakeMorphTargets(document, model, deform, options),
      ).toThrow('stop');
      expect(calls).toBeLessThan(5); // stopped at once, not after every sample
      expect(document.getRoot().listNodes().length).toBe(before);
    },
  );
});

describe('bake --as helpers is never worse than plain LBS', () => {
  it('CesiumMan, cor: at every vertex, its largest distance to CoR over the samples is at most plain LBS’s', async () => {
    const document = await readDocument(CESIUM_MAN);
    const [model] = extractSkinnedModels(document, CESIUM_MAN);
    model.mesh.centersOfRotation = computeCentersOfRotation(model.mesh).centers;
    const cor = deformers.cor;
    const result = bakeHelperJoints(document, model, cor, { rate: 5 });
    const out = join(tmp.dir, 'cesium-never-worse.glb');
    await writeDocument(document, out);
    const [baked] = extractSkinnedModels(await readDocument(out), out);
    // Brute force over the samples: the method and plain LBS on the original, the file by LBS.
    const n = model.mesh.positions.length / 3;
    const clip = model.animations[0];
    const [bakedWorst, lbsWorst] = [new Float64Array(n), new Float64Array(n)];
    const [method, lbs, played] = [0, 1, 2].map(() => ({ positions: new Float32Array(3 * n) }));
    for (let s = 0; s <= Math.round(clip.duration * 5); s++) {
      const t = Math.min(s / 5, clip.duration);
      const S = skinningMatrices(model.skeleton, samplePose(model.skeleton, clip, t));
      cor(model.mesh, S, method);
      deformers.lbs(model.mesh, S, lbs);
      deformers.lbs(baked.mesh, skinningMatrices(baked.skeleton, samplePose(baked.skeleton, baked.animations[0], t)), played); // prettier-ignore
      for (let i = 0; i < n; i++) {
        const d = (a: Float32Array) => Math.hypot(a[3 * i] - method.positions[3 * i], a[3 * i + 1] - method.positions[3 * i + 1], a[3 * i + 2] - method.positions[3 * i + 2]); // prettier-ignore
        bakedWorst[i] = Math.max(bakedWorst[i], d(played.positions));
        lbsWorst[i] = Math.max(lbsWorst[i], d(lbs.positions));
      }
    }
    const diagonal = boundingBoxDiagonal(method.positions);
    let worse = 0;
    for (let i = 0; i < n; i++) if (bakedWorst[i] > lbsWorst[i] + 1e-5 * diagonal) worse++;
    console.log(
      `CesiumMan cor helpers at 5 samples/s: ${result.helpers} helpers, ${result.revertedVertices} of ${result.activeVertices} vertices kept their own weights; ${worse} vertices farther from CoR than LBS`,
    );
    expect(result.helpers).toBeGreaterThan(10);
    expect(worse).toBe(0);
  }, 360_000);
});

describe('bake --as helpers on a mirrored rig', () => {
  /**
   * The Fox under a node scaled (−1, 1, 1); with `bind`, its bind mirrored too (inverse bind
   * matrices · diag(−1, 1, 1), positions and normals mirrored: it plays as the plain Fox).
   */
  async function mirroredFox(bind: boolean): Promise<string> {
    const io = new NodeIO();
    const document = await io.read(join(SHARED, 'characters/Fox.glb'));
    await document.transform(underRoot({ scale: [-1, 1, 1] }));
    if (bind) {
      for (const skin of document.getRoot().listSkins()) {
        const ibm = skin.getInverseBindMatrices()!;
        const m = (ibm.getArray() as Float32Array).slice();
        for (let o = 0; o < m.length; o += 16) for (let r = 0; r < 4; r++) m[o + r] = -m[o + r];
        ibm.setArray(m);
      }
      for (const p of document
        .getRoot()
        .listMeshes()
        .flatMap((mesh) => mesh.listPrimitives()))
        for (const semantic of ['POSITION', 'NORMAL']) {
          const a = p.getAttribute(semantic);
          if (a) a.setArray(Float32Array.from(a.getArray() as Float32Array, (x, i) => (i % 3 === 0 ? -x : x)));
        }
    }
    const out = join(tmp.dir, `fox-mirrored${bind ? '-bind' : ''}.glb`);
    await io.write(out, document);
    return out;
  }

  it.each([
    ['Fox', 'characters/Fox.glb', 5, 'samples'],
    ['Fox', 'characters/Fox.glb', 5, 'between'],
    ['Fox, beyond the clips lbs', 'characters/Fox.glb', 5, 'samples', 'lbs'],
    // Its clip keys no morph weight: with a morph target weighted 0.6 by default, the bind positions
    // differ from the mesh's at every sample (the fit's per-sample path).
    ['rpm-avatar (a morph target weighted 0.6: bind positions per sample)', 'characters/rpm-avatar.glb', 2, 'samples', undefined, 0.6], // prettier-ignore
  ] as const)(
    '%s, dqs, guard %s: the fit on 2 worker threads writes the same bytes as on this thread',
    async (_, path, rate, guard, beyondClips?: 'lbs', morphWeight?: number) => {
      const file = join(SHARED, path);
      const bytes: Uint8Array[] = [];
      for (const threads of [1, 2]) {
        const document = await readDocument(file);
        if (morphWeight) {
          const mesh = document
            .getRoot()
            .listMeshes()
            .find((m) => m.getWeights().length)!;
          mesh.setWeights(mesh.getWeights().map((w, k) => (k === 0 ? morphWeight : w)));
        }
        const [model] = extractSkinnedModels(document, file);
        if (morphWeight) {
          const { rest } = sampleMethod(model, deformers.lbs, rate);
          expect(rest.every((r) => r !== model.mesh.positions)).toBe(true);
        }
        const r = await bakeHelperJointsParallel(document, model, deformers.dqs, { rate, threads, guard, beyondClips }); // prettier-ignore
        expect(r.helpers).toBeGreaterThan(0);
        bytes.push(await new NodeIO().writeBinary(document));
      }
      expect(Buffer.from(bytes[1]).equals(Buffer.from(bytes[0]))).toBe(true);
    },
    360_000,
  );

  it("CesiumMan, dqs: the baked file's helpers are no limbs: its stress pose turns the original joints as the original's does, the helpers follow their joints", async () => {
    const document = await readDocument(CESIUM_MAN);
    const [model] = extractSkinnedModels(document, CESIUM_MAN);
    const { helpers } = bakeHelperJoints(document, model, deformers.dqs, { rate: 5 });
    const out = join(tmp.dir, 'helpers-stress.glb');
    await writeDocument(document, out);
    const [baked] = extractSkinnedModels(await readDocument(out), out);
    const [original] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
    expect(baked.skeleton.helpers?.reduce((s, h) => s + h, 0)).toBe(helpers);
    const [a, b] = [stressPose(original.skeleton), stressPose(baked.skeleton)];
    original.skeleton.jointNames.forEach((name, j) => {
      const k = baked.skeleton.jointNames.indexOf(name);
      for (let c = 0; c < 4; c++) expect(b.rotations[4 * k + c], name).toBeCloseTo(a.rotations[4 * j + c], 6);
    });
    baked.skeleton.helpers!.forEach((h, k) => {
      if (!h) return;
      for (let c = 0; c < 4; c++) expect(b.rotations[4 * k + c]).toBe(baked.skeleton.restRotations[4 * k + c]);
    });

    // The viewer's skeleton (three.js's bones, GLTFLoader's node extras as userData) marks them too.
    const scene = (await loadInThree(out)).scene;
    let mesh: THREE.SkinnedMesh | undefined;
    scene.traverse(
      (o) => void (mesh ??= (o as THREE.SkinnedMesh).isSkinnedMesh ? (o as THREE.SkinnedMesh) : undefined),
    );
    const fromThree = skeletonFromThree(mesh!);
    expect(Array.from(fromThree.helpers!)).toEqual(
      mesh!.skeleton.bones.map((bone) => (bone.name.includes('_helper') ? 1 : 0)),
    );
  });

  async function measure(input: string) {
    const document = await readDocument(input);
    const [model] = extractSkinnedModels(document, input);
    const [original] = extractSkinnedModels(await readDocument(input), input);
    bakeHelperJoints(document, model, deformers.dqs, { helpers: 2, influences: 4, rate: 5, guard: 'samples' });
    const out = join(tmp.dir, basename(input).replace(/\.glb$/, '-helpers.glb')); // never beside a shared input
    await writeDocument(document, out);
    // Each helper at rest: its joint's frame moved, a translation alone (mirrored bind or not).
    const written = (await readDocument(out))
      .getRoot()
      .listNodes()
      .filter((n) => n.getExtras().corskin);
    expect(written.length).toBeGreaterThan(0);
    for (const node of written) {
      expect(node.getRotation(), node.getName()).toEqual([0, 0, 0, 1]);
      expect(node.getScale(), node.getName()).toEqual([1, 1, 1]);
    }
    const [baked] = extractSkinnedModels(await readDocument(out), out);
    return measureBake(original, baked, deformers.dqs, 5);
  }

  it('the Fox mirrored above its skeleton, and with its bind mirrored too, dqs: most of the distance to DQS removed, as on the Fox itself', async () => {
    const plain = await measure(join(SHARED, 'characters/Fox.glb'));
    for (const bind of [false, true]) {
      const mirrored = await measure(await mirroredFox(bind));
      console.log(
        `Fox dqs helpers: p99 ${plain.p99.toExponential(2)}; mirrored${bind ? ' with its bind' : ''} ${mirrored.p99.toExponential(2)} (LBS ${mirrored.lbsP99.toExponential(2)})`,
      );
      // The same character: LBS as far from DQS. The fits are not mirror images bit for bit (the
      // weight update's choices turn on float rounding, and the alternation then takes another
      // path): measured 74% removed on the Fox, 60% mirrored, since the normals' guard gives back
      // the vertices whose normals the helpers turned (93–95% either way before, counting them).
      expect(mirrored.lbsP99).toBeCloseTo(plain.lbsP99, 6);
      for (const m of [plain, mirrored]) expect(1 - m.p99 / m.lbsP99).toBeGreaterThan(0.5);
      expect(mirrored.max).toBeLessThan(0.5 * mirrored.lbsMax);
    }
  }, 540_000);
});

describe("bake --as helpers in another client: Blender 3.4's importer", () => {
  it.skipIf(!BLENDER)(
    "the Fox (armature scaled 0.025), dqs: helpers of unit local scale and no rest rotation, and Blender 3.4's importer plays the bake as corskin's LBS does at the samples, within 1e-4 of the diagonal",
    async () => {
      const file = join(SHARED, 'characters/Fox.glb');
      const document = await readDocument(file);
      const [model] = extractSkinnedModels(document, file);
      const result = bakeHelperJoints(document, model, deformers.dqs, { helpers: 2, influences: 4 });
      for (const node of document
        .getRoot()
        .listNodes()
        .filter((n) => n.getExtras().corskin))
        expect([...node.getScale(), ...node.getRotation()], node.getName()).toEqual([1, 1, 1, 0, 0, 0, 1]);
      const out = join(tmp.dir, 'fox-helpers-dqs.glb');
      await writeDocument(document, out);
      const [baked] = extractSkinnedModels(await readDocument(out), out);
      expect(baked.skeleton.jointNames.length).toBe(model.skeleton.jointNames.length + result.helpers);
      // Samples of the first clip (the one Blender's importer makes active): between them Blender
      // interpolates rotations component by component where glTF slerps (bake-blender.test.ts).
      const samples = bakeSampleTimes(model.animations[0].duration, 30);
      const times = [15, 30, 45].map((f) => samples[f]);
      /** Largest distance between Blender's playback of `path` and corskin's LBS of `m`, ÷ the diagonal. */
      const blenderDistance = (path: string, m: typeof baked) => {
        const played = runBlender(tmp.dir, path, times).meshes[0];
        const posed = times.map(
          (t) =>
            deform('lbs', m.mesh, skinningMatrices(m.skeleton, samplePose(m.skeleton, m.animations[0], t))).positions,
        );
        // Blender's vertices (welded, reordered) matched to corskin's at the first time; then
        // every time must put each at the same vertex's place.
        const map = matchVertices(posed[0], played.lbs[0], 1e-3);
        let worst = 0;
        posed.forEach((ours, k) => {
          for (let b = 0; b < map.length; b++)
            for (let c = 0; c < 3; c++)
              worst = Math.max(worst, Math.abs(ours[3 * map[b] + c] - played.lbs[k][3 * b + c]));
        });
        return worst / boundingBoxDiagonal(posed[0]);
      };
      const bakedDistance = blenderDistance(out, baked);
      const originalDistance = blenderDistance(file, extractSkinnedModels(await readDocument(file), file)[0]);
      console.log(
        `Fox, dqs helpers (${result.helpers}): Blender vs corskin ${bakedDistance.toExponential(2)} of the diagonal (the original file: ${originalDistance.toExponential(2)})`,
      );
      expect(bakedDistance).toBeLessThan(1e-4);
    },
    540_000,
  );
});
