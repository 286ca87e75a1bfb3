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
  if (p === 2) {
    // Two points: slerp, in closed form (what the iteration converges to).
    const c = points[0] * points[3] + points[1] * points[4] + points[2] * points[5];
    const t = weights[1] / (weights[0] + weights[1]);
    const omega = Math.acos(Math.max(-1, Math.min(1, c)));
    if (omega > 1e-7 && omega < Math.PI - 1e-7) {
      const sinOmega = Math.sin(omega);
      const a = Math.sin((1 - t) * omega) / sinOmega, b = Math.sin(t * omega) / sinOmega;
      for (let k = 0; k < 3; k++) out[o + k] = a * points[k] + b * points[3 + k];
      return out;
    }
    if (omega <= 1e-7) {
      // (Nearly) the same point: slerp is the normalised linear blend to within 1e-14.
      const x = (1 - t) * points[0] + t * points[3], y = (1 - t) * points[1] + t * points[4], z = (1 - t) * points[2] + t * points[5]; // prettier-ignore
      const l = Math.sqrt(x * x + y * y + z * z);
      out[o] = x / l;
      out[o + 1] = y / l;
      out[o + 2] = z / l;
      return out;
    }
  }
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
