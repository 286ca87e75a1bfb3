/**
 * Cage-based deformation: mean value coordinates (against the trigonometric formula written
 * separately), positive mean value coordinates, cage checks, binding and the cage deformer, on
 * synthetic cages and on real meshes (the libigl arm, CesiumMan's leg).
 */
import { describe, expect, it } from 'vitest';
import { bindToCage, type CageBinding } from '../src/cage/bind.js';
import { bindToCageParallel } from '../src/cage/parallel.js';
import { checkCage, type Cage } from '../src/cage/cage.js';
import { createCageDeformer } from '../src/cage/deform.js';
import { meanValueCoordinates } from '../src/cage/mvc.js';
import { createCubeMap, createPmvcScratch, positiveMeanValueCoordinates, prepareCage } from '../src/cage/pmvc.js';
import { windingNumber } from '../src/cage/winding-number.js';
import { CorskinError } from '../src/core/errors.js';
import { computeVertexNormals } from '../src/core/mesh.js';
import { boxCage, sphereCage, tubeCage, voxelCage } from './helpers/cages.js';
import { mvcTrigonometric } from './helpers/mvc-trig.js';

const U = () => voxelCage([[0, 0, 0], [1, 0, 0], [2, 0, 0], [0, 1, 0], [2, 1, 0]]); // prettier-ignore
/** A bent tube (24 sides: 480 triangles), non-convex. */
const bentTube = (sides = 24) => tubeCage([[0, 0, 0], [1, 0, 0], [2, 0.2, 0], [2.8, 0.9, 0.1], [3.2, 1.8, 0.3], [3.3, 2.8, 0.2], [3.1, 3.7, 0], [2.6, 4.4, -0.2], [2, 4.8, -0.3], [1.3, 5, -0.3]], 0.6, sides); // prettier-ignore

function bounds(c: Cage): [number[], number[]] {
  const lo = [Infinity, Infinity, Infinity],
    hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < c.positions.length; i++) {
    lo[i % 3] = Math.min(lo[i % 3], c.positions[i]);
    hi[i % 3] = Math.max(hi[i % 3], c.positions[i]);
  }
  return [lo, hi];
}

function diagonal(c: Cage): number {
  const [lo, hi] = bounds(c);
  return Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
}

/** |Σλ − 1| and |Σ λ_i p_i − x|. */
function identities(c: Cage, l: ArrayLike<number>, x: number[]) {
  let s = 0;
  const q = [0, 0, 0];
  for (let i = 0; i < l.length; i++) {
    s += l[i];
    for (let k = 0; k < 3; k++) q[k] += l[i] * c.positions[3 * i + k];
  }
  return { sum: Math.abs(s - 1), linear: Math.hypot(q[0] - x[0], q[1] - x[1], q[2] - x[2]) };
}

/** Deterministic points in the box [lo, hi]. */
function points(count: number, lo: number[], hi: number[]): number[][] {
  let seed = 12345;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: count }, () => lo.map((a, k) => a + rnd() * (hi[k] - a)));
}

