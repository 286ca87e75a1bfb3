/**
 * How corskin writes glTF through glTF-Transform, whatever it writes: the vertex layout, the
 * bytes an accessor takes dense or sparse, the shortest float32 literal for the JSON, and a quiet
 * logger. Runs in Node and browsers.
 *
 * @module
 */
import { Logger, VertexLayout, type Document, type Primitive } from '@gltf-transform/core';

/**
 * The vertex layout to write `document` with: interleaved, unless a primitive's attributes exceed
 * the 252-byte stride interleaved data may have (glTF 2.0 §3.6.2.4) — a template rig's cage binding
 * of 72 slots — then one buffer view per attribute.
 */
export function vertexLayoutFor(document: Document): VertexLayout {
  const stride = (prim: Primitive) =>
    prim.listAttributes().reduce((s, a) => s + Math.ceil((a.getElementSize() * a.getComponentSize()) / 4) * 4, 0);
  const wide = document
    .getRoot()
    .listMeshes()
    .some((m) => m.listPrimitives().some((p) => stride(p) > 252));
  return wide ? VertexLayout.SEPARATE : VertexLayout.INTERLEAVED;
}

/**
 * Bytes an accessor of `count` elements of `element` bytes, `nonZero` of them not 0, takes as
 * glTF-Transform writes it: dense, each element padded to 4 bytes where it is a vertex attribute
 * (as glTF asks of those); sparse, the non-zero elements packed, each with an `index`-byte index,
 * the indices and the values each padded to 4 bytes.
 */
export function accessorBytes(
  count: number,
  nonZero: number,
  element: number,
  attribute: boolean,
  index: number,
): { dense: number; sparse: number } {
  const padded = (bytes: number) => 4 * Math.ceil(bytes / 4);
  // prettier-ignore
  return { dense: count * (attribute ? padded(element) : element), sparse: padded(nonZero * index) + padded(nonZero * element) };
}

/**
 * The number with the fewest significant digits that is `x` once rounded to float32 (what a glTF
 * player holds of a node's translation, rotation or scale): for values corskin writes into the JSON,
 * which would otherwise take 17 digits each.
 * @param x any finite number
 * @returns y with `Math.fround(y) === Math.fround(x)`, of at most 9 significant digits
 */
export function shortestFloat32(x: number): number {
  const f = Math.fround(x);
  for (let digits = 1; digits < 9; digits++) {
    const y = Number(f.toPrecision(digits));
    if (Math.fround(y) === f) return y;
  }
  return Number(f.toPrecision(9));
}

/**
 * glTF-Transform's logger, limited to warnings and errors (no "prune: removed …" chatter), less
 * its warning that sparse accessors more than half non-zero may grow the file: corskin writes an
 * accessor sparse only where that is smaller (`node-io.ts`, `morph-bake.ts`).
 */
export const quietLogger: Logger = new (class extends Logger {
  override warn(text: string): void {
    if (!text.startsWith('Some sparse accessors have >50% non-zero elements')) super.warn(text);
  }
})(Logger.Verbosity.WARN);
