/**
 * File output that never leaves a partial file: write a temporary sibling, then rename.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { CorskinError } from '../core/errors.js';
import { externalUris } from './glb-header.js';

/**
 * Reads a whole file: a regular file, or a FIFO (`/dev/stdin` when a file is piped in).
 * @throws CorskinError naming `path`: no such file, is a directory, permission denied, a device
 *   or a socket (`/dev/zero` would be read until memory ran out), …
 */
export async function readBytes(path: string): Promise<Buffer> {
  try {
    const kind = await stat(path);
    if (kind.isCharacterDevice() || kind.isBlockDevice() || kind.isSocket())
      throw new CorskinError('cannot read: a device or socket, not a file', path);
    return await readFile(path);
  } catch (e) {
    if (e instanceof CorskinError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      { ENOENT: 'no such file', EISDIR: 'is a directory', EACCES: 'permission denied' }[code ?? ''] ??
      (e as Error).message;
    throw new CorskinError(`cannot read: ${why}`, path, { cause: e });
  }
}

/**
 * Temporary files of writes in progress, process-wide: what a signal handler must remove
 * ({@link removePendingTempFiles}). A process has one file system and one set of signals, so
 * this, the outputs written elsewhere and the folders made are the module state corskin keeps.
 */
const pendingTempFiles = new Set<string>();

/**
 * Removes the temporary files of writes still in progress, synchronously — for a SIGINT,
 * SIGTERM or SIGHUP handler that is about to exit. The final files are untouched: a write either
 * renamed its temporary file into place already, or never will.
 */
export function removePendingTempFiles(): void {
  for (const tmp of pendingTempFiles) rmSync(tmp, { recursive: true, force: true });
  pendingTempFiles.clear();
  for (const path of outputsWrittenElsewhere) removeTempFilesOf(path);
  removeEmptyFolders(madeFolders);
}

/** Folders {@link makeFolder} made in this thread, for {@link removePendingTempFiles}. */
const madeFolders = new Set<string>();

/**
 * Removes those of `folders` that are empty, deepest first (a parent emptied by its child's
 * removal goes too): what a command stopped before its first output leaves of the folders it
 * made for them. A folder with anything in it stays.
 */
export function removeEmptyFolders(folders: Iterable<string>): void {
  for (const folder of [...folders].sort((a, b) => b.length - a.length))
    try {
      rmdirSync(folder);
    } catch {
      // not empty, or already gone
    }
}

/**
 * Removes the temporary files of writes of `output` (`.NAME.xxxxxxxx.tmp` beside it), whoever
 * started them: for a write on a thread that was stopped.
 */
export function removeTempFilesOf(output: string): void {
  const prefix = `.${basename(output)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(output));
  } catch {
    return; // the folder is gone: nothing to remove
  }
  // Exactly the names corskin gives them (`.NAME.` + 8 hex digits + `.tmp`), never a user's.
  for (const name of names)
    if (name.startsWith(prefix) && /^[0-9a-f]{8}\.tmp$/.test(name.slice(prefix.length)))
      rmSync(join(dirname(output), name), { recursive: true, force: true });
}

/**
 * A staging folder beside `output` (`.NAME.xxxxxxxx.tmp`, removed by a signal handler as a
 * temporary file is), for an output that is checked before it is kept: write it there under its
 * own name, read it back, then {@link keepStaged} or {@link removeStaged}.
 * @throws CorskinError naming `output` when its folder refuses it
 */
export function createStaging(output: string): string {
  const stage = join(dirname(output), `.${basename(output)}.${randomBytes(4).toString('hex')}.tmp`);
  trackTemporary(stage, true);
  try {
    mkdirSync(stage);
  } catch (e) {
    removeStaged(stage);
    throw new CorskinError(`cannot write: ${(e as Error).message}`, output, { cause: e });
  }
  return stage;
}

/**
 * Moves the staged `files` (paths in a folder from {@link createStaging}: the output first, then
 * its resources) into `folder`, each renamed in place (no partial file), the resources before
 * the output (a `.gltf` never names buffers that are not there yet); the caller then
 * {@link removeStaged}s the folder, as after a failure.
 * @throws CorskinError naming the file that could not be moved
 */
export function keepStaged(files: readonly string[], folder: string): void {
  for (const f of [...files.slice(1), files[0]]) {
    const to = join(folder, basename(f));
    try {
      renameSync(f, to);
    } catch (e) {
      throw new CorskinError(`cannot write: ${(e as Error).message}`, to, { cause: e });
    }
  }
}

/** Removes a folder from {@link createStaging} or {@link createTempFolder} and what is left in it. */
export function removeStaged(stage: string): void {
  rmSync(stage, { recursive: true, force: true });
  trackTemporary(stage, false);
}

/**
 * A new folder in the system's temporary folder (`os.tmpdir()`, named `prefix` + 6 characters)
 * for a tool's own files — Chromium's profile for `corskin render` — removed by a signal handler
 * as a temporary file is, and by {@link removeStaged} once done.
 * @throws as `mkdtempSync` when the temporary folder refuses it
 */
export function createTempFolder(prefix: string): string {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  trackTemporary(folder, true);
  return folder;
}

/** Marks `path` as a temporary file or folder being written (`active`) or no longer, here and for the observer. */
function trackTemporary(path: string, active: boolean): void {
  if (active) pendingTempFiles.add(path);
  else pendingTempFiles.delete(path);
  tempFileObserver?.(path, active, 'temporary');
}

/**
 * What a {@link observeTempFiles} observer is told of: a temporary file, an output a nested thread
 * writes, or a folder {@link makeFolder} made (removed on a stop if still empty).
 */
export type TempFileKind = 'temporary' | 'output-elsewhere' | 'new-folder';

/** Told of each temporary file (and each output written elsewhere) as its write starts and ends, when set. */
let tempFileObserver: ((path: string, active: boolean, kind: TempFileKind) => void) | undefined;

/**
 * Tells `observer` of every temporary file as its write starts and ends, and of every output a
 * nested thread writes (a parallel batch): for a CLI run on a worker thread, so the main thread,
 * which handles the signals, can remove them after stopping it.
 */
export function observeTempFiles(observer: (path: string, active: boolean, kind: TempFileKind) => void): void {
  tempFileObserver = observer;
}

/** Outputs that another thread is writing (a parallel batch): their temporary files too. */
const outputsWrittenElsewhere = new Set<string>();

/**
 * Marks `path` as being written by another thread (`writing` true) or no longer (false), so that
 * {@link removePendingTempFiles} in this thread also removes that write's temporary file.
 */
export function trackOutputWrittenElsewhere(path: string, writing: boolean): void {
  if (writing) outputsWrittenElsewhere.add(path);
  else outputsWrittenElsewhere.delete(path);
  tempFileObserver?.(path, writing, 'output-elsewhere');
}

/**
 * Writes `data` to `path` atomically (temporary file in the same folder, then rename).
 * @throws CorskinError naming `path` when the folder does not exist or is not writable
 */
export async function writeFileAtomic(path: string, data: Uint8Array | string): Promise<void> {
  return writeFilesAtomic([[path, data]]);
}

/**
 * Writes several files as one: each to a temporary file in its folder, then — only once all are
 * written — each renamed into place (a `.gltf` and its buffers and images: a stop or a failure
 * part-way leaves none of them, not resources without their JSON).
 * @throws CorskinError naming the path when a folder does not exist or is not writable
 */
export async function writeFilesAtomic(files: [path: string, data: Uint8Array | string][]): Promise<void> {
  const tmps = files.map(([path]) => join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`));
  for (const tmp of tmps) trackTemporary(tmp, true);
  let current = files[0]?.[0] ?? '';
  try {
    // Synchronous: a signal handler runs before or after the whole write and rename, never
    // while a file-system thread is still creating a temporary file.
    files.forEach(([path, data], k) => {
      current = path;
      writeFileSync(tmps[k], data);
    });
    files.forEach(([path], k) => {
      current = path;
      renameSync(tmps[k], path);
    });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const folder = dirname(resolve(current));
    const why =
      code === 'ENOENT'
        ? `its folder (${folder}) ${existsSync(folder) ? 'takes no new files' : 'does not exist'}`
        : code === 'ENOTDIR'
          ? 'a folder of the path is a file'
          : code === 'EACCES'
            ? 'permission denied'
            : (e as Error).message;
    throw new CorskinError(`cannot write: ${why}`, current, { cause: e });
  } finally {
    for (const tmp of tmps) {
      try {
        rmSync(tmp, { force: true });
      } catch {
        // never made (its folder is a file): nothing to remove
      }
      trackTemporary(tmp, false);
    }
  }
}

