/**
 * `corskin evaluate`: the quality benchmark (bar or arm) for every method, as a table, JSON, or an
 * HTML report with charts and the deformed meshes.
 * @module
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  armBenchmark,
  barBenchmark,
  runBenchmark,
  type BenchmarkRow,
  type PosedMeshes,
} from '../evaluation/benchmark.js';
import { formatRatio, QUALITY_LEGEND } from '../evaluation/joint-quality.js';
import { renderReport } from '../evaluation/report.js';
import { writeFileAtomic } from '../io/files.js';
import { extractSkinnedModels } from '../io/gltf.js';
import { bakePosedGeometry } from '../io/posed-geometry.js';
import { readDocument, writeDocument } from '../io/node-io.js';
import { buildSkinnedDocument } from '../io/convert.js';
import { DEMO_ASSET } from './demo.js';
import { formatTable, type Io } from './ui.js';

/** Options of {@link evaluateCommand}. */
export interface EvaluateOptions {
  benchmark: 'bar' | 'arm';
  json?: boolean;
  report?: string;
}

/** Runs `corskin evaluate`. @throws CorskinError when the report folder cannot be written */
export async function evaluateCommand(io: Io, o: EvaluateOptions): Promise<void> {
  const bench =
    o.benchmark === 'arm'
      ? armBenchmark(extractSkinnedModels(await readDocument(DEMO_ASSET), DEMO_ASSET)[0])
      : barBenchmark();
  const posed: PosedMeshes | undefined = o.report ? new Map() : undefined;
  const rows = runBenchmark(bench, undefined, posed);
  if (o.json) io.out(JSON.stringify(rows, null, 2));
  else io.out(`${formatRows(rows)}\n\n${QUALITY_LEGEND}`);
  if (o.report && posed) {
    await mkdir(join(o.report, 'meshes'), { recursive: true });
    const links = new Map<string, string>();
    for (const [key, positions] of posed) {
      const [c, m] = key.split('|');
      const rel = `meshes/${bench.name}-${c.replace(/[^a-z0-9]+/gi, '-').replace(/-+$/, '')}-${m}.glb`;
      const doc = await restDocument(bench.name);
      await bakePosedGeometry(doc, extractSkinnedModels(doc), [{ positions }]);
      await writeDocument(doc, join(o.report, rel));
      links.set(key, rel);
    }
    await writeFileAtomic(join(o.report, 'index.html'), renderReport(`${bench.name} benchmark`, rows, links));
    if (!o.json) io.out(`wrote ${join(o.report, 'index.html')} and ${links.size} meshes`);
  }
}

/** A skinned document of the benchmark's rig, for baking posed meshes into. */
async function restDocument(name: string) {
  if (name === 'arm') return readDocument(DEMO_ASSET);
  const bench = barBenchmark();
  const { mesh } = bench;
  const n = mesh.positions.length / 3;
  // The bar as a libigl-style conversion: dense weights, one bone per weighted joint.
  const cols = 4;
  const data = new Float64Array(n * cols);
  for (let i = 0; i < n; i++)
    for (let k = 0; k < 4; k++) data[i + n * mesh.joints[4 * i + k]] += mesh.weights[4 * i + k];
  return buildSkinnedDocument({
    mesh: { positions: mesh.positions, triangles: mesh.triangles },
    weights: { rows: n, cols, data },
    name: 'bar',
  }).document;
}

function formatRows(rows: BenchmarkRow[]): string {
  return formatTable(
    ['case', 'method', 'volume', 'min radius', 'max radius', 'max distortion', 'self-isect', 'time ms'],
    rows.map((r) => [
      r.case,
      r.method.toUpperCase(),
      formatRatio(r.volumeRatio),
      r.minRadiusRatio.toFixed(3),
      r.maxRadiusRatio.toFixed(3),
      r.maxDistortion.toFixed(3),
      r.selfIntersections,
      r.timeMs.toFixed(2),
    ]),
  );
}
