/**
 * Cage benchmarks (part of `npm run bench`): PMVC binding of the libigl arm (a tube cage around
 * its bones), CesiumMan and the armadillo (star-shaped 320-triangle cages), on one thread and on
 * two workers, and the per-frame cage deformation, with LBS on the same mesh measured in the same
 * run for the ratio. Medians.
 */
import { bindToCage, type CageBinding } from '../src/cage/bind.js';
import type { Cage } from '../src/cage/cage.js';
import { createCageDeformer } from '../src/cage/deform.js';
import { bindToCageParallel } from '../src/cage/parallel.js';
import { starCage } from '../src/cage/star.js';
import { enclosingTubeCage } from '../src/cage/tube.js';
import type { SkinnedMesh } from '../src/core/mesh.js';
import { bindJointPositions, type Skeleton } from '../src/core/skeleton.js';
import { deformers } from '../src/deformers/index.js';
import { skinningMatrices } from '../src/core/pose.js';
import { bendPose, twistPose } from '../src/evaluation/standard-poses.js';
import { buildTemplateRig } from '../src/methods/templates/rig.js';
import { createTemplateDeformer } from '../src/methods/templates/deformer.js';
import { createTemplateMemo, poseTemplates } from '../src/methods/templates/pose.js';
import { setBoneTemplate } from '../src/methods/templates/edit.js';

export interface CageRow {
  asset: string;
  vertices: number;
  cageVertices: number;
  cageTriangles: number;
  /** PMVC binding, seconds (median), in this thread and on 2 worker threads. */
  bind1Seconds: number;
  bind2Seconds: number;
  /** One frame of cage deformation, ms (median of 20): positions, and positions + normals. */
  frameMs: number;
  frameNormalsMs: number;
  /** The same mesh's LBS frame (positions + normals), ms, and cage / LBS. */
  lbsFrameMs: number;
  cageOverLbs: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : 0.5 * (s[s.length / 2 - 1] + s[s.length / 2]);
}

async function time<T>(reps: number, f: () => T | Promise<T>): Promise<{ seconds: number; value: T }> {
  const times: number[] = [];
  let value!: T;
  for (let r = 0; r < reps; r++) {
    const t = performance.now();
    value = await f();
    times.push((performance.now() - t) / 1000);
  }
  return { seconds: median(times), value };
}

/** Measures one asset; `cage` is `tube` (around the joint chain `chain`) or `star`. */
export async function measureCage(
  asset: string,
  mesh: SkinnedMesh,
  skeleton: Skeleton,
  cageKind: { tube: number[] } | 'star',
  reps: number,
  singleThread = true,
): Promise<CageRow> {
  const P = bindJointPositions(skeleton);
  const cage: Cage =
    cageKind === 'star'
      ? starCage(mesh.positions)
      : enclosingTubeCage(
          mesh.positions,
          cageKind.tube.map((j) => Array.from(P.subarray(3 * j, 3 * j + 3))),
        );
  const bind1 = singleThread ? await time(reps, () => bindToCage(mesh.positions, cage)) : undefined;
  const bind2 = await time(reps, () => bindToCageParallel(mesh.positions, cage, { threads: 2 }));
  const binding: CageBinding = bind2.value;
  const n = mesh.positions.length / 3;
  const m = cage.positions.length / 3;
  const deformer = createCageDeformer(mesh, binding, cage.positions);
  // A posed cage: every vertex turned about the vertical axis by an angle growing with height.
  const posed = new Float64Array(3 * m);
  const frames = 20;
  const out = { positions: new Float32Array(3 * n) };
  const withNormals = { positions: new Float32Array(3 * n), normals: new Float32Array(3 * n) };
  const lbsOut = { positions: new Float32Array(3 * n), normals: new Float32Array(3 * n) };
  const S = new Float64Array(16 * skeleton.parents.length);
  for (let j = 0; j < skeleton.parents.length; j++) S.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], 16 * j);
  const t = { plain: [] as number[], normals: [] as number[], lbs: [] as number[] };
  for (let f = 0; f < frames + 1; f++) {
    for (let v = 0; v < m; v++) {
      const [x, y, z] = cage.positions.subarray(3 * v, 3 * v + 3);
      const a = 0.02 * f * y;
      posed.set([Math.cos(a) * x - Math.sin(a) * z, y, Math.sin(a) * x + Math.cos(a) * z], 3 * v);
    }
    let s = performance.now();
    deformer.deform(posed, out);
    if (f) t.plain.push(performance.now() - s);
    s = performance.now();
    deformer.deform(posed, withNormals);
    if (f) t.normals.push(performance.now() - s);
    s = performance.now();
    deformers.lbs(mesh, S, lbsOut);
    if (f > 0) t.lbs.push(performance.now() - s);
  }
  return {
    asset,
    vertices: n,
    cageVertices: m,
    cageTriangles: cage.triangles.length / 3,
    bind1Seconds: bind1?.seconds ?? NaN,
    bind2Seconds: bind2.seconds,
    frameMs: median(t.plain),
    frameNormalsMs: median(t.normals),
    lbsFrameMs: median(t.lbs),
    cageOverLbs: median(t.normals) / median(t.lbs),
  };
}

