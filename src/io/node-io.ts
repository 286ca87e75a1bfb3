/**
 * Reading and writing glTF files in Node (the browser-safe document functions are in `gltf.ts`).
 *
 * @module
 */
import { basename, dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { NodeIO, PropertyType, type Document, type GLTF, type Primitive } from '@gltf-transform/core';
import { ALL_EXTENSIONS, KHRDracoMeshCompression } from '@gltf-transform/extensions';
import { isCageExtras } from './schema.js';
import { CorskinError } from '../core/errors.js';
import { glbHeaderProblem, isGlb, parseGltfJson } from './glb-header.js';
import { checkNotOverwritingInput, readBytes, writeFileAtomic, writeFilesAtomic } from './files.js';
import { checkGltfJson, checkSparseIndices } from './check-json.js';
import { checkStructure } from './check-structure.js';
import { accessorBytes, quietLogger, vertexLayoutFor } from './gltf-write.js';
import { renormalizeWeightAccessors } from './gltf-weights.js';
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
 * Refuses to write a document with a NaN or infinite float anywhere (glTF forbids them; a
 * deformer or bake fed degenerate data must fail here, not in the user's engine).
 * @throws CorskinError naming the file and where the first non-finite number is
 */
function checkFinite(document: Document, path: string): void {
  for (const accessor of document.getRoot().listAccessors()) {
    const array = accessor.getArray();
    if (!array || !(array instanceof Float32Array || array instanceof Float64Array)) continue;
    for (let k = 0; k < array.length; k++) {
      if (Number.isFinite(array[k])) continue;
      const parent = accessor.listParents().find((p) => p.propertyType !== 'Root');
      const what =
        parent?.propertyType === 'Primitive'
          ? `a ${(parent as Primitive).listSemantics().find((s) => (parent as Primitive).getAttribute(s) === accessor) ?? 'vertex'} attribute`
          : `an accessor of ${parent?.propertyType ?? 'nothing'}`;
      throw new CorskinError(
        `the output would hold a non-finite number (${array[k]}) in ${what}, element ${Math.floor(k / accessor.getElementSize())}: nothing written`,
        path,
      );
    }
  }
}

/**
 * Draco quantises every float attribute it does not know (glTF-Transform's `GENERIC`: weights,
 * tangents and application attributes) to 12 bits by default, which ruins precomputed method
 * data (centers of rotation, Direct Delta Mush matrices, cage bindings: a DDM bind pose 3e-2 of
 * the diagonal off). corskin writes them losslessly: Draco still quantises positions (14 bits),
 * normals (10), texture coordinates (12) and colours (8), and stores the rest as exact floats.
 * A file with a cage (bind-cage, templates) is encoded sequentially: Draco's edgebreaker
 * reorders a mesh's vertices, which the skin's cage binding (`_CAGE_INDICES_*`) names by index
 * in the cage (the skin's own vertices travel with their binding either way).
 */
function dracoKeepsGenericExact(document: Document): void {
  const cage = document
    .getRoot()
    .listNodes()
    .some((node) => isCageExtras(node.getExtras()));
  for (const ext of document.getRoot().listExtensionsUsed()) {
    if (ext instanceof KHRDracoMeshCompression)
      ext.setEncoderOptions({
        quantizationBits: { GENERIC: 0 },
        ...(cage && { method: KHRDracoMeshCompression.EncoderMethod.SEQUENTIAL }),
      });
  }
}

/**
 * `document` as GLB bytes: its buffers merged into one (a valid .gltf may have several), vertex
 * attributes interleaved unless a primitive's would exceed glTF's 252-byte stride
 * ({@link vertexLayoutFor}: a template rig's cage binding), its compression extensions encoded,
 * the JSON without the defaults glTF-Transform writes ({@link omitDefaults}).
 */
export async function glbBytes(document: Document): Promise<Uint8Array> {
  denseWhereSmaller(document);
  dracoKeepsGenericExact(document);
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
  return withoutDefaults(await io.setVertexLayout(vertexLayoutFor(document)).writeBinary(document));
}

/**
 * Leaves out of glTF JSON what the specification defaults and glTF-Transform writes all the same:
 * an animation sampler's `"interpolation": "LINEAR"` (25 bytes a channel). Modifies `json`.
 */
function omitDefaults(json: GLTF.IGLTF): void {
  for (const animation of json.animations ?? [])
    for (const sampler of animation.samplers) if (sampler.interpolation === 'LINEAR') delete sampler.interpolation;
}

/** GLB bytes with their JSON chunk less its defaults ({@link omitDefaults}), the BIN chunk as it was. */
function withoutDefaults(glb: Uint8Array): Uint8Array {
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  const length = view.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + length))) as GLTF.IGLTF;
  omitDefaults(json);
  const text = new TextEncoder().encode(JSON.stringify(json));
  const padded = 4 * Math.ceil(text.length / 4);
  const rest = glb.subarray(20 + length);
  const out = new Uint8Array(20 + padded + rest.length);
  const header = new DataView(out.buffer);
  header.setUint32(0, 0x46546c67, true); // "glTF"
  header.setUint32(4, 2, true);
  header.setUint32(8, out.length, true);
  header.setUint32(12, padded, true);
  header.setUint32(16, 0x4e4f534a, true); // "JSON"
  out.set(text, 20);
  out.fill(0x20, 20 + text.length, 20 + padded);
  out.set(rest, 20 + padded);
  return out;
}

