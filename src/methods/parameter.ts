/**
 * A method's parameter as every surface offers it: the CLI adds an option for it (`--flag`), the
 * viewer a control; the method's own resolver checks the value (and throws `CorskinError` naming
 * the parameter). Dependency-free: the CLI reads these at start-up.
 *
 * @module
 */

/** One parameter of a skinning method. */
export interface MethodParameter {
  /** Key in the method's parameter object (`iterations`). */
  key: string;
  /** CLI option name without dashes (`iterations` → `--iterations <value>`; a flag takes none). */
  flag: string;
  /** Value kind: a whole number, a number, one of `choices`, a boolean switch, or free text. */
  kind: 'integer' | 'number' | 'choice' | 'flag' | 'text';
  /** The values of a `choice`. */
  choices?: readonly string[];
  /** One line for help texts (says the default). */
  description: string;
  /** The default value. */
  default: number | string | boolean;
  /**
   * The value applies also over what the method reads from a file (the template choices over a
   * stored rig); by default a parameter shapes only what `prepare` computes when the file lacks it.
   */
  overStored?: boolean;
}
