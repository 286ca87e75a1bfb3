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
import { quietLogger, renormalizeWeightAccessors } from './gltf.js';

/** Compression extensions whose codecs are loaded on demand. */
const CODECS = ['KHR_draco_mesh_compression', 'EXT_meshopt_compression'] as const;

/**
 * A glTF-Transform I/O object with every extension glTF-Transform knows registered, and the
 * Draco (`draco3dgltf`) and meshopt (`meshoptimizer`) decoders and encoders for the
 * compression extensions named in `uses` (loaded only then: their WebAssembly takes time).
 */
export async function createIO(uses: readonly string[] = []): Promise<NodeIO> {
  const io = new NodeIO().registerExtensions(ALL_EXTENSIONS).setLogger(quietLogger);
  if (uses.includes('KHR_draco_mesh_compression')) {
    const draco3d = (await import('draco3dgltf')).default;
    io.registerDependencies({
      'draco3d.decoder': await draco3d.createDecoderModule(),
      'draco3d.encoder': await draco3d.createEncoderModule(),
    });
  }
  if (uses.includes('EXT_meshopt_compression')) {
    const { MeshoptDecoder, MeshoptEncoder } = await import('meshoptimizer');
    await Promise.all([MeshoptDecoder.ready, MeshoptEncoder.ready]);
    io.registerDependencies({ 'meshopt.decoder': MeshoptDecoder, 'meshopt.encoder': MeshoptEncoder });
  }
  return io;
}

/** The compression extensions a glTF file's JSON mentions (a cheap scan before parsing). */
function compressionOf(bytes: Uint8Array, isGlb: boolean): string[] {
  let json = bytes;
  if (isGlb && bytes.length >= 20) {
    const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(12, true);
    json = bytes.subarray(20, Math.min(bytes.length, 20 + length));
  }
  const text = new TextDecoder().decode(json.subarray(0, 1 << 24));
  return CODECS.filter((name) => text.includes(name));
}

/**
 * Reads a `.glb` or `.gltf` file.
 * @throws CorskinError naming the file when it cannot be read, is not glTF, or is truncated or
 *   corrupt
 */
export async function readDocument(path: string): Promise<Document> {
  const bytes: Uint8Array = await readBytes(path);
  const isGlb = bytes.length >= 4 && bytes[0] === 0x67 && bytes[1] === 0x6c && bytes[2] === 0x54 && bytes[3] === 0x46;
  const io = await createIO(compressionOf(bytes, isGlb));
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
 * it), atomically: a temporary file renamed into place, nothing left behind on failure. A
 * document read from a Draco- or meshopt-compressed file is written compressed the same way
 * (glTF-Transform's default encoder settings: Draco quantises positions to 14 bits, other
 * attributes — centers of rotation included — to 12 to 16; meshopt is lossless here), unless
 * `compress` is false (then Draco-quantised float weights are renormalised to sum 1, as the
 * validator checks once they are visible).
 */
export async function writeDocument(
  document: Document,
  path: string,
  options: { compress?: boolean } = {},
): Promise<void> {
  if (options.compress === false) {
    for (const ext of document.getRoot().listExtensionsUsed()) {
      if (!(CODECS as readonly string[]).includes(ext.extensionName)) continue;
      // Draco's quantised weights, now visible to validators: sums exactly 1 again.
      if (ext.extensionName === 'KHR_draco_mesh_compression') renormalizeWeightAccessors(document);
      ext.dispose();
    }
  }
  const io = await createIO(
    document
      .getRoot()
      .listExtensionsUsed()
      .map((e) => e.extensionName),
  );
  if (path.toLowerCase().endsWith('.glb')) {
    await writeFileAtomic(path, await io.writeBinary(document));
    return;
  }
  const { json, resources } = await io.writeJSON(document, { basename: basename(path).replace(/\.gltf$/i, '') });
  for (const [uri, data] of Object.entries(resources)) await writeFileAtomic(join(dirname(path), uri), data);
  await writeFileAtomic(path, new TextEncoder().encode(JSON.stringify(json, null, 2)));
}