/**
 * Stores identical accessors once in `document` (modified): glTF-Transform's `dedup`, accessors
 * alone — vertex attributes, indices and animation samplers' inputs and outputs (a bake's clips
 * keyed at the same times, an input's own repeated key times; the Soldier's DQS morph bake at 10
 * samples/s: 3.91 → 3.52 MB). Left as it is when an accessor such a user holds is held by another
 * kind of user too (a morph target, a skin, an extension): `dedup` swaps those users alone, then
 * disposes of the duplicate, which the others would lose.
 * @returns whether it was deduplicated
 */
export async function storeAccessorsOnce(document: Document): Promise<boolean> {
  const merged = new Set(['Primitive', 'AnimationSampler']);
  const shared = document
    .getRoot()
    .listAccessors()
    .some((accessor) => {
      const users = accessor.listParents().filter((p) => p.propertyType !== 'Root');
      return users.some((p) => merged.has(p.propertyType)) && users.some((p) => !merged.has(p.propertyType));
    });
  if (shared) return false;
  const { dedup } = await optionalDependency(import('@gltf-transform/functions'), '@gltf-transform/functions', 'Storing identical accessors once'); // prettier-ignore
  await document.transform(dedup({ propertyTypes: [PropertyType.ACCESSOR] }));
  return true;
}

/**
 * Makes sparse accessors dense in `document` where that is smaller ({@link accessorBytes}; a morph
 * target a file stored sparse, then moved by corskin), the indices of 1, 2 or 4 bytes as
 * glTF-Transform chooses them for the largest index among all the sparse accessors it writes.
 * Normalized ones always go dense (see below). It modifies the document being written.
 * (glTF-Transform warns above half the elements non-zero, where float sparse still pays up to
 * 6/7; `quietLogger` leaves that warning out.)
 */
function denseWhereSmaller(document: Document): void {
  const sparse = document
    .getRoot()
    .listAccessors()
    .filter((a) => a.getSparse() && a.getArray());
  const counts = sparse.map((accessor) => {
    const array = accessor.getArray()!;
    const size = accessor.getElementSize();
    let nonZero = 0;
    let last = -1;
    for (let i = 0; i < array.length; i += size)
      for (let c = 0; c < size; c++)
        if (array[i + c] !== 0) {
          nonZero++;
          last = i / size;
          break;
        }
    return { nonZero, last };
  });
  const largest = counts.reduce((m, c) => Math.max(m, c.last), -1);
  const index = largest < 255 ? 1 : largest < 65535 ? 2 : 4;
  sparse.forEach((accessor, k) => {
    // glTF-Transform 4.5 writes a sparse normalized accessor's values decoded (i / 32767), then
    // truncated back into integers: all but ±1 become 0. Dense, they are written as they are.
    if (accessor.getNormalized()) return accessor.setSparse(false);
    const element = accessor.getElementSize() * accessor.getComponentSize();
    const attribute = accessor.listParents().some((p) => p.propertyType === 'Primitive' || p.propertyType === 'PrimitiveTarget'); // prettier-ignore
    const bytes = accessorBytes(accessor.getCount(), counts[k].nonZero, element, attribute, index);
    if (bytes.sparse >= bytes.dense) accessor.setSparse(false);
  });
}

