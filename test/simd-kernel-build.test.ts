/**
 * Which build of the SIMD kernels runs (`simdKernelBuild`): relaxed SIMD where the runtime has it
 * (Node 22 and later; Node 20 with `--experimental-wasm-relaxed-simd`, as vitest.config.ts' second
 * project runs the SIMD tests against the JavaScript deformers), else the standard build; and the
 * relaxed build must really need relaxed SIMD (its multiply-adds fused).
 */
import { describe, expect, it } from 'vitest';
import { simdKernelBuild } from '../src/wasm/instance.js';
import { KERNELS_RELAXED_WASM_BASE64, KERNELS_WASM_BASE64 } from '../src/wasm/kernels-binary.js';
import { SHARED_KERNELS_RELAXED_WASM_BASE64, SHARED_KERNELS_WASM_BASE64 } from '../src/wasm/kernels-shared-binary.js';

const bytes = (base64: string) => Uint8Array.from(Buffer.from(base64, 'base64'));
const nodeMajor = Number(process.versions.node.split('.')[0]);

describe('the SIMD kernel build', () => {
  it('is relaxed where the runtime has relaxed SIMD (Node 22 and later, or Node 20 with its flag), else standard', () => {
    const expected = process.env.CORSKIN_EXPECT_SIMD_BUILD ?? (nodeMajor >= 22 ? 'relaxed' : 'standard');
    expect(simdKernelBuild()).toBe(expected);
  });

  it('the relaxed builds use relaxed SIMD: without it they do not validate, the standard builds do', () => {
    for (const standard of [KERNELS_WASM_BASE64, SHARED_KERNELS_WASM_BASE64])
      expect(WebAssembly.validate(bytes(standard))).toBe(true);
    for (const relaxed of [KERNELS_RELAXED_WASM_BASE64, SHARED_KERNELS_RELAXED_WASM_BASE64])
      expect(WebAssembly.validate(bytes(relaxed))).toBe(simdKernelBuild() === 'relaxed');
  });
});
