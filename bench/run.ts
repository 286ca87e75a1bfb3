/**
 * `npm run bench`: CoR precomputation cost and run-time kernel throughput on the shared assets,
 * with the ratios that matter measured side by side in the same run. Prints a table and writes
 * .tmp/bench-results.json (bench/results.json with `--save`). `npm run bench -- --quick` runs
 * CesiumMan only, once (a CI smoke run). `npm run bench -- --peers` runs bench/native/peers.ts
 * instead: corskin's SIMD kernels against native peers (a C++ port, libigl's Direct Delta Mush).
 * `--relaxed-simd` runs the SIMD kernels' relaxed build (fused multiply-adds) on Node 20, as Node
 * 21 and later run it by default (`simdKernelBuild`; `npm run bench:simd-builds` compares the two).
 *
 * Timings are medians; the machine is shared and noisy, so compare ratios, not absolute times.
 */
import { execFileSync } from 'node:child_process';
import { setFlagsFromString } from 'node:v8';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as THREE from 'three';
import { samplePose } from '../src/core/animation.js';
import { boundingBoxDiagonal, type SkinnedMesh } from '../src/core/mesh.js';
import { globalMatrices, restPose, rotateJointWorld, skinningMatrices } from '../src/core/pose.js';
import type { Skeleton } from '../src/core/skeleton.js';
import { computeCentersOfRotationParallel, createCorWorkerPool } from '../src/cor/parallel.js';
import { computeCentersOfRotation } from '../src/cor/precompute.js';
import type { DeformTarget } from '../src/deformers/contract.js';
import { deformers } from '../src/deformers/index.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { createIO, readDocument } from '../src/io/node-io.js';
import { formatTable } from '../src/cli/ui.js';
import { createSimdDeformer } from '../src/wasm/simd-skinning.js';
import { simdKernelBuild } from '../src/wasm/instance.js';
import { subdivideMidpoint } from './subdivide-mesh.js';
import { measureCage, measureTemplates, type CageRow, type TemplateRow } from './cage.js';
import { measureDdm, type DdmRow } from './ddm.js';
import { measureHelperBake, type BakeRow } from './bake.js';
import { measureCorMemory, type CorMemoryRow } from './cor-memory.js';
import { barBenchmark } from '../src/evaluation/benchmark.js';
import { measureSession, measureSessionInChromium, type SessionRow } from './session.js';
import { measureViewerFrames } from './viewer.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DATA = join(ROOT, '..', 'shared', 'data');
const BIN = join(ROOT, 'bin', 'corskin.js');
const quick = process.argv.includes('--quick');
const REPS = quick ? 1 : 5;
const tmp = mkdtempSync(join(tmpdir(), 'corskin-bench-'));

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : 0.5 * (s[s.length / 2 - 1] + s[s.length / 2]);
}

interface Asset {
  name: string;
  file: string;
  mesh: SkinnedMesh;
  skeleton: Skeleton;
  /** Skinning matrices of the animated frames the kernels run on. */
  frames: Float64Array[];
  /** Global joint matrices of the same frames (for three.js). */
  globals: Float64Array[];
}

function corskin(...args: string[]): string {
  return execFileSync('node', [BIN, ...args], { encoding: 'utf8' });
}

/** 20 frames: the asset's clip when it has one, else every joint swung about its own axis. */
function animate(
  skeleton: Skeleton,
  clip: Parameters<typeof samplePose>[1] | undefined,
): { frames: Float64Array[]; globals: Float64Array[] } {
  const frames: Float64Array[] = [];
  const globals: Float64Array[] = [];
  for (let f = 0; f < 20; f++) {
    let pose = restPose(skeleton);
    if (clip) pose = samplePose(skeleton, clip, (clip.duration * f) / 20);
    else {
      for (let j = 0; j < skeleton.parents.length; j++) {
        rotateJointWorld(skeleton, pose, j, [Math.sin(j + 1), Math.cos(2 * j), 0.5], 0.8 * Math.sin(0.3 * f + j));
      }
    }
    frames.push(skinningMatrices(skeleton, pose));
    globals.push(globalMatrices(skeleton, pose));
  }
  return { frames, globals };
}

