/**
 * Skinning-template rigs built on a Web Worker, for browsers (the worker script is bundled into
 * the package): fitting the cages and binding the skin takes seconds on a real character.
 *
 * @module
 */
import { runWorkerScript } from '../../core/web-worker.js';
import type { SkinnedMesh } from '../../core/mesh.js';
import type { Skeleton } from '../../core/skeleton.js';
import { withRolesRemade } from './fit.js';
import { DEFAULT_TEMPLATE_LIBRARY, type TemplateLibrary } from './library.js';
import { buildTemplateRig, type TemplateBuildOptions, type TemplateRig } from './rig.js';
import { TEMPLATE_WORKER_SOURCE } from './web-worker-source.js';

/** The message the template worker receives. */
export interface TemplateWorkerRequest {
  /** The skin, bind space. */
  mesh: SkinnedMesh;
  /** Its skeleton. */
  skeleton: Skeleton;
  /** The templates to fit. */
  library: TemplateLibrary;
}

/**
 * {@link buildTemplateRig} (Ju et al., "Reusable Skinning Templates Using Cage-based
 * Deformations", SIGGRAPH Asia 2008) on a Web Worker started from a bundled script, so the page
 * stays responsive; in this thread where workers are unavailable (one console warning where one
 * cannot start).
 * @param mesh the skin, bind space (its arrays are copied to the worker)
 * @param skeleton its skeleton (only parents, joint names and inverse bind matrices are used)
 * @throws Error (rejection) with the build's message when a cage cannot enclose its skin; the
 *   signal's reason when aborted
 */
export function buildTemplateRigOnWorker(
  mesh: SkinnedMesh,
  skeleton: Skeleton,
  library: TemplateLibrary = DEFAULT_TEMPLATE_LIBRARY,
  options: TemplateBuildOptions = {},
): Promise<TemplateRig> {
  const request: TemplateWorkerRequest = { mesh, skeleton, library };
  return runWorkerScript(TEMPLATE_WORKER_SOURCE, request, {
    label: 'skinning templates',
    fallback: () => buildTemplateRig(mesh, skeleton, library, options),
    revive: withRolesRemade,
    onProgress: options.onProgress,
    signal: options.signal,
  });
}
