/**
 * `npm run bench:simd-builds`: the SIMD kernels' two builds (src/wasm/instance.ts'
 * `simdKernelBuild`) side by side — WebAssembly SIMD, and relaxed SIMD, whose multiply-adds are
 * fused where the CPU has FMA. Each build runs in a child process of its own, in turn: the
 * standard one with `CORSKIN_SIMD_BUILD=standard`, the relaxed one with relaxed SIMD on (Node 20:
 * `--experimental-wasm-relaxed-simd`; Node 21 and later have it). Every SIMD method on CesiumMan
 * subdivided ×3 and Ybot, medians of one frame (positions + normals) over the rounds, and
 * relaxed/standard ratios from the same run. `--quick`: CesiumMan ×1, one round.
 *
 * As a child (`--child`): prints the median of one frame per method as JSON.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { computeCentersOfRotation } from '../src/cor/precompute.js';
import { stretchRigFromSkeleton } from '../src/deformers/stretch.js';
import { prepareMethod } from '../src/methods/index.js';
import { simdKernelBuild } from '../src/wasm/instance.js';
import { createSimdDeformer } from '../src/wasm/simd-skinning.js';
import { benchAsset, DATA, frameMs, median, printTable } from './frames.js';

const METHODS = ['lbs', 'dqs', 'cor', 'sbs', 'lms', 'dm', 'ddm', 'stretch', 'templates'] as const;
const quick = process.argv.includes('--quick');
const ASSETS: [string, string, number][] = quick
  ? [['CesiumMan', join(DATA, 'gltf', 'CesiumMan.glb'), 0]]
  : [
      ['CesiumMan ×3', join(DATA, 'gltf', 'CesiumMan.glb'), 3],
      ['Ybot', join(DATA, 'characters', 'Ybot.glb'), 0],
    ];

if (process.argv.includes('--child')) {
  const [, file, sub] = ASSETS.find(([name]) => name === process.argv[process.argv.indexOf('--child') + 1])!;
  const { mesh, skeleton, frames } = await benchAsset(file, sub);
  mesh.centersOfRotation = computeCentersOfRotation(mesh).centers;
  for (const method of ['templates', 'ddm', 'dm'] as const) prepareMethod(method, { mesh, skeleton });
  const ms: Record<string, number> = {};
  for (const method of METHODS) {
    const simd = await createSimdDeformer(
      mesh,
      method,
      method === 'stretch' ? { rig: stretchRigFromSkeleton(skeleton) } : undefined,
    );
    ms[method] = median([0, 1, 2].map(() => frameMs(frames, (S) => simd.deform(S), 3)));
  }
  console.log(JSON.stringify({ build: simdKernelBuild(), ms }));
} else {
  const rounds = quick ? 1 : 3;
  const rows: string[][] = [];
  for (const [name] of ASSETS) {
    const runs: Record<'standard' | 'relaxed', { build: string; ms: Record<string, number> }[]> = {
      standard: [],
      relaxed: [],
    };
    for (let r = 0; r < rounds; r++)
      for (const build of ['standard', 'relaxed'] as const) {
        const flags = build === 'relaxed' && Number(process.versions.node.split('.')[0]) < 21 ? ['--experimental-wasm-relaxed-simd'] : []; // prettier-ignore
        const env = { ...process.env, CORSKIN_SIMD_BUILD: build };
        const out = execFileSync(process.execPath, [...flags, '--import', 'tsx', import.meta.filename, ...(quick ? ['--quick'] : []), '--child', name], { encoding: 'utf8', env }); // prettier-ignore
        runs[build].push(JSON.parse(out.trim().split('\n').at(-1)!));
      }
    for (const build of ['standard', 'relaxed'] as const)
      if (runs[build].some((x) => x.build !== build)) throw new Error(`the ${build} child ran another build`);
    for (const method of METHODS) {
      const [s, x] = (['standard', 'relaxed'] as const).map((b) => median(runs[b].map((run) => run.ms[method])));
      rows.push([name, method, s.toFixed(3), x.toFixed(3), (x / s).toFixed(2)]);
    }
    console.error(`${name}: done`);
  }
  console.log(
    `\nSIMD kernel builds, ${rounds} round${rounds > 1 ? 's' : ''} of alternating child processes, medians of one frame (ms)`,
  );
  printTable(['asset', 'method', 'standard ms', 'relaxed ms', 'relaxed/standard'], rows);
}
