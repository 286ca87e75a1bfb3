/**
 * The end of `corskin bake` (`bake.ts`): the baked file written to a staging folder beside the
 * output, read back and played by LBS against the method (the report's figures), validated, and
 * only then moved into place.
 * @module
 */
import { statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Document } from '@gltf-transform/core';
import type { ValidatorMessage } from 'gltf-validator';
import { CorskinError } from '../core/errors.js';
import { methodInfo } from '../deformers/registry.js';
import type { Deformer } from '../deformers/contract.js';
import {
  measureBeyondClips,
  NEVER_WORSE_MARGIN,
  float32Resolution,
  type BakeMeasure,
  type BeyondClipsMeasure,
} from '../bake/measure.js';
import { DEFAULT_BAKE_RATE } from '../bake/samples.js';
import type { MethodSamples } from '../bake/sampling.js';
import type { HelperBakeResult } from '../io/helper-bake.js';
import type { MorphBakeResult } from '../io/morph-bake.js';
import { DEFAULT_BAKE_TOLERANCE } from '../io/morph-bake.js';
import { checkNotOverwritingInput, inputFiles, keepStaged } from '../io/files.js';
import { extractSkinnedModels, type SkinnedModel } from '../io/gltf.js';
import { createMeasureWorkerPool, measureBakeParallel, sharesMeasure, simdLbs } from '../io/measure-parallel.js';
import { readDocument, writeDocument } from '../io/node-io.js';
import { describeErrors, validatorErrors } from '../io/validate.js';
import type { BakeCommandOptions } from './bake.js';
import type { CollapsedChannels } from '../io/constant-channels.js';
import type { CliMethod } from './method-deformer.js';
import type { skinWarnings } from './skin-warnings.js';
import { count, num, progress, type Io } from './ui.js';

/** A skin being baked: its deformer by the method, the report's lines, its samples while needed. */
export interface BakedSkin {
  model: SkinnedModel;
  deform: Deformer;
  lines: string[];
  samples?: MethodSamples;
  /** With helpers: its vertices with more than the bake's influences. */
  over?: number;
  guard?: 'samples' | 'between';
  /** Threads its fit ran on: its measure shares its times between two where more than one. */
  threads?: number;
  /** What its helper bake wrote (`--as helpers`, `helpers+morphs`), for the JSON report. */
  helpers?: HelperBakeResult;
  /** What its morph bake wrote (`--as morphs`, `helpers+morphs`), for the JSON report. */
  morphs?: MorphBakeResult;
}

/** Distances ÷ the posed mesh's bounding-box diagonal: the baked file by LBS and plain LBS, each against the method. */
export interface BakeDistances {
  max: number;
  p99: number;
  lbsMax: number;
  lbsP99: number;
  /** The share of plain LBS's p99 distance removed (1 − p99 / lbsP99); null where LBS is within `NEVER_WORSE_MARGIN`. */
  gapRemoved: number | null;
  /** max / lbsMax (null where lbsMax is 0). */
  maxOfLbs: number | null;
}

/**
 * `corskin bake --json`: the report of one file, printed as one line of JSON. Distances are
 * per-vertex Euclidean distances divided by the bounding-box diagonal of the mesh as the method
 * poses it at the start of the first clip (`posedDiagonal`: one length per skin, whatever the
 * sample).
 */
export interface BakeReport {
  input: string;
  output: string;
  method: string;
  as: string;
  /** Samples per second of each clip. */
  rate: number;
  skins: {
    name: string;
    /** Samples measured over all clips, and the distances there. */
    samples: BakeDistances & { count: number; worseThanLbs: number };
    /** Half-way between the samples (null where not measured). */
    halfway: (BakeDistances & { count: number; worseThanLbs: number }) | null;
    /** Beyond the clips: the evaluation's stress pose at half amplitude (helpers only, else null). */
    beyondClips: (BakeDistances & { worseThanLbs: boolean }) | null;
    /** Played with its first 4 influences only (where the bake has more, else null). */
    fourInfluences: (BakeDistances & { worseThanLbs: number }) | null;
    /** Threads the measure ran on (2 where it shared its times with a worker thread). */
    measureThreads: number;
    helpers: Pick<HelperBakeResult, (typeof HELPER_FIELDS)[number]> | null;
    morphs: Pick<MorphBakeResult, (typeof MORPH_FIELDS)[number]> | null;
  }[];
  /** The glTF validator's errors: the input's, and those the baked file keeps (null where not validated). */
  validatorErrors: { input: number; output: number } | null;
  bytes: number;
  inputBytes: number;
  seconds: number;
}

