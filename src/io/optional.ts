/**
 * Optional dependencies of the Node layer, loaded on demand: a library user's `npm install
 * corskin` stays light, and a feature that needs one says which package to install.
 *
 * @module
 */
import { CorskinError } from '../core/errors.js';

/**
 * Awaits `loading` (a dynamic `import()` of the package `name`), turning "module not found" into
 * a {@link CorskinError} that names the package, what needs it and the command that installs it.
 * @throws CorskinError when `name` is not installed; other import errors unchanged
 */
export async function optionalDependency<T>(loading: Promise<T>, name: string, purpose: string): Promise<T> {
  try {
    return await loading;
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (
      (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
      String((e as Error).message).includes(name)
    ) {
      throw new CorskinError(`${purpose} needs the optional dependency ${name}: npm install ${name}`);
    }
    throw e;
  }
}