/** Skinning templates around a skeleton: one frame (template functions + cage + skin) and a template switch. */
export interface TemplateRow {
  asset: string;
  vertices: number;
  cageVertices: number;
  cageTriangles: number;
  buildSeconds: number;
  /** Template functions → cage vertices, ms (median of 20 frames). */
  templatesMs: number;
  /** The whole frame: templates, cage deformation of the skin with normals, ms. */
  frameMs: number;
  /** Switching one bone's template and evaluating the next frame, ms. */
  switchMs: number;
  lbsFrameMs: number;
  /** The JavaScript DQS deformer (the templates' base), same poses, ms. */
  dqsFrameMs: number;
}

export function measureTemplates(asset: string, mesh: SkinnedMesh, skeleton: Skeleton): TemplateRow {
  const t0 = performance.now();
  const rig = buildTemplateRig(mesh, skeleton);
  const buildSeconds = (performance.now() - t0) / 1000;
  const deform = createTemplateDeformer(rig);
  const n = mesh.positions.length / 3;
  const out = { positions: new Float32Array(3 * n), normals: mesh.normals ? new Float32Array(3 * n) : undefined };
  const lbsOut = { positions: new Float32Array(3 * n), normals: mesh.normals ? new Float32Array(3 * n) : undefined };
  // The middle joint of the longest limb (of the skeleton when no limb has a cage): bent and
  // twisted, its bone's template switched.
  const chain = rig.limbs.reduce((a, l) => (l.chain.length > a.length ? l.chain : a), [] as number[]);
  const joint = chain.length ? chain[Math.floor(chain.length / 2)] : Math.floor(skeleton.parents.length / 2);
  const cage = new Float64Array(rig.cage.positions.length);
  const memo = createTemplateMemo(rig);
  const t = { templates: [] as number[], frame: [] as number[], lbs: [] as number[], dqs: [] as number[], change: [] as number[] }; // prettier-ignore
  // 20 warm-up frames (the JIT settles), then 20 timed ones.
  for (let f = -20; f < 21; f++) {
    const a = Math.abs(f);
    const pose =
      a % 2 ? bendPose(skeleton, joint, [0, 0, 1], (a / 20) * 2) : twistPose(skeleton, joint, (a / 20) * 2.5);
    const S = skinningMatrices(skeleton, pose);
    let s = performance.now();
    poseTemplates(rig, S, cage, memo);
    if (f > 0) t.templates.push(performance.now() - s);
    s = performance.now();
    deform(mesh, S, out);
    if (f > 0) t.frame.push(performance.now() - s);
    s = performance.now();
    deformers.lbs(mesh, S, lbsOut);
    if (f > 0) t.lbs.push(performance.now() - s);
    s = performance.now();
    deformers.dqs(mesh, S, lbsOut);
    if (f > 0) t.dqs.push(performance.now() - s);
    s = performance.now();
    if (chain.length) setBoneTemplate(rig, chain[1], a % 2 ? 'muscle-bulge' : 'radial-bone');
    deform(mesh, S, out);
    if (f > 0) t.change.push(performance.now() - s);
  }
  return {
    asset,
    vertices: n,
    cageVertices: rig.cage.positions.length / 3,
    cageTriangles: rig.cage.triangles.length / 3,
    buildSeconds,
    templatesMs: median(t.templates),
    frameMs: median(t.frame),
    switchMs: median(t.change),
    lbsFrameMs: median(t.lbs),
    dqsFrameMs: median(t.dqs),
  };
}
