/**
 * Manual correction of a fitted template cage (Ju et al. 2008: the automatic fit is corrected by
 * hand): moving a cage vertex and binding the skin again, on CesiumMan. Independent expectations:
 * the build's own binding, the bind pose, undoing the move, and the winding-number test of skin
 * left outside.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { stressPose } from '../src/evaluation/stress-pose.js';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { bindPoseSkinningMatrices, skinningMatrices } from '../src/core/pose.js';
import { extractSkinnedModels, type SkinnedModel } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { buildTemplateRig, rebindTemplateRig, type TemplateRig } from '../src/methods/templates/rig.js';
import { templateSkinOutside } from '../src/methods/templates/outside.js';
import { createTemplateDeformer } from '../src/methods/templates/deformer.js';
import { moveTemplateCageVertex } from '../src/methods/templates/edit.js';
import { CESIUM_MAN } from './helpers/data.js';

let model: SkinnedModel;
let rig: TemplateRig;
beforeAll(async () => {
  [model] = extractSkinnedModels(await readDocument(CESIUM_MAN), CESIUM_MAN);
  rig = buildTemplateRig(model.mesh, model.skeleton);
}, 180_000);

/** Max |a − b| over two deformations of CesiumMan by `rigs` at `S`, relative to the diagonal. */
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

/**
 * The bone-template cage vertex nearest to skin bound to its limb's cage (moving it in leaves that
 * skin outside) and its offset from its bone's axis (bind space).
 */
function boneVertex(r: TemplateRig): { v: number; radial: number[]; toSkin: number[] } {
  const X = model.mesh.positions;
  const { influences: k, indices, weights } = r.binding;
  let best = { d: Infinity, v: -1, radial: [0, 0, 0], toSkin: [0, 0, 0] };
  for (const limb of r.limbs)
    limb.roles.forEach((role, q) => {
      if (role.kind !== 'bone') return;
      const c = limb.first + q;
      for (let i = 0; i < X.length / 3; i++) {
        let bound = false; // to this limb's cage
        for (let s = k * i; s < k * i + k; s++)
          bound ||= weights[s] > 0 && indices[s] >= limb.first && indices[s] < limb.first + limb.roles.length;
        if (!bound) continue;
        const d = Math.hypot(X[3 * i] - r.cage.positions[3 * c], X[3 * i + 1] - r.cage.positions[3 * c + 1], X[3 * i + 2] - r.cage.positions[3 * c + 2]); // prettier-ignore
        if (d < best.d) {
          const a = Array.from(limb.axes.subarray(3 * role.index, 3 * role.index + 3));
          const along = role.local[0] * a[0] + role.local[1] * a[1] + role.local[2] * a[2];
          const toSkin = [0, 1, 2].map((m) => X[3 * i + m] - r.cage.positions[3 * c + m]);
          best = { d, v: c, radial: role.local.map((x, m) => x - along * a[m]), toSkin };
        }
      }
    });
  return best;
}

/** A deep copy of a rig (moves edit the cage and roles in place). */
const copy = (r: TemplateRig): TemplateRig => structuredClone(r);

/**
 * A copy of the rig with its bone-template vertex nearest to bound skin moved by `fraction` of its
 * radial offset (outwards), or, with `inside`, half as far again past that skin vertex.
 */
function movedCopy(fraction: number, inside = false): { edited: TemplateRig; v: number; delta: number[] } {
  const edited = copy(rig);
  const { v, radial, toSkin } = boneVertex(edited);
  const delta = inside ? toSkin.map((x) => 1.5 * x) : radial.map((x) => fraction * x);
  moveTemplateCageVertex(edited, v, delta);
  return { edited, v, delta };
}

describe('moving a template cage vertex and binding again', () => {
  it('binding the unedited cage again gives the build’s binding', () => {
    const again = rebindTemplateRig(copy(rig), model.mesh);
    expect(again.binding.influences).toBe(rig.binding.influences);
    expect(Array.from(again.binding.indices)).toEqual(Array.from(rig.binding.indices));
    // The shares come back from the stored weights' sums (float32): the same to rounding.
    again.binding.weights.forEach((w, s) => expect(Math.abs(w - rig.binding.weights[s])).toBeLessThan(1e-6));
  });

  it('a vertex moved outwards: the bind pose stays exact, posed skin changes, moving it back restores the rig', () => {
    const { edited, v, delta } = movedCopy(0.3);
    const moved = rebindTemplateRig(edited, model.mesh);
    expect(gap(moved, rig, bindPoseSkinningMatrices(model.skeleton))).toBeLessThan(1e-5);
    const S = skinningMatrices(model.skeleton, stressPose(model.skeleton, 0.5));
    const changed = gap(moved, rig, S);
    expect(changed).toBeGreaterThan(1e-5);
    expect(changed).toBeLessThan(0.05);
    moveTemplateCageVertex(
      moved,
      v,
      delta.map((x) => -x),
    );
    const back = rebindTemplateRig(moved, model.mesh);
    expect(gap(back, rig, S)).toBeLessThan(1e-5);
  });

  it('a vertex moved inside the skin: the binding is refused, naming the skin left outside', () => {
    const { edited } = movedCopy(0, true);
    expect(() => rebindTemplateRig(edited, model.mesh)).toThrow(/outside the cage/);
  });

  it('templateSkinOutside: none for the built rig; the bound skin a moved-in vertex leaves out, near it; none once moved back', () => {
    expect(templateSkinOutside(rig, model.mesh.positions)).toEqual([]);
    const { edited, v, delta } = movedCopy(0, true);
    const outside = templateSkinOutside(edited, model.mesh.positions);
    expect(outside.length).toBeGreaterThan(0);
    // The refused binding names the same vertices first (its message lists the first five).
    expect(() => rebindTemplateRig(edited, model.mesh)).toThrow(new RegExp(`^.*${outside.length} skin vertex`));
    // Each lies in the region the move swept: within the move's length plus the farthest cage
    // neighbour's distance of the moved vertex's rest place (its triangles are what moved).
    const c = rig.cage.positions;
    const at = Array.from(c.subarray(3 * v, 3 * v + 3));
    const length = Math.hypot(delta[0], delta[1], delta[2]);
    let reach = 0;
    const tri = rig.cage.triangles;
    for (let t = 0; t < tri.length; t += 3)
      if (tri[t] === v || tri[t + 1] === v || tri[t + 2] === v)
        for (let k = 0; k < 3; k++)
          reach = Math.max(
            reach,
            Math.hypot(c[3 * tri[t + k]] - at[0], c[3 * tri[t + k] + 1] - at[1], c[3 * tri[t + k] + 2] - at[2]),
          );
    for (const i of outside) {
      const x = model.mesh.positions.subarray(3 * i, 3 * i + 3);
      expect(Math.hypot(x[0] - at[0], x[1] - at[1], x[2] - at[2])).toBeLessThan(length + reach);
    }
    moveTemplateCageVertex(
      edited,
      v,
      delta.map((x) => -x),
    );
    expect(templateSkinOutside(edited, model.mesh.positions)).toEqual([]);
  });

  it('a vertex the cage lacks is a RangeError', () => {
    expect(() => moveTemplateCageVertex(copy(rig), rig.cage.positions.length / 3, [0, 0, 0])).toThrow(RangeError);
  });
});
