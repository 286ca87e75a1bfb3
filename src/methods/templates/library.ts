/**
 * Template libraries: a versioned JSON format for sharing bone and joint templates (Ju et al.
 * 2008's templates are "defined once by artists" and reused), validated on load, and the default
 * library corskin ships. This first format is parametric: a bone template's key poses give the
 * child bone's bend (degrees), a bulge — the relative change of the cage radius on one side of
 * the bend (`side`: the inner side, the crease, by default; or the outer), largest mid-bone
 * (profile sin πt, cos² about the bend direction) — and a slide of the skin along the bone (a
 * fraction of its length, same profile) and a twist of the skin about the bone (degrees, same
 * profile), blended between key poses by Eq. 2. Joint templates are Eq. 3 with magnitude and
 * direction blending (the radial default) plus, likewise, a bulge of the joint's rings by the
 * child's bend, on the inner side of the bend (`"side": "inner"`, the default: no pinching in the
 * crease) or the outer side (`"outer"`: the elbow or knee cap).
 *
 * Version 2 adds what an artist draws: a key pose may carry `offsets`, the displacement of each of
 * the template's 24 design vertices at that key pose (see {@link DESIGN_VERTICES}: the design
 * frame), as the viewer's template editor makes them by dragging vertices.
 *
 * Version 3 adds joint templates for more than two incident bones (`"bones": 3` or more; the
 * paper's Fig. 13: a chest where the spine, the neck and both shoulders meet) — a joint takes the
 * templates made for its number of incident bones — and **end caps** (`"kind": "cap"`), which
 * close the cage at chain ends (hands, feet, head, tail tips) and say how far beyond the last ring
 * the cap reaches (`apex`, in ring radii). A cap shapes the rest cage, so it is chosen when the
 * cage is built (the library's first cap), not switched at run time; it has only the rest key
 * pose and moves with its bone (or, where its chain branches off a joint another chain goes
 * through, with that joint's template). Version 1 and 2 files read unchanged.
 *
 * ```json
 * { "format": "corskin-templates", "version": 3,
 *   "templates": [ { "id": "muscle-bulge", "kind": "bone", "description": "…",
 *                    "keyPoses": [ { "bend": 0, "bulge": 0 }, { "bend": 90, "bulge": 0.35 } ] },
 *                  { "id": "chest", "kind": "joint", "bones": 4, "keyPoses": [ { "bend": 0, "bulge": 0 } ] },
 *                  { "id": "stump", "kind": "cap", "apex": 0.1 } ] }
 * ```
 *
 * @module
 */
import { CorskinError } from '../../core/errors.js';

/** One key pose of a parametric bone template. */
export interface BoneKeyPose {
  /** Bend of the child bone at this key pose, degrees, 0–180. */
  bend: number;
  /** Relative radius change on the template's side of the bend, −0.9 to 2. */
  bulge: number;
  /** Bone templates: the skin's slide along the bone, a fraction of its length (mid-bone), −0.5 to 0.5; default 0. */
  slide?: number;
  /** Bone templates: the skin's turn about the bone, degrees (mid-bone), −180 to 180; default 0. */
  twist?: number;
  /**
   * Version 2: per design vertex (24, {@link DESIGN_VERTICES}), its displacement at this key pose,
   * `[axial, radial, tangential]` in the design frame; absent: none. Each component −2 to 2.
   */
  offsets?: number[][];
}

/**
 * The design frame of version-2 offsets: a template's 24 design vertices are 3 rings of 8, vertex
 * `8·ring + side`. Bone templates: rings at ¼, ½ and ¾ of the bone (from its start); joint
 * templates: the ring on the parent bone's side, the middle ring, the ring on the child's side.
 * Side s lies at the angle 2πs/8 about the bone (joint templates: the parent bone) from the inner
 * side of the child's bend (s = 0: the crease, s = 4: the outer side), turning right-handedly
 * about the bone. A design vertex's displacement `[axial, radial, tangential]` is along the bone
 * (bone templates: in bone lengths; joint templates: in joint radii), away from it and around it
 * (right-handedly; in cage radii); cage vertices between design vertices take the displacement
 * interpolated linearly around the ring and, in bone templates, along the bone (to none at both
 * ends). A right-handed frame means a template that is not symmetric about the bend plane acts
 * mirrored on a mirrored limb; the viewer's editor makes symmetric ones by default.
 */
export const DESIGN_VERTICES = 24;

