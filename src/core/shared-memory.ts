/**
 * Typed arrays in SharedArrayBuffers, for the worker threads (CoR, cage binding, Direct Delta
 * Mush): they read them without a copy.
 *
 * @module
 */

/** A copy of `a` in a new SharedArrayBuffer, same type and length. */
export function toShared<T extends Float32Array | Float64Array | Int32Array | Uint32Array>(a: T): T {
  const s = new (a.constructor as new (b: SharedArrayBuffer) => T)(new SharedArrayBuffer(a.byteLength));
  s.set(a);
  return s;
}

/** `values` copied into a new SharedArrayBuffer as a `Type` (a typed-array constructor). */
export function sharedCopy<T extends Float64Array | Int32Array | Uint32Array>(
  Type: { new (buffer: SharedArrayBuffer): T; readonly BYTES_PER_ELEMENT: number },
  values: ArrayLike<number>,
): T {
  const s = new Type(new SharedArrayBuffer(Type.BYTES_PER_ELEMENT * values.length));
  s.set(values);
  return s;
}
