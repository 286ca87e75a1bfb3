/**
 * What reading a skin loads: the static module graph (as a bundler sees it) of reading a file
 * and extracting its skins holds the glTF formats and the core, and no method's code — no
 * templates, cage, CoR or deformer module (storage names come from the dependency-free
 * `io/schema.ts`). Of Direct Delta Mush only its storage, parameter check and mesh key are there: a file's stored DDM
 * data is read with the skin (`ddmModelOf(mesh)`) and its stored parameters are checked on reading.
 */
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/data.js';

/** The modules `entries` import statically (dynamic `import()`s, loaded on demand, not followed). */
async function graph(...entries: string[]): Promise<string[]> {
  const r = await build({
    entryPoints: entries,
    absWorkingDir: ROOT,
    bundle: true,
    write: false,
    outdir: 'out', // nothing is written
    metafile: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'silent',
  });
  const inputs = r.metafile.inputs;
  const seen = new Set<string>(entries);
  const stack = [...entries];
  while (stack.length)
    for (const i of inputs[stack.pop()!].imports)
      if (i.kind !== 'dynamic-import' && i.path in inputs && !seen.has(i.path)) {
        seen.add(i.path);
        stack.push(i.path);
      }
  return [...seen].filter((f) => f.startsWith('src/'));
}

describe('the module graph', () => {
  it('reading a skin (readDocument, extractSkinnedModels) loads no method code', async () => {
    const modules = await graph('src/io/node-io.ts', 'src/io/gltf.ts');
    expect(modules).toContain('src/io/schema.ts');
    const methods = modules.filter((f) => /^src\/(cage|cor|deformers|bake|three|evaluation)\//.test(f));
    expect(methods).toEqual([]);
    // Of the method modules, only Direct Delta Mush's storage (its attributes are read with the
    // skin), the parameter check of its stored parameters, and its key on the mesh.
    expect(modules.filter((f) => f.startsWith('src/methods/')).sort()).toEqual([
      'src/methods/ddm/data.ts',
      'src/methods/ddm/parameters.ts',
      'src/methods/ddm/storage.ts',
    ]);
    expect(modules.length).toBeLessThanOrEqual(21); // 42 before the schema module; 17 with the weight accessors in a file of their own; 18 with the disposal of unused accessors in one (io/unused.ts); 19 with the GLB header checks the viewer shares (io/glb-header.ts); 20 with the 16-bit weight rounding the bake shares (core/weight-quantization.ts); 21 with the writing helpers split from io/gltf.ts (io/gltf-write.ts)
  });

  it('the CLI starts without any method code either', async () => {
    const modules = await graph('src/cli/main.ts');
    const heavy = modules.filter((f) =>
      /^src\/(methods\/templates\/(?!parameters)|cor\/(?!parameters)|deformers\/(?!registry)|three|evaluation)\//.test(
        f,
      ),
    );
    expect(heavy).toEqual([]);
  });
});
