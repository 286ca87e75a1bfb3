/**
 * createParallelSimdDeformer: the SIMD kernels of one frame shared between worker threads over a
 * shared memory must give the one-thread deformer's floats exactly (the same kernel on every
 * vertex; each thread's last vertex written without touching the next thread's first), on every
 * shared character, every skin — uniformly scaled rigs (the kernels' scale pass per share), rigs
 * with stretched joints (the two-phase kernel after the kernels), mirrored — and with
 * as many threads as vertices.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { samplePose } from '../src/core/animation.js';
import { CorskinError } from '../src/core/errors.js';
import type { SkinnedMesh } from '../src/core/mesh.js';
import { restPose, skinningMatrices } from '../src/core/pose.js';
import { computeCentersOfRotation } from '../src/cor/precompute.js';
import { stressPose } from '../src/evaluation/stress-pose.js';
import { extractSkinnedModels, type SkinnedModel } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import {
  createParallelSimdDeformer,
  parallelSimdFactory,
  type ParallelSimdDeformer,
} from '../src/wasm/parallel-simd.js';
import { simdBoundDeformer } from '../src/wasm/bound-deformer.js';
import { deformLbs } from '../src/deformers/lbs.js';
import { createSimdDeformer, type SimdDeformer } from '../src/wasm/simd-skinning.js';
import type { SkinningKernelMethod } from '../src/wasm/kernel-range.js';
import { cylinder } from './helpers/cylinder.js';
import { CESIUM_MAN, SHARED } from './helpers/data.js';

const CHARACTERS = [CESIUM_MAN, ...['Fox.glb', 'ShibaInu.gltf', 'Soldier.glb', 'Ybot.glb', 'chicken.glb', 'rpm-avatar.glb', 'skeleton.glb'].map((f) => join(SHARED, 'characters', f))]; // prettier-ignore

/**
 * Indices of the floats where the two deformers' outputs differ (NaN equal to NaN), at most 5,
 * then — to tell a share no thread wrote from a wrong value — per thread's share of the vertices
 * (as parallel-simd.ts splits them) how many of its floats differ.
 */
function differences(a: SimdDeformer, b: SimdDeformer, threads: number): string[] {
  const found: string[] = [];
  const n = a.output.positions.length / 3;
  const perShare = new Array<number>(threads).fill(0);
  const bounds = Array.from({ length: threads + 1 }, (_, t) => Math.round((t * n) / threads));
  const shareOf = (v: number) => {
    let t = 0;
    while (t + 1 < threads && bounds[t + 1] <= v) t++;
    return t;
  };
  for (const k of ['positions', 'normals', 'tangents'] as const) {
    const x = a.output[k],
      y = b.output[k];
    expect(!!x, k).toBe(!!y);
    if (!x || !y) continue;
    const width = x.length / n;
    for (let i = 0; i < x.length; i++)
      if (!Object.is(x[i], y[i])) {
        if (found.length < 5) found.push(`${k}[${i}]: ${x[i]} vs ${y[i]}`);
        perShare[shareOf(Math.floor(i / width))]++;
      }
  }
  if (found.length) found.push(`floats that differ per share of ${n} vertices: ${perShare.join(', ')}`);
  return found;
}

/** Both deformers on every frame; the first difference found, if any. */
async function compare(mesh: SkinnedMesh, method: SkinningKernelMethod, frames: Float64Array[], threads: number) {
  const one = await createSimdDeformer(mesh, method);
  const many = await createParallelSimdDeformer(mesh, method, { threads });
  try {
    expect(many.threads).toBe(Math.min(threads, mesh.positions.length / 3));
    for (const S of frames) {
      one.deform(S);
      // Poisoned first: a vertex no thread writes would keep its NaN.
      for (const a of [many.output.positions, many.output.normals, many.output.tangents]) a?.fill(NaN);
      many.deform(S);
      const d = differences(one, many, many.threads);
      if (d.length) return d;
    }
    return [];
  } finally {
    await many.close();
  }
}

const models = new Map<string, SkinnedModel[]>();
beforeAll(async () => {
  for (const file of CHARACTERS) models.set(file, extractSkinnedModels(await readDocument(file), file));
  const [cesium] = models.get(CESIUM_MAN)!;
  cesium.mesh.centersOfRotation = computeCentersOfRotation(cesium.mesh).centers;
});

/** A time in the first clip and the stress pose of every skin of `file`. */
function frames(model: SkinnedModel): Float64Array[] {
  const clip = model.animations[0];
  const { skeleton } = model;
  return [
    skinningMatrices(skeleton, samplePose(skeleton, clip, 0.37 * (clip?.duration ?? 0))),
    skinningMatrices(skeleton, stressPose(skeleton)),
  ];
}

