/**
 * What the per-frame benches (`ddm-frames.ts`, `simd-frames.ts`) share: medians of one frame's
 * time and the table they print.
 */

/** The median of `xs` (not sorted in place). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Median ms of one call over the frames × `reps` (one warm-up pass first). */
export function frameMs(frames: Float64Array[], deform: (S: Float64Array) => void, reps: number): number {
  for (const S of frames) deform(S);
  const times: number[] = [];
  for (let r = 0; r < reps; r++)
    for (const S of frames) {
      const t = performance.now();
      deform(S);
      times.push(performance.now() - t);
    }
  return median(times);
}

/** Prints `rows` under `head`, the first column left-aligned and the others right-aligned. */
export function printTable(head: string[], rows: string[][]): void {
  const width = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
  for (const r of [head, head.map((_, c) => '-'.repeat(width[c])), ...rows])
    console.log(r.map((x, c) => (c < 1 ? x.padEnd(width[c]) : x.padStart(width[c]))).join('  '));
}
