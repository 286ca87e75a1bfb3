/**
 * Reading and writing glTF files in Node (the browser-safe document functions are in `gltf.ts`).
 *
 * @module
 */
import { rm } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { NodeIO, type Document } from '@gltf-transform/core';
import { ALL_EXTENSIONS } from '@gltf-transform/extensions';
import { CorskinError } from '../core/errors.js';
import { checkNotOverwritingInput, readBytes, writeFileAtomic } from './files.js';
import { checkGltfJson, checkSparseIndices } from './check-json.js';
import { quietLogger, renormalizeWeightAccessors, vertexLayoutFor } from './gltf.js';
import { optionalDependency } from './optional.js';

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

/**
 * `document` as GLB bytes: its buffers merged into one (a valid .gltf may have several), vertex
 * attributes interleaved unless a primitive's would exceed glTF's 252-byte stride
 * ({@link vertexLayoutFor}: a template rig's cage binding), its compression extensions encoded.
 */
export async function glbBytes(document: Document): Promise<Uint8Array> {
  if (document.getRoot().listBuffers().length > 1) {
    const { unpartition } = await optionalDependency(
      import('@gltf-transform/functions'),
      '@gltf-transform/functions',
      'Writing a .glb from a document with several buffers',
    );
    await document.transform(unpartition());
  }
  const io = await createIO(
    document
      .getRoot()
      .listExtensionsUsed()
      .map((e) => e.extensionName),
  );
  return io.setVertexLayout(vertexLayoutFor(document)).writeBinary(document);
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

/** The JSON and the BIN chunk's length of a GLB whose header was checked. */
function glbChunks(view: DataView, length: number, path: string): { json: unknown; binLength?: number } {
  const jsonLength = view.getUint32(12, true);
  if (view.getUint32(16, true) !== 0x4e4f534a || 20 + jsonLength > length)
    throw new CorskinError("corrupt glTF: the GLB's first chunk is not a JSON chunk within the file", path);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(new Uint8Array(view.buffer, view.byteOffset + 20, jsonLength)));
  } catch {
    throw new CorskinError("corrupt glTF: the GLB's JSON chunk is not valid JSON", path);
  }
  const at = 20 + jsonLength + ((4 - (jsonLength % 4)) % 4);
  const binLength =
    at + 8 <= length && view.getUint32(at + 4, true) === 0x004e4942 ? view.getUint32(at, true) : undefined;
  return { json, binLength };
}

/** The bytes of a `.gltf`'s buffers (data URIs decoded, files read; undefined when missing). */
async function gltfBuffers(json: GltfResources & { buffers?: { uri?: unknown }[] }, path: string) {
  return Promise.all(
    (json.buffers ?? []).map(async (b) => {
      const uri = b?.uri;
      if (typeof uri !== 'string') return undefined;
      if (uri.startsWith('data:')) {
        const comma = uri.indexOf(',');
        return comma > 0 && uri.slice(0, comma).endsWith(';base64')
          ? Buffer.from(uri.slice(comma + 1), 'base64')
          : undefined;
      }
      return readBytes(join(dirname(path), decodeURIComponent(uri))).catch(() => undefined);
    }),
  );
}

/** Options of {@link readDocument}. */
export interface ReadOptions {
  /** Let a `.gltf` name buffers and images outside its own folder (`../x.bin`); default false. */
  allowOutsideResources?: boolean;
}

interface GltfResources {
  buffers?: { uri?: unknown }[];
  images?: { uri?: unknown }[];
}

/**
 * Refuses resource URIs that would read files the user did not hand over: absolute paths,
 * `file:` and other schemes, and (unless allowed) paths leaving the `.gltf`'s folder.
 */
function checkResourceUris(json: GltfResources, path: string, allowOutside: boolean): void {
  const kinds = [
    ['buffer', json.buffers],
    ['image', json.images],
  ] as const;
  for (const [kind, list] of kinds) {
    (Array.isArray(list) ? list : []).forEach((r, i) => {
      const uri = r?.uri;
      if (uri === undefined) return;
      if (typeof uri !== 'string') throw new CorskinError(`${kind} ${i} has a uri that is not a string`, path);
      if (uri.startsWith('data:')) return;
      if (/^[a-z][a-z0-9+.-]*:/i.test(uri) || isAbsolute(uri) || uri.startsWith('\\'))
        throw new CorskinError(`${kind} ${i} refers to "${uri}": only paths relative to the file are read`, path);
      let decoded: string;
      try {
        decoded = decodeURIComponent(uri);
      } catch {
        throw new CorskinError(`${kind} ${i} has a malformed uri "${uri}"`, path);
      }
      const rel = relative(dirname(resolve(path)), resolve(dirname(path), decoded));
      if (!allowOutside && (rel.startsWith('..') || isAbsolute(rel)))
        throw new CorskinError(`${kind} ${i} refers to "${uri}", outside the file's folder; refusing to read it`, path);
    });
  }
}

