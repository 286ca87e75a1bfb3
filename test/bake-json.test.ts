/**
 * `corskin bake --json`: one JSON line per file on stdout, with the same bake and the same
 * figures as the text report; with -q it still prints; a batch's own lines go to stderr.
 */
import { copyFileSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { afterAll, describe, expect, it } from 'vitest';
import type { BakeReport } from '../src/cli/bake-check.js';
import { bakeSampleTimes } from '../src/bake/samples.js';
import { runCli } from './helpers/cli.js';
import { CESIUM_MAN, scratch } from './helpers/data.js';

const tmp = scratch();
afterAll(() => tmp.cleanup());

/** The CesiumMan clip's length (s), read from its keyframe times. */
async function clipLength(file: string): Promise<number> {
  const doc = await new NodeIO().read(file);
  const times = doc
    .getRoot()
    .listAnimations()[0]
    .listSamplers()
    .map((s) => s.getInput()!.getMax([])[0]);
  return Math.max(...times);
}

describe('corskin bake --json', () => {
  it('prints the report as one JSON line: the same file and figures as the text report, the helpers and the samples counted apart', async () => {
    const [text, json] = ['text', 'json'].map((name) => join(tmp.dir, `${name}.glb`));
    const args = ['bake', CESIUM_MAN, '--method', 'dqs', '--as', 'helpers', '--rate', '5'];
    const a = await runCli(...args, '-o', text);
    const b = await runCli(...args, '-o', json, '--json', '-q');
    expect([a.code, b.code, b.stderr]).toEqual([0, 0, '']);
    expect(b.stdout.split('\n')).toHaveLength(1);
    const report = JSON.parse(b.stdout) as BakeReport;
    // The same bake, byte for byte.
    expect(readFileSync(json).equals(readFileSync(text))).toBe(true);
    expect([report.input, report.output, report.method, report.as, report.rate]).toEqual([CESIUM_MAN, json, 'dqs', 'helpers', 5]); // prettier-ignore
    expect(report.bytes).toBe(statSync(json).size);
    expect(report.inputBytes).toBe(statSync(CESIUM_MAN).size);
    expect(report.skins).toHaveLength(1);
    const [skin] = report.skins;
    // The samples, counted from the clip's own keyframe times; the helpers, from the file's nodes.
    expect(skin.samples.count).toBe(bakeSampleTimes(await clipLength(CESIUM_MAN), 5).length);
    const nodes = (await new NodeIO().read(json)).getRoot().listNodes();
    const helpers = nodes.filter((n) => (n.getExtras() as { corskin?: { helperOf?: unknown } }).corskin?.helperOf !== undefined); // prettier-ignore
    expect(skin.helpers?.helpers).toBe(helpers.length);
    expect(helpers.length).toBeGreaterThan(0);
    expect(skin.morphs).toBeNull();
    // The text report's figures, as it rounds them.
    const e = (x: number) => x.toExponential(1);
    const { max, p99, lbsMax, lbsP99, gapRemoved } = skin.samples;
    expect(a.stdout).toContain(`at the ${skin.samples.count} samples, per-vertex distance ÷ bounding-box diagonal of the mesh posed at the first clip's start: baked file by LBS vs DQS max ${e(max)}, p99 ${e(p99)}; plain LBS vs DQS max ${e(lbsMax)}, p99 ${e(lbsP99)}`); // prettier-ignore
    expect(a.stdout).toContain(`removes ${(100 * gapRemoved!).toFixed(1)}% of plain LBS's p99 distance to DQS`);
    expect(gapRemoved).toBeCloseTo(1 - p99 / lbsP99, 12);
    expect(skin.samples.worseThanLbs).toBe(0);
    expect(p99).toBeLessThanOrEqual(lbsP99);
    const h = skin.halfway!;
    expect(a.stdout).toContain(`at ${h.count} times: baked file by LBS vs DQS max ${e(h.max)}, p99 ${e(h.p99)}`);
    expect(h.count).toBe(skin.samples.count - 1); // one half-way time per interval of the one clip
    expect(skin.beyondClips).not.toBeNull();
    expect(skin.fourInfluences).toBeNull(); // 4 influences: nothing to play with fewer
    expect(a.stdout).toContain(`wrote ${text}: `);
  });

  it('a batch prints one JSON line per file, its own lines on stderr', async () => {
    const other = join(tmp.dir, 'Other.glb');
    copyFileSync(CESIUM_MAN, other);
    const out = join(tmp.dir, 'batch');
    const r = await runCli('bake', CESIUM_MAN, other, '--method', 'dqs', '--as', 'morphs', '--rate', '2', '--out-dir', out, '--jobs', '1', '--json'); // prettier-ignore
    expect(r.code, r.stderr).toBe(0);
    const reports = r.stdout.split('\n').map((line) => JSON.parse(line) as BakeReport);
    expect(reports.map((x) => x.input)).toEqual([CESIUM_MAN, other]);
    for (const x of reports) {
      expect(x.bytes).toBe(statSync(x.output).size);
      expect(x.skins[0].helpers).toBeNull();
      expect(x.skins[0].morphs!.targets).toBeGreaterThan(0);
      expect(x.skins[0].beyondClips).toBeNull();
    }
    expect(r.stderr).toMatch(/^ok {6}.*CesiumMan\.glb → /m);
    expect(r.stderr).toContain('2 of 2 files done');
  });
});
