/**
 * `corskin deform`: pose a character (bind pose or an animation frame) and write the deformed
 * mesh as static geometry (.glb/.gltf) or OBJ.
 * @module
 */
import type { AnimationClip } from '../core/animation.js';
import { samplePose } from '../core/animation.js';
import { CorskinError } from '../core/errors.js';
import { DEFAULT_INFLUENCES } from '../cor/parameters.js';
import { boundingBoxDiagonal, firstNonFinite, limitInfluences } from '../core/mesh.js';
import { applyMorphTargets, sampleMorphWeights } from '../core/morph.js';
import { bindPoseSkinningMatrices, farShift, restPose, shiftSkinning, skinningMatrices } from '../core/pose.js';
import { deform } from '../deformers/index.js';
import { skinningReflects } from '../deformers/mirror.js';
import { deformInto } from '../deformers/contract.js';
import { checkNotOverwritingInput, checkOutputPath, writeFileAtomic } from '../io/files.js';
import { extractSkinnedModels } from '../io/gltf.js';
import { readDocument, writeDocument } from '../io/node-io.js';
import { bakePosedGeometry, partTriangles, type PosedGeometry } from '../io/posed-geometry.js';
import { stressPose } from '../evaluation/stress-pose.js';
import { formatObj } from '../io/obj.js';
import type { Io } from './ui.js';
import { methodInfo } from '../deformers/registry.js';
import type { SkinningMethod } from '../deformers/contract.js';
import { createMethodDeformer, ensureMethodData, type CliMethod } from './method-deformer.js';

/** Options of {@link deformCommand}. */
export interface DeformOptions {
  method: CliMethod;
  stretchJoints?: string;
  /** templates: bone template choices, JOINT=ID,… */
  template?: string;
  twistCompensation: boolean;
  animation?: string;
  time?: number;
  /** Without an animation: `rest` (the nodes' own transforms, default) or `bind` (the inverse bind matrices). */
  pose?: 'rest' | 'bind' | 'stress' | 'stress-half';
  /** Influences kept per vertex at run time (the largest, renormalised); default 8. */
  influences?: number;
  sigma: number;
  epsilon: number;
  output: string;
  force?: boolean;
  /** false: write without the input's Draco/meshopt compression (`--no-compress`). */
  compress?: boolean;
}

