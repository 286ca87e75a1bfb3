import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * The SIMD kernels' tests against the JavaScript deformers, run a second time on the kernels'
 * relaxed-SIMD build (src/wasm/instance.ts' `simdKernelBuild`: fused multiply-adds): Node 22 and
 * later run that build by default, Node 20 with a V8 flag.
 */
const SIMD_TESTS = [
  'test/simd-skinning.test.ts',
  'test/simd-parallel.test.ts',
  'test/ddm-simd.test.ts',
  'test/dm-simd.test.ts',
  'test/stretch-simd.test.ts',
  'test/templates-simd.test.ts',
  'test/simd-kernel-build.test.ts',
];

/** `(func (param v128 v128 v128) (result v128) f32x4.relaxed_madd)`: valid where relaxed SIMD is on. */
const RELAXED_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 8, 1, 96, 3, 123, 123, 123, 1, 123, 3, 2, 1, 0, 10, 13, 1, 11, 0, 32, 0, 32, 1, 32, 2,
  253, 133, 2, 11,
]);

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Vitest's default is one worker fewer than the cores: on a 2-core machine, one file at a
    // time. The unit files are independent (each writes into its own scratch folder) and mostly
    // single-threaded: two at a time nearly halve the suite's wall time there.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'relaxed-simd',
          include: SIMD_TESTS,
          execArgv: WebAssembly.validate(RELAXED_PROBE) ? [] : ['--experimental-wasm-relaxed-simd'],
          env: { CORSKIN_EXPECT_SIMD_BUILD: 'relaxed' },
        },
      },
    ],
  },
});
