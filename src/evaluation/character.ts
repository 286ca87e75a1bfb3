/**
 * Quality of the methods on a real character, over a pose battery: the stress pose at full and
 * half amplitude ({@link stressPose}) and three times (¼, ½, ¾) of each of its clips. Per pose
 * and method: triangles flipped against DQS, edges whose dihedral angle changes by more than 30°
 * (creases), and the largest distance from DQS on the skin's rigid pieces (where the weights do
 * not blend, {@link skinFlex}: every method should move them rigidly, as DQS and LBS do). What
 * `corskin evaluate --character FILE` prints, so any user can judge a character.
 *
 * @module
 */
import { samplePose, type AnimationClip } from '../core/animation.js';
import { boundingBoxDiagonal, type SkinnedMesh } from '../core/mesh.js';
import { nearOriginSkinningMatrices, restPose, skinningMatrices, type Pose } from '../core/pose.js';
import { bindJointPositions, type Skeleton } from '../core/skeleton.js';
import type { Deformer } from '../deformers/contract.js';
import { deformDqs } from '../deformers/dqs.js';
import { skinFlex } from '../methods/templates/share.js';
import { creasedEdges, edgePairs, flippedTriangles, largestGap } from './skin-quality.js';
import { stressPose } from './stress-pose.js';

/** One pose of the battery. */
export interface BatteryPose {
  /** `stress`, `stress ½`, or `CLIP@TIME` (seconds). */
  name: string;
  /** `stress`, `half` or `clip`. */
  kind: 'stress' | 'half' | 'clip';
  pose: Pose;
}

/**
 * The pose battery of a character: its stress pose at full and half amplitude, then each clip at
 * ¼, ½ and ¾ of its duration.
 */
export function poseBattery(skeleton: Skeleton, clips: readonly AnimationClip[]): BatteryPose[] {
  const poses: BatteryPose[] = [
    { name: 'stress', kind: 'stress', pose: stressPose(skeleton, 1) },
    { name: 'stress ½', kind: 'half', pose: stressPose(skeleton, 0.5) },
  ];
  for (const clip of clips)
    for (const f of [0.25, 0.5, 0.75])
      poses.push({
        name: `${clip.name}@${(f * clip.duration).toFixed(2)}`,
        kind: 'clip',
        pose: samplePose(skeleton, clip, f * clip.duration),
      });
  return poses;
}

/** The measures of one method at one pose. */
export interface CharacterRow {
  pose: string;
  kind: BatteryPose['kind'];
  method: string;
  /** Triangles whose normal points away from its DQS normal. */
  flippedAgainstDqs: number;
  /** Interior edges whose dihedral angle changes by more than 30° from rest. */
  creasedEdges: number;
  /**
   * Largest distance from DQS on the rigid pieces, ÷ the bounding-box diagonal of the skin posed
   * at rest (the units it plays in; 0 when the skin has no rigid piece).
   */
  rigidGap: number;
  /** Time of one deformation (ms). */
  ms: number;
  /**
   * The spacing of float32 numbers at the skin's largest coordinate at this pose (posed by DQS),
   * ÷ the diagonal as `rigidGap`: the rounding of the posed positions every method writes, so a
   * rigid gap of about this size is rounding, not the method (a mesh stored far from the origin
   * of its bind space; one posed far from the origin is measured about its first joint,
   * `nearOriginSkinningMatrices`).
   */
  rounding: number;
}

/** Untimed calls of each method before {@link measureCharacter} times them. */
const WARM_UP_CALLS = 5;

/**
 * Deforms `mesh` (bind space) with each of `methods` (name → deformer) at every pose of `poses`
 * and measures it against DQS and the rest shape (see the module comment).
 * @param methods deformers with corskin's signature (rigged ones built beforehand)
 */
