/**
 * The commands that prepare a file: `convert`, `precompute`, `bind-cage` (a method module adds its
 * own command group: `commands.ts` in its folder).
 * Each command's module is imported when the command runs.
 *
 * @module
 */
import { Option, type Command } from 'commander';
import { warnIgnored, type Io } from './ui.js';
import { PRECOMPUTED_METHODS } from '../deformers/registry.js';
import { DEFAULT_EPSILON, DEFAULT_MAX_SUBDIVIDED_TRIANGLES, DEFAULT_SIGMA } from '../cor/parameters.js';
import { DEFAULT_CAGE_INFLUENCES } from '../cage/bind.js';
import { DEFAULT_PMVC_RESOLUTION, MAX_PMVC_RESOLUTION } from '../cage/pmvc.js';
import {
  positiveInteger,
  positiveNumber,
  threadCount,
  wholeNumberUpTo,
  withBatchOutput,
  withMethodParameters,
} from './options.js';

/** Adds the commands that prepare a file to `program`; their actions write through `io`. */
export function addPrepareCommands(program: Command, io: Io): void {
  program
    .command('convert')
    .description(
      'convert a libigl mesh (OBJ) with weights (DMAT), skeleton (TGF) and animation (DMAT) into a skinned .glb',
    )
    .argument('<mesh>', 'triangle mesh, .obj')
    .requiredOption('--weights <file>', 'weights, .dmat (one row per vertex, one column per bone or handle)')
    .option(
      '--skeleton <file>',
      'skeleton, .tgf (bone k = k-th edge = k-th weight column); without it, one joint per weight column',
    )
    .option('--animation <file>', 'per-frame bone transforms, .dmat (libigl elephant-anim layout)')
    .option('--fps <n>', 'frames per second of the animation', positiveNumber, 30)
    .addOption(new Option('--influences <k>', 'influences kept per vertex').choices(['4', '8']).default('4'))
    .requiredOption('-o, --output <file>', 'output .glb or .gltf')
    .option('--force', 'allow overwriting an input file')
    .action(async (mesh, opts) => (await import('./convert.js')).convertCommand(io, mesh, opts));

  withBatchOutput(
    withMethodParameters(
      program
        .command('precompute')
        .description(
          'compute the centers of rotation of every skin (Le & Hodgins 2016) and store them as _CENTER_OF_ROTATION; with --method ddm the Direct Delta Mush matrices (Le & Lewis 2019) as _DDM_* attributes; with --method templates the template cages and binding (Ju et al. 2008), as corskin templates build',
        )
        .argument('<inputs...>', 'skinned .glb or .gltf files')
        .addOption(
          new Option('--method <m>', 'the skinning method whose data to precompute')
            .choices(PRECOMPUTED_METHODS)
            .default('cor'),
        )
        .option('--sigma <s>', 'similarity kernel width σ (Le & Hodgins 2016, Eq. 1)', positiveNumber, DEFAULT_SIGMA)
        .option('--epsilon <e>', 'subdivision bound ε on weight distance per edge', positiveNumber, DEFAULT_EPSILON)
        .addOption(
          new Option(
            '--algorithm <a>',
            'cor: fast (binned evaluation, ≤ 1e-3 of the diagonal) or exact (Eq. 4 to rounding; slow on dense weights)',
          )
            .choices(['fast', 'exact'])
            .default('fast'),
        )
        .addOption(new Option('--exact', 'deprecated: --algorithm exact').hideHelp())
        .option(
          '--max-subdivided <n>',
          'refuse to subdivide into more sub-triangles than this (estimated first)',
          positiveNumber,
          DEFAULT_MAX_SUBDIVIDED_TRIANGLES,
        )
        .option(
          '--threads <n>',
          'worker threads for cor and ddm (templates run on one); output is identical for any count (default: all cores from 100,000 vertices up for cor, from 60,000 weighted influences up for ddm, else 1: starting workers costs more than it saves on smaller meshes)',
          threadCount,
        ),
      PRECOMPUTED_METHODS,
    ),
    '.glb or .gltf',
  ).action(async (inputs: string[], opts, command: Command) => {
    // The centers of rotation's own options, given for another method's data.
    if (opts.method !== 'cor')
      for (const flag of ['sigma', 'epsilon', 'algorithm', 'maxSubdivided', 'exact'])
        if (command.getOptionValueSource(flag) === 'cli')
          warnIgnored(io, `--${flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`, 'the centers of rotation (--method cor)', `with --method ${opts.method}`); // prettier-ignore
    if (opts.exact) {
      io.err('corskin: note: --exact is deprecated and will be removed in the next release; use --algorithm exact');
      opts.algorithm = 'exact';
    }
    await (await import('./batch.js')).runBatch(io, inputs, 'precompute', opts);
  });

  program
    .command('bind-cage')
    .description(
      'bind the skin to a cage (Ju et al. 2008) with positive mean value coordinates (Lipman et al. 2007) and store the cage, skinned to the skeleton, in the file',
    )
    .argument('<input>', 'skinned .glb or .gltf file (one skin)')
    .requiredOption(
      '--cage <file>',
      "closed, outward-facing triangle cage around the skin (.obj, .glb or .gltf), in the skin's bind space; or auto: a star-shaped 320-triangle cage built around the skin",
    )
    .addOption(
      new Option(
        '--coordinates <c>',
        'pmvc (positive mean value coordinates, visibility-aware; Lipman et al. 2007) or mvc (Ju, Schaefer, Warren 2005)',
      )
        .choices(['pmvc', 'mvc'])
        .default('pmvc'),
    )
    .addOption(new Option('--method <m>', 'deprecated: --coordinates').choices(['pmvc', 'mvc']).hideHelp())
    .option(
      '--resolution <r>',
      `PMVC cube-map texels per face side, 2 to ${MAX_PMVC_RESOLUTION} (error falls as 1/r²)`,
      (value: string) => wholeNumberUpTo(value, MAX_PMVC_RESOLUTION, '', 2),
      DEFAULT_PMVC_RESOLUTION,
    )
    .option(
      '--influences <k>',
      'cage vertices kept per skin vertex (linear precision restored)',
      positiveInteger,
      DEFAULT_CAGE_INFLUENCES,
    )
    .addOption(
      new Option(
        '--correction <c>',
        'after keeping --influences: positive (PMVC weights stay ≥ 0) or linear (may go < 0; smoother over the skin)',
      ).choices(['positive', 'linear']),
    )
    .option('--threads <n>', 'worker threads (default: all cores from 2,000 vertices up)', threadCount)
    .requiredOption('-o, --output <file>', 'output .glb or .gltf')
    .option('--no-compress', "write without the input's Draco/meshopt compression")
    .option('--force', 'allow overwriting an input')
    .action(async (input: string, opts) => {
      if (opts.method) {
        io.err(
          'corskin: note: bind-cage --method is deprecated and will be removed in the next release; use --coordinates',
        );
        opts.coordinates = opts.method;
      }
      await (await import('./bind-cage.js')).bindCageCommand(io, input, opts);
    });
}
