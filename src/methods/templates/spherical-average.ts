/**
 * Weighted averages of unit vectors on the sphere (Buss & Fillmore, "Spherical averages and
 * applications to spherical splines and interpolation", ACM TOG 20(2), 2001): the point q
 * minimising Σ w_i · angle(q, p_i)², found by iterating q ← exp_q(Σ w_i log_q(p_i)) from the
 * normalised linear mean. Two points give slerp.
 *
 * @module
 */

/**
 * Writes into `out[o..o+3)` the weighted spherical average of the unit vectors `points` (3·p)
 * with non-negative `weights` (p, summing to 1). Iterates until the step is below 1e-14 rad (at
 * most 50 times); points antipodal to the mean are skipped by the logarithm (no defined direction).
 * @returns `out`
 */
export function sphericalAverage(points: ArrayLike<number>, weights: ArrayLike<number>, out: Float64Array, o = 0): Float64Array {
  const p = weights.length;
  // Two points: slerp, in closed form (what the iteration converges to); opposite ones iterate.
  if (p === 2 && slerpScaled(points[0], points[1], points[2], points[3], points[4], points[5], weights[1] / (weights[0] + weights[1]), 1, out, o)) return out; // prettier-ignore
  let qx = 0, qy = 0, qz = 0;
  for (let i = 0; i < p; i++) {
    qx += weights[i] * points[3 * i];
    qy += weights[i] * points[3 * i + 1];
    qz += weights[i] * points[3 * i + 2];
  }
  let l = Math.sqrt(qx * qx + qy * qy + qz * qz);
  if (l === 0) {
    // No linear mean (e.g. two antipodal points of equal weight): start at the heaviest point.
    let best = 0;
    for (let i = 1; i < p; i++) if (weights[i] > weights[best]) best = i;
    qx = points[3 * best]; qy = points[3 * best + 1]; qz = points[3 * best + 2];
    l = 1;
  }
  qx /= l; qy /= l; qz /= l;
  for (let iter = 0; iter < 50; iter++) {
    // Σ w_i log_q(p_i), in the tangent plane at q.
    let tx = 0, ty = 0, tz = 0;
    for (let i = 0; i < p; i++) {
      const px = points[3 * i], py = points[3 * i + 1], pz = points[3 * i + 2];
      const c = qx * px + qy * py + qz * pz;
      const vx = px - c * qx, vy = py - c * qy, vz = pz - c * qz;
      const s = Math.sqrt(vx * vx + vy * vy + vz * vz);
      if (s === 0) continue;
      const f = (weights[i] * Math.atan2(s, c)) / s;
      tx += f * vx; ty += f * vy; tz += f * vz;
    }
    const step = Math.sqrt(tx * tx + ty * ty + tz * tz);
    if (step > 0) {
      // q ← exp_q(t) = cos|t| q + sin|t| t/|t|
      const c = Math.cos(step), s = Math.sin(step) / step;
      qx = c * qx + s * tx; qy = c * qy + s * ty; qz = c * qz + s * tz;
      const n = Math.sqrt(qx * qx + qy * qy + qz * qz);
      qx /= n; qy /= n; qz /= n;
    }
    if (step < 1e-14) break;
  }
  out[o] = qx;
  out[o + 1] = qy;
  out[o + 2] = qz;
  return out;
}

/**
 * Slerp by `t` ∈ [0, 1] from p to q, 3-vectors of one length `len` > 0 (to rounding), into
 * `out[o..o+3)` (of that length): the angle between them ω = atan2(|p × q|, p·q), accurate at
 * every angle (the arc cosine of the dot product loses digits near 0 and π: 1e-8 of the length
 * 1.5e-7 rad from opposite, where this keeps 1e-9), and within 1e-7 rad of each other the normalised linear blend (slerp to within 1e-14).
 * @returns false, writing nothing, where p and q are within 1e-7 rad of opposite (no shorter arc)
 */
export function slerpScaled(px: number, py: number, pz: number, qx: number, qy: number, qz: number, t: number, len: number, out: Float64Array, o: number): boolean {
  const x = py * qz - pz * qy, y = pz * qx - px * qz, z = px * qy - py * qx; // prettier-ignore
  const omega = Math.atan2(Math.sqrt(x * x + y * y + z * z), px * qx + py * qy + pz * qz);
  if (omega >= Math.PI - 1e-7) return false;
  let a: number, b: number; // prettier-ignore
  if (omega > 1e-7) {
    const sin = Math.sin(omega);
    a = Math.sin((1 - t) * omega) / sin;
    b = Math.sin(t * omega) / sin;
  } else {
    const bx = (1 - t) * px + t * qx, by = (1 - t) * py + t * qy, bz = (1 - t) * pz + t * qz; // prettier-ignore
    const f = len / Math.sqrt(bx * bx + by * by + bz * bz);
    a = (1 - t) * f;
    b = t * f;
  }
  out[o] = a * px + b * qx;
  out[o + 1] = a * py + b * qy;
  out[o + 2] = a * pz + b * qz;
  return true;
}
