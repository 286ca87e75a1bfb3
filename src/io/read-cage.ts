/**
 * Reading a cage from a file (Node layer): an OBJ or the first triangle mesh of a glTF file.
 *
 * @module
 */
import { extname } from 'node:path';
import type { Cage } from '../cage/cage.js';
import { CorskinError } from '../core/errors.js';
import { readObj } from './libigl.js';
import { readDocument } from './node-io.js';

/**
 * Reads a cage: an OBJ (`v`/`f` lines, polygons fanned into triangles) or the first mesh of a
 * glTF file, its node's world transform applied; positions in the character's bind space.
 * @throws CorskinError for an unreadable file or a file without a triangle mesh
 */
export async function readCage(file: string): Promise<Cage> {
  if (extname(file).toLowerCase() === '.obj') {
    const obj = await readObj(file);
    return { positions: Float64Array.from(obj.positions), triangles: obj.triangles };
  }
  const document = await readDocument(file);
  const node = document
    .getRoot()
    .listNodes()
    .find((n) =>
      n
        .getMesh()
        ?.listPrimitives()
        .some((p) => p.getMode() === 4),
    );
  const prim = node
    ?.getMesh()
    ?.listPrimitives()
    .find((p) => p.getMode() === 4);
  const pos = prim?.getAttribute('POSITION');
  if (!node || !prim || !pos) throw new CorskinError('no triangle mesh to use as a cage', file);
  const world = node.getWorldMatrix();
  const m = pos.getCount();
  const positions = new Float64Array(3 * m);
  const v: number[] = [];
  for (let i = 0; i < m; i++) {
    pos.getElement(i, v);
    for (let r = 0; r < 3; r++)
      positions[3 * i + r] = world[r] * v[0] + world[4 + r] * v[1] + world[8 + r] * v[2] + world[12 + r];
  }
  const index = prim.getIndices()?.getArray();
  const triangles = index ? Uint32Array.from(index) : Uint32Array.from({ length: m - (m % 3) }, (_, i) => i);
  return { positions, triangles };
}
