/**
 * Compressed inputs through the CLI: a Draco and a meshopt copy of a real character are read,
 * precomputed and written back with the same compression (or without, on request).
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { draco, meshopt } from '@gltf-transform/functions';
import { MeshoptEncoder } from 'meshoptimizer';
import { createIO } from '../src/io/node-io.js';
import { runCli } from './helpers/cli.js';
import { scratch, SHARED } from './helpers/data.js';
import { validate } from './helpers/gltf.js';

const tmp = scratch();
afterAll(tmp.cleanup);

describe.each([
  ['KHR_draco_mesh_compression', () => draco()],
  ['EXT_meshopt_compression', () => meshopt({ encoder: MeshoptEncoder })],
] as const)('a %s copy of the Fox', (extension, transform) => {
  it('precomputes and keeps the compression, or drops it with --no-compress; outputs validate', async () => {
    await MeshoptEncoder.ready;
    const io = await createIO([extension]);
    const doc = await io.read(join(SHARED, 'characters/Fox.glb'));
    await doc.transform(transform());
    const input = join(tmp.dir, `fox-${extension}.glb`);
    await io.write(input, doc);
    const kept = join(tmp.dir, `kept-${extension}.glb`);
    const plain = join(tmp.dir, `plain-${extension}.glb`);
    expect((await runCli('precompute', input, '-o', kept)).code).toBe(0);
    expect((await runCli('precompute', input, '-o', plain, '--no-compress')).code).toBe(0);
    const used = async (p: string) =>
      (await (await createIO([extension])).read(p))
        .getRoot()
        .listExtensionsUsed()
        .map((e) => e.extensionName);
    expect(await used(kept)).toContain(extension);
    expect(await used(plain)).not.toContain(extension);
    for (const p of [kept, plain]) expect((await validate(p)).issues.numErrors).toBe(0);
    const deformed = join(tmp.dir, `deformed-${extension}.glb`);
    const r = await runCli('deform', kept, '--method', 'cor', '--time', '1', '-o', deformed);
    expect(r.code).toBe(0);
    expect(await used(deformed)).toContain(extension);
  }, 60_000);
});
