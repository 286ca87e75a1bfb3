/**
 * Dem Bones comparison (issue 29), the corskin side: `export` writes a character's bake problem
 * (CoR targets at 30 samples/s, the skeleton's skinning matrices, the original weights, the
 * triangles, the helper start of corskin's bake) as plain binary files for the C++ driver
 * (driver.cpp), runs corskin's own helper bake on the same character and measures it; `measure`
 * scores the driver's reconstructions the same way. See README.md.
 *
 *   npx tsx bench/dembones/export.ts export [file.glb] [dir]
 *   npx tsx bench/dembones/export.ts measure [dir] recon-a.f32 …
 *
 * Error: per-vertex distance to the CoR target ÷ the bind-space bounding-box diagonal, max and 99th
 * percentile over every (sample, vertex) — what `corskin bake` reports (src/bake/measure.ts).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { samplePose } from '../../src/core/animation.js';
import { skinningMatrices } from '../../src/core/pose.js';
import { computeCentersOfRotation } from '../../src/cor/precompute.js';
import { DEFAULT_EPSILON, DEFAULT_SIGMA } from '../../src/cor/parameters.js';
import { deformers } from '../../src/deformers/index.js';
import { measureBake } from '../../src/bake/measure.js';
import { clusterStart, helperRegions, influencesOf, placeHelpers } from '../../src/bake/placement.js';
import { bakeHelperJoints } from '../../src/io/helper-bake.js';
import { extractSkinnedModels, type SkinnedModel } from '../../src/io/gltf.js';
import { readDocument, writeDocument } from '../../src/io/node-io.js';

const RATE = 30;
const K = 4;
const PER_REGION = 2;

const [mode = 'export', ...rest] = process.argv.slice(2);
if (mode === 'export')
  await exportProblem(rest[0] ?? '../shared/data/gltf/CesiumMan.glb', rest[1] ?? '/tmp/dembones-data');
else if (mode === 'measure') measure(rest[0] ?? '/tmp/dembones-data', rest.slice(1));
else throw new Error(`unknown mode ${mode} (export | measure)`);

/** The CesiumMan-style model with its CoRs (computed with the CLI's defaults). */
async function load(
  file: string,
): Promise<{ document: Awaited<ReturnType<typeof readDocument>>; model: SkinnedModel }> {
  const document = await readDocument(file);
  const model = extractSkinnedModels(document, file).find((m) => m.animations.length);
  if (!model) throw new Error(`${file}: no animated skin`);
  if (model.morphGroups.length) throw new Error(`${file}: morph targets are not exported (rest pose must be fixed)`);
  return { document, model };
}

