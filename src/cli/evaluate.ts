/**
 * `corskin evaluate`: the quality benchmark (bar or arm) for every method, as a table, JSON, or an
 * HTML report with charts and the deformed meshes; or, with `--character FILE`, the methods on a
 * character's pose battery (its stress pose and clips).
 * @module
 */
import { join } from 'node:path';
import {
  armBenchmark,
  barBenchmark,
  runBenchmark,
  type BenchmarkRow,
  type PosedMeshes,
} from '../evaluation/benchmark.js';
import { formatRatio, QUALITY_LEGEND } from '../evaluation/joint-quality.js';
import { chartJsPath, renderReport } from '../evaluation/report.js';
import { optionalDependency } from '../io/optional.js';
import { makeFolder, writeFileAtomic } from '../io/files.js';
import { extractSkinnedModels } from '../io/gltf.js';
import { bakePosedGeometry } from '../io/posed-geometry.js';
import { readDocument, writeDocument } from '../io/node-io.js';
import { buildSkinnedDocument } from '../io/convert.js';
import { DEMO_ASSET } from './demo.js';
import { UsageError } from './batch.js';
import { measureCharacter, poseBattery, summarizeCharacter, type CharacterRow } from '../evaluation/character.js';
import { computeCentersOfRotationParallel } from '../cor/parallel.js';
import { deformers as deformers_ } from '../deformers/index.js';
import type { Deformer, SkinningMethod } from '../deformers/contract.js';
import { CHARACTER_METHODS, methodInfo } from '../deformers/registry.js';
import { formatTable, type Io } from './ui.js';
import { methodModule, prepareMethod } from '../methods/index.js';
import { createMethodDeformer } from './method-deformer.js';
import { DEFAULT_EPSILON, DEFAULT_SIGMA } from '../cor/parameters.js';

/** Options of {@link evaluateCommand}. */
export interface EvaluateOptions {
  benchmark: 'bar' | 'arm';
  /** A character file: the pose battery instead of a benchmark. */
  character?: string;
  /** With `character`: the methods compared (default: {@link CHARACTER_METHODS}). */
  methods?: string[];
  json?: boolean;
  report?: string;
}

/** The methods `--character` compares by default. */
export { CHARACTER_METHODS };

