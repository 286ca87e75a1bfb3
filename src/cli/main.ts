/**
 * The `corskin` command line: `convert`, `precompute`, `deform`, `bake`, `info`, `demo`, ….
 * Exit codes: 0 success, 1 bad input or failure (message names the file), 2 bad usage.
 *
 * @module
 */
import { Command, CommanderError } from 'commander';
import { CorskinError } from '../core/errors.js';
import { VERSION } from '../version.js';
import { removePendingTempFiles } from '../io/files.js';
import { processIo, quietFlag, resourceLine, type Io } from './ui.js';
import { addPoseCommands } from './commands-pose.js';
import { addPrepareCommands } from './commands-prepare.js';
import { SKINNING_METHODS } from '../deformers/registry.js';

// Each command's module (glTF-Transform, three.js, Chart.js, …) is imported when the command
// runs: `corskin --help` or `corskin info` do not pay for the others' start-up.

/** Builds the commander program; actions write through `io`. */
async function buildProgram(io: Io): Promise<Command> {
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

  addPrepareCommands(program, io);
  addPoseCommands(program, io);
  // A method module's own command group (`corskin templates build|list`), from its folder.
  for (const method of SKINNING_METHODS)
    if ('commands' in method && method.commands) {
      const commands: { default: (program: Command, io: Io) => void } = await import(
        /* @vite-ignore */ `../methods/${method.id}/commands.js`
      );
      commands.default(program, io);
    }
  return program;
}

/**
 * On SIGINT, SIGTERM or SIGHUP: remove the temporary files of writes in progress (no partial output is
 * ever left), give the terminal back its cursor and line wrapping (a progress bar hides them),
 * and exit with 128 + the signal number. For the `corskin` process itself.
 */
export function installSignalCleanup(): void {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    process.once(signal, () => {
      removePendingTempFiles();
      if (process.stderr.isTTY) process.stderr.write('\x1b[?25h\x1b[?7h\n');
      process.exit(code);
    });
  }
}

/** Commands whose stdout is their result (a table, a report, a URL): `--quiet` keeps it (and any command's `--json`). */
const READERS = new Set(['info', 'evaluate', 'view', 'templates list']);

/**
 * `io` with each note or warning on stderr said once per run (every time with `verbose`), and
 * with `quiet`, none of them and no progress bars: only errors (lines `corskin: error: …`); the
 * commands that write files then print nothing on stdout either (not even `wrote …`).
 */
function filteredIo(io: Io, quiet: boolean, verbose: boolean, command: string, json: boolean): Io {
  const said = new Set<string>();
  const silent = quiet && !json && !READERS.has(command) && !READERS.has(command.split(' ')[0]);
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
    progressLines: io.progressLines,
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
  const quiet = quietFlag(argv);
  const verbose = !quiet && flag('--verbose');
  const resources = flag('--resources');
  argv = argv.filter((a, i) => i < 2 || !['-q', '--quiet', '--verbose', '--resources'].includes(a));
  const words = argv.slice(2).filter((a) => !a.startsWith('-'));
  const command = words.slice(0, 2).join(' '); // `info`'s first word, or a group's command: `templates list`
  const program = await buildProgram(filteredIo(io, quiet, verbose, command, argv.includes('--json')));
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