async function loadAsset(name: string, file: string, subdivisions = 0): Promise<Asset> {
  const [model] = extractSkinnedModels(await readDocument(file), file);
  let mesh = model.mesh;
  for (let s = 0; s < subdivisions; s++) mesh = subdivideMidpoint(mesh);
  let path = file;
  if (subdivisions) {
    // Write the subdivided mesh as a .glb so the CLI measurement covers it too.
    const doc = await readDocument(file);
    const [m] = extractSkinnedModels(doc, file);
    const prim = m.parts[0].primitive;
    const buf = doc.getRoot().listBuffers()[0];
    const acc = <T extends ArrayLike<number> & ArrayBufferView>(type: 'VEC3' | 'VEC4' | 'SCALAR', a: T) =>
      doc
        .createAccessor()
        .setType(type)
        .setArray(a as unknown as Float32Array)
        .setBuffer(buf);
    prim.setIndices(acc('SCALAR', mesh.triangles));
    for (const sem of prim.listSemantics()) prim.setAttribute(sem, null);
    prim.setAttribute('POSITION', acc('VEC3', mesh.positions));
    if (mesh.normals) prim.setAttribute('NORMAL', acc('VEC3', mesh.normals));
    prim.setAttribute('JOINTS_0', acc('VEC4', Uint16Array.from(mesh.joints)));
    prim.setAttribute('WEIGHTS_0', acc('VEC4', mesh.weights));
    path = join(tmp, `${name}.glb`);
    writeFileSync(path, await (await createIO()).writeBinary(doc));
  }
  return { name, file: path, mesh, skeleton: model.skeleton, ...animate(model.skeleton, model.animations[0]) };
}

/** three.js's only CPU skinning path, `SkinnedMesh.applyBoneTransform`, over every vertex. */
function threeSkinnedMesh(asset: Asset): THREE.SkinnedMesh {
  const { mesh, skeleton } = asset;
  const n = mesh.positions.length / 3;
  if (mesh.influences !== 4) throw new Error('three.js skins 4 influences per vertex');
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.BufferAttribute(mesh.positions, 3));
  geometry.setAttribute('skinIndex', new THREE.BufferAttribute(Uint16Array.from(mesh.joints), 4));
  geometry.setAttribute('skinWeight', new THREE.BufferAttribute(mesh.weights, 4));
  const bones = skeleton.jointNames.map(() => new THREE.Bone());
  const inverses = bones.map((_, j) => new THREE.Matrix4().fromArray(skeleton.inverseBindMatrices, 16 * j));
  const object = new THREE.SkinnedMesh(geometry, new THREE.MeshBasicMaterial());
  object.bind(new THREE.Skeleton(bones, inverses), new THREE.Matrix4());
  void n;
  return object;
}

function threeDeform(object: THREE.SkinnedMesh, globals: Float64Array, out: Float32Array): void {
  const bones = object.skeleton.bones;
  for (let j = 0; j < bones.length; j++) bones[j].matrixWorld.fromArray(globals, 16 * j);
  const v = new THREE.Vector3();
  const pos = object.geometry.attributes.position;
  for (let i = 0; i < pos.count; i++) {
    v.fromBufferAttribute(pos, i);
    object.applyBoneTransform(i, v);
    out[3 * i] = v.x;
    out[3 * i + 1] = v.y;
    out[3 * i + 2] = v.z;
  }
}

interface Row {
  asset: string;
  vertices: number;
  triangles: number;
  precompute1Seconds: number;
  precompute2Seconds: number;
  threadSpeedup: number;
  cliWallSeconds: number;
  cliPeakRssMB: number;
  mvertsPerSecond: Record<'lbs' | 'dqs' | 'cor', number>;
  corOverLbs: number;
  dqsOverLbs: number;
  threeMvertsPerSecond: number;
  lbsOverThree: number;
  maxDiffVsThree: number;
  /** WebAssembly SIMD kernels, positions + normals. */
  simdMvertsPerSecond: Record<'lbs' | 'dqs' | 'cor', number>;
  /** WebAssembly SIMD kernels, positions only. */
  simdPositionsMvertsPerSecond: Record<'lbs' | 'dqs' | 'cor', number>;
  simdCorOverLbs: number;
  simdLbsOverThree: number;
  simdMaxDiffVsThree: number;
}

