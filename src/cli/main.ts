/**
 * The `corskin` command line: `convert`, `precompute`, `deform`, `bake`, `info`, `demo`, ….
 * Exit codes: 0 success, 1 bad input or failure (message names the file), 2 bad usage.
 *
 * @module
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { CorskinError } from '../core/errors.js';
import { CHARACTER_METHODS, SKINNING_METHODS, THREE_METHODS } from '../deformers/registry.js';
import { VERSION } from '../version.js';
import { removePendingTempFiles } from '../io/files.js';
import { processIo, resourceLine, type Io } from './ui.js';
import {
  DEFAULT_EPSILON,
  DEFAULT_INFLUENCES,
  DEFAULT_MAX_SUBDIVIDED_TRIANGLES,
  DEFAULT_SIGMA,
} from '../cor/parameters.js';
import { DEFAULT_CAGE_INFLUENCES } from '../cage/bind.js';
import {
  DEFAULT_DDM_ALPHA,
  DEFAULT_DDM_ITERATIONS,
  DEFAULT_DDM_KAPPA,
  DEFAULT_DDM_LAMBDA,
  DEFAULT_DDM_THRESHOLD,
} from '../ddm/parameters.js';
import { DEFAULT_PMVC_RESOLUTION } from '../cage/pmvc.js';
import { DEFAULT_BAKE_RATE, MAX_BAKE_SAMPLES, MAX_HELPERS_PER_REGION } from '../bake/samples.js';

// Each command's module (glTF-Transform, three.js, Chart.js, …) is imported when the command
// runs: `corskin --help` or `corskin info` do not pay for the others' start-up.

/** A number as typed: an empty or blank string is not 0. */
function numberOf(value: string): number {
  return value.trim() === '' ? NaN : Number(value);
}

/** Parses a positive number option. */
function positiveNumber(value: string): number {
  const x = numberOf(value);
  if (!(x > 0) || !Number.isFinite(x)) throw new InvalidArgumentError('expected a positive number');
  return x;
}

/** Parses a whole number ≥ 1. */
function positiveInteger(value: string): number {
  const x = numberOf(value);
  if (!Number.isInteger(x) || x < 1) throw new InvalidArgumentError('expected a whole number ≥ 1');
  return x;
}

function nonNegativeNumber(value: string): number {
  const x = numberOf(value);
  if (!(x >= 0) || !Number.isFinite(x)) throw new InvalidArgumentError('expected a number ≥ 0');
  return x;
}

/** Parses a finite number (angles). */
function finiteNumber(value: string): number {
  const x = numberOf(value);
  if (!Number.isFinite(x)) throw new InvalidArgumentError('expected a number');
  return x;
}

/** Parses a fraction in [0, 1). */
function fraction(value: string): number {
  const x = numberOf(value);
  if (!(x >= 0 && x < 1)) throw new InvalidArgumentError('expected a number from 0 up to (not including) 1');
  return x;
}

/** Parses a whole number ≥ 0. */
function nonNegativeInteger(value: string): number {
  const x = numberOf(value);
  if (!Number.isInteger(x) || x < 0) throw new InvalidArgumentError('expected a whole number ≥ 0');
  return x;
}

/**
 * The options of the method modules' parameters (registry `parameters`), each prefixed in its
 * help by the method id; no commander default, so an option not given leaves the method's own.
 */
function withMethodParameters(command: Command): Command {
  const options = SKINNING_METHODS.flatMap((m) =>
    ('parameters' in m ? m.parameters : []).map((p) => {
      const option = new Option(p.kind === 'flag' ? `--${p.flag}` : `--${p.flag} <value>`, `${m.id}: ${p.description}`);
      if (p.kind === 'integer') option.argParser(nonNegativeInteger);
      else if (p.kind === 'number') option.argParser(finiteNumber);
      else if (p.kind === 'choice') option.choices(p.choices ?? []);
      return option;
    }),
  );
  for (const option of options) command.addOption(option);
  return command;
}