describe('createParallelSimdDeformer', () => {
  it.each(['lbs', 'dqs', 'sbs', 'lms'] as const)(
    '%s on 3 threads gives the one-thread floats on every skin of every shared character, clip and stress pose',
    async (method) => {
      for (const file of CHARACTERS)
        for (const model of models.get(file)!)
          expect(await compare(model.mesh, method, frames(model), 3), `${file} ${model.name}`).toEqual([]);
    },
  );

  it('cor on CesiumMan, and every method on CesiumMan mirrored (a reflecting armature node)', async () => {
    const [cesium] = models.get(CESIUM_MAN)!;
    expect(await compare(cesium.mesh, 'cor', frames(cesium), 2)).toEqual([]);
    const mirror = (S: Float64Array) => S.map((x, k) => (k % 4 === 0 ? -x : x)); // x ↦ −x in posed space
    for (const method of ['lbs', 'dqs', 'cor'] as const)
      expect(await compare(cesium.mesh, method, frames(cesium).map(mirror), 2), method).toEqual([]);
  });

  it('takes as many threads as vertices (every share one vertex, the last written through scratch), tangents too', async () => {
    const { mesh: base } = cylinder();
    const n = 7;
    const mesh: SkinnedMesh = {
      ...base,
      positions: base.positions.slice(0, 3 * n),
      normals: base.normals?.slice(0, 3 * n),
      tangents: Float32Array.from({ length: 4 * n }, (_, k) => (k % 4 === 3 ? 1 : Math.sin(k))),
      joints: base.joints.slice(0, 4 * n),
      weights: base.weights.slice(0, 4 * n),
      triangles: new Uint32Array(0),
    };
    const S = skinningMatrices(cylinder().skeleton, restPose(cylinder().skeleton));
    S.set([0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0.3, 0.1, 0, 1], 16); // joint 1 turned 90° about z and moved
    expect(await compare(mesh, 'dqs', [S], 7)).toEqual([]);
    expect(await compare(mesh, 'lbs', [S], 12)).toEqual([]); // capped at 7
  });

  let closed: ParallelSimdDeformer | undefined;
  afterAll(() => closed?.close());
  it('refuses frames once closed, bad thread counts and methods without a kernel here', async () => {
    const [cesium] = models.get(CESIUM_MAN)!;
    closed = await createParallelSimdDeformer(cesium.mesh, 'lbs', { threads: 2 });
    const S = skinningMatrices(cesium.skeleton, restPose(cesium.skeleton));
    closed.deform(S);
    await closed.close();
    await closed.close();
    expect(() => closed!.deform(S)).toThrow(CorskinError);
    await expect(createParallelSimdDeformer(cesium.mesh, 'lbs', { threads: 0 })).rejects.toThrow(/threads/);
    await expect(createParallelSimdDeformer(cesium.mesh, 'lbs', { threads: 1.5 })).rejects.toThrow(/threads/);
    // Only asm/kernels.ts' methods, named up front (not a TypeError at the first frame).
    for (const method of ['ddm', 'DQS', 'foo'])
      await expect(createParallelSimdDeformer(cesium.mesh, method as 'lbs', { threads: 2 })).rejects.toThrow(
        CorskinError,
      );
    // Too few matrices: the same error as the one-thread deformer's.
    const one = await createParallelSimdDeformer(cesium.mesh, 'lbs', { threads: 2 });
    expect(() => one.deform(new Float64Array(16))).toThrow(CorskinError);
    await one.close();
  });
});

describe("parallelSimdFactory: kernels that share large meshes' frames between threads", () => {
  it('shares the frames of a mesh of 10,000 vertices up (Ybot) between threads, bit for bit as one thread; smaller ones (CesiumMan) and other methods on one', async () => {
    const [ybot] = models.get(join(SHARED, 'characters', 'Ybot.glb'))!;
    const [cesium] = models.get(CESIUM_MAN)!;
    const factory = parallelSimdFactory(2);
    try {
      const shared = await factory.create(ybot.mesh, 'lbs');
      expect((shared as ParallelSimdDeformer).threads).toBe(2);
      expect('threads' in (await factory.create(cesium.mesh, 'lbs'))).toBe(false);
      expect('threads' in (await parallelSimdFactory(1).create(ybot.mesh, 'lbs'))).toBe(false);
      // Through simdBoundDeformer: the same floats as the one-thread kernels'.
      const bound = (await simdBoundDeformer('lbs', [ybot.mesh], deformLbs, { create: factory.create })).deform;
      const one = await createSimdDeformer(ybot.mesh, 'lbs');
      const n = ybot.mesh.positions.length / 3;
      for (const S of frames(ybot).slice(0, 4)) {
        const out = { positions: new Float32Array(3 * n) };
        bound(ybot.mesh, S, out);
        one.deform(S);
        expect(out.positions.every((x, i) => Object.is(x, one.output.positions[i]))).toBe(true);
      }
    } finally {
      await factory.close();
    }
  });
});
