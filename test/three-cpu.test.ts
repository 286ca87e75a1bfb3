/**
 * `corskin/three` on the CPU (src/three/cpu.ts): a method without a GPU kernel — Delta Mush,
 * SBS, LMS, stretch skinning — is drawn by a posed stand-in mesh. In Node (three.js's GLTFLoader, no renderer: the
 * stand-in's frustum test, where it is posed, is called as a renderer calls it), the stand-in's positions at a clip
 * time are the method as corskin's own reader, pose and JavaScript deformer compute it then.
 */
import { NodeIO, type Transform } from '@gltf-transform/core';
import * as THREE from 'three';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { describe, expect, it } from 'vitest';
import { samplePose } from '../src/core/animation.js';
import { boundingBoxDiagonal, type SkinnedMesh } from '../src/core/mesh.js';
import { skinningMatrices } from '../src/core/pose.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { createDeltaMushDeformer } from '../src/methods/dm/deformer.js';
import type { Deformer } from '../src/deformers/contract.js';
import { deform } from '../src/deformers/index.js';
import { createStretchDeformer, stretchRigFromSkeleton } from '../src/deformers/stretch.js';
import { cpuStandIn, skeletonFromThree, useSkinningMethod, type ThreeSkinningMethod } from '../src/three/index.js';
import { THREE_METHODS } from '../src/deformers/registry.js';
import { stressPose } from '../src/evaluation/stress-pose.js';
import { CESIUM_MAN } from './helpers/data.js';
import { underRoot } from './helpers/gltf.js';
import { loadInThree } from './helpers/three-playback.js';

/**
 * The world positions of CesiumMan's stand-in under `method` (three.js's GLTFLoader, the clip at
 * `time`, the stand-in's frustum test called as WebGLRenderer calls it).
 */
async function standInPositions(
  method: ThreeSkinningMethod,
  parameters: Record<string, unknown>,
  time: number,
  variant?: Transform,
): Promise<Float32Array> {
  return (await posedStandIn(method, parameters, time, variant)).world;
}

/** {@link standInPositions}, with the stand-in itself. */
async function posedStandIn(
  method: ThreeSkinningMethod,
  parameters: Record<string, unknown>,
  time: number,
  variant?: Transform,
): Promise<{ world: Float32Array; standIn: THREE.Mesh }> {
  const io = new NodeIO();
  const doc = await io.read(CESIUM_MAN);
  if (variant) await doc.transform(variant);
  for (const t of doc.getRoot().listTextures()) t.dispose(); // no image decoding in Node
  const bytes = await io.writeBinary(doc);
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const gltf = await new Promise<GLTF>((res, rej) => new GLTFLoader().parse(buffer, '', res, rej));
  let mesh: THREE.SkinnedMesh | undefined;
  gltf.scene.traverse((o) => {
    if ((o as THREE.SkinnedMesh).isSkinnedMesh) mesh = o as THREE.SkinnedMesh;
  });
  if (time >= 0) {
    const mixer = new THREE.AnimationMixer(gltf.scene);
    mixer.clipAction(gltf.animations[0]).play();
    mixer.setTime(time);
  } else {
    // The evaluation's stress pose at amplitude −time, as the viewer poses it.
    const rotations = stressPose(skeletonFromThree(mesh!), -time).rotations;
    mesh!.skeleton.bones.forEach((b, j) => b.quaternion.fromArray(rotations, 4 * j));
  }
  gltf.scene.updateMatrixWorld(true);
  await useSkinningMethod(gltf.scene, method, { parameters });
  const standIn = cpuStandIn(mesh!)!;
  expect(standIn).toBeDefined();
  expect(mesh!.visible).toBe(false); // the stand-in is drawn in its place
  // What WebGLRenderer and WebGPURenderer do first with it in a frame: its frustum test (which poses it).
  expect(standIn.intersectsFrustum(new THREE.Frustum())).toBe(true);
  const local = standIn.geometry.getAttribute('position');
  const world = new Float32Array(3 * local.count);
  const v = new THREE.Vector3();
  for (let i = 0; i < local.count; i++)
    v.fromBufferAttribute(local, i)
      .applyMatrix4(standIn.matrixWorld)
      .toArray(world, 3 * i);
  return { world, standIn };
}

