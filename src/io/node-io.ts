/**
 * Reading and writing glTF files in Node (the browser-safe document functions are in `gltf.ts`).
 *
 * @module
 */
import { basename, dirname, join } from 'node:path';
import { NodeIO, type Document } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { CorskinError } from '../core/errors.js';
import { readBytes, writeFileAtomic } from './files.js';
import { quietLogger } from './gltf.js';

/** A glTF-Transform I/O object with every extension glTF-Transform knows registered. */
export function createIO(): NodeIO {
  return new NodeIO().registerExtensions(ALL_EXTENSIONS).setLogger(quietLogger);
}

/**
 * Reads a `.glb` or `.gltf` file.
 * @throws CorskinError naming the file when it cannot be read, is not glTF, or is truncated or
 *   corrupt
 */
export async function readDocument(path: string): Promise<Document> {
  const bytes: Uint8Array = await readBytes(path);
  const io = createIO();
  const isGlb = bytes.length >= 4 && bytes[0] === 0x67 && bytes[1] === 0x6c && bytes[2] === 0x54 && bytes[3] === 0x46;
  try {
    if (isGlb) {
      if (bytes.length < 20) throw new CorskinError('truncated GLB (shorter than its header)', path);
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const version = view.getUint32(4, true);
      const length = view.getUint32(8, true);
      if (version !== 2) throw new CorskinError(`unsupported GLB version ${version} (only glTF 2.0)`, path);
      if (length > bytes.length) {
        throw new CorskinError(`truncated GLB: header declares ${length} bytes, file has ${bytes.length}`, path);
      }
      return (await io.readBinary(bytes)).setLogger(quietLogger);
    }
    const text = new TextDecoder().decode(bytes);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new CorskinError('not a glTF file (neither GLB nor JSON)', path);
    }
    if (!json || typeof json !== 'object' || !('asset' in json)) {
      throw new CorskinError('not a glTF file (JSON without an "asset" property)', path);
    }
    return (await io.read(path)).setLogger(quietLogger);
  } catch (e) {
    if (e instanceof CorskinError) throw e;
    throw new CorskinError(`corrupt glTF: ${(e as Error).message}`, path, { cause: e });
  }
}

/**
 * Writes `document` to `path` (`.glb` binary, otherwise `.gltf` JSON with its resources beside
 * it), atomically: a temporary file renamed into place, nothing left behind on failure.
 */
export async function writeDocument(document: Document, path: string): Promise<void> {
  const io = createIO();
  if (path.toLowerCase().endsWith('.glb')) {
    await writeFileAtomic(path, await io.writeBinary(document));
    return;
  }
  const { json, resources } = await io.writeJSON(document, { basename: basename(path).replace(/\.gltf$/i, '') });
  for (const [uri, data] of Object.entries(resources)) await writeFileAtomic(join(dirname(path), uri), data);
  await writeFileAtomic(path, new TextEncoder().encode(JSON.stringify(json, null, 2)));
}
