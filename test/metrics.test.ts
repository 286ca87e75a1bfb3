/**
 * The metrics on cases with known answers: welding before self-intersection tests (CesiumMan's
 * UV seams), volumes of open meshes only once capped, the ring cross-section's analytic value.
 */
import { describe, expect, it } from 'vitest';
import { restPose, skinningMatrices } from '../src/core/pose.js';
import { deform } from '../src/deformers/index.js';
import { barBenchmark, runBenchmark } from '../src/evaluation/benchmark.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { jointCrossSection } from '../src/metrics/cross-section.js';
import { selfIntersections } from '../src/metrics/surface.js';
import { cappedVolume, enclosedVolume } from '../src/metrics/volume.js';
import { weldByPosition } from '../src/metrics/weld.js';
import { CESIUM_MAN } from './helpers/data.js';
import { closedTube } from '../src/evaluation/bar.js';

describe('self-intersections', () => {
  it("count none on CesiumMan's bind pose: triangles meeting across UV seams are neighbours once welded", async () => {
    const [model] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
    const { positions, triangles } = model.mesh;
    expect(selfIntersections(positions, triangles)).toBe(0);
    // Without welding (every vertex its own), the seams would show up as touching pairs.
    const identity = Uint32Array.from({ length: positions.length / 3 }, (_, i) => i);
    expect(selfIntersections(positions, triangles, identity)).toBeGreaterThan(100);
  });

  it('coplanar triangles cross only where they overlap with area (apart, or touching at a corner, they do not)', () => {
    // Two triangles in z = 0 that share no vertex: overlapping, then side by side with touching boxes, then corner to corner.
    const pair = (b: number[]) =>
      selfIntersections(Float32Array.of(0, 0, 0, 1, 0, 0, 0, 1, 0, ...b), Uint32Array.of(0, 1, 2, 3, 4, 5));
    expect(pair([0.2, 0.2, 0, 1.2, 0.2, 0, 0.2, 1.2, 0])).toBe(1);
    expect(pair([1, 1, 0, 1, 0.5, 0, 0.5, 1, 0])).toBe(0);
    expect(pair([1, 0, 0, 2, 0, 0, 1, 1, 0].map((x, i) => (i === 0 ? 1 + 1e-9 : x)))).toBe(0);
    // Tilted out of the plane, the first pair still crosses; lifted off it, it does not.
    expect(pair([0.2, 0.2, -0.5, 1.2, 0.2, 0.5, 0.2, 1.2, 0])).toBe(1);
    expect(pair([0.2, 0.2, 0.1, 1.2, 0.2, 0.1, 0.2, 1.2, 0.1])).toBe(0);
  });
});

describe('welding by position', () => {
  /** The first vertex with the same coordinates as decimal strings (the definition, by brute force). */
  const byStrings = (p: ArrayLike<number>) => {
    const first = new Map<string, number>();
    return Array.from({ length: p.length / 3 }, (_, i) => {
      const key = `${p[3 * i]},${p[3 * i + 1]},${p[3 * i + 2]}`;
      if (!first.has(key)) first.set(key, i);
      return first.get(key)!;
    });
  };

  it('finds what comparing decimal strings finds: CesiumMan, its copy doubled, and −0, NaN and near-equal cases', async () => {
    const mesh = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN)[0].mesh;
    const twice = new Float32Array([...mesh.positions, ...mesh.positions]);
    const odd = [0, 0, 0, -0, 0, -0, NaN, 1, 2, NaN, 1, 2, 1, 1, 1, 1, 1, 1 + 2 ** -52, 1e-300, 0, 0, 1e-300, 0, 0];
    for (const p of [mesh.positions, twice, odd]) expect(Array.from(weldByPosition(p))).toEqual(byStrings(p));
    const seams = Array.from(weldByPosition(mesh.positions)).filter((f, i) => f !== i).length;
    expect(seams).toBeGreaterThan(0); // CesiumMan's UV seams
    expect(Array.from(weldByPosition(odd))).toEqual([0, 0, 2, 2, 4, 5, 6, 6]);
  });
});

describe('volume', () => {
  it('of an open tube is not the cone from its centroid: capped, it is the cylinder’s (π r² h)', () => {
    const closed = closedTube(40, 64, 2, 0.5);
    const tube = {
      positions: closed.positions,
      triangles: closed.triangles.slice(0, closed.triangles.length - 6 * 64),
    };
    const capped = cappedVolume(tube.positions, tube.triangles, weldByPosition(tube.positions))!;
    expect(capped.capped).toBe(2);
    // A 64-gon prism: (64/2)·sin(2π/64)·r²·h.
    expect(capped.volume).toBeCloseTo(32 * Math.sin((2 * Math.PI) / 64) * 0.25 * 2, 6);
    // Moving the open tube away from the origin changes nothing once capped.
    const moved = tube.positions.map((x, i) => x + (i % 3 === 0 ? 10 : 0));
    expect(cappedVolume(moved, tube.triangles, weldByPosition(moved))!.volume).toBeCloseTo(capped.volume, 6);
    // A closed mesh needs no cap and keeps its enclosed volume.
    const c = cappedVolume(closed.positions, closed.triangles, weldByPosition(closed.positions))!;
    expect(c.capped).toBe(0);
    expect(c.volume).toBeCloseTo(enclosedVolume(closed.positions, closed.triangles), 9);
  });

  it('is not comparable (null) on a non-manifold mesh', () => {
    const positions = [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, -1, 0];
    // Three triangles on the edge (0, 1).
    expect(cappedVolume(positions, [0, 1, 2, 1, 0, 3, 0, 1, 4], weldByPosition(positions))).toBeNull();
  });
});

describe('ring cross-section on the bar', () => {
  it('LBS twisted 135° gives the 50/50 ring its analytic radius cos(67.5°); DQS keeps every ring', () => {
    const rows = runBenchmark(barBenchmark(), ['lbs', 'dqs']);
    const lbs = rows.find((r) => r.case === 'twist 135°' && r.method === 'lbs')!;
    const dqs = rows.find((r) => r.case === 'twist 135°' && r.method === 'dqs')!;
    expect(lbs.minRadiusRatio).toBeCloseTo(Math.cos((67.5 * Math.PI) / 180), 2);
    expect(dqs.minRadiusRatio).toBeCloseTo(1, 6);
    expect(lbs.volumeRatio).toBeLessThan(0.95);
  });

  it('a ring moved as a whole (translated) is not read as collapse', () => {
    const { mesh, skeleton } = barBenchmark();
    const rest = deform('lbs', mesh, skinningMatrices(skeleton, restPose(skeleton))).positions;
    const moved = rest.map((x, i) => x + (i % 3 === 1 ? 0.3 : 0));
    const chain = { parent: [0, 0, 0], joint: [1, 0, 0], child: [2, 0, 0] };
    const cs = jointCrossSection(rest, moved, chain, chain, 0.1);
    expect(cs.minRadiusRatio).toBeCloseTo(1, 6);
  });
});
