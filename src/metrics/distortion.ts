/**
 * Local rigidity distortion: how far each vertex's one-ring is from a rigid motion of its rest
 * one-ring — the as-rigid-as-possible energy (Sorkine & Alexa 2007) of the ring, normalised by
 * the ring's size. It is 0 for a rigid motion and grows with collapse (rings shrink), bulge
 * (rings stretch) and shear.
 *
 * @module
 */

/** One-rings in compressed rows: vertex i's distinct neighbours are `neighbours[offsets[i] .. offsets[i+1])`. */
export interface OneRings {
  /** Row starts, length n + 1. */
  offsets: Int32Array;
  /** Every vertex's neighbours, row after row. */
  neighbours: Int32Array;
}

/** The one-rings of a triangle mesh with n vertices (computed once, reused every frame). */
export function oneRings(triangles: ArrayLike<number>, n: number): OneRings {
  const sets: Set<number>[] = Array.from({ length: n }, () => new Set<number>());
  for (let t = 0; t < triangles.length; t += 3) {
    for (let e = 0; e < 3; e++) {
      const a = triangles[t + e], b = triangles[t + ((e + 1) % 3)]; // prettier-ignore
      sets[a].add(b);
      sets[b].add(a);
    }
  }
  const offsets = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i] + sets[i].size;
  const neighbours = new Int32Array(offsets[n]);
  sets.forEach((s, i) => neighbours.set([...s], offsets[i]));
  return { offsets, neighbours };
}

/**
 * Per-vertex distortion `sqrt( min_R Σ_j |e'_ij − R e_ij|² / Σ_j |e_ij|² )` over the one-ring
 * edges `e_ij = p_j − p_i` (rest) and `e'_ij` (posed), dimensionless. The best rotation comes
 * from Horn's quaternion method: `min_R Σ|e' − R e|² = Σ|e'|² + Σ|e|² − 2 λ_max(N)`, with N the
 * 4×4 symmetric matrix built from the covariance `Σ e e'ᵀ` (λ_max by Jacobi iteration).
 * @param rest positions, length 3·n; @param posed positions, length 3·n
 * @param triangles length 3·t (the one-rings); isolated vertices get 0
 * @param rings the one-rings of `triangles`, when already computed ({@link oneRings})
 * @returns Float64Array, length n
 */
export function rigidityDistortion(
  rest: ArrayLike<number>,
  posed: ArrayLike<number>,
  triangles: ArrayLike<number>,
  rings: OneRings = oneRings(triangles, rest.length / 3),
): Float64Array {
  const n = rest.length / 3;
  const { offsets, neighbours } = rings;
  const out = new Float64Array(n);
  const N = new Float64Array(16);
  for (let i = 0; i < n; i++) {
    let sxx = 0, sxy = 0, sxz = 0, syx = 0, syy = 0, syz = 0, szx = 0, szy = 0, szz = 0; // prettier-ignore
    let rest2 = 0;
    let posed2 = 0;
    for (let r = offsets[i]; r < offsets[i + 1]; r++) {
      const j = neighbours[r];
      const ex = rest[3 * j] - rest[3 * i], ey = rest[3 * j + 1] - rest[3 * i + 1], ez = rest[3 * j + 2] - rest[3 * i + 2]; // prettier-ignore
      const fx = posed[3 * j] - posed[3 * i], fy = posed[3 * j + 1] - posed[3 * i + 1], fz = posed[3 * j + 2] - posed[3 * i + 2]; // prettier-ignore
      sxx += ex * fx; sxy += ex * fy; sxz += ex * fz; // prettier-ignore
      syx += ey * fx; syy += ey * fy; syz += ey * fz; // prettier-ignore
      szx += ez * fx; szy += ez * fy; szz += ez * fz; // prettier-ignore
      rest2 += ex * ex + ey * ey + ez * ez;
      posed2 += fx * fx + fy * fy + fz * fz;
    }
    if (!(rest2 > 0)) continue;
    N.set([
      sxx + syy + szz, syz - szy, szx - sxz, sxy - syx,
      syz - szy, sxx - syy - szz, sxy + syx, szx + sxz,
      szx - sxz, sxy + syx, -sxx + syy - szz, syz + szy,
      sxy - syx, szx + sxz, syz + szy, -sxx - syy + szz,
    ]); // prettier-ignore
    const lambda = largestEigenvalue4(N);
    out[i] = Math.sqrt(Math.max(0, posed2 + rest2 - 2 * lambda) / rest2);
  }
  return out;
}

/** Largest eigenvalue of a symmetric 4×4 matrix (row-major, modified in place), cyclic Jacobi. */
function largestEigenvalue4(a: Float64Array): number {
  for (let sweep = 0; sweep < 30; sweep++) {
    let off = 0;
    for (let p = 0; p < 4; p++) for (let q = p + 1; q < 4; q++) off += a[4 * p + q] * a[4 * p + q];
    if (off < 1e-30 * (a[0] * a[0] + a[5] * a[5] + a[10] * a[10] + a[15] * a[15] + 1e-300)) break;
    for (let p = 0; p < 4; p++) {
      for (let q = p + 1; q < 4; q++) {
        const apq = a[4 * p + q];
        if (apq === 0) continue;
        const theta = (a[4 * q + q] - a[4 * p + p]) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < 4; k++) {
          const akp = a[4 * k + p], akq = a[4 * k + q]; // prettier-ignore
          a[4 * k + p] = c * akp - s * akq;
          a[4 * k + q] = s * akp + c * akq;
        }
        for (let k = 0; k < 4; k++) {
          const apk = a[4 * p + k], aqk = a[4 * q + k]; // prettier-ignore
          a[4 * p + k] = c * apk - s * aqk;
          a[4 * q + k] = s * apk + c * aqk;
        }
      }
    }
  }
  return Math.max(a[0], a[5], a[10], a[15]);
}
