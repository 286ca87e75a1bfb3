/**
 * A skinning method as one module: its descriptor, its parameters, and how it prepares its
 * deformer for a mesh (computing whatever it needs). Surfaces (`corskin deform`, `bake`,
 * `evaluate`, `render`, the bench, the viewer) build a method's deformer through
 * {@link prepareMethod} and read its parameters from its entry, so a method that is a module
 * needs no code of its own in any of them.
 *
 * @module
 */
import type { Document } from '@gltf-transform/core';
import type { SkinnedMesh } from '../core/mesh.js';
import type { Skeleton } from '../core/skeleton.js';
import type { Deformer } from '../deformers/contract.js';
import type { SkinnedModel } from '../io/gltf.js';
import type { MethodParameter } from './parameter.js';
import type { SimdDeformer } from '../wasm/simd-skinning.js';

/** What a method module's `prepare` is given. */
export interface PrepareInput {
  /** The mesh, bind space. */
  mesh: SkinnedMesh;
  /** Its skeleton. */
  skeleton: Skeleton;
  /**
   * Parameter values by {@link MethodParameter.key}; missing ones take the method's defaults.
   * Unknown keys are ignored (a surface passes every option it has).
   */
  parameters?: Record<string, unknown>;
  /** Progress of long preparations, `done` of `total`. */
  onProgress?: (done: number, total: number) => void;
}

/** A skinning method as one module (see the module comment). */
export interface MethodModule {
  /** Its id in {@link SKINNING_METHODS}. */
  id: string;
  /** Its parameters, as surfaces offer them. */
  parameters: readonly MethodParameter[];
  /**
   * Checks parameter values (by {@link MethodParameter.key}; missing ones take the defaults)
   * before any work, as `prepare` would.
   * @throws CorskinError naming the parameter
   */
  check(parameters: Record<string, unknown>): void;
  /**
   * What `prepare` would compute because `mesh` lacks it (`Direct Delta Mush data`), for a
   * surface's note before a long preparation; undefined when nothing is missing (or the method
   * keeps nothing: it prepares from the mesh alone).
   */
  missing?(mesh: SkinnedMesh): string | undefined;
  /**
   * Reads what the method's glTF storage holds for `model` (beyond what reading the skin reads)
   * into its mesh's `methodData`, so `prepare` uses it: the template rig `corskin templates build`
   * stored. Surfaces that hold the document call it before `prepare`.
   * @returns warnings about the stored data (skin outside a stored cage), to show the user
   * @throws CorskinError naming `file` for malformed stored data
   */
  read?(document: Document, model: SkinnedModel, file?: string): string[];
  /**
   * One line on what the method prepared for `mesh` (`template cages of 412 vertices around 4
   * limbs`), for a surface's note after a preparation and `corskin evaluate`'s summary.
   */
  summary?(mesh: SkinnedMesh): string | undefined;
  /**
   * Prepares the method for a mesh and returns its deformer (the shared {@link Deformer}
   * signature). What it computes because the mesh lacks it ({@link missing}) it keeps in the
   * mesh's `methodData`, so a later `prepare` (or the method's plain deformer) reuses it. @throws CorskinError naming the parameter when a parameter is invalid
   */
  prepare(input: PrepareInput): Deformer;
  /**
   * Its WebAssembly SIMD kernel on `mesh` as `prepare` left it (its data in `methodData`), for
   * methods marked `simd` in the registry; `createSimdDeformer` calls it, with the parameters
   * `prepare` takes (for a method that prepares per mesh, as Delta Mush).
   * @throws CorskinError when the mesh lacks the method's data, or the runtime has no WebAssembly SIMD
   */
  simd?(mesh: SkinnedMesh, parameters?: Record<string, unknown>): Promise<SimdDeformer>;
}

/** What {@link MethodPrecompute.precompute} is given. */
export interface PrecomputeInput {
  /** Parameter values by {@link MethodParameter.key}, as for {@link MethodModule.prepare}. */
  parameters: Record<string, unknown>;
  /** The document's path, for error messages. */
  file?: string;
  /** Worker threads for the computation (default: the method's choice). */
  threads?: number;
  /** Progress, `done` of `total`. */
  onProgress?: (done: number, total: number) => void;
  /** One line per skin on what was computed (`Armature: 1728 vertices, …`), and its warnings. */
  onSkin?: (line: string, warnings: readonly string[]) => void;
}

/**
 * What `corskin precompute --method <id>` runs for a method module that stores data in the file
 * (registry `precomputes`): the default export of the method folder's `node.ts`, loaded only by
 * that command (Node only: it may start worker threads).
 */
export interface MethodPrecompute {
  /** The work, as the progress bar names it (`Direct Delta Mush`). */
  what: string;
  /**
   * Computes the method's data for every skin of `document` and stores it there.
   * @returns the parameters used, for the closing line (`Direct Delta Mush full: p = 20, …`)
   * @throws CorskinError naming `input.file` for bad input or parameters (the document is then
   *   not to be written)
   */
  precompute(document: Document, input: PrecomputeInput): Promise<string>;
}
