/**
 * corskin/three/webgpu's patched node materials: WebGPURenderer shares one node graph — and the
 * textures baked into it — between render objects whose program cache keys agree, so each mesh's
 * own textures (its joint texture, its method's data) must make its key its own.
 */
import { DataTexture } from 'three';
import { MeshStandardNodeMaterial } from 'three/webgpu';
import { describe, expect, it } from 'vitest';
import { patchNodeMaterial } from '../src/three/nodes.js';

const options = (joints: DataTexture, ddm: DataTexture) => ({
  method: 'ddm' as const,
  influenceSets: 1,
  variant: 'full',
  jointTexture: joints,
  stretch: { value: 0 },
  textures: { corskinDdm: ddm },
});

describe('corskin/three/webgpu: program cache keys', () => {
  it('two skins with their own data textures get two keys; the same textures, one key', () => {
    const material = new MeshStandardNodeMaterial();
    const [joints, body, visor] = [new DataTexture(), new DataTexture(), new DataTexture()];
    const key = (ddm: DataTexture, j = joints) => patchNodeMaterial(material, options(j, ddm)).customProgramCacheKey();
    expect(key(body)).not.toBe(key(visor));
    expect(key(body, new DataTexture())).not.toBe(key(body));
    expect(key(body)).toBe(key(body));
  });
});

// Found by a new user following docs/three.md: `setSkinningTemplate` was documented for both
// renderers but only `corskin/three` exported it.
describe('corskin/three/webgpu: the per-object calls of docs/three.md', () => {
  it('exports the same setSkinningTemplate, setDeltaMushModel and isCageObject as corskin/three', async () => {
    const webgpu = await import('../src/three/nodes.js');
    const webgl = await import('../src/three/index.js');
    for (const name of ['setSkinningTemplate', 'setDeltaMushModel', 'isCageObject'] as const) {
      expect(typeof webgpu[name], name).toBe('function');
      expect(webgpu[name], name).toBe(webgl[name]);
    }
  });
});
