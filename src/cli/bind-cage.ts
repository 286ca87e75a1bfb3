/**
 * `corskin bind-cage`: bind a character's skin to a cage (Ju, Zhou, van de Panne, Cohen-Or,
 * Neumann, "Reusable Skinning Templates Using Cage-based Deformations", SIGGRAPH Asia 2008) with
 * positive mean value coordinates (Lipman, Kopf, Cohen-Or, Levin, SGP 2007) or mean value
 * coordinates (Ju, Schaefer, Warren, SIGGRAPH 2005), and store the cage, skinned to the
 * character's skeleton, and the binding in the glTF file.
 * @module
 */
import { bindToCageParallel } from '../cage/parallel.js';
import type { CageCoordinates } from '../cage/bind.js';
import { skinCageToSkeleton } from '../cage/rig.js';
import { checkCage } from '../cage/cage.js';
import { starCage } from '../cage/star.js';
import { CorskinError } from '../core/errors.js';
import { writeCageRig } from '../io/cage-gltf.js';
import { checkNotOverwritingInput, checkOutputPath } from '../io/files.js';
import { extractSkinnedModels } from '../io/gltf.js';
import { readCage } from '../io/read-cage.js';
import { readDocument, writeDocument } from '../io/node-io.js';
import { progress, type Io } from './ui.js';

/** Options of {@link bindCageCommand}. */
export interface BindCageOptions {
  output: string;
  cage: string;
  /** pmvc or mvc (`--coordinates`). */
  coordinates: CageCoordinates;
  resolution?: number;
  influences?: number;
  correction?: 'positive' | 'linear';
  threads?: number;
  force?: boolean;
  compress?: boolean;
}

/** Runs `corskin bind-cage`. @throws CorskinError on bad input (nothing written) */
export async function bindCageCommand(io: Io, input: string, o: BindCageOptions): Promise<void> {
  checkOutputPath(o.output, ['.glb', '.gltf']);
  checkNotOverwritingInput(o.output, o.cage === 'auto' ? [input] : [input, o.cage], !!o.force);
  const start = performance.now();
  const auto = o.cage === 'auto';
  const document = await readDocument(input);
  const models = extractSkinnedModels(document, input);
  if (models.length > 1)
    throw new CorskinError(
      `has ${models.length} skins; bind-cage binds a file with one skin (one cage per character)`,
      input,
    );
  const [model] = models;
  const cage = auto ? starCage(model.mesh.positions) : await readCage(o.cage);
  checkCage(cage, o.cage);
  const bar = progress(io, 'cage binding');
  let binding;
  try {
    binding = await bindToCageParallel(model.mesh.positions, cage, {
      method: o.coordinates,
      resolution: o.resolution,
      influences: o.influences,
      correction: o.correction,
      threads: o.threads,
      onProgress: bar.update,
      file: input, // the cage is checked: what remains is about the skin (vertices outside)
    });
  } finally {
    bar.stop();
  }
  const cageSkin = skinCageToSkeleton(cage, model.skeleton);
  writeCageRig(document, model, {
    cage,
    binding,
    cageInfluences: cageSkin.influences,
    cageJoints: cageSkin.joints,
    cageWeights: cageSkin.weights,
  });
  await writeDocument(document, o.output, {
    compress: o.compress,
    inputs: auto ? [input] : [input, o.cage],
    force: o.force,
  });
  let negative = 0;
  for (const w of binding.weights) if (w < 0) negative++;
  io.out(
    `${model.name}: ${model.mesh.positions.length / 3} vertices bound to a cage of ${cage.positions.length / 3} vertices and ${cage.triangles.length / 3} triangles (${o.coordinates.toUpperCase()}${binding.resolution ? `, ${binding.resolution}² texels per cube face` : ''}, ${binding.influences} per vertex${negative ? `, ${negative} negative weights` : ''})`,
  );
  io.out(`wrote ${o.output} in ${((performance.now() - start) / 1000).toFixed(2)} s`);
}
