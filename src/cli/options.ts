/**
 * The CLI's option parsers (commander `argParser`s that reject what is not the number asked for)
 * and the options of the method modules' parameters, read from the registry.
 *
 * @module
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { SKINNING_METHODS } from '../deformers/registry.js';
import type { MethodModule } from '../methods/module.js';
import type { MethodParameter } from '../methods/parameter.js';
import type { Io } from './ui.js';
import { DEFAULT_EPSILON, DEFAULT_SIGMA } from '../cor/parameters.js';
import { MAX_THREADS } from '../core/node-worker.js';

/** A number as typed: an empty or blank string is not 0. */
export function numberOf(value: string): number {
  return value.trim() === '' ? NaN : Number(value);
}

/** Parses a positive number option. */
export function positiveNumber(value: string): number {
  const x = numberOf(value);
  if (!(x > 0) || !Number.isFinite(x)) throw new InvalidArgumentError('expected a positive number');
  return x;
}

/** Parses a whole number ≥ 1. */
export function positiveInteger(value: string): number {
  const x = numberOf(value);
  if (!Number.isInteger(x) || x < 1) throw new InvalidArgumentError('expected a whole number ≥ 1');
  return x;
}

/** Parses a whole number from `least` (default 1) to `most`; `why`, when given, follows the error's range. */
export function wholeNumberUpTo(value: string, most: number, why = '', least = 1): number {
  const x = numberOf(value);
  if (!Number.isInteger(x) || x < least || x > most)
    throw new InvalidArgumentError(`expected a whole number from ${least} to ${most}${why}`);
  return x;
}

/** Parses a comma-separated list of names (joints, methods), spaces around each trimmed; at least one. */
export function nameList(value: string): string[] {
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!names.length) throw new InvalidArgumentError('expected one or more names, comma-separated');
  return names;
}

/** Parses a thread or job count: a whole number from 1 to {@link MAX_THREADS}. */
export function threadCount(value: string): number {
  return wholeNumberUpTo(value, MAX_THREADS, ' (threads beyond the cores only add their start)');
}

/** Parses a finite number ≥ 0 (tolerances, times). */
export function nonNegativeNumber(value: string): number {
  const x = numberOf(value);
  if (!(x >= 0) || !Number.isFinite(x)) throw new InvalidArgumentError('expected a number ≥ 0');
  return x;
}

/** Parses a finite number (angles). */
export function finiteNumber(value: string): number {
  const x = numberOf(value);
  if (!Number.isFinite(x)) throw new InvalidArgumentError('expected a number');
  return x;
}

/** Parses a fraction in [0, 1). */
export function fraction(value: string): number {
  const x = numberOf(value);
  if (!(x >= 0 && x < 1)) throw new InvalidArgumentError('expected a number from 0 up to (not including) 1');
  return x;
}

/** Parses a whole number ≥ 0. */
export function nonNegativeInteger(value: string): number {
  const x = numberOf(value);
  if (!Number.isInteger(x) || x < 0) throw new InvalidArgumentError('expected a whole number ≥ 0');
  return x;
}

/**
 * The options of the method modules' parameters (registry `parameters`), each prefixed in its
 * help by the method id; a flag that several methods share (`--iterations`) is one option whose
 * help names each. No commander default, so an option not given leaves the method's own.
 * @param ids only these methods' parameters (default: every method module's)
 */
export function withMethodParameters(command: Command, ids?: readonly string[]): Command {
  const byFlag = new Map<string, { parameter: MethodParameter; help: string[] }>();
  for (const m of SKINNING_METHODS)
    if ('parameters' in m && (!ids || ids.includes(m.id)))
      for (const p of m.parameters) {
        const entry = byFlag.get(p.flag) ?? { parameter: p, help: [] };
        if (entry.parameter.kind !== p.kind) throw new Error(`--${p.flag}: methods disagree on its kind`);
        entry.help.push(`${m.id}: ${p.description}`);
        byFlag.set(p.flag, entry);
      }
  for (const [flag, { parameter: p, help }] of byFlag) {
    const option = new Option(p.kind === 'flag' ? `--${flag}` : `--${flag} <value>`, help.join('; '));
    if (p.kind === 'integer') option.argParser(nonNegativeInteger);
    else if (p.kind === 'number') option.argParser(finiteNumber);
    else if (p.kind === 'choice') option.choices(p.choices ?? []);
    command.addOption(option);
  }
  return command;
}

/**
 * The options every command that builds a method's deformer takes (`deform`, `bake`): CoR's σ and
 * ε when the centers must be computed, stretch's joints and twist compensation, and the method
 * modules' parameters ({@link withMethodParameters}: DDM's, Delta Mush's, the templates' choices).
 */
export function withMethodOptions(command: Command): Command {
  command
    .option('--sigma <s>', 'σ when CoRs must be computed', positiveNumber, DEFAULT_SIGMA)
    .option('--epsilon <e>', 'ε when CoRs must be computed', positiveNumber, DEFAULT_EPSILON)
    .option(
      '--stretch-joints <names>',
      'stretch: joints whose collapse is compensated, comma-separated names or indices (default: every joint where two or more bones meet)',
    )
    .option('--no-twist-compensation', 'stretch: skip the twist compensation before skinning');
  return withMethodParameters(command);
}

/**
 * The output options of a command that runs on several inputs (`precompute`, `deform`, `bake`):
 * `-o` for one, `--out-dir` and `--jobs` for several, `--no-compress`, `--force`.
 * @param formats the output formats, for the help (`.glb or .gltf`)
 */
export function withBatchOutput(command: Command, formats: string): Command {
  return command
    .option('-o, --output <file>', `output ${formats} (one input)`)
    .option('--out-dir <dir>', 'folder for the outputs of several inputs (same file names)')
    .option(
      '--jobs <n>',
      'with --out-dir: files processed at a time, on worker threads (default: the number of cores)',
      threadCount,
    )
    .option('--no-compress', "write without the input's Draco/meshopt compression")
    .option('--force', 'allow overwriting the input');
}

/** The key commander gives an option (`smoothing-kind` → `smoothingKind`). */
export const optionKey = (flag: string): string => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** A method module's parameters taken from CLI options (`--smoothing-kind` → `smoothingKind` → its key). */
export function moduleParameters(module: MethodModule, options: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(module.parameters.map((p) => [p.key, options[optionKey(p.flag)]]));
}

/**
 * Warns (once per run: the CLI's io says a line once) of method-module options given for another
 * method (`--step` with `--method dqs`): they are ignored.
 * @param ids the methods the command offers (default every method), which the warning names
 */
export function warnForeignParameters(
  io: Io,
  method: string,
  options: Record<string, unknown>,
  ids?: readonly string[],
): void {
  const entry = SKINNING_METHODS.find((m) => m.id === method);
  const own = new Set(entry && 'parameters' in entry ? entry.parameters.map((p) => p.flag) : []);
  const foreign = new Map<string, string[]>(); // flag → the methods whose parameter it is
  for (const m of SKINNING_METHODS)
    if ('parameters' in m && (!ids || ids.includes(m.id)))
      for (const p of m.parameters)
        if (!own.has(p.flag) && options[optionKey(p.flag)] !== undefined)
          foreign.set(p.flag, [...(foreign.get(p.flag) ?? []), m.id]);
  for (const [flag, ids] of foreign)
    io.err(
      `corskin: warning: --${flag} is a parameter of --method ${ids.join(' or ')}; ignored with --method ${method}`,
    );
}
