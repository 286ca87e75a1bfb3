// corskin's WebAssembly SIMD kernels in the browser: the bar of the quality benchmark, twisted
// and bent, deformed by the SIMD deformers and by the JavaScript ones (the built package, as a
// bundler would load it).
import { skinningMatrices } from '/dist/core/pose.js';
import { boundingBoxDiagonal } from '/dist/core/mesh.js';
import { computeCentersOfRotation } from '/dist/cor/precompute.js';
import { deform } from '/dist/deformers/index.js';
import { createDeltaMushDeformer } from '/dist/methods/dm/deformer.js';
import { createStretchDeformer, stretchRigFromSkeleton } from '/dist/deformers/stretch.js';
import { createBar } from '/dist/evaluation/bar.js';
import { bendPose, twistPose } from '/dist/evaluation/standard-poses.js';
import { prepareMethod } from '/dist/methods/index.js';
import { createSimdDeformer } from '/dist/wasm/simd-skinning.js';

/**
 * The JavaScript deformer of a method prepared per mesh (Delta Mush, the templates: their rig
 * left on the mesh for the SIMD kernels) or per rig (stretch): the posed positions.
 */
function prepared(deformer, mesh, S) {
  const out = { positions: new Float32Array(mesh.positions.length) };
  deformer(mesh, S, out);
  return out.positions;
}

/** Largest |SIMD − JavaScript| position difference over the poses, / bounding-box diagonal. */
window.simdParity = async (method) => {
  const { mesh, skeleton } = createBar();
  mesh.centersOfRotation = computeCentersOfRotation(mesh).centers;
  const rig = stretchRigFromSkeleton(skeleton);
  const js = {
    dm: () => createDeltaMushDeformer(mesh),
    stretch: () => createStretchDeformer(rig),
    templates: () => prepareMethod('templates', { mesh, skeleton }),
  }[method]?.();
  const simd = await createSimdDeformer(mesh, method, method === 'stretch' ? { rig } : undefined);
  const diag = boundingBoxDiagonal(mesh.positions);
  let error = 0;
  let moved = 0;
  for (const pose of [twistPose(skeleton, 1, 2.4), bendPose(skeleton, 1, [0, 0, 1], 2)]) {
    const S = skinningMatrices(skeleton, pose);
    simd.deform(S);
    const ref = js ? prepared(js, mesh, S) : deform(method, mesh, S).positions;
    const out = simd.output.positions;
    for (let i = 0; i < ref.length; i++) {
      error = Math.max(error, Math.abs(out[i] - ref[i]) / diag);
      moved = Math.max(moved, Math.abs(out[i] - mesh.positions[i]) / diag);
    }
  }
  return { error, moved, vertices: mesh.positions.length / 3 };
};
window.ready = true;