/** Builds the commander program; actions write through `io`. */
function buildProgram(io: Io): Command {
  const program = new Command('corskin')
    .description('Skeletal skinning with optimized centers of rotation, DQS and LBS, on glTF characters.')
    .version(VERSION)
    .option(
      '-q, --quiet',
      'errors only: no progress bars, warnings, notes or "wrote …" lines (anywhere on the command line; info, evaluate and templates list still print their result)',
    )
    .option('--verbose', 'every note, repeats and details included (anywhere on the command line)')
    .option(
      '--resources',
      'when the command is done, print its CPU time and peak memory (anywhere on the command line)',
    )
    .showHelpAfterError("(add --help for the command's usage)")
    .configureOutput({
      writeOut: (s) => io.out(s.trimEnd()),
      writeErr: (s) => io.err(s.trimEnd()),
      // One prefix for every error, commander's usage errors included.
      outputError: (s, write) => write(`corskin: ${s}`),
    })
    .exitOverride();

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

  program
    .command('precompute')
    .description(
      'compute the centers of rotation of every skin (Le & Hodgins 2016) and store them as _CENTER_OF_ROTATION, or with --method ddm the Direct Delta Mush matrices (Le & Lewis 2019) as _DDM_* attributes',
    )
    .argument('<inputs...>', 'skinned .glb or .gltf files')
    .option('-o, --output <file>', 'output .glb or .gltf (one input)')
    .option('--out-dir <dir>', 'folder for the outputs of several inputs (same file names)')
    .option(
      '--jobs <n>',
      'with --out-dir: files processed at a time, on worker threads (default: the number of cores)',
      positiveInteger,
    )
    .addOption(new Option('--method <m>', 'what to precompute: cor or ddm').choices(['cor', 'ddm']).default('cor'))
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
      'worker threads; output is identical for any count (default: all cores from 100,000 vertices up, else 1: starting workers costs more than it saves on smaller meshes)',
      positiveInteger,
    )
    .option(
      '--iterations <p>',
      'ddm: smoothing iterations p (Le & Lewis 2019)',
      positiveInteger,
      DEFAULT_DDM_ITERATIONS,
    )
    .option('--lambda <l>', 'ddm: rotational smoothing λ', positiveNumber, DEFAULT_DDM_LAMBDA)
    .option('--kappa <k>', 'ddm: translational smoothing κ (< λ)', positiveNumber, DEFAULT_DDM_KAPPA)
    .option('--alpha <a>', 'ddm: blend α of the translational term, in [0, 1)', fraction, DEFAULT_DDM_ALPHA)
    .addOption(
      new Option('--variant <v>', 'ddm: full (variant 0, Ω per joint) or compact (one moment matrix per vertex)')
        .choices(['full', 'compact'])
        .default('full'),
    )
    .addOption(
      new Option(
        '--smoothing <s>',
        "ddm: Laplacian normalisation: normalized (D⁻¹L) or libigl (libigl's operator, to reproduce it)",
      )
        .choices(['normalized', 'libigl'])
        .default('normalized'),
    )
    .option(
      '--threshold <t>',
      'ddm: drop a joint from a vertex below this share of Q₃₃, in [0, 1)',
      fraction,
      DEFAULT_DDM_THRESHOLD,
    )
    .option('--no-compress', "write without the input's Draco/meshopt compression")
    .option('--force', 'allow overwriting the input')
    .action(async (inputs: string[], opts) => {
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
      "closed, outward-facing triangle cage around the skin (.obj, .glb or .gltf), in the skin's bind space",
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
      'PMVC cube-map texels per face side (error falls as 1/r²)',
      positiveInteger,
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
    .option('--threads <n>', 'worker threads (default: all cores from 2,000 vertices up)', positiveInteger)
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

  const templates = program
    .command('templates')
    .description(
      'skinning templates (Ju et al. 2008) around every limb of a skeleton: build them into the file, list them',
    );
  templates
    .command('build')
    .description(
      "build the template cages around the skeleton's limbs (arms, legs, tails; the trunk and fingers stay DQS), bind the skin with PMVC, store both — the templates then correct DQS where the skin bends; or, with --bake, bake the templates over every animation clip into a standard glTF (morph targets any engine plays)",
    )
    .argument('<input>', 'skinned .glb or .gltf file (one skin)')
    .option('--library <file>', 'template library (corskin-templates JSON; default: the built-in one)')
    .option(
      '--template <choices>',
      'templates, JOINT=ID,… (a bone template: the bones that start at the joint; a joint template: the joint)',
    )
    .option(
      '--trunk',
      'template the trunk too (spine, neck, head), with joint templates for all incident bones at the chest and hips (Ju et al. 2008, Fig. 13); by default the trunk stays DQS, which measures better (docs/templates.md)',
    )
    .option(
      '--bake',
      'write a standard glTF: per clip, the template deformation sampled as corrective morph targets on LBS (no cage)',
    )
    .option(
      '--bake-rate <n>',
      `samples per second of each clip for --bake (size grows with it; at most ${MAX_BAKE_SAMPLES.toLocaleString('en-US')} per clip)`,
      positiveNumber,
      DEFAULT_BAKE_RATE,
    )
    .option('--no-bake-normals', 'with --bake, leave normals and tangents to LBS (positions only)')
    .requiredOption('-o, --output <file>', 'output .glb or .gltf')
    .option('--no-compress', "write without the input's Draco/meshopt compression")
    .option('--force', 'allow overwriting an input')
    .action(async (input: string, opts) => (await import('./templates.js')).templatesBuildCommand(io, input, opts));
  templates
    .command('list')
    .description('the template bones of a file, their templates and the compatible ones')
    .argument('<input>', '.glb or .gltf file')
    .action(async (input: string) => (await import('./templates.js')).templatesListCommand(io, input));

  withMethodParameters(
    program
      .command('deform')
      .description('pose a skinned character and write the deformed mesh as static geometry')
      .argument('<inputs...>', 'skinned .glb or .gltf files')
      .addOption(
        new Option(
          '--method <m>',
          `skinning method: ${SKINNING_METHODS.map((m) => `${m.id} (${m.citation})`).join(', ')}`,
        )
          .choices(SKINNING_METHODS.map((m) => m.id))
          .makeOptionMandatory(),
      )
      .option('--animation <name|index>', 'animation clip (default: the first, when --time is given)')
      .option('--time <seconds>', 'time in the clip (default 0)', nonNegativeNumber)
      .addOption(
        new Option(
          '--pose <p>',
          "without an animation: rest (the joints' node transforms), bind (where the inverse bind matrices put them), or the evaluation's stress pose (every limb bent, twisted and curled; stress-half: at half amplitude)",
        )
          .choices(['rest', 'bind', 'stress', 'stress-half'])
          .default('rest'),
      )
      .option(
        '--influences <k>',
        'influences kept per vertex (the largest, renormalised)',
        positiveInteger,
        DEFAULT_INFLUENCES,
      )
      .option('--sigma <s>', 'σ when CoRs must be computed', positiveNumber, DEFAULT_SIGMA)
      .option('--epsilon <e>', 'ε when CoRs must be computed', positiveNumber, DEFAULT_EPSILON)
      .option(
        '--stretch-joints <names>',
        'stretch: joints whose collapse is compensated, comma-separated names or indices (default: every joint where two or more bones meet)',
      )
      .option('--no-twist-compensation', 'stretch: skip the twist compensation before skinning')
      .option('--template <choices>', 'templates: bone or joint templates, JOINT=ID,… (over those stored in the file)'),
  )
    .option('-o, --output <file>', 'output .glb, .gltf or .obj (one input)')
    .option('--out-dir <dir>', 'folder for the outputs of several inputs (same file names)')
    .option(
      '--jobs <n>',
      'with --out-dir: files processed at a time, on worker threads (default: the number of cores)',
      positiveInteger,
    )
    .option('--no-compress', "write without the input's Draco/meshopt compression")
    .option('--force', 'allow overwriting the input')
    .action(async (inputs: string[], opts) => {
      await (await import('./batch.js')).runBatch(io, inputs, 'deform', opts);
    });

  withMethodParameters(
    program
      .command('bake')
      .description(
        'bake a method into a standard glTF any engine plays with its own linear blend skinning: --as helpers, helper joints fitted by skinning decomposition (Le & Deng 2012, "Smooth Skinning Decomposition with Rigid Bones", ACM TOG 31(6), SIGGRAPH Asia 2012), or --as morphs, one sparse corrective morph target per sample of every clip (exact at the samples, blended linearly between); prints how closely the baked file\'s LBS plays the method, next to plain LBS',
      )
      .argument('<inputs...>', 'skinned, animated .glb or .gltf files')
      .requiredOption('--method <m>', 'method to bake: cor, dqs, sbs, lms, stretch, ddm, dm or templates')
      .requiredOption(
        '--as <kind>',
        'helpers (helper joints, Le & Deng 2012) or morphs (sparse corrective morph targets)',
      )
      .option(
        '--helpers <n>',
        `helpers: helper joints per joint region, 1 to ${MAX_HELPERS_PER_REGION} (default 2)`,
        positiveInteger,
      )
      .option(
        '--influences <k>',
        'helpers: influences per vertex in the baked file, 4 or 8 (default 4)',
        positiveInteger,
      )
      .option(
        '--rate <fps>',
        `samples per second of each clip (at most ${MAX_BAKE_SAMPLES.toLocaleString('en-US')} per clip)`,
        positiveNumber,
        DEFAULT_BAKE_RATE,
      )
      .option(
        '--tolerance <t>',
        'morphs: corrections that move a vertex by at most this fraction of the bounding-box diagonal are dropped (sparse targets; 5e-6 keeps the result within 1e-5 of the diagonal at the samples)',
        Number,
      )
      .option('--quantize', 'write with KHR_mesh_quantization (smaller; no longer exact to 1e-5)')
      .option('--sigma <s>', 'σ when CoRs must be computed', positiveNumber, DEFAULT_SIGMA)
      .option('--epsilon <e>', 'ε when CoRs must be computed', positiveNumber, DEFAULT_EPSILON)
      .option('--stretch-joints <names>', 'stretch: joints whose collapse is compensated, comma-separated')
      .option('--no-twist-compensation', 'stretch: skip the twist compensation before skinning')
      .option('--template <choices>', 'templates: bone or joint templates, JOINT=ID,… (over those stored in the file)'),
  )
    .option('-o, --output <file>', 'output .glb or .gltf (one input)')
    .option('--out-dir <dir>', 'folder for the outputs of several inputs (same file names)')
    .option(
      '--jobs <n>',
      'with --out-dir: files processed at a time, on worker threads (default: the number of cores)',
      positiveInteger,
    )
    .option('--no-compress', "write without the input's Draco/meshopt compression")
    .option('--force', 'allow overwriting the input')
    .action(async (inputs: string[], opts) => {
      await (await import('./batch.js')).runBatch(io, inputs, 'bake', opts);
    });

  program
    .command('weights')
    .description('bind a mesh to a skeleton with automatic weights (Shepard, Yang & Zhang 2006)')
    .argument('<mesh>', 'mesh: .obj (with --skeleton), or .glb/.gltf with a skin')
    .option('--skeleton <file>', 'skeleton .tgf for an OBJ mesh (bone k = k-th edge)')
    .addOption(new Option('--method <m>', 'weighting method').choices(['shepard']).default('shepard'))
    .option('--drop-rate <m>', 'Shepard drop rate m: weights ∝ distance^(−m)', positiveNumber, 2)
    .addOption(
      new Option('--influences <k>', 'influences kept per vertex (the nearest bones)').choices(['4', '8']).default('4'),
    )
    .requiredOption('-o, --output <file>', 'output .glb or .gltf')
    .option('--force', 'allow overwriting an input file')
    .action(async (mesh, opts) => (await import('./weights.js')).weightsCommand(io, mesh, opts));

  program
    .command('info')
    .description('describe the skins of a glTF file: joints, influences, CoRs, animations')
    .argument('<inputs...>', '.glb or .gltf files')
    .option('--json', 'print JSON')
    .action(async (inputs: string[], opts) => {
      const { infoCommand } = await import('./info.js');
      const failed: string[] = [];
      for (const input of inputs) {
        try {
          await infoCommand(io, input, { ...opts, brief: inputs.length > 1 });
        } catch (e) {
          if (!(e instanceof CorskinError) || inputs.length === 1) throw e;
          failed.push(input);
          io.err(`corskin: error: ${e.message}`);
        }
      }
      if (failed.length)
        throw new CorskinError(`${failed.length} of ${inputs.length} files failed: ${failed.join(', ')}`);
    });

  program
    .command('add-twist-joints')
    .description('split bones with mid "twist" joints that spread twists along the bone (CoR paper, Sec. 4)')
    .argument('<input>', 'skinned .glb or .gltf')
    .requiredOption('--joints <names>', 'comma-separated joint names whose bone (to its first child joint) is split')
    .requiredOption('-o, --output <file>', 'output .glb or .gltf')
    .option('--force', 'allow overwriting the input')
    .action(async (input, opts) => (await import('./add-twist-joints.js')).addTwistJointsCommand(io, input, opts));

  program
    .command('evaluate')
    .description(
      'quality benchmark: the joint manipulations of the CoR paper (bar) or the standard arm poses, for every method',
    )
    .addOption(new Option('--benchmark <name>', 'which benchmark').choices(['bar', 'arm']).default('bar'))
    .option(
      '--character <file>',
      'a character instead: every method over its pose battery (stress pose, half of it, 3 times of each clip) — triangles flipped against DQS, creased edges, distance from DQS on rigid pieces',
    )
    .addOption(
      new Option(
        '--methods <ids>',
        `with --character: the methods, comma-separated (default: ${CHARACTER_METHODS.join(',')})`,
      ).argParser((v: string) => v.split(',').map((x) => x.trim())),
    )
    .option('--json', 'print the rows as one JSON array')
    .option('--report <dir>', 'also write an HTML report with charts and the deformed meshes')
    .action(async (opts) => (await import('./evaluate.js')).evaluateCommand(io, opts));

  program
    .command('view')
    .description('open the viewer (LBS | DQS | CoR side by side) on a local web server')
    .argument('[file]', '.glb or .gltf to open (default: the bundled arm)')
    .option('--port <n>', 'port, 1–65535 (default: any free one)', (v: string) => {
      const x = positiveInteger(v);
      if (x > 65535) throw new InvalidArgumentError('expected a port number 1–65535');
      return x;
    })
    .action(async (file, opts) => (await import('./render.js')).viewCommand(io, file, { port: opts.port ?? 0 }));

  program
    .command('render')
    .description('render the viewer to a PNG through headless Chromium')
    .argument('<input>', '.glb or .gltf')
    .addOption(
      new Option('--method <m>', 'one view with this method (default: every method, laid out by --layout)').choices([
        ...THREE_METHODS,
      ]),
    )
    .addOption(
      new Option(
        '--layout <l>',
        'the views: auto (a row or a grid, whichever shows the character larger), side by side, a grid (2×2, 3×2 for five), or one view (default: auto; one view with --method)',
      ).choices(['auto', 'side', 'grid', 'single']),
    )
    .addOption(
      new Option(
        '--pose <p>',
        "the pose under the clip and --joint: rest, or the evaluation's stress pose (full or half)",
      )
        .choices(['rest', 'stress', 'stress-half'])
        .default('rest'),
    )
    .option('--animation <name|index>', 'animation clip')
    .option('--time <seconds>', 'time in the clip', nonNegativeNumber)
    .option('--joint <name>', 'joint to pose')
    .option('--twist <degrees>', 'twist of --joint about its bone', finiteNumber)
    .option('--bend <degrees>', 'bend of --joint', finiteNumber)
    .option('--paint <joint>', "show the viewer's paint mode: this joint's weights as a heat map")
    .option(
      '--template <choices>',
      'skinning templates of the templates view (Ju et al. 2008), JOINT=ID,… (see corskin templates list)',
    )
    .option('--cage', 'draw the template cages in the templates view (joint templates red, bone templates blue)')
    .option('--frame-joint', 'point the camera at the posed --joint instead of the whole character')
    .option('--size <WxH>', 'image size', '800x600')
    .requiredOption('-o, --output <file>', 'output .png')
    .option('--force', 'allow overwriting the input')
    .action(async (input, opts) => (await import('./render.js')).renderCommand(io, input, opts));

  program
    .command('demo')
    .description('the main job on the bundled arm: precompute CoRs, twist and bend, deform with LBS, DQS and CoR')
    .option('-o, --output <dir>', 'output folder', 'corskin-demo')
    .action(async (opts) => (await import('./demo.js')).demoCommand(io, opts));

  return program;
}

/**
 * On SIGINT or SIGTERM: remove the temporary files of writes in progress (no partial output is
 * ever left), give the terminal back its cursor and line wrapping (a progress bar hides them),
 * and exit with 128 + the signal number. For the `corskin` process itself.
 */
export function installSignalCleanup(): void {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => {
      removePendingTempFiles();
      if (process.stderr.isTTY) process.stderr.write('\x1b[?25h\x1b[?7h\n');
      process.exit(code);
    });
  }
}

