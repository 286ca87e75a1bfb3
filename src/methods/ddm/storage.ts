/**
 * Direct Delta Mush data (Le & Lewis 2019) in glTF, as custom vertex attributes (names starting
 * with `_`, so validators and engines accept and ignore them). Each vertex has S slots (S a
 * multiple of 4, the most entries any vertex has), unused slots zero:
 *
 * - `_DDM_JOINTS_s` (s < S/4): VEC4 unsigned short, the joint of slots 4s … 4s+3;
 * - `full`: `_DDM_OMEGA_a` (a < 10·S/4): VEC4 float; the vertex's 10·S numbers in slot order,
 *   slot e's Ω' (10 numbers, the upper triangle of the symmetric 4×4 about the vertex's bind
 *   position, row-major) at [10e, 10e + 10);
 * - `compact`: `_DDM_WEIGHTS_s`: VEC4 float, ω of slots 4s … 4s+3; `_DDM_MOMENTS_0 … 2`: VEC4
 *   float, Π' (10 numbers, then two zeros).
 *
 * The parameters are in the primitive's `extras.corskinDeltaMush`. A slot is in use when its
 * Ω'₃₃ (full) or ω (compact) is not zero.
 *
 * @module
 */
import { Accessor, type Document, type Primitive } from '@gltf-transform/core';
import { CorskinError } from '../../core/errors.js';
import { resolveDdmParameters, type DdmParameters } from './parameters.js';
import type { DdmModel, DdmVariant } from './precompute.js';
import { VERSION } from '../../version.js';
import { DDM_EXTRAS_KEY } from '../../io/schema.js';
import type { SkinnedModel } from '../../io/gltf.js';
import { disposeIfUnused } from '../../io/unused.js';
import { setDdmModel } from './data.js';

/** The primitive extras key of the stored parameters ({@link DDM_EXTRAS_KEY}). */
export const DDM_EXTRAS = DDM_EXTRAS_KEY;

/** The primitive's Direct Delta Mush attributes (to remove or replace them). */
export function ddmAttributeNames(p: Primitive): string[] {
  return p.listSemantics().filter((s) => s.startsWith('_DDM_'));
}

/** Removes a primitive's Direct Delta Mush data (stale once its weights or joints change). */
export function removeDeltaMush(p: Primitive): void {
  for (const s of ddmAttributeNames(p)) {
    const old = p.getAttribute(s)!;
    p.setAttribute(s, null);
    disposeIfUnused(old);
  }
  const extras = { ...(p.getExtras() as Record<string, unknown>) };
  delete extras[DDM_EXTRAS];
  p.setExtras(extras);
}

/** What `extras.corskinDeltaMush` holds. */
interface StoredParameters extends Required<DdmParameters> {
  variant: DdmVariant;
  threshold: number;
  slots: number;
  version: string;
}

/**
 * Stores `ddm` (for the merged mesh of `model`) on every primitive of the model, replacing any
 * Direct Delta Mush data there, and gives `model.mesh` the model (`setDdmModel`).
 */
export function setDeltaMush(document: Document, model: SkinnedModel, ddm: DdmModel, threshold: number): void {
  const buffer = document.getRoot().listBuffers()[0] ?? document.createBuffer();
  const { offsets, joints, matrices, weights } = ddm;
  let most = 1;
  for (let i = 0; i + 1 < offsets.length; i++) most = Math.max(most, offsets[i + 1] - offsets[i]);
  const S = 4 * Math.ceil(most / 4);
  const full = ddm.variant === 'full';
  for (const part of model.parts) {
    const p = part.primitive;
    removeDeltaMush(p);
    const count = part.vertexCount;
    const J = new Uint16Array(S * count);
    const X = new Float32Array((full ? 10 : 1) * S * count);
    const moments = full ? undefined : new Float32Array(12 * count);
    for (let v = 0; v < count; v++) {
      const i = part.vertexOffset + v;
      for (let e = offsets[i], slot = 0; e < offsets[i + 1]; e++, slot++) {
        J[S * v + slot] = joints[e];
        if (full) X.set(matrices.subarray(10 * e, 10 * e + 10), 10 * (S * v + slot));
        else X[S * v + slot] = weights![e];
      }
      if (moments) moments.set(matrices.subarray(10 * i, 10 * i + 10), 12 * v);
    }
    const add = (name: string, data: Float32Array | Uint16Array, sets: number) => {
      for (let a = 0; a < sets; a++) {
        const slice = new (data.constructor as Float32ArrayConstructor | Uint16ArrayConstructor)(4 * count);
        const width = data.length / count;
        for (let v = 0; v < count; v++) for (let c = 0; c < 4; c++) slice[4 * v + c] = data[width * v + 4 * a + c];
        p.setAttribute(`${name}_${a}`, document.createAccessor().setType('VEC4').setBuffer(buffer).setArray(slice));
      }
    };
    add('_DDM_JOINTS', J, S / 4);
    if (full) add('_DDM_OMEGA', X, (10 * S) / 4);
    else {
      add('_DDM_WEIGHTS', X, S / 4);
      add('_DDM_MOMENTS', moments!, 3);
    }
    const stored: StoredParameters = { ...ddm.parameters, variant: ddm.variant, threshold, slots: S, version: VERSION };
    p.setExtras({ ...(p.getExtras() as object), [DDM_EXTRAS]: stored });
  }
  setDdmModel(model.mesh, ddm);
}