/**
 * Reads a `.glb` or `.gltf` file.
 * @throws CorskinError naming the file when it cannot be read, is not glTF, is truncated or
 *   corrupt, or names a resource by an absolute path, a URI scheme or (unless allowed) a path
 *   outside its folder
 */
export async function readDocument(path: string, options: ReadOptions = {}): Promise<Document> {
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
      const { json, binLength } = glbChunks(view, length, path);
      checkGltfJson(json, path, binLength);
      if (binLength !== undefined) {
        const jsonLength = view.getUint32(12, true);
        const at = 20 + jsonLength + ((4 - (jsonLength % 4)) % 4) + 8;
        checkSparseIndices(json, [bytes.subarray(at, at + binLength)], path);
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
    checkResourceUris(json as GltfResources, path, !!options.allowOutsideResources);
    checkGltfJson(json, path);
    checkSparseIndices(json, await gltfBuffers(json as GltfResources, path), path);
    return (await io.read(path)).setLogger(quietLogger);
  } catch (e) {
    if (e instanceof CorskinError) throw e;
    throw new CorskinError(`corrupt glTF: ${(e as Error).message}`, path, { cause: e });
  }
}

/** Options of {@link writeDocument}. */
export interface WriteOptions {
  /** false: drop the input's Draco/meshopt compression. */
  compress?: boolean;
  /** Files the output must not overwrite (with their `.gltf` resources) unless `force`. */
  inputs?: string[];
  force?: boolean;
}

/**
 * Writes `document` to `path` (`.glb` binary, or `.gltf` JSON with its resources beside it,
 * named after the output: `NAME.bin` or `NAME_0.bin`…, `NAME_texture0.png`…), atomically: each
 * file a temporary file renamed into place, nothing left behind on failure. Several buffers are
 * merged for `.glb`. A
 * document read from a Draco- or meshopt-compressed file is written compressed the same way
 * (glTF-Transform's default encoder settings: Draco quantises positions to 14 bits, other
 * attributes — centers of rotation included — to 12 to 16; meshopt is lossless here), unless
 * `compress` is false (then Draco-quantised float weights are renormalised to sum 1, as the
 * validator checks once they are visible).
 * @throws CorskinError naming the file when the output (or one of its resources) would
 *   overwrite an input or one of its resources and `force` is not set, the extension is not
 *   .glb/.gltf, or a file cannot be written
 */
export async function writeDocument(document: Document, path: string, options: WriteOptions = {}): Promise<void> {
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
  io.setVertexLayout(vertexLayoutFor(document));
  const lower = path.toLowerCase();
  if (!lower.endsWith('.glb') && !lower.endsWith('.gltf'))
    throw new CorskinError('a glTF output must end in .glb or .gltf', path);
  if (lower.endsWith('.glb')) {
    checkNotOverwritingInput(path, options.inputs ?? [], !!options.force);
    const bytes = await glbBytes(document);
    // What corskin writes, corskin reads back: checked before the file exists.
    await io.readBinary(bytes).catch((e: Error) => {
      throw new CorskinError(`the output would not read back (${e.message}); nothing written`, path);
    });
    await writeFileAtomic(path, bytes);
    return;
  }
  // Resources get names of their own, next to the output: never the input's (which would
  // overwrite them) nor a path outside the output's folder.
  const base = basename(path).replace(/\.gltf$/i, '');
  const buffers = document.getRoot().listBuffers();
  buffers.forEach((b, i) => b.setURI(buffers.length === 1 ? `${base}.bin` : `${base}_${i}.bin`));
  document
    .getRoot()
    .listTextures()
    .forEach((t, i) => {
      const ext =
        t.getMimeType() === 'image/jpeg'
          ? 'jpg'
          : t.getMimeType() === 'image/png'
            ? 'png'
            : extname(t.getURI()).slice(1) || 'bin';
      t.setURI(`${base}_texture${i}.${ext}`);
    });
  const { json, resources } = await io.writeJSON(document, { basename: base });
  const targets = Object.keys(resources).map((uri) => join(dirname(path), uri));
  for (const target of [path, ...targets]) checkNotOverwritingInput(target, options.inputs ?? [], !!options.force);
  const written: string[] = [];
  try {
    for (const [uri, data] of Object.entries(resources)) {
      const target = join(dirname(path), uri);
      await writeFileAtomic(target, data);
      written.push(target);
    }
    await writeFileAtomic(path, new TextEncoder().encode(JSON.stringify(json, null, 2)));
  } catch (e) {
    await Promise.all(written.map((f) => rm(f, { force: true })));
    throw e;
  }
}
