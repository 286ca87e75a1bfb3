/**
 * The cage's vertex roles share one hidden class and hold unboxed doubles however the rig was
 * made — fitted, stored in a glTF file and read back, or handed back by a worker (a structured
 * clone) — since posing the cage reads every role's fields every frame (`poseLimb`): roles made by
 * `{ ...role, local }` had nearly one hidden class each (639 for CesiumMan's 656), and a clone's
 * numbers are boxed. Checked with V8's own predicates (`%HaveSameMap`, `%HasDoubleElements`).
 */
import { describe, expect, it } from 'vitest';
import { setFlagsFromString } from 'node:v8';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { buildTemplateRig, type TemplateRig, type VertexRole } from '../src/methods/templates/rig.js';
import { readTemplateRig, writeTemplateRig } from '../src/methods/templates/storage.js';
import { withRolesRemade } from '../src/methods/templates/fit.js';
import { buildTemplateRigOnWorker } from '../src/methods/templates/web-worker.js';
import { TEMPLATE_WORKER_SOURCE } from '../src/methods/templates/web-worker-source.js';
import { CESIUM_MAN } from './helpers/data.js';

setFlagsFromString('--allow-natives-syntax');
const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
const unboxed = new Function('a', 'return %HasDoubleElements(a)') as (a: unknown[]) => boolean;

/** How many distinct hidden classes the roles have, and how many roles' `local` holds boxed numbers. */
function layout(rig: TemplateRig): { maps: number; boxed: number; roles: number } {
  const roles: VertexRole[] = rig.limbs.flatMap((l) => l.roles);
  const kinds: VertexRole[] = [];
  for (const r of roles) if (!kinds.some((k) => sameMap(k, r))) kinds.push(r);
  return { maps: kinds.length, boxed: roles.filter((r) => !unboxed(r.local)).length, roles: roles.length };
}

describe('template cage roles (CesiumMan)', () => {
  it('one hidden class and unboxed rest offsets when fitted, read from a file, or remade after a structured clone', async () => {
    const document = await readDocument(CESIUM_MAN);
    const [model] = extractSkinnedModels(document, CESIUM_MAN);
    const built = buildTemplateRig(model.mesh, model.skeleton);
    expect(layout(built)).toEqual({ maps: 1, boxed: 0, roles: 656 });

    writeTemplateRig(document, model, built);
    const read = readTemplateRig(document, model, CESIUM_MAN)!;
    expect(layout(read)).toEqual({ maps: 1, boxed: 0, roles: 656 });

    const cloned = structuredClone(built);
    expect(layout(cloned).boxed).toBeGreaterThan(0); // what a worker's result holds
    expect(layout(withRolesRemade(cloned))).toEqual({ maps: 1, boxed: 0, roles: 656 });
    expect(withRolesRemade(cloned).limbs.map((l) => l.roles)).toEqual(built.limbs.map((l) => l.roles));
  });

  it('buildTemplateRigOnWorker: the bundled worker’s rig (structured-cloned back) and the fallback’s, both one hidden class and unboxed', async () => {
    const [model] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
    const built = buildTemplateRig(model.mesh, model.skeleton);
    /** A Worker running the bundled script in this realm, its messages structured-cloned. */
    class StandInWorker {
      onmessage: ((e: { data: unknown }) => void) | null = null;
      onerror: ((e: unknown) => void) | null = null;
      private scope: {
        onmessage?: (e: { data: unknown }) => void;
        postMessage: (m: unknown, t?: Transferable[]) => void;
      };
      constructor() {
        this.scope = { postMessage: (m, t = []) => this.onmessage?.({ data: structuredClone(m, { transfer: t }) }) };
        new Function('self', TEMPLATE_WORKER_SOURCE)(this.scope);
      }
      postMessage(m: unknown): void {
        const data = structuredClone(m);
        setTimeout(() => this.scope.onmessage?.({ data }));
      }
      terminate(): void {}
    }
    const global = globalThis as { Worker?: unknown };
    global.Worker = StandInWorker;
    try {
      const fromWorker = await buildTemplateRigOnWorker(model.mesh, model.skeleton);
      expect(layout(fromWorker)).toEqual({ maps: 1, boxed: 0, roles: 656 });
      expect(fromWorker.limbs.map((l) => l.roles)).toEqual(built.limbs.map((l) => l.roles));
    } finally {
      delete global.Worker;
    }
    expect(layout(await buildTemplateRigOnWorker(model.mesh, model.skeleton))).toEqual({
      maps: 1,
      boxed: 0,
      roles: 656,
    });
  });
});
