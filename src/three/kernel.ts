/**
 * What a skinning method brings to `corskin/three`: its **GPU kernel**. The shared path
 * (`index.ts`) switches a mesh's materials, fills the joint texture each frame and restores the
 * mesh; everything that is one method's lives with that method (`src/methods/<id>/three*.ts` for
 * Direct Delta Mush and skinning templates; LBS, DQS and CoR in this folder):
 *
 * - {@link GpuMethod.bind}: what a mesh needs beyond its joints (the method's data read from the
 *   geometry or computed, packed into textures and attributes, and updated per frame);
 * - {@link GlslKernel}: its GLSL for three's skinning chunks (WebGLRenderer, `chunks.ts`);
 * - a TSL kernel for node materials (WebGPURenderer, `nodes.ts`), kept in a file of its own so
 *   that WebGL users never load three's node system.
 *
 * Every kernel reads the same joint texture ({@link TEXELS_PER_JOINT} texels per joint, in the
 * mesh's bind space: the skinning matrix's three rows, then its rotation's unit quaternion) and
 * its own data textures, {@link TEXTURE_WIDTH} texels wide.
 *
 * @module
 */
import {
  DataTexture,
  FloatType,
  NearestFilter,
  RGBAFormat,
  type BufferAttribute,
  type Object3D,
  type SkinnedMesh,
} from 'three';
import type { SkinningOptions } from './index.js';

/**
 * The most influence sets a kernel reads: 16 influences per vertex (the chicken's `JOINTS_0..3`),
 * 8 vertex attributes — within WebGL 2's 16 beside position, normal, uv and a method's own.
 */
export const MAX_INFLUENCE_SETS = 4;

/** Texels per joint in the joint texture: matrix rows (3) and rotation quaternion (1). */
export const TEXELS_PER_JOINT = 4;

/**
 * Width of a method's data textures: 2048 (WebGL 2 guarantees it), so the shaders address
 * texel i at (i & 2047, i >> 11), no integer division.
 */
export const TEXTURE_WIDTH = 2048;

/**
 * The `userData` key of a mesh's corskin GPU state (`useSkinningMethod`); its `frame` is the
 * frame its textures were last filled for (-1: refill at the next render).
 */
export const STATE_KEY = 'corskin';

/** A float RGBA texture read with `texelFetch` (no filtering). */
export function dataTexture(data: Float32Array, width: number, height: number): DataTexture {
  const t = new DataTexture(data, width, height, RGBAFormat, FloatType);
  t.minFilter = t.magFilter = NearestFilter;
  t.needsUpdate = true;
  return t;
}

/** What a kernel's shaders are built for (one shader program per distinct value). */
export interface KernelOptions {
  /**
   * The influence sets (4 influences each) the kernel reads: 1, three's `skinIndex`/`skinWeight`;
   * 2 to `MAX_INFLUENCE_SETS` (4), corskin's `corskinIndex0…`/`corskinWeight0…` (a vertex's
   * 8, 12 or 16 largest influences).
   */
  influenceSets: number;
  /** The variant of the method's data, for a method whose data has variants ({@link GpuBinding.variant}). */
  variant?: string;
}

/** The program cache key of `method`'s shaders built for `o`: one shader program per distinct key. */
export const programKey = (method: string, o: KernelOptions): string =>
  `corskin-${method}${o.influenceSets > 1 ? `-${4 * o.influenceSets}` : ''}${o.variant ? `-${o.variant}` : ''}`;

/**
 * A method's GLSL ES 3.0 for three.js's skinning chunks (`chunks.ts` puts it in place): each
 * function returns the chunk's body for the options, inside `#ifdef USE_SKINNING`, and may use
 * the shared functions of `chunks.ts` (`corskinFetch`, `corskinTransform`, `corskinLinear`,
 * `corskinRotate`, `corskinCofactor`, `corskinNormalize`, `corskinTexel`) and its pieces.
 */
export interface GlslKernel {
  /** `skinning_pars_vertex`: the method's own uniforms, attributes and functions (after the shared ones). */
  pars?(o: KernelOptions): string;
  /** `skinbase_vertex`: the per-vertex blend, run once before the normal and the position. */
  base(o: KernelOptions): string;
  /** `skinnormal_vertex`: `objectNormal` (and `objectTangent` under `USE_TANGENT`). */
  normal(o: KernelOptions): string;
  /** `skinning_vertex`: `transformed`, after three's morph targets. */
  position(o: KernelOptions): string;
}

/** What a mesh switched to a GPU method holds beyond its joint texture (undone on restore). */
export interface GpuBinding {
  /** Geometry attributes the kernel reads, added on switch and removed on restore. */
  attributes?: Record<string, BufferAttribute>;
  /** Textures the kernel samples, by uniform name (disposed on restore). */
  textures?: Record<string, DataTexture>;
  /** Whether the kernel reads the skin's influences (up to the 16 largest where a vertex has more than 4): default true. */
  influences?: boolean;
  /** The variant of the method's data the shaders are built for ({@link KernelOptions.variant}). */
  variant?: string;
  /**
   * Per rendered frame, after the joint texture: `matrices` the bind-space skinning matrices
   * (16·J, column-major, `bindMatrixInverse · boneMatrix · bindMatrix`).
   */
  update?(matrices: Float64Array): void;
}

/**
 * A skinning method on the GPU of `corskin/three`: its id (one of the registry's methods with
 * `gpu: true`), its GLSL, and what a mesh needs before its shaders run.
 */
export interface GpuMethod {
  /** The method's id in the registry (`GPU_METHODS` in `corskin`). */
  id: string;
  /** Its GLSL for three's skinning chunks (WebGLRenderer). */
  glsl: GlslKernel;
  /**
   * three.js's own skinning computes the method (LBS): a mesh with at most four influences per
   * vertex keeps three's shader untouched; the kernel runs only where it has more.
   */
  threeNative?: boolean;
  /**
   * Before any mesh switches, every skinned mesh under `root` at once (data shared by several
   * meshes, such as one template rig for a skin split into meshes). What it returns for a mesh
   * is handed to {@link bind} for that mesh.
   * @throws Error naming the mesh when its data cannot be read or made
   */
  prepare?(root: Object3D, meshes: SkinnedMesh[], options: SkinningOptions): Promise<Map<SkinnedMesh, unknown>>;
  /**
   * What `mesh` needs for the kernel: its data read from the geometry, given by the user, or
   * computed (progress through `options.onProgress`).
   * @throws Error naming the mesh when its data is missing, incomplete or does not fit it
   */
  bind?(mesh: SkinnedMesh, options: SkinningOptions, prepared: unknown): Promise<GpuBinding>;
}
