/**
 * The CoR precomputation streamed over chunks of triangles (cor/stream.ts) against the same
 * evaluation over the whole subdivided domain held at once (`buildPairTable` + `planPairs`, the
 * reference written before streaming): the same plan up to the order of the bins' sums, the same
 * exact centers bit for bit, only the exact pairs' entries held, and the same bits on one and two
 * threads over several chunks.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { boundingBoxDiagonal, type SkinnedMesh } from '../src/core/mesh.js';
import { buildPairTable } from '../src/cor/centers.js';
import { centersOfRotationPlanned, exactPlan, fastResolution, pairVertexStats, planPairs } from '../src/cor/fast.js';
import { computeCentersOfRotationParallel } from '../src/cor/parallel.js';
import { computeCentersOfRotation } from '../src/cor/precompute.js';
import { binChunk, chunkRanges, PairSums, SUBDIVISION_BATCH, vertexPairs } from '../src/cor/stream.js';
import { subdivideByWeights } from '../src/cor/subdivide.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { convertLibigl } from './helpers/convert.js';
import { CESIUM_MAN, scratch } from './helpers/data.js';

const tmp = scratch();
afterAll(tmp.cleanup);

async function load(file: string): Promise<SkinnedMesh> {
  return extractSkinnedModels(await readDocument(file), file)[0].mesh;
}

const jointCount = (mesh: SkinnedMesh) => 1 + mesh.joints.reduce((a, b) => Math.max(a, b), 0);

/** The whole-domain plan of the fast algorithm, evaluated at every vertex. */
function wholeDomain(mesh: SkinnedMesh, exact: boolean) {
  const table = buildPairTable(subdivideByWeights(mesh, 0.1), jointCount(mesh));
  const plan = exact ? exactPlan(table, 0.1) : planPairs(table, pairVertexStats(table, mesh), 0.1);
  const centers = new Float32Array(mesh.positions.length);
  centersOfRotationPlanned(plan, mesh, 0, mesh.positions.length / 3, centers);
  return { table, plan, centers };
}

describe('streamed CoR precomputation', () => {
  it('equals the whole-domain evaluation on the armadillo (several chunks): fast to 1e-6 of the diagonal, same strategies', async () => {
    const mesh = await load(await convertLibigl(tmp.dir, 'armadillo'));
    const triangles = mesh.triangles.length / 3;
    // Several chunks, each of several batches.
    expect(chunkRanges(triangles).length).toBeGreaterThan(2);
    expect(chunkRanges(triangles)[0][1]).toBeGreaterThan(SUBDIVISION_BATCH);
    const whole = wholeDomain(mesh, false);
    const streamed = computeCentersOfRotation(mesh).centers;
    const diag = boundingBoxDiagonal(mesh.positions);
    let err = 0;
    for (let i = 0; i < streamed.length; i++) err = Math.max(err, Math.abs(streamed[i] - whole.centers[i]));
    expect(err / diag).toBeLessThan(1e-6);

    // The streamed plan: the same strategy per pair, and only the exact pairs' entries held.
    const pairs = vertexPairs(mesh, jointCount(mesh));
    const sums = new PairSums(pairs, fastResolution(), false);
    for (const [a, b] of chunkRanges(triangles)) sums.add(binChunk(mesh, pairs, 0.1, fastResolution(), false, a, b));
    const plan = sums.plan(0.1, false);
    let exactEntries = 0;
    for (const [key, p] of plan.table.buckets) {
      const q = whole.table.buckets.get(key);
      if (q === undefined) continue; // a vertex pair no sub-triangle carries: nothing to evaluate
      expect(plan.strategy[p]).toBe(whole.plan.strategy[q]);
      if (plan.strategy[p] === 'exact') exactEntries += whole.table.offsets[q + 1] - whole.table.offsets[q];
    }
    expect(plan.table.data.length / 6).toBe(exactEntries);
    expect(exactEntries).toBeLessThan(0.05 * (whole.table.data.length / 6));
    expect(sums.subTriangles).toBe(subdivideByWeights(mesh, 0.1).count);
  });

  it('adds up chunks of any size to the whole-domain plan on CesiumMan (chunks of 97 and 500 triangles): the exact pairs’ entries bit for bit, bins and lattices to rounding', async () => {
    const mesh = await load(CESIUM_MAN);
    const triangles = mesh.triangles.length / 3;
    const whole = wholeDomain(mesh, false);
    const entriesOf = (table: typeof whole.table, p: number | undefined) =>
      p === undefined ? new Float64Array(0) : table.data.subarray(6 * table.offsets[p], 6 * table.offsets[p + 1]);
    /** max |a − b| over max |b|: the bins' centred moments cancel, so compare against the array's scale. */
    const relative = (a: Float64Array, b: Float64Array) => {
      expect(a.length).toBe(b.length);
      let d = 0, m = 0; // prettier-ignore
      for (let i = 0; i < a.length; i++) {
        d = Math.max(d, Math.abs(a[i] - b[i]));
        m = Math.max(m, Math.abs(b[i]));
      }
      return d / m;
    };
    const seen = { exact: 0, bins: 0, grid: 0 };
    for (const size of [97, 500]) {
      for (const keepAll of [false, true]) {
        const pairs = vertexPairs(mesh, jointCount(mesh));
        const sums = new PairSums(pairs, fastResolution(), keepAll);
        for (let a = 0; a < triangles; a += size)
          sums.add(binChunk(mesh, pairs, 0.1, fastResolution(), keepAll, a, Math.min(triangles, a + size)));
        const plan = sums.plan(0.1, keepAll);
        for (const [key, p] of plan.table.buckets) {
          const q = whole.table.buckets.get(key);
          const strategy = plan.strategy[p];
          if (keepAll || strategy === 'exact') expect(entriesOf(plan.table, p)).toEqual(entriesOf(whole.table, q));
          if (keepAll) continue;
          expect(strategy).toBe(q === undefined ? 'exact' : whole.plan.strategy[q]);
          seen[strategy]++;
          if (strategy === 'bins') expect(relative(plan.bins[p]!, whole.plan.bins[q!]!)).toBeLessThan(1e-8);
          if (strategy === 'grid')
            expect(relative(plan.grids[p]!.values, whole.plan.grids[q!]!.values)).toBeLessThan(1e-8);
        }
      }
    }
    // Every strategy was met, so every branch was compared.
    expect(seen.exact).toBeGreaterThan(0);
    expect(seen.bins + seen.grid).toBeGreaterThan(0);
  });

  it('gives the exact algorithm’s centers bit for bit on CesiumMan', async () => {
    const mesh = await load(CESIUM_MAN);
    const whole = wholeDomain(mesh, true);
    expect(computeCentersOfRotation(mesh, { algorithm: 'exact' }).centers).toEqual(whole.centers);
  });

  it('gives the same bits on one and two threads over several chunks (armadillo)', async () => {
    const mesh = await load(await convertLibigl(tmp.dir, 'armadillo'));
    const one = computeCentersOfRotation(mesh);
    const two = await computeCentersOfRotationParallel(mesh, { threads: 2 });
    expect(two.centers).toEqual(one.centers);
    expect(two.subdividedTriangles).toBe(one.subdividedTriangles);
  });
});
