/**
 * The commands that pose, bake, measure and show: `deform`, `bake`, `weights`, `info`,
 * `add-twist-joints`, `evaluate`, `view`, `render`, `demo`. Each command's module is imported
 * when the command runs.
 *
 * @module
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { CorskinError } from '../core/errors.js';
import { warnIgnored, type Io } from './ui.js';
import { BAKE_METHODS, CHARACTER_METHODS, SKINNING_METHODS, THREE_METHODS } from '../deformers/registry.js';
import { DEFAULT_INFLUENCES } from '../cor/parameters.js';
import {
  AUTO_BAKE_THREADS_FROM,
  PARALLEL_MEASURE_FROM,
  BAKE_KINDS,
  DEFAULT_BAKE_RATE,
  DEFAULT_KEYFRAME_TOLERANCE,
  DEFAULT_HELPER_KEY_TOLERANCE,
  MAX_BAKE_SAMPLES,
  MAX_HELPERS_PER_REGION,
  MAX_REFINE_ROUNDS,
} from '../bake/samples.js';
import { CONSTANT_CHANNEL_TOLERANCE } from '../io/constant-channels.js';
import {
  finiteNumber,
  nonNegativeInteger,
  nonNegativeNumber,
  positiveInteger,
  threadCount,
  positiveNumber,
  wholeNumberUpTo,
  nameList,
  withBatchOutput,
  withMethodOptions,
} from './options.js';

/** Adds the commands that pose, bake, measure and show to `program`; their actions write through `io`. */
export function addPoseCommands(program: Command, io: Io): void {
  withBatchOutput(
    withMethodOptions(
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
            "without an animation: rest (the joints' node transforms; the default), bind (where the inverse bind matrices put them), or the evaluation's stress pose (every limb bent, twisted and curled; stress-half: at half amplitude)",
          ).choices(['rest', 'bind', 'stress', 'stress-half']),
        )
        .option(
          '--influences <k>',
          'influences kept per vertex (the largest, renormalised)',
          positiveInteger,
          DEFAULT_INFLUENCES,
        ),
    ),
    '.glb, .gltf or .obj',
  ).action(async (inputs: string[], opts) => {
    await (await import('./batch.js')).runBatch(io, inputs, 'deform', opts);
  });

  withBatchOutput(
    withMethodOptions(
      program
        .command('bake')
        .description(
          'bake a method into a standard glTF any engine plays with its own linear blend skinning: --as helpers, helper joints fitted by skinning decomposition (Le & Deng 2012, "Smooth Skinning Decomposition with Rigid Bones", ACM TOG 31(6), SIGGRAPH Asia 2012), or --as morphs, sparse corrective morph targets, one per sample of every clip or a smaller basis of them (--targets; exact at the samples, blended linearly between), or --as helpers+morphs, the helpers and then what they leave as morph targets (exact at the samples; smaller than morphs alone only at a looser --tolerance); prints how closely the baked file\'s LBS plays the method, next to plain LBS',
        )
        .argument('<inputs...>', 'skinned, animated .glb or .gltf files')
        .addOption(new Option('--method <m>', 'method to bake').choices([...BAKE_METHODS]).makeOptionMandatory())
        .addOption(
          new Option(
            '--as <kind>',
            'helpers (helper joints, Le & Deng 2012), morphs (sparse corrective morph targets), or helpers+morphs (the helpers, then the residual as morph targets)',
          )
            .choices([...BAKE_KINDS])
            .makeOptionMandatory(),
        )
        .option(
          '--helpers <n>',
          `helpers: helper joints per joint region, 1 to ${MAX_HELPERS_PER_REGION} (default 2)`,
          (value: string) => wholeNumberUpTo(value, MAX_HELPERS_PER_REGION),
        )
        .addOption(
          new Option(
            '--placement <how>',
            "helpers: how the helpers are shared between joint regions: even (--helpers in each region), departure (the same total, fewer where the method departs little from LBS and more where it departs most), or auto (the default): per skin both are fitted, unless they come out the same, and the one whose file plays closer to the method is kept — the smaller p99 distance ÷ plain LBS's ÷ 0.1 plus max ÷ LBS's ÷ 0.25, over the samples and half-way between them (about twice the fit's time; the report names the one kept)",
          ).choices(['auto', 'even', 'departure']),
        )
        .option(
          '--refine <rounds>',
          `helpers: up to this many refinement rounds (0 to ${MAX_REFINE_ROUNDS}, default 0), each adding one helper in every region where the fit leaves at least a tenth of the worst region's error two ways — the fit kept grown (the helper that leaves most split in two, the fit starting from the kept one) and every helper fitted afresh — and keeping the closer where the file then plays closer to the method (the score --placement auto compares); where neither is kept, both again with one more helper only where the fit leaves at least half the worst region's error; after a round that keeps none, the next grows from that round's closest fit, and the rounds stop at the second in a row that keeps none. Each costs up to four fits' time, twice that where the guard fits again half-way between samples (CesiumMan's DDM: 87.0% of the gap removed in 6.4 s; 93.0% in 26 s with 3)`,
          (value: string) => wholeNumberUpTo(value, MAX_REFINE_ROUNDS, '', 0),
        )
        .option(
          '--influences <k>',
          "helpers: influences per vertex in the baked file, 4 or 8 (default 4; three.js's stock GLTFLoader skins 4, Babylon.js 8, Blender all: the report says what a 4-influence engine plays of a bake with more)",
          (value: string) => {
            if (value !== '4' && value !== '8') throw new InvalidArgumentError('expected 4 or 8');
            return Number(value);
          },
        )
        .option(
          '--rate <fps>',
          `samples per second of each clip (at most ${MAX_BAKE_SAMPLES.toLocaleString('en-US')} per clip)`,
          positiveNumber,
          DEFAULT_BAKE_RATE,
        )
        .option(
          '--tolerance <t>',
          "morphs: how far from the method the file may play at the samples, as a fraction of the bounding-box diagonal: corrections within it are dropped (sparse targets) and 16-bit positions rounded (default 1e-5; 20% of it is left to the player's 32-bit floats and its reading of 16-bit keys)",
          nonNegativeNumber,
        )
        .option(
          '--normal-tolerance <rad>',
          'morphs: normal and tangent corrections that turn them by at most this angle, in radians, are dropped (default 4e-3, about 0.23°: half the step of a normal stored in 8 bits)',
          nonNegativeNumber,
        )
        .addOption(
          new Option(
            '--targets <kind>',
            'morphs: one target per sample (samples), a basis that every sample is a weighted sum of, each within the tolerances at every vertex (basis; EigenSkin, Kry, James & Pai 2002), or whichever makes the smaller file (auto, the default)',
          ).choices(['auto', 'samples', 'basis']),
        )
        .addOption(
          new Option(
            '--target-positions <type>',
            "morphs: the targets' position displacements as float (the default) or short: 16-bit integers, each target scaled to its largest displacement and its weights by that scale, the rounding within each vertex's share of the tolerance at every sample (a target that would take more stays float, and one whose 8-bit rounding stays within it is stored in 8 bits; the file then requires KHR_mesh_quantization, which three.js, Babylon.js and Blender read; CesiumMan's CoR helpers+morphs bake: 1.17 → 1.01 MB)",
          ).choices(['float', 'short']),
        )
        .option(
          '--constant-tolerance <t>',
          `helpers: translation, rotation and scale channels (the input's, and the helpers' own) whose keys all lie within t of their first — relative to 1 for a rotation, to its largest component for a scale, to the posed mesh's bounding-box diagonal for a translation: an exporter's float rounding — are stored as 2 keys: the Fox's CoR bake 1.40× → 0.94× the input; 0 only those exactly constant; at most 1e-3 (default ${CONSTANT_CHANNEL_TOLERANCE})`,
          nonNegativeNumber,
        )
        .option(
          '--keyframe-tolerance <t>',
          `helpers: drop keyframes that their neighbours reproduce within this, on every channel (glTF-Transform's resample; smaller file, the rig's joints a little off the input's keys; 1e-4 takes the Fox's DQS bake from 1.52× to 1.08× the input; default ${DEFAULT_KEYFRAME_TOLERANCE}: every sample kept)`,
          nonNegativeNumber,
        )
        .addOption(
          new Option(
            '--guard <where>',
            "helpers: where the bake is held never worse than plain LBS (its largest and 99th-percentile distance to the method within 1e-4 of the diagonal of LBS's), by giving the vertices that would be worse their input weights: samples, at the samples it is fitted to; between, also half-way between them, where an engine at another frame rate interpolates the helpers' keys (twice the samples' memory; where helpers turn far from one sample to the next it gives back more: the Fox, DQS, 94.7% → 82.2% of the gap removed at the samples); auto (the default), at the samples, then, only where that plays worse than LBS at some half-way time, there too: the same fit with more vertices given back, or a fit guarded between and keyed at those half-way times too, whichever is closer to the method (about twice the time)",
          ).choices(['auto', 'samples', 'between']),
        )
        .addOption(
          new Option(
            '--beyond-clips <what>',
            "helpers: what the file plays at poses no clip holds (other animations, poses set by hand), where the helpers rest on their joints: free (the default) fits each vertex's weights freely, closest to the method in the clips but farther than plain LBS beyond them (CesiumMan DQS at half the stress pose: 5.6× LBS's p99 distance); lbs has each helper take weight only from the joint it hangs from, so that beyond the clips the file plays the input's LBS, with less of the gap removed in them (CesiumMan DQS: 89% → 66% with 4 influences, 88% with 8)",
          ).choices(['free', 'lbs']),
        )
        .option(
          '--key-tolerance <f>',
          `helpers: drop the helpers' keys where interpolating their neighbours puts no vertex farther from the method by more than this fraction of the posed bounding-box diagonal (the clips' own keys are not; default ${DEFAULT_HELPER_KEY_TOLERANCE}; 0 keeps every key whose interpolation would be farther at all)`,
          nonNegativeNumber,
        )
        .addOption(
          new Option(
            '--rotations <type>',
            "helpers: the helpers' rotation keys as short (signed 16-bit normalized, half the bytes; the bake measures and guards the keys as stored; the default) or float",
          ).choices(['short', 'float']),
        )
        .option(
          '--quantize',
          'write with KHR_mesh_quantization (a smaller mesh and helper bake; no longer exact to 1e-5; morph targets go dense, larger: for smaller exact targets, --target-positions short instead of --quantize)',
        )
        .option(
          '--json',
          'print the report as JSON on stdout, one line per file (its figures per skin: at the samples, half-way between them, beyond the clips; warnings still go to stderr)',
        )
        .option(
          '--threads <n>',
          `helpers: threads for the fit (the sampling runs on one; the measure shares its times with a worker thread from ${PARALLEL_MEASURE_FROM.toExponential(0)} (time, vertex) pairs up when this is above 1 and the half-way samples are held); the file is identical for any count (default: all cores from ${AUTO_BAKE_THREADS_FROM.toExponential(0)} (sample, vertex) pairs up, else 1; 1 per file with --jobs above 1)`,
          threadCount,
        ),
    ),
    '.glb or .gltf',
  ).action(async (inputs: string[], opts) => {
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
    .option('--joints', "print each skin's joint tree (the names --joint takes)")
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
    .description(
      'split bones with mid "twist" joints that spread twists along the bone (Le & Hodgins 2016, "Real-time Skeletal Skinning with Optimized Centers of Rotation", ACM TOG 35(4), Sec. 4); the twist is measured from the bind pose',
    )
    .argument('<input>', 'skinned .glb or .gltf')
    .requiredOption(
      '--joints <names>',
      'comma-separated joint names whose bone (to its first child joint) is split',
      nameList,
    )
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
        `with --character: the methods, comma-separated (default: ${CHARACTER_METHODS.join(',')}; stretch too, with every joint where two or more bones meet compensated)`,
      ).argParser(nameList),
    )
    .option('--json', 'print the rows as one JSON array')
    .option('--report <dir>', 'benchmarks: also write an HTML report with charts and the deformed meshes')
    .action(async (opts, command: Command) => {
      if (opts.character && command.getOptionValueSource('benchmark') === 'cli')
        io.err('corskin: warning: --benchmark picks a benchmark; ignored with --character');
      if (!opts.character && opts.methods)
        warnIgnored(io, '--methods', '--character (the benchmarks run every method)', '');
      await (await import('./evaluate.js')).evaluateCommand(io, opts);
    });

  program
    .command('view')
    .description('open the viewer (LBS, DQS, CoR, DDM and templates side by side) on a local web server')
    .argument('[file]', '.glb or .gltf to open (default: the bundled arm)')
    .option('--port <n>', 'port, 1–65535, or 0 for any free one (the default)', (v: string) => {
      const x = nonNegativeInteger(v);
      if (x > 65535) throw new InvalidArgumentError('expected a port number 0–65535');
      return x;
    })
    .action(async (file, opts) => (await import('./render.js')).viewCommand(io, file, { port: opts.port ?? 0 }));

  program
    .command('render')
    .description('render the viewer to a PNG through headless Chromium')
    .argument('<input>', '.glb or .gltf')
    .addOption(
      new Option(
        '--method <m>',
        'one view with this method, at its default parameters (default: every GPU method, laid out by --layout; methods run on the CPU — dm, sbs, lms, stretch — show with --method only)',
      ).choices([...THREE_METHODS]),
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
    .option('--joint <name>', 'joint to pose (the names: corskin info --joints)')
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
}
