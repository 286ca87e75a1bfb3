/**
 * What the per-frame benches (`ddm-frames.ts`, `simd-frames.ts`) share: the assets, medians of one
 * frame's time and the table they print.
 */
import { join } from 'node:path';
import { samplePose } from '../src/core/animation.js';
import type { SkinnedMesh } from '../src/core/mesh.js';
import { skinningMatrices } from '../src/core/pose.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { subdivideMidpoint } from './subdivide-mesh.js';

/** The shared data folder (../shared/data beside the repository). */
export const DATA = join(import.meta.dirname, '..', '..', 'shared', 'data');

/**
 * The first skin of `file`, subdivided `subdivisions` times by midpoints, with 20 frames of skinning
 * matrices evenly over its first clip; and an output of its size (positions, normals).
 */
export async function benchAsset(file: string, subdivisions: number) {
  const [model] = extractSkinnedModels(await readDocument(file), file);
  let mesh: SkinnedMesh = model.mesh;
  for (let s = 0; s < subdivisions; s++) mesh = subdivideMidpoint(mesh);
  const clip = model.animations[0];
  const frames = Array.from({ length: 20 }, (_, f) =>
    skinningMatrices(model.skeleton, samplePose(model.skeleton, clip, (clip.duration * f) / 20)),
  );
  const n = mesh.positions.length / 3;
  const out = { positions: new Float32Array(3 * n), normals: mesh.normals && new Float32Array(3 * n) };
  return { mesh, skeleton: model.skeleton, frames, n, out };
}

/** The median of `xs` (not sorted in place). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/**
 * Passes over the frames until `run` has taken at least 250 ms (at least one pass, at most 100):
 * a real-time deformer plays thousands of frames, so its steady state is what is timed — V8
 * optimises a function after some hundreds of calls, and one pass of 20 frames left JavaScript-heavy
 * methods (the templates' cage posing) timed at up to twice their steady-state cost.
 */
function warmUp(frames: Float64Array[], run: (S: Float64Array) => void): void {
  const start = performance.now();
  for (let pass = 0; pass < 100 && (pass === 0 || performance.now() - start < 250); pass++)
    for (const S of frames) run(S);
}

/** Median ms of one call over the frames × `reps`, after {@link warmUp}. */
export function frameMs(frames: Float64Array[], deform: (S: Float64Array) => void, reps: number): number {
  warmUp(frames, deform);
  const times: number[] = [];
  for (let r = 0; r < reps; r++)
    for (const S of frames) {
      const t = performance.now();
      deform(S);
      times.push(performance.now() - t);
    }
  return median(times);
}

/**
 * The median over frames × reps of b's time over a's for the same frame, a and b timed one after
 * the other, after {@link warmUp}: a ratio that a slower or busier moment of the machine moves less
 * than a ratio of two medians taken apart.
 */
export function pairedRatio(
  frames: Float64Array[],
  a: (S: Float64Array) => void,
  b: (S: Float64Array) => void,
  reps: number,
): number {
  warmUp(frames, (S) => (a(S), b(S)));
  const ratios: number[] = [];
  for (let r = 0; r < reps; r++)
    for (const S of frames) {
      let t = performance.now();
      a(S);
      const ta = performance.now() - t;
      t = performance.now();
      b(S);
      ratios.push((performance.now() - t) / ta);
    }
  return median(ratios);
}

/** Prints `rows` under `head`, the first column left-aligned and the others right-aligned. */
export function printTable(head: string[], rows: string[][]): void {
  const width = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  for (const r of [head, head.map((_, c) => '-'.repeat(width[c])), ...rows])
    console.log(r.map((x, c) => (c < 1 ? x.padEnd(width[c]) : x.padStart(width[c]))).join('  '));
}