describe('mean value coordinates', () => {
  for (const [name, cage] of [
    ['a U-shaped cage', U()],
    ['a bent 480-triangle tube', bentTube()],
  ] as const) {
    it(`${name}: Σλ = 1 and linear precision inside and outside; the trigonometric formula agrees`, () => {
      checkCage(cage);
      expect(cage.triangles.length / 3).toBeGreaterThanOrEqual(name.includes('480') ? 480 : 20);
      const diag = diagonal(cage);
      const m = cage.positions.length / 3;
      const out = new Float64Array(m);
      let inside = 0,
        outside = 0,
        negative = 0;
      for (const x of points(60, [-1, -1, -1], [4, 6, 2])) {
        meanValueCoordinates(cage, x, 0, out);
        const { sum, linear } = identities(cage, out, x);
        expect(sum).toBeLessThan(1e-12);
        expect(linear).toBeLessThan(1e-10 * diag);
        const twin = mvcTrigonometric(cage, x);
        for (let i = 0; i < m; i++) expect(Math.abs(out[i] - twin[i])).toBeLessThan(1e-9);
        if (windingNumber(cage, x) > 0.5) inside++;
        else outside++;
        if (out.some((v) => v < 0)) negative++;
      }
      expect(inside).toBeGreaterThan(3);
      expect(outside).toBeGreaterThan(3);
      expect(negative).toBeGreaterThan(0); // MVC goes negative in non-convex cages
    });
  }

  it('is the unit coordinate at a cage vertex and barycentric on a face', () => {
    const cage = U();
    const m = cage.positions.length / 3;
    const out = new Float64Array(m);
    for (const i of [0, 5, m - 1]) {
      meanValueCoordinates(cage, Array.from(cage.positions.subarray(3 * i, 3 * i + 3)), 0, out);
      expect(
        Array.from(out)
          .map((v, j) => (j === i ? v - 1 : v))
          .every((v) => Math.abs(v) < 1e-15),
      ).toBe(true);
    }
    // Found by an independent review: a point on an edge two triangles share (a face's diagonal)
    // was on neither, by the arcs' rounding, and both were left out (0.34 off on a cube).
    // Every edge of the cage, at three places along it: the edge's linear interpolation.
    for (let f = 0; f < cage.triangles.length; f += 3)
      for (let k = 0; k < 3; k++) {
        const [a, b2] = [cage.triangles[f + k], cage.triangles[f + ((k + 1) % 3)]];
        for (const s of [0.25, 0.5, 0.8]) {
          const y = [0, 1, 2].map((d) => (1 - s) * cage.positions[3 * a + d] + s * cage.positions[3 * b2 + d]);
          meanValueCoordinates(cage, y, 0, out);
          expect(out[a], `edge ${a}–${b2} at ${s}`).toBeCloseTo(1 - s, 12);
          expect(out[b2], `edge ${a}–${b2} at ${s}`).toBeCloseTo(s, 12);
          expect(identities(cage, out, y).linear).toBeLessThan(1e-12);
        }
      }
    // A point on triangle 7: its barycentric coordinates, exactly linear.
    const t = cage.triangles.subarray(21, 24);
    const b = [0.2, 0.3, 0.5];
    const x = [0, 1, 2].map((k) => b.reduce((s, bi, j) => s + bi * cage.positions[3 * t[j] + k], 0));
    meanValueCoordinates(cage, x, 0, out);
    for (let j = 0; j < 3; j++) expect(out[t[j]]).toBeCloseTo(b[j], 12);
    expect(out.reduce((s, v) => s + Math.abs(v), 0)).toBeCloseTo(1, 12);
  });
});

describe('positive mean value coordinates', () => {
  const pmvc = (cage: Cage, x: number[], alwaysRasterize = false) => {
    const out = new Float64Array(cage.positions.length / 3);
    return positiveMeanValueCoordinates(prepareCage(cage), x, 0, out, createPmvcScratch(createCubeMap(), cage), {
      alwaysRasterize,
    });
  };

  it('inside a U-shaped and a bent tube cage: all ≥ 0, Σ = 1 and linear precision to 1e-9 of the diagonal', () => {
    for (const cage of [U(), bentTube()]) {
      const diag = diagonal(cage);
      let tested = 0;
      for (const x of points(80, ...bounds(cage))) {
        if (windingNumber(cage, x) < 0.5) continue;
        tested++;
        const l = pmvc(cage, x);
        expect(Math.min(...l)).toBeGreaterThanOrEqual(0);
        const { sum, linear } = identities(cage, l, x);
        expect(sum).toBeLessThan(1e-12);
        expect(linear).toBeLessThan(1e-9 * diag);
      }
      expect(tested).toBeGreaterThan(5);
    }
  });

  it('gives no weight to cage vertices the point cannot see (U shape), where MVC does', () => {
    const cage = U();
    const x = [0.5, 1.8, 0.5]; // high in the left arm of the U
    const l = pmvc(cage, x);
    const mvc = meanValueCoordinates(cage, x, 0, new Float64Array(l.length));
    // The outer wall of the right arm (x = 3) is hidden behind the left arm's inner wall.
    const hidden = [...Array(l.length).keys()].filter(
      (i) => cage.positions[3 * i] === 3 && cage.positions[3 * i + 1] >= 1,
    );
    expect(hidden.length).toBeGreaterThan(0);
    for (const i of hidden) {
      expect(l[i]).toBe(0);
      expect(Math.abs(mvc[i])).toBeGreaterThan(1e-4);
    }
  });

  it('inside a convex cage: equal to MVC (exactly), and the cube map alone within 5e-5 at the default resolution', () => {
    for (const cage of [boxCage(), sphereCage(1)]) {
      for (const x of points(20, [-0.5, -0.5, -0.5], [0.5, 0.5, 0.5])) {
        const mvc = meanValueCoordinates(cage, x, 0, new Float64Array(cage.positions.length / 3));
        const exact = pmvc(cage, x);
        const raster = pmvc(cage, x, true);
        for (let i = 0; i < mvc.length; i++) {
          expect(Math.abs(exact[i] - mvc[i])).toBeLessThan(1e-14);
          expect(Math.abs(raster[i] - mvc[i])).toBeLessThan(5e-5);
        }
      }
    }
  });
});

