// One fuzz case per message, in a worker thread (the parent kills it when a case hangs): the
// file goes through read → extract → CoR precomputation → every deformer → write → re-read,
// as the CLI would run it. Posts { outcome, message }.
import { parentPort } from 'node:worker_threads';
import { join } from 'node:path';
import { firstNonFinite } from '../dist/core/mesh.js';
import { restPose, skinningMatrices } from '../dist/core/pose.js';
import { computeCentersOfRotation } from '../dist/cor/precompute.js';
import { deform } from '../dist/deformers/index.js';
import { extractSkinnedModels, setCentersOfRotation } from '../dist/io/gltf.js';
import { readDocument, writeDocument } from '../dist/io/node-io.js';
import { readDmat, readObj, readTgf } from '../dist/io/libigl.js';
import { buildSkinnedDocument } from '../dist/io/convert.js';

const METHODS = ['lbs', 'dqs', 'sbs', 'lms', 'cor'];

async function run({ format, dir, files }) {
  let document;
  let input;
  if (format === 'libigl') {
    const [mesh, weights, skeleton] = await Promise.all([readObj(files.obj), readDmat(files.dmat), readTgf(files.tgf)]);
    document = buildSkinnedDocument({ mesh, weights, skeleton, files }).document;
    input = files.obj;
  } else {
    input = files.gltf;
    document = await readDocument(input);
  }
  const models = extractSkinnedModels(document, input);
  for (const model of models) {
    const centers = computeCentersOfRotation(model.mesh, { maxSubdividedTriangles: 2e6 }).centers;
    if (firstNonFinite(centers) >= 0) return { outcome: 'non-finite', message: 'centers of rotation' };
    setCentersOfRotation(document, model, centers, { sigma: 0.1, epsilon: 0.1 });
    const S = skinningMatrices(model.skeleton, restPose(model.skeleton));
    for (const method of METHODS) {
      const out = deform(method, model.mesh, S);
      // The CLI refuses to write a non-finite result (a clear error): so does this.
      if (firstNonFinite(out.positions) >= 0)
        return { outcome: 'refused', message: `${method}: non-finite result refused` };
    }
  }
  const out = join(dir, 'out.glb');
  await writeDocument(document, out, { inputs: Object.values(files) });
  try {
    const again = await readDocument(out);
    extractSkinnedModels(again, out);
  } catch (e) {
    return { outcome: 'reread-failed', message: String(e.message).slice(0, 200) };
  }
  return { outcome: 'ok' };
}

parentPort.on('message', async (task) => {
  try {
    parentPort.postMessage(await run(task));
  } catch (e) {
    const clean = e && e.name === 'CorskinError';
    parentPort.postMessage({ outcome: clean ? 'refused' : 'uncaught', message: String(e?.stack ?? e).slice(0, 400) });
  }
});