const METHODS = ['lbs', 'dqs', 'cor'] as const;

async function measure(asset: Asset, pool: ReturnType<typeof createCorWorkerPool>): Promise<Row> {
  const { mesh } = asset;
  const n = mesh.positions.length / 3;
  process.stderr.write(`${asset.name}: ${n} vertices…\n`);

  // Precomputation in this process: 1 thread vs 2 threads (warm pool), alternating.
  const t1: number[] = [];
  const t2: number[] = [];
  for (let r = 0; r < REPS; r++) {
    t1.push(computeCentersOfRotation(mesh).seconds);
    t2.push((await computeCentersOfRotationParallel(mesh, { pool })).seconds);
  }
  mesh.centersOfRotation = computeCentersOfRotation(mesh).centers;

  // Full CLI precompute (load, subdivision, integration, write) in a fresh process.
  const cli: number[] = [];
  const rss: number[] = [];
  for (let r = 0; r < REPS; r++) {
    const t = performance.now();
    const out = corskin('precompute', asset.file, '-o', join(tmp, 'out.glb'), '--threads', '1', '--resources');
    cli.push((performance.now() - t) / 1000);
    const m = /peak RSS ([\d.]+) MB/.exec(out);
    if (m) rss.push(Number(m[1]));
  }

  // Kernels: positions and normals, same frames, methods interleaved per repetition.
  const target: DeformTarget = {
    positions: new Float32Array(3 * n),
    normals: mesh.normals ? new Float32Array(3 * n) : undefined,
  };
  const times: Record<'lbs' | 'dqs' | 'cor', number[]> = { lbs: [], dqs: [], cor: [] };
  const three = threeSkinnedMesh(asset);
  const threeOut = new Float32Array(3 * n);
  const threeTimes: number[] = [];
  const positionsOnly: DeformTarget = { positions: new Float32Array(3 * n) };
  const lbsPositionsOnly: number[] = [];
  const bare: SkinnedMesh = { ...mesh, normals: undefined, tangents: undefined };
  const simd = await Promise.all(METHODS.map((m) => createSimdDeformer(mesh, m)));
  const simdBare = await Promise.all(METHODS.map((m) => createSimdDeformer(bare, m)));
  const simdTimes: Record<'lbs' | 'dqs' | 'cor', number[]> = { lbs: [], dqs: [], cor: [] };
  const simdBareTimes: Record<'lbs' | 'dqs' | 'cor', number[]> = { lbs: [], dqs: [], cor: [] };
  for (let r = 0; r < Math.max(3, REPS); r++) {
    for (let m = 0; m < METHODS.length; m++) {
      // Into the deformers' own output views (no copy; a GPU upload or a reader takes them).
      let t = performance.now();
      for (const S of asset.frames) simd[m].deform(S);
      simdTimes[METHODS[m]].push((performance.now() - t) / asset.frames.length);
      t = performance.now();
      for (const S of asset.frames) simdBare[m].deform(S);
      simdBareTimes[METHODS[m]].push((performance.now() - t) / asset.frames.length);
    }
    for (const method of METHODS) {
      const t = performance.now();
      for (const S of asset.frames) deformers[method](mesh, S, target);
      times[method].push((performance.now() - t) / asset.frames.length);
    }
    let t = performance.now();
    for (const S of asset.frames) deformers.lbs(bare, S, positionsOnly);
    lbsPositionsOnly.push((performance.now() - t) / asset.frames.length);
    t = performance.now();
    for (const G of asset.globals.slice(0, 5)) threeDeform(three, G, threeOut);
    threeTimes.push((performance.now() - t) / 5);
  }
  // Agreement with three.js on the last frame it ran.
  deformers.lbs(bare, asset.frames[4], positionsOnly);
  threeDeform(three, asset.globals[4], threeOut);
  let diff = 0;
  for (let i = 0; i < 3 * n; i++) diff = Math.max(diff, Math.abs(threeOut[i] - positionsOnly.positions[i]));
  const diag = boundingBoxDiagonal(positionsOnly.positions);
  simdBare[0].deform(asset.frames[4]);
  const simdPositions = simdBare[0].output.positions;
  let simdDiff = 0;
  for (let i = 0; i < 3 * n; i++) simdDiff = Math.max(simdDiff, Math.abs(threeOut[i] - simdPositions[i]));

  const mv = (ms: number) => n / ms / 1000;
  const ms = { lbs: median(times.lbs), dqs: median(times.dqs), cor: median(times.cor) };
  return {
    asset: asset.name,
    vertices: n,
    triangles: mesh.triangles.length / 3,
    precompute1Seconds: median(t1),
    precompute2Seconds: median(t2),
    threadSpeedup: median(t1) / median(t2),
    cliWallSeconds: median(cli),
    cliPeakRssMB: median(rss),
    mvertsPerSecond: { lbs: mv(ms.lbs), dqs: mv(ms.dqs), cor: mv(ms.cor) },
    corOverLbs: ms.cor / ms.lbs,
    dqsOverLbs: ms.dqs / ms.lbs,
    threeMvertsPerSecond: mv(median(threeTimes)),
    lbsOverThree: median(threeTimes) / median(lbsPositionsOnly),
    maxDiffVsThree: diff / diag,
    simdMvertsPerSecond: {
      lbs: mv(median(simdTimes.lbs)),
      dqs: mv(median(simdTimes.dqs)),
      cor: mv(median(simdTimes.cor)),
    },
    simdPositionsMvertsPerSecond: {
      lbs: mv(median(simdBareTimes.lbs)),
      dqs: mv(median(simdBareTimes.dqs)),
      cor: mv(median(simdBareTimes.cor)),
    },
    simdCorOverLbs: median(simdTimes.cor) / median(simdTimes.lbs),
    simdLbsOverThree: median(threeTimes) / median(simdBareTimes.lbs),
    simdMaxDiffVsThree: simdDiff / diag,
  };
}

