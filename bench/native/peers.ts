/**
 * `npm run bench -- --peers`: corskin's WebAssembly SIMD kernels against native peers, on the same
 * meshes and frames, one thread each, medians of one frame and their ratios from the same run.
 *
 * - LBS, DQS and CoR against skinning.cpp, a C++ port of asm/kernels.ts (same layout and
 *   arithmetic), built by g++ -O3 twice: `-msse4.2` (SSE) and `-march=native` (AVX2 and FMA where
 *   the CPU has them). Each kernel's vertices per second × its bytes per vertex is printed as a
 *   fraction of the triad bandwidth (McCalpin's STREAM, measured by the same program). corskin's
 *   kernels also run with each frame's vertices shared between every core
 *   (`createParallelSimdDeformer`; checked to give the one-thread floats), against the same
 *   one-thread native figures.
 * - Direct Delta Mush (Le & Lewis 2019) against libigl's `igl::direct_delta_mush` and
 *   `direct_delta_mush_precomputation` (ddm.cpp) on the libigl elephant with its smooth weights,
 *   libigl's smoothing operator and threshold 0 (libigl's dense Ω), tutorial 408's p = 20, λ = 3,
 *   κ = 1, α = 0.8: corskin's precomputation (one thread), its JavaScript deformer and its SIMD
 *   kernel. Needs libigl's source: LIBIGL=<checkout of https://github.com/libigl/libigl>; skipped
 *   (said so) without it.
 *
 * corskin's kernels run the build `simdKernelBuild` picks (relaxed SIMD on Node 21 and later; on
 * Node 20 with `--relaxed-simd`). Needs g++ and Eigen 3 (`apt-get install g++ libeigen3-dev`).
 * Writes .tmp/bench-peers.json.
 * `--quick`: CesiumMan only, fewer repetitions.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { boundingBoxDiagonal, type SkinnedMesh } from '../../src/core/mesh.js';
import { computeCentersOfRotation } from '../../src/cor/precompute.js';
import { jointDualQuaternions } from '../../src/deformers/dqs.js';
import { jointQuaternions } from '../../src/deformers/joint-rotations.js';
import { commonScale, splitScale, uniformScale } from '../../src/deformers/two-phase.js';
import { readDmat, readObj, decodeBoneAnimation } from '../../src/io/libigl.js';
import { computeDirectDeltaMush } from '../../src/methods/ddm/precompute.js';
import { deformDdm } from '../../src/methods/ddm/deformer.js';
import { createSimdDeformer, packInfluences } from '../../src/wasm/simd-skinning.js';
import { createParallelSimdDeformer } from '../../src/wasm/parallel-simd.js';
import { simdKernelBuild } from '../../src/wasm/instance.js';
import { benchAsset, DATA, frameMs, median, printTable } from '../frames.js';

const HERE = import.meta.dirname;
const ROOT = join(HERE, '..', '..');
const quick = process.argv.includes('--quick');
const REPS = quick ? 2 : 10;
/** Threads of the parallel SIMD column: every core. */
const THREADS = availableParallelism();
const work = mkdtempSync(join(tmpdir(), 'corskin-peers-'));

/** Compiles `source` (in this folder) with g++ -O3 and `flags` into the work folder. */
function build(source: string, out: string, flags: string[]): string {
  const exe = join(work, out);
  execFileSync('g++', ['-std=c++17', '-O3', '-DNDEBUG', ...flags, join(HERE, source), '-o', exe], { stdio: 'inherit' });
  return exe;
}

/** Runs a native peer and parses the JSON line it prints. */
function runJson(exe: string, args: string[]): Record<string, number> {
  return JSON.parse(execFileSync(exe, args, { encoding: 'utf8', maxBuffer: 1 << 20 }));
}

/** Little-endian bytes of typed arrays, one after the other. */
function concat(parts: ArrayBufferView[]): Buffer {
  return Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));
}

/** Largest distance between two position arrays (3·n), ÷ `diagonal`. */
function maxDistance(a: ArrayLike<number>, b: ArrayLike<number>, n: number, diagonal: number): number {
  let worst = 0;
  for (let i = 0; i < n; i++)
    worst = Math.max(worst, Math.hypot(a[3 * i] - b[3 * i], a[3 * i + 1] - b[3 * i + 1], a[3 * i + 2] - b[3 * i + 2]));
  return worst / diagonal;
}

