/**
 * The command group of skinning templates (Ju, Zhou, van de Panne, Cohen-Or & Neumann 2008,
 * "Reusable Skinning Templates Using Cage-based Deformations", SIGGRAPH Asia): `corskin templates
 * build|list`. The CLI adds it because the registry entry says `commands: true`; the actions
 * (`cli.ts`) are imported when a command runs, so loading this module at start-up costs nothing.
 *
 * @module
 */
import type { Command } from 'commander';
import type { Io } from '../../cli/ui.js';
import { positiveNumber } from '../../cli/options.js';
import { DEFAULT_BAKE_RATE, MAX_BAKE_SAMPLES } from '../../bake/samples.js';

/** Adds `corskin templates build|list` to `program`; their actions write through `io`. */
export default function addTemplatesCommands(program: Command, io: Io): void {
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
    .argument('<input>', 'skinned .glb or .gltf file (every skin gets its rig)')
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
      'write a standard glTF: per clip, the template deformation sampled as corrective morph targets on LBS, one per sample (no cage; corskin bake --method templates writes smaller files and measures them)',
    )
    .option(
      '--bake-rate <n>',
      `samples per second of each clip for --bake (size grows with it; at most ${MAX_BAKE_SAMPLES.toLocaleString('en-US')} per clip; default ${DEFAULT_BAKE_RATE})`,
      positiveNumber,
    )
    .option('--no-bake-normals', 'with --bake, leave normals and tangents to LBS (positions only)')
    .requiredOption('-o, --output <file>', 'output .glb or .gltf')
    .option('--no-compress', "write without the input's Draco/meshopt compression")
    .option('--force', 'allow overwriting an input')
    .action(async (input: string, opts) => (await import('./cli.js')).templatesBuildCommand(io, input, opts));
  templates
    .command('list')
    .description('the template bones of a file, their templates and the compatible ones')
    .argument('<input>', '.glb or .gltf file')
    .action(async (input: string) => (await import('./cli.js')).templatesListCommand(io, input));
}
