/**
 * Every kind of bake in another client: Blender 3.4's own glTF importer and armature (run
 * headless, `helpers/blender.ts`) play the files `corskin bake` writes — helper joints, corrective
 * morph targets (Blender's shape keys, driven by the clip's weights channel), and both — as
 * corskin's linear blend skinning plays them (morph targets applied first), at three clip times;
 * morph targets one per sample and as a basis (the Fox's bake picks a basis; CesiumMan's is asked
 * for one), whose weights stay in [0, 1], the range Blender's shape keys take; and targets whose
 * positions are 16-bit integers (KHR_mesh_quantization), their scale in the weights.
 * CesiumMan (rest ≠ bind), the Soldier (armature scaled 0.01, a clip of length 0 among its three)
 * and the Fox (armature scaled 0.0254). The times are samples of the bake: between samples Blender
 * interpolates a rotation channel component by component (then normalises), where glTF asks for
 * slerp, so a helper that turns fast between two keys plays a little differently there (the Fox:
 * 1.1e-4 of the diagonal between samples at 30 samples/s, 2.5e-4 at 10).
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { samplePose } from '../src/core/animation.js';
import { boundingBoxDiagonal } from '../src/core/mesh.js';
import { applyMorphTargets, sampleMorphWeights } from '../src/core/morph.js';
import { bakeSampleTimes } from '../src/bake/samples.js';
import { skinningMatrices } from '../src/core/pose.js';
import { deformers } from '../src/deformers/index.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { BLENDER, matchVertices, runBlender } from './helpers/blender.js';
import { runCli } from './helpers/cli.js';
import { CESIUM_MAN, scratch, SHARED } from './helpers/data.js';

const tmp = scratch();
afterAll(() => tmp.cleanup());

/** Samples per second of the bakes. */
const RATE = 5;

/**
 * Largest distance between Blender's playback of `file` and corskin's LBS of it, ÷ the posed
 * diagonal, at three samples of the first clip (the one Blender's importer makes active).
 */
async function blenderVsCorskin(file: string): Promise<number> {
  const [model] = extractSkinnedModels(await readDocument(file), file);
  const clip = model.animations[0];
  const samples = bakeSampleTimes(clip.duration, RATE);
  const TIMES = [0.2, 0.5, 0.8].map((u) => samples[Math.round(u * (samples.length - 1))]);
  const posed = TIMES.map((t) => {
    const S = skinningMatrices(model.skeleton, samplePose(model.skeleton, clip, t));
    const weights = sampleMorphWeights(model.morphGroups, clip.morphChannels ?? [], t);
    const out = { positions: new Float32Array(model.mesh.positions.length) };
    deformers.lbs(applyMorphTargets(model.mesh, model.morphGroups, weights), S, out);
    return out.positions;
  });
  // Every skinned object Blender made of the skin (a skin on several meshes is several objects).
  const played = runBlender(tmp.dir, file, TIMES).meshes;
  const lbs = TIMES.map((_, k) => played.flatMap((m) => m.lbs[k]));
  // Blender's vertices (welded, reordered) matched to corskin's at the first time.
  const map = matchVertices(posed[0], lbs[0], 1e-3);
  let worst = 0;
  posed.forEach((ours, k) => {
    for (let b = 0; b < map.length; b++)
      for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(ours[3 * map[b] + c] - lbs[k][3 * b + c]));
  });
  return worst / boundingBoxDiagonal(posed[0]);
}

describe("every kind of bake in Blender 3.4's importer", () => {
  it.skipIf(!BLENDER).each([
    [
      'CesiumMan',
      'cor',
      CESIUM_MAN,
      ['helpers', 'helpers --influences 8', 'morphs', 'helpers+morphs', 'morphs --targets basis', 'helpers+morphs --target-positions short'], // prettier-ignore
    ],
    ['Soldier', 'dqs', join(SHARED, 'characters/Soldier.glb'), ['helpers', 'morphs', 'helpers+morphs', 'morphs --target-positions short']], // prettier-ignore
    ['Fox', 'dqs', join(SHARED, 'characters/Fox.glb'), ['helpers', 'morphs', 'helpers+morphs']],
  ] as const)(
    '%s, %s: Blender plays each kind as corskin does, within 1e-4 of the diagonal',
    async (name, method, input, kinds) => {
      for (const kind of kinds) {
        const out = join(tmp.dir, `${name}-${kind.replace(/\W+/g, '-')}.glb`);
        const r = await runCli(
          'bake',
          input,
          '--method',
          method,
          '--as',
          ...kind.split(' '),
          '--rate',
          `${RATE}`,
          '-o',
          out,
        );
        expect(r.code, r.stderr).toBe(0);
        // The integer kinds do write integer targets (not every one fallen back to float).
        if (kind.includes('short'))
          expect(r.stdout).toMatch(
            /the positions as integers \(KHR_mesh_quantization\): (every target|\d+) in (8|16) bits/,
          );
        const integers = r.stdout.match(/the positions as integers[^:]*: ([^,]*(, \d+ in 16 bits)?)/)?.[1];
        const distance = await blenderVsCorskin(out);
        console.log(
          `${name} ${method} ${kind}: Blender vs corskin ${distance.toExponential(2)} of the diagonal${integers ? ` (${integers})` : ''}`,
        );
        expect(distance, kind).toBeLessThan(1e-4);
      }
    },
    900_000,
  );
});