describe('cage checks', () => {
  const expectCageError = (cage: Cage, message: RegExp) => {
    expect(() => checkCage(cage, 'cage.obj')).toThrow(CorskinError);
    expect(() => checkCage(cage, 'cage.obj')).toThrow(message);
  };
  it('an open cage, a non-manifold one, a flipped triangle, an inverted cage', () => {
    const box = boxCage();
    expectCageError(
      { positions: box.positions, triangles: box.triangles.slice(0, 30) },
      /cage.obj: the cage is not closed: 4 boundary edge/,
    );
    const twoBoxes = voxelCage([
      [0, 0, 0],
      [1, 1, 0],
    ]); // touching along an edge
    expectCageError(twoBoxes, /is not 2-manifold/);
    const flipped = boxCage();
    [flipped.triangles[1], flipped.triangles[2]] = [flipped.triangles[2], flipped.triangles[1]];
    expectCageError(flipped, /not consistently oriented/);
    const inverted = boxCage();
    for (let f = 0; f < inverted.triangles.length; f += 3)
      [inverted.triangles[f + 1], inverted.triangles[f + 2]] = [inverted.triangles[f + 2], inverted.triangles[f + 1]];
    expectCageError(inverted, /is inverted/);
    expect(() => checkCage(sphereCage(2))).not.toThrow();
  });

  it('a skin vertex outside the cage: how many and which', () => {
    const skin = Float32Array.from([0, 0, 0, 0.5, 0.5, 0.5, 3, 0, 0]);
    expect(() => bindToCage(skin, boxCage(), { file: 'skin.glb' })).toThrow(
      /skin.glb: 1 skin vertex\(es\) lie outside the cage .*: 2 \(3\.000, 0\.000, 0\.000\)/,
    );
  });
});

/** Skin: points of a bent tube's interior. */
function tubeSkin(cage: Cage, count: number): Float32Array {
  const pts = points(count * 8, ...bounds(cage)).filter((x) => windingNumber(cage, x) > 0.55);
  return Float32Array.from(pts.slice(0, count).flat());
}

function deformed(skin: Float32Array, binding: CageBinding, cage: Cage, posed: Float64Array) {
  const out = { positions: new Float32Array(skin.length) };
  createCageDeformer({ positions: skin, triangles: new Uint32Array(0) }, binding, cage.positions).deform(posed, out);
  return out.positions;
}

