/**
 * `corskin templates build --bake`: the templates baked over CesiumMan's walk into a standard
 * glTF (corrective morph targets on LBS, a weights channel per clip), played by three.js's stock
 * GLTFLoader + AnimationMixer (no corskin code), match corskin's template deformation at the
 * sampled times; between samples the error is measured; bad requests are clear errors.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import * as THREE from 'three';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { afterAll, describe, expect, it } from 'vitest';
import { samplePose } from '../src/core/animation.js';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { skinningMatrices } from '../src/core/pose.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { buildTemplateRig, createTemplateDeformer } from '../src/templates/rig.js';
import { runCli } from './helpers/cli.js';
import { CESIUM_MAN, scratch } from './helpers/data.js';
import { validate } from './helpers/gltf.js';

const tmp = scratch();
afterAll(() => tmp.cleanup());

/** The file in three.js (textures dropped first: GLTFLoader needs a DOM for images). */
async function loadInThree(path: string): Promise<GLTF> {
  const io = new NodeIO();
  const doc = await io.read(path);
  for (const t of doc.getRoot().listTextures()) t.dispose();
  const bytes = await io.writeBinary(doc);
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  return new Promise((resolve, reject) => new GLTFLoader().parse(buffer, '', resolve, reject));
}

describe('corskin templates build --bake', () => {
  it('plays in three.js (GLTFLoader + AnimationMixer) as corskin deforms with the templates at the sampled times', async () => {
    const out = join(tmp.dir, 'cesium-baked.glb');
    const rate = 30;
    const r = await runCli('templates', 'build', CESIUM_MAN, '--bake', '--bake-rate', String(rate), '-o', out);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toMatch(/61 morph targets/); // the 2 s walk: 61 samples at 30/s
    expect((await validate(out)).issues.numErrors).toBe(0);
    const baked = await new NodeIO().read(out);
    expect(
      baked
        .getRoot()
        .listNodes()
        .some((n) => 'corskinCage' in (n.getExtras() ?? {})),
    ).toBe(false); // a standard glTF

    const gltf = await loadInThree(out);
    let skinned: THREE.SkinnedMesh | undefined;
    gltf.scene.traverse((o) => {
      if ((o as THREE.SkinnedMesh).isSkinnedMesh) skinned = o as THREE.SkinnedMesh;
    });
    const mixer = new THREE.AnimationMixer(gltf.scene);
    mixer.clipAction(gltf.animations[0]).play();

    const [model] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
    const { mesh, skeleton } = model;
    const templates = createTemplateDeformer(buildTemplateRig(mesh, skeleton));
    const clip = model.animations[0];
    const n = mesh.positions.length / 3;
    const diag = boundingBoxDiagonal(mesh.positions);
    const v = new THREE.Vector3();
    /** Largest distance between three.js's vertices (world space) and corskin's template result at time t. */
    const gap = (t: number, morphs = true) => {
      mixer.setTime(t);
      gltf.scene.updateMatrixWorld(true);
      skinned!.skeleton.update();
      if (!morphs) skinned!.morphTargetInfluences!.fill(0);
      const ours = { positions: new Float32Array(3 * n) };
      templates(mesh, skinningMatrices(skeleton, samplePose(skeleton, clip, t)), ours);
      let e = 0;
      for (let i = 0; i < n; i++) {
        skinned!.getVertexPosition(i, v).applyMatrix4(skinned!.matrixWorld);
        e = Math.max(e, Math.hypot(v.x - ours.positions[3 * i], v.y - ours.positions[3 * i + 1], v.z - ours.positions[3 * i + 2])); // prettier-ignore
      }
      return e / diag;
    };
    const F = Math.ceil(clip.duration * rate);
    const samples = [3, 17, 30, 44, 58].map((f) => (f / F) * clip.duration);
    const atSamples = Math.max(...samples.map((t) => gap(t)));
    const lbsOnly = Math.max(...samples.map((t) => gap(t, false)));
    const between = Math.max(...samples.map((t) => gap(t + (0.5 / F) * clip.duration)));
    console.log(
      `bake at ${rate}/s, CesiumMan: three.js vs corskin templates ${atSamples.toExponential(1)} of the diagonal at samples, ${between.toExponential(1)} half-way between; LBS alone ${lbsOnly.toExponential(1)}`,
    );
    expect(atSamples).toBeLessThan(1e-5); // float32 targets
    expect(lbsOnly).toBeGreaterThan(1e-3); // the targets do something
    expect(between).toBeLessThan(1e-3); // measured 2.1e-4 at 30 samples/s
  });

  it('a file without animation: a clear message, exit code 1, no output file', async () => {
    const still = join(tmp.dir, 'still.glb');
    const io = new NodeIO();
    const doc = await io.read(CESIUM_MAN);
    for (const a of doc.getRoot().listAnimations()) a.dispose();
    await io.write(still, doc);
    const out = join(tmp.dir, 'still-baked.glb');
    const r = await runCli('templates', 'build', still, '--bake', '-o', out);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no animation to bake/);
    expect(existsSync(out)).toBe(false);
  });
});
