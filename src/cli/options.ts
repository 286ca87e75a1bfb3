/**
 * The CLI's option parsers (commander `argParser`s that reject what is not the number asked for)
 * and the options of the method modules' parameters, read from the registry.
 *
 * @module
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { SKINNING_METHODS } from '../deformers/registry.js';

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
 * help by the method id; no commander default, so an option not given leaves the method's own.
 */
export function withMethodParameters(command: Command): Command {
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
