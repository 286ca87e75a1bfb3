/**
 * `corskin/three` on the CPU (src/three/cpu.ts): a method without a GPU kernel — Delta Mush — is
 * drawn by a posed stand-in mesh. In Node (three.js's GLTFLoader, no renderer: the stand-in's
 * per-frame hook is called as a renderer calls it), the stand-in's positions at a clip time are
 * Delta Mush as corskin's own reader, pose and JavaScript deformer compute it at that time.
 */
import { NodeIO } from '@gltf-transform/core';
import * as THREE from 'three';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { describe, expect, it } from 'vitest';
import { samplePose } from '../src/core/animation.js';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { skinningMatrices } from '../src/core/pose.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { createDeltaMushDeformer } from '../src/methods/dm/deformer.js';
import { cpuStandIn, useSkinningMethod } from '../src/three/index.js';
import { CESIUM_MAN } from './helpers/data.js';

describe('corskin/three, a method on the CPU', () => {
  it.each([
    ['the defaults', {}],
    ['10 passes, step 0.7, length-weighted', { iterations: 10, step: 0.7, smoothing: 'length-weighted' }],
  ] as const)(
    'Delta Mush (%s) on CesiumMan: the stand-in is corskin’s Delta Mush at the clip time',
    async (_, parameters) => {
      const io = new NodeIO();
      const doc = await io.read(CESIUM_MAN);
      const [model] = extractSkinnedModels(doc, CESIUM_MAN);
      const time = 0.6 * model.animations[0].duration;
      const expected = { positions: new Float32Array(model.mesh.positions.length) };
      createDeltaMushDeformer(model.mesh, parameters)(
        model.mesh,
        skinningMatrices(model.skeleton, samplePose(model.skeleton, model.animations[0], time)),
        expected,
      );

      for (const t of doc.getRoot().listTextures()) t.dispose(); // no image decoding in Node
      const bytes = await io.writeBinary(doc);
      const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
      const gltf = await new Promise<GLTF>((res, rej) => new GLTFLoader().parse(buffer, '', res, rej));
      const mixer = new THREE.AnimationMixer(gltf.scene);
      mixer.clipAction(gltf.animations[0]).play();
      mixer.setTime(time);
      gltf.scene.updateMatrixWorld(true);
      let mesh: THREE.SkinnedMesh | undefined;
      gltf.scene.traverse((o) => {
        if ((o as THREE.SkinnedMesh).isSkinnedMesh) mesh = o as THREE.SkinnedMesh;
      });
      await useSkinningMethod(gltf.scene, 'dm', { parameters });
      const standIn = cpuStandIn(mesh!)!;
      expect(standIn).toBeDefined();
      expect(mesh!.visible).toBe(false); // the stand-in is drawn in its place
      // what WebGLRenderer does before drawing it
      const renderer = { info: { render: { frame: 1 }, autoReset: true } } as unknown as THREE.WebGLRenderer;
      standIn.onBeforeRender(
        renderer,
        new THREE.Scene(),
        new THREE.Camera(),
        standIn.geometry,
        standIn.material as THREE.Material,
        null as never,
      );
      const local = standIn.geometry.getAttribute('position');
      const world = new THREE.Vector3();
      let worst = 0;
      for (let i = 0; i < local.count; i++) {
        world.fromBufferAttribute(local, i).applyMatrix4(standIn.matrixWorld);
        worst = Math.max(worst, world.distanceTo(new THREE.Vector3().fromArray(expected.positions, 3 * i)));
      }
      expect(worst / boundingBoxDiagonal(expected.positions)).toBeLessThan(1e-5);
    },
  );

  it('two switches in a row (the first still being prepared): one stand-in, the later switch’s', async () => {
    const io = new NodeIO();
    const doc = await io.read(CESIUM_MAN);
    for (const t of doc.getRoot().listTextures()) t.dispose();
    const bytes = await io.writeBinary(doc);
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    const gltf = await new Promise<GLTF>((res, rej) => new GLTFLoader().parse(buffer, '', res, rej));
    let mesh: THREE.SkinnedMesh | undefined;
    gltf.scene.traverse((o) => {
      if ((o as THREE.SkinnedMesh).isSkinnedMesh) mesh = o as THREE.SkinnedMesh;
    });
    const first = useSkinningMethod(gltf.scene, 'dm', { parameters: { iterations: 2 } });
    const second = useSkinningMethod(gltf.scene, 'dm', { parameters: { iterations: 9 } });
    await Promise.all([first, second]);
    const standIns = mesh!.parent!.children.filter((o) => o.name.endsWith('(dm, CPU)'));
    expect(standIns).toEqual([cpuStandIn(mesh!)]);
    expect(mesh!.visible).toBe(false);
  });
});
