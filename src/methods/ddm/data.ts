/**
 * Where a mesh keeps its Direct Delta Mush model (Le & Lewis 2019): under the method's id in
 * {@link SkinnedMesh.methodData}, read from the file (`storage.ts`) or computed (`precompute.ts`).
 *
 * @module
 */
import type { SkinnedMesh } from '../../core/mesh.js';
import type { DdmModel } from './precompute.js';

/** The key of Direct Delta Mush's model in {@link SkinnedMesh.methodData}: the method's id. */
const KEY = 'ddm';

/** The Direct Delta Mush model of `mesh` (read from its file or computed), or undefined. */
export function ddmModelOf(mesh: SkinnedMesh): DdmModel | undefined {
  return mesh.methodData?.[KEY] as DdmModel | undefined;
}

/** Gives `mesh` a Direct Delta Mush model (its vertex count must match; not checked here). */
export function setDdmModel(mesh: SkinnedMesh, model: DdmModel): void {
  mesh.methodData = { ...mesh.methodData, [KEY]: model };
}

/** A shallow copy of `mesh` with Direct Delta Mush model `model` (the mesh itself unchanged). */
export function withDdmModel(mesh: SkinnedMesh, model: DdmModel): SkinnedMesh {
  return { ...mesh, methodData: { ...mesh.methodData, [KEY]: model } };
}
