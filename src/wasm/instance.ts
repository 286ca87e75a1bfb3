/**
 * The WebAssembly SIMD kernels (asm/: LBS, DQS, SBS, LMS, CoR, Direct Delta Mush, Delta Mush,
 * stretch skinning and the skinning templates' corrective blend, one module) on a memory of
 * their own: each prepared mesh instantiates the module once over a memory laid out by its
 * driver (`simd-skinning.ts`, `stretch.ts`, `methods/{ddm,dm,templates}/simd.ts`), and the
 * pieces every driver shares: the vertex arrays in and out, the frame's matrices, and the
 * deformer object ({@link simdDeformer}).
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';
import { mat4LinearDeterminant } from '../core/math.js';
import type { SkinnedMesh } from '../core/mesh.js';
import { checkDeformArgs, skinningArray, type DeformTarget } from '../deformers/contract.js';
import type { SimdDeformer, SimdSkinningMethod } from './simd-skinning.js';
import { KERNELS_RELAXED_WASM_BASE64, KERNELS_WASM_BASE64 } from './kernels-binary.js';
import type { KernelExports } from './kernel-range.js';

function decodeBase64(s: string): Uint8Array {
  const bin = atob(s);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

/**
 * Where {@link kernelLayout} starts: above the kernel modules' static data (the data segments
 * AssemblyScript emits, its tables of 2/π for the trigonometry of `Math` and `Mathf`: 1024–1248
 * at present), which instantiation writes into the memory — each worker thread's instantiation
 * too — and the layout's blocks must not overlap (`test/wasm-layout.test.ts`).
 */
export const KERNEL_LAYOUT_START = 2048;

/**
 * A 16-byte-aligned bump layout of a kernel memory from {@link KERNEL_LAYOUT_START}: `take(bytes)`
 * returns the offset of a new block (a zero pointer means "absent" to the kernels).
 */
export function kernelLayout(): { take(bytes: number): number; readonly size: number } {
  let top = KERNEL_LAYOUT_START;
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
 * The smallest module using relaxed SIMD: `(func (param v128 v128 v128) (result v128)
 * f32x4.relaxed_madd)`.
 */
const RELAXED_SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 8, 1, 96, 3, 123, 123, 123, 1, 123, 3, 2, 1, 0, 10, 13, 1, 11, 0, 32, 0, 32, 1, 32, 2,
  253, 133, 2, 11,
]);

/** Which build of the kernels runs here (see {@link simdKernelBuild}). */
export type SimdKernelBuild = 'relaxed' | 'standard';

/**
 * Which build of the SIMD kernels runs here.
 *
 * - 'relaxed' where the runtime validates WebAssembly relaxed SIMD (Node 21 and later, Chromium
 *   114 and later; Node 20 with `--experimental-wasm-relaxed-simd`): its multiply-adds are fused
 *   where the CPU has FMA, 6–17% less time per frame for LBS, DQS, CoR and log-matrix skinning on
 *   CesiumMan subdivided ×3 (`npm run bench:simd-builds`). Its results differ from the standard
 *   build's in the last bits (within 1.3e-6 of the bounding-box diagonal on CesiumMan, the
 *   Soldier and the chicken), and may differ from one CPU to another (fused or not). Should the
 *   relaxed module fail to compile, the kernels quietly run the standard one.
 * - 'standard' elsewhere, and wherever the environment variable `CORSKIN_SIMD_BUILD` is
 *   `standard` (Node; any case): WebAssembly SIMD, the same bits on every machine.
 *
 * Whether the runtime has WebAssembly SIMD at all is another question: where it has not, the
 * kernels throw (`createSimdDeformer`) whatever this says.
 * @returns the build, as the runtime and the environment are when called; undefined where there
 *   is no WebAssembly
 */
export function simdKernelBuild(): SimdKernelBuild | undefined {
  if (typeof WebAssembly === 'undefined') return undefined;
  const asked = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
    ?.CORSKIN_SIMD_BUILD;
  return asked?.toLowerCase() !== 'standard' && WebAssembly.validate(RELAXED_SIMD_PROBE) ? 'relaxed' : 'standard';
}

