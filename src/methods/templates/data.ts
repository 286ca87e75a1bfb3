/**
 * Where a mesh keeps its template rig (Ju et al. 2008): under the method's id in
 * {@link SkinnedMesh.methodData}, read from the file (`storage.ts`) or built (`rig.ts`).
 *
 * @module
 */
import type { SkinnedMesh } from '../../core/mesh.js';
import type { TemplateRig } from './rig.js';

/** The key of the template rig in {@link SkinnedMesh.methodData}: the method's id. */
const KEY = 'templates';

/** The template rig of `mesh` (read from its file or built), or undefined. */
export function meshTemplateRig(mesh: SkinnedMesh): TemplateRig | undefined {
  return mesh.methodData?.[KEY] as TemplateRig | undefined;
}

/** Gives `mesh` a template rig (bound to its vertices; not checked here). */
export function setMeshTemplateRig(mesh: SkinnedMesh, rig: TemplateRig): void {
  mesh.methodData = { ...mesh.methodData, [KEY]: rig };
}
