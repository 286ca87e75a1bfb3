/**
 * `simdBoundDeformer`: the SIMD kernels for the meshes they were prepared for, JavaScript for any
 * other, and the first frame's agreement check, on a real character (CesiumMan, in its clip and
 * morphed as the bake morphs a mesh).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { samplePose } from '../src/core/animation.js';
import { boundingBoxDiagonal, type SkinnedMesh } from '../src/core/mesh.js';
import { skinningMatrices } from '../src/core/pose.js';
import { computeCentersOfRotation } from '../src/cor/precompute.js';
import type { Deformer } from '../src/deformers/contract.js';
import { deformCor } from '../src/deformers/cor.js';
import { deformDqs } from '../src/deformers/dqs.js';
import { deformLbs } from '../src/deformers/lbs.js';
import { extractSkinnedModels, type SkinnedModel } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import {
  SIMD_AGREEMENT,
  SIMD_NORMAL_AGREEMENT,
  simdBoundDeformer,
  type SimdDeformerFactory,
} from '../src/wasm/bound-deformer.js';
import { copyPosed } from '../src/wasm/instance.js';
import { createSimdDeformer } from '../src/wasm/simd-skinning.js';
import { CESIUM_MAN } from './helpers/data.js';

let cesium: SkinnedModel;
beforeAll(async () => {
  [cesium] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
  cesium.mesh.centersOfRotation = computeCentersOfRotation(cesium.mesh).centers;
});

/** The skinning matrices of CesiumMan's clip at time t. */
const at = (t: number) => skinningMatrices(cesium.skeleton, samplePose(cesium.skeleton, cesium.animations[0], t));

/** Posed positions of `mesh` by `deform` at time t. */
function pose(deform: Deformer, mesh: SkinnedMesh, t: number): Float32Array {
  const out = { positions: new Float32Array(mesh.positions.length) };
  deform(mesh, at(t), out);
  return out.positions;
}

/** The largest distance between corresponding points of `a` and `b`. */
function maxDistance(a: Float32Array, b: Float32Array): number {
  let max = 0;
  for (let i = 0; i < a.length; i += 3) max = Math.max(max, Math.hypot(a[i] - b[i], a[i + 1] - b[i + 1], a[i + 2] - b[i + 2])); // prettier-ignore
  return max;
}

