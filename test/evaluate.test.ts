/**
 * The quality benchmark: the paper's qualitative claims (seed 000, Fig. 2 and Sec. 4) as
 * measured numbers on the bar and the arm, and the HTML report in a real browser.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, chromiumPath } from '../src/cli/render.js';
import { barBenchmark, rigidCase, runBenchmark, type BenchmarkRow } from '../src/evaluation/benchmark.js';
import { runCli } from './helpers/cli.js';
import { scratch } from './helpers/data.js';
import { validate } from './helpers/gltf.js';

const tmp = scratch();
afterAll(tmp.cleanup);

const row = (rows: BenchmarkRow[], c: string, m: string) => {
  const r = rows.find((x) => x.case === c && x.method === m);
  if (!r) throw new Error(`no row ${c} ${m}`);
  return r;
};

describe.each([
  { benchmark: 'bar', twists: ['twist 135°', 'twist 90°'], bends: ['bend 120°', 'bend 90°'], cases: 5 },
  { benchmark: 'arm', twists: ['twist 180°', 'twist 135°', 'twist 90°'], bends: ['bend 126°'], cases: 4 },
])('corskin evaluate --benchmark $benchmark --json', ({ benchmark, twists, bends, cases }) => {
  let rows: BenchmarkRow[];
  beforeAll(async () => {
    const r = await runCli('evaluate', '--benchmark', benchmark, '--json');
    expect(r.code).toBe(0);
    rows = JSON.parse(r.stdout);
  });

  it('prints one JSON array of {case, method, volumeRatio, minRadiusRatio, maxRadiusRatio, maxDistortion, selfIntersections}', () => {
    expect(Array.isArray(rows)).toBe(true);
    expect(new Set(rows.map((r) => r.case)).size).toBe(cases);
    for (const m of ['lbs', 'dqs', 'sbs', 'lms', 'cor']) expect(rows.filter((r) => r.method === m)).toHaveLength(cases);
    for (const r of rows) {
      for (const key of ['volumeRatio', 'minRadiusRatio', 'maxRadiusRatio', 'maxDistortion', 'selfIntersections']) {
        expect(Number.isFinite(r[key as keyof BenchmarkRow])).toBe(true);
      }
    }
  });

  it("twists: LBS's smallest cross-section is far below DQS's and CoR's (candy wrapper)", () => {
    for (const c of twists) {
      expect(row(rows, c, 'lbs').minRadiusRatio).toBeLessThan(row(rows, c, 'dqs').minRadiusRatio - 0.2);
      expect(row(rows, c, 'lbs').minRadiusRatio).toBeLessThan(row(rows, c, 'cor').minRadiusRatio - 0.2);
    }
  });

  it('bends: DQS bulges more than CoR, and LBS loses more volume than CoR', () => {
    for (const c of bends) {
      expect(row(rows, c, 'dqs').maxRadiusRatio).toBeGreaterThan(row(rows, c, 'cor').maxRadiusRatio);
      expect(1 - row(rows, c, 'lbs').volumeRatio).toBeGreaterThan(Math.abs(1 - row(rows, c, 'cor').volumeRatio));
    }
  });
});

describe('every method on a rigid motion of the bar', () => {
  it('is exact: unit ratios, no distortion, no self-intersection', () => {
    const bench = barBenchmark();
    bench.cases = [rigidCase(bench)];
    for (const r of runBenchmark(bench)) {
      expect(Math.abs(r.volumeRatio - 1)).toBeLessThan(1e-5);
      expect(Math.abs(r.minRadiusRatio - 1)).toBeLessThan(1e-5);
      expect(Math.abs(r.maxRadiusRatio - 1)).toBeLessThan(1e-5);
      expect(r.maxDistortion).toBeLessThan(1e-3);
      expect(r.selfIntersections).toBe(0);
    }
  });
});

// Needs Debian's Chromium (CI installs it): without it this fails with corskin's message saying
// how to install it, rather than skipping.
describe('the HTML report', () => {
  it('writes the page and the meshes; the page opens in headless Chromium without errors and draws its charts', async () => {
    const dir = join(tmp.dir, 'report');
    const r = await runCli('evaluate', '--benchmark', 'bar', '--report', dir);
    expect(r.code).toBe(0);
    const meshes = readdirSync(join(dir, 'meshes'));
    const { SKINNING_METHODS } = await import('../src/deformers/registry.js');
    const { barBenchmark } = await import('../src/evaluation/benchmark.js');
    expect(meshes).toHaveLength(barBenchmark().cases.length * SKINNING_METHODS.length); // every case × method
    expect((await validate(join(dir, 'meshes', meshes[0]))).issues.numErrors).toBe(0);
    // Each method's bars in a colour of their own.
    const page = readFileSync(join(dir, 'index.html'), 'utf8');
    const charts = JSON.parse(/const charts = (.*);\n/.exec(page)![1]) as { datasets: { backgroundColor: string }[] }[];
    expect(new Set(charts[0].datasets.map((d) => d.backgroundColor)).size).toBe(SKINNING_METHODS.length);
    const { chromium: pw } = await import('playwright-core');
    const browser = await pw.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      await page.goto(`file://${join(dir, 'index.html')}`);
      await page.waitForFunction(() => (window as unknown as { chartsDrawn: number }).chartsDrawn === 6, null, {
        timeout: 20_000,
      });
      // Each chart canvas has coloured pixels (bars), not just background.
      const coloured = await page.evaluate(() =>
        [...document.querySelectorAll('canvas')].map((c) => {
          const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
          let n = 0;
          for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && Math.abs(d[i] - d[i + 2]) > 60) n++;
          return n;
        }),
      );
      expect(coloured).toHaveLength(6);
      for (const n of coloured.slice(0, 4)) expect(n).toBeGreaterThan(500);
      await page.screenshot({ path: join(tmp.dir, 'report.png') });
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
