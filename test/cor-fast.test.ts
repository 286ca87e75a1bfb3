/**
 * The fast (binned) CoR evaluation against the exact Eq. 4 on the same subdivided mesh, on real
 * characters: the stated bound is ≤ 1e-3 of the bounding-box diagonal at the maximum over sampled
 * blended vertices (README quotes the measured figures).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { boundingBoxDiagonal, type SkinnedMesh } from '../src/core/mesh.js';
import { buildPairTable } from '../src/cor/centers.js';
import { centersOfRotationPlanned, exactPlan } from '../src/cor/fast.js';
import { computeCentersOfRotation } from '../src/cor/precompute.js';
import { subdivideByWeights } from '../src/cor/subdivide.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { convertLibigl } from './helpers/convert.js';
import { ARM_GLB, CESIUM_MAN, rng, scratch } from './helpers/data.js';
import { percentile } from './helpers/reference.js';

const tmp = scratch();
afterAll(tmp.cleanup);

async function load(file: string): Promise<SkinnedMesh> {
  return extractSkinnedModels(await readDocument(file), file)[0].mesh;
}

const assets: [string, () => Promise<SkinnedMesh>][] = [
  ['CesiumMan', () => load(CESIUM_MAN)],
  ['arm', () => load(ARM_GLB)],
  ['elephant (24 bones, top 4)', async () => load(await convertLibigl(tmp.dir, 'elephant'))],
  ['armadillo (5 dense handles, top 4)', async () => load(await convertLibigl(tmp.dir, 'armadillo'))],
];

describe.each(assets)('fast CoR precomputation on %s', (_name, make) => {
  it('is within 1e-3 of the bbox diagonal of the exact Eq. 4 at the max', async () => {
    const mesh = await make();
    const fast = computeCentersOfRotation(mesh).centers;
    const plan = exactPlan(
      buildPairTable(subdivideByWeights(mesh, 0.1), 1 + mesh.joints.reduce((a, b) => Math.max(a, b), 0)),
      0.1,
    );
    const exact = new Float64Array(fast.length);
    const n = mesh.positions.length / 3;
    const random = rng(7);
    const errors: number[] = [];
    const diag = boundingBoxDiagonal(mesh.positions);
    while (errors.length < 150) {
      const i = Math.floor(random() * n);
      if (centersOfRotationPlanned(plan, mesh, i, i + 1, exact) === 0) continue;
      errors.push(
        Math.hypot(fast[3 * i] - exact[3 * i], fast[3 * i + 1] - exact[3 * i + 1], fast[3 * i + 2] - exact[3 * i + 2]) /
          diag,
      );
    }
    expect(percentile(errors, 95)).toBeLessThan(1e-3);
    expect(Math.max(...errors)).toBeLessThan(1e-3);
  });
});
