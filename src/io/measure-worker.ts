/**
 * Worker-thread side of {@link measureBakeParallel} (`measure-parallel.ts`): plays a slice of a
 * bake's measure (`measureSteps`) and answers its tally as plain data.
 *
 * @module
 */
import workerpool from 'workerpool';
import { measureSteps, measureTally } from '../bake/measure.js';
import { simdLbs, tallyState, type MeasureJob } from './measure-parallel.js';

workerpool.worker({
  async run({ plan, original, baked, reference }: MeasureJob) {
    const lbs = await simdLbs(original, baked);
    const noMethod = () => {
      throw new Error('measureBakeParallel: a time without the reference was sent to a worker');
    };
    const tally = measureTally(plan, original, baked);
    const steps = measureSteps(plan, original, baked, noMethod, lbs, reference, tally);
    while (!steps.next().done); // every time of the slice
    const state = tallyState(tally);
    return new workerpool.Transfer(state, state.streams.map((s) => s.values.buffer) as ArrayBuffer[]);
  },
});
