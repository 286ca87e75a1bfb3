/**
 * Conformance over every real character of ../shared/data/characters and CesiumMan: read,
 * precompute (no validator error the input did not have), CoRs against the brute-force Eq. 4,
 * LBS/DQS/CoR at several clip times against the independent reference of
 * helpers/skinning-reference.ts (every node channel, every JOINTS_n set, morph targets,
 * two-phase scale), and the input byte-identical afterwards.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Document } from '@gltf-transform/core';
import { samplePose } from '../src/core/animation.js';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { applyMorphTargets, sampleMorphWeights } from '../src/core/morph.js';
import { restPose, skinningMatrices } from '../src/core/pose.js';
import { computeCentersOfRotation } from '../src/cor/precompute.js';
import { deform } from '../src/deformers/index.js';
import { extractSkinnedModels, setCentersOfRotation, type SkinnedModel } from '../src/io/gltf.js';
import { readDocument, writeDocument } from '../src/io/node-io.js';
import { rng, scratch, SHARED } from './helpers/data.js';
import { validate } from './helpers/gltf.js';
import { percentile, referenceCenter, referenceDomain } from './helpers/reference.js';
import { referenceError, sampleScene } from './helpers/skinning-reference.js';

/** Each character with three times in its first clip. */
export const CHARACTERS: [string, number[]][] = [
  ['gltf/CesiumMan.glb', [0.3, 1.2, 1.9]],
  ['characters/Fox.glb', [0.2, 0.7, 1.5]],
  ['characters/ShibaInu.gltf', [0.1, 0.4, 0.9]],
  ['characters/Soldier.glb', [0.25, 0.9, 1.7]],
  ['characters/Ybot.glb', [0.5, 1.1, 2.3]],
  ['characters/chicken.glb', [0.1, 0.5, 0.8]],
  ['characters/rpm-avatar.glb', [0.4, 1.3, 2.8]],
  ['characters/skeleton.glb', [0.2, 0.6, 1.0]],
];

const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

describe.each(CHARACTERS)('%s', (file, times) => {
  const path = join(SHARED, file);
  const { dir, cleanup } = scratch();
  let before: string;
  let doc: Document;
  let models: SkinnedModel[];
  beforeAll(async () => {
    before = sha(path);
    doc = await readDocument(path);
    models = extractSkinnedModels(doc, path);
    for (const m of models)
      setCentersOfRotation(doc, m, computeCentersOfRotation(m.mesh).centers, { sigma: 0.1, epsilon: 0.1 });
  });
  afterAll(() => {
    cleanup();
    expect(sha(path)).toBe(before);
  });

  it('writes CoRs that add no validator error to the input', async () => {
    const out = join(dir, 'cor.glb');
    await writeDocument(doc, out);
    const codes = async (p: string) =>
      new Set((await validate(p)).issues.messages.filter((m) => m.severity === 0).map((m) => m.code));
    const input = await codes(path);
    const added = [...(await codes(out))].filter((c) => !input.has(c));
    expect(added).toEqual([]);
    const reread = extractSkinnedModels(await readDocument(out), out);
    expect(reread.every((m) => m.mesh.centersOfRotation)).toBe(true);
  });

  it('has CoRs within 1e-3 of the bounding-box diagonal of the brute-force Eq. 4 (p95 and max)', () => {
    const random = rng(7);
    // The largest skins, up to 4, 24 sampled blended vertices each.
    const largest = [...models].sort((a, b) => b.mesh.positions.length - a.mesh.positions.length).slice(0, 4);
    const errors: number[] = [];
    for (const m of largest) {
      const { mesh } = m;
      const K = mesh.influences;
      const n = mesh.positions.length / 3;
      const blended: number[] = [];
      for (let i = 0; i < n; i++) {
        const js = new Set<number>();
        for (let k = 0; k < K; k++) if (mesh.weights[K * i + k] > 0) js.add(mesh.joints[K * i + k]);
        if (js.size > 1) blended.push(i);
      }
      if (!blended.length) continue;
      const dom = referenceDomain(mesh, 0.1);
      const diag = boundingBoxDiagonal(mesh.positions);
      for (let s = 0; s < 24; s++) {
        const i = blended[Math.floor(random() * blended.length)];
        const ref = referenceCenter(mesh, dom, i, 0.1)!;
        const c = mesh.centersOfRotation!;
        errors.push(Math.hypot(c[3 * i] - ref[0], c[3 * i + 1] - ref[1], c[3 * i + 2] - ref[2]) / diag);
      }
    }
    expect(errors.length).toBeGreaterThan(0);
    expect(percentile(errors, 95)).toBeLessThanOrEqual(1e-3);
    expect(Math.max(...errors)).toBeLessThanOrEqual(1e-3);
  }, 360_000);

  it.each(['lbs', 'dqs', 'cor'] as const)(
    '%s at three clip times matches the independent reference within 1e-5 of the diagonal',
    (method) => {
      const random = rng(11);
      const anim = doc.getRoot().listAnimations();
      const clipName = anim.length ? anim[0].getName() || 'animation 0' : undefined;
      for (const time of times) {
        const scene = sampleScene(doc, anim.length ? 0 : undefined, time);
        let worst = 0;
        for (const model of models) {
          const clip = model.animations.find((c) => c.name === clipName);
          const pose = clip ? samplePose(model.skeleton, clip, time) : restPose(model.skeleton);
          const morph = sampleMorphWeights(model.morphGroups, clip?.morphChannels ?? [], time);
          const mesh = applyMorphTargets(model.mesh, model.morphGroups, morph);
          const ours = deform(method, mesh, skinningMatrices(model.skeleton, pose)).positions;
          worst = Math.max(worst, referenceError(model, ours, method, scene, boundingBoxDiagonal(ours), 3000, random));
        }
        expect(worst, `t = ${time} s`).toBeLessThan(1e-5);
      }
    },
    180_000,
  );
});
