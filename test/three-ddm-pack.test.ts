/**
 * corskin/three's Direct Delta Mush packing (`src/methods/ddm/three.ts`): the texels and ranges the vertex
 * shaders read, and the model read back from GLTFLoader-style `_ddm_*` attributes.
 */
import { BufferAttribute, BufferGeometry, Bone, Skeleton, SkinnedMesh } from 'three';
import { describe, expect, it } from 'vitest';
import type { DdmModel } from '../src/methods/ddm/precompute.js';
import { resolveDdmParameters } from '../src/methods/ddm/parameters.js';
import { deltaMushFromGeometry, packDeltaMush } from '../src/methods/ddm/three.js';
import { TEXTURE_WIDTH } from '../src/three/kernel.js';

const parameters = resolveDdmParameters({});
/** Entries 2, 0, 1 for vertices 0, 1, 2; matrix numbers 100·entry + k. */
const offsets = Uint32Array.from([0, 2, 2, 3]);
const joints = Uint32Array.from([3, 1, 2]);
const tenEach = (count: number) => Float32Array.from({ length: 10 * count }, (_, i) => 100 * Math.floor(i / 10) + (i % 10) + 1); // prettier-ignore

describe('packDeltaMush', () => {
  it('full: three texels per entry, (joint, X00 X01 X02), (X03 X11 X12 X13), (X22 X23 X33 0)', () => {
    const model: DdmModel = { variant: 'full', offsets, joints, matrices: tenEach(3), parameters };
    const { range, data, width, height } = packDeltaMush(model, 3);
    expect([width, height]).toEqual([TEXTURE_WIDTH, 1]);
    expect(Array.from(range)).toEqual([0, 2, 6, 0, 6, 1]);
    expect(Array.from(data.subarray(0, 12))).toEqual([3, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0]);
    expect(Array.from(data.subarray(12, 24))).toEqual([1, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 0]);
    expect(Array.from(data.subarray(24, 36))).toEqual([2, 201, 202, 203, 204, 205, 206, 207, 208, 209, 210, 0]);
    expect(data[36]).toBe(0);
  });

  it("compact: Π' in three texels, then the entries two per texel (padding ω = 0)", () => {
    const weights = Float32Array.from([0.75, 0.25, 1]);
    const model: DdmModel = { variant: 'compact', offsets, joints, matrices: tenEach(3), weights, parameters };
    const { range, data } = packDeltaMush(model, 3);
    expect(Array.from(range)).toEqual([0, 2, 4, 0, 4, 1]);
    expect(Array.from(data.subarray(0, 16))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 0, 3, 0.75, 1, 0.25]);
    expect(Array.from(data.subarray(16, 32))).toEqual([201, 202, 203, 204, 205, 206, 207, 208, 209, 210, 0, 0, 2, 1, 0, 0]); // prettier-ignore
  });

  it('throws for a model of another vertex count', () => {
    const model: DdmModel = { variant: 'full', offsets, joints, matrices: tenEach(3), parameters };
    expect(() => packDeltaMush(model, 4)).toThrow(/for 3 vertices, the mesh has 4/);
  });
});

describe('deltaMushFromGeometry', () => {
  /** A mesh with GLTFLoader's attributes for the model above (4 slots, unused slots zero). */
  function meshWith(full: boolean): SkinnedMesh {
    const g = new BufferGeometry();
    g.setAttribute('position', new BufferAttribute(new Float32Array(9), 3));
    const J = new Uint16Array(12);
    const X = new Float32Array((full ? 40 : 4) * 3);
    const M = tenEach(3);
    const w = [0.75, 0.25, 1];
    for (let v = 0; v < 3; v++)
      for (let e = offsets[v], slot = 0; e < offsets[v + 1]; e++, slot++) {
        J[4 * v + slot] = joints[e];
        if (full) X.set(M.subarray(10 * e, 10 * e + 10), 40 * v + 10 * slot);
        else X[4 * v + slot] = w[e];
      }
    g.setAttribute('_ddm_joints_0', new BufferAttribute(J, 4));
    if (full)
      for (let a = 0; a < 10; a++)
        g.setAttribute(
          `_ddm_omega_${a}`,
          new BufferAttribute(
            Float32Array.from({ length: 12 }, (_, k) => X[40 * Math.floor(k / 4) + 4 * a + (k % 4)]),
            4,
          ),
        );
    else {
      g.setAttribute('_ddm_weights_0', new BufferAttribute(X, 4));
      for (let a = 0; a < 3; a++)
        g.setAttribute(
          `_ddm_moments_${a}`,
          new BufferAttribute(
            Float32Array.from({ length: 12 }, (_, k) => {
              const i = 4 * a + (k % 4);
              return i < 10 ? M[10 * Math.floor(k / 4) + i] : 0;
            }),
            4,
          ),
        );
    }
    const bones = [0, 1, 2, 3].map(() => new Bone());
    const mesh = new SkinnedMesh(g);
    mesh.name = 'body';
    mesh.bind(new Skeleton(bones));
    return mesh;
  }

  it('reads the full and compact variants back, unused slots left out', () => {
    const full = deltaMushFromGeometry(meshWith(true))!;
    expect(full.variant).toBe('full');
    expect(Array.from(full.offsets)).toEqual(Array.from(offsets));
    expect(Array.from(full.joints)).toEqual(Array.from(joints));
    expect(Array.from(full.matrices)).toEqual(Array.from(tenEach(3)));
    const compact = deltaMushFromGeometry(meshWith(false))!;
    expect(compact.variant).toBe('compact');
    expect(Array.from(compact.offsets)).toEqual(Array.from(offsets));
    expect(Array.from(compact.weights!)).toEqual([0.75, 0.25, 1]);
    expect(Array.from(compact.matrices)).toEqual(Array.from(tenEach(3)));
  });

  it('is undefined without the attributes, and names the mesh for a missing one', () => {
    const mesh = meshWith(true);
    mesh.geometry.deleteAttribute('_ddm_omega_7');
    expect(() => deltaMushFromGeometry(mesh)).toThrow(/body.*_ddm_omega_7|_ddm_omega_7.*body/s);
    expect(() => deltaMushFromGeometry(mesh)).toThrow(/store them again with corskin precompute --method ddm/);
    mesh.geometry.deleteAttribute('_ddm_joints_0');
    expect(deltaMushFromGeometry(mesh)).toBeUndefined();
  });
});