const padded = (a: ArrayLike<number>) => {
  const out = new Float32Array(a.length + 4);
  out.set(a);
  return out;
};

interface SkinningRow {
  asset: string;
  vertices: number;
  influences: number;
  /**
   * Per method: corskin SIMD on one thread and on every core (createParallelSimdDeformer), native
   * SSE, native best (AVX2) ms; bytes per vertex; port difference.
   */
  methods: Record<
    string,
    { simdMs: number; threadsMs: number; sseMs: number; nativeMs: number; bytesPerVertex: number; portError: number }
  >;
}

async function skinningRow(
  name: string,
  file: string,
  subdivisions: number,
  sse: string,
  avx: string,
): Promise<SkinningRow> {
  const { mesh: bare, frames, n } = await benchAsset(file, subdivisions);
  if (!bare.normals) throw new Error(`${name}: the peers bench needs normals`);
  // A rig under one uniformly scaled node (Ybot): the kernels run on the matrices divided by s
  // and the positions are multiplied by s, as corskin's SIMD deformer does.
  const scales = frames.map((S) => {
    const s = commonScale(S) || uniformScale(splitScale(S)!);
    if (!s) throw new Error(`${name}: joints with non-uniform scale (the port takes rigid or uniformly scaled frames)`);
    return s;
  });
  const C = computeCentersOfRotation(bare).centers;
  const mesh: SkinnedMesh = { ...bare, centersOfRotation: C };
  const K = mesh.influences;
  const J = frames[0].length / 16;
  const JI = new Uint16Array(K * n);
  const W = new Float32Array(K * n);
  const CNT = new Uint8Array(n);
  packInfluences(mesh, JI, W, CNT);
  const jointData = frames.map((S, f) => {
    const D = S.map((x, k) => (k % 16 === 15 ? x : x / scales[f]));
    return [
      Float32Array.from(D),
      jointQuaternions(D, new Float32Array(4 * J)),
      jointDualQuaternions(D, new Float32Array(8 * J)),
    ];
  });
  const dir = join(work, name.replace(/\W+/g, '-'));
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'skinning.bin'),
    concat([
      Int32Array.of(n, K, J, frames.length),
      padded(mesh.positions),
      padded(bare.normals),
      padded(C),
      JI,
      W,
      CNT,
      ...[0, 1, 2].flatMap((k) => jointData.map((d) => d[k])),
      Float32Array.from(scales),
    ]),
  );
  const diagonal = boundingBoxDiagonal(mesh.positions);
  const native = { sse: runJson(sse, [dir, String(REPS)]), avx: runJson(avx, [dir, String(REPS)]) };
  const methods: SkinningRow['methods'] = {};
  for (const method of ['lbs', 'dqs', 'cor'] as const) {
    // Into the kernel memory's own posed arrays, as the port writes into its own.
    const simd = await createSimdDeformer(mesh, method);
    const simdMs = frameMs(frames, (S) => simd.deform(S), REPS);
    simd.deform(frames[0]);
    const out = simd.output;
    // The same kernels with the frame's vertices shared between every core (same floats).
    const parallel = await createParallelSimdDeformer(mesh, method, { threads: THREADS });
    const threadsMs = frameMs(frames, (S) => parallel.deform(S), REPS);
    parallel.deform(frames[0]);
    if (parallel.output.positions.some((x, i) => !Object.is(x, out.positions[i])))
      throw new Error(`${name} ${method}: the ${THREADS}-thread SIMD deformer's positions differ from one thread's`);
    await parallel.close();
    const port = new Float32Array(readFileSync(join(dir, `${method}.f32`)).buffer.slice(0));
    // Bytes a vertex moves: P, N (12 each), K joint slots (2) and weights (4), the count (1),
    // the center of rotation (12, CoR), the posed position and normal (12 each).
    const bytesPerVertex = 24 + 6 * K + 1 + (method === 'cor' ? 12 : 0) + 24;
    methods[method] = {
      simdMs,
      threadsMs,
      sseMs: native.sse[method],
      nativeMs: Math.min(native.sse[method], native.avx[method]),
      bytesPerVertex,
      portError: maxDistance(out.positions, port, n, diagonal),
    };
  }
  return { asset: name, vertices: n, influences: K, methods };
}

