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
  const { serveViewer } = await import('../src/cli/viewer-server.js');
  const { CHROMIUM_ARGS, chromiumPath } = await import('../src/cli/render.js');
  let executablePath: string;
  try {
    executablePath = chromiumPath();
  } catch {
    return undefined;
  }
  const { chromium } = await import('playwright-core');
  const server = await serveViewer(file);
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  type V = { ready: boolean; frameTimes: () => Record<string, number> };
  try {
    const page = await browser.newPage({ viewport: { width: 960, height: 480 } });
    await page.goto(`${server.url}?model=/model.glb&time=1`);
    await page.waitForFunction(() => (window as unknown as { viewer?: V }).viewer?.ready === true, null, {
      timeout: 180_000,
    });
    const readouts: Record<string, number>[] = [];
    for (let s = 0; s < samples; s++) {
      await page.waitForTimeout(2500); // 60 new frames per view at least
      readouts.push(await page.evaluate(() => (window as unknown as { viewer: V }).viewer.frameTimes()));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const ms = Object.fromEntries(Object.keys(readouts[0]).map((m) => [m, median(readouts.map((r) => r[m]))]));
    return { samples, ms };
  } finally {
    await browser.close();
    await server.close();
  }
}
