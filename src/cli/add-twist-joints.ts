/**
 * `corskin add-twist-joints`: split bones with twist joints.
 * @module
 */
import { checkNotOverwritingInput, checkOutputPath } from '../io/files.js';
import { readDocument, writeDocument } from '../io/node-io.js';
import { addTwistJoints } from '../io/twist-joints.js';
import type { Io } from './ui.js';

/** Runs `corskin add-twist-joints`. @throws CorskinError on bad input */
export async function addTwistJointsCommand(
  io: Io,
  input: string,
  o: { joints: string[]; output: string; force?: boolean },
): Promise<void> {
  checkOutputPath(o.output, ['.glb', '.gltf']);
  checkNotOverwritingInput(o.output, [input], !!o.force);
  const document = await readDocument(input);
  const r = await addTwistJoints(document, o.joints, input);
  await writeDocument(document, o.output, { inputs: [input], force: o.force });
  io.out(
    `wrote ${o.output}: added ${r.added.join(', ')}; ${r.influences} influence slots per vertex` +
      (r.droppedInfluences ? `, ${r.droppedInfluences} vertices dropped their smallest influence` : '') +
      (r.recomputedCenters ? '; centers of rotation recomputed' : ''),
  );
}
