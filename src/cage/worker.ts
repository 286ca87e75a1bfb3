/**
 * Worker-thread side of {@link bindToCageParallel}: binds a range of skin vertices, through
 * workerpool. Results go back as transferred buffers.
 *
 * @module
 */
import workerpool from 'workerpool';
import { bindRange, type CageBindOptions, type CageCoordinates } from './bind.js';
import type { Cage } from './cage.js';

workerpool.worker({
  bind(positions: Float32Array, cage: Cage, params: { method: CageCoordinates; resolution: number; influences: number }, begin: number, end: number, correction: CageBindOptions['correction']) {
    const k = params.influences;
    const indices = new Uint32Array(k * (end - begin));
    const weights = new Float32Array(k * (end - begin));
    const outside = bindRange(positions, cage, params, begin, end, indices, weights, begin, correction);
    return new workerpool.Transfer({ indices, weights, outside }, [indices.buffer, weights.buffer]);
  },
});