/** The kernel module: the relaxed build where it runs and compiles here, else the standard one. */
async function compileKernels(binaries: Record<SimdKernelBuild, string>): Promise<WebAssembly.Module> {
  if (simdKernelBuild() === 'relaxed')
    try {
      return await WebAssembly.compile(decodeBase64(binaries.relaxed) as Uint8Array<ArrayBuffer>);
    } catch {
      // validated but not compiled (a runtime's limit): the standard build
    }
  return WebAssembly.compile(decodeBase64(binaries.standard) as Uint8Array<ArrayBuffer>);
}

/**
 * Instantiates the kernels ({@link simdKernelBuild}'s build) over a new memory of at least
 * `bytes` bytes — or, given `sharedBinary` (a kernel module importing a shared memory, both
 * builds, base64: `kernels-shared-binary.ts`, which Node's `parallel-simd.ts` passes), that module
 * over a new shared memory (a SharedArrayBuffer: worker threads instantiate the same module over
 * it; browsers give one only to cross-origin isolated pages).
 * @returns the memory, the compiled module and its instance's exports (functions taking byte offsets in it)
 * @throws CorskinError when the runtime has no WebAssembly SIMD (or, for `sharedBinary`, no shared memory)
 */
export async function instantiateKernels(
  bytes: number,
  sharedBinary?: Record<SimdKernelBuild, string>,
): Promise<{ memory: WebAssembly.Memory; module: WebAssembly.Module; exports: KernelExports }> {
  try {
    const initial = Math.ceil(bytes / 65536);
    const memory = new WebAssembly.Memory(sharedBinary ? { initial, maximum: initial, shared: true } : { initial });
    const module = await compileKernels(sharedBinary ?? { standard: KERNELS_WASM_BASE64, relaxed: KERNELS_RELAXED_WASM_BASE64 }); // prettier-ignore
    const instance = await WebAssembly.instantiate(module, { env: { memory } });
    return { memory, module, exports: instance.exports as KernelExports };
  } catch (e) {
    throw new CorskinError(
      `WebAssembly SIMD${sharedBinary ? ' on a shared memory' : ''} is not available here: ${(e as Error).message}`,
    );
  }
}

/**
 * The kernels' compiled module for {@link instantiateKernelsSync}: compiled on first use (a
 * cache of a constant: every caller gets the same module), `null` once compiling failed.
 */
let syncModule: WebAssembly.Module | null | undefined;

/**
 * {@link instantiateKernels} for synchronous callers (the precomputations: Direct Delta Mush's
 * smoothing solves, in f64, the same code in both builds): the standard build's module compiled
 * once per thread, then instantiated over a new memory of at least `bytes` bytes.
 * @returns undefined where the runtime cannot (no WebAssembly SIMD, a browser's main thread
 *   refusing to compile synchronously, no memory of that size): the caller then runs its
 *   JavaScript path
 */
export function instantiateKernelsSync(
  bytes: number,
): { memory: WebAssembly.Memory; exports: KernelExports } | undefined {
  if (syncModule === undefined) {
    try {
      syncModule = new WebAssembly.Module(decodeBase64(KERNELS_WASM_BASE64) as Uint8Array<ArrayBuffer>);
    } catch {
      syncModule = null;
    }
  }
  if (!syncModule) return undefined;
  let memory: WebAssembly.Memory;
  try {
    memory = new WebAssembly.Memory({ initial: Math.ceil(bytes / 65536) });
  } catch {
    return undefined; // more than the runtime gives a memory
  }
  const instance = new WebAssembly.Instance(syncModule, { env: { memory } });
  return { memory, exports: instance.exports as KernelExports };
}

/** Byte offsets of a mesh's vertex arrays in a kernel memory (0: the mesh lacks the array). */
export interface VertexArrays {
  /** Bind-space positions, normals (3 f32 a vertex at 12·i) and tangents (4 f32 at 16·i). */
  P: number;
  N: number;
  T: number;
  /** The posed positions, normals and tangents the kernels write, laid out alike. */
  OP: number;
  ON: number;
  OT: number;
}

/**
 * Takes room in `layout` for `mesh`'s positions, normals and tangents and their posed copies,
 * padded for the kernels' 4-lane loads and stores.
 */
export function takeVertexArrays(layout: ReturnType<typeof kernelLayout>, mesh: SkinnedMesh): VertexArrays {
  const n = mesh.positions.length / 3;
  const { take } = layout;
  return {
    P: take(12 * n + 4),
    N: mesh.normals ? take(12 * n + 4) : 0,
    T: mesh.tangents ? take(16 * n) : 0,
    OP: take(12 * n + 16),
    ON: mesh.normals ? take(12 * n + 16) : 0,
    OT: mesh.tangents ? take(16 * n) : 0,
  };
}

