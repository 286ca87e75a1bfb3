/**
 * File output that never leaves a partial file: write a temporary sibling, then rename.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { CorskinError } from '../core/errors.js';

/**
 * Reads a whole file.
 * @throws CorskinError naming `path`: no such file, is a directory, permission denied, …
 */
export async function readBytes(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      { ENOENT: 'no such file', EISDIR: 'is a directory', EACCES: 'permission denied' }[code ?? ''] ??
      (e as Error).message;
    throw new CorskinError(`cannot read: ${why}`, path, { cause: e });
  }
}

/**
 * Writes `data` to `path` atomically (temporary file in the same folder, then rename).
 * @throws CorskinError naming `path` when the folder does not exist or is not writable
 */
export async function writeFileAtomic(path: string, data: Uint8Array | string): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, data);
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' ? 'folder does not exist' : code === 'EACCES' ? 'permission denied' : (e as Error).message;
    throw new CorskinError(`cannot write: ${why}`, path, { cause: e });
  }
}

/**
 * Refuses to write over an input file unless the user asked for it.
 * @throws CorskinError when `output` is one of `inputs` and `force` is false
 */
export function checkNotOverwritingInput(output: string, inputs: string[], force: boolean): void {
  if (force) return;
  const out = resolve(output);
  for (const input of inputs) {
    if (resolve(input) === out) {
      throw new CorskinError('output would overwrite the input; pass --force to allow it', output);
    }
  }
}
