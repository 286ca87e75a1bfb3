/**
 * Editing a template rig: switching a slot's template (templates are reusable and switchable at
 * run time, Ju et al. 2008, §3), moving cage vertices (the manual correction of the automatic
 * fit) and drawing key poses with the template editor.
 *
 * @module
 */
import { CorskinError } from '../../core/errors.js';
import { dot } from '../../core/vec3.js';
import { mirroredDesignVertex } from './design.js';
import { DESIGN_VERTICES, incidentBones, type BoneKeyPose, type TemplateDefinition, type TemplateLibrary } from './library.js';
import type { TemplateLimb, TemplateRig } from './rig.js';
import { slotBones, keyValue, blendedOffsets, boneRotations, createTemplateMemo, poseLimb, type OffsetProbe } from './pose.js';

/**
 * The ids of the rig's library a template slot at skeleton joint `joint` takes: `bone`, every bone
 * template; `joint`, the joint templates made for the joint's number of incident bones (2 + the
 * limbs branching off it) where the library has templates for that number, else for 2 — the
 * parent bone and the bone that goes on, the branching limbs' end caps then moving with the
 * joint (a hand's five fingers, with the default library).
 * Empty where the joint has no such slot (no bone starts at it in a limb; no limb goes through it).
 */
export function compatibleTemplates(rig: TemplateRig, joint: number, kind: 'bone' | 'joint'): string[] {
  const limb = rig.limbs.find((l) => l.chain.indexOf(joint) >= (kind === 'joint' ? 1 : 0));
  if (!limb) return [];
  const bones = kind === 'joint' ? slotBones(rig, limb, limb.chain.indexOf(joint)) : 0;
  return rig.library.templates.filter((t) => t.kind === kind && (kind === 'bone' || incidentBones(t) === bones)).map((t) => t.id);
}


/**
 * Switches the template at skeleton joint `joint` to `id` of the rig's library: a bone template
 * goes to every bone that starts at the joint, a joint template to the joint's template in the
 * limb that goes through it (made for its number of incident bones, {@link compatibleTemplates}).
 * Templates of one library share the fitted rest cage, so the binding stands: the next frame
 * shows it.
 * @param name the joint as messages name it (default `joint J`)
 * @throws CorskinError for an unknown id, a cap (caps shape the rest cage: chosen at build), a
 *   joint with no slot of that kind, or a joint template made for another number of incident bones
 */
export function setBoneTemplate(rig: TemplateRig, joint: number, id: string, name = `joint ${joint}`): void {
  const t = rig.library.templates.find((x) => x.id === id);
  if (!t) throw new CorskinError(`no template "${id}" (templates: ${rig.library.templates.map((x) => `${x.id} (${x.kind})`).join(', ')})`);
  if (t.kind === 'cap') throw new CorskinError(`"${id}" is an end cap: caps shape the rest cage: every limb ends in the library's first cap (a library of your own changes it)`);
  let found = false;
  for (const limb of rig.limbs)
    limb.chain.forEach((j, i) => {
      if (j !== joint) return;
      if (t.kind === 'bone') [limb.boneTemplates[i], found] = [id, true];
      else if (i > 0) {
        const bones = slotBones(rig, limb, i);
        if (incidentBones(t) !== bones)
          throw new CorskinError(`joint template "${id}" is made for ${incidentBones(t)} incident bones; ${name} takes ${bones} (${compatibleTemplates(rig, joint, 'joint').join(', ')})`);
        [limb.jointTemplates[i], found] = [id, true];
      }
    });
  if (!found) throw new CorskinError(`${name} has no ${t.kind === 'bone' ? 'template bone starting at it' : 'joint template (it ends or starts every limb it is in: a bone template goes there)'}`);
}


/** The limb whose part of the cage holds cage vertex `vertex`. @throws RangeError for a vertex the cage lacks */
function limbOfVertex(rig: TemplateRig, vertex: number): TemplateLimb {
  const limb = rig.limbs.find((l) => vertex >= l.first && vertex < l.first + l.roles.length);
  if (!limb) throw new RangeError(`the template cage has no vertex ${vertex}`);
  return limb;
}


