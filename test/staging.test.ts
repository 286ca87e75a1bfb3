/**
 * The bake's staging folder (`io/files.ts`): a staged `.gltf` is moved into place resources
 * first, its JSON last, a failed move named as a CorskinError; a stop's clean-up removes
 * corskin's own temporary names beside an output and nothing of the user's.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CorskinError } from '../src/core/errors.js';
import { createStaging, keepStaged, removeTempFilesOf } from '../src/io/files.js';
import { scratch } from './helpers/data.js';

const tmp = scratch();
afterAll(tmp.cleanup);

describe('keepStaged', () => {
  it('moves the resources before the JSON; a move that fails is named, and the JSON stays out', () => {
    const folder = join(tmp.dir, 'out');
    mkdirSync(folder);
    const output = join(folder, 'baked.gltf');
    writeFileSync(output, 'the previous JSON');
    mkdirSync(join(folder, 'baked.bin')); // a folder where the buffer should go: its move fails
    const stage = createStaging(output);
    const files = [join(stage, 'baked.gltf'), join(stage, 'baked_texture0.png'), join(stage, 'baked.bin')];
    files.forEach((f) => writeFileSync(f, `new ${f}`));
    let error: unknown;
    try {
      keepStaged(files, folder);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CorskinError);
    expect((error as CorskinError).file).toBe(join(folder, 'baked.bin'));
    expect(readFileSync(join(folder, 'baked_texture0.png'), 'utf8')).toBe(`new ${files[1]}`); // moved first
    expect(readFileSync(output, 'utf8')).toBe('the previous JSON'); // the JSON last: not moved
  });
});

describe('removeTempFilesOf', () => {
  it("removes corskin's .NAME.xxxxxxxx.tmp files and staging folders, not a user's .NAME.….tmp", () => {
    const folder = join(tmp.dir, 'signals');
    mkdirSync(folder);
    const output = join(folder, 'char.glb');
    const ours = [join(folder, '.char.glb.0123abcd.tmp'), join(folder, '.char.glb.89ef4567.tmp')];
    writeFileSync(ours[0], 'partial');
    mkdirSync(ours[1]);
    writeFileSync(join(ours[1], 'char.glb'), 'staged');
    const theirs = join(folder, '.char.glb.backup.tmp');
    mkdirSync(theirs);
    writeFileSync(join(theirs, 'keep'), 'the user’s');
    removeTempFilesOf(output);
    expect(ours.map(existsSync)).toEqual([false, false]);
    expect(readFileSync(join(theirs, 'keep'), 'utf8')).toBe('the user’s');
  });
});
