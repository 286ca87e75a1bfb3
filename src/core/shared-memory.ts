/**
 * Typed arrays in SharedArrayBuffers, for the worker threads (CoR, cage binding, Direct Delta
 * Mush): they read them without a copy.
 *
 * @module
 */

/** A copy of `a` in a new SharedArrayBuffer, same type and length. */
export function toShared<T extends Float32Array | Float64Array | Int32Array | Uint32Array>(a: T): T {
  return sharedCopy(a.constructor as SharedArrayType<T>, a);
}

/** A typed-array constructor over a SharedArrayBuffer. */
type SharedArrayType<T> = { new (buffer: SharedArrayBuffer): T; readonly BYTES_PER_ELEMENT: number };

/** `values` copied into a new SharedArrayBuffer as a `Type` (a typed-array constructor). */
export function sharedCopy<T extends Float32Array | Float64Array | Int32Array | Uint32Array>(
  Type: SharedArrayType<T>,
  values: ArrayLike<number>,
): T {
  const s = new Type(new SharedArrayBuffer(Type.BYTES_PER_ELEMENT * values.length));
  s.set(values);
  return s;
}
