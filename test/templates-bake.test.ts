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
import { applyMorphTargets, sampleMorphWeights } from '../src/core/morph.js';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { skinningMatrices } from '../src/core/pose.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { buildTemplateRig } from '../src/methods/templates/rig.js';
import { createTemplateDeformer } from '../src/methods/templates/deformer.js';
import { deform } from '../src/deformers/index.js';
import { runCli } from './helpers/cli.js';
import { CESIUM_MAN, SHARED, scratch } from './helpers/data.js';
import { validate } from './helpers/gltf.js';

const RPM_AVATAR = join(SHARED, 'characters', 'rpm-avatar.glb');
const CHICKEN = join(SHARED, 'characters', 'chicken.glb');
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

  it("a character with its own morph targets (rpm-avatar, animated and default weights): positions and normals match in three.js at the samples, the file's morphs still play", async () => {
    // A variant: the head's mouthOpen and jawOpen animated (LINEAR, 0 → 1 → 0) with mouthSmile at
    // 0.7 in the same channel; the teeth's jawOpen at 0.6 by default weight.
    const io = new NodeIO();
    const doc = await io.read(RPM_AVATAR);
    const node = (name: string) =>
      doc
        .getRoot()
        .listNodes()
        .find((n) => n.getName() === name)!;
    const [head, teeth] = [node('Wolf3D_Head'), node('Wolf3D_Teeth')];
    const names = (head.getMesh()!.getExtras() as { targetNames: string[] }).targetNames;
    const T = names.length;
    const [mouthOpen, jawOpen, smile] = ['mouthOpen', 'jawOpen', 'mouthSmile'].map((x) => names.indexOf(x));
    const animation = doc.getRoot().listAnimations()[0];
    const duration = Math.max(...animation.listSamplers().map((s) => s.getInput()!.getMax([0])[0]));
    const values = new Float32Array(3 * T);
    for (const [k, w] of [0, 1, 0].entries()) {
      values[k * T + mouthOpen] = w;
      values[k * T + jawOpen] = w;
      values[k * T + smile] = 0.7;
    }
    const buffer = doc.getRoot().listBuffers()[0];
    const sampler = doc
      .createAnimationSampler()
      .setInput(
        doc
          .createAccessor()
          .setType('SCALAR')
          .setArray(Float32Array.of(0, duration / 2, duration))
          .setBuffer(buffer),
      ) // prettier-ignore
      .setOutput(doc.createAccessor().setType('SCALAR').setArray(values).setBuffer(buffer))
      .setInterpolation('LINEAR');
    animation.addSampler(sampler).addChannel(doc.createAnimationChannel().setTargetNode(head).setTargetPath('weights').setSampler(sampler)); // prettier-ignore
    const teethWeights = new Array((teeth.getMesh()!.getExtras() as { targetNames: string[] }).targetNames.length).fill(0); // prettier-ignore
    teethWeights[jawOpen] = 0.6;
    teeth.setWeights(teethWeights);
    const input = join(tmp.dir, 'rpm-morphs.glb');
    await io.write(input, doc);

    const out = join(tmp.dir, 'rpm-baked.glb');
    const rate = 2;
    const r = await runCli('templates', 'build', input, '--bake', '--bake-rate', String(rate), '-o', out);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect((await validate(out)).issues.numErrors).toBe(0);

    const gltf = await loadInThree(out);
    const mixer = new THREE.AnimationMixer(gltf.scene);
    mixer.clipAction(gltf.animations[0]).play();
    const [model] = extractSkinnedModels(await readDocument(input), input);
    const { mesh, skeleton, parts } = model;
    const templates = createTemplateDeformer(buildTemplateRig(mesh, skeleton));
    const clip = model.animations[0];
    const F = Math.ceil(clip.duration * rate);
    const n = mesh.positions.length / 3;
    const diag = boundingBoxDiagonal(mesh.positions);
    const skinnedOf = parts.map((part) => {
      const name = model.meshNodes.find((m) => m.getMesh()!.listPrimitives().includes(part.primitive))!.getName();
      return gltf.scene.getObjectByName(name) as THREE.SkinnedMesh;
    });
    const [v, nrm, w] = [new THREE.Vector3(), new THREE.Vector3(), new THREE.Vector4()];
    const [m, bone, world] = [new THREE.Matrix4(), new THREE.Matrix4(), new THREE.Matrix3()];
    /** Largest position gap (of the diagonal) and normal angle (rad) between three.js and corskin's templates at time t. */
    const gap = (t: number, baked = true) => {
      mixer.setTime(t);
      gltf.scene.updateMatrixWorld(true);
      // Without the baked targets (the last F + 1 of each mesh): the file's morphs and LBS.
      if (!baked) for (const s of skinnedOf) s.morphTargetInfluences!.fill(0, s.morphTargetInfluences!.length - F - 1);
      const ours = { positions: new Float32Array(3 * n), normals: new Float32Array(3 * n) };
      const morphed = applyMorphTargets(mesh, model.morphGroups, sampleMorphWeights(model.morphGroups, clip.morphChannels!, t)); // prettier-ignore
      templates(morphed, skinningMatrices(skeleton, samplePose(skeleton, clip, t)), ours);
      let [position, angle] = [0, 0];
      parts.forEach((part, k) => {
        const s = skinnedOf[k];
        s.skeleton.update();
        world.getNormalMatrix(s.matrixWorld);
        const g = s.geometry;
        for (let i = 0; i < part.vertexCount; i++) {
          const o = 3 * (part.vertexOffset + i);
          s.getVertexPosition(i, v).applyMatrix4(s.matrixWorld);
          position = Math.max(position, Math.hypot(v.x - ours.positions[o], v.y - ours.positions[o + 1], v.z - ours.positions[o + 2])); // prettier-ignore
          // The normal as three.js's vertex shader makes it: morphed (relative), skinned, to world.
          nrm.fromBufferAttribute(g.attributes.normal, i);
          g.morphAttributes.normal?.forEach((a, j) => nrm.addScaledVector(v.fromBufferAttribute(a, i), s.morphTargetInfluences![j])); // prettier-ignore
          m.elements.fill(0);
          w.fromBufferAttribute(g.attributes.skinWeight as THREE.BufferAttribute, i);
          const idx = new THREE.Vector4().fromBufferAttribute(g.attributes.skinIndex as THREE.BufferAttribute, i);
          for (const c of [0, 1, 2, 3] as const) {
            bone.fromArray(s.skeleton.boneMatrices!, 16 * idx.getComponent(c));
            for (let e = 0; e < 16; e++) m.elements[e] += w.getComponent(c) * bone.elements[e];
          }
          m.premultiply(s.bindMatrixInverse).multiply(s.bindMatrix);
          nrm.transformDirection(m).applyMatrix3(world).normalize();
          const dot = nrm.x * ours.normals[o] + nrm.y * ours.normals[o + 1] + nrm.z * ours.normals[o + 2];
          angle = Math.max(angle, Math.acos(Math.min(1, dot)));
        }
      });
      return { position: position / diag, angle };
    };
    const samples = [3, 6, 12, 20].map((f) => (f / F) * clip.duration);
    const at = samples.map((t) => gap(t));
    const position = Math.max(...at.map((g) => g.position)), angle = Math.max(...at.map((g) => g.angle)); // prettier-ignore
    const lbs = gap(samples[1], false);
    console.log(`bake at ${rate}/s, rpm-avatar with its morphs playing: ${position.toExponential(1)} of the diagonal, normals within ${angle.toExponential(1)} rad at samples (without the baked targets: ${lbs.position.toExponential(1)}, ${lbs.angle.toExponential(1)} rad)`); // prettier-ignore
    expect(position).toBeLessThan(1e-5);
    expect(angle).toBeLessThan(1e-3);
    expect(lbs.position).toBeGreaterThan(1e-3);
    expect(lbs.angle).toBeGreaterThan(1e-2);
  });

  it("tangents (chicken.glb, 16 influences): TANGENT targets that an engine skinning the summed tangents linearly turns into the templates' tangents at the samples", async () => {
    // The engine's computation (glTF: morph, then skin by the blended matrix, normalise) done with
    // corskin's reader and LBS on the baked file, against the template deformer on the original.
    const out = join(tmp.dir, 'chicken-baked.glb');
    const rate = 5;
    const r = await runCli('templates', 'build', CHICKEN, '--bake', '--bake-rate', String(rate), '-o', out);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect((await validate(out)).issues.numErrors).toBe(0);
    const [model] = extractSkinnedModels(await readDocument(CHICKEN), CHICKEN);
    const [baked] = extractSkinnedModels(await readDocument(out), out);
    expect(model.mesh.tangents).toBeDefined();
    const templates = createTemplateDeformer(buildTemplateRig(model.mesh, model.skeleton));
    const n = model.mesh.positions.length / 3;
    const angles = (a: Float32Array, b: Float32Array) =>
      Array.from({ length: n }, (_, i) => {
        const [p, q] = [a.subarray(4 * i, 4 * i + 3), b.subarray(4 * i, 4 * i + 3)];
        const c = (p[0] * q[0] + p[1] * q[1] + p[2] * q[2]) / (Math.hypot(...p) * Math.hypot(...q));
        return Math.acos(Math.min(1, c));
      });
    let [worst, withoutTargets] = [0, 0];
    for (const [c, clip] of baked.animations.entries()) {
      const F = Math.max(1, Math.ceil(clip.duration * rate));
      for (const f of [1, Math.floor(F / 2)]) {
        const t = (f / F) * clip.duration;
        const S = skinningMatrices(baked.skeleton, samplePose(baked.skeleton, clip, t));
        const ours = { positions: new Float32Array(3 * n), normals: new Float32Array(3 * n), tangents: new Float32Array(4 * n) }; // prettier-ignore
        templates(
          model.mesh,
          skinningMatrices(model.skeleton, samplePose(model.skeleton, model.animations[c], t)),
          ours,
        );
        const weights = sampleMorphWeights(baked.morphGroups, clip.morphChannels ?? [], t);
        const engine = deform('lbs', applyMorphTargets(baked.mesh, baked.morphGroups, weights, false), S);
        worst = Math.max(worst, ...angles(engine.tangents!, ours.tangents));
        withoutTargets = Math.max(withoutTargets, ...angles(deform('lbs', baked.mesh, S).tangents!, ours.tangents));
      }
    }
    console.log(`bake at ${rate}/s, chicken: tangents within ${worst.toExponential(1)} rad of the templates' at samples (LBS alone: ${withoutTargets.toFixed(2)} rad)`); // prettier-ignore
    expect(worst).toBeLessThan(1e-3);
    expect(withoutTargets).toBeGreaterThan(1e-2);
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