describe('cage deformer normals', () => {
  it('a rigid motion of the cage turns the normals and the tangents with it (a sphere of skin in a box cage; authored normals leaning up to 60° from the area-weighted ones)', () => {
    const skinCage = sphereCage(2, 0.5);
    const positions = Float32Array.from(skinCage.positions);
    const triangles = skinCage.triangles;
    // Authored normals lean from the area-weighted ones (Soldier.glb's do, by 17° median at rest),
    // each its own way: a minimal rotation alone would turn them wrongly about the normal.
    const normals = computeVertexNormals(positions, triangles);
    for (let i = 0; i < normals.length; i += 3) {
      const lean = Math.tan(((Math.PI / 3) * ((i / 3) % 5)) / 4);
      const side = [normals[i + 1], -normals[i], 0.3 * normals[i + 2]];
      const v = [0, 1, 2].map((k) => normals[i + k] + lean * side[k]);
      const l = Math.hypot(...v);
      normals.set(
        v.map((x) => x / l),
        i,
      );
    }
    const cage = boxCage();
    const binding = bindToCage(positions, cage);
    // Tangents: any unit vector ⊥ the normal, w = ±1.
    const tangents = new Float32Array((4 * positions.length) / 3);
    for (let i = 0; i < normals.length / 3; i++) {
      const [x, y, z] = normals.subarray(3 * i, 3 * i + 3);
      const t = Math.abs(x) < 0.9 ? [0, -z, y] : [z, 0, -x];
      const l = Math.hypot(...t);
      tangents.set([t[0] / l, t[1] / l, t[2] / l, i % 2 ? 1 : -1], 4 * i);
    }
    const deformer = createCageDeformer({ positions, normals, tangents, triangles }, binding, cage.positions);
    const c = Math.cos(0.9),
      s = Math.sin(0.9);
    const R = (p: ArrayLike<number>, o = 0) => [c * p[o] - s * p[o + 2], p[o + 1], s * p[o] + c * p[o + 2]];
    const posed = new Float64Array(cage.positions.length);
    for (let i = 0; i < posed.length; i += 3)
      posed.set(
        R(cage.positions, i).map((x, k) => x + [0.2, -0.1, 0.3][k]),
        i,
      );
    const out = { positions: new Float32Array(positions.length), normals: new Float32Array(positions.length) };
    deformer.deform(posed, out);
    let err = 0;
    for (let i = 0; i < normals.length; i += 3) {
      const want = R(normals, i);
      err = Math.max(
        err,
        Math.hypot(out.normals[i] - want[0], out.normals[i + 1] - want[1], out.normals[i + 2] - want[2]),
      );
    }
    expect(err).toBeLessThan(1e-5);
  });
});

describe.each([
  ['pmvc', 'positive'],
  ['pmvc', 'linear'],
  ['mvc', 'linear'],
] as const)('binding (%s, %s correction) and the cage deformer', (method, correction) => {
  const cage = bentTube();
  const skin = tubeSkin(cage, 300);
  const binding = bindToCage(skin, cage, { method, influences: 16, correction });
  const diag = diagonal(cage);
  const mapCage = (f: (p: number[]) => number[]) => {
    const out = new Float64Array(cage.positions.length);
    for (let i = 0; i < out.length; i += 3) out.set(f(Array.from(cage.positions.subarray(i, i + 3))), i);
    return out;
  };
  const maxError = (got: Float32Array, f: (p: number[]) => number[]) => {
    let e = 0;
    for (let i = 0; i < got.length; i += 3) {
      const want = f(Array.from(skin.subarray(i, i + 3)));
      e = Math.max(e, Math.hypot(got[i] - want[0], got[i + 1] - want[1], got[i + 2] - want[2]));
    }
    return e / diag;
  };

  it('reproduces the bind pose, a rigid motion and an affine map of the cage (16 of 242 cage vertices kept)', () => {
    expect(cage.positions.length / 3).toBe(242);
    expect(skin.length / 3).toBe(300);
    expect(maxError(deformed(skin, binding, cage, Float64Array.from(cage.positions)), (p) => p)).toBeLessThan(1e-6);
    const c = Math.cos(1.1),
      s = Math.sin(1.1);
    const rigid = (p: number[]) => [c * p[0] - s * p[1] + 0.3, s * p[0] + c * p[1] - 2, p[2] + 1];
    expect(maxError(deformed(skin, binding, cage, mapCage(rigid)), rigid)).toBeLessThan(1e-5);
    const affine = (p: number[]) => [
      1.5 * p[0] + 0.4 * p[1],
      -0.2 * p[0] + 0.7 * p[1] + 0.3 * p[2] + 1,
      0.1 * p[1] + 2 * p[2] - 0.5,
    ];
    expect(maxError(deformed(skin, binding, cage, mapCage(affine)), affine)).toBeLessThan(1e-5);
  });

  const positive = method === 'pmvc' && correction === 'positive';
  it('weights sum to 1 per vertex' + (positive ? ' and stay ≥ 0 after truncation' : ''), () => {
    for (let i = 0; i < 300; i++) {
      let s = 0;
      for (let k = 0; k < 16; k++) s += binding.weights[16 * i + k];
      expect(s).toBeCloseTo(1, 5);
    }
    if (positive) expect(Math.min(...binding.weights)).toBeGreaterThanOrEqual(0);
    // The linear correction leaves negative weights here (16 cage vertices kept per skin vertex).
    else expect(Math.min(...binding.weights)).toBeLessThan(0);
  });
});