export function measureCharacter(
  mesh: SkinnedMesh,
  skeleton: Skeleton,
  poses: readonly BatteryPose[],
  methods: ReadonlyMap<string, Deformer>,
): CharacterRow[] {
  const n = mesh.positions.length / 3;
  const edges = edgePairs(mesh.triangles, mesh.positions);
  const rigid = Uint8Array.from(skinFlex(mesh, bindJointPositions(skeleton), skeleton.parents), (f) => +(f === 0));
  const dqs = { positions: new Float32Array(3 * n) };
  // The size the character plays at (its armature may be scaled above the bind space).
  deformDqs(mesh, skinningMatrices(skeleton, restPose(skeleton)), dqs);
  const diag = boundingBoxDiagonal(dqs.positions) || boundingBoxDiagonal(mesh.positions) || 1;
  const out = { positions: new Float32Array(3 * n) };
  // Each pose about the first joint where it lies far from the origin (`farShift`): the same
  // shape, resolved as near the origin.
  const extent = boundingBoxDiagonal(mesh.positions);
  const posed = (pose: Pose) => nearOriginSkinningMatrices(skeleton, pose, extent);
  const rows: CharacterRow[] = [];
  // Untimed calls first, over the first poses: the first ones compile code and check kernels
  // (a cold call took 12.6 ms where CesiumMan's LBS takes 0.24 ms).
  for (let k = 0; k < WARM_UP_CALLS && poses.length; k++) {
    const S = posed(poses[k % poses.length].pose);
    for (const deformer of methods.values()) deformer(mesh, S, out);
  }
  for (const { name, kind, pose } of poses) {
    const S = posed(pose);
    deformDqs(mesh, S, dqs);
    const rounding = float32Spacing(dqs.positions) / diag;
    for (const [method, deformer] of methods) {
      const t0 = performance.now();
      deformer(mesh, S, out);
      const ms = performance.now() - t0;
      rows.push({
        pose: name,
        kind,
        method,
        flippedAgainstDqs: flippedTriangles(mesh.triangles, dqs.positions, out.positions),
        creasedEdges: creasedEdges(edges, mesh.triangles, mesh.positions, out.positions),
        rigidGap: largestGap(rigid, dqs.positions, out.positions) / diag,
        ms,
        rounding,
      });
    }
  }
  return rows;
}

/** The spacing of float32 numbers (asset units) at the largest absolute coordinate of `positions` (3·n); 0 for none. */
function float32Spacing(positions: Float32Array): number {
  let m = 0;
  for (let i = 0; i < positions.length; i++) m = Math.max(m, Math.abs(positions[i]));
  return m > 0 ? 2 ** (Math.floor(Math.log2(m)) - 23) : 0;
}

/** The rows of each method summed (counts; the largest gap and rounding; the median time) over each kind of pose and over all. */
export function summarizeCharacter(
  rows: readonly CharacterRow[],
): (Omit<CharacterRow, 'pose' | 'kind'> & { poses: string })[] {
  const methods = [...new Set(rows.map((r) => r.method))];
  const groups: [string, (r: CharacterRow) => boolean][] = [
    ['stress', (r) => r.kind === 'stress'],
    ['stress ½', (r) => r.kind === 'half'],
    ['clips', (r) => r.kind === 'clip'],
    ['all', () => true],
  ];
  return groups.flatMap(([poses, take]) =>
    methods.flatMap((method) => {
      const mine = rows.filter((r) => r.method === method && take(r));
      if (!mine.length) return [];
      const times = mine.map((r) => r.ms).sort((a, b) => a - b);
      return [
        {
          poses,
          method,
          flippedAgainstDqs: mine.reduce((t, r) => t + r.flippedAgainstDqs, 0),
          creasedEdges: mine.reduce((t, r) => t + r.creasedEdges, 0),
          rigidGap: Math.max(...mine.map((r) => r.rigidGap)),
          ms: times[Math.floor(times.length / 2)],
          rounding: Math.max(...mine.map((r) => r.rounding)),
        },
      ];
    }),
  );
}
