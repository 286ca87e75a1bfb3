/**
 * The checks of a GLB's 12-byte header (glTF 2.0 §4.4.2) that name what is wrong in the file's
 * terms, shared by the Node reader (`node-io.ts`) and the viewer (before three.js's loader, whose
 * errors name a typed array). Browser-safe.
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