/** The compression extensions a glTF file's JSON mentions (a cheap scan before parsing). */
function compressionOf(bytes: Uint8Array, glb: boolean): string[] {
  let json = bytes;
  if (glb && bytes.length >= 20) {
    const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(12, true);
    json = bytes.subarray(20, Math.min(bytes.length, 20 + length));
  }
  const text = new TextDecoder().decode(json.subarray(0, 1 << 24));
  return CODECS.filter((name) => text.includes(name));
}

/** The JSON and the BIN chunk of a GLB whose header was checked. */
function glbChunks(view: DataView, length: number, path: string): { json: unknown; bin?: Uint8Array } {
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
  if (!(at + 8 <= length && view.getUint32(at + 4, true) === 0x004e4942)) return { json };
  const binLength = Math.min(view.getUint32(at, true), length - at - 8);
  return { json, bin: new Uint8Array(view.buffer, view.byteOffset + at + 8, binLength) };
}

/**
 * The bytes of every buffer, each checked to hold the `byteLength` it declares: a GLB's binary
 * chunk, a data URI (decoded as glTF-Transform decodes it), a file beside the glTF (its URI
 * checked by {@link checkResourceUris} first). Undefined for a buffer without data of its own (an
 * `EXT_meshopt_compression` fallback). Runs after {@link checkGltfJson} (valid byte lengths).
 * @throws CorskinError naming `path` and the buffer when its data is missing or too short
 */
async function bufferBytes(
  json: unknown,
  path: string,
  glb: boolean,
  bin?: Uint8Array,
): Promise<(Uint8Array | undefined)[]> {
  const buffers = ((json as GltfResources).buffers ?? []) as {
    uri?: string;
    byteLength: number;
    extensions?: unknown;
  }[];
  return Promise.all(
    buffers.map(async (b, i) => {
      let bytes: Uint8Array;
      let source: string;
      if (b.uri === undefined) {
        if (b.extensions) return undefined;
        if (b.byteLength === 0) return new Uint8Array(0);
        if (i !== 0 || !bin)
          throw new CorskinError(
            i === 0 && glb
              ? 'buffer 0 has no uri, but the GLB has no binary chunk to hold its data'
              : `buffer ${i} has no uri (only a .glb's first buffer, held in its binary chunk, may omit it)`,
            path,
          );
        bytes = bin;
        source = "the GLB's binary chunk";
      } else if (b.uri.startsWith('data:')) {
        const comma = b.uri.indexOf(',');
        const data = comma < 0 ? '' : b.uri.slice(comma + 1);
        bytes = Buffer.from(data, b.uri.slice(0, Math.max(comma, 0)).includes('base64') ? 'base64' : 'utf8');
        source = 'its data URI';
      } else {
        try {
          bytes = await readBytes(join(dirname(path), decodeURIComponent(b.uri)));
        } catch (e) {
          const why = e instanceof CorskinError ? e.message.slice(e.message.lastIndexOf(': ') + 2) : String(e);
          throw new CorskinError(`buffer ${i} refers to "${b.uri}", which cannot be read (${why})`, path);
        }
        source = `"${b.uri}"`;
      }
      if (bytes.length < b.byteLength)
        throw new CorskinError(`buffer ${i} declares ${b.byteLength} bytes, ${source} holds ${bytes.length}`, path);
      return bytes;
    }),
  );
}

