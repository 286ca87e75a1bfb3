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
 * frame), as the viewer's template editor makes them by dragging vertices. Version 1 files read
 * unchanged.
 *
 * ```json
 * { "format": "corskin-templates", "version": 2,
 *   "templates": [ { "id": "muscle-bulge", "kind": "bone", "description": "…",
 *                    "keyPoses": [ { "bend": 0, "bulge": 0 }, { "bend": 90, "bulge": 0.35 } ] } ] }
 * ```
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';

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
  id: string;
  kind: 'bone' | 'joint';
  description?: string;
  /** Key poses, the first at bend 0 with bulge 0 (the fitted rest). */
  keyPoses: BoneKeyPose[];
  /** Which side of the bend the bulge acts on (default `inner`, the crease). */
  side?: 'inner' | 'outer';
}

/** A validated template library. */
export interface TemplateLibrary {
  format: 'corskin-templates';
  /** 1, or 2 where a key pose has `offsets`. */
  version: 1 | 2;
  templates: TemplateDefinition[];
}

/** The library corskin ships (ids: radial-bone, muscle-bulge, inverse-bulge, upward-bulge, sliding, twisting, radial-joint, no-pinch-joint, bulge-joint). */
export const DEFAULT_TEMPLATE_LIBRARY: TemplateLibrary = {
  format: 'corskin-templates',
  version: 1,
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
  ],
};

/**
 * Validates a parsed template library (`corskin-templates`, version 1 or 2).
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
  if (o.version !== 1 && o.version !== 2) fail('version', `must be 1 or 2 (this corskin reads versions 1 and 2), got ${JSON.stringify(o.version)}`);
  if (!Array.isArray(o.templates) || !o.templates.length) fail('templates', 'must be a non-empty array');
  const ids = new Set<string>();
  const templates = (o.templates as unknown[]).map((t, i): TemplateDefinition => {
    const at = `templates[${i}]`;
    const d = t as Record<string, unknown>;
    if (!d || typeof d !== 'object') fail(at, 'is not an object');
    if (typeof d.id !== 'string' || !/^[A-Za-z0-9_.-]+$/.test(d.id)) fail(`${at}.id`, 'must be a name of letters, digits, _ . -');
    if (ids.has(d.id as string)) fail(`${at}.id`, `"${d.id}" is defined twice`);
    ids.add(d.id as string);
    if (d.kind !== 'bone' && d.kind !== 'joint') fail(`${at}.kind`, `must be "bone" or "joint", got ${JSON.stringify(d.kind)}`);
    if (d.description !== undefined && typeof d.description !== 'string') fail(`${at}.description`, 'must be a string');
    if (!Array.isArray(d.keyPoses) || !d.keyPoses.length) fail(`${at}.keyPoses`, 'must be a non-empty array');
    const keyPoses = (d.keyPoses as unknown[]).map((k, j): BoneKeyPose => {
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
        if (o.version !== 2) fail(`${path}.offsets`, 'needs "version": 2');
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
    const out: TemplateDefinition = { id: d.id as string, kind: d.kind as 'bone' | 'joint', description: d.description as string | undefined, keyPoses };
    if (d.side !== undefined) out.side = d.side as 'inner' | 'outer';
    return out;
  });
  return { format: 'corskin-templates', version: o.version as 1 | 2, templates };
}

/**
 * `library` with `templates` added (a template of the same id replaced), as a new library object;
 * version 2 where a key pose has drawn offsets.
 */
export function withTemplates(library: TemplateLibrary, templates: TemplateDefinition[]): TemplateLibrary {
  const ids = new Set(templates.map((t) => t.id));
  const all = [...library.templates.filter((t) => !ids.has(t.id)), ...templates];
  return { format: 'corskin-templates', version: all.some((t) => t.keyPoses.some((k) => k.offsets)) ? 2 : library.version, templates: all };
}
