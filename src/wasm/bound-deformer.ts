/**
 * A deformer of the shared signature that runs on the WebAssembly SIMD kernels for the meshes it
 * was prepared for, and in JavaScript for any other: what the commands that pose one mesh at
 * every sample of its clips (the bake's sampling and measurement) use to get the kernels' speed
 * while morphed copies of the mesh, which no kernel was prepared for, still deform.
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';
import { boundingBoxDiagonal, type SkinnedMesh } from '../core/mesh.js';
import type { Deformer } from '../deformers/contract.js';
import { createSimdDeformer, type SimdDeformer, type SimdSkinningMethod } from './simd-skinning.js';
import { copyPosed } from './instance.js';

/**
 * How far (÷ the bounding-box diagonal of the posed positions) the kernels may be from the
 * JavaScript deformer at their first frame for a mesh before that mesh is left to JavaScript: the
 * agreement the SIMD tests hold every method to on the shared characters.
 */
export const SIMD_AGREEMENT = 1e-5;

/**
 * How far the kernels' posed normals and tangents' directions (unit vectors) may be from the
 * JavaScript deformer's at the first frame, where both are asked: about 0.6°, a kernel's error
 * rather than 32-bit rounding (the kernels' normals are within 5e-5 of JavaScript's, 0.0005°, on
 * the shared characters; Direct Delta Mush's 32-bit polar factor is tested to 1e-3).
 */
export const SIMD_NORMAL_AGREEMENT = 1e-2;

/** Prepares a method's SIMD kernels for a mesh, as {@link createSimdDeformer} (throws CorskinError where it cannot). */
export type SimdDeformerFactory = (
  mesh: SkinnedMesh,
  method: SimdSkinningMethod,
  parameters?: Record<string, unknown>,
) => Promise<SimdDeformer>;

/**
 * Prepares `method`'s SIMD kernels ({@link createSimdDeformer}) for each of `meshes`, and returns
 * a {@link Deformer} that runs them when it is called with one of those mesh objects (the same
 * object: the kernels hold a copy of its bind-space arrays, which must not change after), and
 * `fallback` — the same method in JavaScript, as configured — for any other mesh.
 *
 * The first frame of each mesh runs both and keeps the kernels only where their posed positions
 * are within {@link SIMD_AGREEMENT} of the diagonal of `fallback`'s (32-bit floats against 64-bit;
 * a method whose kernels were prepared with other parameters than `fallback` fails it), and the
 * normals and tangents asked within {@link SIMD_NORMAL_AGREEMENT} (the first frame of each set of
 * kernels: with `normalKernels`, the first call that asks for normals checks those). A mesh
 * whose kernels cannot be prepared (the method has no kernel, or lacks its data on the mesh, or
 * the runtime has no WebAssembly SIMD) is deformed by `fallback`.
 * @param options `parameters`, the method's parameters, as `createSimdDeformer` takes them (those
 *   `fallback` was prepared with); `create`, what prepares the kernels for a mesh (default
 *   `createSimdDeformer`; `parallelSimdFactory` shares large meshes' frames between threads);
 *   `positionsOnly`, kernels that pose the positions alone, for
 *   a caller that never asks for normals or tangents (the bake's LBS: about 3× faster on Ybot) —
 *   a call whose target has normals or tangents then runs `fallback`, or with `normalKernels` a
 *   second set of kernels prepared for the whole mesh (for a caller that asks for normals at some
 *   frames: the helper bake's method, whose fit matches the method's normals at every sample)
 * @returns the deformer, and how many of `meshes` run on the kernels so far (after their first frame: those that agreed)
 */
export async function simdBoundDeformer(
  method: SimdSkinningMethod,
  meshes: readonly SkinnedMesh[],
  fallback: Deformer,
  options: {
    parameters?: Record<string, unknown>;
    create?: SimdDeformerFactory;
    positionsOnly?: boolean;
    normalKernels?: boolean;
  } = {},
): Promise<{
  /** Deforms a mesh: on its kernels once their first frame agreed with `fallback`, else by `fallback`. */
  deform: Deformer;
  /** How many of `meshes` run on the kernels so far. */
  bound: () => number;
}> {
  const { parameters, create = createSimdDeformer, positionsOnly = false, normalKernels = false } = options;
  type Bound = { simd: SimdDeformer; checked: boolean };
  /** The kernels of each mesh: positions alone where asked, and those for the whole mesh. */
  const kernels = new Map<SkinnedMesh, Bound>();
  const whole = new Map<SkinnedMesh, Bound>();
  const prepare = async (into: Map<SkinnedMesh, Bound>, mesh: SkinnedMesh, prepared: SkinnedMesh) => {
    try {
      into.set(mesh, { simd: await create(prepared, method, parameters), checked: false });
    } catch (e) {
      if (!(e instanceof CorskinError)) throw e;
    }
  };
  for (const mesh of meshes) {
    if (kernels.has(mesh) || whole.has(mesh)) continue;
    if (!positionsOnly) await prepare(whole, mesh, mesh);
    else {
      await prepare(kernels, mesh, { ...mesh, normals: undefined, tangents: undefined });
      if (normalKernels && (mesh.normals || mesh.tangents)) await prepare(whole, mesh, mesh);
    }
  }
  const deform: Deformer = (mesh, skinning, out) => {
    const set = positionsOnly && !out.normals && !out.tangents ? kernels : whole;
    const k = set.get(mesh);
    if (!k) return fallback(mesh, skinning, out);
    if (k.checked) return k.simd.deform(skinning, out);
    // The first frame: both, compared; where they agree, the kernels' result, as every later
    // frame's (a static clip's first sample would otherwise differ from the rest by float32
    // rounding, and a helper bake fitted an ill-determined helper differently there).
    fallback(mesh, skinning, out);
    k.simd.deform(skinning);
    const apart =
      maxDistance(k.simd.output.positions, out.positions, 3) > SIMD_AGREEMENT * boundingBoxDiagonal(out.positions) ||
      maxDistance(k.simd.output.normals, out.normals, 3) > SIMD_NORMAL_AGREEMENT ||
      maxDistance(k.simd.output.tangents, out.tangents, 4) > SIMD_NORMAL_AGREEMENT;
    if (apart) set.delete(mesh);
    else {
      k.checked = true;
      copyPosed(k.simd.output, out);
    }
  };
  return { deform, bound: () => new Set([...kernels.keys(), ...whole.keys()]).size };
}

/**
 * The largest distance between the first three components of each `stride`-float element of the
 * kernels' array `a` and the same elements of `b` (Infinity where one is not finite; 0 where
 * either is absent: normals not asked, or a mesh without them).
 */
function maxDistance(a: Float32Array | undefined, b: Float32Array | undefined, stride: number): number {
  if (!a || !b) return 0;
  let max = 0;
  for (let i = 0; i < a.length; i += stride) {
    const d = (a[i] - b[i]) ** 2 + (a[i + 1] - b[i + 1]) ** 2 + (a[i + 2] - b[i + 2]) ** 2;
    if (!(d <= max)) max = Number.isNaN(d) ? Infinity : d;
  }
  return Math.sqrt(max);
}
