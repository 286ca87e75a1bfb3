/**
 * The checks of a GLB's 12-byte header (glTF 2.0 §4.4.2), and of a .gltf's JSON, that name what
 * is wrong in the file's terms, shared by the Node reader (`node-io.ts`) and the viewer (before
 * three.js's loader, whose errors name a typed array), and the other files a .gltf names.
 * Browser-safe.
 *
 * @module
 */

/** Whether `bytes` start with the GLB magic `glTF`. */
export function isGlb(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x67 && bytes[1] === 0x6c && bytes[2] === 0x54 && bytes[3] === 0x46;
}

/**
 * What is wrong with a GLB's header: shorter than the header, a version other than 2, or a
 * declared length beyond the bytes; undefined when it holds.
 * @param bytes a GLB ({@link isGlb})
 */
export function glbHeaderProblem(bytes: Uint8Array): string | undefined {
  if (bytes.length < 20) return 'truncated GLB (shorter than its header)';
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(4, true);
  const length = view.getUint32(8, true);
  if (version !== 2) return `unsupported GLB version ${version} (only glTF 2.0)`;
  if (length > bytes.length) return `truncated GLB: header declares ${length} bytes, file has ${bytes.length}`;
  return undefined;
}

/**
 * The JSON of a file that is not a GLB (`bytes`, UTF-8), parsed.
 * @throws Error naming the problem: an empty file; text that opens as JSON does (`{`) but does
 *   not parse (a .gltf cut short: JSON.parse's own words); anything else, neither GLB nor JSON;
 *   JSON without glTF's required `asset` property
 */
export function parseGltfJson(bytes: Uint8Array): object {
  if (!bytes.length) throw new Error('empty file (0 bytes): not a glTF file');
  const text = new TextDecoder().decode(bytes);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    if (/^\s*\{/.test(text)) throw new Error(`invalid glTF JSON: ${(e as Error).message}`);
    throw new Error('not a glTF file (neither GLB nor JSON)');
  }
  if (!json || typeof json !== 'object' || !('asset' in json))
    throw new Error('not a glTF file (JSON without an "asset" property)');
  return json;
}

/**
 * The URIs of `json`'s buffers and images that name other files (not `data:` URIs), in order,
 * each once.
 * @param json a parsed glTF 2.0 JSON
 */
export function externalUris(json: {
  buffers?: readonly { uri?: string }[];
  images?: readonly { uri?: string }[];
}): string[] {
  const uris = [...(json.buffers ?? []), ...(json.images ?? [])]
    .map((x) => x?.uri)
    .filter((u): u is string => typeof u === 'string' && !u.startsWith('data:'));
  return [...new Set(uris)];
}