/**
 * Moves cage vertex `vertex` of the rig's rest cage by `delta` (bind space, 3 numbers): the cage
 * and the vertex's rest position in its template's frame (the paper's manual correction of the
 * automatic fit). The binding no longer fits: {@link rebindTemplateRig} next.
 * @throws RangeError for a vertex the cage lacks
 */
export function moveTemplateCageVertex(rig: TemplateRig, vertex: number, delta: ArrayLike<number>): void {
  const limb = limbOfVertex(rig, vertex);
  const role = limb.roles[vertex - limb.first];
  role.local = role.local.map((x, k) => x + delta[k]);
  for (let k = 0; k < 3; k++) rig.cage.positions[3 * vertex + k] += delta[k];
}


/**
 * The template editor's vertex drag — templates are "defined once by artists" by posing the
 * relevant bones and moving template vertices into a key pose (Ju et al. 2008, §3): the template
 * on the slot of cage vertex `vertex`, renamed `id`, with a key pose at this pose's bend (added
 * with the values the template blends to there, Eq. 2, so nothing else moves; or the key pose
 * already within 0.5° of it) whose drawn offsets ({@link DESIGN_VERTICES}) move the vertex by
 * exactly `delta` at this pose. The offsets go to the design vertices the vertex is interpolated
 * from, in proportion to their weights (the least change that does it); `symmetric` mirrors them
 * about the bend plane (then a vertex on that plane cannot move around the bone). Put the result
 * into the library ({@link withTemplates}) and on the slot ({@link setBoneTemplate}).
 * @param skinning the pose: skinning matrices, 16·J, column-major, bind space → posed space
 * @param delta the vertex's move in posed space (the mesh's geometry space), 3 numbers
 * @throws CorskinError for a vertex of an end cap, a pose within 1° of the rest bend (the rest
 *   key pose is the fitted cage, Eq. 5–6), a vertex on its template's axis, or a move of more
 *   than 2 units (cage radii; bone lengths along a bone) at a design vertex
 * @throws RangeError for a vertex the cage lacks
 */
