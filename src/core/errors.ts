/**
 * The one error type corskin throws for bad input: it carries the file it concerns (when there
 * is one) so the CLI can print `FILE: problem` and exit non-zero. The rule: a problem with the
 * user's input (file, mesh, rig, option) is a CorskinError naming the file and the element at
 * fault; a programming error is a standard JavaScript error (RangeError for an argument out of
 * its documented range, …), which the CLI reports as an internal error.
 *
 * @module
 */

/** An error in the user's input (file, mesh, rig or option), with the file it concerns. */
export class CorskinError extends Error {
  /** Path of the file the problem was found in, when there is one. */
  readonly file?: string;

  /**
   * @param message what is wrong, phrased for the user
   * @param file the file it concerns, if any
   */
  constructor(message: string, file?: string, options?: { cause?: unknown }) {
    super(file ? `${file}: ${message}` : message, options);
    this.name = 'CorskinError';
    this.file = file;
  }
}