/** A template of a library. */
export interface TemplateDefinition {
  /** Unique name within the library: letters, digits, `_`, `.`, `-`. */
  id: string;
  /** A bone template, a joint template, or (version 3) an end cap. */
  kind: 'bone' | 'joint' | 'cap';
  /** What the template does, shown in listings. */
  description?: string;
  /** Key poses, the first at bend 0 with bulge 0 (the fitted rest); a cap has only that one. */
  keyPoses: BoneKeyPose[];
  /** Which side of the bend the bulge acts on (default `inner`, the crease). */
  side?: 'inner' | 'outer';
  /**
   * Version 3, joint templates: the number of incident bones the template is made for, 2 (the
   * default: a parent bone and the child that goes on) to {@link MAX_INCIDENT_BONES}.
   */
  bones?: number;
  /** Version 3, caps: how far the cap's apex lies beyond its ring, in ring radii, 0 to 2 (default 0.5). */
  apex?: number;
}

/** The most incident bones a joint template may blend (Eq. 1 over the relevant bones). */
export const MAX_INCIDENT_BONES = 8;

/** A validated template library. */
export interface TemplateLibrary {
  /** Format tag, always `corskin-templates`. */
  format: 'corskin-templates';
  /** 1; 2 where a key pose has `offsets`; 3 where a template has `bones` or is a cap. */
  version: 1 | 2 | 3;
  /** The templates, at least one. */
  templates: TemplateDefinition[];
}

/** The incident bones joint template `t` is made for (2 unless it says). */
export const incidentBones = (t: TemplateDefinition): number => t.bones ?? 2;

/** The lowest library version that holds `templates`. */
const versionFor = (templates: readonly TemplateDefinition[]): 1 | 2 | 3 =>
  templates.some((t) => t.kind === 'cap' || t.bones !== undefined) ? 3 : templates.some((t) => t.keyPoses.some((k) => k.offsets)) ? 2 : 1;

/**
 * The library corskin ships (ids: radial-bone, muscle-bulge, inverse-bulge, upward-bulge, sliding,
 * twisting, radial-joint, no-pinch-joint, bulge-joint, radial-joint-3, no-pinch-joint-3,
 * radial-joint-4, no-pinch-joint-4, round-cap, flat-cap, pointed-cap).
 */
export const DEFAULT_TEMPLATE_LIBRARY: TemplateLibrary = {
  format: 'corskin-templates',
  version: 3,
  templates: [
    { id: 'radial-bone', kind: 'bone', description: 'radial default: the cage keeps its radius (Ju et al. 2008, Fig. 5 left)', keyPoses: [{ bend: 0, bulge: 0 }] },
    { id: 'muscle-bulge', kind: 'bone', description: 'the inner side swells as the child bone bends (Fig. 5 middle)', keyPoses: [{ bend: 0, bulge: 0 }, { bend: 90, bulge: 0.35 }] },
    { id: 'inverse-bulge', kind: 'bone', description: 'the inner side flattens as the child bone bends (Fig. 5 right)', keyPoses: [{ bend: 0, bulge: 0 }, { bend: 90, bulge: -0.25 }] },
    { id: 'upward-bulge', kind: 'bone', side: 'outer', description: 'exaggerated: the outer side swells as the child bone bends (Fig. 12)', keyPoses: [{ bend: 0, bulge: 0 }, { bend: 90, bulge: 0.35 }] },
    { id: 'sliding', kind: 'bone', description: 'exaggerated: the skin slides along the bone towards the child as it bends (Fig. 12)', keyPoses: [{ bend: 0, bulge: 0 }, { bend: 90, bulge: 0, slide: 0.15 }] },
    { id: 'twisting', kind: 'bone', description: 'exaggerated: the skin twists about the bone as the child bone bends (Fig. 12)', keyPoses: [{ bend: 0, bulge: 0 }, { bend: 90, bulge: 0, twist: 30 }] },
    { id: 'radial-joint', kind: 'joint', description: 'radial default: directions blended on the sphere (Fig. 4 left)', keyPoses: [{ bend: 0, bulge: 0 }] },
    { id: 'no-pinch-joint', kind: 'joint', side: 'inner', description: 'the crease side swells as the joint bends, against pinching (Fig. 4 middle)', keyPoses: [{ bend: 0, bulge: 0 }, { bend: 90, bulge: 0.3 }] },
    { id: 'bulge-joint', kind: 'joint', side: 'outer', description: 'the outer side bulges as the joint bends, like an elbow or knee cap (Fig. 4 right)', keyPoses: [{ bend: 0, bulge: 0 }, { bend: 90, bulge: 0.3 }] },
    { id: 'radial-joint-3', kind: 'joint', bones: 3, description: 'radial default for three incident bones (a hip where a tail goes on and the spine starts): directions blended on the sphere over all three (Fig. 13)', keyPoses: [{ bend: 0, bulge: 0 }] },
    { id: 'no-pinch-joint-3', kind: 'joint', bones: 3, side: 'inner', description: 'three incident bones; the crease of the bone that goes on swells as it bends (Fig. 13 with Fig. 4 middle)', keyPoses: [{ bend: 0, bulge: 0 }, { bend: 90, bulge: 0.3 }] },
    { id: 'radial-joint-4', kind: 'joint', bones: 4, description: 'radial default for four incident bones (a chest: the spine, the neck, both shoulders): directions blended on the sphere over all four (Fig. 13)', keyPoses: [{ bend: 0, bulge: 0 }] },
    { id: 'no-pinch-joint-4', kind: 'joint', bones: 4, side: 'inner', description: 'four incident bones; the crease of the bone that goes on swells as it bends (Fig. 13 with Fig. 4 middle)', keyPoses: [{ bend: 0, bulge: 0 }, { bend: 90, bulge: 0.3 }] },
    { id: 'round-cap', kind: 'cap', apex: 0.5, description: 'end cap: a fan to an apex half a ring radius beyond the last ring (hands, feet, head, tail tips)', keyPoses: [{ bend: 0, bulge: 0 }] },
    { id: 'flat-cap', kind: 'cap', apex: 0.1, description: 'end cap: nearly flat, for a chain that ends in a cut (a stump, a sleeve)', keyPoses: [{ bend: 0, bulge: 0 }] },
    { id: 'pointed-cap', kind: 'cap', apex: 1.2, description: 'end cap: a long point, for tapering ends (a tail tip, an ear)', keyPoses: [{ bend: 0, bulge: 0 }] },
  ],
};

