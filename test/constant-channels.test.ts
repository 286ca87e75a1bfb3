/**
 * The input's constant channels stored as two keys (`io/constant-channels.ts`): on the Fox, whose
 * exporter keyed every scale and bone length at every frame, every joint's skinned pose at every
 * key time and half-way between stays within 1e-6 of the diagonal of the original's, each clip
 * keeps its length and the file validates; and on small synthetic channels, what collapses and
 * what does not (motion, a cubic spline, morph weights, an input shared with a moving channel).
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Document, type Accessor } from '@gltf-transform/core';
import { samplePose } from '../src/core/animation.js';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { skinningMatrices } from '../src/core/pose.js';
import { deformLbs } from '../src/deformers/lbs.js';
import { posedDiagonal } from '../src/bake/measure.js';
import { collapseConstantChannels, CONSTANT_CHANNEL_TOLERANCE } from '../src/io/constant-channels.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument, writeDocument } from '../src/io/node-io.js';
import { scratch, SHARED } from './helpers/data.js';
import { validate } from './helpers/gltf.js';

const tmp = scratch();
afterAll(() => tmp.cleanup());
const FOX = join(SHARED, 'characters', 'Fox.glb');

describe('constant channels stored as two keys', () => {
  it('the Fox: its scale channels and fixed bone lengths collapse, every pose within 1e-6 of the diagonal, clips as long, valid', async () => {
    const before = await readDocument(FOX);
    const after = await readDocument(FOX);
    const outputs = (d: Document) =>
      d
        .getRoot()
        .listAnimations()
        .flatMap((a) => a.listChannels());
    const moving = outputs(before).filter((c) => c.getSampler()!.getOutput()!.getCount() > 2);
    const size = posedDiagonal(extractSkinnedModels(before, FOX)[0], deformLbs);
    const { channels, bytes } = collapseConstantChannels(after, size);
    // Measured on the file: 23 scale channels (keys within 7.2e-7 of 1) and most bone-length translations.
    const scales = moving.filter((c) => c.getTargetPath() === 'scale').length;
    const collapsedScales = outputs(after).filter((c) => c.getTargetPath() === 'scale' && c.getSampler()!.getInput()!.getCount() === 2).length; // prettier-ignore
    expect(collapsedScales).toBe(scales);
    expect(channels).toBeGreaterThan(scales);
    const hip = outputs(after).find((c) => c.getTargetNode()!.getName() === 'b_Hip' && c.getTargetPath() === 'translation'); // prettier-ignore
    expect(hip!.getSampler()!.getInput()!.getCount()).toBeGreaterThan(2); // the hips travel
    // Every accessor the clips hold (keys and times), each once.
    const animationBytes = (d: Document) =>
      [...new Set(outputs(d).flatMap((c) => [c.getSampler()!.getInput()!, c.getSampler()!.getOutput()!]))].reduce(
        (t, a) => t + a.getArray()!.byteLength,
        0,
      );
    expect(animationBytes(before) - animationBytes(after)).toBe(bytes);
    expect(bytes / animationBytes(before)).toBeGreaterThan(0.3);

    const [original] = extractSkinnedModels(before, FOX);
    const [collapsed] = extractSkinnedModels(after, FOX);
    const n = original.mesh.positions.length / 3;
    const a = { positions: new Float32Array(3 * n) };
    const b = { positions: new Float32Array(3 * n) };
    let worst = 0;
    let diagonal = 0;
    original.animations.forEach((clip, k) => {
      expect(collapsed.animations[k].duration).toBe(clip.duration);
      for (let t = 0; t <= clip.duration; t += 0.02) {
        deformLbs(original.mesh, skinningMatrices(original.skeleton, samplePose(original.skeleton, clip, t)), a);
        deformLbs(collapsed.mesh, skinningMatrices(collapsed.skeleton, samplePose(collapsed.skeleton, collapsed.animations[k], t)), b); // prettier-ignore
        diagonal = Math.max(diagonal, boundingBoxDiagonal(a.positions));
        for (let i = 0; i < 3 * n; i += 3)
          worst = Math.max(worst, Math.hypot(a.positions[i] - b.positions[i], a.positions[i + 1] - b.positions[i + 1], a.positions[i + 2] - b.positions[i + 2])); // prettier-ignore
      }
    });
    console.log(`the Fox: ${channels} channels collapsed, ${bytes} of ${animationBytes(before)} bytes of keys and times; poses within ${(worst / diagonal).toExponential(1)} of the diagonal`); // prettier-ignore
    expect(worst).toBeGreaterThan(0); // rounding moved, not nothing
    expect(worst / diagonal).toBeLessThan(1e-6);

    const out = join(tmp.dir, 'fox-collapsed.glb');
    await writeDocument(after, out);
    expect((await validate(out)).issues.numErrors).toBe(0);
  });

  it('the Fox at other scales (its translations and its size ×0.01 and ×100): the same channels collapse', async () => {
    const fox = await readDocument(FOX);
    const size = posedDiagonal(extractSkinnedModels(fox, FOX)[0], deformLbs);
    const collapsedNodes = async (factor: number) => {
      const document = await readDocument(FOX);
      for (const animation of document.getRoot().listAnimations())
        for (const channel of animation.listChannels())
          if (channel.getTargetPath() === 'translation') {
            const output = channel.getSampler()!.getOutput()!;
            output.setArray(Float32Array.from(output.getArray() as Float32Array, (v) => v * factor));
          }
      collapseConstantChannels(document, size * factor);
      return document
        .getRoot()
        .listAnimations()
        .flatMap((a) => a.listChannels())
        .filter((c) => c.getSampler()!.getInput()!.getCount() === 2)
        .map((c) => `${c.getTargetNode()!.getName()} ${c.getTargetPath()}`);
    };
    const [small, same, large] = await Promise.all([0.01, 1, 100].map(collapsedNodes));
    expect(same.length).toBeGreaterThan(40);
    expect(small).toEqual(same);
    expect(large).toEqual(same);
  });

  it('synthetic channels: rounding collapses; motion, a drift, a far sway, cubic splines and morph weights do not; a shared input stays', () => {
    const document = new Document();
    const buffer = document.createBuffer();
    const accessor = (type: 'SCALAR' | 'VEC3' | 'VEC4', array: Float32Array): Accessor =>
      document.createAccessor().setType(type).setArray(array).setBuffer(buffer);
    const times = accessor('SCALAR', Float32Array.from([0, 0.5, 1, 1.5, 2]));
    const animation = document.createAnimation('clip');
    const scaled = document.createNode('scaled').setScale([0.01, 0.01, 0.01]);
    const add = (
      path: 'translation' | 'rotation' | 'scale' | 'weights',
      values: number[],
      type: 'VEC3' | 'VEC4' | 'SCALAR',
      interpolation: 'LINEAR' | 'STEP' | 'CUBICSPLINE' = 'LINEAR',
      input = times,
      parent?: typeof scaled,
    ) => {
      const node = document.createNode(path);
      parent?.addChild(node);
      const sampler = document.createAnimationSampler().setInput(input).setOutput(accessor(type, Float32Array.from(values))).setInterpolation(interpolation); // prettier-ignore
      animation.addSampler(sampler).addChannel(document.createAnimationChannel().setTargetNode(node).setTargetPath(path).setSampler(sampler)); // prettier-ignore
      return sampler;
    };
    const keys = [0, 1, 2, 3, 4];
    // The meshes' size 20: a translation's keys may lie 20 × the tolerance from the first.
    const size = 20;
    const bound = CONSTANT_CHANNEL_TOLERANCE * size;
    const rounded = add('translation', keys.flatMap((k) => [5 + (k % 2) * 0.5 * bound, 0, k % 2 ? -0.5 * bound : 0]), 'VEC3'); // prettier-ignore
    const step = add(
      'scale',
      Array.from({ length: 15 }, () => 1),
      'VEC3',
      'STEP',
    );
    const moving = add(
      'translation',
      keys.flatMap((k) => [5 + k * 1e-3, 0, 0]),
      'VEC3',
    );
    // Each key within the bound of the one before, the last 2.4 bounds from the first.
    const drift = add(
      'translation',
      keys.flatMap((k) => [5 + 0.6 * k * bound, 0, 0]),
      'VEC3',
    );
    // A root far from the origin swaying by 1.5e-6 of its distance (a fixed relative bound would lose it).
    const far = add(
      'translation',
      keys.flatMap((k) => [1000 + (k % 2) * 1.5e-3, 0, 0]),
      'VEC3',
    );
    // Under a parent scaled 0.01, the same bound in world units is 100× wider in the node's.
    const underScaled = add('translation', keys.flatMap((k) => [5 + (k % 2) * 50 * bound, 0, 0]), 'VEC3', 'LINEAR', times, scaled); // prettier-ignore
    const spin = add('rotation', keys.flatMap((k) => [0, Math.sin(k * 1e-4), 0, Math.cos(k * 1e-4)]), 'VEC4'); // prettier-ignore
    // A rotation component 1.5 tolerances off (relative to 1), a scale (3, 1, 1) 2 off its largest.
    const turned = add('rotation', keys.flatMap((k) => [0, (k % 2) * 1.5 * CONSTANT_CHANNEL_TOLERANCE, 0, 1]), 'VEC4'); // prettier-ignore
    const stretched = add('scale', keys.flatMap((k) => [3, 1 + (k % 2) * 4 * CONSTANT_CHANNEL_TOLERANCE, 1]), 'VEC3'); // prettier-ignore
    const cubic = add(
      'scale',
      Array.from({ length: 45 }, (_, k) => (k % 3 === 1 ? 1 : 0)),
      'VEC3',
      'CUBICSPLINE',
    );
    const weights = add('weights', [0.5, 0.5, 0.5, 0.5, 0.5], 'SCALAR');
    const shortTimes = accessor('SCALAR', Float32Array.from([0, 1]));
    const two = add('scale', [1, 1, 1, 1, 1, 1], 'VEC3', 'LINEAR', shortTimes);

    // Tolerance 0: only the exactly constant STEP scale. Its old keys (60 bytes) are disposed of,
    // its input is shared and stays; the two-key accessors take 8 + 24 bytes.
    const stepKeys = step.getOutput()!;
    const exact = collapseConstantChannels(document, size, 0);
    expect(exact).toEqual({ channels: 1, bytes: 60 - 32 });
    expect(Array.from(step.getInput()!.getArray()!)).toEqual([0, 2]);
    expect(stepKeys.isDisposed()).toBe(true);
    const result = collapseConstantChannels(document, size);
    expect(result.channels).toBe(2); // the rounded translation and the one under the scaled parent
    expect(Array.from(rounded.getInput()!.getArray()!)).toEqual([0, 2]);
    expect(Array.from(rounded.getOutput()!.getArray()!)).toEqual([5, 0, 0, 5, 0, 0]);
    expect(underScaled.getInput()!.getCount()).toBe(2);
    for (const sampler of [moving, drift, far, spin, turned, stretched, cubic, weights])
      expect(sampler.getInput()!.getCount()).toBe(5);
    expect(two.getInput()!.getCount()).toBe(2);
    expect(moving.getInput()).toBe(times); // still used: kept
    expect(times.isDisposed()).toBe(false);
    expect(() => collapseConstantChannels(document, size, -1)).toThrow(/≥ 0/);
    expect(() => collapseConstantChannels(document, 0)).toThrow(/size/);
  });
});