/** Commands whose stdout is their result (a table, a report, a URL): `--quiet` keeps it. */
const READERS = new Set(['info', 'evaluate', 'view', 'templates list']);

/**
 * `io` with each note or warning on stderr said once per run (every time with `verbose`), and
 * with `quiet`, none of them and no progress bars: only errors (lines `corskin: error: …`); the
 * commands that write files then print nothing on stdout either (not even `wrote …`).
 */
function filteredIo(io: Io, quiet: boolean, verbose: boolean, command: string): Io {
  const said = new Set<string>();
  const silent = quiet && !READERS.has(command) && !READERS.has(command.split(' ')[0]);
  return {
    out: (line) => {
      if (silent || (quiet && line.startsWith('wrote '))) return;
      io.out(line);
    },
    err: (line) => {
      if (line.startsWith('corskin: error')) return io.err(line);
      if (quiet || (said.has(line) && !verbose)) return;
      said.add(line);
      io.err(line);
    },
    tty: io.tty && !quiet,
    verbose,
    bar: io.bar,
  };
}

/**
 * Runs the CLI on `argv` (as `process.argv`: node, script, args…).
 * @returns the exit code
 */
export async function main(argv: string[], io: Io = processIo): Promise<number> {
  // -q/--quiet, anywhere on the line: no progress bars, no warnings or notes, errors only.
  // --verbose, anywhere: every note, repeats included, and details such as ignored channels.
  const flag = (...names: string[]) => argv.slice(2).some((a) => names.includes(a));
  const quiet = flag('-q', '--quiet');
  const verbose = !quiet && flag('--verbose');
  const resources = flag('--resources');
  argv = argv.filter((a, i) => i < 2 || !['-q', '--quiet', '--verbose', '--resources'].includes(a));
  const words = argv.slice(2).filter((a) => !a.startsWith('-'));
  const command = words[0] === 'templates' ? words.slice(0, 2).join(' ') : (words[0] ?? '');
  const program = buildProgram(filteredIo(io, quiet, verbose, command));
  if (argv.length <= 2) {
    io.err(program.helpInformation().trimEnd());
    io.err('corskin: error: a command is required');
    return 2;
  }
  try {
    await program.parseAsync(argv);
    if (resources) io.out(resourceLine());
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      return e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help'
        ? 0
        : 2;
    }
    if (e instanceof CorskinError) {
      io.err(`corskin: error: ${e.message}`);
      return 1;
    }
    if (e instanceof Error && e.name === 'UsageError') {
      io.err(`corskin: error: ${e.message}`);
      return 2;
    }
    io.err(`corskin: internal error: ${(e as Error).stack ?? e}`);
    return 1;
  }
}
