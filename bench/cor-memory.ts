/**
 * Memory of the CoR precomputation (Le & Hodgins 2016): the peak resident set of a fresh process
 * while it runs, minus what the process held with the input mesh loaded (after a full GC), per
 * vertex. The mesh goes to the child as raw arrays, so no glTF reading peak is counted. One child
 * per thread count (the peak is per process); 2 threads include starting the worker pool, as a
 * user's call does.
 *
 * Child mode: `node --expose-gc --import tsx bench/cor-memory.ts --child FILE THREADS`.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { SkinnedMesh } from '../src/core/mesh.js';

/** One measurement. */
export interface CorMemoryRow {
  asset: string;
  vertices: number;
  threads: number;
  seconds: number;
  /** Peak RSS during the precomputation minus the RSS with the mesh loaded, MB. */
  peakMB: number;
  bytesPerVertex: number;
}

const HEADER = 3; // uint32: n, triangles, influences

/** Writes the arrays the precomputation reads to `file` (raw, little-endian). */
function dumpMesh(mesh: SkinnedMesh, file: string): void {
  const head = Uint32Array.of(mesh.positions.length / 3, mesh.triangles.length / 3, mesh.influences);
  const parts = [
    head,
    mesh.positions,
    Uint32Array.from(mesh.triangles),
    Uint32Array.from(mesh.joints),
    Float32Array.from(mesh.weights),
  ];
  writeFileSync(file, Buffer.concat(parts.map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength))));
}

/** Reads a {@link dumpMesh} file straight into its arrays (no whole-file buffer). */
function loadMesh(file: string): SkinnedMesh {
  const fd = openSync(file, 'r');
  let at = 0;
  const read = <T extends ArrayBufferView>(array: T): T => {
    at += readSync(fd, new Uint8Array(array.buffer, array.byteOffset, array.byteLength), 0, array.byteLength, at);
    return array;
  };
  try {
    const [n, t, K] = read(new Uint32Array(HEADER));
    return {
      positions: read(new Float32Array(3 * n)),
      triangles: read(new Uint32Array(3 * t)),
      influences: K,
      joints: read(new Uint32Array(K * n)),
      weights: read(new Float32Array(K * n)),
    };
  } finally {
    closeSync(fd);
  }
}

/** Measures `mesh` on 1 and 2 threads, each in a fresh child process. */
export function measureCorMemory(asset: string, mesh: SkinnedMesh, dumpFile: string): CorMemoryRow[] {
  dumpMesh(mesh, dumpFile);
  const self = fileURLToPath(import.meta.url);
  return [1, 2].map((threads) => {
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', self, '--child', dumpFile, String(threads)],
      {
        encoding: 'utf8',
      },
    );
    return { asset, ...(JSON.parse(out.trim().split('\n').at(-1)!) as Omit<CorMemoryRow, 'asset'>) };
  });
}

/** Peak RSS of this process in bytes (Linux's VmHWM, else `resourceUsage().maxRSS`). */
function peakRss(): number {
  try {
    const m = /VmHWM:\s*(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return 1024 * Number(m[1]);
  } catch {
    // not Linux
  }
  return 1024 * process.resourceUsage().maxRSS;
}

if (process.argv[2] === '--child') {
  const { computeCentersOfRotationParallel } = await import('../src/cor/parallel.js');
  const mesh = loadMesh(process.argv[3]);
  const threads = Number(process.argv[4]);
  (globalThis as { gc?: () => void }).gc!();
  const before = process.memoryUsage().rss;
  // Linux: reset the peak to the current RSS (proc(5), clear_refs "5"), so that start-up and
  // loading peaks do not count. Elsewhere they may, and the figure is an upper bound.
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    console.error('cor-memory: cannot reset the peak RSS here; start-up peaks may count');
  }
  const r = await computeCentersOfRotationParallel(mesh, { threads });
  const peak = peakRss() - before;
  const n = mesh.positions.length / 3;
  console.log(
    JSON.stringify({ vertices: n, threads, seconds: r.seconds, peakMB: peak / 1e6, bytesPerVertex: peak / n }),
  );
}
