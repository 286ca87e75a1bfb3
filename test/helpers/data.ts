/** Paths of the shared real data and a scratch folder per test file. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SHARED = join(ROOT, '..', 'shared', 'data');
export const LIBIGL = join(SHARED, 'libigl');
export const CESIUM_MAN = join(SHARED, 'gltf', 'CesiumMan.glb');
export const ARM_GLB = join(ROOT, 'assets', 'arm.glb');

/** A fresh temporary folder, removed by the returned cleanup. */
export function scratch(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'corskin-test-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A small deterministic PRNG (mulberry32) for sampling. */
export { rng } from '../../scripts/rng.mjs';