interface DdmPeerRow {
  vertices: number;
  bones: number;
  corskinPrecomputeSeconds: number;
  libiglPrecomputeSeconds: number;
  jsFrameMs: number;
  simdFrameMs: number;
  libiglFrameMs: number;
  /** corskin (JavaScript) against libigl at frame 1, ÷ the diagonal. */
  difference: number;
}

async function ddmRow(exe: string): Promise<DdmPeerRow> {
  const L = join(DATA, 'libigl');
  const { positions, triangles } = await readObj(join(L, 'elephant.obj'));
  const weights = await readDmat(join(L, 'elephant-weights.dmat'));
  const m = weights.cols;
  const n = positions.length / 3;
  const all = decodeBoneAnimation(await readDmat(join(L, 'elephant-anim.dmat')), m);
  const frames = Array.from({ length: 20 }, (_, f) => all[Math.floor((f * all.length) / 20)]);
  const joints = new Uint32Array(n * m);
  const W = new Float64Array(n * m);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < m; j++) {
      joints[i * m + j] = j;
      W[i * m + j] = weights.data[i + n * j];
    }
  const options = { iterations: 20, lambda: 3, kappa: 1, alpha: 0.8, smoothing: 'libigl', threshold: 0 } as const;
  const bare = { positions, triangles, influences: m, joints, weights: W } as unknown as SkinnedMesh;
  const preReps = quick ? 1 : 3;
  const pre: number[] = [];
  let model = computeDirectDeltaMush(bare, options);
  for (let r = 0; r < preReps; r++) {
    const t = performance.now();
    model = computeDirectDeltaMush(bare, options);
    pre.push((performance.now() - t) / 1000);
  }
  const mesh = { ...bare, methodData: { ddm: model } } as SkinnedMesh;
  const out = { positions: new Float32Array(3 * n) };
  const jsFrameMs = frameMs(frames, (S) => deformDdm(mesh, S, out), REPS);
  const simd = await createSimdDeformer(mesh, 'ddm');
  const simdFrameMs = frameMs(frames, (S) => simd.deform(S), REPS);
  deformDdm(mesh, frames[1], out);

  // libigl's input: the same doubles; [R | t] row-major per frame and bone.
  const X = new Float64Array(frames.length * m * 12);
  frames.forEach((S, f) => {
    for (let j = 0; j < m; j++)
      for (let r = 0; r < 3; r++) for (let c = 0; c < 4; c++) X[(f * m + j) * 12 + 4 * r + c] = S[16 * j + 4 * c + r];
  });
  const dir = join(work, 'elephant');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'ddm.bin'),
    concat([
      Int32Array.of(n, triangles.length / 3, m, frames.length, options.iterations),
      Float64Array.of(options.lambda, options.kappa, options.alpha),
      Float64Array.from(positions),
      Int32Array.from(triangles),
      W,
      X,
    ]),
  );
  const igl = runJson(exe, [dir, String(preReps), String(REPS)]);
  const U = new Float64Array(readFileSync(join(dir, 'ddm.f64')).buffer.slice(0));
  return {
    vertices: n,
    bones: m,
    corskinPrecomputeSeconds: median(pre),
    libiglPrecomputeSeconds: igl.precomputeSeconds,
    jsFrameMs,
    simdFrameMs,
    libiglFrameMs: igl.frameMs,
    difference: maxDistance(out.positions, U, n, boundingBoxDiagonal(positions)),
  };
}

