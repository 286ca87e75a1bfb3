/**
 * Skin outside a stored template cage: which vertices lie outside their limb's cage (they follow
 * the cage's extrapolation), and what the CLI and corskin/three say of them.
 *
 * @module
 */
import { pointsOutside } from '../../cage/winding-number.js';
import { bindingShares, limbCage, type TemplateRig } from './rig.js';

/**
 * The skin vertices outside a cage they are bound to: per limb, the vertices with a binding entry
 * on the limb's cage whose generalised winding number about it is below ½ (Jacobson, Kavan,
 * Sorkine-Hornung, "Robust Inside-Outside Segmentation using Generalized Winding Numbers",
 * SIGGRAPH 2013). Empty for a rig corskin built or bound again (both refuse to leave skin out);
 * a stored cage edited elsewhere may leave some, which then follow the cage's extrapolation.
 * @param positions the skin's rest positions (bind space, 3·n), as the rig was bound
 * @returns ascending skin vertex indices
 */
export function templateSkinOutside(rig: TemplateRig, positions: ArrayLike<number>): number[] {
  const n = positions.length / 3;
  const share = bindingShares(rig, n);
  const L = rig.limbs.length;
  const outside = new Set<number>();
  rig.limbs.forEach((limb, c) => {
    const vertices: number[] = [];
    for (let i = 0; i < n; i++) if (share[L * i + c] !== 0) vertices.push(i);
    const X = new Float64Array(3 * vertices.length);
    vertices.forEach((v, q) => {
      for (let k = 0; k < 3; k++) X[3 * q + k] = positions[3 * v + k];
    });
    for (const q of pointsOutside(limbCage(rig, limb), X)) outside.add(vertices[q]);
  });
  return [...outside].sort((a, b) => a - b);
}

/** What the CLI and corskin/three say of a non-empty {@link templateSkinOutside} result. */
export function skinOutsideMessage(outside: readonly number[]): string {
  return `${outside.length} skin vertices lie outside the stored template cage (first: ${outside.slice(0, 5).join(', ')}); they follow the cage's extrapolation`;
}