/** Whether a glTF names a buffer or image by a file of its own (not a data URI, not a buffer view). */
function hasExternalResources(json: GltfResources): boolean {
  return [...(json.buffers ?? []), ...(json.images ?? [])].some(
    (r) => typeof r.uri === 'string' && !r.uri.startsWith('data:'),
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
 * Reads a `.glb` or `.gltf` file (a `.glb` may keep further buffers or images in files beside
 * it). The JSON's structure is checked before glTF-Transform parses it, so a malformed file is
 * reported in its own terms (which scene, which node, which buffer).
 * @throws CorskinError naming the file when it cannot be read, is not glTF, is truncated or
 *   corrupt (no `asset.version`, a collection that is not an array, an index naming an element
 *   that does not exist, a channel without a target, a buffer shorter than its `byteLength` or
 *   whose file is missing, …), or names a resource by an absolute path, a URI scheme or (unless
 *   allowed) a path outside its folder
 */
export async function readDocument(path: string, options: ReadOptions = {}): Promise<Document> {
  const bytes: Uint8Array = await readBytes(path);
  const glb = isGlb(bytes);
  const io = await createIO(compressionOf(bytes, glb));
  try {
    if (glb) {
      const problem = glbHeaderProblem(bytes);
      if (problem) throw new CorskinError(problem, path);
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const { json, bin } = glbChunks(view, view.getUint32(8, true), path);
      checkStructure(json, path);
      checkResourceUris(json as GltfResources, path, !!options.allowOutsideResources);
      checkGltfJson(json, path, bin?.length);
      checkSparseIndices(json, await bufferBytes(json, path, true, bin), path);
      // A GLB may keep further buffers or images in files beside it: read through its path then.
      const document = hasExternalResources(json as GltfResources) ? await io.read(path) : await io.readBinary(bytes);
      return document.setLogger(quietLogger);
    }
    let json: object;
    try {
      json = parseGltfJson(bytes);
    } catch (e) {
      throw new CorskinError((e as Error).message, path);
    }
    checkStructure(json, path);
    checkResourceUris(json as GltfResources, path, !!options.allowOutsideResources);
    checkGltfJson(json, path);
    checkSparseIndices(json, await bufferBytes(json, path, false), path);
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
  /** Overwrite the files of `inputs` too; default false. */
  force?: boolean;
}

/**
 * Writes `document` to `path` (`.glb` binary, or `.gltf` JSON with its resources beside it,
 * named after the output: `NAME.bin` or `NAME_0.bin`…, `NAME_texture0.png`…), atomically: each
 * file a temporary file renamed into place, nothing left behind on failure. Several buffers are
 * merged for `.glb`. A
 * document read from a Draco- or meshopt-compressed file is written compressed the same way
 * (Draco quantises positions to 14 bits, normals to 10, texture coordinates to 12 and stores
 * weights, tangents and corskin's method data — centers of rotation, Direct Delta Mush
 * matrices, cage bindings — as exact floats; meshopt is lossless here), unless
 * `compress` is false (then Draco-quantised float weights are renormalised to sum 1, as the
 * validator checks once they are visible).
 * @returns the paths written: `path`, then a `.gltf`'s resources
 * @throws CorskinError naming the file when the output (or one of its resources) would
 *   overwrite an input or one of its resources and `force` is not set, the extension is not
 *   .glb/.gltf, or a file cannot be written
 */
export async function writeDocument(document: Document, path: string, options: WriteOptions = {}): Promise<string[]> {
  checkFinite(document, path);
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
    return [path];
  }
  // Resources get names of their own, next to the output: never the input's (which would
  // overwrite them) nor a path outside the output's folder.
  denseWhereSmaller(document); // (glbBytes does these two for a .glb)
  dracoKeepsGenericExact(document);
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
  omitDefaults(json);
  const targets = Object.keys(resources).map((uri) => join(dirname(path), uri));
  for (const target of [path, ...targets]) checkNotOverwritingInput(target, options.inputs ?? [], !!options.force);
  // The JSON and its resources as one write: all or none of them.
  await writeFilesAtomic([
    ...Object.entries(resources).map(([uri, data]): [string, Uint8Array] => [join(dirname(path), uri), data]),
    [path, new TextEncoder().encode(JSON.stringify(json, null, 2))],
  ]);
  return [path, ...targets];
}
