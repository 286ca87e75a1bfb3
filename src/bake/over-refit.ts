/**
 * The helpers refitted at the samples where a fitted vertex is past plain LBS's largest distance
 * over the mesh: before the never-worse guard (`never-worse.ts`) gives such a vertex back its own
 * influences — where it then plays plain LBS's distance at every sample, its worst included — the
 * bone update (Le & Deng 2012, Sec. 3.3) at that sample is solved again with it weighing more.
 * Ybot's CoR bake at the defaults: one vertex, 0.29 of LBS's largest distance fitted and 0.94 of
 * it given back, was over at six samples where the mesh's largest is 0.09–0.13 of it; refitted
 * there, it is kept, and the bake's max falls from 0.94 to 0.45 of LBS's.
 *
 * @module
 */
import { fitViewsAt, helperMembers, type FitData } from './fit.js';
import { updateHelpers } from './ssdr-helpers.js';
import { verticesErrors } from './ssdr.js';

/**
 * How much a vertex past the bound weighs in its sample's refit, tried in turn (as a member listed
 * that many times): the first that leaves fewer vertices past the bound, and none newly past it,
 * is kept.
 */
export const OVER_REFIT_WEIGHTS = [4, 16, 64];

/** What {@link refitOverSamples} did. */
export interface OverRefit {
  /** Samples with a fitted vertex past the bound. */
  samples: number;
  /** Of those, the samples whose helpers were refitted. */
  refitted: number;
  /** (sample, vertex) pairs past the bound before and after. */
  before: number;
  after: number;
}

/**
 * At each listed sample, the fitted vertices whose distance to the method is past plain LBS's
 * largest over the whole mesh there plus `tolerance`; where there are some, every helper's
 * transform at that sample is solved again (`passes` sweeps of the bone update, the weights as
 * they are) with those vertices weighing {@link OVER_REFIT_WEIGHTS} in turn, and kept where fewer
 * vertices are past the bound and none newly past it — else the transforms are restored. The
 * normals the fit matches (`SsdrProblem.normals`) take part in the solve; the distances are the
 * positions' alone, as the guard measures them.
 * @param data the fit, converged over every listed sample: its transforms at those samples are
 *   rewritten where kept
 * @param lbsSquared per sample (the fit's numbering), plain LBS's squared distance to the method
 *   at every mesh vertex (posed units²)
 * @param listed the samples to look at (the keyed ones)
 * @param tolerance how far past LBS's largest a vertex may be (posed units)
 * @param passes sweeps over the helpers in each solve
 */
export function refitOverSamples(
  data: FitData,
  lbsSquared: readonly Float64Array[],
  listed: Iterable<number>,
  tolerance: number,
  passes: number,
): OverRefit {
  const { n, H } = data;
  const all = Int32Array.from({ length: n }, (_, a) => a);
  const [sum, max, squared] = [new Float64Array(n), new Float64Array(n), new Float32Array(n)];
  const members = helperMembers(data);
  const isOver = new Uint8Array(n);
  const done: OverRefit = { samples: 0, refitted: 0, before: 0, after: 0 };
  for (const t of listed) {
    let largest = 0;
    for (const d of lbsSquared[t]) largest = Math.max(largest, d);
    const bound = (Math.sqrt(largest) + tolerance) ** 2;
    const views = fitViewsAt(data, [t]);
    const positions = { ...views.problem, normals: undefined };
    // The vertices past the bound at t now, into `squared`.
    const past = () => {
      verticesErrors(positions, views.model, all, sum, max, squared);
      return all.filter((a) => squared[a] > bound);
    };
    const over = past();
    if (!over.length) continue;
    done.samples++;
    done.before += over.length;
    for (const a of over) isOver[a] = 1;
    const at = 16 * H * t;
    const saved = data.transforms.slice(at, at + 16 * H);
    let left = over.length;
    for (const weight of OVER_REFIT_WEIGHTS) {
      const weighted = members.map((list) => Int32Array.from(Array.from(list).flatMap((a) => Array<number>(isOver[a] ? weight : 1).fill(a)))); // prettier-ignore
      updateHelpers(views.problem, views.model, weighted, passes, [0], data.priorStrength);
      const now = past();
      if (now.length < over.length && now.every((a) => isOver[a])) {
        left = now.length;
        break;
      }
      data.transforms.set(saved, at);
    }
    if (left < over.length) done.refitted++;
    done.after += left;
    for (const a of over) isOver[a] = 0;
  }
  return done;
}