describe.each(['pmvc', 'mvc'] as const)('truncation (%s)', (method) => {
  it('truncated weights vary as continuously along the skin as the full coordinates (no jump where the k-th and (k+1)-th largest swap)', () => {
    // An 8-sided tube like a template limb's cage (82 vertices, 24 kept), 600 points along its axis
    // through the bend: the dense weight vectors' largest step against the untruncated
    // coordinates' largest step (plain top-k jumps by the k-th weight: 8× it here).
    const cage = bentTube(8);
    const m = 600;
    const line = new Float64Array(3 * m);
    for (let i = 0, t = 0; i < m; t = ++i / (m - 1)) line.set([0.3 + 2.5 * t, 0.1 + 0.8 * t * t, 0.05 * t], 3 * i);
    const b = bindToCage(line, cage, { method, influences: 24 });
    const V = cage.positions.length / 3;
    const prepared = prepareCage(cage);
    const scratch = createPmvcScratch(createCubeMap(), cage);
    let prevFull: Float64Array | undefined, prevKept: Float64Array | undefined;
    let fullStep = 0, keptStep = 0; // prettier-ignore
    for (let i = 0; i < m; i++) {
      const full = new Float64Array(V);
      if (method === 'pmvc') positiveMeanValueCoordinates(prepared, line, 3 * i, full, scratch);
      else meanValueCoordinates(cage, line, 3 * i, full);
      const kept = new Float64Array(V);
      for (let k = 0; k < 24; k++) kept[b.indices[24 * i + k]] += b.weights[24 * i + k];
      const l1 = (a: Float64Array, c: Float64Array) => a.reduce((t, x, j) => t + Math.abs(x - c[j]), 0);
      if (prevFull) fullStep = Math.max(fullStep, l1(full, prevFull));
      if (prevKept) keptStep = Math.max(keptStep, l1(kept, prevKept));
      [prevFull, prevKept] = [full, kept];
    }
    console.log(
      `${method}: largest step along the line, truncated ${keptStep.toFixed(4)}, full ${fullStep.toFixed(4)}`,
    );
    expect(keptStep).toBeLessThan(2 * fullStep);
  });
});

describe('binding on worker threads', () => {
  it('bindToCageParallel (2 threads) gives the single-thread binding, with either correction', async () => {
    const cage = bentTube();
    const skin = Float32Array.from(tubeSkin(cage, 300));
    const bindings = [];
    for (const correction of ['positive', 'linear'] as const) {
      const one = bindToCage(skin, cage, { influences: 16, correction });
      const two = await bindToCageParallel(skin, cage, { influences: 16, correction, threads: 2 });
      expect(two.indices).toEqual(one.indices);
      expect(two.weights).toEqual(one.weights);
      bindings.push(one);
    }
    expect(bindings[1].weights).not.toEqual(bindings[0].weights);
  });
});