/** The positions `deformer` poses `mesh` at (skinning matrices S). */
function deformWith(deformer: Deformer, mesh: SkinnedMesh, S: Float64Array): Float32Array {
  const out = { positions: new Float32Array(mesh.positions.length) };
  deformer(mesh, S, out);
  return out.positions;
}

/** Largest distance between corresponding points, ÷ the bounding-box diagonal of `expected`. */
function relativeError(actual: Float32Array, expected: Float32Array): number {
  let worst = 0;
  for (let i = 0; i < expected.length; i += 3)
    worst = Math.max(
      worst,
      Math.hypot(actual[i] - expected[i], actual[i + 1] - expected[i + 1], actual[i + 2] - expected[i + 2]),
    );
  return worst / boundingBoxDiagonal(expected);
}

describe('corskin/three, a method on the CPU', () => {
  it.each([
    ['the defaults', {}],
    ['10 passes, step 0.7, length-weighted', { iterations: 10, step: 0.7, smoothing: 'length-weighted' }],
  ] as const)(
    'Delta Mush (%s) on CesiumMan: the stand-in is corskin’s Delta Mush at the clip time',
    async (_, parameters) => {
      const [model] = extractSkinnedModels(await new NodeIO().read(CESIUM_MAN), CESIUM_MAN);
      const time = 0.6 * model.animations[0].duration;
      const expected = { positions: new Float32Array(model.mesh.positions.length) };
      createDeltaMushDeformer(model.mesh, parameters)(
        model.mesh,
        skinningMatrices(model.skeleton, samplePose(model.skeleton, model.animations[0], time)),
        expected,
      );
      expect(relativeError(await standInPositions('dm', parameters, time), expected.positions)).toBeLessThan(1e-5);
    },
  );

  it.each(['sbs', 'lms', 'stretch'] as const)(
    '%s (no GPU kernel) on CesiumMan: the stand-in is corskin’s deformer at the clip time',
    async (method) => {
      const [model] = extractSkinnedModels(await new NodeIO().read(CESIUM_MAN), CESIUM_MAN);
      const time = 0.4 * model.animations[0].duration;
      const S = skinningMatrices(model.skeleton, samplePose(model.skeleton, model.animations[0], time));
      const { mesh, skeleton } = model;
      // stretch: the rig of the skeleton, every joint where bones meet compensated
      const expected =
        method === 'stretch'
          ? deformWith(createStretchDeformer(stretchRigFromSkeleton(skeleton)), mesh, S)
          : deform(method, mesh, S).positions;
      const actual = await standInPositions(method, {}, time);
      expect(relativeError(actual, expected)).toBeLessThan(1e-5);
      // and not DQS's (these methods differ from it where joints blend)
      expect(relativeError(actual, deform('dqs', model.mesh, S).positions)).toBeGreaterThan(1e-4);
    },
  );

  it.each(['sbs', 'lms', 'stretch'] as const)(
    '%s on CesiumMan under a mirroring node: the stand-in is the mirror image of the plain one',
    async (method) => {
      for (const time of [0.8, -1]) {
        const plain = await standInPositions(method, {}, time);
        const mirrored = await standInPositions(method, {}, time, underRoot({ scale: [-1, 1, 1] }));
        for (let i = 0; i < plain.length; i += 3) plain[i] = -plain[i];
        expect(relativeError(mirrored, plain), `${time}`).toBeLessThan(1e-5);
      }
    },
  );

  it('the stand-in of a mirrored mesh shows its outside: its triangles turn the way its posed normals point', async () => {
    // Posed in world space under the identity, a mirrored mesh's triangles would face inwards
    // (three.js turns them over only by the model matrix's determinant): drawn inside out.
    for (const variant of [undefined, underRoot({ scale: [-1, 1, 1] })]) {
      const { world, standIn } = await posedStandIn('sbs', {}, 0.8, variant);
      const index = standIn.geometry.getIndex()!;
      const normals = standIn.geometry.getAttribute('normal');
      let agree = 0;
      const [a, b, c, n, e, f] = Array.from({ length: 6 }, () => new THREE.Vector3());
      for (let k = 0; k < index.count; k += 3) {
        a.fromArray(world, 3 * index.getX(k));
        b.fromArray(world, 3 * index.getX(k + 1));
        c.fromArray(world, 3 * index.getX(k + 2));
        f.crossVectors(e.subVectors(b, a), n.subVectors(c, a));
        n.fromBufferAttribute(normals, index.getX(k));
        if (f.dot(n) > 0) agree++;
      }
      expect(agree / (index.count / 3), variant ? 'mirrored' : 'plain').toBeGreaterThan(0.95);
    }
  });

  it('a stand-in whose mesh is mirrored after the switch turns its triangles over on the next frame', async () => {
    const { world, standIn } = await posedStandIn('sbs', {}, 0.8);
    const root = standIn.parent!;
    const faced = (positions: Float32Array) => {
      const index = standIn.geometry.getIndex()!;
      const normals = standIn.geometry.getAttribute('normal');
      const [a, b, c, n, e, f] = Array.from({ length: 6 }, () => new THREE.Vector3());
      let agree = 0;
      for (let k = 0; k < index.count; k += 3) {
        a.fromArray(positions, 3 * index.getX(k));
        b.fromArray(positions, 3 * index.getX(k + 1));
        c.fromArray(positions, 3 * index.getX(k + 2));
        f.crossVectors(e.subVectors(b, a), n.subVectors(c, a));
        if (f.dot(n.fromBufferAttribute(normals, index.getX(k))) > 0) agree++;
      }
      return agree / (index.count / 3);
    };
    expect(faced(world)).toBeGreaterThan(0.95);
    // The character turned to face the other way by a mirroring parent, as a game may do.
    root.scale.x = -1;
    root.updateMatrixWorld(true);
    standIn.intersectsFrustum(new THREE.Frustum());
    const mirrored = Float32Array.from(standIn.geometry.getAttribute('position').array as Float32Array);
    expect(faced(mirrored)).toBeGreaterThan(0.95);
  });

  it('the stand-in is drawn under the identity even where three (r160–r165) gave it its parent’s world matrix', async () => {
    const { standIn } = await posedStandIn('sbs', {}, 0.8);
    const root = standIn.parent!;
    root.position.set(3, 0, 1);
    root.scale.setScalar(0.5);
    root.updateMatrixWorld(true);
    // What three r160's forced update did to every child, whatever its matrixWorldAutoUpdate.
    standIn.matrixWorld.multiplyMatrices(root.matrixWorld, standIn.matrix);
    expect(standIn.matrixWorld.equals(new THREE.Matrix4())).toBe(false);
    standIn.intersectsFrustum(new THREE.Frustum()); // the renderers' frustum test, before drawing
    expect(standIn.matrixWorld.equals(new THREE.Matrix4())).toBe(true);
  });

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

  it('a method corskin/three does not run (cage: CPU-only data; DQS: ids are lower case) is refused before any mesh changes', async () => {
    const gltf = await loadInThree(CESIUM_MAN);
    const children = () => {
      const all: THREE.Object3D[] = [];
      gltf.scene.traverse((o) => all.push(o));
      return all;
    };
    const before = children();
    for (const method of ['cage', 'DQS'])
      await expect(useSkinningMethod(gltf.scene, method as ThreeSkinningMethod)).rejects.toThrow(
        new RegExp(`runs no skinning method "${method}" \\(expected ${THREE_METHODS.join(', ')}\\)`),
      );
    expect(THREE_METHODS).not.toContain('cage');
    expect(children()).toEqual(before);
  });
});