/**
 * The real path of `path` (symbolic links resolved; for a file that does not exist yet, its
 * folder's real path joined with its name).
 */
export function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    try {
      return join(realpathSync(dirname(resolve(path))), basename(path));
    } catch {
      return resolve(path);
    }
  }
}

/**
 * The real paths of a file and, for a `.gltf`, of the external resources its JSON names
 * (buffers and images; `data:` URIs excluded). A file that cannot be read or parsed is itself
 * only.
 */
export function inputFiles(path: string): string[] {
  const files = [realPathOf(path)];
  if (!/\.gltf$/i.test(path)) return files;
  try {
    for (const uri of externalUris(JSON.parse(readFileSync(path, 'utf8'))))
      files.push(realPathOf(join(dirname(path), decodeURIComponent(uri))));
  } catch {
    // Not readable JSON: reading it will say so.
  }
  return files;
}

/**
 * Refuses to write over an input file — or a `.gltf` input's buffers and images — or over a
 * read-only file unless the user asked for it. Paths are compared after resolving symbolic links.
 * Any other existing output is replaced (as `cp` and glTF-Transform's CLI do).
 * @throws CorskinError when `output` is (or resolves to) one of `inputs` or their resources, or
 *   is read-only, and `force` is false
 */
export function checkNotOverwritingInput(output: string, inputs: string[], force: boolean): void {
  if (force) return;
  const out = realPathOf(output);
  for (const input of inputs) {
    if (inputFiles(input).includes(out)) {
      throw new CorskinError(
        `output would overwrite ${realPathOf(input) === out ? 'the input' : `a resource of the input ${input}`}; pass --force to allow it`,
        output,
      );
    }
  }
  // A read-only output is the user's "do not replace" (a rename would replace it regardless).
  if (existsSync(output) && !writable(output))
    throw new CorskinError('output exists and is read-only; pass --force to replace it', output);
}

