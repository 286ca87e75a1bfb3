/** Runs the CLI in-process and captures what it prints. */
import { main } from '../../src/cli/main.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(...args: string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['node', 'corskin', ...args], {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    tty: false,
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}
