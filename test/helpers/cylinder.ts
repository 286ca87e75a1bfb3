/**
 * A generated cylinder along +x from 0 to `length`, radius `radius`, closed by two caps, bound
 * to two bones meeting at x = length/2 with weights symmetric about that plane:
 * w₁(x) = smoothstep over [length/2 − blend, length/2 + blend], w₀ = 1 − w₁.
 */
import { createSkeleton } from '../../src/core/skeleton.js';
import type { SkinnedMesh } from '../../src/core/mesh.js';
import { computeVertexNormals } from '../../src/core/mesh.js';
import { closedTube } from '../../src/evaluation/bar.js';

export function cylinder(
  opts: { rings?: number; segments?: number; length?: number; radius?: number; blend?: number } = {},
) {
  const rings = opts.rings ?? 41,
    segments = opts.segments ?? 24,
    length = opts.length ?? 2,
    radius = opts.radius ?? 0.25;
  const blend = opts.blend ?? 0.5;
  const { positions, triangles } = closedTube(rings, segments, length, radius);
  const n = positions.length / 3;
  const joints = new Uint32Array(4 * n);
  const weights = new Float32Array(4 * n);
  const mid = length / 2;
  for (let i = 0; i < n; i++) {
    const x = positions[3 * i];
    const t = Math.min(1, Math.max(0, (x - (mid - blend)) / (2 * blend)));
    const w1 = t * t * (3 - 2 * t);
    joints[4 * i] = 0;
    joints[4 * i + 1] = 1;
    weights[4 * i] = 1 - w1;
    weights[4 * i + 1] = w1;
  }
  const mesh: SkinnedMesh = {
    positions,
    normals: computeVertexNormals(positions, triangles),
    triangles,
    influences: 4,
    joints,
    weights,
  };
  // Joint 0 at the origin, joint 1 at the middle (child of 0), joint 2 at the end (child of 1).
  const skeleton = createSkeleton({
    jointNames: ['root', 'mid', 'end'],
    parents: [-1, 0, 1],
    restTranslations: [0, 0, 0, mid, 0, 0, mid, 0, 0],
    inverseBindMatrices: [
      ...[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1],
      ...[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -mid, 0, 0, 1],
      ...[1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -length, 0, 0, 1],
    ],
  });
  return { mesh, skeleton, radius, length };
}
