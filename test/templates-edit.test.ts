/**
 * Manual correction of a fitted template cage (Ju et al. 2008: the automatic fit is corrected by
 * hand): moving a cage vertex and binding the skin again, on the Fox. Independent expectations:
 * the build's own binding, the bind pose, undoing the move, and the winding-number test of skin
 * left outside.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { samplePose } from '../src/core/animation.js';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { bindJointPositions } from '../src/core/skeleton.js';
import { bindPoseSkinningMatrices, skinningMatrices } from '../src/core/pose.js';
import { extractSkinnedModels, type SkinnedModel } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { buildTemplateRig, rebindTemplateRig, templateSkinOutside, type TemplateRig } from '../src/templates/rig.js';
import { createTemplateDeformer } from '../src/templates/deformer.js';
import { moveTemplateCageVertex } from '../src/templates/edit.js';
import { SHARED } from './helpers/data.js';

let model: SkinnedModel;
let rig: TemplateRig;
let P: Float64Array;
beforeAll(async () => {
  const file = join(SHARED, 'characters/Fox.glb');
  [model] = extractSkinnedModels(await readDocument(file), file);
  rig = buildTemplateRig(model.mesh, model.skeleton);
  P = bindJointPositions(model.skeleton);
}, 60_000);

/** Max |a − b| over two deformations of the Fox by `rigs` at `S`, relative to the diagonal. */
function gap(a: TemplateRig, b: TemplateRig, S: Float64Array): number {
  const n = model.mesh.positions.length / 3;
  const x = { positions: new Float32Array(3 * n) };
  const y = { positions: new Float32Array(3 * n) };
  createTemplateDeformer(a)(model.mesh, S, x);
  createTemplateDeformer(b)(model.mesh, S, y);
  let d = 0;
  for (let i = 0; i < 3 * n; i++) d = Math.max(d, Math.abs(x.positions[i] - y.positions[i]));
  return d / boundingBoxDiagonal(model.mesh.positions);
}

/** A cage vertex of limb `l`'s middle bone template and its offset from the bone's axis (bind space). */
function boneVertex(r: TemplateRig, l: number): { v: number; radial: number[] } {
  const limb = r.limbs[l];
  const k = limb.roles.findIndex((x) => x.kind === 'bone' && x.index === Math.floor(limb.chain.length / 2));
  const a = Array.from(limb.axes.subarray(3 * limb.roles[k].index, 3 * limb.roles[k].index + 3));
  const local = limb.roles[k].local;
  const along = local[0] * a[0] + local[1] * a[1] + local[2] * a[2];
  return { v: limb.first + k, radial: local.map((x, c) => x - along * a[c]) };
}

/** A deep copy of a rig (moves edit the cage and roles in place). */
const copy = (r: TemplateRig): TemplateRig => structuredClone(r);

/** A copy of the rig with a middle bone-template vertex of a limb of 3+ joints moved by `fraction` of its radial offset. */
function movedCopy(fraction: number): { edited: TemplateRig; v: number; radial: number[] } {
  const edited = copy(rig);
  const { v, radial } = boneVertex(
    edited,
    edited.limbs.findIndex((x) => x.chain.length >= 3),
  );
  moveTemplateCageVertex(
    edited,
    v,
    radial.map((x) => fraction * x),
  );
  return { edited, v, radial };
}

describe('moving a template cage vertex and binding again', () => {
  it('binding the unedited cage again gives the build’s binding', () => {
    const again = rebindTemplateRig(copy(rig), model.mesh, P);
    expect(again.binding.influences).toBe(rig.binding.influences);
    expect(Array.from(again.binding.indices)).toEqual(Array.from(rig.binding.indices));
    expect(Array.from(again.binding.weights)).toEqual(Array.from(rig.binding.weights));
    expect(Array.from(again.linear)).toEqual(Array.from(rig.linear));
  });

  it('a vertex moved outwards: the bind pose stays exact, posed skin changes, moving it back restores the rig', () => {
    const { edited, v, radial } = movedCopy(0.3);
    const moved = rebindTemplateRig(edited, model.mesh, P);
    expect(gap(moved, rig, bindPoseSkinningMatrices(model.skeleton))).toBeLessThan(1e-5);
    const S = skinningMatrices(model.skeleton, samplePose(model.skeleton, model.animations[0], 0.7));
    const changed = gap(moved, rig, S);
    expect(changed).toBeGreaterThan(1e-5);
    expect(changed).toBeLessThan(0.05);
    moveTemplateCageVertex(
      moved,
      v,
      radial.map((x) => -0.3 * x),
    );
    const back = rebindTemplateRig(moved, model.mesh, P);
    expect(gap(back, rig, S)).toBeLessThan(1e-5);
  });

  it('a vertex moved inside the skin: the binding is refused, naming the skin left outside', () => {
    const { edited } = movedCopy(-0.95);
    expect(() => rebindTemplateRig(edited, model.mesh, P)).toThrow(/outside the cage/);
  });

  it('templateSkinOutside: none for the built rig; the bound skin a moved-in vertex leaves out, near it; none once moved back', () => {
    expect(templateSkinOutside(rig, model.mesh.positions)).toEqual([]);
    const { edited, v, radial } = movedCopy(-0.95);
    const outside = templateSkinOutside(edited, model.mesh.positions);
    expect(outside.length).toBeGreaterThan(0);
    // The refused binding names the same vertices first (its message lists the first five).
    expect(() => rebindTemplateRig(edited, model.mesh, P)).toThrow(new RegExp(`^.*${outside.length} skin vertex`));
    // Each lies closer to the moved cage vertex's rest place than the limb's bone template radius.
    const at = Array.from(rig.cage.positions.subarray(3 * v, 3 * v + 3));
    const radius = Math.hypot(radial[0], radial[1], radial[2]);
    for (const i of outside) {
      const x = model.mesh.positions.subarray(3 * i, 3 * i + 3);
      expect(Math.hypot(x[0] - at[0], x[1] - at[1], x[2] - at[2])).toBeLessThan(2 * radius);
    }
    moveTemplateCageVertex(
      edited,
      v,
      radial.map((x) => 0.95 * x),
    );
    expect(templateSkinOutside(edited, model.mesh.positions)).toEqual([]);
  });

  it('a vertex the cage lacks is a RangeError', () => {
    expect(() => moveTemplateCageVertex(copy(rig), rig.cage.positions.length / 3, [0, 0, 0])).toThrow(RangeError);
  });
});