async function exportProblem(file: string, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const { model } = await load(file);
  const { mesh, skeleton } = model;
  const n = mesh.positions.length / 3;
  const J = skeleton.parents.length;
  let t0 = performance.now();
  mesh.centersOfRotation = computeCentersOfRotation(mesh, { sigma: DEFAULT_SIGMA, epsilon: DEFAULT_EPSILON }).centers;
  const corSeconds = (performance.now() - t0) / 1000;

  // Samples exactly as src/io/helper-bake.ts takes them.
  const fixed: Float64Array[] = [];
  const targets: Float32Array[] = [];
  const lbs: Float32Array[] = [];
  for (const clip of model.animations) {
    const F = Math.max(1, Math.ceil(clip.duration * RATE));
    for (let f = 0; f <= F; f++) {
      const t = (f / F) * clip.duration;
      const S = skinningMatrices(skeleton, samplePose(skeleton, clip, t));
      const out = { positions: new Float32Array(3 * n) };
      deformers.cor(mesh, S, out);
      const plain = { positions: new Float32Array(3 * n) };
      deformers.lbs(mesh, S, plain);
      fixed.push(Float64Array.from(S));
      targets.push(out.positions);
      lbs.push(plain.positions);
    }
  }
  const T = targets.length;

  // The original weights, K heaviest renormalised (the bake's start).
  const joints = new Uint32Array(K * n);
  const weights = new Float32Array(K * n);
  for (let i = 0; i < n; i++) {
    const own = influencesOf(mesh.joints, mesh.weights, mesh.influences, i).slice(0, K);
    const sum = own.reduce((s, e) => s + e.w, 0) || 1;
    own.forEach((e, k) => {
      joints[K * i + k] = e.j;
      weights[K * i + k] = e.w / sum;
    });
  }

  // corskin's helper start (src/bake/placement.ts, as src/io/helper-bake.ts uses it): regions
  // where CoR departs from LBS, ≤ 2 helpers each by k-means, each helper a rigid fit of its cluster.
  const lbsSquared = lbs.map((a, t) => {
    const b = targets[t];
    return Float64Array.from({ length: n }, (_, i) => (a[3 * i] - b[3 * i]) ** 2 + (a[3 * i + 1] - b[3 * i + 1]) ** 2 + (a[3 * i + 2] - b[3 * i + 2]) ** 2); // prettier-ignore
  });
  const placement = placeHelpers(mesh, helperRegions(mesh, skeleton.parents, targets, lbsSquared), PER_REGION);
  const { clusterOf } = placement;
  const H = placement.helperRegion.length;
  const start = clusterStart(
    placement,
    targets.map(() => mesh.positions),
    targets,
  );
  const helperStart = new Float64Array(T * 16 * H);
  start.forEach((m, t) => helperStart.set(m, 16 * H * t));

  // corskin's bake on a fresh copy, timed (the fit, with the sampling of the CoR targets), then
  // written, read back and measured as `corskin bake` does.
  const fresh = await load(file);
  fresh.model.mesh.centersOfRotation = mesh.centersOfRotation;
  t0 = performance.now();
  const r = bakeHelperJoints(fresh.document, fresh.model, deformers.cor, { influences: K, rate: RATE, helpers: PER_REGION }); // prettier-ignore
  const bakeSeconds = (performance.now() - t0) / 1000;
  if (r.helpers !== H) throw new Error(`helper start differs from the bake: ${H} here, ${r.helpers} there`);
  const bakedPath = join(dir, 'corskin-helpers.glb');
  await writeDocument(fresh.document, bakedPath, { force: true, inputs: [file] });
  const baked = extractSkinnedModels(await readDocument(bakedPath), bakedPath)[0];
  const m = measureBake(model, baked, deformers.cor, RATE);

  const cat = (arrays: ArrayLike<number>[], C: typeof Float32Array | typeof Float64Array) => {
    const all = new C(arrays.reduce((s, a) => s + a.length, 0));
    let o = 0;
    for (const a of arrays) all.set(a, (o += a.length) - a.length);
    return all;
  };
  const bytes = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  writeFileSync(join(dir, 'rest.f32'), bytes(mesh.positions));
  writeFileSync(join(dir, 'triangles.u32'), bytes(mesh.triangles));
  writeFileSync(join(dir, 'joints.u32'), bytes(joints));
  writeFileSync(join(dir, 'weights.f32'), bytes(weights));
  writeFileSync(join(dir, 'fixed.f64'), bytes(cat(fixed, Float64Array)));
  writeFileSync(join(dir, 'targets.f32'), bytes(cat(targets, Float32Array)));
  writeFileSync(join(dir, 'lbs.f32'), bytes(cat(lbs, Float32Array)));
  writeFileSync(join(dir, 'helper-start.f64'), bytes(helperStart));
  writeFileSync(join(dir, 'clusters.i32'), bytes(clusterOf));
  // The driver reads this line: n J T H K triangles.
  writeFileSync(join(dir, 'sizes.txt'), `${n} ${J} ${T} ${H} ${K} ${mesh.triangles.length / 3}\n`);
  const meta = {
    file,
    vertices: n,
    joints: J,
    helpers: H,
    samples: T,
    influences: K,
    diagonal: m.diagonal,
    corPrecomputeSeconds: corSeconds,
    corskin: {
      seconds: bakeSeconds,
      iterations: r.iterations,
      activeVertices: r.activeVertices,
      max: m.max,
      p99: m.p99,
    },
    lbs: { max: m.lbsMax, p99: m.lbsP99 },
  };
  writeFileSync(join(dir, 'meta.json'), JSON.stringify(meta, null, 2) + '\n');
  const e = (x: number) => x.toExponential(2);
  console.log(`${file}: ${n} vertices, ${J} joints, ${T} samples; corskin adds ${H} helpers (${J + H} bones)`);
  console.log(
    `corskin helpers: ${bakeSeconds.toFixed(2)} s, ${r.iterations} iterations, max ${e(m.max)}, p99 ${e(m.p99)}`,
  );
  console.log(
    `plain LBS: max ${e(m.lbsMax)}, p99 ${e(m.lbsP99)}   (CoR precompute ${corSeconds.toFixed(2)} s, not in the bake time)`,
  );
  console.log(`wrote ${dir}`);
}

/** Scores reconstructions (T × n × 3 float32, the driver's output) against the CoR targets. */
function measure(dir: string, files: string[]): void {
  const meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8'));
  const f32 = (p: string) => {
    const b = readFileSync(p);
    return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  };
  const targets = f32(join(dir, 'targets.f32'));
  const score = (recon: Float32Array) => {
    if (recon.length !== targets.length) throw new Error(`size ${recon.length}, expected ${targets.length}`);
    const d = new Float32Array(targets.length / 3);
    for (let o = 0; o < d.length; o++)
      d[o] = Math.hypot(recon[3 * o] - targets[3 * o], recon[3 * o + 1] - targets[3 * o + 1], recon[3 * o + 2] - targets[3 * o + 2]) / meta.diagonal; // prettier-ignore
    d.sort();
    return { max: d[d.length - 1], p99: d[Math.min(d.length - 1, Math.floor(0.99 * d.length))] };
  };
  const e = (x: number) => x.toExponential(2);
  const lbs = score(f32(join(dir, 'lbs.f32')));
  console.log(`plain LBS (recomputed here): max ${e(lbs.max)}, p99 ${e(lbs.p99)}`);
  for (const file of files) {
    const s = score(f32(file));
    console.log(`${file}: max ${e(s.max)}, p99 ${e(s.p99)}`);
  }
}
