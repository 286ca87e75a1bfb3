/**
 * The WebAssembly SIMD kernels (asm/: LBS, DQS, CoR and Direct Delta Mush, one module) on a
 * memory of their own: each prepared mesh instantiates the module once over a memory laid out by
 * its driver (`simd-skinning.ts`, `methods/ddm/simd.ts`).
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';
import { KERNELS_WASM_BASE64 } from './kernels-binary.js';

function decodeBase64(s: string): Uint8Array {
  const bin = atob(s);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

/**
 * A 16-byte-aligned bump layout of a kernel memory: `take(bytes)` returns the offset of a new
 * block; offset 0 stays unused (a zero pointer means "absent" to the kernels).
 */
export function kernelLayout(): { take(bytes: number): number; readonly size: number } {
  let top = 16;
  return {
    take(bytes: number) {
      const at = top;
      top += Math.ceil(bytes / 16) * 16;
      return at;
    },
    get size() {
      return top;
    },
  };
}

/**
 * Instantiates the kernels over a new memory of at least `bytes` bytes.
 * @returns the memory and the kernels' exports (functions taking byte offsets in it)
 * @throws CorskinError when the runtime has no WebAssembly SIMD
 */
export async function instantiateKernels(
  bytes: number,
): Promise<{ memory: WebAssembly.Memory; exports: Record<string, (...args: number[]) => void> }> {
  try {
    const memory = new WebAssembly.Memory({ initial: Math.ceil(bytes / 65536) });
    const module = await WebAssembly.compile(decodeBase64(KERNELS_WASM_BASE64) as Uint8Array<ArrayBuffer>);
    const instance = await WebAssembly.instantiate(module, { env: { memory } });
    return { memory, exports: instance.exports as Record<string, (...args: number[]) => void> };
  } catch (e) {
    throw new CorskinError(`WebAssembly SIMD is not available here: ${(e as Error).message}`);
  }
}