async function main(): Promise<void> {
  const L = join(DATA, 'libigl');
  const cesium = join(DATA, 'gltf', 'CesiumMan.glb');
  const assets: [string, () => Promise<Asset>][] = [['CesiumMan', () => loadAsset('CesiumMan', cesium)]];
  if (!quick) {
    const armadillo = join(tmp, 'armadillo.glb');
    const elephant = join(tmp, 'elephant.glb');
    corskin('convert', join(L, 'armadillo.obj'), '--weights', join(L, 'armadillo-weights.dmat'), '-o', armadillo);
    corskin(
      'convert',
      join(L, 'elephant.obj'),
      '--skeleton',
      join(L, 'elephant.tgf'),
      '--weights',
      join(L, 'elephant-weights.dmat'),
      '--animation',
      join(L, 'elephant-anim.dmat'),
      '-o',
      elephant,
    );
    assets.push(
      ['arm', () => loadAsset('arm', join(ROOT, 'assets', 'arm.glb'))],
      ['elephant', () => loadAsset('elephant', elephant)],
      ['armadillo', () => loadAsset('armadillo', armadillo)],
      ['CesiumMan ×1', () => loadAsset('CesiumMan-x1', cesium, 1)],
      ['CesiumMan ×2', () => loadAsset('CesiumMan-x2', cesium, 2)],
      ['CesiumMan ×3', () => loadAsset('CesiumMan-x3', cesium, 3)],
    );
  }
  const pool = createCorWorkerPool(2);
  const rows: Row[] = [];
  const cageRows: CageRow[] = [];
  const templateRows: TemplateRow[] = [];
  const ddmRows: DdmRow[] = [];
  const sessionRows: SessionRow[] = [];
  const corMemoryRows: CorMemoryRow[] = [];
  const bakeRows: BakeRow[] = [];
  // The same dabs in the viewer's paint mode in headless Chromium (while the ×2 file exists).
  const chromiumDabs: { asset: string; dabs: number; medianMs: number; p90Ms: number }[] = [];
  // Frame time per method in the viewer (templates / LBS and CoR / LBS, same run).
  const viewerFrames: { asset: string; samples: number; ms: Record<string, number> }[] = [];
  try {
    for (const [, load] of assets) {
      const asset = await load();
      rows.push(await measure(asset, pool));
      // Cages: the arm in a tube around its shoulder–elbow–wrist chain, CesiumMan and the
      // armadillo in star-shaped 320-triangle cages (the armadillo bound on 2 workers only).
      const reps = quick ? 1 : 3;
      if (asset.name === 'CesiumMan' || asset.name === 'CesiumMan-x2' || asset.name === 'arm')
        sessionRows.push(measureSession(asset.name, asset.mesh, asset.skeleton.parents.length, quick ? 5 : 20));
      if (asset.name === 'CesiumMan' || asset.name === 'CesiumMan-x2') {
        const dabs = await measureSessionInChromium(asset.file, 'Skeleton_arm_joint_L__3_', quick ? 2 : 6);
        if (dabs) chromiumDabs.push({ asset: asset.name, ...dabs });
      }
      if (asset.name === 'arm' || asset.name === 'CesiumMan')
        templateRows.push(measureTemplates(asset.name, asset.mesh, asset.skeleton));
      if (asset.name === 'CesiumMan') {
        const frames = await measureViewerFrames(asset.file, quick ? 1 : 5);
        if (frames) viewerFrames.push({ asset: asset.name, ...frames });
      }
      if (asset.name === 'CesiumMan-x3') {
        // CoR precomputation memory at 613K vertices (CesiumMan ×4), in fresh processes.
        const x4 = subdivideMidpoint(asset.mesh);
        corMemoryRows.push(...measureCorMemory('CesiumMan ×4', x4, join(tmp, 'x4.bin')));
      }
      if (asset.name === 'CesiumMan' && quick)
        bakeRows.push(measureHelperBake('CesiumMan', cesium, 'cor', 1, BIN, tmp));
      if (asset.name === 'CesiumMan' || asset.name === 'CesiumMan-x3' || asset.name === 'arm')
        ddmRows.push(await measureDdm(asset.name, asset.mesh, asset.frames, quick ? 1 : 3));
      if (asset.name === 'arm')
        cageRows.push(await measureCage('arm', asset.mesh, asset.skeleton, { tube: [1, 2, 3] }, reps));
      if (asset.name === 'CesiumMan')
        cageRows.push(await measureCage('CesiumMan', asset.mesh, asset.skeleton, 'star', reps));
      if (asset.name === 'armadillo')
        cageRows.push(await measureCage('armadillo', asset.mesh, asset.skeleton, 'star', 1, false));
    }
    if (!quick) {
      // Painting on a real 35K-vertex character (Mixamo's Y Bot, 35,434 vertices).
      const ybot = join(DATA, 'characters', 'Ybot.glb');
      const [model] = extractSkinnedModels(await readDocument(ybot), ybot);
      sessionRows.push(measureSession('Ybot', model.mesh, model.skeleton.parents.length, 20));
      const dabs = await measureSessionInChromium(ybot, 'mixamorig:LeftForeArm', 6);
      if (dabs) chromiumDabs.push({ asset: 'Ybot', ...dabs });
      const ybotAsset = await loadAsset('Ybot', ybot);
      ddmRows.push(await measureDdm('Ybot', ybotAsset.mesh, ybotAsset.frames, 3));
      // Smooth-skinned characters from elsewhere (many joints per vertex), for the precomputation.
      for (const name of ['Soldier', 'rpm-avatar']) {
        const a = await loadAsset(name, join(DATA, 'characters', `${name}.glb`));
        ddmRows.push(await measureDdm(name, a.mesh, a.frames, 3));
      }
      // The helper bake of every clip (Ybot: 811 samples), fit on 1 and 2 threads.
      bakeRows.push(measureHelperBake('Ybot', ybot, 'cor', 3, BIN, tmp));
      const fox = await measureViewerFrames(join(DATA, 'characters', 'Fox.glb'), 5);
      if (fox) viewerFrames.push({ asset: 'Fox', ...fox });
    }
  } finally {
    await pool.terminate();
    rmSync(tmp, { recursive: true, force: true });
  }
  const f = (x: number, d = 2) => x.toFixed(d);
  console.log('\nCoR precomputation (median of ' + REPS + '; in-process compute, and the full CLI in a fresh process)');
  console.log(
    formatTable(
      ['asset', 'vertices', '1 thread s', '2 threads s', 'speed-up', 'CLI wall s', 'peak RSS MB'],
      rows.map((r) => [
        r.asset,
        r.vertices,
        f(r.precompute1Seconds, 3),
        f(r.precompute2Seconds, 3),
        f(r.threadSpeedup),
        f(r.cliWallSeconds),
        f(r.cliPeakRssMB, 0),
      ]),
    ),
  );
  if (corMemoryRows.length) {
    console.log(
      '\nCoR precomputation memory: peak RSS of a fresh process minus its RSS with the mesh loaded (2 threads: with starting the pool)',
    );
    console.log(
      formatTable(
        ['asset', 'vertices', 'threads', 's', 'peak MB', 'bytes / vertex'],
        corMemoryRows.map((r) => [
          r.asset,
          r.vertices,
          r.threads,
          f(r.seconds),
          f(r.peakMB, 0),
          f(r.bytesPerVertex, 0),
        ]),
      ),
    );
  }
  if (bakeRows.length) {
    console.log(
      '\ncorskin bake --as helpers, every clip, the whole command in a fresh process (median; 1 and 2 threads, and 2 in 4 KB pages, alternated)',
    );
    console.log(
      formatTable(
        [
          'asset',
          'method',
          'samples',
          '1 thread s',
          '2 threads s',
          '2 / 1',
          '2, 4 KB pages s',
          'huge / 4 KB',
          'same file',
        ],
        bakeRows.map((r) => [
          r.asset,
          r.method,
          r.samples,
          f(r.oneThreadSeconds),
          f(r.twoThreadSeconds),
          f(r.twoThreadSeconds / r.oneThreadSeconds),
          f(r.smallPagesSeconds),
          f(r.twoThreadSeconds / r.smallPagesSeconds),
          r.identical ? 'yes' : 'NO',
        ]),
      ),
    );
  }
  console.log(
    '\nRun-time kernels, JavaScript (64-bit floats), single thread, positions + normals (million vertices / s, median)',
  );
  console.log(
    formatTable(
      ['asset', 'LBS', 'DQS', 'CoR', 'CoR/LBS time', 'DQS/LBS time', 'three.js LBS', 'corskin/three', 'max |Δ|/diag'],
      rows.map((r) => [
        r.asset,
        f(r.mvertsPerSecond.lbs),
        f(r.mvertsPerSecond.dqs),
        f(r.mvertsPerSecond.cor),
        f(r.corOverLbs),
        f(r.dqsOverLbs),
        f(r.threeMvertsPerSecond),
        f(r.lbsOverThree, 1),
        r.maxDiffVsThree.toExponential(1),
      ]),
    ),
  );
  console.log(
    '\nRun-time kernels, WebAssembly SIMD (32-bit floats), single thread, into their output views (million vertices / s, median)',
  );
  console.log(
    formatTable(
      [
        'asset',
        'LBS',
        'DQS',
        'CoR',
        'CoR/LBS time',
        'LBS pos.',
        'DQS pos.',
        'CoR pos.',
        'LBS pos./three',
        'max |Δ|/diag',
      ],
      rows.map((r) => [
        r.asset,
        f(r.simdMvertsPerSecond.lbs, 1),
        f(r.simdMvertsPerSecond.dqs, 1),
        f(r.simdMvertsPerSecond.cor, 1),
        f(r.simdCorOverLbs),
        f(r.simdPositionsMvertsPerSecond.lbs, 1),
        f(r.simdPositionsMvertsPerSecond.dqs, 1),
        f(r.simdPositionsMvertsPerSecond.cor, 1),
        f(r.simdLbsOverThree, 1),
        r.simdMaxDiffVsThree.toExponential(1),
      ]),
    ),
  );
  console.log('\nCages (Ju et al. 2008): PMVC binding (s) and one frame of cage deformation (ms), medians');
  console.log(
    formatTable(
      [
        'asset',
        'vertices',
        'cage verts/tris',
        'bind 1 thread s',
        'bind 2 threads s',
        'frame ms',
        'frame + normals ms',
        'LBS frame ms',
        'cage/LBS time',
      ],
      cageRows.map((r) => [
        r.asset,
        r.vertices,
        `${r.cageVertices}/${r.cageTriangles}`,
        Number.isNaN(r.bind1Seconds) ? '—' : f(r.bind1Seconds),
        f(r.bind2Seconds),
        f(r.frameMs, 3),
        f(r.frameNormalsMs, 3),
        f(r.lbsFrameMs, 3),
        f(r.cageOverLbs),
      ]),
    ),
  );
  const bar = barBenchmark();
  templateRows.unshift(measureTemplates('bar', bar.mesh, bar.skeleton));
  // Characters from other exporters: the Soldier (a cage on arms and legs) and the 35K-vertex
  // Ybot (no skin the templates move: the cost of the templates where they leave DQS as it is).
  for (const name of ['Soldier', 'Ybot']) {
    const file = join(DATA, 'characters', `${name}.glb`);
    if (!existsSync(file)) continue;
    const asset = await loadAsset(name, file);
    templateRows.push(measureTemplates(name, asset.mesh, asset.skeleton));
  }
  console.log(
    '\nSkinning templates (Ju et al. 2008; a corrective cage on the limbs over DQS): medians of 20 frames, JavaScript deformers',
  );
  console.log(
    formatTable(
      [
        'asset',
        'vertices',
        'cage verts',
        'cage tris',
        'build + bind s',
        'templates ms',
        'frame ms',
        'switch + frame ms',
        'LBS frame ms',
        'DQS frame ms',
        'frame/DQS',
      ],
      templateRows.map((r) => [
        r.asset,
        r.vertices,
        r.cageVertices,
        r.cageTriangles,
        f(r.buildSeconds),
        f(r.templatesMs, 3),
        f(r.frameMs, 3),
        f(r.switchMs, 3),
        f(r.lbsFrameMs, 3),
        f(r.dqsFrameMs, 3),
        f(r.frameMs / r.dqsFrameMs),
      ]),
    ),
  );
  console.log(
    '\nWeight painting: CoR update after one brush dab (radius 5% of the height), incremental session vs full recomputation',
  );
  console.log(
    formatTable(
      [
        'asset',
        'vertices',
        'session start s',
        'dab median ms',
        'dab p90 ms',
        'dab max ms',
        'vertices redone',
        'full ms',
        'full/dab',
      ],
      sessionRows.map((r) => [
        r.asset,
        r.vertices,
        f(r.startSeconds),
        f(r.dabMedianMs, 1),
        f(r.dabP90Ms, 1),
        f(r.dabMaxMs, 1),
        r.recomputed,
        f(r.fullMs, 1),
        f(r.speedup, 1),
      ]),
    ),
  );
  for (const c of chromiumDabs)
    console.log(
      `In headless Chromium (the viewer's paint mode on ${c.asset}, ${c.dabs} dabs): median ${f(c.medianMs, 1)} ms, p90 ${f(c.p90Ms, 1)} ms per dab update`,
    );
  for (const v of viewerFrames)
    console.log(
      `The viewer on ${v.asset} (headless Chromium, median of ${v.samples} readouts of 60 frames): ${Object.entries(
        v.ms,
      )
        .map(([m, t]) => `${m} ${f(t, 1)} ms`)
        .join(', ')}; templates/LBS ${f(v.ms.templates / v.ms.lbs)}, CoR/LBS ${f(v.ms.cor / v.ms.lbs)}`,
    );
  const machine = {
    cpu: cpus()[0]?.model,
    cores: cpus().length,
    node: process.version,
    // The SIMD kernels' build the figures come from (relaxed SIMD on Node 21+, or with --relaxed-simd).
    simdBuild: simdKernelBuild(),
    date: new Date().toISOString(),
  };
  console.log(
    '\nDirect Delta Mush (Le & Lewis 2019): precomputation on one thread (s), memory (bytes per vertex), one frame (ms, positions + normals); medians, LBS in the same run',
  );
  console.log(
    formatTable(
      [
        'asset',
        'vertices',
        'full s',
        'compact s',
        'pieces',
        'full 2 threads s',
        '2 threads/1',
        'warm pool s',
        'warm/1',
        'joints/vertex',
        'B/vertex full',
        'B/vertex compact',
        'DDM ms',
        'compact ms',
        'DDM SIMD ms',
        'compact SIMD ms',
        'JS/SIMD',
        'LBS ms',
        'LBS SIMD ms',
        'DDM/LBS',
        'DDM SIMD/LBS SIMD',
      ],
      ddmRows.map((r) => [
        r.asset,
        r.vertices,
        f(r.fullSeconds),
        f(r.compactSeconds),
        r.pieces,
        f(r.fullTwoThreadSeconds),
        f(r.fullTwoThreadSeconds / r.fullSeconds),
        f(r.fullTwoThreadWarmSeconds),
        f(r.fullTwoThreadWarmSeconds / r.fullSeconds),
        f(r.entriesPerVertex),
        f(r.bytesPerVertexFull, 0),
        f(r.bytesPerVertexCompact, 0),
        f(r.fullFrameMs),
        f(r.compactFrameMs),
        f(r.fullSimdFrameMs, 3),
        f(r.compactSimdFrameMs, 3),
        f(r.fullFrameMs / r.fullSimdFrameMs, 1),
        f(r.lbsFrameMs, 3),
        f(r.lbsSimdFrameMs, 3),
        f(r.fullFrameMs / r.lbsFrameMs, 1),
        f(r.fullSimdFrameMs / r.lbsSimdFrameMs, 1),
      ]),
    ),
  );
  console.log(
    `\n${machine.cpu}, ${machine.cores} cores, Node ${machine.node}. three.js column: SkinnedMesh.applyBoneTransform per vertex (positions only), compared with corskin LBS on positions only.`,
  );
  // bench/results.json (tracked: the figures README quotes) only on request; else an ignored path.
  const save = process.argv.includes('--save');
  const target = save ? join(ROOT, 'bench', 'results.json') : join(ROOT, '.tmp', 'bench-results.json');
  if (!quick) {
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(
      target,
      JSON.stringify(
        {
          machine,
          rows,
          corMemoryRows,
          bakeRows,
          cageRows,
          templateRows,
          ddmRows,
          sessionRows,
          chromiumDabs,
          viewerFrames,
        },
        null,
        2,
      ) + '\n',
    );
  }
  if (bakeRows.some((r) => !r.identical)) {
    console.error('the helper bake wrote different files on 1 and 2 threads');
    process.exitCode = 1;
  }
  if (rows.some((r) => r.maxDiffVsThree > 1e-5 || r.simdMaxDiffVsThree > 1e-5)) {
    console.error('corskin LBS and three.js disagree by more than 1e-5 of the bounding-box diagonal');
    process.exitCode = 1;
  }
}

// Before any kernel module is compiled (they compile when first instantiated).
if (process.argv.includes('--relaxed-simd')) setFlagsFromString('--experimental-wasm-relaxed-simd');
if (process.argv.includes('--peers')) await import('./native/peers.js');
else await main();
