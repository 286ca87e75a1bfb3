/**
 * `corskin convert`: libigl OBJ + DMAT (+ TGF, + animation DMAT) → skinned glTF.
 * @module
 */
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
  await writeDocument(document, o.output, { inputs, force: o.force });
  const dropped = r.verticesAffected
    ? `weights beyond the ${r.influences} largest dropped on ${r.verticesAffected} vertices (largest dropped ${r.largestDroppedWeight.toFixed(4)}${r.negativeWeights ? `, ${r.negativeWeights} negative weights clamped` : ''}), renormalised`
    : 'no weight dropped';
  io.out(
    `wrote ${o.output}: ${r.vertices} vertices, ${r.triangles} triangles, ${r.joints} joints, ${r.influences} influences; ${dropped}` +
      (r.frames ? `; animation of ${r.frames} frames at ${o.fps} fps` : ''),
  );
}
