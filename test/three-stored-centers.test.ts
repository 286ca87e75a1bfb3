/**
 * Centers of rotation stored in a file, as `corskin/three` reads them: used as stored, and a
 * center that is not finite refused with the vertex named, as the CLI refuses it.
 */
import { join } from 'node:path';
import type * as THREE from 'three';
import { afterAll, describe, expect, it } from 'vitest';
import { skinningMethodOf, useSkinningMethod } from '../src/three/index.js';
import { runCli } from './helpers/cli.js';
import { loadInThree } from './helpers/three-playback.js';
import { CESIUM_MAN, scratch } from './helpers/data.js';

const tmp = scratch();
afterAll(() => tmp.cleanup());

describe('stored centers of rotation in three.js', () => {
  it('a center that is not finite is refused, naming the vertex; the mesh keeps its method', async () => {
    const out = join(tmp.dir, 'cesium-cor.glb');
    const r = await runCli('precompute', CESIUM_MAN, '-o', out);
    expect(r.code, r.stderr).toBe(0);
    const gltf = await loadInThree(out);
    let mesh: THREE.SkinnedMesh | undefined;
    gltf.scene.traverse((o) => {
      if ((o as THREE.SkinnedMesh).isSkinnedMesh) mesh = o as THREE.SkinnedMesh;
    });
    const centers = mesh!.geometry.getAttribute('_center_of_rotation');
    expect(centers.count).toBe(mesh!.geometry.getAttribute('position').count);
    await useSkinningMethod(gltf.scene, 'cor');
    expect(skinningMethodOf(mesh!)).toBe('cor');
    await useSkinningMethod(gltf.scene, 'dqs');
    centers.setY(1234, Number.NaN);
    await expect(useSkinningMethod(gltf.scene, 'cor')).rejects.toThrow(
      /_CENTER_OF_ROTATION of vertex 1234 is not finite: store the centers of rotation again with corskin precompute/,
    );
    expect(skinningMethodOf(mesh!)).toBe('dqs');
  });
});
