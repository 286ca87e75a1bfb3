import { describe, expect, it } from 'vitest';
import { buildPairTable } from '../src/cor/centers.js';
import { centersOfRotationPlanned, exactPlan } from '../src/cor/fast.js';
import { computeCentersOfRotation } from '../src/cor/precompute.js';
import { subdivideByWeights } from '../src/cor/subdivide.js';
import { cylinder } from './helpers/cylinder.js';
import { referenceCenter, referenceDomain } from './helpers/reference.js';

describe('CoR precomputation on a symmetric two-bone cylinder', () => {
  const { mesh, radius } = cylinder();
  const result = computeCentersOfRotation(mesh);
  const n = mesh.positions.length / 3;

  it('puts the centers of blended vertices on the axis (within 1e-6 of the radius)', () => {
    let blended = 0;
    for (let i = 0; i < n; i++) {
      const w = mesh.weights[4 * i];
      if (w === 0 || w === 1) continue;
      blended++;
      const off = Math.hypot(result.centers[3 * i + 1], result.centers[3 * i + 2]);
      expect(off / radius).toBeLessThan(1e-6);
    }
    expect(blended).toBeGreaterThan(100);
    expect(result.blendedVertices).toBe(blended);
  });

  it('keeps the bind position of single-influence vertices', () => {
    for (let i = 0; i < n; i++) {
      const w = mesh.weights[4 * i];
      if (w !== 0 && w !== 1) continue;
      for (let d = 0; d < 3; d++) expect(result.centers[3 * i + d]).toBe(mesh.positions[3 * i + d]);
    }
  });

  it('centers of a ring lie at the ring: the weight level sets are the cross-sections', () => {
    // Symmetric weights depend on x only, so a vertex's most similar triangles are its own ring.
    for (let i = 0; i < n; i++) {
      const w = mesh.weights[4 * i];
      if (w < 0.2 || w > 0.8) continue;
      expect(Math.abs(result.centers[3 * i] - mesh.positions[3 * i])).toBeLessThan(0.05);
    }
  });
});

describe('weight-space subdivision', () => {
  const { mesh } = cylinder({ rings: 9, blend: 0.6 });

  it('preserves total area and refines until sub-triangle weight spread is ≤ ε', () => {
    const eps = 0.05;
    const tris = subdivideByWeights(mesh, eps);
    const ref = referenceDomain(mesh, eps);
    const area = (a: ArrayLike<number>) => Array.from(a).reduce((s, x) => s + x, 0);
    expect(area(tris.areas)).toBeCloseTo(area(ref.areas), 10);
    expect(tris.count).toBe(ref.areas.length);
    expect(tris.count).toBeGreaterThan(mesh.triangles.length / 3);
  });

  it('leaves a mesh with weight-space edges ≤ ε untouched', () => {
    const tris = subdivideByWeights(mesh, 10);
    expect(tris.count).toBe(mesh.triangles.length / 3);
  });

  it('rejects ε ≤ 0 and σ ≤ 0', () => {
    expect(() => subdivideByWeights(mesh, 0)).toThrow(RangeError);
    expect(() => computeCentersOfRotation(mesh, { sigma: -1 })).toThrow(RangeError);
  });
});

describe('exact evaluation', () => {
  const { mesh } = cylinder({ rings: 15, segments: 10, blend: 0.7 });
  const n = mesh.positions.length / 3;

  it('matches the brute-force Eq. 4 on every vertex of a small mesh', () => {
    const ours = computeCentersOfRotation(mesh, { sigma: 0.1, epsilon: 0.1, algorithm: 'exact' }).centers;
    const dom = referenceDomain(mesh, 0.1);
    for (let i = 0; i < n; i++) {
      const ref = referenceCenter(mesh, dom, i, 0.1);
      if (!ref) continue;
      for (let d = 0; d < 3; d++) expect(ours[3 * i + d]).toBeCloseTo(ref[d], 6);
    }
  });

  it('is deterministic and independent of how the vertex range is split', () => {
    const tris = subdivideByWeights(mesh, 0.1);
    const plan = exactPlan(buildPairTable(tris, 2), 0.1);
    const whole = new Float64Array(3 * n);
    centersOfRotationPlanned(plan, mesh, 0, n, whole);
    const pieces = new Float64Array(3 * n);
    for (let b = 0; b < n; b += 7) centersOfRotationPlanned(plan, mesh, b, Math.min(n, b + 7), pieces);
    expect([...pieces]).toEqual([...whole]);
  });

  it('reports progress up to the total and honours an AbortSignal', () => {
    const calls: [number, number][] = [];
    computeCentersOfRotation(mesh, { onProgress: (d, t) => calls.push([d, t]) });
    expect(calls.at(-1)).toEqual([n, n]);
    const ac = new AbortController();
    ac.abort(new Error('stop'));
    expect(() => computeCentersOfRotation(mesh, { signal: ac.signal })).toThrow('stop');
  });
});

describe('parallel precomputation', () => {
  it('gives bit-identical centers on 1, 2 and 3 threads, with progress and cancellation', async () => {
    const { computeCentersOfRotationParallel } = await import('../src/cor/parallel.js');
    const { mesh } = cylinder({ rings: 61, segments: 32, blend: 0.8 });
    const one = await computeCentersOfRotationParallel(mesh, { threads: 1 });
    const progress: number[] = [];
    const two = await computeCentersOfRotationParallel(mesh, { threads: 2, onProgress: (d) => progress.push(d) });
    const three = await computeCentersOfRotationParallel(mesh, { threads: 3 });
    expect([...two.centers]).toEqual([...one.centers]);
    expect([...three.centers]).toEqual([...one.centers]);
    expect(progress.at(-1)).toBe(mesh.positions.length / 3);
    const ac = new AbortController();
    const pending = computeCentersOfRotationParallel(mesh, { threads: 2, signal: ac.signal });
    ac.abort(new Error('cancelled'));
    await expect(pending).rejects.toThrow('cancelled');
  });
});
