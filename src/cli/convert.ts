/**
 * `corskin convert`: libigl OBJ + DMAT (+ TGF, + animation DMAT) → skinned glTF.
 * @module
 */
import type { Accessor, Document } from '@gltf-transform/core';
import { CorskinError } from '../core/errors.js';
import { buildSkinnedDocument } from '../io/convert.js';
import { checkNotOverwritingInput, checkOutputPath } from '../io/files.js';
import { writeDocument } from '../io/node-io.js';
import { decodeBoneAnimation, readDmat, readObj, readTgf } from '../io/libigl.js';
import type { Io } from './ui.js';

/** Options of {@link convertCommand} (as parsed by commander). */
export interface ConvertOptions {
  weights: string;
  skeleton?: string;
  animation?: string;
  fps: number;
  influences: '4' | '8';
  output: string;
  force?: boolean;
}

/** Runs `corskin convert`. @throws CorskinError on bad input */
export async function convertCommand(io: Io, meshPath: string, o: ConvertOptions): Promise<void> {
  const inputs = [meshPath, o.weights, o.skeleton, o.animation].filter((x): x is string => !!x);
  checkOutputPath(o.output, ['.glb', '.gltf']);
  checkNotOverwritingInput(o.output, inputs, !!o.force);
  const mesh = await readObj(meshPath);
  const weights = await readDmat(o.weights);
  const skeleton = o.skeleton ? await readTgf(o.skeleton) : undefined;
  const boneCount = skeleton ? skeleton.bones.length / 2 : weights.cols;
  const animation = o.animation ? decodeBoneAnimation(await readDmat(o.animation), boneCount, o.animation) : undefined;
  const name = meshPath
    .split(/[\\/]/)
    .pop()!
    .replace(/\.obj$/i, '');
  const { document, report: r } = buildSkinnedDocument({
    mesh,
    weights,
    skeleton,
    animation,
    fps: o.fps,
    influences: Number(o.influences) as 4 | 8,
    name,
    files: { mesh: meshPath, weights: o.weights, skeleton: o.skeleton, animation: o.animation },
  });
  checkStoredFloats(document, { mesh: meshPath, weights: o.weights, skeleton: o.skeleton, animation: o.animation });
  await writeDocument(document, o.output, { inputs, force: o.force });
  const dropped = r.verticesAffected
    ? `weights beyond the ${r.influences} largest dropped on ${r.verticesAffected} vertices (largest dropped ${r.largestDroppedWeight.toFixed(4)}${r.negativeWeights ? `, ${r.negativeWeights} negative weights clamped` : ''}), renormalised`
    : 'no weight dropped';
  io.out(
    `wrote ${o.output}: ${r.vertices} vertices, ${r.triangles} triangles, ${r.joints} joints, ${r.influences} influences; ${dropped}` +
      (r.frames ? `; animation of ${r.frames} frames at ${o.fps} fps` : ''),
  );
}

/** Index of the first non-finite value of an accessor's array, or -1. */
function firstNonFiniteValue(accessor: Accessor | null): number {
  const a = accessor?.getArray();
  if (!a) return -1;
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i])) return i;
  return -1;
}

/**
 * Checks a document built by `convert` (or `weights`) as glTF stores it, in 32-bit floats, before
 * anything is written: a value finite as the inputs' doubles may not be finite there (an animation
 * transform composed with a joint position, beyond ±3.4e38), and corskin would refuse the file it
 * wrote.
 * @param files the inputs, to name the one a non-finite value comes from
 * @throws CorskinError naming that input and the vertex, bone or frame
 */
export function checkStoredFloats(
  document: Document,
  files: { mesh: string; weights?: string; skeleton?: string; animation?: string },
): void {
  const root = document.getRoot();
  for (const mesh of root.listMeshes())
    for (const prim of mesh.listPrimitives())
      for (const semantic of prim.listSemantics()) {
        const accessor = prim.getAttribute(semantic)!;
        const k = firstNonFiniteValue(accessor);
        if (k >= 0)
          throw new CorskinError(
            `vertex ${Math.floor(k / accessor.getElementSize())}: its ${semantic} is out of the 32-bit float range (±3.4e38) glTF stores; nothing written`,
            semantic.startsWith('WEIGHTS') ? (files.weights ?? files.mesh) : files.mesh,
          );
      }
  for (const skin of root.listSkins()) {
    const k = firstNonFiniteValue(skin.getInverseBindMatrices());
    if (k >= 0)
      throw new CorskinError(
        `joint "${skin.listJoints()[k >> 4]?.getName()}": its inverse bind matrix is out of the 32-bit float range (±3.4e38) glTF stores; nothing written`,
        files.skeleton ?? files.weights ?? files.mesh,
      );
  }
  for (const animation of root.listAnimations())
    for (const channel of animation.listChannels()) {
      const output = channel.getSampler()?.getOutput() ?? null;
      const k = firstNonFiniteValue(output);
      if (k >= 0)
        throw new CorskinError(
          `frame ${Math.floor(k / output!.getElementSize())}: the ${channel.getTargetPath()} of "${channel.getTargetNode()?.getName()}" is out of the 32-bit float range (±3.4e38) glTF stores; nothing written`,
          files.animation ?? files.mesh,
        );
    }
}