describe('simdBoundDeformer', () => {
  it.each([
    ['lbs', deformLbs],
    ['cor', deformCor],
  ] as const)(
    '%s: the kernels for the bound mesh, within the agreement of JavaScript at every frame',
    async (method, js) => {
      // JavaScript that counts its calls: only the first frame of the bound mesh runs it.
      let calls = 0;
      const counted: Deformer = (m, s, o) => {
        calls++;
        js(m, s, o);
      };
      const { deform, bound } = await simdBoundDeformer(method, [cesium.mesh], counted);
      expect(bound()).toBe(1);
      const diagonal = boundingBoxDiagonal(pose(js, cesium.mesh, 0));
      for (const t of [0.5, 1, 1.5, 2]) {
        const simd = pose(deform, cesium.mesh, t);
        const ref = pose(js, cesium.mesh, t);
        expect(maxDistance(simd, ref)).toBeLessThanOrEqual(SIMD_AGREEMENT * diagonal);
        // Not JavaScript's numbers, the first frame's included: 32-bit kernels differ in the last bits.
        expect(maxDistance(simd, ref)).toBeGreaterThan(0);
      }
      // The first frame gives the kernels' result, as any later frame of the same pose does.
      expect(pose(deform, cesium.mesh, 0.5)).toEqual(pose(deform, cesium.mesh, 0.5));
      const fresh = (await simdBoundDeformer(method, [cesium.mesh], js)).deform;
      expect(pose(fresh, cesium.mesh, 0.5)).toEqual(pose(deform, cesium.mesh, 0.5));
      expect(calls).toBe(1);
      expect(bound()).toBe(1);
    },
  );

  it('another mesh object (a morphed copy) is deformed by the fallback, bit for bit', async () => {
    const { deform } = await simdBoundDeformer('dqs', [cesium.mesh], deformDqs);
    // A copy with its vertices moved, as applyMorphTargets makes one.
    const moved = { ...cesium.mesh, positions: cesium.mesh.positions.map((x, i) => x + (i % 3 === 1 ? 0.01 : 0)) };
    expect(pose(deform, moved, 1)).toEqual(pose(deformDqs, moved, 1));
  });

  it('kernels that disagree with the fallback at the first frame are dropped for it', async () => {
    // The DQS kernels under an LBS fallback (kernels prepared with other settings than the
    // JavaScript deformer): CesiumMan's walk bends the knees and elbows, where they differ.
    const { deform, bound } = await simdBoundDeformer('dqs', [cesium.mesh], deformLbs);
    expect(bound()).toBe(1);
    const dqs = pose(deformDqs, cesium.mesh, 1);
    const lbs = pose(deformLbs, cesium.mesh, 1);
    expect(maxDistance(dqs, lbs)).toBeGreaterThan(SIMD_AGREEMENT * boundingBoxDiagonal(lbs));
    expect(pose(deform, cesium.mesh, 1)).toEqual(lbs);
    expect(bound()).toBe(0);
    expect(pose(deform, cesium.mesh, 1.5)).toEqual(pose(deformLbs, cesium.mesh, 1.5));
  });

  it('a mesh the kernels cannot take (CoR without centers of rotation) is left to the fallback', async () => {
    const bare = { ...cesium.mesh, centersOfRotation: undefined };
    const { deform, bound } = await simdBoundDeformer('cor', [bare], deformLbs);
    expect(bound()).toBe(0);
    expect(pose(deform, bare, 1)).toEqual(pose(deformLbs, bare, 1));
  });

  it('positionsOnly: the same positions as the full kernels, bit for bit; a target with normals goes to the fallback', async () => {
    for (const method of ['lbs', 'cor'] as const) {
      const js = method === 'lbs' ? deformLbs : deformCor;
      const full = (await simdBoundDeformer(method, [cesium.mesh], js)).deform;
      const { deform, bound } = await simdBoundDeformer(method, [cesium.mesh], js, { positionsOnly: true });
      for (const t of [0, 0.7, 1.9]) expect(pose(deform, cesium.mesh, t)).toEqual(pose(full, cesium.mesh, t));
      expect(bound()).toBe(1);
      const n = cesium.mesh.positions.length / 3;
      const withNormals = { positions: new Float32Array(3 * n), normals: new Float32Array(3 * n) };
      const reference = { positions: new Float32Array(3 * n), normals: new Float32Array(3 * n) };
      deform(cesium.mesh, at(1.2), withNormals);
      js(cesium.mesh, at(1.2), reference);
      expect(withNormals).toEqual(reference);
    }
  });

  it('positionsOnly with normalKernels: positions on the positions-only kernels; a target with normals on the full kernels, as the full deformer poses them', async () => {
    const n = cesium.mesh.positions.length / 3;
    const target = () => ({ positions: new Float32Array(3 * n), normals: new Float32Array(3 * n) });
    let calls = 0;
    const counted: Deformer = (m, s, o) => {
      calls++;
      deformCor(m, s, o);
    };
    const full = (await simdBoundDeformer('cor', [cesium.mesh], deformCor)).deform;
    const { deform } = await simdBoundDeformer('cor', [cesium.mesh], counted, {
      positionsOnly: true,
      normalKernels: true,
    });
    const diagonal = boundingBoxDiagonal(pose(deformCor, cesium.mesh, 0));
    for (const t of [0, 0.7, 1.9]) {
      const [a, b, js] = [target(), target(), target()];
      full(cesium.mesh, at(t), a);
      deform(cesium.mesh, at(t), b);
      deformCor(cesium.mesh, at(t), js);
      // The full kernels' numbers, bit for bit, from the first frame on.
      expect(b).toEqual(a);
      // Within the kernels' agreement of JavaScript: unit normals to 1e-5, not JavaScript's own bits.
      expect(maxDistance(b.positions, js.positions)).toBeLessThanOrEqual(SIMD_AGREEMENT * diagonal);
      expect(maxDistance(b.normals, js.normals)).toBeLessThan(1e-5);
      expect(maxDistance(b.normals, js.normals)).toBeGreaterThan(0);
    }
    // JavaScript ran once per set of kernels, at its first frame (the check), never after.
    pose(deform, cesium.mesh, 1.2);
    expect(calls).toBe(2);
  });

  it('kernels whose positions agree but whose normals do not are dropped for the fallback where normals are asked', async () => {
    // The CoR kernels with their normals turned 1° about x (their positions untouched), by a
    // wrapper around them: the positions pass the check, the normals must not.
    const turn = Math.PI / 180;
    const [c, s] = [Math.cos(turn), Math.sin(turn)];
    const turned: SimdDeformerFactory = async (mesh, method, parameters) => {
      const kernels = await createSimdDeformer(mesh, method, parameters);
      return {
        method,
        output: kernels.output,
        deform(skinning, out) {
          kernels.deform(skinning);
          const N = kernels.output.normals!;
          for (let i = 0; i < N.length; i += 3) [N[i + 1], N[i + 2]] = [c * N[i + 1] - s * N[i + 2], s * N[i + 1] + c * N[i + 2]]; // prettier-ignore
          if (out) copyPosed(kernels.output, out);
        },
      };
    };
    const n = cesium.mesh.positions.length / 3;
    const target = () => ({ positions: new Float32Array(3 * n), normals: new Float32Array(3 * n) });
    for (const options of [{}, { positionsOnly: true, normalKernels: true }]) {
      const { deform, bound } = await simdBoundDeformer('cor', [cesium.mesh], deformCor, { ...options, create: turned }); // prettier-ignore
      const [b, js] = [target(), target()];
      deform(cesium.mesh, at(1), b);
      deformCor(cesium.mesh, at(1), js);
      expect(b).toEqual(js);
      // Dropped: a later frame is JavaScript's, bit for bit (positions alone stay on their kernels).
      deform(cesium.mesh, at(1.5), b);
      deformCor(cesium.mesh, at(1.5), js);
      expect(b).toEqual(js);
      expect(bound()).toBe('positionsOnly' in options ? 1 : 0);
    }
    // Not turned, the same kernels pass: the check's bound is wider than float32 normals' noise.
    const { deform, bound } = await simdBoundDeformer('cor', [cesium.mesh], deformCor);
    const b = target();
    deform(cesium.mesh, at(1), b);
    expect(bound()).toBe(1);
    expect(SIMD_NORMAL_AGREEMENT).toBeLessThan(2 * Math.sin(turn / 2));
  });
});
