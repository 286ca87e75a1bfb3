/**
 * The HTML report of `corskin evaluate --report DIR`: one self-contained page with the table and
 * a bar chart per metric (Chart.js, inlined so the page opens offline), next to the deformed
 * meshes as `.glb`.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { BenchmarkRow } from './benchmark.js';
import { formatRatio, QUALITY_LEGEND } from './joint-quality.js';
import { CorskinError } from '../core/errors.js';

const METRICS: [keyof BenchmarkRow, string, number | null][] = [
  ['minRadiusRatio', 'Smallest cross-section radius / rest (candy wrapper, collapse → 0)', 1],
  ['maxRadiusRatio', 'Largest cross-section radius / rest (bulge > 1)', 1],
  ['volumeRatio', 'Enclosed volume / rest', 1],
  ['maxDistortion', 'Largest local rigidity distortion (0 = rigid)', 0],
  ['selfIntersections', 'Self-intersecting triangle pairs', 0],
  ['timeMs', 'Deformation time (ms, one thread)', null],
];

const escape = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/**
 * The path of chart.js's UMD build, which the report page embeds (it sits beside the package's
 * CommonJS entry; it is not in its "exports").
 * @throws CorskinError when chart.js (an optional dependency) is not installed
 */
export function chartJsPath(): string {
  try {
    return join(dirname(createRequire(import.meta.url).resolve('chart.js')), 'chart.umd.min.js');
  } catch {
    throw new CorskinError('The HTML report needs the optional dependency chart.js: npm install chart.js');
  }
}

/**
 * Renders the report page.
 * @param title e.g. "bar benchmark"
 * @param meshes relative links of the posed meshes by `case|method`
 * @throws CorskinError when chart.js is not installed (`chartJsPath`)
 */
export function renderReport(title: string, rows: BenchmarkRow[], meshes: Map<string, string>): string {
  const chartJs = readFileSync(chartJsPath(), 'utf8');
  const cases = [...new Set(rows.map((r) => r.case))];
  const methods = [...new Set(rows.map((r) => r.method))];
  // One colour per method (Tableau 10): the registry has ten.
  const palette = ['#d62728', '#1f77b4', '#9467bd', '#8c564b', '#2ca02c', '#ff7f0e', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf']; // prettier-ignore
  const data = METRICS.map(([key, label, ideal]) => ({
    key,
    label,
    ideal,
    datasets: methods.map((m, k) => ({
      label: m.toUpperCase(),
      backgroundColor: palette[k % palette.length],
      data: cases.map((c) => Number(rows.find((r) => r.case === c && r.method === m)?.[key] ?? NaN)),
    })),
  }));
  const table = rows
    .map((r) => {
      const link = meshes.get(`${r.case}|${r.method}`);
      return `<tr><td>${escape(r.case)}</td><td>${r.method.toUpperCase()}</td><td>${formatRatio(r.volumeRatio)}</td><td>${r.minRadiusRatio.toFixed(3)}</td><td>${r.maxRadiusRatio.toFixed(3)}</td><td>${r.maxDistortion.toFixed(3)}</td><td>${r.selfIntersections}</td><td>${r.timeMs.toFixed(2)}</td><td>${r.floatsPerBone}</td><td>${r.floatsPerVertex}</td><td>${link ? `<a href="${escape(link)}">.glb</a>` : ''}</td></tr>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>corskin — ${escape(title)}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr)); gap: 24px; }
figure { margin: 0; } figcaption { font-weight: 600; margin-bottom: 6px; }
table { border-collapse: collapse; margin-top: 24px; } td, th { padding: 3px 10px; border-bottom: 1px solid #ddd; text-align: right; }
td:first-child, th:first-child, td:nth-child(2) { text-align: left; }
</style></head>
<body>
<h1>corskin — ${escape(title)}</h1>
<p>${rows.length} deformations: ${cases.length} cases × ${methods.length} methods. Ratios are posed / rest; the cross-section is taken at the manipulated joint (slab ±10% of its bone). ${escape(QUALITY_LEGEND)}.</p>
<div class="charts">${data.map((d, i) => `<figure><figcaption>${escape(d.label)}</figcaption><canvas id="chart${i}" width="520" height="300"></canvas></figure>`).join('')}</div>
<table><thead><tr><th>case</th><th>method</th><th>volume</th><th>min radius</th><th>max radius</th><th>max distortion</th><th>self-intersections</th><th>time (ms)</th><th>floats / bone</th><th>floats / vertex</th><th>mesh</th></tr></thead>
<tbody>${table}</tbody></table>
<script>${chartJs}</script>
<script>
const charts = ${JSON.stringify(data)};
const labels = ${JSON.stringify(cases)};
window.chartsDrawn = 0;
charts.forEach((c, i) => {
  new Chart(document.getElementById('chart' + i), {
    type: 'bar',
    data: { labels, datasets: c.datasets },
    options: { animation: false, responsive: false, plugins: { legend: { position: 'bottom' } } },
  });
  window.chartsDrawn++;
});
</script>
</body></html>
`;
}
