/** Converts a libigl asset of ../shared/data with `corskin convert` into `dir`; returns its path. */
import { join } from 'node:path';
import { expect } from 'vitest';
import { runCli } from './cli.js';
import { LIBIGL } from './data.js';

export async function convertLibigl(
  dir: string,
  name: 'arm' | 'elephant' | 'armadillo',
  animation = false,
): Promise<string> {
  const out = join(dir, `${name}${animation ? '-anim' : ''}.glb`);
  const args = ['convert', join(LIBIGL, `${name}.obj`), '--weights', join(LIBIGL, `${name}-weights.dmat`), '-o', out];
  if (name !== 'armadillo') args.push('--skeleton', join(LIBIGL, `${name}.tgf`));
  if (animation) args.push('--animation', join(LIBIGL, `${name}-anim.dmat`), '--fps', '30');
  const r = await runCli(...args);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return out;
}
