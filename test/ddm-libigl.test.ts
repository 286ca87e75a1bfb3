/**
 * Direct Delta Mush against libigl's `direct_delta_mush` (fixtures made once with libigl; see
 * test/fixtures/ddm/README.md): same weights and parameters, libigl's smoothing operator.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { computeDirectDeltaMush } from '../src/ddm/precompute.js';
import { deformDdm } from '../src/deformers/ddm.js';
import type { SkinnedMesh } from '../src/core/mesh.js';

const FIX = join(__dirname, 'fixtures/ddm');
const LIBIGL = join(__dirname, '../../shared/data/libigl');

/** OBJ `v`/`f` lines in double precision (libigl reads doubles). */
function readObjDouble(path: string): { positions: Float64Array; triangles: Uint32Array } {
  const v: number[] = [];
  const f: number[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const t = line.trim().split(/\s+/);
    if (t[0] === 'v') v.push(+t[1], +t[2], +t[3]);
    else if (t[0] === 'f') f.push(...t.slice(1, 4).map((s) => parseInt(s, 10) - 1));
  }
  return { positions: Float64Array.from(v), triangles: Uint32Array.from(f) };
}

/** ASCII DMAT (cols rows, then column-major values) as row-major n × m. */
function readDmatAscii(path: string): { rows: number; cols: number; rowMajor: Float64Array } {
  const tok = readFileSync(path, 'utf8').trim().split(/\s+/).map(Number);
  const [cols, rows] = tok;
  const out = new Float64Array(rows * cols);
  for (let c = 0; c < cols; c++) for (let r = 0; r < rows; r++) out[r * cols + c] = tok[2 + r + rows * c];
  return { rows, cols, rowMajor: out };
}

function skinningOf(transforms: number[][]): Float64Array {
  const S = new Float64Array(16 * transforms.length);
  transforms.forEach((t, j) => {
    // [R | t] row-major → 4×4 column-major
    for (let r = 0; r < 3; r++) {
      for (let c = 0; c < 3; c++) S[16 * j + 4 * c + r] = t[4 * r + c];
      S[16 * j + 12 + r] = t[4 * r + 3];
    }
    S[16 * j + 15] = 1;
  });
  return S;
}

function diagonal(p: ArrayLike<number>): number {
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < p.length; i++) ((lo[i % 3] = Math.min(lo[i % 3], p[i])), (hi[i % 3] = Math.max(hi[i % 3], p[i])));
  return Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
}

function check(name: string, obj: string, W: { rows: number; cols: number; rowMajor: Float64Array }) {
  const manifest = JSON.parse(readFileSync(join(FIX, `${name}.json`), 'utf8'));
  const { positions, triangles } = readObjDouble(join(LIBIGL, obj));
  const n = positions.length / 3;
  expect(W.rows).toBe(n);
  const m = W.cols;
  const joints = new Uint32Array(n * m);
  for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) joints[i * m + j] = j;
  const { p, lambda, kappa, alpha } = manifest.parameters;
  const model = computeDirectDeltaMush(
    { positions, triangles, influences: m, joints, weights: W.rowMajor },
    { iterations: p, lambda, kappa, alpha, smoothing: 'libigl', threshold: 0 },
  );
  const mesh = {
    positions,
    triangles,
    influences: m,
    joints,
    weights: W.rowMajor,
    deltaMush: model,
  } as unknown as SkinnedMesh;
  const diag = diagonal(positions);
  const errors: Record<string, number> = {};
  for (const pose of manifest.poses) {
    const expected = new Float64Array(new Uint8Array(readFileSync(join(FIX, pose.file))).buffer);
    const out = { positions: new Float32Array(3 * n) };
    deformDdm(mesh, skinningOf(pose.transforms), out);
    let worst = 0;
    for (let k = 0; k < 3 * n; k++) worst = Math.max(worst, Math.abs(out.positions[k] - expected[k]));
    errors[pose.name] = worst / diag;
  }
  return errors;
}

describe('Direct Delta Mush = libigl (Le & Lewis 2019, variant 0)', () => {
  it('the arm, four poses (twist 180° with its reflected fits included), within 1e-5 of the diagonal', () => {
    const errors = check('arm', 'arm.obj', readDmatAscii(join(LIBIGL, 'arm-weights.dmat')));
    console.log(errors);
    for (const e of Object.values(errors)) expect(e).toBeLessThan(1e-5);
  });
});
