/**
 * Drawn key poses (template library version 2): the editor's vertex drag moves the dragged cage
 * vertex by exactly the drag at the key pose and nothing at the rest pose, stays local, blends in
 * between, and the saved template, read back from its JSON, acts on a 1.5× thicker arm scaled by
 * the thicker cage's radius (the paper's transfer of a template to another character).
 */
import { describe, expect, it } from 'vitest';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { bindPoseSkinningMatrices, skinningMatrices } from '../src/core/pose.js';
import { bindJointPositions } from '../src/core/skeleton.js';
import { bendPose } from '../src/evaluation/standard-poses.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { mirroredDesignVertex } from '../src/methods/templates/design.js';
import { DEFAULT_TEMPLATE_LIBRARY, parseTemplateLibrary, withTemplates } from '../src/methods/templates/library.js';
import { buildTemplateRig, type TemplateRig } from '../src/methods/templates/rig.js';
import { dragTemplateKeyPose, setBoneTemplate } from '../src/methods/templates/edit.js';
import { poseTemplates } from '../src/methods/templates/pose.js';
import { ARM_GLB } from './helpers/data.js';
import { secondKeyWeight, thickerAcrossChain } from './helpers/templates.js';

const deg = Math.PI / 180;
/** A bend about the elbow's z axis that bends the forearm about half as far as 90° does. */
const HALF = 70;
const cage = (rig: TemplateRig, S: Float64Array) => poseTemplates(rig, S, new Float64Array(rig.cage.positions.length));
const at = (p: ArrayLike<number>, v: number) => [p[3 * v], p[3 * v + 1], p[3 * v + 2]];
const sub = (a: number[], b: number[]) => a.map((x, k) => x - b[k]);
const norm = (a: number[]) => Math.hypot(a[0], a[1], a[2]);

async function arm() {
  const [model] = extractSkinnedModels(await readDocument(ARM_GLB), ARM_GLB);
  const j = (name: string) => model.skeleton.jointNames.indexOf(name);
  const pose = (degrees: number) => skinningMatrices(model.skeleton, bendPose(model.skeleton, j('bone2'), [0, 0, 1], degrees * deg)); // prettier-ignore
  const P = bindJointPositions(model.skeleton);
  /** The forearm's bend at skinning matrices S (degrees): the angle its direction turned, from the posed joints (the upper arm stays). */
  const bend = (S: Float64Array) => {
    const [e, w] = ['bone2', 'bone3'].map((name) => {
      const o = 16 * j(name), p = at(P, j(name)); // prettier-ignore
      return [0, 1, 2].map((r) => S[o + r] * p[0] + S[o + 4 + r] * p[1] + S[o + 8 + r] * p[2] + S[o + 12 + r]);
    });
    const [re, rw] = ['bone2', 'bone3'].map((name) => at(P, j(name)));
    const angle = (u: number[], v: number[]) => Math.acos((u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) / (norm(u) * norm(v))) / deg; // prettier-ignore
    return angle(sub(w, e), sub(rw, re));
  };
  /** The forearm's rotation (row-major, from rest) and its rest direction (unit). */
  const forearm = (S: Float64Array) => {
    const o = 16 * j('bone2');
    const d = sub(at(P, j('bone3')), at(P, j('bone2')));
    return { M: [0, 1, 2].flatMap((r) => [0, 1, 2].map((c) => S[o + 4 * c + r])), rest: d.map((x) => x / norm(d)) };
  };
  return { model, j, pose, bend, forearm, diag: boundingBoxDiagonal(model.mesh.positions) };
}

/** A cage vertex of the upper arm's bone template: ring 1 (mid-bone), side `side` of the rig's ring. */
function upperArmVertex(rig: TemplateRig, upperArm: number, side: number): number {
  const limb = rig.limbs[0];
  const i = limb.chain.indexOf(upperArm);
  const first = limb.roles.findIndex((r) => r.kind === 'bone' && r.index === i);
  return limb.first + first + 8 + side;
}

