/**
 * Direct Delta Mush's smoothing reach adapted to the mesh's resolution. The smoothing
 * (I + λ L̃)⁻ᵖ of Le & Lewis 2019 ("Direct Delta Mush Skinning and Variants", ACM TOG 38(4),
 * SIGGRAPH 2019, Eq. 11) spreads a value over about √(pλ) rings of edges, whatever their length.
 * libigl's tutorial parameters (p = 20, λ = 3, κ = 1) were chosen on its 6,034-vertex elephant,
 * where that is about half a joint region across; on a game character a few rings span a whole
 * ear, leg or armour plate, so the same parameters blend a head with its neck and a leg with the
 * hips (the Fox's head turned and ShibaInu's legs crossed at the stress pose).
 *
 * The adaptive rule keeps the reach the same fraction of a joint region as on the elephant: a
 * mesh's resolution ρ is the number of edges across the region of a vertex's heaviest joint (the
 * median over the vertices of that region's radius, divided by the mean welded edge length), and
 * λ and κ are both scaled by min(1, (ρ / ρ₀)²), ρ₀ being the elephant's. The scale depends on
 * lengths' ratios only: the same for the mesh scaled, mirrored or moved; at most 1, so a mesh as
 * fine as the elephant, or finer, keeps the parameters as given.
 *
 * @module
 */
import type { DdmInput } from './precompute.js';

/**
 * ρ₀: the resolution ({@link meshResolution}) of libigl's elephant with its own weights
 * (`elephant.obj`, `elephant-weights.dmat`, 6,034 vertices, 24 joints, the four heaviest weights
 * kept), the mesh libigl's tutorial 408 tuned its parameters on. Measured by `test/ddm-resolution.test.ts`.
 */
export const ELEPHANT_RESOLUTION = 15.8;

/**
 * The mesh's resolution ρ: edges across a joint region. A joint's region radius is the weighted
 * RMS distance of the vertices from their weighted centroid, weights w_ij; ρ is the median over
 * the vertices of their heaviest joint's radius, divided by the mean length of the mesh's edges;
 * vertices welded by position (`weldOf`) count once, and the zero-length edges between them not.
 * @param welded the mesh welded by position (`weldedVertices`): the welded vertex of each vertex
 *   (length n) and the first vertex of each welded one
 * @returns ρ, or undefined when the mesh has no edge of non-zero length or no weight
 */
export function meshResolution(
  mesh: DdmInput,
  { vertexOf: weldOf, first: vertices }: { vertexOf: ArrayLike<number>; first: ArrayLike<number> },
): number | undefined {
  const { positions: P, triangles: T, influences: K, joints, weights } = mesh;
  let edgeSum = 0;
  let edges = 0;
  for (let t = 0; t + 2 < T.length; t += 3)
    for (let e = 0; e < 3; e++) {
      const a = T[t + e];
      const b = T[t + ((e + 1) % 3)];
      if (weldOf[a] === weldOf[b]) continue;
      const dx = P[3 * a] - P[3 * b], dy = P[3 * a + 1] - P[3 * b + 1], dz = P[3 * a + 2] - P[3 * b + 2]; // prettier-ignore
      edgeSum += Math.sqrt(dx * dx + dy * dy + dz * dz);
      edges++;
    }
  if (!(edgeSum > 0)) return undefined;
  let J = 0;
  for (let k = 0; k < joints.length; k++) if (weights[k] > 0 && joints[k] + 1 > J) J = joints[k] + 1;
  const mass = new Float64Array(J);
  const centre = new Float64Array(3 * J);
  const spread = new Float64Array(J);
  // Each welded vertex once (its first vertex), so that splitting seams changes nothing.
  const each = (visit: (j: number, w: number, i: number) => void) => {
    for (let v = 0; v < vertices.length; v++) {
      const i = vertices[v];
      for (let k = K * i; k < K * i + K; k++) if (weights[k] > 0) visit(joints[k], weights[k], i);
    }
  };
  each((j, w, i) => {
    mass[j] += w;
    for (let c = 0; c < 3; c++) centre[3 * j + c] += w * P[3 * i + c];
  });
  for (let j = 0; j < J; j++) for (let c = 0; c < 3; c++) if (mass[j] > 0) centre[3 * j + c] /= mass[j];
  each((j, w, i) => {
    let d = 0;
    for (let c = 0; c < 3; c++) d += (P[3 * i + c] - centre[3 * j + c]) ** 2;
    spread[j] += w * d;
  });
  const radii = new Float64Array(vertices.length);
  let count = 0;
  for (let v = 0; v < vertices.length; v++) {
    const i = vertices[v];
    let heaviest = -1;
    let most = 0;
    for (let k = K * i; k < K * i + K; k++)
      if (weights[k] > most) {
        most = weights[k];
        heaviest = joints[k];
      }
    if (heaviest >= 0) radii[count++] = Math.sqrt(spread[heaviest] / mass[heaviest]);
  }
  if (!count) return undefined;
  return radii.subarray(0, count).sort()[count >> 1] / (edgeSum / edges);
}

/**
 * The factor λ and κ are multiplied by on a mesh of resolution ρ: min(1, (ρ / {@link
 * ELEPHANT_RESOLUTION})²), so that √(pλ) rings are the same fraction of a joint region as on
 * libigl's elephant; 1 when ρ is unknown.
 */
export function smoothingScale(resolution: number | undefined): number {
  if (resolution === undefined || !(resolution > 0)) return 1;
  return Math.min(1, (resolution / ELEPHANT_RESOLUTION) ** 2);
}