/** Runs `corskin deform`. @throws CorskinError on bad input */
export async function deformCommand(io: Io, input: string, o: DeformOptions): Promise<void> {
  checkNotOverwritingInput(o.output, [input], !!o.force);
  checkOutputPath(o.output, ['.glb', '.gltf', '.obj']);
  const lower = o.output.toLowerCase();
  const document = await readDocument(input);
  const models = extractSkinnedModels(document, input);
  const clipNames = document
    .getRoot()
    .listAnimations()
    .map((a, i) => a.getName() || `animation ${i}`);
  let clipName: string | undefined;
  // --pose poses the character where no animation is asked for; with one, a skin it does not move rests.
  const withClip = o.animation !== undefined || o.time !== undefined;
  const pose = withClip ? undefined : o.pose;
  if (o.pose !== undefined && withClip)
    io.err(`corskin: warning: --pose poses the character without an animation; ignored with ${o.animation !== undefined ? '--animation' : '--time'}`); // prettier-ignore
  if (o.animation !== undefined) {
    const i = Number(o.animation);
    clipName = clipNames.includes(o.animation)
      ? o.animation
      : Number.isInteger(i) && i >= 0 && i < clipNames.length
        ? clipNames[i]
        : undefined;
    if (clipName === undefined) {
      throw new CorskinError(
        `no animation "${o.animation}" (${clipNames.length ? `animations: ${clipNames.map((n, k) => `${k}: ${n}`).join(', ')}` : 'the file has none'})`,
        input,
      );
    }
  } else if (o.time !== undefined) {
    if (!clipNames.length) throw new CorskinError('--time given but the file has no animation', input);
    // Each skin's own first clip (model.animations keeps the clips that move it), not the
    // document's first animation, which may move a camera or nothing at all.
    if (!models.some((m) => m.animations.length))
      throw new CorskinError(
        `--time given but no animation moves the skin (animations: ${clipNames.map((n, k) => `${k}: ${n}`).join(', ')})`,
        input,
      );
  }
  const time = o.time ?? 0;
  const posed: PosedGeometry[] = [];
  /** The clip each skin was posed with, for the report: the skins of each clip. */
  const used = new Map<string, string[]>();
  const methodOptions = { ...o, skins: models.length };
  for (const model of models) {
    for (const w of model.warnings) io.err(`corskin: warning: ${input}: ${w}`);
    if (io.verbose && model.ignoredAnimationChannels)
      io.err(
        `corskin: note: ${input}: ${model.name}: ${model.ignoredAnimationChannels} animation channels on nodes that do not move the skin, ignored`,
      );
    ensureMethodData(io, input, model, o.method, methodOptions);
    const clip: AnimationClip | undefined =
      clipName !== undefined
        ? model.animations.find((c) => c.name === clipName)
        : o.time !== undefined
          ? model.animations[0]
          : undefined;
    if (clipName !== undefined && !clip)
      io.err(
        `corskin: warning: ${input}: animation "${clipName}" does not move ${model.name}${model.animations.length ? ` (its animations: ${model.animations.map((c) => c.name).join(', ')})` : ''}; posed at rest`,
      );
    if (clip) used.set(clip.name, [...(used.get(clip.name) ?? []), model.name]);
    if (clip && time > clip.duration)
      io.err(
        `corskin: warning: time ${time} s is past the end of "${clip.name}" (${clip.duration.toFixed(3)} s); using its last frame`,
      );
    let skinning: Float64Array;
    try {
      skinning =
        !clip && pose === 'bind'
          ? bindPoseSkinningMatrices(model.skeleton)
          : skinningMatrices(
              model.skeleton,
              clip
                ? samplePose(model.skeleton, clip, time)
                : pose === 'stress' || pose === 'stress-half'
                  ? stressPose(model.skeleton, pose === 'stress' ? 1 : 0.5)
                  : restPose(model.skeleton),
            );
    } catch (e) {
      // The library names the joint; the command names the file and the skin too.
      if (e instanceof CorskinError && !e.file)
        throw new CorskinError(`${model.name}: ${e.message}; nothing written`, input, { cause: e });
      throw e;
    }
    // Posed far from the origin, about its first joint instead, the move written as the node's
    // translation: 32-bit floats resolve the positions as near the origin.
    const origin = farShift(skinning, boundingBoxDiagonal(model.mesh.positions));
    shiftSkinning(skinning, origin);
    const weights = sampleMorphWeights(model.morphGroups, clip?.morphChannels ?? [], time);
    const limited = limitInfluences(model.mesh, o.influences ?? DEFAULT_INFLUENCES);
    if (limited.verticesAffected) {
      io.err(
        `corskin: ${input}: ${model.name}: kept the ${o.influences ?? DEFAULT_INFLUENCES} largest of up to ${model.mesh.influences} influences per vertex; dropped influences on ${limited.verticesAffected} vertices (largest dropped weight ${limited.largestDroppedWeight.toFixed(4)}), renormalised`,
      );
    }
    const mesh = applyMorphTargets(limited.mesh, model.morphGroups, weights);
    const result = methodInfo(o.method).needsRig
      ? deformInto(createMethodDeformer(io, document, model, o.method, input, methodOptions), mesh, skinning)
      : deform(o.method as SkinningMethod, mesh, skinning);
    for (const [what, a] of [
      ['position', result.positions],
      ['normal', result.normals],
    ] as const) {
      const bad = a ? firstNonFinite(a) : -1;
      if (bad >= 0)
        throw new CorskinError(
          `${model.name}: the pose gives vertex ${Math.floor(bad / 3)} a non-finite ${what} (a degenerate joint transform?); nothing written`,
          input,
        );
    }
    posed.push({ ...result, reflected: skinningReflects(skinning), origin });
  }
  if (lower.endsWith('.obj')) {
    const groups = models.flatMap((model, m) =>
      model.parts.map((part, k) => {
        const a = part.vertexOffset,
          b = a + part.vertexCount;
        const { positions, origin, reflected } = posed[m];
        const tris = partTriangles(model, part, reflected);
        const at = positions.subarray(3 * a, 3 * b);
        return {
          name: `${model.name}_primitive${k}`,
          positions: origin ? Float64Array.from(at, (x, i) => x + origin[i % 3]) : at,
          normals: part.hasNormals ? posed[m].normals?.subarray(3 * a, 3 * b) : undefined,
          triangles: tris,
        };
      }),
    );
    await writeFileAtomic(o.output, formatObj(groups, `${input} deformed by corskin (${o.method})`));
  } else {
    await bakePosedGeometry(document, models, posed);
    await writeDocument(document, o.output, { compress: o.compress, inputs: [input], force: o.force });
  }
  const vertices = models.reduce((s, m) => s + m.mesh.positions.length / 3, 0);
  const posedSkins = [...used.values()].flat().length;
  const when = used.size
    ? `${[...used]
        .map(([clip, skins]) =>
          models.length === 1
            ? `"${clip}"`
            : `"${clip}" (${skins.length === models.length ? 'every skin' : skins.length > 3 ? `${skins.length} skins` : skins.join(', ')})`,
        )
        .join(
          ', ',
        )} at ${time} s${clipName === undefined ? `, the ${posedSkins > 1 ? "skins' first animations" : "skin's first animation"}` : ''}`
    : clipName !== undefined
      ? `rest pose: "${clipName}" moves no skin`
      : pose === 'bind'
        ? 'bind pose: inverse bind matrices'
        : pose === 'stress' || pose === 'stress-half'
          ? `the evaluation's stress pose${pose === 'stress' ? '' : ' at half amplitude'}`
          : "rest pose: the nodes' own transforms";
  const morphed = models.some((m) => m.morphGroups.length) ? '; morph targets applied before skinning' : '';
  io.out(`wrote ${o.output}: ${vertices} vertices deformed by ${methodInfo(o.method).label} (${when}${morphed})`);
}
