/**
 * Direct Delta Mush benchmarks (part of `npm run bench`; Le & Lewis 2019): the precomputation
 * (full and compact variants, one thread; the full one on 2 worker threads too, a fresh pool and a warm one), the memory per vertex, and one frame of the
 * JavaScript deformer, with LBS measured on the same mesh and frames in the same run (the
 * JavaScript deformer and the WebAssembly SIMD kernel) for the ratios. Medians.
 */
import type { SkinnedMesh } from '../src/core/mesh.js';
import { computeDirectDeltaMush, ddmBytesPerVertex } from '../src/methods/ddm/precompute.js';
import { computeDirectDeltaMushParallel, createDdmWorkerPool } from '../src/methods/ddm/parallel.js';
import { DEFAULT_DDM_THRESHOLD, resolveDdmParameters } from '../src/methods/ddm/parameters.js';
import { setupDirectDeltaMush } from '../src/methods/ddm/stages.js';
import { deformers } from '../src/deformers/index.js';
import { createSimdDeformer } from '../src/wasm/simd-skinning.js';
import { withDdmModel } from '../src/methods/ddm/data.js';

export interface DdmRow {
  asset: string;
  vertices: number;
  /** Precomputation, seconds (median), one thread: full (variant 0) and compact. */
  fullSeconds: number;
  compactSeconds: number;
  /** The full variant on 2 worker threads (`computeDirectDeltaMushParallel`), seconds (median): a fresh pool each time, and a warm pool (`createDdmWorkerPool`, one call before). */
  fullTwoThreadSeconds: number;
  fullTwoThreadWarmSeconds: number;
  /** Connected pieces (each solved alone). */
  pieces: number;
  /** (vertex, joint) entries per vertex of the full variant. */
  entriesPerVertex: number;
  bytesPerVertexFull: number;
  bytesPerVertexCompact: number;
  /** One frame, positions + normals, ms (median over the frames and repetitions). */
  fullFrameMs: number;
  compactFrameMs: number;
  /** The same frames on the WebAssembly SIMD kernel (asm/ddm.ts), full and compact. */
  fullSimdFrameMs: number;
  compactSimdFrameMs: number;
  lbsFrameMs: number;
  lbsSimdFrameMs: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Measures one mesh over `frames` (skinning matrices per frame). */
export async function measureDdm(
  asset: string,
  mesh: SkinnedMesh,
  frames: Float64Array[],
  reps: number,
): Promise<DdmRow> {
  const n = mesh.positions.length / 3;
  const time = (f: () => void) => {
    const t = performance.now();
    f();
    return (performance.now() - t) / 1000;
  };
  const fullTimes: number[] = [];
  const compactTimes: number[] = [];
  const twoThreadTimes: number[] = [];
  const warmTimes: number[] = [];
  const pool = createDdmWorkerPool(2);
  await computeDirectDeltaMushParallel(mesh, { pool });
  let full = computeDirectDeltaMush(mesh);
  let compact = computeDirectDeltaMush(mesh, { variant: 'compact' });
  // One thread and the warm pool alternated, apart from the fresh pools (whose workers' start-up
  // and teardown, two heaps collected, would otherwise fall in the next run's time); on a mesh
  // solved in under a second, two untimed rounds first (the first rounds run 1.5× slower while
  // the JIT settles, on both sides).
  const warmUp = time(() => computeDirectDeltaMush(mesh)) < 1 ? 2 : 0;
  for (let r = -warmUp; r < reps; r++) {
    if (r < 0) {
      computeDirectDeltaMush(mesh);
      await computeDirectDeltaMushParallel(mesh, { pool });
      computeDirectDeltaMush(mesh, { variant: 'compact' });
      continue;
    }
    fullTimes.push(time(() => (full = computeDirectDeltaMush(mesh))));
    const w = performance.now();
    await computeDirectDeltaMushParallel(mesh, { pool });
    warmTimes.push((performance.now() - w) / 1000);
    compactTimes.push(time(() => (compact = computeDirectDeltaMush(mesh, { variant: 'compact' }))));
  }
  await pool.terminate();
  for (let r = 0; r < reps; r++) {
    const t = performance.now();
    await computeDirectDeltaMushParallel(mesh, { threads: 2 });
    twoThreadTimes.push((performance.now() - t) / 1000);
  }
  const pieces = setupDirectDeltaMush(mesh, resolveDdmParameters({}), {
    variant: 'full',
    threshold: DEFAULT_DDM_THRESHOLD,
  }).pieces.length;
  const out = { positions: new Float32Array(3 * n), normals: mesh.normals ? new Float32Array(3 * n) : undefined };
  const frameMs = (deform: (S: Float64Array) => void) => {
    const times: number[] = [];
    for (let r = 0; r < Math.max(3, reps); r++) {
      for (const S of frames) {
        const t = performance.now();
        deform(S);
        times.push(performance.now() - t);
      }
    }
    return median(times);
  };
  const withFull = withDdmModel(mesh, full);
  const withCompact = withDdmModel(mesh, compact);
  const simd = await createSimdDeformer(mesh, 'lbs');
  const fullSimd = await createSimdDeformer(withFull, 'ddm');
  const compactSimd = await createSimdDeformer(withCompact, 'ddm');
  return {
    asset,
    vertices: n,
    fullSeconds: median(fullTimes),
    compactSeconds: median(compactTimes),
    fullTwoThreadSeconds: median(twoThreadTimes),
    fullTwoThreadWarmSeconds: median(warmTimes),
    pieces,
    entriesPerVertex: full.offsets[n] / n,
    bytesPerVertexFull: ddmBytesPerVertex(full),
    bytesPerVertexCompact: ddmBytesPerVertex(compact),
    fullFrameMs: frameMs((S) => deformers.ddm(withFull, S, out)),
    compactFrameMs: frameMs((S) => deformers.ddm(withCompact, S, out)),
    fullSimdFrameMs: frameMs((S) => fullSimd.deform(S)),
    compactSimdFrameMs: frameMs((S) => compactSimd.deform(S)),
    lbsFrameMs: frameMs((S) => deformers.lbs(mesh, S, out)),
    lbsSimdFrameMs: frameMs((S) => simd.deform(S)),
  };
}
