/**
 * Blender 3.4 (Debian's `blender`, run headless) as an independent glTF client in tests: its own
 * importer and armature play a file, optionally with a Corrective Smooth modifier
 * (`test/blender/corrective-smooth.py`), and the tests compare its vertices with corskin's.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { boundingBoxDiagonal } from '../../src/core/mesh.js';
import { ROOT } from './data.js';

/** Whether Blender is on the PATH (CI installs it: scripts/install-blender.sh). */
export const BLENDER = spawnSync('blender', ['--version'], { encoding: 'utf8' }).status === 0;

/** What the script writes: per skinned mesh, rest positions and per time the evaluated world positions (glTF axes). */
export interface BlenderResult {
  meshes: { name: string; rest: number[]; smoothed: number[][]; lbs: number[][] }[];
}

/** Corrective Smooth settings (Blender's names in the script). */
export interface CorrectiveSmooth {
  iterations: number;
  factor: number;
  /** `SIMPLE` or `LENGTH_WEIGHTED`. */
  kind: string;
  pin: boolean;
}

/**
 * Imports `file` with Blender's importer (merge_vertices) and evaluates its skinned meshes at
 * `times` (seconds of the clip Blender makes active: the file's first) with the armature alone
 * (`lbs`) and with a Corrective Smooth modifier after it (`smoothed`).
 */
export function runBlender(
  dir: string,
  file: string,
  times: number[],
  smooth: CorrectiveSmooth = { iterations: 5, factor: 0.5, kind: 'SIMPLE', pin: false },
): BlenderResult {
  const out = join(dir, `blender-${Math.random().toString(36).slice(2)}.json`);
  const script = join(ROOT, 'test/blender/corrective-smooth.py');
  execFileSync(
    'blender',
    ['-b', '--factory-startup', '--python-exit-code', '1', '--python', script, '--', file, out, times.join(','), String(smooth.iterations), String(smooth.factor), smooth.kind, smooth.pin ? '1' : '0'],
    { stdio: 'pipe', timeout: 120_000 },
  ); // prettier-ignore
  return JSON.parse(readFileSync(out, 'utf8')) as BlenderResult;
}

/**
 * For every Blender vertex, the corskin vertex at its position (`positions`, 3·n, and `rest`,
 * the same space; the importer rounds a little: each must lie within `tolerance` of the
 * diagonal of `positions`).
 */
export function matchVertices(positions: Float32Array, rest: number[], tolerance = 1e-6): Uint32Array {
  const P = positions;
  const map = new Uint32Array(rest.length / 3);
  tolerance *= boundingBoxDiagonal(P);
  for (let b = 0; b < map.length; b++) {
    let best = 0, bd = Infinity; // prettier-ignore
    for (let i = 0; i < P.length; i += 3) {
      const d = Math.hypot(P[i] - rest[3 * b], P[i + 1] - rest[3 * b + 1], P[i + 2] - rest[3 * b + 2]);
      if (d < bd) {
        bd = d;
        best = i / 3;
      }
    }
    expect(bd).toBeLessThan(tolerance);
    map[b] = best;
  }
  return map;
}
