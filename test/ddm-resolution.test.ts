/**
 * Direct Delta Mush's smoothing adapted to the mesh's resolution (`src/methods/ddm/resolution.ts`):
 * ρ measured on libigl's elephant is the constant the rule is anchored to; ρ does not change when
 * the mesh is scaled, mirrored, moved or its seams split; λ and κ are scaled by min(1, (ρ/ρ₀)²);
 * and on the coarse shared characters the adapted model stays near DQS at the stress pose where
 * libigl's reach (λ and κ as given) turned heads and crossed legs.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SkinnedMesh } from '../src/core/mesh.js';
import { skinningMatrices } from '../src/core/pose.js';
import { deformers } from '../src/deformers/index.js';
import { stressPose } from '../src/evaluation/stress-pose.js';
import { extractSkinnedModels } from '../src/io/gltf.js';
import { readDocument } from '../src/io/node-io.js';
import { withDdmModel } from '../src/methods/ddm/data.js';
import { deformDdm } from '../src/methods/ddm/deformer.js';
import { resolveDdmParameters } from '../src/methods/ddm/parameters.js';
import { computeDirectDeltaMush } from '../src/methods/ddm/precompute.js';
import { ELEPHANT_RESOLUTION, meshResolution, smoothingScale } from '../src/methods/ddm/resolution.js';
import { weldedVertices } from '../src/metrics/weld.js';
import { convertLibigl } from './helpers/convert.js';
import { CESIUM_MAN, SHARED, scratch } from './helpers/data.js';

const character = (f: string) => join(SHARED, 'characters', f);
const rho = (mesh: SkinnedMesh) => meshResolution(mesh, weldedVertices(mesh.positions))!;

async function firstSkin(file: string) {
  return extractSkinnedModels(await readDocument(file), file)[0];
}

describe('Direct Delta Mush: the mesh resolution ρ', () => {
  const tmp = scratch();
  afterAll(tmp.cleanup);

  it("is the anchor's value on libigl's elephant, so the elephant keeps libigl's λ and κ", async () => {
    const { mesh } = await firstSkin(await convertLibigl(tmp.dir, 'elephant'));
    expect(Math.abs(rho(mesh) - ELEPHANT_RESOLUTION)).toBeLessThan(0.05);
    const model = computeDirectDeltaMush(mesh);
    expect(model.parameters.lambda).toBe(3);
    expect(model.parameters.kappa).toBe(1);
  });

  it('does not change when the mesh is scaled, mirrored, moved or its vertices unwelded', async () => {
    const { mesh } = await firstSkin(CESIUM_MAN);
    const base = rho(mesh);
    const mapped = (f: (x: number, c: number) => number): SkinnedMesh => ({
      ...mesh,
      positions: mesh.positions.map((x, k) => f(x, k % 3)),
    });
    for (const variant of [
      mapped((x) => 0.01 * x),
      mapped((x) => 100 * x),
      mapped((x, c) => (c === 0 ? -x : x)),
      mapped((x, c) => x + [10, -5, 3][c]), // (float32 positions: farther out, their rounding shows)
    ])
      expect(Math.abs(rho(variant) / base - 1)).toBeLessThan(1e-5);
    // Every triangle its own three vertices (a flat-shaded export): the same welded mesh.
    const t = mesh.triangles.length;
    const K = mesh.influences;
    const pick = <T extends Float32Array | Uint32Array>(a: T, width: number): T => {
      const out = new (a.constructor as new (n: number) => T)(width * t);
      for (let v = 0; v < t; v++)
        out.set(a.subarray(width * mesh.triangles[v], width * mesh.triangles[v] + width), width * v);
      return out;
    };
    const unwelded: SkinnedMesh = {
      ...mesh,
      positions: pick(mesh.positions, 3),
      joints: pick(mesh.joints, K),
      weights: pick(mesh.weights, K),
      triangles: Uint32Array.from({ length: t }, (_, v) => v),
    };
    expect(Math.abs(rho(unwelded) / base - 1)).toBeLessThan(1e-9);
  });

  it('scales λ and κ by min(1, (ρ/ρ₀)²), and a model holds the values it solved with', async () => {
    expect(smoothingScale(ELEPHANT_RESOLUTION / 2)).toBeCloseTo(0.25, 12);
    expect(smoothingScale(2 * ELEPHANT_RESOLUTION)).toBe(1);
    expect(smoothingScale(undefined)).toBe(1);
    const { mesh } = await firstSkin(character('Fox.glb'));
    const r = rho(mesh);
    expect(r).toBeLessThan(ELEPHANT_RESOLUTION / 4); // a coarse game mesh
    const model = computeDirectDeltaMush(mesh, { lambda: 2, kappa: 0.5 });
    expect(model.parameters.lambda).toBeCloseTo(2 * (r / ELEPHANT_RESOLUTION) ** 2, 12);
    expect(model.parameters.kappa).toBeCloseTo(0.5 * (r / ELEPHANT_RESOLUTION) ** 2, 12);
    expect(model.parameters.resolution).toBe('fixed');
    expect(model.edgesPerRegion).toBeCloseTo(r, 12);
    // As given: with `fixed`, and by default with libigl's operator (to reproduce libigl).
    expect(computeDirectDeltaMush(mesh, { lambda: 2, kappa: 0.5, resolution: 'fixed' }).parameters.lambda).toBe(2);
    expect(resolveDdmParameters({ smoothing: 'libigl' }).resolution).toBe('fixed');
    expect(resolveDdmParameters({}).resolution).toBe('adaptive');
    expect(() => resolveDdmParameters({ resolution: 'auto' as never })).toThrow(
      /resolution must be "adaptive" or "fixed"/,
    );
  });
});

describe('Direct Delta Mush at the stress pose on coarse characters', () => {
  // The 99th percentile over the vertices of the distance to DQS, ÷ the posed diagonal.
  it.each(['Fox.glb', 'ShibaInu.gltf', 'Soldier.glb', 'chicken.glb', 'skeleton.glb'])(
    '%s: adapted, as near DQS as plain LBS (within 1.5×), where libigl’s reach was at least twice as far',
    async (file) => {
      const { mesh, skeleton } = await firstSkin(character(file));
      const n = mesh.positions.length / 3;
      const S = skinningMatrices(skeleton, stressPose(skeleton));
      const pose = (f: (out: { positions: Float32Array }) => void) => {
        const out = { positions: new Float32Array(3 * n) };
        f(out);
        return out.positions;
      };
      const dqs = pose((o) => deformers.dqs(mesh, S, o));
      const lo = [0, 1, 2].map((c) => Math.min(...dqs.filter((_, k) => k % 3 === c)));
      const hi = [0, 1, 2].map((c) => Math.max(...dqs.filter((_, k) => k % 3 === c)));
      const diagonal = Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
      const p99 = (P: Float32Array) => {
        const d = Array.from({ length: n }, (_, i) =>
          Math.hypot(P[3 * i] - dqs[3 * i], P[3 * i + 1] - dqs[3 * i + 1], P[3 * i + 2] - dqs[3 * i + 2]),
        ).sort((a, b) => a - b);
        return d[Math.floor(0.99 * n)] / diagonal;
      };
      const ddm = (resolution: 'adaptive' | 'fixed') =>
        p99(pose((o) => deformDdm(withDdmModel(mesh, computeDirectDeltaMush(mesh, { resolution })), S, o)));
      const [adapted, fixed, lbs] = [ddm('adaptive'), ddm('fixed'), p99(pose((o) => deformers.lbs(mesh, S, o)))];
      expect(adapted).toBeLessThan(1.5 * lbs);
      expect(fixed).toBeGreaterThan(2 * adapted);
    },
  );
});
