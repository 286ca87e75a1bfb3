/**
 * A baked glTF played by three.js's stock GLTFLoader + AnimationMixer, with no corskin code: the
 * skinned vertices (morph targets, then skinning, then the mesh's world matrix) as three.js
 * computes them on the CPU (`SkinnedMesh.getVertexPosition` applies the mixer-driven
 * `morphTargetInfluences` and the bones), in corskin's vertex order (the skin's primitives in the
 * order `extractSkinnedModels` merges them). Works for any baked file: morph targets or helper
 * joints (three.js skins 4 influences, JOINTS_0/WEIGHTS_0).
 */
import { NodeIO } from '@gltf-transform/core';
import { KHRMeshQuantization } from '@gltf-transform/extensions';
import * as THREE from 'three';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import type { SkinnedModel } from '../../src/io/gltf.js';
import { quietLogger } from '../../src/io/gltf-write.js';
import { linearBlendVertex } from '../../src/three/geometry.js';

/**
 * The file in three.js (textures dropped first: GLTFLoader needs a DOM for images; its quantized
 * attributes kept, as GLTFLoader reads KHR_mesh_quantization).
 */
export async function loadInThree(path: string): Promise<GLTF> {
  const io = new NodeIO().registerExtensions([KHRMeshQuantization]).setLogger(quietLogger);
  const doc = await io.read(path);
  for (const t of doc.getRoot().listTextures()) t.dispose();
  const bytes = await io.writeBinary(doc);
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  return new Promise((resolve, reject) => new GLTFLoader().parse(buffer, '', resolve, reject));
}

/**
 * A player of `path` in three.js: `positions(clip, t)` poses the scene with the mixer at time t
 * of the clip (its name, or its index in the file) and returns the positions of `model`'s vertices (`model` read by corskin from
 * the same file: its parts name the primitives), world space.
 * @param every skin every influence of a vertex as corskin/three reads them from the geometry
 *   (`linearBlendVertex`) instead of three's first 4
 */
export async function threePlayer(
  path: string,
  model: SkinnedModel,
  every = false,
): Promise<{ positions: (clip: string | number, t: number) => Float32Array }> {
  const gltf = await loadInThree(path);
  const mixer = new THREE.AnimationMixer(gltf.scene);
  // Each part: the three.js SkinnedMesh of its node (primitives of a multi-primitive mesh are
  // children named after the node, in primitive order).
  const meshes = model.parts.map((part) => {
    const node = model.meshNodes.find((m) => m.getMesh()!.listPrimitives().includes(part.primitive))!;
    const k = node.getMesh()!.listPrimitives().indexOf(part.primitive);
    const found: THREE.SkinnedMesh[] = [];
    gltf.scene.getObjectByName(node.getName())?.traverse((o) => {
      if ((o as THREE.SkinnedMesh).isSkinnedMesh) found.push(o as THREE.SkinnedMesh);
    });
    if (!found[k]) throw new Error(`no three.js skinned mesh for ${node.getName()} primitive ${k}`);
    return found[k];
  });
  const n = model.mesh.positions.length / 3;
  const v = new THREE.Vector3();
  return {
    positions(clip, t) {
      mixer.stopAllAction();
      const animation = typeof clip === 'number' ? gltf.animations[clip] : gltf.animations.find((a) => a.name === clip);
      if (!animation) throw new Error(`no clip ${clip} in three.js`);
      // Played once and held at its end, so that t = duration is the clip's last pose (looping, the
      // mixer would wrap it to the first).
      const action = mixer.clipAction(animation).setLoop(THREE.LoopOnce, 1);
      action.clampWhenFinished = true;
      action.play();
      mixer.setTime(t);
      gltf.scene.updateMatrixWorld(true);
      const out = new Float32Array(3 * n);
      model.parts.forEach((part, k) => {
        const s = meshes[k];
        s.skeleton.update();
        const all = every ? linearBlendVertex(s) : undefined;
        for (let i = 0; i < part.vertexCount; i++) {
          (all ? all(i, v) : s.getVertexPosition(i, v)).applyMatrix4(s.matrixWorld);
          out.set([v.x, v.y, v.z], 3 * (part.vertexOffset + i));
        }
      });
      return out;
    },
  };
}