/** Runs `corskin evaluate`. @throws CorskinError when the report folder cannot be written, or for a bad character file */
export async function evaluateCommand(io: Io, o: EvaluateOptions): Promise<void> {
  if (o.character) return evaluateCharacterCommand(io, o.character, o);
  if (o.report) {
    // Before the work, and before the folder is made: what the report needs is installed.
    chartJsPath();
    await optionalDependency(import('@gltf-transform/functions'), '@gltf-transform/functions', 'The HTML report');
    makeFolder(join(o.report, 'meshes'), 'the --report folder');
  }
  const bench =
    o.benchmark === 'arm'
      ? armBenchmark(extractSkinnedModels(await readDocument(DEMO_ASSET), DEMO_ASSET)[0])
      : barBenchmark();
  const posed: PosedMeshes | undefined = o.report ? new Map() : undefined;
  const rows = runBenchmark(bench, undefined, posed);
  if (o.json) io.out(JSON.stringify(rows, null, 2));
  else io.out(`${formatRows(rows)}\n\n${QUALITY_LEGEND}`);
  if (o.report && posed) {
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

/**
 * `corskin evaluate --character FILE`: every skin of the file, each method over the pose battery
 * ({@link poseBattery}); CoRs computed when the file has none, a method module's data read from the
 * file or prepared (the templates). Prints per method the sums over the stress pose, its half and the clips.
 * @throws CorskinError for a file that cannot be read or has no skin
 */
async function evaluateCharacterCommand(io: Io, file: string, o: EvaluateOptions): Promise<void> {
  if (o.report !== undefined)
    throw new UsageError(
      '--report writes the HTML report of the benchmarks (--benchmark bar|arm); with --character, the table (or --json) is the report',
    );
  const methods = o.methods ?? CHARACTER_METHODS;
  const accepted: readonly string[] = [...CHARACTER_METHODS, 'stretch'];
  const unknown = methods.filter((m) => !accepted.includes(m));
  if (unknown.length) throw new UsageError(`--methods: ${unknown.join(', ')} is not one of ${accepted.join(', ')}`);
  const document = await readDocument(file);
  const models = extractSkinnedModels(document, file);
  const rows: (CharacterRow & { skin: string })[] = [];
  /** What the method modules prepared (the template cages): the skins of each line. */
  const prepared = new Map<string, string[]>();
  for (const model of models) {
    const deformers = new Map<string, Deformer>();
    for (const id of methods) {
      const module = methodModule(id);
      if (module) {
        for (const w of module.read?.(document, model, file) ?? [])
          io.err(`corskin: warning: ${file}: ${model.name}: ${w}`);
        const stored = module.missing && !module.missing(model.mesh);
        deformers.set(id, prepareMethod(id, model));
        const summary = module.summary?.(model.mesh);
        const line = summary && `${methodInfo(id).label}: ${summary}${stored ? ' (stored in the file)' : ''}`;
        if (line) prepared.set(line, [...(prepared.get(line) ?? []), model.name]);
      } else if (id === 'cor' && !model.mesh.centersOfRotation) {
        const { centers } = await computeCentersOfRotationParallel(model.mesh);
        const withCenters = { ...model.mesh, centersOfRotation: centers };
        deformers.set(id, (_, S, out) => deformers_.cor(withCenters, S, out));
      } else if (id === 'stretch')
        // Its default rig: every joint where two or more bones meet compensated, twist compensation on.
        deformers.set(id, createMethodDeformer(io, document, model, 'stretch', file, { sigma: DEFAULT_SIGMA, epsilon: DEFAULT_EPSILON })); // prettier-ignore
      else deformers.set(id, deformers_[id as SkinningMethod]);
    }
    const measured = measureCharacter(model.mesh, model.skeleton, poseBattery(model.skeleton, model.animations), deformers); // prettier-ignore
    const rounding = Math.max(0, ...measured.map((r) => r.rounding));
    if (rounding > ROUNDING_WARNING)
      io.err(
        `corskin: warning: ${file}: ${model.name}: the skin is posed so far from the origin that float32 numbers there are ${rounding.toExponential(1)} of its diagonal apart: rigid gaps up to a few times that are rounding, not the method`,
      );
    rows.push(...measured.map((r) => ({ skin: model.name, ...r })));
  }
  if (o.json) return io.out(JSON.stringify(rows, null, 2));
  // What the method modules prepared, then the table and its legend.
  if (prepared.size)
    io.out(
      `${[...prepared]
        .map(([line, skins]) => {
          const [label, rest] = [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)];
          return `${label}: ${skins.length > 3 ? `${skins.length} skins` : skins.join(', ')}: ${rest}`;
        })
        .join('\n')}\n`,
    );
  if (models.length > 1) io.out(`The ${models.length} skins of the file summed (--json gives each skin's rows):`);
  const summary = summarizeCharacter(rows);
  io.out(
    formatTable(
      ['poses', 'method', 'flipped vs DQS', 'creased edges', 'rigid gap', 'ms'],
      summary.map((r) => [
        r.poses,
        methodInfo(r.method).label,
        r.flippedAgainstDqs,
        r.creasedEdges,
        r.rigidGap.toExponential(1),
        r.ms.toFixed(2),
      ]),
    ),
  );
  io.out(`\n${CHARACTER_LEGEND}`);
}

/**
 * The float32 rounding of posed positions (÷ the diagonal) above which `evaluate --character` warns:
 * the rigid gap of a method that moves rigid pieces rigidly is float32 rounding, about 1e-7 near
 * the origin.
 */
const ROUNDING_WARNING = 1e-6;

const CHARACTER_LEGEND =
  'poses: the stress pose (every limb bent, twisted and curled at once), at half amplitude, and ¼ ½ ¾ of every clip; ' +
  'flipped vs DQS: triangles whose normal turns away from its DQS normal; creased edges: edges whose dihedral angle ' +
  'changes by more than 30° from rest; rigid gap: largest distance from DQS on skin whose weights do not blend ÷ the ' +
  'bounding-box diagonal of the skin at rest (rigid pieces: every method should move them as DQS does); ms: one ' +
  "deformation's time, the median over the row's poses (after 5 untimed calls of each method).";
