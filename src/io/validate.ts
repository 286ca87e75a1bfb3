/**
 * The Khronos glTF validator on a file (the `gltf-validator` package): its errors, for the
 * commands that write glTF to say when their input already had some and to check that they add
 * none. Node only (it reads the file and its external resources). `gltf-validator` is an optional
 * peer dependency of corskin, as the CLI's other libraries are.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ValidatorMessage } from 'gltf-validator';
import { nodeWorkerScript } from '../core/node-worker.js';

/**
 * The validator's errors (severity 0) on the `.glb` or `.gltf` file at `path`, every one of them,
 * its external buffers and images read beside it; undefined when `gltf-validator` is not installed.
 * @param options `thread`: validate on a worker thread of its own (`validate-worker.ts`), so that
 *   this thread goes on meanwhile (the bake validates its input while it samples the clips, and
 *   its output while it measures it: 0.4–0.5 s each on Ybot); the thread runs to its end (a
 *   caller that stops first waits for it, or terminates its own thread: the CLI's commands do)
 * @throws when the file cannot be read
 */
export async function validatorErrors(
  path: string,
  options: { thread?: boolean } = {},
): Promise<ValidatorMessage[] | undefined> {
  if (options.thread)
    return new Promise((done, fail) => {
      const worker = new Worker(nodeWorkerScript('io/validate-worker.js'), { workerData: path });
      worker.once('message', (m: { errors?: ValidatorMessage[]; error?: Error }) =>
        m.error ? fail(m.error) : done(m.errors),
      );
      worker.once('error', fail);
      worker.once('exit', (code) => fail(new Error(`the validator's thread stopped (exit code ${code})`)));
    });
  let validateBytes: typeof import('gltf-validator').validateBytes;
  try {
    ({ validateBytes } = await import('gltf-validator'));
  } catch {
    return undefined;
  }
  const report = await validateBytes(new Uint8Array(await readFile(path)), {
    uri: basename(path),
    maxIssues: 0, // every issue: a cap would cut the errors' counts (warnings count towards it)
    writeTimestamp: false,
    externalResourceFunction: async (uri) =>
      new Uint8Array(await readFile(resolve(dirname(path), decodeURIComponent(uri)))),
  });
  return report.issues.messages.filter((m) => m.severity === 0);
}

/**
 * The errors by code, most frequent first, with the first place of each:
 * `ANIMATION_DUPLICATE_TARGETS ×2 (first at /animations/0/channels/57)`.
 */
export function describeErrors(errors: readonly ValidatorMessage[]): string {
  const byCode = new Map<string, ValidatorMessage[]>();
  for (const e of errors) (byCode.get(e.code) ?? byCode.set(e.code, []).get(e.code)!).push(e);
  return [...byCode]
    .sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]))
    .map(([code, list]) => `${code} ×${list.length}${list[0].pointer ? ` (first at ${list[0].pointer})` : ''}`)
    .join(', ');
}
