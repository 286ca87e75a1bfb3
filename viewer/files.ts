/**
 * The files a user gives the viewer at once — picked together, dropped together, or a dropped
 * folder (a Sketchfab download, Blender's "glTF Separate" export: a `.gltf` with its `.bin` and
 * textures beside it) — sorted into the glTF to load and the files its URIs name.
 *
 * @module
 */

/** A file given to the viewer, with its path within a dropped folder (its name alone otherwise). */
export interface GivenFile {
  /** `/`-separated, relative to what was dropped or picked: `scene.gltf`, `shiba/textures/a.png`. */
  path: string;
  /** The file's bytes (a `File` from the picker or the drop). */
  file: Blob;
}

/** Files a copy leaves beside the real ones: macOS's `._name` and `__MACOSX/`, `.DS_Store`. */
const isClutter = (path: string) => path.split('/').some((part) => part.startsWith('.') || part === '__MACOSX');

/**
 * The parts of the File and Directory Entries API (`DataTransferItem.webkitGetAsEntry`) that a
 * walk of a dropped folder reads.
 */
export interface EntryLike {
  isFile: boolean;
  isDirectory: boolean;
  name: string;
  file?(success: (f: File) => void, failure?: (e: unknown) => void): void;
  createReader?(): { readEntries(success: (entries: EntryLike[]) => void, failure?: (e: unknown) => void): void };
}

/**
 * Every file under `entries` (dropped files and folders), folders walked depth first, each with
 * its path from the dropped entry (`shiba/textures/a.png`).
 * @throws what the browser's entry API reports (a file that cannot be read)
 */
export async function walkEntries(entries: readonly EntryLike[], prefix = ''): Promise<GivenFile[]> {
  const out: GivenFile[] = [];
  for (const entry of entries) {
    const path = prefix + entry.name;
    if (entry.isFile && entry.file) {
      const file = await new Promise<File>((resolve, reject) => entry.file!(resolve, reject));
      out.push({ path, file });
    } else if (entry.isDirectory && entry.createReader) {
      const reader = entry.createReader();
      // readEntries gives a folder's entries in batches (Chromium: 100 at a time), then none.
      const children: EntryLike[] = [];
      for (;;) {
        const batch = await new Promise<EntryLike[]>((resolve, reject) => reader.readEntries(resolve, reject));
        if (batch.length === 0) break;
        children.push(...batch);
      }
      out.push(...(await walkEntries(children, `${path}/`)));
    }
  }
  return out;
}

export { externalUris } from '../src/io/glb-header.js';

/** A name ends in .glb or .gltf. */
const isModel = (path: string) => /\.(glb|gltf)$/i.test(path);

/**
 * The glTF to load among `files`: the one `.glb` or `.gltf`, or of several the one nearest the
 * top of the dropped folder (then by path); undefined when there is none.
 * @returns the file, and a note naming how many models were given when there were several
 */
export function pickModel(files: readonly GivenFile[]): { model: GivenFile; note?: string } | undefined {
  const models = files.filter((f) => isModel(f.path) && !isClutter(f.path));
  if (models.length === 0) return undefined;
  const depth = (f: GivenFile) => f.path.split('/').length;
  const [model] = [...models].sort((a, b) => depth(a) - depth(b) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    model,
    note: models.length > 1 ? `the first of the ${models.length} models given; one at a time` : undefined,
  };
}

/** A URI as a file path: percent-escapes decoded (as written where they are not valid). */
export function decodeUri(uri: string): string {
  try {
    return decodeURIComponent(uri);
  } catch {
    return uri;
  }
}

/** `a/./b/../c` → `a/c` (the parts of a relative path, resolved). */
function normalize(path: string): string {
  const parts: string[] = [];
  for (const p of path.split('/')) {
    if (p === '..') parts.pop();
    else if (p !== '.' && p !== '') parts.push(p);
  }
  return parts.join('/');
}

/**
 * Which given file each of the model's external URIs names: the file at the URI's path from the
 * model's folder, else the one file of that name, in any case, anywhere among them (a file picker
 * gives names without folders: `textures/a.png` is then `a.png`); a query or fragment is not part
 * of the name, a backslash is a folder separator, and copies' clutter (`._a.png`) never matches.
 * @param uris from {@link externalUris}, as the glTF writes them (percent-encoded)
 * @param modelPath the model's {@link GivenFile.path}
 * @returns the matched files by URI, and the URIs no given file matches (decoded, for messages)
 */
export function matchUris(
  uris: readonly string[],
  modelPath: string,
  files: readonly GivenFile[],
): { found: Map<string, GivenFile>; missing: string[] } {
  const folder = modelPath.includes('/') ? modelPath.slice(0, modelPath.lastIndexOf('/') + 1) : '';
  const real = files.filter((f) => !isClutter(f.path));
  const byPath = new Map(real.map((f) => [normalize(f.path), f]));
  const byName = new Map<string, GivenFile[]>();
  for (const f of real) {
    const name = f.path.slice(f.path.lastIndexOf('/') + 1).toLowerCase();
    byName.set(name, [...(byName.get(name) ?? []), f]);
  }
  const found = new Map<string, GivenFile>();
  const missing: string[] = [];
  for (const uri of uris) {
    // A query or fragment names no other file; Windows tools write backslashes.
    const decoded = decodeUri(uri.replace(/[?#].*$/, '')).replace(/\\/g, '/');
    const name = decoded.slice(decoded.lastIndexOf('/') + 1).toLowerCase();
    const sameName = byName.get(name) ?? [];
    const file = byPath.get(normalize(folder + decoded)) ?? (sameName.length === 1 ? sameName[0] : undefined);
    if (file) found.set(uri, file);
    else missing.push(decodeUri(uri));
  }
  return { found, missing };
}
