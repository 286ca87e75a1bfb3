/**
 * `corskin deform` writes float posed geometry: the file requires KHR_mesh_quantization only while
 * an attribute it keeps is stored as the extension alone allows (an independent check found a
 * deformed 16-bit-target bake still requiring it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KHRMeshQuantization } from '@gltf-transform/extensions';
import { afterAll, describe, expect, it } from 'vitest';
import { readDocument, writeDocument } from '../src/io/node-io.js';
import { runCli } from './helpers/cli.js';
import { CESIUM_MAN, scratch } from './helpers/data.js';
import { validate } from './helpers/gltf.js';

const tmp = scratch();
afterAll(() => tmp.cleanup());

/** The extensions `file` (a GLB) requires, and its validator errors. */
async function required(file: string): Promise<{ required: string[]; errors: number }> {
  const bytes = readFileSync(file);
  const json = JSON.parse(bytes.subarray(20, 20 + bytes.readUInt32LE(12)).toString());
  return { required: json.extensionsRequired ?? [], errors: (await validate(file)).issues.numErrors };
}

describe('deform drops KHR_mesh_quantization once nothing needs it', () => {
  it('a bake with integer target positions, deformed: float geometry, the extension gone, no validator error', async () => {
    const [baked, posed] = [join(tmp.dir, 'short.glb'), join(tmp.dir, 'short-posed.glb')];
    const bake = await runCli('bake', CESIUM_MAN, '--method', 'dqs', '--as', 'morphs', '--rate', '5', '--target-positions', 'short', '-o', baked); // prettier-ignore
    expect(bake.code, bake.stderr).toBe(0);
    expect((await required(baked)).required).toContain('KHR_mesh_quantization');
    const r = await runCli('deform', baked, '--method', 'lbs', '--time', '0.5', '-o', posed);
    expect(r.code, r.stderr).toBe(0);
    expect(await required(posed)).toEqual({ required: [], errors: 0 });
  });

  it('texture coordinates in signed 16 bits (the extension alone allows them), deformed: the extension kept, no validator error', async () => {
    const [input, posed] = [join(tmp.dir, 'signed-uv.glb'), join(tmp.dir, 'signed-uv-posed.glb')];
    const document = await readDocument(CESIUM_MAN);
    document.createExtension(KHRMeshQuantization).setRequired(true);
    const uv = document.getRoot().listMeshes()[0].listPrimitives()[0].getAttribute('TEXCOORD_0')!;
    uv.setArray(Int16Array.from(uv.getArray()! as Float32Array, (x: number) => Math.round(Math.max(-1, Math.min(1, x)) * 32767))).setNormalized(true); // prettier-ignore
    await writeDocument(document, input);
    expect(await required(input)).toEqual({ required: ['KHR_mesh_quantization'], errors: 0 });
    const r = await runCli('deform', input, '--method', 'lbs', '--time', '0.5', '-o', posed);
    expect(r.code, r.stderr).toBe(0);
    expect(await required(posed)).toEqual({ required: ['KHR_mesh_quantization'], errors: 0 });
  });
});
