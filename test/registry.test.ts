/**
 * The registry of skinning methods is the one list: the CLI offers and documents every method,
 * the benchmark measures every one, the SIMD factory and the GPU path take exactly those the
 * registry says, with the upload costs it states.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deformers } from '../src/deformers/index.js';
import { SKINNING_METHODS } from '../src/deformers/registry.js';
import { barBenchmark, runBenchmark } from '../src/evaluation/benchmark.js';
import { stretchRigFromSkeleton } from '../src/deformers/stretch.js';
import { createSimdDeformer } from '../src/wasm/simd-skinning.js';
import { methodModule, prepareMethod } from '../src/methods/index.js';
import { runCli } from './helpers/cli.js';
import { ROOT } from './helpers/data.js';
// @ts-expect-error: a plain JavaScript script without types
import { methodsTable } from '../scripts/methods-table.mjs';

/** The cells of a Markdown table's body rows (alignment padding removed). */
const cells = (table: string) =>
  table
    .trim()
    .split('\n')
    .slice(2)
    .map((row) =>
      row
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );

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
    const { mesh, skeleton } = barBenchmark();
    const withCenters = { ...mesh, centersOfRotation: mesh.positions.slice(), methodData: {} };
    for (const m of SKINNING_METHODS) {
      // A method module's kernel takes the mesh as its prepare leaves it.
      if (m.simd && methodModule(m.id)) prepareMethod(m.id, { mesh: withCenters, skeleton });
      // Stretch skinning's kernel takes its rig, as its JavaScript deformer does.
      const made = createSimdDeformer(
        withCenters,
        m.id as never,
        m.id === 'stretch' ? { rig: stretchRigFromSkeleton(skeleton) } : undefined,
      );
      if (m.simd) await expect(made).resolves.toBeDefined();
      else await expect(made).rejects.toThrow('no SIMD kernel');
    }
  });

  it('corskin/three has a GLSL and a TSL kernel for exactly the methods marked gpu', async () => {
    const { GPU_KERNELS } = await import('../src/three/index.js');
    const { TSL_KERNELS } = await import('../src/three/nodes.js');
    const gpu = SKINNING_METHODS.filter((m) => m.gpu).map((m) => m.id);
    expect(GPU_KERNELS.map((k) => k.id).sort()).toEqual([...gpu].sort());
    expect(TSL_KERNELS.map((k) => k.id).sort()).toEqual([...gpu].sort());
  });

  it('a method module that precomputes has the node.ts corskin precompute loads, and only those', async () => {
    const { existsSync } = await import('node:fs');
    for (const m of SKINNING_METHODS) {
      if (!('module' in m && m.module)) continue;
      const file = join(ROOT, 'src/methods', m.id, 'node.ts');
      expect([m.id, existsSync(file)]).toEqual([m.id, m.precomputes !== null]);
      if (m.precomputes) {
        const hooks = (await import(`../src/methods/${m.id}/node.ts`)).default;
        expect(typeof hooks.what).toBe('string');
        expect(typeof hooks.precompute).toBe('function');
      }
    }
  });

  it('a method module with a command group has the commands.ts the CLI adds, and only those; its help is there', async () => {
    const { existsSync } = await import('node:fs');
    for (const m of SKINNING_METHODS) {
      const has = 'commands' in m && m.commands === true;
      expect([m.id, existsSync(join(ROOT, 'src/methods', m.id, 'commands.ts'))]).toEqual([m.id, has]);
      if (has) {
        const help = await runCli(m.id, '--help');
        expect(help.code, help.stderr).toBe(0);
        expect(help.stdout).toContain(m.citation.split(' ')[0]);
      }
    }
  });

  it('corskin render offers the methods corskin/three runs (GPU; method modules and SIMD methods on the CPU) and no others', async () => {
    const help = (await runCli('render', '--help')).stdout;
    for (const m of SKINNING_METHODS)
      expect(help.includes(`"${m.id}"`)).toBe(m.gpu || ('module' in m && m.module === true) || m.simd);
    expect(help.includes('"cage"')).toBe(false); // it needs a cage bound in the file
  });

  it("README's table of methods is the registry's (scripts/methods-table.mjs)", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const block = /<!-- methods table[^>]*-->([\s\S]*?)<!-- end of methods table -->/.exec(readme);
    expect(block).not.toBeNull();
    expect(cells(block![1])).toEqual(cells(methodsTable(SKINNING_METHODS)));
    expect(cells(block![1]).map((row) => row[0])).toEqual(SKINNING_METHODS.map((m) => `\`${m.id}\``));
  });
});
