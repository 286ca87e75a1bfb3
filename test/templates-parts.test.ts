/**
 * A skin split into meshes (rpm-avatar: 9 primitives of one skin, as three.js loads them: one
 * SkinnedMesh each) gets one template rig: the parts merged give the glTF reader's merged mesh,
 * and each part's rig deforms the part exactly as the whole rig deforms those vertices; the whole
 * rig is recovered from the parts'.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { boundingBoxDiagonal, mergeSkinnedMeshes, type SkinnedMesh } from '../src/core/mesh.js';
import { skinningMatrices } from '../src/core/pose.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { samplePose } from '../src/core/animation.js';
import { buildTemplateRig } from '../src/methods/templates/rig.js';
import { joinTemplateRigParts, templateRigPart } from '../src/methods/templates/rig-parts.js';
import { createTemplateDeformer } from '../src/methods/templates/deformer.js';
import { SHARED } from './helpers/data.js';

describe('a skin split into meshes gets one template rig', () => {
  it('rpm-avatar: 9 parts merged as the reader merges them; each part deforms as its vertices of the whole', async () => {
    const file = join(SHARED, 'characters', 'rpm-avatar.glb');
    const document = await readDocument(file);
    const [model] = extractSkinnedModels(document, file);
    expect(model.parts.length).toBe(9);
    const whole = model.mesh;
    const K = whole.influences;
    // Each part as three.js holds it: its own vertices, triangles from 0, its influences.
    const parts: SkinnedMesh[] = model.parts.map((p) => ({
      positions: whole.positions.slice(3 * p.vertexOffset, 3 * (p.vertexOffset + p.vertexCount)),
      triangles: whole.triangles
        .slice(p.triangleOffset, p.triangleOffset + p.triangleLength)
        .map((t) => t - p.vertexOffset),
      influences: K,
      joints: whole.joints.slice(K * p.vertexOffset, K * (p.vertexOffset + p.vertexCount)),
      weights: whole.weights.slice(K * p.vertexOffset, K * (p.vertexOffset + p.vertexCount)),
    }));
    const merged = mergeSkinnedMeshes(parts);
    expect(merged.positions).toEqual(whole.positions);
    expect(merged.triangles).toEqual(whole.triangles);
    expect(merged.joints).toEqual(whole.joints);
    expect(merged.weights).toEqual(whole.weights);

    const rig = buildTemplateRig(merged, model.skeleton);
    expect(rig.limbs.length).toBeGreaterThan(3);
    const partRigs = model.parts.map((p) => templateRigPart(rig, p.vertexOffset, p.vertexCount));
    expect(partRigs.every((r) => r.cage === rig.cage && r.limbs === rig.limbs)).toBe(true);
    const back = joinTemplateRigParts(partRigs);
    expect(back.binding.indices).toEqual(rig.binding.indices);
    expect(back.binding.weights).toEqual(rig.binding.weights);

    const clip = model.animations[0];
    const S = skinningMatrices(model.skeleton, samplePose(model.skeleton, clip, 0.4 * clip.duration));
    const all = { positions: new Float32Array(whole.positions.length) };
    createTemplateDeformer(rig)(merged, S, all);
    let gap = 0;
    model.parts.forEach((p, k) => {
      const out = { positions: new Float32Array(parts[k].positions.length) };
      createTemplateDeformer(partRigs[k])(parts[k], S, out);
      for (let i = 0; i < out.positions.length; i++)
        gap = Math.max(gap, Math.abs(out.positions[i] - all.positions[3 * p.vertexOffset + i]));
    });
    console.log(`rpm-avatar, 9 parts: ${rig.limbs.length} limbs; parts vs the whole: ${gap.toExponential(1)}`);
    expect(gap).toBeLessThanOrEqual(1e-6 * boundingBoxDiagonal(whole.positions));
  }, 360_000);
});