export function dragTemplateKeyPose(
  rig: TemplateRig,
  skinning: Float64Array,
  vertex: number,
  delta: ArrayLike<number>,
  id: string,
  options: { symmetric?: boolean } = {},
): TemplateDefinition {
  const limb = limbOfVertex(rig, vertex);
  if (limb.roles[vertex - limb.first].kind === 'cap') throw new CorskinError(`cage vertex ${vertex} belongs to an end cap, which has no template to edit`);
  const R = boneRotations(skinning);
  const scratch = new Float64Array(rig.cage.positions.length);
  const probe = (library: TemplateLibrary, l: TemplateLimb) => {
    const p: OffsetProbe = { vertex };
    poseLimb(l, { ...rig, library }, skinning, R, scratch, createTemplateMemo(rig), p);
    return p.found!;
  };
  const at = probe(rig.library, limb);
  const slots = at.kind === 'bone' ? limb.boneTemplates : limb.jointTemplates;
  const old = rig.library.templates.find((t) => t.id === slots[at.slot]);
  if (!old) throw new CorskinError(`the slot's template "${slots[at.slot]}" is not in the rig's library`);
  const bend = Math.min(180, (at.bend * 180) / Math.PI);
  if (bend < 1) throw new CorskinError('bend the joint first: the rest key pose is the fitted cage (more than 1° from the rest bend)');
  // The template renamed, with a key pose at this bend.
  const t: TemplateDefinition = structuredClone({ ...old, id, description: `${old.description ?? old.id}; key pose drawn at ${bend.toFixed(1)}°` });
  let key = t.keyPoses.findIndex((k, i) => i > 0 && Math.abs(k.bend - bend) < 0.5);
  if (key < 0) {
    const w = at.keyWeights;
    const k: BoneKeyPose = { bend, bulge: keyValue(old, w, (x) => x.bulge) };
    if (old.kind === 'bone') [k.slide, k.twist] = [keyValue(old, w, (x) => x.slide ?? 0), keyValue(old, w, (x) => x.twist ?? 0)];
    const D = blendedOffsets(old, w);
    if (D) k.offsets = Array.from({ length: DESIGN_VERTICES }, (_, d) => Array.from(D.subarray(3 * d, 3 * d + 3)));
    t.keyPoses.push(k);
    t.keyPoses.sort((a, b) => a.bend - b.bend);
    key = t.keyPoses.indexOf(k);
  }
  const keyPose = t.keyPoses[key];
  keyPose.offsets ??= Array.from({ length: DESIGN_VERTICES }, () => [0, 0, 0]);
  // Where the vertex is with the edited template on its slot (the same place: the key pose holds
  // what the template blended to), and how much the edited key pose weighs there (1, or close).
  const edited = { ...limb, [at.kind === 'bone' ? 'boneTemplates' : 'jointTemplates']: slots.map((x, i) => (i === at.slot ? id : x)) };
  const now = probe({ ...rig.library, templates: [...rig.library.templates.filter((x) => x.id !== id), t] }, edited);
  const W = now.keyWeights[key];
  const f = now.frame;
  if (!f.count) throw new CorskinError(`cage vertex ${vertex} lies on its template's axis: it has no side of the bend to take a drawn offset from`);
  // The move into the template's bind orientation, then design units.
  const d = bindOrientationMove(rig, skinning, vertex, delta);
  const target = [dot(d, now.axis) / now.units[0], dot(d, Array.from(f.radial)) / now.units[1], dot(d, Array.from(f.tangential)) / now.units[1]];
  let alpha = 0, beta = 0; // prettier-ignore
  const weightOf = (design: number) => {
    for (let k = 0; k < f.count; k++) if (f.index[k] === design) return f.weight[k];
    return 0;
  };
  for (let k = 0; k < f.count; k++) {
    alpha += f.weight[k] ** 2;
    beta += f.weight[k] * weightOf(mirroredDesignVertex(f.index[k]));
  }
  const symmetric = options.symmetric ?? true;
  const mirror = [1, 1, -1];
  // The vertex moves by W (α A + β M A) (symmetric) or W α A: solved per component.
  const A = target.map((x, c) => {
    const denom = W * (symmetric ? alpha + beta * mirror[c] : alpha);
    return denom > 1e-9 * W * alpha ? x / denom : 0;
  });
  const offsets = keyPose.offsets;
  for (let k = 0; k < f.count; k++) {
    const w = f.weight[k];
    for (let c = 0; c < 3; c++) offsets[f.index[k]][c] += w * A[c];
    if (symmetric) for (let c = 0; c < 3; c++) offsets[mirroredDesignVertex(f.index[k])][c] += w * mirror[c] * A[c];
  }
  const far = offsets.findIndex((o) => o.some((x) => Math.abs(x) > 2));
  if (far >= 0) throw new CorskinError(`the move takes design vertex ${far} more than 2 units (cage radii; bone lengths along a bone) from the radial default: drag less far`);
  return t;
}


/**
 * A move of cage vertex `vertex` at the pose `skinning` (16·J, column-major, bind space → posed
 * space), given in posed space (3 numbers), taken back to the bind orientation its template's rest
 * positions live in: through the inverse linear part of the bone that carries the template (a
 * joint template's: its parent bone; a bone template's or cap's: its bone) — what
 * {@link moveTemplateCageVertex} takes for a drag made on the posed cage.
 * @throws RangeError for a vertex the cage lacks
 */
export function bindOrientationMove(rig: TemplateRig, skinning: Float64Array, vertex: number, delta: ArrayLike<number>): number[] {
  const limb = limbOfVertex(rig, vertex);
  const role = limb.roles[vertex - limb.first];
  const o = 16 * limb.chain[role.kind === 'joint' ? role.index - 1 : role.index];
  const Li = invert3(Array.from({ length: 9 }, (_, k) => skinning[o + 4 * (k % 3) + Math.floor(k / 3)])); // row-major linear part
  return [0, 1, 2].map((r) => Li[3 * r] * delta[0] + Li[3 * r + 1] * delta[1] + Li[3 * r + 2] * delta[2]);
}


/** The inverse of a row-major 3×3 matrix. */
function invert3(m: ArrayLike<number>): Float64Array {
  const [a, b, c, d, e, f, g, h, i] = Array.from(m);
  const A = e * i - f * h, B = f * g - d * i, C = d * h - e * g; // prettier-ignore
  const det = a * A + b * B + c * C;
  return Float64Array.from([A, c * h - b * i, b * f - c * e, B, a * i - c * g, c * d - a * f, C, b * g - a * h, a * e - b * d].map((x) => x / det));
}

