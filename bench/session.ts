/**
 * Weight painting with live centers of rotation (part of `npm run bench`): the update after one
 * brush dab (`brushDab`, add 20% of a vertex's first joint, radius 5% of the character's height) on an
 * incremental session (`createCorSession`), against a full recomputation in the same run.
 */
import type { SkinnedMesh } from '../src/core/mesh.js';
import { computeCentersOfRotation } from '../src/cor/precompute.js';
import { createCorSession } from '../src/cor/session.js';
import { brushDab } from '../src/weights/brush.js';
import { rng } from '../scripts/rng.mjs';
import { openViewerInBench } from './viewer.js';

export interface SessionRow {
  asset: string;
  vertices: number;
  startSeconds: number;
  /** Update after a dab, ms: median, 90th percentile, largest (20 dabs). */
  dabMedianMs: number;
  dabP90Ms: number;
  dabMaxMs: number;
  /** Vertices re-evaluated per dab (median). */
  recomputed: number;
  fullMs: number;
  /** Full recomputation / median dab update. */
  speedup: number;
}

const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

export function measureSession(asset: string, mesh: SkinnedMesh, jointCount: number, dabs = 20): SessionRow {
  const n = mesh.positions.length / 3;
  const K = mesh.influences;
  let t = performance.now();
  const s = createCorSession(mesh, { jointCount });
  const startSeconds = (performance.now() - t) / 1000;
  let height = 0;
  for (let k = 0; k < 3; k++) {
    let lo = Infinity,
      hi = -Infinity;
    for (let i = k; i < mesh.positions.length; i += 3)
      [lo, hi] = [Math.min(lo, mesh.positions[i]), Math.max(hi, mesh.positions[i])];
    height = Math.max(height, hi - lo);
  }
  const radius = 0.05 * height;
  const random = rng(11);
  const times: number[] = [],
    counts: number[] = [];
  for (let d = 0; d < dabs + 1; d++) {
    // The viewer's brush: add 20% of the joint of a random vertex around it.
    const c = Math.floor(random() * n);
    const centre = mesh.positions.subarray(3 * c, 3 * c + 3);
    const edit = brushDab(
      s.mesh,
      { mode: 'add', joint: s.mesh.joints[K * c], centre, radius, strength: 0.2 },
      jointCount,
    );
    t = performance.now();
    const u = s.setWeights(edit.vertices, edit.joints, edit.weights);
    if (d) {
      times.push(performance.now() - t);
      counts.push(u.recomputed.length);
    }
  }
  const full: number[] = [];
  for (let r = 0; r < 5; r++) {
    t = performance.now();
    computeCentersOfRotation(s.mesh);
    full.push(performance.now() - t);
  }
  const median = quantile(times, 0.5);
  return {
    asset,
    vertices: n,
    startSeconds,
    dabMedianMs: median,
    dabP90Ms: quantile(times, 0.9),
    dabMaxMs: Math.max(...times),
    recomputed: quantile(counts, 0.5),
    fullMs: quantile(full, 0.5),
    speedup: quantile(full, 0.5) / median,
  };
}

/**
 * The same dab update in headless Chromium: the viewer in paint mode on `file`, strokes across
 * `joint` (each a few dabs), the session's own timing of every dab.
 */
export async function measureSessionInChromium(
  file: string,
  joint: string,
  strokes = 6,
): Promise<{ dabs: number; medianMs: number; p90Ms: number } | undefined> {
  const { PropertyBinding } = await import('three');
  const viewer = await openViewerInBench(file, 'model=/model.glb&layout=single&method=cor', {
    width: 960,
    height: 720,
  });
  if (!viewer) return undefined;
  try {
    const { page } = viewer;
    type V = {
      settings: Record<string, unknown>;
      jointScreen: (n: string) => { x: number; y: number };
      stroke: (x0: number, y0: number, x1: number, y1: number, steps: number) => Promise<number>;
      paintTimings: () => number[];
    };
    const times = await page.evaluate(
      async ([name, count]) => {
        const v = (window as unknown as { viewer: V }).viewer;
        Object.assign(v.settings, {
          paint: true,
          paintJoint: name, // as three.js names it
          paintMode: 'add',
          paintStrength: 0.2,
          paintRadius: 0.05,
        });
        const p = v.jointScreen(name as string);
        for (let k = 0; k < (count as number); k++) await v.stroke(p.x - 8, p.y - 8 + k, p.x + 8, p.y + 8 - k, 4);
        return v.paintTimings();
      },
      [PropertyBinding.sanitizeNodeName(joint), strokes] as const,
    );
    const ms = times.slice(1).map((s) => 1000 * s);
    return { dabs: ms.length, medianMs: quantile(ms, 0.5), p90Ms: quantile(ms, 0.9) };
  } finally {
    await viewer.close();
  }
}
