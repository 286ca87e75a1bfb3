/**
 * Worker-thread side of `validatorErrors(path, { thread: true })` (`validate.ts`): validates the
 * file at the path it is given and posts `{ errors }` (undefined without `gltf-validator`) or
 * `{ error }`.
 *
 * @module
 */
import { parentPort, workerData } from 'node:worker_threads';
import { validatorErrors } from './validate.js';

validatorErrors(workerData as string).then(
  (errors) => parentPort!.postMessage({ errors }),
  (error: unknown) => parentPort!.postMessage({ error }),
);