/**
 * Reads the Direct Delta Mush data of a skin's primitives (all of them must carry it, with the
 * same variant), for the merged mesh.
 * @param parts the primitives in merge order with their vertex counts
 * @param jointCount the skin's joints, to check indices
 * @returns undefined when no primitive carries the data
 * @throws CorskinError naming `file` when the data is incomplete, inconsistent or not finite
 */
export function readDeltaMush(
  parts: { primitive: Primitive; vertexCount: number }[],
  jointCount: number,
  name: string,
  file?: string,
): DdmModel | undefined {
  const stored = parts.map(
    (p) => (p.primitive.getExtras() as Record<string, unknown>)[DDM_EXTRAS] as StoredParameters | undefined,
  );
  if (stored.every((s) => !s)) return undefined;
  const bad = (why: string) =>
    new CorskinError(`${name}: the Direct Delta Mush data (${DDM_EXTRAS}) ${why}: store it again with corskin precompute --method ddm`, file); // prettier-ignore
  if (stored.some((s) => !s)) throw bad('is on some of the skin’s primitives only');
  const variant = stored[0]!.variant;
  if (variant !== 'full' && variant !== 'compact') throw bad(`has an unknown variant "${String(variant)}"`);
  if (stored.some((s) => s!.variant !== variant)) throw bad('mixes the full and compact variants');
  let parameters: Required<DdmParameters>;
  try {
    parameters = resolveDdmParameters({ ...stored[0]!, resolution: stored[0]!.resolution ?? 'fixed' }); // a file from before the field: λ and κ as solved
  } catch (e) {
    throw bad(`has bad parameters: ${(e as Error).message}`);
  }
  const full = variant === 'full';
  const n = parts.reduce((t, p) => t + p.vertexCount, 0);
  const counts = new Uint32Array(n);
  const rows: { joints: number[]; values: number[][] }[] = [];
  const moments = full ? undefined : new Float64Array(10 * n);
  let v0 = 0;
  const el: number[] = [];
  for (const { primitive: p, vertexCount: count } of parts) {
    const sets = p.listSemantics().filter((s) => s.startsWith('_DDM_JOINTS_')).length;
    const S = 4 * sets;
    if (S === 0) throw bad('has no _DDM_JOINTS_0 attribute');
    const read = (prefix: string, attributes: number): Float64Array => {
      const out = new Float64Array(4 * attributes * count);
      for (let a = 0; a < attributes; a++) {
        const acc = p.getAttribute(`${prefix}_${a}`);
        if (!acc || acc.getType() !== 'VEC4' || acc.getCount() !== count)
          throw bad(`lacks ${prefix}_${a} (VEC4, ${count} elements)`);
        if (prefix !== '_DDM_JOINTS' && acc.getComponentType() !== Accessor.ComponentType.FLOAT)
          throw bad(`has ${prefix}_${a} not of floats`);
        for (let v = 0; v < count; v++) {
          acc.getElement(v, el);
          for (let c = 0; c < 4; c++) out[4 * attributes * v + 4 * a + c] = el[c];
        }
      }
      return out;
    };
    const J = read('_DDM_JOINTS', sets);
    const X = full ? read('_DDM_OMEGA', (10 * S) / 4) : read('_DDM_WEIGHTS', sets);
    const M = full ? undefined : read('_DDM_MOMENTS', 3);
    for (let v = 0; v < count; v++) {
      const row = { joints: [] as number[], values: [] as number[][] };
      for (let slot = 0; slot < S; slot++) {
        const value = full ? Array.from(X.subarray(10 * (S * v + slot), 10 * (S * v + slot) + 10)) : [X[S * v + slot]];
        if (value.some((x) => !Number.isFinite(x))) throw bad(`of vertex ${v0 + v} is not finite`);
        if (value[value.length - 1] === 0) continue;
        const j = J[S * v + slot];
        if (j >= jointCount) throw bad(`names joint ${j} (the skin has ${jointCount})`);
        row.joints.push(j);
        row.values.push(value);
      }
      if (!row.joints.length) throw bad(`of vertex ${v0 + v} is empty (every slot zero): precompute it again`);
      rows.push(row);
      counts[v0 + v] = row.joints.length;
      if (moments) {
        for (let e = 0; e < 10; e++) moments[10 * (v0 + v) + e] = M![12 * v + e];
        if (moments.subarray(10 * (v0 + v), 10 * (v0 + v) + 10).some((x) => !Number.isFinite(x)))
          throw bad(`of vertex ${v0 + v} is not finite`);
      }
    }
    v0 += count;
  }
  const offsets = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i] + counts[i];
  const joints = new Uint32Array(offsets[n]);
  const values = new Float32Array((full ? 10 : 1) * offsets[n]);
  rows.forEach((row, i) => {
    row.joints.forEach((j, q) => {
      joints[offsets[i] + q] = j;
      values.set(row.values[q], (full ? 10 : 1) * (offsets[i] + q));
    });
  });
  if (full) return { variant, offsets, joints, matrices: values, parameters };
  return { variant, offsets, joints, matrices: Float32Array.from(moments!), weights: values, parameters };
}