/** Whether anyone may write `path` by its mode bits (root may write anything: the bits say what the user meant). */
function writable(path: string): boolean {
  return (statSync(path).mode & 0o222) !== 0;
}

/**
 * Checks an output path before any work is done: its extension, that it is not a folder, and
 * that its folder exists.
 * @param extensions accepted endings, lower case with the dot (e.g. `['.glb', '.gltf']`)
 * @throws CorskinError naming the path otherwise
 */
export function checkOutputPath(path: string, extensions: readonly string[]): void {
  if (!extensions.some((e) => path.toLowerCase().endsWith(e)))
    throw new CorskinError(`output must end in ${extensions.join(', ').replace(/, ([^,]*)$/, ' or $1')}`, path);
  if (existsSync(path) && statSync(path).isDirectory()) throw new CorskinError('output is a folder', path);
  const folder = dirname(resolve(path));
  if (!existsSync(folder)) throw new CorskinError(`cannot write: its folder (${folder}) does not exist`, path);
  if (!statSync(folder).isDirectory()) throw new CorskinError(`cannot write: ${folder} is a file, not a folder`, path);
  try {
    accessSync(folder, constants.W_OK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new CorskinError(`cannot write: ${code === 'EROFS' ? 'read-only file system' : 'permission denied'} (its folder)`, path); // prettier-ignore
  }
}

/**
 * Makes folder `dir` and its missing parents, one at a time (Node's `mkdirSync(dir, { recursive:
 * true })` never returns where a parent refuses new entries with ENOENT, as under /proc); a folder
 * that another process makes meanwhile is fine. The folders made are removed again by a signal's
 * clean-up where they are still empty ({@link removeEmptyFolders}).
 * @param what the folder as the message names it (`the --out-dir folder`)
 * @throws CorskinError naming `dir`: a folder of the path is a file, or the system's reason
 */
export function makeFolder(dir: string, what = 'the folder'): void {
  const missing: string[] = [];
  for (let d = resolve(dir); !existsSync(d); d = dirname(d)) {
    missing.push(d);
    if (dirname(d) === d) break;
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d);
      madeFolders.add(d);
      tempFileObserver?.(d, true, 'new-folder');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' && statSync(d).isDirectory()) continue;
      const why =
        code === 'ENOTDIR' || code === 'EEXIST'
          ? 'a folder of the path is a file'
          : code === 'ENOENT'
            ? `${dirname(d)} takes no new folders`
            : (e as Error).message;
      throw new CorskinError(`cannot make ${what}: ${why}`, dir, { cause: e });
    }
  }
}
