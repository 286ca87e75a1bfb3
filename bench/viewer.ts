/**
 * Frame time per skinning method in the viewer (headless Chromium; SwiftShader where there is no
 * GPU): the viewer's own readout, each view's median render time over 60 frames, LBS | DQS | CoR |
 * templates side by side on the same character and pose, sampled several times in one run.
 */

/** Medians over `samples` readouts of each method's frame time (ms), or undefined without Chromium. */
export async function measureViewerFrames(
  file: string,
  samples = 5,
): Promise<{ samples: number; ms: Record<string, number> } | undefined> {
  const viewer = await openViewerInBench(file, 'model=/model.glb&time=1', { width: 960, height: 480 });
  if (!viewer) return undefined;
  type V = { frameTimes: () => Record<string, number> };
  try {
    const { page } = viewer;
    const readouts: Record<string, number>[] = [];
    for (let s = 0; s < samples; s++) {
      await page.waitForTimeout(2500); // 60 new frames per view at least
      readouts.push(await page.evaluate(() => (window as unknown as { viewer: V }).viewer.frameTimes()));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const ms = Object.fromEntries(Object.keys(readouts[0]).map((m) => [m, median(readouts.map((r) => r[m]))]));
    return { samples, ms };
  } finally {
    await viewer.close();
  }
}

/** The viewer on `file` in headless Chromium (`openViewerPage`), or undefined where there is no Chromium. */
export async function openViewerInBench(file: string, query: string, viewport: { width: number; height: number }) {
  const { chromiumPath } = await import('../src/cli/render.js');
  try {
    chromiumPath();
  } catch {
    return undefined; // no Chromium here: the Node figures stand alone
  }
  const { openViewerPage } = await import('../test/browser/server.js');
  return openViewerPage(file, query, viewport);
}
