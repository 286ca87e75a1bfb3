import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * The SIMD kernels' tests against the JavaScript deformers, run a second time on the kernels'
 * relaxed-SIMD build (src/wasm/instance.ts' `simdKernelBuild`: fused multiply-adds); the 'unit'
 * project asks for the standard build (`CORSKIN_SIMD_BUILD=standard`), which Node 21 and later would
 * not run otherwise.
 */
const SIMD_TESTS = [
  'test/simd-skinning.test.ts',
  'test/simd-parallel.test.ts',
  'test/ddm-simd.test.ts',
  'test/dm-simd.test.ts',
  'test/stretch-simd.test.ts',
  'test/templates-simd.test.ts',
  'test/simd-kernel-build.test.ts',
  'test/bound-deformer.test.ts',
  'test/mirrored-poses.test.ts',
  'test/sbs-lms.test.ts',
];

/** Node 21 and later have WebAssembly relaxed SIMD on; Node 20 behind a V8 flag. */
const RELAXED_FLAG = Number(process.versions.node.split('.')[0]) >= 21 ? [] : ['--experimental-wasm-relaxed-simd'];

export default defineConfig({
  test: {
    // Timeouts catch a hang, not slowness: a whole bake (ShibaInu, 8 influences) took 122 s of a
    // 120 s timeout on a slower 2-core machine (2026-12-06); tests that name their own timeout
    // name 3× what they took there at most.
    testTimeout: 360_000,
    hookTimeout: 360_000,
    // Vitest's default is one worker fewer than the cores: on a 2-core machine, one file at a
    // time. The unit files are independent (each writes into its own scratch folder) and mostly
    // single-threaded: two at a time nearly halve the suite's wall time there.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      // The standard build everywhere (Node 21+ would run the relaxed one).
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], env: { CORSKIN_SIMD_BUILD: 'standard' } },
      },
      {
        extends: true,
        test: {
          name: 'relaxed-simd',
          include: SIMD_TESTS,
          execArgv: RELAXED_FLAG,
        },
      },
    ],
  },
});
