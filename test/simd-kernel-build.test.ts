/**
 * Which build of the SIMD kernels runs (`simdKernelBuild`): relaxed SIMD where the runtime has it
 * (Node 21 and later; Node 20 with `--experimental-wasm-relaxed-simd`, as vitest.config.ts' second
 * project runs the SIMD tests against the JavaScript deformers), else the standard build; and the
 * relaxed build must really need relaxed SIMD (its multiply-adds fused).
 */
import { describe, expect, it } from 'vitest';
import { simdKernelBuild } from '../src/wasm/instance.js';
import { KERNELS_RELAXED_WASM_BASE64, KERNELS_WASM_BASE64 } from '../src/wasm/kernels-binary.js';
import { SHARED_KERNELS_RELAXED_WASM_BASE64, SHARED_KERNELS_WASM_BASE64 } from '../src/wasm/kernels-shared-binary.js';

const bytes = (base64: string) => Uint8Array.from(Buffer.from(base64, 'base64'));
/** Whether this runtime has relaxed SIMD: Node 21 and later, or Node 20 with its V8 flag. */
const relaxedSimd =
  Number(process.versions.node.split('.')[0]) >= 21 || process.execArgv.includes('--experimental-wasm-relaxed-simd');

describe('the SIMD kernel build', () => {
  it('is relaxed where the runtime has relaxed SIMD, unless CORSKIN_SIMD_BUILD=standard asks for the standard one', () => {
    const asked = process.env.CORSKIN_SIMD_BUILD === 'standard';
    expect(simdKernelBuild()).toBe(relaxedSimd && !asked ? 'relaxed' : 'standard');
  });

  it('the relaxed builds use relaxed SIMD: they validate only where the runtime has it, the standard builds everywhere', () => {
    for (const standard of [KERNELS_WASM_BASE64, SHARED_KERNELS_WASM_BASE64])
      expect(WebAssembly.validate(bytes(standard))).toBe(true);
    for (const relaxed of [KERNELS_RELAXED_WASM_BASE64, SHARED_KERNELS_RELAXED_WASM_BASE64])
      expect(WebAssembly.validate(bytes(relaxed))).toBe(relaxedSimd);
  });
});
