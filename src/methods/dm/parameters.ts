/**
 * The parameters of Delta Mush (Mancewicz, Derksen, Rijpkema & Wilson 2014), named as the DCC
 * tools name them, with Blender's Corrective Smooth defaults, their checks, and the options
 * every surface (CLI, viewer) offers for them. No computation here: the CLI reads it at start-up.
 *
 * @module
 */
import { CorskinError } from '../../core/errors.js';
import type { MethodParameter } from '../parameter.js';

/**
 * How one smoothing pass averages a vertex's neighbours: `uniform` (every edge alike, Maya's
 * deltaMush and Blender's "Simple") or `length-weighted` (each edge by its length, Blender's
 * "Length Weight").
 */
export type DeltaMushSmoothing = 'uniform' | 'length-weighted';

/** The parameters of Delta Mush. */
export interface DeltaMushParameters {
  /** Smoothing passes n, a whole number ≥ 0 (0: the result is LBS); default 5. */
  iterations?: number;
  /** Step size (Blender's "Factor", Maya's "Step"), in (0, 1]; default 0.5. */
  step?: number;
  /** Neighbour weighting of a pass; default `uniform`. */
  smoothing?: DeltaMushSmoothing;
  /** Border vertices (on an edge of one triangle) stay where LBS puts them; default false. */
  pinBorders?: boolean;
}

/** Blender 3.4's Corrective Smooth defaults (iterations 5, factor 0.5, Simple, borders free). */
export const DELTA_MUSH_DEFAULTS: Readonly<Required<DeltaMushParameters>> = Object.freeze({
  iterations: 5,
  step: 0.5,
  smoothing: 'uniform',
  pinBorders: false,
});

/** Most smoothing passes: each costs one pass over the edges per frame. */
export const MAX_DELTA_MUSH_ITERATIONS = 10_000;

/**
 * Checks the parameters and fills in the defaults.
 * @throws CorskinError naming the parameter: `iterations` not a whole number in
 *   [0, {@link MAX_DELTA_MUSH_ITERATIONS}]; `step` outside (0, 1]; an unknown `smoothing`
 */
export function resolveDeltaMushParameters(options: DeltaMushParameters = {}): Required<DeltaMushParameters> {
  const o = { ...DELTA_MUSH_DEFAULTS, ...definedOnly(options) };
  if (!Number.isInteger(o.iterations) || o.iterations < 0 || o.iterations > MAX_DELTA_MUSH_ITERATIONS)
    throw new CorskinError(
      `Delta Mush iterations must be a whole number from 0 to ${MAX_DELTA_MUSH_ITERATIONS} (got ${o.iterations})`,
    );
  if (!(o.step > 0 && o.step <= 1))
    throw new CorskinError(
      `Delta Mush step must lie in (0, 1] (got ${o.step})${o.step > 1 ? ': beyond 1 a pass overshoots' : ''}`,
    );
  if (o.smoothing !== 'uniform' && o.smoothing !== 'length-weighted')
    throw new CorskinError(
      `Delta Mush smoothing must be "uniform" or "length-weighted" (got "${String(o.smoothing)}")`,
    );
  return { iterations: o.iterations, step: o.step, smoothing: o.smoothing, pinBorders: Boolean(o.pinBorders) };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Delta Mush's parameters as every surface offers them (the CLI's `--iterations`, …). */
export const DELTA_MUSH_PARAMETERS: readonly MethodParameter[] = [
  {
    key: 'iterations',
    flag: 'iterations',
    kind: 'integer',
    description: `smoothing passes (default ${DELTA_MUSH_DEFAULTS.iterations}, as Blender's Corrective Smooth)`,
    default: DELTA_MUSH_DEFAULTS.iterations,
  },
  {
    key: 'step',
    flag: 'step',
    kind: 'number',
    description: `step size of a pass, in (0, 1] (default ${DELTA_MUSH_DEFAULTS.step})`,
    default: DELTA_MUSH_DEFAULTS.step,
  },
  {
    key: 'smoothing',
    flag: 'smoothing-kind',
    kind: 'choice',
    choices: ['uniform', 'length-weighted'],
    description: 'neighbour weighting of a pass (default uniform)',
    default: DELTA_MUSH_DEFAULTS.smoothing,
  },
  {
    key: 'pinBorders',
    flag: 'pin-borders',
    kind: 'flag',
    description: 'keep border vertices where LBS puts them',
    default: false,
  },
];
