/**
 * The registry of skinning methods is the one list: the CLI offers and documents every method,
 * the benchmark measures every one, the SIMD factory and the GPU path take exactly those the
 * registry says, with the upload costs it states.
 */
import { describe, expect, it } from 'vitest';
import { deformers } from '../src/deformers/index.js';
import { SKINNING_METHODS } from '../src/deformers/registry.js';
import { barBenchmark, runBenchmark } from '../src/evaluation/benchmark.js';
import { createSimdDeformer } from '../src/wasm/simd-skinning.js';
import { runCli } from './helpers/cli.js';

describe('the registry of skinning methods', () => {
  it('every method is a choice of corskin deform, with its citation in the help', async () => {
    const help = (await runCli('deform', '--help')).stdout.replace(/\s+/g, ' ');
    for (const m of SKINNING_METHODS) {
      expect(help).toContain(`"${m.id}"`);
      expect(help).toContain(m.citation);
    }
  });

  it('every rig-free method has a deformer, and the benchmark measures every method with its upload cost', () => {
    for (const m of SKINNING_METHODS)
      if (!m.needsRig) expect(typeof deformers[m.id as keyof typeof deformers]).toBe('function');
    const rows = runBenchmark(
      barBenchmark(),
      SKINNING_METHODS.map((m) => m.id),
    );
    for (const m of SKINNING_METHODS) {
      const r = rows.find((x) => x.method === m.id)!;
      expect(r.floatsPerBone).toBe(m.floatsPerBone);
      expect(r.floatsPerVertex).toBe(m.floatsPerVertex);
    }
  });

  it('the SIMD factory takes exactly the methods marked simd', async () => {
    const { mesh } = barBenchmark();
    const withCenters = { ...mesh, centersOfRotation: mesh.positions.slice() };
    for (const m of SKINNING_METHODS) {
      const made = createSimdDeformer(withCenters, m.id as never);
      if (m.simd) await expect(made).resolves.toBeDefined();
      else await expect(made).rejects.toThrow('no SIMD kernel');
    }
  });

  it('corskin render offers the GPU methods and no others', async () => {
    const help = (await runCli('render', '--help')).stdout;
    for (const m of SKINNING_METHODS) expect(help.includes(`"${m.id}"`)).toBe(m.gpu);
  });
});