/**
 * Copies `mesh`'s positions, normals and tangents into `memory` at `at` and returns views of the
 * posed arrays there (a SIMD deformer's `output`: no copy, valid while the memory lives).
 */
export function vertexArrays(memory: WebAssembly.Memory, at: VertexArrays, mesh: SkinnedMesh): DeformTarget {
  const f32 = new Float32Array(memory.buffer);
  const n = mesh.positions.length / 3;
  f32.set(mesh.positions, at.P >> 2);
  if (mesh.normals) f32.set(mesh.normals, at.N >> 2);
  if (mesh.tangents) f32.set(mesh.tangents, at.T >> 2);
  return {
    positions: f32.subarray(at.OP >> 2, (at.OP >> 2) + 3 * n),
    normals: at.ON ? f32.subarray(at.ON >> 2, (at.ON >> 2) + 3 * n) : undefined,
    tangents: at.OT ? f32.subarray(at.OT >> 2, (at.OT >> 2) + 4 * n) : undefined,
  };
}

/** Copies a SIMD deformer's `output` into the caller's `out`, when given (the deformer contract's copy). */
export function copyPosed(output: DeformTarget, out?: DeformTarget): void {
  if (!out) return;
  out.positions.set(output.positions);
  if (output.normals && out.normals) out.normals.set(output.normals);
  if (output.tangents && out.tangents) out.tangents.set(output.tangents);
}

/**
 * The skinning matrices of a SIMD deformer's frame, checked — as 64-bit floats, at least `J` of
 * them, and `out` (or the kernels' own output) of the mesh's size — and, with `memory`, the
 * first J copied there at byte offset `M` (16 f32 each, column-major).
 * @param owner what uses J joints, for the message (`a mesh`, `a model`, `a stretch rig`)
 * @throws CorskinError when `out` is too small for the mesh or fewer than J matrices are given
 */
export function frameSkinning(
  mesh: SkinnedMesh,
  matrices: Float64Array,
  out: DeformTarget,
  J: number,
  owner: string,
  memory?: Float32Array,
  M = 0,
): Float64Array {
  const skinning = skinningArray(matrices);
  checkDeformArgs(mesh, skinning, out);
  if (skinning.length < 16 * J)
    throw new CorskinError(`${skinning.length / 16} skinning matrices for ${owner} that uses ${J} joints`);
  memory?.set(skinning.subarray(0, 16 * J), M >> 2);
  return skinning;
}

/**
 * Each joint's uniform scale `det(L_j)^(1/3)` (L_j the linear part of its skinning matrix), the
 * σ of Direct Delta Mush and Delta Mush, into `memory` at byte offset `SC` (one f32 per joint):
 * signed (a mirrored joint negative) or its absolute value.
 */
export function storeJointScales(
  memory: Float32Array,
  SC: number,
  skinning: Float64Array,
  J: number,
  signed: boolean,
): void {
  for (let j = 0; j < J; j++) {
    const det = mat4LinearDeterminant(skinning, 16 * j);
    memory[(SC >> 2) + j] = Math.cbrt(signed ? det : Math.abs(det));
  }
}

/**
 * A {@link SimdDeformer} over a kernel memory laid out with {@link takeVertexArrays}: its
 * `output` views the posed arrays there, and each `deform` checks the frame's matrices
 * ({@link frameSkinning}; with `M` > 0 the first J are copied to that byte offset), runs
 * `frame` (the kernels, which write the posed arrays) and copies the result into `out` when given.
 * @param owner what uses J joints, for the message (`a mesh`, `a model`, `a stretch rig`)
 */
export function simdDeformer(
  method: SimdSkinningMethod,
  mesh: SkinnedMesh,
  memory: WebAssembly.Memory,
  at: VertexArrays,
  joints: { J: number; owner: string; M: number },
  frame: (skinning: Float64Array, output: DeformTarget) => void,
): SimdDeformer {
  const output = vertexArrays(memory, at, mesh);
  const f32 = new Float32Array(memory.buffer);
  const { J, owner, M } = joints;
  return {
    method,
    output,
    deform(matrices: Float64Array, out?: DeformTarget): void {
      frame(frameSkinning(mesh, matrices, out ?? output, J, owner, M ? f32 : undefined, M), output);
      copyPosed(output, out);
    },
  };
}
