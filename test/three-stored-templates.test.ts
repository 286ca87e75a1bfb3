/**
 * Stored template rigs found by `corskin/three` on a file whose skins share their joints (the
 * skeleton: 40 skins over the same 65 joints, two of them with a cage): each mesh gets the cage
 * written for its own skin, a mesh without a binding gets none, and the rig read in three.js
 * matches the one corskin reads from the document.
 */
import { join } from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import type * as THREE from 'three';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { afterAll, describe, expect, it } from 'vitest';
import { readTemplateRig } from '../src/methods/templates/storage.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { isCageObject, storedTemplateRig } from '../src/methods/templates/three.js';
import { useSkinningMethod } from '../src/three/index.js';
import { runCli } from './helpers/cli.js';
import { loadInThree } from './helpers/three-playback.js';
import { CESIUM_MAN, SHARED, scratch } from './helpers/data.js';

const tmp = scratch();
afterAll(() => tmp.cleanup());

describe('stored template rigs in three.js', () => {
  it('skins sharing their joints: each mesh finds its own cage, or none', async () => {
    const out = join(tmp.dir, 'skeleton-templates.glb');
    const r = await runCli('templates', 'build', join(SHARED, 'characters', 'skeleton.glb'), '-o', out);
    expect(r.code, r.stderr).toBe(0);
    const io = new NodeIO();
    const doc = await io.read(out);
    // corskin's own reading, per skin: the cage vertex count of each bound skin, by its first
    // primitive's vertex count and first position (to find the three.js mesh).
    const expected = new Map<string, number>();
    for (const model of extractSkinnedModels(doc, out)) {
      const rig = readTemplateRig(doc, model, out);
      for (const part of model.parts) {
        const p = part.primitive.getAttribute('POSITION')!;
        expected.set(`${p.getCount()}:${p.getElement(0, []).join(',')}`, rig ? rig.cage.positions.length / 3 : 0);
      }
    }
    expect([...expected.values()].filter((m) => m > 0).length).toBeGreaterThanOrEqual(2);
    for (const t of doc.getRoot().listTextures()) t.dispose();
    const bytes = await io.writeBinary(doc);
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    const gltf = await new Promise<GLTF>((res, rej) => new GLTFLoader().parse(buffer, '', res, rej));
    gltf.scene.updateMatrixWorld(true);
    const meshes: THREE.SkinnedMesh[] = [];
    gltf.scene.traverse((o) => {
      if ((o as THREE.SkinnedMesh).isSkinnedMesh && !isCageObject(o)) meshes.push(o as THREE.SkinnedMesh);
    });
    expect(meshes.length).toBe(expected.size);
    for (const mesh of meshes) {
      const p = mesh.geometry.getAttribute('position');
      const key = `${p.count}:${[p.getX(0), p.getY(0), p.getZ(0)].join(',')}`;
      const rig = storedTemplateRig(gltf.scene, mesh);
      expect(rig ? rig.cage.positions.length / 3 : 0, mesh.name).toBe(expected.get(key));
    }
  });

  it('useSkinningMethod hides the stored cage (rig data), and only it', async () => {
    const out = join(tmp.dir, 'cesium-templates.glb');
    const r = await runCli('templates', 'build', CESIUM_MAN, '-o', out);
    expect(r.code, r.stderr).toBe(0);
    const gltf = await loadInThree(out);
    const drawn = () => {
      const seen: { cage: boolean; visible: boolean }[] = [];
      gltf.scene.traverse((o) => {
        if (!(o as THREE.Mesh).isMesh) return;
        let visible = true;
        o.traverseAncestors((a) => (visible &&= a.visible));
        let cage = false;
        for (let a: THREE.Object3D | null = o; a; a = a.parent) cage ||= isCageObject(a);
        seen.push({ cage, visible: visible && o.visible });
      });
      return seen;
    };
    // As GLTFLoader gives it: the cage is a mesh drawn with the character.
    expect(drawn().filter((m) => m.cage && m.visible).length).toBeGreaterThan(0);
    await useSkinningMethod(gltf.scene, 'lbs');
    const after = drawn();
    expect(after.filter((m) => m.cage).every((m) => !m.visible)).toBe(true);
    expect(after.filter((m) => !m.cage).length).toBeGreaterThan(0);
    expect(after.filter((m) => !m.cage).every((m) => m.visible)).toBe(true);
  });
});
