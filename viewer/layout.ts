/**
 * The viewer's layouts and framing, as pure functions of the window and the character's box (no
 * DOM, so they are tested in Node): where each method's view goes, which layout gives the
 * character most room, and how far the camera stands to fit a box in a view.
 *
 * @module
 */
import { Box3, Vector3 } from 'three';

/** How the method views share the window: chosen for the window and character, a row, a 2×2 grid, or one view. */
export type Layout = 'auto' | 'side' | 'grid' | 'single';

/** A view's rectangle in CSS pixels from the canvas's top-left corner. */
export interface Cell {
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * The rectangles of `count` views in a `width`×`height` canvas: a row (`side`), rows of two
 * (`grid`, 2×2 for four), or the whole canvas (`single`, one view). Whole pixels, no overlap.
 */
export function layoutCells(layout: Exclude<Layout, 'auto'>, count: number, width: number, height: number): Cell[] {
  if (count <= 0) return [];
  if (layout === 'single' || count === 1) return [{ x: 0, y: 0, w: width, h: height }];
  const columns = layout === 'side' ? count : Math.ceil(Math.sqrt(count));
  const rows = Math.ceil(count / columns);
  const w = Math.floor(width / columns);
  const h = Math.floor(height / rows);
  return Array.from({ length: count }, (_, k) => ({ x: (k % columns) * w, y: Math.floor(k / columns) * h, w, h }));
}

/** The default direction from the character to the camera: a three-quarter view from the front right, a little above (glTF: +z front, +y up). */
export const THREE_QUARTER = new Vector3(0.7, 0.3, 1).normalize();

/** The camera's axes for a view along the unit `direction` (target → camera), and its half-angle tangents. */
function viewBasis(direction: Vector3, fovDegrees: number, aspect: number) {
  const d = direction.clone().normalize();
  const up = Math.abs(d.y) > 0.99 ? new Vector3(0, 0, -1) : new Vector3(0, 1, 0);
  const right = new Vector3().crossVectors(up, d).normalize();
  const camUp = new Vector3().crossVectors(d, right);
  const tanV = Math.tan((fovDegrees * Math.PI) / 360);
  return { d, right, camUp, tanV, tanH: tanV * aspect };
}

/** The distance from `target` along the view at which every point (x y z each) falls inside it, with `margin`. */
function distanceToFit(
  points: ArrayLike<number>,
  target: Vector3,
  basis: ReturnType<typeof viewBasis>,
  margin: number,
): number {
  const { d, right, camUp, tanV, tanH } = basis;
  const p = new Vector3();
  let distance = 0;
  for (let i = 0; i + 2 < points.length; i += 3) {
    p.set(points[i], points[i + 1], points[i + 2]).sub(target);
    const x = Math.abs(p.dot(right)), y = Math.abs(p.dot(camUp)), z = p.dot(d); // prettier-ignore
    distance = Math.max(distance, z + (margin * x) / tanH, z + (margin * y) / tanV);
  }
  return distance || 1;
}

/**
 * The camera distance from the box's centre, along the unit `direction` (centre → camera), at
 * which every corner of `box` falls inside a view of vertical field of view `fovDegrees` and
 * `aspect` (width ÷ height), with `margin` (1.12: a 12% border).
 */
export function fitDistance(box: Box3, direction: Vector3, fovDegrees: number, aspect: number, margin = 1.12): number {
  const corners: number[] = [];
  for (let k = 0; k < 8; k++)
    corners.push(k & 1 ? box.max.x : box.min.x, k & 2 ? box.max.y : box.min.y, k & 4 ? box.max.z : box.min.z);
  return distanceToFit(corners, box.getCenter(new Vector3()), viewBasis(direction, fovDegrees, aspect), margin);
}

/**
 * Where the camera looks and how far it stands, along the unit `direction` (target → camera), so
 * that the points themselves — not their box, which for a long quadruped seen three-quarters is
 * much larger than the animal — fill a view of vertical field of view `fovDegrees` and `aspect`,
 * with `margin`, centred on their projected extent (three passes: the perspective moves the
 * centre a little as the distance changes).
 * @param points world positions, x y z per point
 * @returns the target and the distance of the camera from it
 */
export function fitPoints(
  points: ArrayLike<number>,
  direction: Vector3,
  fovDegrees: number,
  aspect: number,
  margin = 1.12,
): { target: Vector3; distance: number } {
  const basis = viewBasis(direction, fovDegrees, aspect);
  const { d, right, camUp } = basis;
  const target = new Vector3();
  const p = new Vector3();
  const n = Math.floor(points.length / 3);
  if (!n) return { target, distance: 1 };
  for (let i = 0; i < 3 * n; i += 3) target.add(p.set(points[i], points[i + 1], points[i + 2]));
  target.divideScalar(n);
  let distance = distanceToFit(points, target, basis, margin);
  for (let pass = 0; pass < 3; pass++) {
    // The middle of the projected extent, moved back to the target's plane.
    let u0 = Infinity, u1 = -Infinity, v0 = Infinity, v1 = -Infinity; // prettier-ignore
    for (let i = 0; i < 3 * n; i += 3) {
      p.set(points[i], points[i + 1], points[i + 2]).sub(target);
      const depth = distance - p.dot(d);
      if (!(depth > 0)) continue;
      const u = p.dot(right) / depth, v = p.dot(camUp) / depth; // prettier-ignore
      u0 = Math.min(u0, u);
      u1 = Math.max(u1, u);
      v0 = Math.min(v0, v);
      v1 = Math.max(v1, v); // prettier-ignore
    }
    if (!(u1 >= u0 && v1 >= v0)) break;
    target.addScaledVector(right, ((u0 + u1) / 2) * distance).addScaledVector(camUp, ((v0 + v1) / 2) * distance);
    distance = distanceToFit(points, target, basis, margin);
  }
  return { target, distance };
}

/**
 * The layout that shows the character largest (pixels per unit length when fitted) among a row
 * and a 2×2 grid of `count` views; one view in windows under 560 px wide.
 */
export function autoLayout(
  box: Box3,
  count: number,
  width: number,
  height: number,
  fovDegrees: number,
): Exclude<Layout, 'auto'> {
  if (count <= 1 || width < 560) return 'single';
  const scale = (layout: 'side' | 'grid') => {
    const { w, h } = layoutCells(layout, count, width, height)[0];
    return h / fitDistance(box, THREE_QUARTER, fovDegrees, w / Math.max(1, h));
  };
  return scale('side') >= scale('grid') ? 'side' : 'grid';
}
