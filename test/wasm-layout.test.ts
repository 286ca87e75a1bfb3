/**
 * The kernel memory layout against the kernel modules' own static data: every block
 * `kernelLayout` hands out lies above the modules' data segments, which instantiation writes into
 * the same memory (AssemblyScript's tables for the argument reduction of `Math` and `Mathf`; every
 * worker thread's instantiation writes them again into the shared memory). A block over them
 * would overwrite the table, and the table would show through any lane of a block the caller
 * never writes (a padding lane read by a 4-lane sum).
 */
import { describe, expect, it } from 'vitest';
import { KERNELS_RELAXED_WASM_BASE64, KERNELS_WASM_BASE64 } from '../src/wasm/kernels-binary.js';
import { SHARED_KERNELS_RELAXED_WASM_BASE64, SHARED_KERNELS_WASM_BASE64 } from '../src/wasm/kernels-shared-binary.js';
import { KERNEL_LAYOUT_START, kernelLayout } from '../src/wasm/instance.js';

/** [offset, length] of each active data segment of a WebAssembly binary (its data section, id 11). */
function dataSegments(bytes: Uint8Array): [number, number][] {
  let p = 8; // magic and version
  const leb = (): number => {
    let value = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = bytes[p++];
      value |= (byte & 127) << shift;
      shift += 7;
    } while (byte & 128);
    return value;
  };
  const segments: [number, number][] = [];
  while (p < bytes.length) {
    const id = bytes[p++];
    const size = leb();
    const end = p + size;
    if (id === 11) {
      for (let count = leb(); count > 0; count--) {
        const flags = leb();
        expect(flags, 'an active segment in memory 0').toBe(0);
        expect(bytes[p++], 'offset given by i32.const').toBe(0x41);
        const offset = leb();
        expect(bytes[p++], 'end of the offset expression').toBe(0x0b);
        const length = leb();
        segments.push([offset, length]);
        p += length;
      }
    }
    p = end;
  }
  return segments;
}

describe('the kernel memory layout', () => {
  it.each([
    ['kernels', KERNELS_WASM_BASE64],
    ['kernels over a shared memory', SHARED_KERNELS_WASM_BASE64],
    ['kernels, relaxed SIMD', KERNELS_RELAXED_WASM_BASE64],
    ['kernels over a shared memory, relaxed SIMD', SHARED_KERNELS_RELAXED_WASM_BASE64],
  ])('%s: the data segments end below the first block', (_, base64) => {
    const segments = dataSegments(Uint8Array.from(Buffer.from(base64, 'base64')));
    for (const [offset, length] of segments) expect(offset + length).toBeLessThanOrEqual(KERNEL_LAYOUT_START);
    const layout = kernelLayout();
    expect(layout.take(64)).toBe(KERNEL_LAYOUT_START);
    expect(layout.take(1)).toBe(KERNEL_LAYOUT_START + 64);
    expect(layout.size).toBe(KERNEL_LAYOUT_START + 80);
  });

  it('finds the kernels module’s data (so that the check above is not vacuous)', () => {
    // Its trigonometry (Math.sin, Mathf.sin, …) brings AssemblyScript's tables of 2/π.
    const segments = dataSegments(Uint8Array.from(Buffer.from(KERNELS_WASM_BASE64, 'base64')));
    expect(segments.length).toBeGreaterThan(0);
    for (const [offset, length] of segments) expect(offset > 0 && length > 0).toBe(true);
  });
});
