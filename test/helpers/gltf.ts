/** Direct glTF-Transform access for tests (independent of corskin's reader) and validation. */
import { readFileSync } from 'node:fs';
import { NodeIO, type Document, type Transform } from '@gltf-transform/core';
import { validateBytes, type ValidatorReport } from 'gltf-validator';

/** Puts every scene's top nodes under a new root with the given transform (a variant of a character: mirrored, moved, scaled). */
export function underRoot(t: { translation?: [number, number, number]; scale?: [number, number, number] }): Transform {
  return (doc: Document) => {
    for (const scene of doc.getRoot().listScenes()) {
      const root = doc.createNode('variant-root');
      if (t.translation) root.setTranslation(t.translation);
      if (t.scale) root.setScale(t.scale);
      for (const child of scene.listChildren()) {
        scene.removeChild(child);
        root.addChild(child);
      }
      scene.addChild(root);
    }
  };
}

/** Writes `source` with {@link underRoot}`(t)` applied to `out` (read and written by glTF-Transform); returns `out`. */
export async function writeUnderRoot(source: string, t: Parameters<typeof underRoot>[0], out: string): Promise<string> {
  const io = new NodeIO();
  const doc = await io.read(source);
  await doc.transform(underRoot(t));
  await io.write(out, doc);
  return out;
}

export async function readRaw(path: string): Promise<Document> {
  return new NodeIO().read(path);
}

/** Attribute of the first primitive of the first mesh, as a flat float array. */
export function attribute(doc: Document, name: string, mesh = 0, prim = 0): Float32Array {
  const acc = doc.getRoot().listMeshes()[mesh].listPrimitives()[prim].getAttribute(name);
  if (!acc) throw new Error(`no ${name}`);
  const c = acc.getElementSize();
  const out = new Float32Array(acc.getCount() * c);
  const el: number[] = [];
  for (let i = 0; i < acc.getCount(); i++) {
    acc.getElement(i, el);
    for (let k = 0; k < c; k++) out[c * i + k] = el[k];
  }
  return out;
}

export type ValidationReport = ValidatorReport;

/** Runs the Khronos glTF validator on a .glb file. */
export async function validate(path: string): Promise<ValidationReport> {
  return validateBytes(new Uint8Array(readFileSync(path)));
}

/**
 * The validator codes (errors, warnings, infos, hints) that `output` has more of than `input`,
 * with their counts in `output`: what a command added to its input's issues.
 */
export async function grownIssues(input: string, output: string): Promise<[code: string, count: number][]> {
  const counts = async (file: string) => {
    const n = new Map<string, number>();
    for (const m of (await validate(file)).issues.messages) n.set(m.code, (n.get(m.code) ?? 0) + 1);
    return n;
  };
  const before = await counts(input);
  return [...(await counts(output))].filter(([code, n]) => n > (before.get(code) ?? 0));
}