/** What the JSON report gives of a helper bake's result (its figures, not its samples). */
const HELPER_FIELDS = ['helpers', 'regions', 'samples', 'iterations', 'activeVertices', 'placement', 'refined', 'guard', 'worseHalfway', 'halfwayKeys', 'halfwayGivenBack', 'revertedVertices', 'normalsGivenBack'] as const; // prettier-ignore
/** What the JSON report gives of a morph bake's result. */
const MORPH_FIELDS = ['targets', 'samples', 'basis', 'bytes', 'shortTargets', 'byteTargets', 'channelBytes', 'denseBytes', 'nonZero'] as const; // prettier-ignore

/** `keys` of `o`. */
function pick<T extends object, K extends keyof T>(o: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((k) => [k, o[k]])) as Pick<T, K>;
}

/** Whether the baked file plays farther than plain LBS from the method beyond the clips (max or p99, by more than `NEVER_WORSE_MARGIN`). */
const worseBeyond = (b: BeyondClipsMeasure) =>
  !(b.max <= b.lbsMax + NEVER_WORSE_MARGIN && b.p99 <= b.lbsP99 + NEVER_WORSE_MARGIN);

/** {@link BakeDistances} of a measure's figures. */
function distances(m: { max: number; p99: number; lbsMax: number; lbsP99: number }): BakeDistances {
  return {
    max: m.max,
    p99: m.p99,
    lbsMax: m.lbsMax,
    lbsP99: m.lbsP99,
    gapRemoved: m.lbsP99 > NEVER_WORSE_MARGIN ? 1 - m.p99 / m.lbsP99 : null,
    maxOfLbs: m.lbsMax > 0 ? m.max / m.lbsMax : null,
  };
}

/** What {@link checkStaged} takes of the bake's state. */
export interface StagedBake {
  models: SkinnedModel[];
  method: CliMethod;
  rate: number;
  withHelpers: boolean;
  stage: string;
  /** When the command started (`performance.now()`). */
  start: number;
  /** The input's constant channels stored as two keys (`collapseConstantChannels`), where any were. */
  collapsed?: CollapsedChannels;
}

/**
 * Writes the bake into its staging folder, reads it back and reports how closely it plays the
 * method, validates it, and moves it into place.
 * @throws CorskinError when the baked file has validator errors the input does not have (nothing kept)
 */
