/**
 * The viewer's sorting of the files a user gives it at once (viewer/files.ts): a dropped folder
 * walked (the File and Directory Entries API, faked here: readEntries in batches), the model
 * picked among them, and a `.gltf`'s URIs matched to the files — checked against what
 * glTF-Transform writes for a real character saved as a `.gltf` with separate files.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createIO } from '../src/io/node-io.js';
import { externalUris, matchUris, pickModel, walkEntries, type EntryLike, type GivenFile } from '../viewer/files.js';
import { CESIUM_MAN, scratch, SHARED } from './helpers/data.js';

/** A fake entry tree: a folder's children come back from readEntries two at a time. */
function entry(name: string, children?: EntryLike[]): EntryLike {
  if (!children) return { isFile: true, isDirectory: false, name, file: (ok) => ok(new File([name], name)) };
  return {
    isFile: false,
    isDirectory: true,
    name,
    createReader: () => {
      let next = 0;
      return { readEntries: (ok) => ok(children.slice(next, (next += 2))) };
    },
  };
}

const given = (...paths: string[]): GivenFile[] => paths.map((path) => ({ path, file: new Blob([path]) }));

/** Every file under `dir`, with its path from `dir`. */
function listFiles(dir: string, root = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? listFiles(join(dir, d.name), root) : [relative(root, join(dir, d.name))],
  );
}

describe('the files given to the viewer', () => {
  const tmp = scratch();

  it('walks a dropped folder, every batch of every subfolder, with paths from the dropped entry', async () => {
    const tree = entry('shiba', [
      entry('scene.gltf'),
      entry('scene.bin'),
      entry('textures', [entry('a.png'), entry('b.png'), entry('c.png')]),
      entry('license.txt'),
    ]);
    const files = await walkEntries([tree, entry('other.glb')]);
    expect(files.map((f) => f.path)).toEqual([
      'shiba/scene.gltf',
      'shiba/scene.bin',
      'shiba/textures/a.png',
      'shiba/textures/b.png',
      'shiba/textures/c.png',
      'shiba/license.txt',
      'other.glb',
    ]);
    expect(await files[2].file.text()).toBe('a.png');
  });

  it('a file the browser cannot read rejects the walk with its error', async () => {
    const bad: EntryLike = {
      isFile: true,
      isDirectory: false,
      name: 'x.bin',
      file: (_, fail) => fail?.(new Error('NotReadableError')),
    };
    await expect(walkEntries([entry('d', [bad])])).rejects.toThrow('NotReadableError');
  });

  it('picks the model nearest the top of the folder, and says when there were several', () => {
    expect(pickModel(given('a.png', 'b.bin'))).toBeUndefined();
    expect(pickModel(given('x/scene.bin', 'x/scene.gltf'))).toEqual({
      model: given('x/scene.gltf')[0],
      note: undefined,
    });
    const several = pickModel(given('d/sub/z.glb', 'd/b.GLTF', 'd/a.glb'))!;
    expect(several.model.path).toBe('d/a.glb');
    expect(several.note).toBe('the first of the 3 models given; one at a time');
  });

  it('finds every file a real character saved as .gltf names, by path in its folder or by name alone', async () => {
    // CesiumMan written as .gltf + .bin + texture, the texture in a subfolder with a space in its name (percent-encoded in the URI, as Blender writes it).
    const io = await createIO();
    const doc = await io.read(CESIUM_MAN);
    const textures = doc.getRoot().listTextures();
    expect(textures.length).toBeGreaterThan(0);
    textures.forEach((t, k) => t.setURI(`textures/skin%20${k}.${t.getMimeType() === 'image/png' ? 'png' : 'jpg'}`));
    const dir = join(tmp.dir, 'cesium');
    mkdirSync(dir);
    await io.write(join(dir, 'cesium.gltf'), doc);
    const json = JSON.parse(readFileSync(join(dir, 'cesium.gltf'), 'utf8'));
    const uris = externalUris(json);
    const written = listFiles(dir).filter((f) => f !== 'cesium.gltf');
    // Every file written beside the .gltf is named once, and nothing else.
    expect(uris.map(decodeURIComponent).sort()).toEqual(written.sort());
    expect(uris.some((u) => u.includes('%20'))).toBe(true);

    // A dropped folder: matched by path.
    const folder = given(...['cesium.gltf', ...written].map((f) => `download/${f}`));
    const byPath = matchUris(uris, 'download/cesium.gltf', folder);
    expect(byPath.missing).toEqual([]);
    for (const uri of uris) expect(byPath.found.get(uri)?.path).toBe(`download/${decodeURIComponent(uri)}`);

    // Picked together (names without folders): matched by name.
    const flat = given(...written.map((f) => f.slice(f.lastIndexOf('/') + 1)));
    expect(matchUris(uris, 'cesium.gltf', flat).missing).toEqual([]);

    // The texture left out: named, decoded.
    const noTexture = flat.filter((f) => !f.path.endsWith('.png') && !f.path.endsWith('.jpg'));
    expect(matchUris(uris, 'cesium.gltf', noTexture).missing).toEqual(written.filter((f) => f.startsWith('textures/')));
  });

  it('a path wins over a name; two files of the same name elsewhere match neither', () => {
    const files = given('m/scene.gltf', 'm/tex/a.png', 'm/other/a.png', 'm/x/b.png', 'm/y/b.png');
    const { found, missing } = matchUris(['tex/a.png', 'b.png', './tex/../tex/a.png'], 'm/scene.gltf', files);
    expect(found.get('tex/a.png')?.path).toBe('m/tex/a.png');
    expect(found.get('./tex/../tex/a.png')?.path).toBe('m/tex/a.png');
    expect(missing).toEqual(['b.png']);
  });

  it('copies’ clutter is neither the model nor a match; a query, a backslash or a name’s case does not hide a file', () => {
    const files = given('m/._scene.gltf', 'm/scene.gltf', '__MACOSX/m/._a.png', 'm/tex/Skin.PNG', 'm/scene.bin');
    expect(pickModel(files)?.model.path).toBe('m/scene.gltf');
    const { found, missing } = matchUris(['scene.bin?v=2', 'tex\\skin.png', 'a.png'], 'm/scene.gltf', files);
    expect(found.get('scene.bin?v=2')?.path).toBe('m/scene.bin');
    expect(found.get('tex\\skin.png')?.path).toBe('m/tex/Skin.PNG');
    expect(missing).toEqual(['a.png']); // only macOS's ._a.png was given
  });

  it('a .gltf with embedded buffers and images names no other file (ShibaInu)', () => {
    const json = JSON.parse(readFileSync(join(SHARED, 'characters/ShibaInu.gltf'), 'utf8'));
    expect(json.buffers.length).toBeGreaterThan(0);
    expect(externalUris(json)).toEqual([]);
  });
});