describe('drawn key poses (template library version 2)', () => {
  it('dragging a cage vertex at a bent elbow moves it by exactly the drag there, not at rest, locally, and partly at half the bend', async () => {
    const { model, j, pose, bend, forearm, diag } = await arm();
    const rig = buildTemplateRig(model.mesh, model.skeleton);
    const S = pose(90);
    const S2 = pose(HALF);
    const v = upperArmVertex(rig, j('bone1'), 1);
    const opposite = upperArmVertex(rig, j('bone1'), 5);
    const before = cage(rig, S);
    const rest = cage(rig, bindPoseSkinningMatrices(model.skeleton));
    const half = cage(rig, S2);
    const delta = [0.02, -0.015, 0.01].map((x) => x * diag);
    for (const symmetric of [false, true]) {
      const t = dragTemplateKeyPose(rig, S, v, delta, 'drawn', { symmetric });
      expect(t.keyPoses.map((k) => k.bend)).toEqual([0, expect.closeTo(t.keyPoses[1].bend, 12)]);
      const r = { ...structuredClone(rig), library: withTemplates(rig.library, [t]) };
      expect(r.library.version).toBe(3); // the default library's: joint templates for more bones, caps
      const v1 = {
        ...rig.library,
        version: 1 as const,
        templates: rig.library.templates.filter((x) => x.kind !== 'cap' && x.bones === undefined),
      };
      expect(withTemplates(v1, [t]).version).toBe(2); // drawn offsets need version 2
      setBoneTemplate(r, j('bone1'), 'drawn');
      const after = cage(r, S);
      const moved = sub(at(after, v), at(before, v));
      console.log(`drawn (symmetric: ${symmetric}): moved by the drag within ${(norm(sub(moved, delta)) / diag).toExponential(1)} of the diagonal`); // prettier-ignore
      expect(norm(sub(moved, delta))).toBeLessThan(1e-9 * diag);
      expect(norm(sub(at(after, opposite), at(before, opposite)))).toBeLessThan(1e-12 * diag);
      // Every other template's vertices stay; the rest pose is the fitted cage.
      const limb = r.limbs[0];
      const mine = limb.roles.map((role) => role.kind === 'bone' && role.index === limb.chain.indexOf(j('bone1')));
      let others = 0;
      mine.forEach((m, k) => !m && (others = Math.max(others, norm(sub(at(after, limb.first + k), at(before, limb.first + k)))))); // prettier-ignore
      expect(others).toBe(0);
      expect(cage(r, bindPoseSkinningMatrices(model.skeleton))).toEqual(rest);
      // Part of the bend: two key poses blended by Eq. 2 over the forearm's rotation.
      expect(t.keyPoses[1].bend).toBeCloseTo(bend(S), 5);
      const partly = norm(sub(at(cage(r, S2), v), at(half, v))) / norm(delta);
      // (The arm's bend about world z turns the forearm about itself too: the key pose, a pure bend,
      // weighs less than 1 at the pose it was drawn at, and the drag is made exact there.)
      const weight = (X: Float64Array) => secondKeyWeight(forearm(X).M, forearm(X).rest, bend(S) * deg);
      const expected = weight(S2) / weight(S);
      console.log(`  at a bend of ${bend(S2).toFixed(1)}° (the key pose: ${bend(S).toFixed(1)}°): ${partly.toFixed(3)} of the drag (expected ${expected.toFixed(3)})`); // prettier-ignore
      expect(expected).toBeGreaterThan(0.3);
      expect(Math.abs(partly - expected)).toBeLessThan(0.05);
      if (symmetric)
        t.keyPoses[1].offsets!.forEach((o, d) => {
          const m = t.keyPoses[1].offsets![mirroredDesignVertex(d)];
          expect([m[0], m[1], -m[2]].map((x, c) => x - o[c]).every((x) => Math.abs(x) < 1e-12)).toBe(true);
        });
    }
  });

  it('a drawn template saved as JSON acts on an arm 1.5× thicker in proportion to its cage radius', async () => {
    const { model, j, pose, diag } = await arm();
    const S = pose(90);
    const thin = buildTemplateRig(model.mesh, model.skeleton);
    const v = upperArmVertex(thin, j('bone1'), 2);
    const delta = [0.01, 0.02, -0.01].map((x) => x * diag);
    const t = dragTemplateKeyPose(thin, S, v, delta, 'drawn', { symmetric: false });
    const library = parseTemplateLibrary(JSON.parse(JSON.stringify(withTemplates(DEFAULT_TEMPLATE_LIBRARY, [t]))), 'drawn.json'); // prettier-ignore
    const thick = buildTemplateRig({ ...model.mesh, positions: thickerAcrossChain(model.mesh.positions, thin.limbs[0], 1.5) }, model.skeleton, library); // prettier-ignore
    const limb = thin.limbs[0];
    expect(thick.limbs[0].roles.length).toBe(limb.roles.length);
    const i = limb.chain.indexOf(j('bone1'));
    // The vertex's move in its own frame: along the posed upper arm, and across it.
    const axis = (() => {
      const P = (k: number) => [0, 1, 2].map((r) => { const o = 16 * limb.chain[i]; const p = at(limb.points, k); return S[o + r] * p[0] + S[o + 4 + r] * p[1] + S[o + 8 + r] * p[2] + S[o + 12 + r]; }); // prettier-ignore
      const d = sub(P(i + 1), P(i));
      return d.map((x) => x / norm(d));
    })();
    const parts = (rig: TemplateRig) => {
      const radial = cage(rig, S);
      setBoneTemplate(rig, j('bone1'), 'drawn');
      const d = sub(at(cage(rig, S), v), at(radial, v));
      const along = d[0] * axis[0] + d[1] * axis[1] + d[2] * axis[2];
      const local = rig.limbs[0].roles[v - rig.limbs[0].first].local;
      const a = at(rig.limbs[0].axes, i);
      const x = local[0] * a[0] + local[1] * a[1] + local[2] * a[2];
      return { along, across: norm(d.map((c, k) => c - along * axis[k])), radius: norm(local.map((c, k) => c - x * a[k])) }; // prettier-ignore
    };
    const [a, b] = [{ ...thin, library }, thick].map(parts);
    const ratio = b.radius / a.radius;
    console.log(`drawn template on the 1.5× arm: cage radius ×${ratio.toFixed(3)}, move across ×${(b.across / a.across).toFixed(3)}, along ×${(b.along / a.along).toFixed(3)}`); // prettier-ignore
    expect(ratio).toBeGreaterThan(1.3);
    // In proportion, up to how Eq. 4 places the vertex around the bone before the offset: its twist
    // fades with the vertex's axial coordinate, which the rest bend's skew shifts in proportion to
    // the radius (0.3° here).
    expect(Math.abs(b.across / a.across / ratio - 1)).toBeLessThan(0.01);
    expect(Math.abs(b.along / a.along - 1)).toBeLessThan(0.01);
  });

  it('bad drawn key poses are clear errors', async () => {
    const lib = (offsets: unknown, version = 2, bend = 90) => ({
      format: 'corskin-templates',
      version,
      templates: [
        {
          id: 'x',
          kind: 'bone',
          keyPoses: [
            { bend: 0, bulge: 0 },
            { bend, bulge: 0, offsets },
          ],
        },
      ],
    });
    const zeros = () => Array.from({ length: 24 }, () => [0, 0, 0]);
    expect(parseTemplateLibrary(lib(zeros())).version).toBe(2);
    expect(() => parseTemplateLibrary(lib(zeros(), 1), 'l.json')).toThrow(/l.json: template library: templates\[0\]\.keyPoses\[1\]\.offsets needs "version": 2/); // prettier-ignore
    expect(() => parseTemplateLibrary(lib(zeros().slice(1)), 'l.json')).toThrow(/offsets must be an array of 24 \[axial, radial, tangential\]/); // prettier-ignore
    const far = zeros();
    far[7] = [0, 3, 0];
    expect(() => parseTemplateLibrary(lib(far), 'l.json')).toThrow(
      /keyPoses\[1\]\.offsets\[7\] must be 3 numbers from -2 to 2/,
    );
    const restDrawn = lib(zeros());
    (restDrawn.templates[0].keyPoses[0] as Record<string, unknown>).offsets = far.map(() => [0, 0.1, 0]);
    expect(() => parseTemplateLibrary(restDrawn, 'l.json')).toThrow(/keyPoses\[0\] must be the rest/);
    const { model, j, pose } = await arm();
    const rig = buildTemplateRig(model.mesh, model.skeleton);
    const v = upperArmVertex(rig, j('bone1'), 0);
    expect(() => dragTemplateKeyPose(rig, bindPoseSkinningMatrices(model.skeleton), v, [0, 0.01, 0], 'x')).toThrow(/bend the joint first/); // prettier-ignore
    expect(() => dragTemplateKeyPose(rig, pose(90), rig.limbs[0].first, [0, 0.01, 0], 'x')).toThrow(/end cap/);
    expect(() => dragTemplateKeyPose(rig, pose(90), v, [0, 100, 0], 'x')).toThrow(/more than 2 units/);
  });
});