export async function checkStaged(
  io: Io,
  o: BakeCommandOptions,
  input: string,
  document: Document,
  baked: BakedSkin[],
  inputErrors: ValidatorMessage[] | undefined,
  warnings: ReturnType<typeof skinWarnings>,
  { models, method, rate, withHelpers, stage, start, collapsed }: StagedBake,
): Promise<void> {
  const staged = join(stage, basename(o.output));
  // The text report on stdout, or (--json) one JSON line at the end.
  const out = o.json ? () => undefined : io.out;
  // The measure's worker thread, starting while the file is written, where a skin's measure
  // will share its times (`sharesMeasure`).
  const shares = (b: BakedSkin) => sharesMeasure(b.samples, b.model.mesh.positions.length / 3, b.threads ?? 1);
  const pool = baked.some(shares) ? createMeasureWorkerPool() : undefined;
  const measures: BakeMeasure[] = [];
  const beyond: (BeyondClipsMeasure | undefined)[] = [];
  const measureThreads: number[] = [];
  let files: string[];
  let outputValidation: Promise<ValidatorMessage[] | undefined> | undefined;
  try {
    files = await writeDocument(document, staged, { compress: o.compress, inputs: [input], force: true }).catch(
      (e: unknown) => {
        // Named as the user named the output, not by its staging path (removed on the way out).
        if (!(e instanceof CorskinError) || !e.file?.startsWith(stage)) throw e;
        const file = join(dirname(o.output), basename(e.file));
        throw new CorskinError(e.message.slice(e.file.length + 2), file, { cause: e });
      },
    );
    // The validator on the written file, on a thread of its own while it is measured.
    outputValidation = inputErrors && validatorErrors(staged, { thread: true });
    outputValidation?.catch(() => undefined); // awaited below
    // The written file, read back and played by LBS, against the method on the original — or, where
    // its codec reordered or welded the vertices (Draco's edgebreaker), the bake before compression.
    const written = extractSkinnedModels(await readDocument(staged), o.output);
    let unwritten: SkinnedModel[] | undefined; // the bake before compression, read where needed
    for (const skin of baked) {
      const { model, deform, samples, threads } = skin;
      measureThreads.push(shares(skin) ? 2 : 1);
      let other = written.find((m) => m.name === model.name) ?? written[models.indexOf(model)];
      if (other.mesh.positions.length !== model.mesh.positions.length) {
        io.err(
          `corskin: note: ${o.output}: ${model.name}: its compression welded ${(model.mesh.positions.length - other.mesh.positions.length) / 3} vertices and reordered them: measured before compression (--no-compress writes the file as measured)`,
        );
        unwritten ??= extractSkinnedModels(document, o.output);
        other = unwritten.find((m) => m.skin === model.skin) ?? other;
      }
      const bar = progress(io, `${model.name}: measuring`);
      try {
        const lbs = await simdLbs(model, other);
        measures.push(await measureBakeParallel(model, other, deform, rate, { onProgress: bar.update, reference: samples, between: true, threads, pool, lbs })); // prettier-ignore
        beyond.push(withHelpers ? measureBeyondClips(model, other, deform, 0.5, lbs) : undefined);
        baked[measures.length - 1].samples = undefined; // not needed any more
      } finally {
        bar.stop();
      }
    }
  } finally {
    await pool?.terminate();
  }
  const e = (x: number) => x.toExponential(1);
  const percent = (x: number) => (Math.round(1000 * x) / 10 || 0).toFixed(1); // never "-0.0"
  baked.forEach(({ lines }, k) => {
    const m = measures[k];
    for (const line of lines) out(line);
    const M = methodInfo(method).label;
    out(
      `  at the ${num(m.samples)} samples, per-vertex distance ÷ bounding-box diagonal of the mesh posed at the first clip's start: baked file by LBS vs ${M} max ${e(m.max)}, p99 ${e(m.p99)}; plain LBS vs ${M} max ${e(m.lbsMax)}, p99 ${e(m.lbsP99)}`,
    );
    // The share of LBS's p99 distance removed (where LBS is not already within the tolerance).
    const gap = distances(m).gapRemoved;
    if (gap !== null)
      out(`  removes ${percent(gap)}% of plain LBS's p99 distance to ${M}; max ${(m.max / m.lbsMax).toFixed(2)} of LBS's`); // prettier-ignore
    const name = baked[k].model.name;
    const morphs = o.as === 'helpers' ? '; --as helpers+morphs reproduces the method at the samples' : '';
    // Morph targets hold every sample within their tolerance (1e-5 by default); where the
    // measure says otherwise, what may be the cause.
    const promised = o.tolerance ?? DEFAULT_BAKE_TOLERANCE;
    if (o.as !== 'helpers' && !o.quantize && m.max > 1.5 * promised) {
      const r = float32Resolution(baked[k].model, baked[k].deform);
      const why = promised === 0 ? `: a tolerance of 0 asks for more than 32-bit floats hold (they resolve about ${e(r)} of the diagonal here)` : r > promised / 8 ? `: its vertices lie so far from the origin of their space that 32-bit floats resolve only ${e(r)} of its diagonal there, in the method's own result as in the file (stored about their origin, they bake exactly)` : ''; // prettier-ignore
      const text = `the baked file plays up to ${e(m.max)} of the diagonal from ${M} at the samples, more than the ${e(promised)} its morph targets hold${why}`; // prettier-ignore
      warnings.add(name, text, text);
    }
    // The warnings' common words.
    const farther = `the baked file plays farther from ${M} than`;
    const margin = `by more than ${NEVER_WORSE_MARGIN} of the diagonal`;
    const overVertices = `(its max or p99 over the vertices, ${margin})`;
    if (m.worseSamples)
      warnings.add(name, `${farther} plain LBS does at some samples ${overVertices}${morphs}`, `at ${num(m.worseSamples)} of ${count(m.samples, 'sample')} ${farther} plain LBS does ${overVertices}${morphs}`, `${num(m.worseSamples)} of ${count(m.samples, 'sample')}`); // prettier-ignore
    const h = m.halfway;
    if (h) {
      out(`  half-way between the samples (where a player at another frame rate interpolates the keys), at ${count(h.times, 'time')}: baked file by LBS vs ${M} max ${e(h.max)}, p99 ${e(h.p99)}; plain LBS vs ${M} max ${e(h.lbsMax)}, p99 ${e(h.lbsP99)}${h.lbsP99 > NEVER_WORSE_MARGIN ? `; removes ${percent(1 - h.p99 / h.lbsP99)}% of it, max ${(h.max / h.lbsMax).toFixed(2)} of LBS's` : ''}`); // prettier-ignore
      if (h.worseSamples) {
        const hold = o.as !== 'helpers' ? ': a higher --rate brings the samples closer together (morph targets blend linearly between them)' : baked[k].guard === 'between' ? '' : o.guard === 'samples' ? ': --guard auto (the default) or between holds the bake there too' : ': --guard between holds the bake there too'; // prettier-ignore
        const rest = `${farther} plain LBS does (${margin})${hold}${morphs}`;
        warnings.add(name, `half-way between samples, at some times, ${rest}`, `half-way between samples, at ${num(h.worseSamples)} of ${count(h.times, 'time')}, ${rest}`, `${num(h.worseSamples)} of ${count(h.times, 'time')}`); // prettier-ignore
      }
    }
    const b = beyond[k];
    if (b) {
      out(`  beyond the clips (the evaluation's stress pose at half amplitude, the helpers at rest on their joints, as under an animation that does not key them): baked file by LBS vs ${M} max ${e(b.max)}, p99 ${e(b.p99)}; plain LBS vs ${M} max ${e(b.lbsMax)}, p99 ${e(b.lbsP99)}`); // prettier-ignore
      if (worseBeyond(b)) {
        const text = `beyond the clips ${farther} plain LBS does (at the half stress pose, its max or p99 over the vertices ${margin})${o.beyondClips !== 'lbs' ? ': --beyond-clips lbs plays the input\'s LBS there' : baked[k].over ? ` (its vertices with more than ${o.influences ?? 4} influences were fitted with their ${o.influences ?? 4} heaviest, and play those there)` : ''}`; // prettier-ignore
        warnings.add(name, text, text);
      }
    }
    if (m.firstSet) {
      const f = m.firstSet;
      out(
        `  in an engine that skins 4 influences (three.js's stock GLTFLoader: the first set, renormalised): baked file vs ${M} max ${e(f.max)}, p99 ${e(f.p99)}; the input there max ${e(f.lbsMax)}, p99 ${e(f.lbsP99)}`,
      );
      if (f.worseSamples) {
        const why =
          withHelpers && o.influences === 8
            ? ': bake with --influences 4 for such engines'
            : withHelpers
              ? ' (vertices that kept their own influences have more than 4)'
              : ' (the corrections are for all of its influences)';
        const where = `in an engine that skins 4 influences ${farther} the input does there`;
        warnings.add(name, `${where} at some samples ${overVertices}${why}`, `${where} at ${num(f.worseSamples)} of ${count(m.samples, 'sample')} ${overVertices}${why}`, `${num(f.worseSamples)} of ${count(m.samples, 'sample')}`); // prettier-ignore
      }
    }
    // One kind for several skins, worst included: "could not" is none of it removed.
    // Held half-way between samples slower than the default: the helpers' keys too far apart
    // for the motion (the Fox at 10 samples/s: 23% of the gap, at 30: 83%).
    const slow = withHelpers && baked[k].guard === 'between' && rate < DEFAULT_BAKE_RATE ? `; at ${rate} samples/s the helpers' keys are too far apart to follow the motion half-way between them: a higher --rate (the default is ${DEFAULT_BAKE_RATE}) keys them closer` : ''; // prettier-ignore
    const remedies = `${morphs}${slow}`;
    const lessThanHalf = `the bake removes less than half of plain LBS's p99 distance to ${M}${remedies}`;
    const removed = Math.round(100 * (gap ?? 0)) || 0;
    if (gap !== null && gap < 0.005)
      warnings.add(name, lessThanHalf, `the bake could not bring LBS closer to ${M}${remedies}`, 'removes none'); // prettier-ignore
    else if (gap !== null && gap < 0.5)
      warnings.add(name, lessThanHalf, `the bake removes less than half of plain LBS's p99 distance to ${M} (${removed}%)${remedies}`, `removes ${removed}%`); // prettier-ignore
  });
  warnings.flush();
  let outputErrors: ValidatorMessage[] = [];
  if (inputErrors && outputValidation) {
    // The codes whose count grew (the bake adds no error of its own: it fails if it did).
    try {
      outputErrors = (await outputValidation) ?? [];
    } catch (e) {
      io.err(
        `corskin: warning: ${o.output}: the glTF validator could not read the baked file (${(e as Error).message})`,
      );
    }
    const inInput = new Map<string, number>();
    for (const e of inputErrors) inInput.set(e.code, (inInput.get(e.code) ?? 0) + 1);
    const added = outputErrors.filter((e) => {
      const left = inInput.get(e.code) ?? 0;
      inInput.set(e.code, left - 1);
      return left <= 0;
    });
    // An invalid file is not a bake: not kept (the measurements above stand).
    if (added.length)
      throw new CorskinError(
        `the baked file had ${count(added.length, 'glTF validator error')} the input does not have: ${describeErrors(added)}; nothing written (a bake adds no error: please report it)`,
        o.output,
      );
    if (inputErrors.length)
      out(
        outputErrors.length
          ? `glTF validator: the baked file keeps ${count(outputErrors.length, 'error')} of the input's: ${describeErrors(outputErrors)}`
          : `glTF validator: the baked file has none of the input's errors`,
      );
  } else io.err('corskin: note: gltf-validator is not installed: the input and the baked file were not validated');
  // A .gltf's buffers and images beside it: they must not replace the input's.
  const folder = dirname(resolve(o.output));
  for (const f of files.slice(1)) checkNotOverwritingInput(join(folder, basename(f)), [input], !!o.force);
  const before = inputFiles(input).reduce((t, f) => t + fileSize(f), 0);
  const after = files.reduce((t, f) => t + fileSize(f), 0);
  keepStaged(files, folder);
  const seconds = (performance.now() - start) / 1000;
  if (o.json) {
    const report: BakeReport = {
      input,
      output: o.output,
      method,
      as: o.as,
      rate,
      skins: baked.map((b, k) => {
        const { halfway: h, firstSet: f, ...m } = measures[k];
        const beyondClips = beyond[k];
        return {
          name: b.model.name,
          samples: { count: m.samples, ...distances(m), worseThanLbs: m.worseSamples },
          halfway: h ? { count: h.times, ...distances(h), worseThanLbs: h.worseSamples } : null,
          beyondClips: beyondClips ? { ...distances(beyondClips), worseThanLbs: worseBeyond(beyondClips) } : null,
          fourInfluences: f ? { ...distances(f), worseThanLbs: f.worseSamples } : null,
          measureThreads: measureThreads[k],
          helpers: b.helpers ? pick(b.helpers, HELPER_FIELDS) : null,
          morphs: b.morphs ? pick(b.morphs, MORPH_FIELDS) : null,
        };
      }),
      validatorErrors: inputErrors && outputValidation ? { input: inputErrors.length, output: outputErrors.length } : null, // prettier-ignore
      bytes: after,
      inputBytes: before,
      seconds,
    };
    io.out(JSON.stringify(report));
  }
  out(
    `wrote ${o.output}: ${mb(after)} (input ${mb(before)}, ${(after / before).toFixed(2)}×${collapsed?.channels ? `; ${count(collapsed.channels, 'constant channel')} stored as 2 keys${collapsed.channels > 1 ? ' each' : ''}, ${mb(collapsed.bytes)} less` : ''})${o.quantize ? ', KHR_mesh_quantization' : ''} in ${seconds.toFixed(2)} s`,
  );
}

/** Bytes as MB with 2 decimals (as KB with 1 below 5 KB, where 2 decimals of a MB would say 0.00). */
export function mb(bytes: number): string {
  return bytes > 0 && bytes < 5e3 ? `${(bytes / 1e3).toFixed(1)} KB` : `${(bytes / 1e6).toFixed(2)} MB`;
}

/** Size of a file in bytes (0 when unreadable). */
function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
