/**
 * The Khronos validator's errors as corskin reads them (`io/validate.ts`): every one, not the
 * first few hundred — CesiumMan with its weights scaled by 0.9 has one error per vertex — on this
 * thread or on one of its own.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createIO } from '../src/io/node-io.js';
import { validatorErrors } from '../src/io/validate.js';
import { CESIUM_MAN, scratch } from './helpers/data.js';

const tmp = scratch();
afterAll(tmp.cleanup);

describe('validatorErrors', () => {
  it('returns every error of a file with thousands (the weights of each vertex summing to 0.9)', async () => {
    const io = await createIO();
    const doc = await io.read(CESIUM_MAN);
    const weights = doc.getRoot().listMeshes()[0].listPrimitives()[0].getAttribute('WEIGHTS_0')!;
    const array = weights.getArray()!;
    for (let k = 0; k < array.length; k++) array[k] *= 0.9;
    const file = join(tmp.dir, 'weights-0.9.glb');
    await io.write(file, doc);
    expect((await validatorErrors(CESIUM_MAN))!.length).toBe(0);
    const errors = (await validatorErrors(file))!;
    expect(errors.filter((e) => e.code === 'ACCESSOR_WEIGHTS_NON_NORMALIZED').length).toBe(weights.getCount());
    expect(weights.getCount()).toBeGreaterThan(500);
    // On a worker thread of its own: the same errors, in the same order.
    expect(await validatorErrors(file, { thread: true })).toEqual(errors);
    expect(await validatorErrors(CESIUM_MAN, { thread: true })).toEqual([]);
  });

  it('rejects a file it cannot read, on a thread as here', async () => {
    const missing = join(tmp.dir, 'missing.glb');
    await expect(validatorErrors(missing)).rejects.toThrow(/ENOENT/);
    await expect(validatorErrors(missing, { thread: true })).rejects.toThrow(/ENOENT/);
  });
});