/**
 * Validates a parsed template library (`corskin-templates`, version 1, 2 or 3).
 * @param file named in error messages
 * @throws CorskinError naming the file, the JSON path and the problem
 */
export function parseTemplateLibrary(json: unknown, file?: string): TemplateLibrary {
  const fail = (path: string, problem: string): never => {
    throw new CorskinError(`template library: ${path} ${problem}`, file);
  };
  const o = json as Record<string, unknown>;
  if (!o || typeof o !== 'object' || Array.isArray(o)) fail('(the file)', 'is not a JSON object');
  if (o.format !== 'corskin-templates') fail('format', `must be "corskin-templates", got ${JSON.stringify(o.format)}`);
  if (o.version !== 1 && o.version !== 2 && o.version !== 3) fail('version', `must be 1, 2 or 3 (this corskin reads versions 1 to 3), got ${JSON.stringify(o.version)}`);
  if (!Array.isArray(o.templates) || !o.templates.length) fail('templates', 'must be a non-empty array');
  const ids = new Set<string>();
  const templates = (o.templates as unknown[]).map((t, i): TemplateDefinition => {
    const at = `templates[${i}]`;
    const d = t as Record<string, unknown>;
    if (!d || typeof d !== 'object') fail(at, 'is not an object');
    if (typeof d.id !== 'string' || !/^[A-Za-z0-9_.-]+$/.test(d.id)) fail(`${at}.id`, 'must be a name of letters, digits, _ . -');
    if (ids.has(d.id as string)) fail(`${at}.id`, `"${d.id}" is defined twice`);
    ids.add(d.id as string);
    if (d.kind !== 'bone' && d.kind !== 'joint' && d.kind !== 'cap') fail(`${at}.kind`, `must be "bone", "joint" or "cap", got ${JSON.stringify(d.kind)}`);
    if (d.kind === 'cap' && o.version !== 3) fail(`${at}.kind`, '"cap" needs "version": 3');
    if (d.description !== undefined && typeof d.description !== 'string') fail(`${at}.description`, 'must be a string');
    const poses = d.kind === 'cap' && d.keyPoses === undefined ? [{ bend: 0, bulge: 0 }] : d.keyPoses;
    if (!Array.isArray(poses) || !poses.length) fail(`${at}.keyPoses`, 'must be a non-empty array');
    if (d.kind === 'cap' && (poses as unknown[]).length !== 1) fail(`${at}.keyPoses`, 'of a cap must be the rest only: a cap is rigid with its bone');
    if (d.bones !== undefined) {
      if (o.version !== 3) fail(`${at}.bones`, 'needs "version": 3');
      if (d.kind !== 'joint') fail(`${at}.bones`, 'is for joint templates');
      if (!Number.isInteger(d.bones) || !((d.bones as number) >= 2 && (d.bones as number) <= MAX_INCIDENT_BONES)) fail(`${at}.bones`, `must be a whole number of incident bones from 2 to ${MAX_INCIDENT_BONES}`);
    }
    if (d.apex !== undefined) {
      if (d.kind !== 'cap') fail(`${at}.apex`, 'is for caps');
      if (typeof d.apex !== 'number' || !(d.apex >= 0 && d.apex <= 2)) fail(`${at}.apex`, 'must be a number of ring radii from 0 to 2');
    }
    const keyPoses = (poses as unknown[]).map((k, j): BoneKeyPose => {
      const kp = k as Record<string, unknown>;
      const path = `${at}.keyPoses[${j}]`;
      if (!kp || typeof kp !== 'object') fail(path, 'is not an object');
      if (typeof kp.bend !== 'number' || !(kp.bend >= 0 && kp.bend <= 180)) fail(`${path}.bend`, 'must be a number of degrees from 0 to 180');
      if (typeof kp.bulge !== 'number' || !(kp.bulge >= -0.9 && kp.bulge <= 2)) fail(`${path}.bulge`, 'must be a number from -0.9 to 2');
      if (kp.slide !== undefined && (typeof kp.slide !== 'number' || !(kp.slide >= -0.5 && kp.slide <= 0.5))) fail(`${path}.slide`, 'must be a number from -0.5 to 0.5');
      if (kp.twist !== undefined && (typeof kp.twist !== 'number' || !(kp.twist >= -180 && kp.twist <= 180))) fail(`${path}.twist`, 'must be a number of degrees from -180 to 180');
      for (const key of ['slide', 'twist'] as const) if (kp[key] !== undefined && d.kind === 'joint') fail(`${path}.${key}`, 'is for bone templates');
      const out: BoneKeyPose = { bend: kp.bend as number, bulge: kp.bulge as number };
      if (kp.slide !== undefined) out.slide = kp.slide as number;
      if (kp.twist !== undefined) out.twist = kp.twist as number;
      if (kp.offsets !== undefined) {
        if (o.version === 1) fail(`${path}.offsets`, 'needs "version": 2 or 3');
        const ok = (v: unknown) => Array.isArray(v) && v.length === 3 && v.every((x) => typeof x === 'number' && x >= -2 && x <= 2);
        if (!Array.isArray(kp.offsets) || kp.offsets.length !== DESIGN_VERTICES) fail(`${path}.offsets`, `must be an array of ${DESIGN_VERTICES} [axial, radial, tangential] displacements`);
        const bad = (kp.offsets as unknown[]).findIndex((v) => !ok(v));
        if (bad >= 0) fail(`${path}.offsets[${bad}]`, 'must be 3 numbers from -2 to 2');
        out.offsets = (kp.offsets as number[][]).map((v) => v.slice());
      }
      return out;
    });
    const rest = keyPoses[0];
    if (rest.bend !== 0 || rest.bulge !== 0 || (rest.slide ?? 0) !== 0 || (rest.twist ?? 0) !== 0 || rest.offsets?.some((v) => v.some((x) => x !== 0))) fail(`${at}.keyPoses[0]`, 'must be the rest: { "bend": 0, "bulge": 0 }');
    const bends = keyPoses.map((k) => k.bend);
    if (new Set(bends).size !== bends.length) fail(`${at}.keyPoses`, 'has two key poses with the same bend');
    if (d.side !== undefined && d.side !== 'inner' && d.side !== 'outer') fail(`${at}.side`, `must be "inner" or "outer", got ${JSON.stringify(d.side)}`);
    if (d.side !== undefined && d.kind === 'cap') fail(`${at}.side`, 'is for bone and joint templates');
    const out: TemplateDefinition = { id: d.id as string, kind: d.kind as TemplateDefinition['kind'], description: d.description as string | undefined, keyPoses };
    if (d.side !== undefined) out.side = d.side as 'inner' | 'outer';
    if (d.bones !== undefined) out.bones = d.bones as number;
    if (d.apex !== undefined) out.apex = d.apex as number;
    return out;
  });
  return { format: 'corskin-templates', version: o.version as 1 | 2 | 3, templates };
}

/**
 * `library` with `templates` added (a template of the same id replaced), as a new library object of
 * the version its templates need (or the library's own, when higher).
 */
export function withTemplates(library: TemplateLibrary, templates: TemplateDefinition[]): TemplateLibrary {
  const ids = new Set(templates.map((t) => t.id));
  const all = [...library.templates.filter((t) => !ids.has(t.id)), ...templates];
  return { format: 'corskin-templates', version: Math.max(library.version, versionFor(all)) as 1 | 2 | 3, templates: all };
}