try {
  console.error('building the native peers (g++ -O3) …');
  const sse = build('skinning.cpp', 'skinning-sse', ['-msse4.2']);
  const avx = build('skinning.cpp', 'skinning-native', ['-march=native']);
  const triad = runJson(avx, ['triad']).triadGBs;
  const assets: [string, string, number][] = [
    ['CesiumMan', join(DATA, 'gltf', 'CesiumMan.glb'), 0],
    ...(quick
      ? []
      : ([
          ['Ybot', join(DATA, 'characters', 'Ybot.glb'), 0],
          ['CesiumMan ×3', join(DATA, 'gltf', 'CesiumMan.glb'), 3],
        ] as [string, string, number][])),
  ];
  const skinning: SkinningRow[] = [];
  for (const [name, file, subdivisions] of assets) {
    console.error(`${name} …`);
    skinning.push(await skinningRow(name, file, subdivisions, sse, avx));
  }
  const rows = skinning.flatMap((r) =>
    Object.entries(r.methods).map(([method, x]) => [
      r.asset,
      r.vertices.toLocaleString('en-US'),
      method,
      x.simdMs.toFixed(3),
      x.sseMs.toFixed(3),
      x.nativeMs.toFixed(3),
      (x.simdMs / x.sseMs).toFixed(2),
      (x.simdMs / x.nativeMs).toFixed(2),
      x.threadsMs.toFixed(3),
      (x.threadsMs / x.nativeMs).toFixed(2),
      String(x.bytesPerVertex),
      ((((r.vertices / x.simdMs) * 1e3 * x.bytesPerVertex) / (triad * 1e9)) * 100).toFixed(0) + '%',
      x.portError.toExponential(1),
    ]),
  );
  console.log(
    `\nLBS, DQS, CoR: corskin WebAssembly SIMD (its ${simdKernelBuild()} build) vs the native port (one thread; corskin also on ${THREADS} threads, createParallelSimdDeformer); triad ${triad.toFixed(1)} GB/s (of triad: one thread's)`,
  );
  printTable(
    [
      'asset',
      'vertices',
      'method',
      'SIMD ms',
      'SSE ms',
      'best native ms',
      'SIMD/SSE',
      'SIMD/native',
      `SIMD ×${THREADS} threads ms`,
      `×${THREADS}/native`,
      'B/vertex',
      'of triad',
      'port diff',
    ],
    rows,
  );

  const libigl = process.env.LIBIGL;
  let ddm: DdmPeerRow | undefined;
  if (!libigl || !existsSync(join(libigl, 'include', 'igl', 'direct_delta_mush.h'))) {
    console.log(
      '\nDirect Delta Mush vs libigl: skipped (set LIBIGL to a checkout of https://github.com/libigl/libigl)',
    );
  } else {
    console.error('building libigl’s direct_delta_mush (about 30 s) …');
    const exe = build('ddm.cpp', 'ddm', ['-march=native', `-I${join(libigl, 'include')}`, '-I/usr/include/eigen3']);
    ddm = await ddmRow(exe);
    console.log(
      `\nDirect Delta Mush vs libigl, elephant (${ddm.vertices.toLocaleString('en-US')} vertices, ${ddm.bones} bones, dense Ω), one thread`,
    );
    printTable(
      ['step', 'corskin', 'libigl', 'corskin/libigl'],
      [
        [
          'precomputation s',
          ddm.corskinPrecomputeSeconds.toFixed(2),
          ddm.libiglPrecomputeSeconds.toFixed(2),
          (ddm.corskinPrecomputeSeconds / ddm.libiglPrecomputeSeconds).toFixed(2),
        ],
        [
          'frame ms (JavaScript)',
          ddm.jsFrameMs.toFixed(3),
          ddm.libiglFrameMs.toFixed(3),
          (ddm.jsFrameMs / ddm.libiglFrameMs).toFixed(2),
        ],
        [
          'frame ms (SIMD)',
          ddm.simdFrameMs.toFixed(3),
          ddm.libiglFrameMs.toFixed(3),
          (ddm.simdFrameMs / ddm.libiglFrameMs).toFixed(3),
        ],
      ],
    );
    console.log(`corskin vs libigl at one frame: ${ddm.difference.toExponential(1)} of the diagonal`);
  }
  console.log(
    '\nmedians of one frame (positions + normals for LBS/DQS/CoR, positions for DDM); ratios from the same run',
  );
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  writeFileSync(join(ROOT, '.tmp', 'bench-peers.json'), JSON.stringify({ build: simdKernelBuild(), triadGBs: triad, skinning, ddm }, null, 2)); // prettier-ignore
} finally {
  rmSync(work, { recursive: true, force: true });
}
